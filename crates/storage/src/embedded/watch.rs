//! Watchers of the embedded store. Each watcher is a task that first catches up from the
//! on-disk revision log, then follows the writer's in-memory fan-out. A watcher that falls
//! behind the fan-out never slows the writer: it loses its place in the broadcast and goes
//! back to the disk log, unless that history was compacted, in which case it ends with
//! `Compacted`.

use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use redb::{Database, ReadableDatabase, ReadableTable};
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use super::tables::{
    self, COMPACT_REVISION, CURRENT_REVISION, HISTORY, LOG, META, db_err, from_disk, to_disk,
};
use super::writer::CommittedBatch;
use crate::error::{Result, StoreError};
use crate::store::{ProgressRequester, WatchStream};
use crate::types::{Event, KeyValue, WatchRequest, WatchResponse};

/// Log entries read per catch-up transaction.
const CATCH_UP_CHUNK: usize = 1024;
/// Messages buffered between a watcher task and its consumer.
const OUT_BUFFER: usize = 64;

/// Everything a watcher task needs.
pub struct WatchContext {
    /// The database, weakly: a watcher does not keep a closed store open.
    pub db: Weak<Database>,
    /// The writer's fan-out, weakly: the channel closes when the store and its writer are gone.
    pub events: Weak<broadcast::Sender<Arc<CommittedBatch>>>,
    /// Interval of progress notifications when requested.
    pub progress_interval: Duration,
}

/// Starts a watcher task and returns its stream. `from` is the first revision to deliver.
pub fn start(ctx: WatchContext, request: WatchRequest, from: i64) -> WatchStream {
    let (out, out_rx) = mpsc::channel(OUT_BUFFER);
    let (progress_tx, progress_rx) = mpsc::channel(4);
    let watcher = Watcher {
        ctx,
        request,
        next: from,
        seen: 0,
        out,
        progress_rx,
    };
    tokio::spawn(watcher.run());
    WatchStream::new(
        Box::pin(ReceiverStream::new(out_rx)),
        Box::new(EmbeddedProgress(progress_tx)),
    )
}

struct EmbeddedProgress(mpsc::Sender<()>);

#[async_trait]
impl ProgressRequester for EmbeddedProgress {
    async fn request_progress(&mut self) -> Result<()> {
        self.0
            .send(())
            .await
            .map_err(|_| StoreError::WatchClosed("watcher has ended".into()))
    }
}

struct Watcher {
    ctx: WatchContext,
    request: WatchRequest,
    /// Next revision to deliver.
    next: i64,
    /// Highest store revision this watcher has looked at.
    seen: i64,
    out: mpsc::Sender<Result<WatchResponse>>,
    progress_rx: mpsc::Receiver<()>,
}

/// How following the fan-out ended.
enum FollowEnd {
    Lagged,
    Done,
}

impl Watcher {
    async fn run(mut self) {
        loop {
            let Some(rx) = self.ctx.events.upgrade().map(|events| events.subscribe()) else {
                let _ = self
                    .out
                    .send(Err(StoreError::Unavailable("store closed".into())))
                    .await;
                return;
            };
            if let Err(error) = self.catch_up().await {
                let _ = self.out.send(Err(error)).await;
                return;
            }
            match self.follow(rx).await {
                FollowEnd::Lagged => {
                    tracing::debug!(next = self.next, "watcher lagged; catching up from disk")
                }
                FollowEnd::Done => return,
            }
        }
    }

    async fn catch_up(&mut self) -> Result<()> {
        loop {
            let db = self
                .ctx
                .db
                .upgrade()
                .ok_or_else(|| StoreError::Unavailable("store closed".into()))?;
            let (from, request) = (self.next, self.request.clone());
            let chunk = tokio::task::spawn_blocking(move || read_chunk(&db, from, &request))
                .await
                .map_err(|e| StoreError::Internal(format!("watch catch-up task failed: {e}")))??;
            self.seen = self.seen.max(chunk.scanned_to);
            self.next = self.next.max(chunk.scanned_to + 1);
            if !chunk.events.is_empty() && !self.send_events(chunk.events).await {
                return Ok(());
            }
            if chunk.exhausted {
                return Ok(());
            }
        }
    }

    async fn follow(&mut self, mut rx: broadcast::Receiver<Arc<CommittedBatch>>) -> FollowEnd {
        let mut ticker = tokio::time::interval(self.ctx.progress_interval);
        ticker.tick().await;
        let mut idle = true;
        loop {
            tokio::select! {
                batch = rx.recv() => match batch {
                    Ok(batch) => {
                        if !self.deliver(&batch).await { return FollowEnd::Done; }
                        idle = false;
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => return FollowEnd::Lagged,
                    Err(broadcast::error::RecvError::Closed) => {
                        let _ = self.out.send(Err(StoreError::Unavailable("store closed".into()))).await;
                        return FollowEnd::Done;
                    }
                },
                request = self.progress_rx.recv(), if !self.progress_rx.is_closed() => {
                    if request.is_some() && !self.send_progress().await { return FollowEnd::Done; }
                }
                _ = ticker.tick(), if self.request.progress_notify => {
                    if idle && !self.send_progress().await { return FollowEnd::Done; }
                    idle = true;
                }
                _ = self.out.closed() => return FollowEnd::Done,
            }
        }
    }

    async fn deliver(&mut self, batch: &CommittedBatch) -> bool {
        let events: Vec<Event> = batch
            .events
            .iter()
            .filter(|e| e.revision() >= self.next && matches(&self.request, e.key()))
            .cloned()
            .collect();
        self.seen = self.seen.max(batch.revision);
        self.next = self.next.max(batch.revision + 1);
        events.is_empty() || self.send_events(events).await
    }

    async fn send_events(&mut self, mut events: Vec<Event>) -> bool {
        if !self.request.prev_kv {
            events.iter_mut().for_each(strip_prev);
        }
        self.out
            .send(Ok(WatchResponse::Events(events)))
            .await
            .is_ok()
    }

    async fn send_progress(&mut self) -> bool {
        self.out
            .send(Ok(WatchResponse::Progress {
                revision: self.seen,
            }))
            .await
            .is_ok()
    }
}

fn strip_prev(event: &mut Event) {
    match event {
        Event::Put { prev, .. } | Event::Delete { prev, .. } => *prev = None,
    }
}

/// True when `key` is covered by the watch request.
fn matches(request: &WatchRequest, key: &[u8]) -> bool {
    if request.prefix {
        key.starts_with(&request.key)
    } else {
        key == request.key.as_slice()
    }
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
