//! The reconcile runtime (kube-runtime's reconciler shape): a resource's changes, from its
//! watch cache, become keys in a work queue; workers (one unless the controller asks for
//! more) reconcile keys, never one key twice at a time, and requeue a key after a delay or,
//! on error, with exponential backoff. A controller lists every object of its resources
//! when it starts (and again whenever a change stream breaks), so work that a restart
//! interrupted finishes. An elected controller first wins
//! its Lease ([`crate::leader`]) and stops reconciling the moment it loses it. Every
//! controller stops on shutdown, an elected one giving its lease up.

use crate::context::Context;
use crate::leader::{Elector, LeaseTiming};
use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::{BoxStream, FuturesUnordered, SelectAll};
use kapi_registry::Error;
use kapi_registry::cache::{CacheMessage, Cacher, Subscription};
use kapi_storage::KeyValue;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
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
    /// Its name, for logs.
    fn name(&self) -> &'static str;

    /// Its post-start hook (`/readyz`'s `poststarthook/<hook>`), marked once it has
    /// reconciled what it listed at start (an elected one: once it campaigns).
    fn hook(&self) -> &'static str;

    /// What it does, for the log line `leading <description>` of an elected controller.
    fn description(&self) -> &'static str;

    /// The Lease (in `kube-system`) that elects it when several kapi share a store; `None`
    /// runs it in every process.
    fn lease(&self) -> Option<&'static str> {
        None
    }

    /// The storage prefix whose changes enqueue keys (ends in `/`); `None` while the
    /// registry does not serve the resource.
    fn watched_prefix(&self, _ctx: &Context) -> Option<String> {
        None
    }

    /// Every storage prefix followed; by default [`Reconciler::watched_prefix`]'s. Asked
    /// again every second, so a prefix that appears (a CRD now served) is followed from then.
    fn watched_prefixes(&self, ctx: &Context) -> Vec<String> {
        self.watched_prefix(ctx).into_iter().collect()
    }

    /// The key of the object at a storage key, if it is one; by default the key's last
    /// segment: the name of a cluster-scoped object (a namespace, a CRD, a migration).
    fn key_of(&self, storage_key: &[u8]) -> Option<String> {
        let key = std::str::from_utf8(storage_key).ok()?;
        key.rsplit('/').next().map(str::to_owned)
    }

    /// Other keys a change of `key` makes worth another look (a CRD whose names another
    /// CRD of its group held); `cache` holds the resource's current objects.
    fn related_keys(&self, _key: &str, _cache: &Cacher) -> Vec<String> {
        Vec::new()
    }

    /// The keys to reconcile for a stored object under `prefix`: one listed (`previous`
    /// None), changed, or deleted (`current` None). By default its key and related keys.
    fn observe(
        &self,
        _prefix: &str,
        storage_key: &[u8],
        _current: Option<&KeyValue>,
        _previous: Option<&KeyValue>,
        cache: &Cacher,
    ) -> Vec<String> {
        let Some(key) = self.key_of(storage_key) else {
            return Vec::new();
        };
        let mut keys = self.related_keys(&key, cache);
        keys.push(key);
        keys
    }

    /// Called before every full list (at start, and when a change stream broke): state
    /// built from earlier lists is to be dropped.
    fn restart(&self) {}

    /// How many keys are reconciled at once (never one key twice at a time); 1 by default.
    fn workers(&self) -> usize {
        1
    }

    /// Brings the object of `key` to where it should be.
    async fn reconcile(&self, ctx: &Context, key: &str) -> Result<Action, Error>;
}

/// The first retry delay after an error; doubled per failure up to [`MAX_BACKOFF`].
const BASE_BACKOFF: Duration = Duration::from_millis(10);
/// The longest retry delay after errors.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// How long the runtime waits for a watch cache before asking again.
const CACHE_TIMEOUT: Duration = Duration::from_secs(10);
/// The pause before listing again after the change stream broke or a list failed.
const RELIST_PAUSE: Duration = Duration::from_millis(100);
/// How often the followed prefixes are asked for again.
const PREFIX_REFRESH: Duration = Duration::from_secs(1);

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
    #[cfg(test)]
    fn first(&self) -> Option<(String, Instant)> {
        self.first_idle(&HashSet::new())
    }

    /// The key due first among those not being reconciled, and when.
    fn first_idle(&self, running: &HashSet<String>) -> Option<(String, Instant)> {
        self.due
            .iter()
            .filter(|(k, _)| !running.contains(*k))
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

/// A running controller.
pub struct Running {
    /// Its task (ends on shutdown).
    pub task: tokio::task::JoinHandle<()>,
    first_pass: watch::Receiver<bool>,
}

impl Running {
    /// Resolves once every object listed at start has been reconciled once (an elected
    /// controller that does not lead resolves at once: it has nothing to do).
    pub async fn first_pass(&mut self) {
        let _ = self.first_pass.wait_for(|done| *done).await;
    }
}

/// Runs `reconciler` until shutdown; elected through its lease when `election` is given.
pub fn spawn(
    ctx: Arc<Context>,
    reconciler: Arc<dyn Reconciler>,
    election: Option<LeaseTiming>,
) -> Running {
    let (passed, first_pass) = watch::channel(false);
    let elector = match (reconciler.lease(), election) {
        (Some(lease), Some(timing)) => Some(Elector::new(ctx.clone(), lease, timing)),
        _ => None,
    };
    let task = tokio::spawn(async move {
        let mut shutdown = ctx.shutdown.clone();
        let name = reconciler.name();
        tokio::select! {
            () = lead_and_run(&ctx, reconciler.as_ref(), elector.as_ref(), &passed) => {}
            _ = shutdown.wait_for(|s| *s) => {}
        }
        if let Some(e) = &elector
            && let Err(err) = e.release().await
        {
            tracing::debug!(controller = name, error = %err, "releasing the lease on shutdown");
        }
        tracing::debug!(controller = name, "stopped");
    });
    Running { task, first_pass }
}

/// Without an elector: reconciles for ever. With one: campaigns, reconciles while it
/// leads, and campaigns again when the lease is lost.
async fn lead_and_run(
    ctx: &Context,
    reconciler: &dyn Reconciler,
    elector: Option<&Elector>,
    passed: &watch::Sender<bool>,
) {
    let name = reconciler.name();
    let Some(elector) = elector else {
        return run(ctx, reconciler, passed).await;
    };
    // A candidate is ready: it does what it should, which is waiting.
    ctx.hooks.mark_started(reconciler.hook());
    let _ = passed.send(true);
    loop {
        elector.acquire().await;
        tracing::info!(
            controller = name,
            identity = elector.identity(),
            "leading {}",
            reconciler.description()
        );
        tokio::select! {
            () = run(ctx, reconciler, passed) => {}
            () = elector.hold() => {
                tracing::warn!(controller = name, identity = elector.identity(),
                    "lost the lease; stopping {}", reconciler.description());
            }
        }
    }
}

/// What one turn of the run loop got.
enum Step {
    /// A change (or a broken stream) of a followed prefix.
    Change(String, CacheMessage),
    /// Time to look for prefixes that appeared.
    Refresh,
    /// A reconcile finished.
    Finished(String, Result<Action, Error>),
    /// The first idle key is due.
    Due,
}

/// The change streams of the followed prefixes, merged.
type Changes = SelectAll<BoxStream<'static, (String, CacheMessage)>>;

/// One followed prefix: its cache, and its changes as a stream.
fn changes_of(prefix: String, sub: Subscription) -> BoxStream<'static, (String, CacheMessage)> {
    futures::stream::unfold((prefix, sub), |(prefix, mut sub)| async move {
        let msg = sub.next().await;
        Some(((prefix.clone(), msg), (prefix, sub)))
    })
    .boxed()
}

/// Everything a run follows: the caches by prefix and their merged changes.
#[derive(Default)]
struct Followed {
    caches: BTreeMap<String, Arc<Cacher>>,
    changes: Changes,
}

impl Followed {
    /// Starts following `prefix`: lists its cache and subscribes from the list's revision;
    /// the keys the listed objects ask for. None while the cache cannot be had.
    async fn follow(
        &mut self,
        ctx: &Context,
        reconciler: &dyn Reconciler,
        prefix: &str,
    ) -> Option<Vec<String>> {
        let cacher = match ctx.caches.get(prefix, CACHE_TIMEOUT).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(controller = reconciler.name(), error = %e, "cannot watch; retrying");
                return None;
            }
        };
        let (listed, revision) = cacher.list(prefix);
        // None while the cache reloads after its store watch broke.
        let sub = cacher.subscribe(revision)?;
        let keys = listed
            .iter()
            .flat_map(|kv| reconciler.observe(prefix, &kv.key, Some(kv), None, &cacher))
            .collect();
        self.changes.push(changes_of(prefix.to_owned(), sub));
        self.caches.insert(prefix.to_owned(), cacher);
        Some(keys)
    }
}

/// Lists and follows the watched resources, reconciling keys as they come, for ever.
async fn run(ctx: &Context, reconciler: &dyn Reconciler, passed: &watch::Sender<bool>) {
    let name = reconciler.name();
    loop {
        reconciler.restart();
        let prefixes = reconciler.watched_prefixes(ctx);
        if prefixes.is_empty() {
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        let mut followed = Followed::default();
        let mut queue = WorkQueue::default();
        let mut first = BTreeSet::new();
        let mut complete = true;
        for prefix in &prefixes {
            match followed.follow(ctx, reconciler, prefix).await {
                Some(keys) => first.extend(keys),
                None => complete = false,
            }
        }
        if !complete {
            tokio::time::sleep(RELIST_PAUSE).await;
            continue;
        }
        first
            .iter()
            .for_each(|k| queue.add(k.clone(), Instant::now()));
        let mut refresh = tokio::time::interval(PREFIX_REFRESH);
        refresh.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let workers = reconciler.workers().max(1);
        let mut running: HashSet<String> = HashSet::new();
        let mut in_flight: FuturesUnordered<BoxFuture<'_, (String, Result<Action, Error>)>> =
            FuturesUnordered::new();
        // Until a change stream breaks: then list everything again.
        loop {
            if first.is_empty() && !*passed.borrow() {
                ctx.hooks.mark_started(reconciler.hook());
                let _ = passed.send(true);
            }
            let next = (running.len() < workers)
                .then(|| queue.first_idle(&running))
                .flatten();
            let wait = next.as_ref().map(|(_, at)| *at);
            let step = tokio::select! {
                Some((prefix, msg)) = followed.changes.next() => Step::Change(prefix, msg),
                _ = refresh.tick() => Step::Refresh,
                Some((key, result)) = in_flight.next() => Step::Finished(key, result),
                () = sleep_until(wait) => Step::Due,
            };
            match step {
                Step::Change(prefix, CacheMessage::Event(ev)) => {
                    let Some(cache) = followed.caches.get(&prefix) else {
                        continue;
                    };
                    let keys = reconciler.observe(
                        &prefix,
                        &ev.key,
                        ev.current.as_ref(),
                        ev.previous.as_ref(),
                        cache,
                    );
                    keys.into_iter().for_each(|k| queue.add(k, Instant::now()));
                }
                Step::Change(_, CacheMessage::Progress(_)) => {}
                Step::Change(_, CacheMessage::Lagged(_) | CacheMessage::Closed(_)) => break,
                Step::Refresh => {
                    // Resources that appeared (a CRD now served) are followed from now on.
                    for prefix in reconciler.watched_prefixes(ctx) {
                        if followed.caches.contains_key(&prefix) {
                            continue;
                        }
                        if let Some(keys) = followed.follow(ctx, reconciler, &prefix).await {
                            keys.into_iter().for_each(|k| queue.add(k, Instant::now()));
                        }
                    }
                }
                Step::Due => {
                    let Some((key, _)) = next else { continue };
                    queue.due.remove(&key);
                    running.insert(key.clone());
                    in_flight.push(Box::pin(async move {
                        let result = reconciler.reconcile(ctx, &key).await;
                        (key, result)
                    }));
                }
                Step::Finished(key, result) => {
                    running.remove(&key);
                    first.remove(&key);
                    match result {
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
        // Reconciles still running finish before everything is listed again.
        while let Some((key, _)) = in_flight.next().await {
            running.remove(&key);
        }
        tokio::time::sleep(RELIST_PAUSE).await;
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

    #[test]
    fn every_controller_has_its_own_post_start_hook() {
        let hooks = crate::HOOKS;
        let unique: BTreeSet<&str> = hooks.iter().copied().collect();
        assert_eq!(unique.len(), hooks.len());
        assert!(hooks.iter().all(|h| h.starts_with("start-")), "{hooks:?}");
    }
}
