//! A small controller runtime (kube-runtime's reconciler shape): a resource's changes, from
//! its watch cache, become keys in a work queue; a worker reconciles one key at a time and
//! requeues it after a delay or, on error, with exponential backoff. Every controller
//! reconciles all objects when it starts, so work that a restart interrupted finishes; it
//! writes through the REST layer, and stops when the server shuts down.

pub mod namespace;

use crate::state::ApiState;
use kapi_registry::Error;
use kapi_registry::cache::CacheMessage;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// What a reconcile asks for next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Nothing until the object changes again.
    Done,
    /// Look again after this long (work still pending, e.g. finalizers of dependents).
    Requeue(Duration),
}

/// One controller: what it watches and how it reconciles one object.
#[async_trait::async_trait]
pub trait Reconciler: Send + Sync + 'static {
    /// Its name, for logs and the health hook (`start-<name>`).
    fn name(&self) -> &'static str;

    /// The storage prefix whose changes enqueue keys (ends in `/`).
    fn watched_prefix(&self, state: &ApiState) -> Option<String>;

    /// The key of the object at a storage key (e.g. a namespace's name), if it is one.
    fn key_of(&self, storage_key: &[u8]) -> Option<String>;

    /// Every key to reconcile at start.
    async fn all_keys(&self, state: &ApiState) -> Result<Vec<String>, Error>;

    /// Brings the object of `key` to where it should be.
    async fn reconcile(&self, state: &ApiState, key: &str) -> Result<Action, Error>;
}

/// The first retry delay after an error; doubled per failure up to [`MAX_BACKOFF`].
const BASE_BACKOFF: Duration = Duration::from_millis(10);
/// The longest retry delay after errors.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How long the runtime waits for a watch cache before listing again.
const CACHE_TIMEOUT: Duration = Duration::from_secs(10);

/// Keys waiting, each once, with the time it is due.
#[derive(Default)]
struct WorkQueue {
    due: BTreeMap<String, Instant>,
    failures: BTreeMap<String, u32>,
}

impl WorkQueue {
    /// Adds `key` now (or keeps an earlier time it is already due at).
    fn add(&mut self, key: String, at: Instant) {
        let slot = self.due.entry(key).or_insert(at);
        if at < *slot {
            *slot = at;
        }
    }

    /// The key due first, and when.
    fn first(&self) -> Option<(String, Instant)> {
        self.due
            .iter()
            .min_by_key(|(_, at)| **at)
            .map(|(k, at)| (k.clone(), *at))
    }

    fn backoff(&mut self, key: &str) -> Duration {
        let n = self.failures.entry(key.to_owned()).or_insert(0);
        *n = n.saturating_add(1);
        let factor = 2u32.saturating_pow(n.saturating_sub(1).min(16));
        (BASE_BACKOFF * factor).min(MAX_BACKOFF)
    }
}

/// Runs `reconciler` until the server shuts down.
pub fn spawn(state: Arc<ApiState>, reconciler: Arc<dyn Reconciler>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut shutdown = state.shutdown.clone();
        tokio::select! {
            () = run(&state, reconciler.as_ref()) => {}
            _ = shutdown.wait_for(|s| *s) => {}
        }
        tracing::debug!(controller = reconciler.name(), "stopped");
    })
}

async fn run(state: &ApiState, reconciler: &dyn Reconciler) {
    let name = reconciler.name();
    loop {
        let Some(prefix) = reconciler.watched_prefix(state) else {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        };
        let cacher = match state.caches.get(&prefix, CACHE_TIMEOUT).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(controller = name, error = %e, "cannot watch; retrying");
                continue;
            }
        };
        let Some(mut changes) = cacher.subscribe(cacher.revision()) else {
            // The cache is reloading after its store watch broke.
            tokio::time::sleep(BASE_BACKOFF * 10).await;
            continue;
        };
        let mut queue = WorkQueue::default();
        match reconciler.all_keys(state).await {
            Ok(keys) => keys.into_iter().for_each(|k| queue.add(k, Instant::now())),
            Err(e) => {
                tracing::warn!(controller = name, error = %e, "initial list failed; retrying");
                tokio::time::sleep(BASE_BACKOFF * 10).await;
                continue;
            }
        }
        state.health.mark_started(&format!("start-{name}"));
        // Until the change stream breaks: then list everything again.
        loop {
            let next = queue.first();
            let wait = next.as_ref().map(|(_, at)| *at);
            tokio::select! {
                msg = changes.next() => match msg {
                    CacheMessage::Event(ev) => {
                        if let Some(key) = reconciler.key_of(&ev.key) {
                            queue.add(key, Instant::now());
                        }
                    }
                    CacheMessage::Progress(_) => {}
                    CacheMessage::Lagged(_) | CacheMessage::Closed(_) => break,
                },
                () = sleep_until(wait) => {
                    let Some((key, _)) = next else { continue };
                    queue.due.remove(&key);
                    match reconciler.reconcile(state, &key).await {
                        Ok(Action::Done) => {
                            queue.failures.remove(&key);
                        }
                        Ok(Action::Requeue(after)) => {
                            queue.failures.remove(&key);
                            queue.add(key, Instant::now() + after);
                        }
                        Err(e) => {
                            let delay = queue.backoff(&key);
                            tracing::warn!(controller = name, %key, error = %e, ?delay, "reconcile failed; requeued");
                            queue.add(key, Instant::now() + delay);
                        }
                    }
                }
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_queued_twice_is_reconciled_once_at_the_earlier_time() {
        let mut q = WorkQueue::default();
        let now = Instant::now();
        q.add("a".into(), now + Duration::from_secs(5));
        q.add("a".into(), now);
        assert_eq!(q.due.len(), 1);
        assert_eq!(q.first(), Some(("a".into(), now)));
    }

    #[test]
    fn failures_back_off_exponentially_up_to_a_limit() {
        let mut q = WorkQueue::default();
        assert_eq!(q.backoff("a"), BASE_BACKOFF);
        assert_eq!(q.backoff("a"), BASE_BACKOFF * 2);
        assert_eq!(q.backoff("a"), BASE_BACKOFF * 4);
        for _ in 0..40 {
            q.backoff("a");
        }
        assert_eq!(q.backoff("a"), MAX_BACKOFF);
    }
}
