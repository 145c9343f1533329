//! Watchers of the embedded store. A watch is a stream (no task of its own): it first catches
//! up from the on-disk revision log, then follows the writer's in-memory fan-out, which wakes
//! it only for batches under its key. A watcher that falls behind the fan-out never slows the
//! writer: it loses its place in the fan-out and goes back to the disk log, unless that
//! history was compacted, in which case it ends with `Compacted`.

use std::sync::Weak;
use std::time::Duration;

use async_trait::async_trait;
use redb::{Database, ReadableDatabase, ReadableTable};
use tokio::sync::mpsc;
use tokio::time::{Interval, MissedTickBehavior};

use super::fanout::{Fanout, Received, Subscription, covers};
use super::tables::{
    self, COMPACT_REVISION, CURRENT_REVISION, HISTORY, LOG, META, db_err, from_disk, to_disk,
};
use super::writer::CommittedBatch;
use crate::error::{Result, StoreError};
use crate::store::{ProgressRequester, WatchStream};
use crate::types::{Event, KeyValue, WatchRequest, WatchResponse};

/// Log entries read per catch-up transaction.
const CATCH_UP_CHUNK: usize = 1024;

/// Everything a watcher needs.
pub struct WatchContext {
    /// The database, weakly: a watcher does not keep a closed store open.
    pub db: Weak<Database>,
    /// The writer's fan-out, weakly: it closes when the writer stops.
    pub events: Weak<Fanout>,
    /// Interval of progress notifications when requested.
    pub progress_interval: Duration,
}

/// Returns the watch stream. `from` is the first revision to deliver.
pub fn start(ctx: WatchContext, request: WatchRequest, from: i64) -> WatchStream {
    let (progress_tx, progress_rx) = mpsc::channel(1);
    let period = ctx.progress_interval;
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let watcher = Watcher {
        ctx,
        request,
        next: from,
        seen: 0,
        rx: None,
        catching_up: true,
        progress_due: false,
        idle: true,
        ticker,
        progress_rx,
        done: false,
    };
    let stream = futures::stream::unfold(watcher, |mut watcher| async move {
        watcher
            .next_message()
            .await
            .map(|message| (message, watcher))
    });
    WatchStream::new(Box::pin(stream), Box::new(EmbeddedProgress(progress_tx)))
}

struct EmbeddedProgress(mpsc::Sender<()>);

#[async_trait]
impl ProgressRequester for EmbeddedProgress {
    async fn request_progress(&mut self) -> Result<()> {
        match self.0.try_send(()) {
            // A request is already pending: its answer will carry the latest revision.
            Ok(()) | Err(mpsc::error::TrySendError::Full(())) => Ok(()),
            Err(mpsc::error::TrySendError::Closed(())) => {
                Err(StoreError::WatchClosed("watcher has ended".into()))
            }
        }
    }
}

struct Watcher {
    ctx: WatchContext,
    request: WatchRequest,
    /// Next revision to deliver.
    next: i64,
    /// Highest store revision this watcher has looked at.
    seen: i64,
    /// Subscription to the fan-out, taken before catching up so nothing falls in between.
    rx: Option<Subscription>,
    catching_up: bool,
    /// A progress notification was asked for and is answered once the queue is drained.
    progress_due: bool,
    /// No events were delivered since the last periodic progress notification.
    idle: bool,
    ticker: Interval,
    progress_rx: mpsc::Receiver<()>,
    done: bool,
}

impl Watcher {
    /// The next message; `None` once the stream has ended (after its last, error, item).
    async fn next_message(&mut self) -> Option<Result<WatchResponse>> {
        if self.done {
            return None;
        }
        let message = self.produce().await;
        if message.is_err() {
            self.done = true;
        }
        Some(message)
    }

    async fn produce(&mut self) -> Result<WatchResponse> {
        loop {
            if self.rx.is_none() {
                let fanout = self.ctx.events.upgrade().ok_or_else(closed)?;
                self.rx = Some(fanout.subscribe(&self.request.key, self.request.prefix));
                self.catching_up = true;
            }
            if self.catching_up {
                let events = self.catch_up_chunk().await?;
                if !events.is_empty() {
                    return Ok(self.deliver(events));
                }
                continue;
            }
            if let Some(message) = self.follow().await? {
                return Ok(message);
            }
        }
    }

    /// Reads one chunk of the log; leaves catch-up mode once the log is exhausted.
    async fn catch_up_chunk(&mut self) -> Result<Vec<Event>> {
        let db = self.ctx.db.upgrade().ok_or_else(closed)?;
        let (from, request) = (self.next, self.request.clone());
        let chunk = tokio::task::spawn_blocking(move || read_chunk(&db, from, &request))
            .await
            .map_err(|e| StoreError::Internal(format!("watch catch-up task failed: {e}")))??;
        self.seen = self.seen.max(chunk.scanned_to);
        self.next = self.next.max(chunk.scanned_to + 1);
        self.catching_up = !chunk.exhausted;
        Ok(chunk.events)
    }

    /// Waits for the fan-out, a progress request or the progress ticker; `None` when the
    /// wait produced nothing to deliver.
    async fn follow(&mut self) -> Result<Option<WatchResponse>> {
        if self.progress_due {
            return self.answer_progress();
        }
        let Some(rx) = self.rx.as_mut() else {
            return Ok(None);
        };
        let progress_notify = self.request.progress_notify;
        tokio::select! {
            received = rx.recv() => self.received(received),
            request = self.progress_rx.recv(), if !self.progress_rx.is_closed() => {
                self.progress_due = request.is_some();
                Ok(None)
            }
            _ = self.ticker.tick(), if progress_notify => {
                if std::mem::replace(&mut self.idle, true) {
                    self.progress_due = true;
                }
                Ok(None)
            }
        }
    }

    /// The progress notification due: the fan-out's revision once every batch queued before
    /// it was delivered (the fan-out queues a batch before it publishes its revision, so an
    /// empty queue after reading the revision means nothing under this watch is missing).
    fn answer_progress(&mut self) -> Result<Option<WatchResponse>> {
        let published = self.ctx.events.upgrade().ok_or_else(closed)?.published();
        let Some(rx) = self.rx.as_mut() else {
            return Ok(None);
        };
        match rx.try_recv() {
            Received::Empty => {
                self.progress_due = false;
                self.seen = self.seen.max(published);
                self.next = self.next.max(published + 1);
                Ok(Some(WatchResponse::Progress {
                    revision: self.seen,
                }))
            }
            received => self.received(received),
        }
    }

    /// Handles what the fan-out gave.
    fn received(&mut self, received: Received) -> Result<Option<WatchResponse>> {
        match received {
            Received::Batch(batch) => Ok(self.filter(&batch)),
            Received::Empty => Ok(None),
            Received::Lagged => {
                tracing::debug!(next = self.next, "watcher lagged; catching up from disk");
                self.rx = None;
                Ok(None)
            }
            Received::Closed => Err(closed()),
        }
    }

    /// The batch's events this watch delivers, if any.
    fn filter(&mut self, batch: &CommittedBatch) -> Option<WatchResponse> {
        let events: Vec<Event> = batch
            .events
            .iter()
            .filter(|e| e.revision() >= self.next && matches(&self.request, e.key()))
            .cloned()
            .collect();
        self.seen = self.seen.max(batch.revision);
        self.next = self.next.max(batch.revision + 1);
        (!events.is_empty()).then(|| self.deliver(events))
    }

    fn deliver(&mut self, mut events: Vec<Event>) -> WatchResponse {
        if !self.request.prev_kv {
            events.iter_mut().for_each(strip_prev);
        }
        self.idle = false;
        WatchResponse::Events(events)
    }
}

fn closed() -> StoreError {
    StoreError::Unavailable("store closed".into())
}

fn strip_prev(event: &mut Event) {
    match event {
        Event::Put { prev, .. } | Event::Delete { prev, .. } => *prev = None,
    }
}

/// True when `key` is covered by the watch request.
fn matches(request: &WatchRequest, key: &[u8]) -> bool {
    covers(&request.key, request.prefix, key)
}

/// Events read from the log in one read transaction.
struct Chunk {
    events: Vec<Event>,
    /// Every revision up to this one has been scanned.
    scanned_to: i64,
    /// The log has no more entries after `scanned_to` in this snapshot.
    exhausted: bool,
}

fn read_chunk(db: &Database, from: i64, request: &WatchRequest) -> Result<Chunk> {
    let txn = db.begin_read().map_err(db_err)?;
    let meta = txn.open_table(META).map_err(db_err)?;
    let current = from_disk(tables::read_meta(&meta, CURRENT_REVISION)?);
    let compacted = from_disk(tables::read_meta(&meta, COMPACT_REVISION)?);
    if from < compacted {
        return Err(StoreError::Compacted {
            requested: from,
            compacted,
        });
    }
    let log = txn.open_table(LOG).map_err(db_err)?;
    let history = txn.open_table(HISTORY).map_err(db_err)?;
    let mut events = Vec::new();
    let mut scanned = 0usize;
    let mut last = from - 1;
    for item in log
        .range(to_disk(from.max(1))..=to_disk(current))
        .map_err(db_err)?
        .take(CATCH_UP_CHUNK)
    {
        let (rev, key) = item.map_err(db_err)?;
        let (rev, key) = (rev.value(), key.value());
        scanned += 1;
        last = from_disk(rev);
        if matches(request, key) {
            events.push(event_at(&history, key, rev)?);
        }
    }
    let exhausted = scanned < CATCH_UP_CHUNK;
    Ok(Chunk {
        events,
        scanned_to: if exhausted { current } else { last },
        exhausted,
    })
}

fn event_at(
    history: &impl ReadableTable<(&'static [u8], u64), &'static [u8]>,
    key: &[u8],
    rev: u64,
) -> Result<Event> {
    let record = history.get((key, rev)).map_err(db_err)?.ok_or_else(|| {
        StoreError::Internal(format!(
            "embedded store: revision {rev} missing from history"
        ))
    })?;
    let prev = previous(history, key, rev)?;
    Ok(match tables::decode_version(key, rev, record.value())? {
        Some(kv) => Event::Put { kv, prev },
        None => Event::Delete {
            key: key.to_vec(),
            revision: from_disk(rev),
            prev,
        },
    })
}

fn previous(
    history: &impl ReadableTable<(&'static [u8], u64), &'static [u8]>,
    key: &[u8],
    rev: u64,
) -> Result<Option<KeyValue>> {
    match history
        .range((key, 0u64)..(key, rev))
        .map_err(db_err)?
        .next_back()
    {
        Some(item) => {
            let (k, record) = item.map_err(db_err)?;
            tables::decode_version(key, k.value().1, record.value())
        }
        None => Ok(None),
    }
}
