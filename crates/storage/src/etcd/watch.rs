//! etcd watches: one task per watch forwards etcd's watch responses as store messages and,
//! when the connection breaks, re-creates the watch from the next undelivered revision on
//! another endpoint (as etcd's Go client does), so a member failure does not end the watch.

use std::time::Duration;

use async_trait::async_trait;
use etcd_client::{Client, WatchOptions};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::convert::{Prefix, map_error};
use crate::error::{Result, StoreError};
use crate::store::{ProgressRequester, WatchStream};
use crate::types::{Event, WatchRequest, WatchResponse};

/// Messages buffered between the watch task and its consumer.
const OUT_BUFFER: usize = 64;
/// Pause between attempts to re-create a broken watch.
const RECONNECT_PAUSE: Duration = Duration::from_millis(200);

/// Opens the watch (so that every write after this returns is seen) and starts its task.
pub async fn start(
    client: Client,
    prefix: Prefix,
    request: WatchRequest,
    timeout: Duration,
) -> Result<WatchStream> {
    let mut watch = EtcdWatch {
        client,
        prefix,
        request,
        next: 0,
        timeout,
    };
    let start = watch.request.start_revision.filter(|r| *r > 0);
    let (stream, created) = tokio::time::timeout(timeout, watch.open(start))
        .await
        .map_err(|_| StoreError::Unavailable("etcd: creating the watch timed out".into()))??;
    watch.next = start.unwrap_or(created + 1);
    let (out, out_rx) = mpsc::channel(OUT_BUFFER);
    let (progress_tx, progress_rx) = mpsc::channel(4);
    tokio::spawn(watch.run(stream, out, progress_rx));
    Ok(WatchStream::new(
        Box::pin(ReceiverStream::new(out_rx)),
        Box::new(EtcdProgress(progress_tx)),
    ))
}

struct EtcdProgress(mpsc::Sender<()>);

#[async_trait]
impl ProgressRequester for EtcdProgress {
    async fn request_progress(&mut self) -> Result<()> {
        self.0
            .send(())
            .await
            .map_err(|_| StoreError::WatchClosed("watcher has ended".into()))
    }
}

struct EtcdWatch {
    client: Client,
    prefix: Prefix,
    request: WatchRequest,
    /// Next revision to deliver; a re-created watch starts here.
    next: i64,
    timeout: Duration,
}

/// What to do after one etcd response.
enum Step {
    Continue,
    Stop,
}

type Out = mpsc::Sender<Result<WatchResponse>>;

impl EtcdWatch {
    /// Creates the etcd watch and waits for its "created" response; returns its header revision.
    async fn open(&self, start: Option<i64>) -> Result<(etcd_client::WatchStream, i64)> {
        let full = self.prefix.full(&self.request.key);
        let mut options: WatchOptions = self.prefix.watch_options(&full, self.request.prefix);
        if let Some(start) = start {
            options = options.with_start_revision(start);
        }
        if self.request.prev_kv {
            options = options.with_prev_key();
        }
        if self.request.progress_notify {
            options = options.with_progress_notify();
        }
        let mut stream = self
            .client
            .watch_client()
            .max_decoding_message_size(super::MAX_RESPONSE_BYTES)
            .watch(full, Some(options))
            .await
            .map_err(|e| map_error(e, start))?;
        match stream.message().await.map_err(|e| map_error(e, start))? {
            Some(created) if created.created() => {
                Ok((stream, created.header().map_or(0, |h| h.revision())))
            }
            _ => Err(StoreError::Unavailable(
                "etcd: watch was not created".into(),
            )),
        }
    }

    async fn run(
        mut self,
        mut stream: etcd_client::WatchStream,
        out: Out,
        mut progress_rx: mpsc::Receiver<()>,
    ) {
        loop {
            let broken = loop {
                tokio::select! {
                    message = stream.message() => match message {
                        Ok(Some(response)) => {
                            if let Step::Stop = self.handle(response, &out).await { return; }
                        }
                        Ok(None) => break StoreError::Unavailable("etcd closed the watch stream".into()),
                        Err(error) => break map_error(error, Some(self.next)),
                    },
                    request = progress_rx.recv(), if !progress_rx.is_closed() => {
                        if request.is_some() && let Err(error) = stream.request_progress().await {
                            break map_error(error, None);
                        }
                    }
                    _ = out.closed() => return,
                }
            };
            if !matches!(broken, StoreError::Unavailable(_)) {
                let _ = out.send(Err(broken)).await;
                return;
            }
            tracing::info!(error = %broken, next = self.next, "etcd watch broken; re-creating it");
            match self.reopen().await {
                Ok(reopened) => stream = reopened,
                Err(error) => {
                    let _ = out.send(Err(error)).await;
                    return;
                }
            }
        }
    }

    /// Re-creates the watch from `next`, retrying until the time budget is spent.
    async fn reopen(&self) -> Result<etcd_client::WatchStream> {
        let deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            let attempt = tokio::time::timeout(self.timeout, self.open(Some(self.next))).await;
            match attempt {
                Ok(Ok((stream, _))) => return Ok(stream),
                Ok(Err(error)) if !matches!(error, StoreError::Unavailable(_)) => {
                    return Err(error);
                }
                Ok(Err(error)) if tokio::time::Instant::now() >= deadline => return Err(error),
                Err(_) if tokio::time::Instant::now() >= deadline => {
                    return Err(StoreError::Unavailable(
                        "etcd: re-creating the watch timed out".into(),
                    ));
                }
                _ => tokio::time::sleep(RECONNECT_PAUSE).await,
            }
        }
    }

    async fn handle(&mut self, response: etcd_client::WatchResponse, out: &Out) -> Step {
        if response.compact_revision() > 0 {
            let compacted = StoreError::Compacted {
                requested: self.next,
                compacted: response.compact_revision(),
            };
            let _ = out.send(Err(compacted)).await;
            return Step::Stop;
        }
        if response.canceled() {
            let reason = format!("etcd cancelled the watch: {}", response.cancel_reason());
            let _ = out.send(Err(StoreError::WatchClosed(reason))).await;
            return Step::Stop;
        }
        let message = if response.events().is_empty() {
            if response.created() {
                return Step::Continue;
            }
            let revision = response.header().map_or(0, |h| h.revision());
            self.next = self.next.max(revision + 1);
            WatchResponse::Progress { revision }
        } else {
            let events: Vec<Event> = response
                .events()
                .iter()
                .filter_map(|e| self.prefix.event(e))
                .collect();
            if let Some(last) = events.last() {
                self.next = self.next.max(last.revision() + 1);
            }
            WatchResponse::Events(events)
        };
        if out.send(Ok(message)).await.is_err() {
            Step::Stop
        } else {
            Step::Continue
        }
    }
}
