//! The watch cache (kube's Cacher): one store watch per resource prefix, whatever the number
//! of watchers. Each [`Cacher`] lists its prefix once, then follows one store watch; it keeps
//! the current objects (for `resourceVersion=0` lists) and a window of recent events (for
//! watches that start from a recent revision). Events are fanned out to every subscriber;
//! each event is decoded (and, for a converting codec, converted) once per codec — that is,
//! once per requested version — and shared by all subscribers of that version.
//!
//! A subscriber that falls more than [`SUBSCRIBER_BUFFER`] messages behind is told
//! [`CacheMessage::Lagged`] (the server closes its watch with 410, as upstream closes slow
//! watchers); when the store watch breaks, subscribers get [`CacheMessage::Closed`] and the
//! cacher lists and watches again. Works the same on the embedded store and on etcd; several
//! servers on one etcd each follow etcd's watch, so their caches stay coherent.

use crate::codec::ObjectCodec;
use crate::error::Error;
use futures::StreamExt;
use kapi_storage::{Event, KeyValue, RangeRequest, Store, WatchRequest, WatchResponse};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, OnceCell, watch};

/// Events a subscriber may fall behind by before it is told it lagged (the events it reads
/// are the cache's history, so no subscriber holds a buffer of its own).
pub const SUBSCRIBER_BUFFER: usize = HISTORY;

/// Recent events kept: for watches that start from an older revision, and as the one buffer
/// every subscriber reads from.
const HISTORY: usize = 4096;

/// Events a subscriber takes from the history per lock.
const BATCH: usize = 256;

/// Wait before listing again after the store watch broke.
const RESTART_DELAY: Duration = Duration::from_millis(200);

/// How long a consistent read waits for one progress notification before asking again.
const PROGRESS_RETRY: Duration = Duration::from_millis(25);

/// Encodings of one cached object kept per codec (older codecs' are dropped first).
const ENCODINGS_PER_OBJECT: usize = 2;

/// A current object of the cache, with the encodings that lists have asked for: each is
/// made once per object version and codec, and shared by every later list (a protobuf
/// list or a list in another version is then a concatenation, not a decode and encode of
/// every item).
pub struct CachedObject {
    /// The stored key-value.
    pub kv: KeyValue,
    /// The object as a protobuf list item (its message, without TypeMeta), in the storage
    /// version; made only by codecs whose served version is the storage version.
    protobuf: OnceLock<Arc<[u8]>>,
    /// The object's JSON (resourceVersion set) per codec, for codecs that convert.
    json: Mutex<Vec<KeptJson>>,
}

/// A codec's JSON of a cached object; holding the codec keeps its address from being reused.
type KeptJson = (Arc<dyn ObjectCodec>, Arc<[u8]>);

impl CachedObject {
    /// A cached object with no encodings yet.
    pub fn new(kv: KeyValue) -> Self {
        Self {
            kv,
            protobuf: OnceLock::new(),
            json: Mutex::new(Vec::new()),
        }
    }

    /// The object's protobuf list item, encoded by `codec` on first use; `None` when the
    /// codec cannot (another version, or no protobuf for the kind).
    pub fn protobuf_item(&self, codec: &dyn ObjectCodec) -> Option<Result<Arc<[u8]>, Error>> {
        if let Some(bytes) = self.protobuf.get() {
            return Some(Ok(bytes.clone()));
        }
        let encoded = codec.encode_protobuf_item(&self.kv.value, self.kv.mod_revision)?;
        Some(encoded.map(|bytes| {
            let bytes: Arc<[u8]> = bytes.into();
            // Two lists racing both encode; either result is the same bytes.
            self.protobuf.get_or_init(|| bytes).clone()
        }))
    }

    /// The object's JSON as `codec` serves it, if a list already made it.
    pub fn json_for(&self, codec: &Arc<dyn ObjectCodec>) -> Option<Arc<[u8]>> {
        lock(&self.json)
            .iter()
            .find(|(c, _)| Arc::ptr_eq(c, codec))
            .map(|(_, bytes)| bytes.clone())
    }

    /// Keeps `bytes` as the object's JSON for `codec` (a deterministic codec's output).
    pub fn keep_json(&self, codec: &Arc<dyn ObjectCodec>, bytes: Arc<[u8]>) {
        let mut kept = lock(&self.json);
        if kept.iter().any(|(c, _)| Arc::ptr_eq(c, codec)) {
            return;
        }
        if kept.len() >= ENCODINGS_PER_OBJECT {
            kept.remove(0);
        }
        kept.push((codec.clone(), bytes));
    }
}

/// One page of the cache's objects.
pub struct CachedPage {
    /// The objects, in key order.
    pub objects: Vec<Arc<CachedObject>>,
    /// The revision the page is current at.
    pub revision: i64,
}

/// One store event of the cached prefix, with its decoded forms per codec.
pub struct CachedEvent {
    /// The key.
    pub key: Vec<u8>,
    /// Revision of the change.
    pub revision: i64,
    /// The object after the change (`None` for a delete).
    pub current: Option<KeyValue>,
    /// The object before the change (`None` on create).
    pub previous: Option<KeyValue>,
    /// Decoded forms by codec; holding the codec keeps its address from being reused.
    decoded: Mutex<Vec<DecodedSlot>>,
    /// Encoded watch frames by codec and the caller's output tag, shared by every watcher
    /// that writes the same bytes.
    frames: Mutex<Vec<FrameSlot>>,
}

/// One encoded frame of an event: the codec, the caller's tag, and the bytes (`None` when
/// the event is not sent in that form), made by the first watcher that asks.
type FrameSlot = (
    Arc<dyn ObjectCodec>,
    u64,
    Arc<OnceLock<Option<bytes::Bytes>>>,
);

/// One codec's decoded form of an event, filled by the first subscriber that asks.
type DecodedSlot = (Arc<dyn ObjectCodec>, Arc<OnceCell<DecodedEvent>>);

/// An event's objects in one version: `Ok((current, previous))`, or why they cannot be
/// decoded or converted.
pub type DecodedEvent = Result<(Option<serde_json::Value>, Option<serde_json::Value>), Error>;

impl CachedEvent {
    /// A store event, not yet decoded.
    pub fn new(event: Event) -> Self {
        let (key, revision, current, previous) = match event {
            Event::Put { kv, prev } => (kv.key.clone(), kv.mod_revision, Some(kv), prev),
            Event::Delete {
                key,
                revision,
                prev,
            } => (key, revision, None, prev),
        };
        Self {
            key,
            revision,
            current,
            previous,
            decoded: Mutex::new(Vec::new()),
            frames: Mutex::new(Vec::new()),
        }
    }

    /// Whether the key was created by this event.
    pub fn is_create(&self) -> bool {
        self.current
            .as_ref()
            .is_some_and(|kv| kv.create_revision == kv.mod_revision)
    }

    /// Runs `f` on the event's objects as `codec` decodes them: decoded by the first
    /// subscriber that asks, in one call for both objects (one conversion), and shared with
    /// every later one without copying.
    pub async fn with_decoded<R>(
        &self,
        codec: &Arc<dyn ObjectCodec>,
        f: impl FnOnce(&DecodedEvent) -> R,
    ) -> R {
        // The codec identifies the version (and the CRD generation) asked for.
        let cell = {
            let mut cells = lock(&self.decoded);
            match cells.iter().find(|(k, _)| Arc::ptr_eq(k, codec)) {
                Some((_, cell)) => cell.clone(),
                None => {
                    let cell = Arc::new(OnceCell::new());
                    cells.push((codec.clone(), cell.clone()));
                    cell
                }
            }
        };
        f(cell.get_or_init(|| self.decode(codec.as_ref())).await)
    }

    /// The event encoded for a watcher: `encode` runs once per (`codec`, `tag`), where `tag`
    /// names everything else the bytes depend on (event type, media type, transform), and
    /// every later watcher with the same pair gets the same bytes.
    pub fn frame(
        &self,
        codec: &Arc<dyn ObjectCodec>,
        tag: u64,
        encode: impl FnOnce() -> Option<bytes::Bytes>,
    ) -> Option<bytes::Bytes> {
        let cell = {
            let mut cells = lock(&self.frames);
            match cells
                .iter()
                .find(|(k, t, _)| *t == tag && Arc::ptr_eq(k, codec))
            {
                Some((_, _, cell)) => cell.clone(),
                None => {
                    let cell = Arc::new(OnceLock::new());
                    cells.push((codec.clone(), tag, cell.clone()));
                    cell
                }
            }
        };
        cell.get_or_init(encode).clone()
    }

    async fn decode(&self, codec: &dyn ObjectCodec) -> DecodedEvent {
        let values: Vec<&[u8]> = self
            .current
            .iter()
            .chain(self.previous.iter())
            .map(|kv| kv.value.as_slice())
            .collect();
        let mut objs = codec.decode_stored_many(&values).await?.into_iter();
        let with_rv = |obj: Option<serde_json::Value>, rv: i64| {
            obj.map(|mut o| {
                crate::meta::set_meta(
                    &mut o,
                    "resourceVersion",
                    Some(serde_json::Value::String(rv.to_string())),
                );
                o
            })
        };
        let current = self.current.as_ref().and_then(|kv| {
            let obj = objs.next();
            with_rv(obj, kv.mod_revision)
        });
        let previous = self.previous.as_ref().and_then(|kv| {
            let obj = objs.next();
            with_rv(obj, kv.mod_revision)
        });
        Ok((current, previous))
    }
}

/// What a subscriber receives.
#[derive(Clone)]
pub enum CacheMessage {
    /// A change.
    Event(Arc<CachedEvent>),
    /// Every change up to this revision has been delivered (a bookmark).
    Progress(i64),
    /// The subscriber fell too far behind; it missed events.
    Lagged(u64),
    /// The store watch broke; the subscriber must list and watch again.
    Closed(String),
}

/// Current objects and recent history of one prefix.
struct CacheState {
    objects: BTreeMap<Vec<u8>, Arc<CachedObject>>,
    /// Revision of the last change applied (the list's revision after a relist): the state
    /// is the store's state at every revision from here to `revision`.
    last_change: i64,
    /// Every event after this revision is in `history`.
    oldest: i64,
    /// The revision the cache is at.
    revision: i64,
    history: VecDeque<Arc<CachedEvent>>,
    /// Sequence number of `history`'s first event (every event applied gets the next one).
    first_seq: u64,
    /// Bumped each time the store watch breaks; subscribers of an older epoch are closed.
    epoch: u64,
    /// Why the store watch last broke.
    closed_reason: String,
}

impl CacheState {
    /// Empties the history, keeping sequence numbers increasing.
    fn clear_history(&mut self) {
        self.first_seq += self.history.len() as u64;
        self.history.clear();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The cache of one storage prefix. Subscribers read the shared history (memory grows
/// with the events that happen, not with the resources served: a per-cache broadcast
/// buffer of 4096 slots cost 256 KiB for each of the ~60 caches the garbage collector
/// follows), woken through the revision channel.
pub struct Cacher {
    prefix: String,
    state: Mutex<CacheState>,
    subscribers: AtomicUsize,
    /// The revision the cache is at; every change of the state sends on it.
    revision: watch::Sender<i64>,
    loaded: watch::Sender<bool>,
    store_watches: AtomicU64,
    /// Asks the store watch for a progress notification (consistent reads wait for it).
    progress: Notify,
    /// Lists answered from the cache.
    lists: AtomicU64,
    /// Consistent lists that waited for the cache and were answered by it.
    consistent_reads: AtomicU64,
    /// Consistent lists the cache could not catch up for in time (the store answered).
    consistent_fallbacks: AtomicU64,
}

/// A subscription: a cursor into the cache's history.
pub struct Subscription {
    cacher: Arc<Cacher>,
    /// Sequence number of the next event to read.
    next_seq: u64,
    /// Every change up to this revision has been delivered.
    after: i64,
    /// The cache's epoch when subscribed.
    epoch: u64,
    /// Events taken from the history, not yet returned.
    pending: VecDeque<Arc<CachedEvent>>,
    changes: watch::Receiver<i64>,
}

impl Subscription {
    /// The next message: the events after the subscribed revision in order, then a
    /// `Progress` when the cache moved on without events of its prefix; `Lagged` when the
    /// subscriber fell more than the history behind, `Closed` when the cache's store watch
    /// broke.
    pub async fn next(&mut self) -> CacheMessage {
        loop {
            if let Some(ev) = self.pending.pop_front() {
                self.after = self.after.max(ev.revision);
                return CacheMessage::Event(ev);
            }
            self.changes.borrow_and_update();
            {
                let state = lock(&self.cacher.state);
                if state.epoch != self.epoch {
                    return CacheMessage::Closed(state.closed_reason.clone());
                }
                if self.next_seq < state.first_seq {
                    let missed = state.first_seq - self.next_seq;
                    self.next_seq = state.first_seq;
                    return CacheMessage::Lagged(missed);
                }
                let start = (self.next_seq - state.first_seq) as usize;
                if start < state.history.len() {
                    self.pending
                        .extend(state.history.range(start..).take(BATCH).cloned());
                    self.next_seq += self.pending.len() as u64;
                    continue;
                }
                if state.revision > self.after {
                    self.after = state.revision;
                    return CacheMessage::Progress(state.revision);
                }
            }
            if self.changes.changed().await.is_err() {
                return CacheMessage::Closed("watch cache stopped".into());
            }
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.cacher.subscribers.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Cacher {
    fn new(prefix: String) -> Self {
        Self {
            prefix,
            state: Mutex::new(CacheState {
                objects: BTreeMap::new(),
                last_change: 0,
                oldest: i64::MAX,
                revision: 0,
                history: VecDeque::new(),
                first_seq: 0,
                epoch: 0,
                closed_reason: String::new(),
            }),
            subscribers: AtomicUsize::new(0),
            revision: watch::channel(0).0,
            loaded: watch::channel(false).0,
            store_watches: AtomicU64::new(0),
            progress: Notify::new(),
            lists: AtomicU64::new(0),
            consistent_reads: AtomicU64::new(0),
            consistent_fallbacks: AtomicU64::new(0),
        }
    }

    /// The prefix cached (ends with `/`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// How many store watches this cache has opened (one, unless the store watch broke).
    pub fn store_watches(&self) -> u64 {
        self.store_watches.load(Ordering::Relaxed)
    }

    /// Lists the cache has answered.
    pub fn lists(&self) -> u64 {
        self.lists.load(Ordering::Relaxed)
    }

    /// Consistent lists answered by the cache once it caught up, and those it could not
    /// catch up for in time (answered by the store).
    pub fn consistent_reads(&self) -> (u64, u64) {
        (
            self.consistent_reads.load(Ordering::Relaxed),
            self.consistent_fallbacks.load(Ordering::Relaxed),
        )
    }

    /// Live subscribers.
    pub fn subscribers(&self) -> usize {
        self.subscribers.load(Ordering::Relaxed)
    }

    /// The revision the cache is at.
    pub fn revision(&self) -> i64 {
        lock(&self.state).revision
    }

    /// Subscribes from `revision` (events after it); `None` when the cache no longer holds
    /// every event since then (the caller watches the store itself, or answers 410).
    pub fn subscribe(self: &Arc<Self>, revision: i64) -> Option<Subscription> {
        let changes = self.revision.subscribe();
        let state = lock(&self.state);
        if revision < state.oldest {
            return None;
        }
        let skipped = state.history.partition_point(|e| e.revision <= revision);
        self.subscribers.fetch_add(1, Ordering::Relaxed);
        Some(Subscription {
            cacher: self.clone(),
            next_seq: state.first_seq + skipped as u64,
            after: state.revision.max(revision),
            epoch: state.epoch,
            pending: VecDeque::new(),
            changes,
        })
    }

    /// The cached object at `key`, if any.
    pub fn get(&self, key: &str) -> Option<KeyValue> {
        lock(&self.state)
            .objects
            .get(key.as_bytes())
            .map(|o| o.kv.clone())
    }

    /// The cached objects under `prefix` (a sub-prefix of the cache's, e.g. one namespace),
    /// in key order, and the revision they are current at.
    pub fn list(&self, prefix: &str) -> (Vec<KeyValue>, i64) {
        let state = lock(&self.state);
        let kvs = state
            .objects
            .range(prefix.as_bytes().to_vec()..)
            .take_while(|(k, _)| k.starts_with(prefix.as_bytes()))
            .map(|(_, o)| o.kv.clone())
            .collect();
        (kvs, state.revision)
    }

    /// The cached objects under `prefix` after the key `start_after` (all when `None`), in
    /// key order, shared with the cache. With `at`, only when the cache's state is the
    /// store's state at that revision (nothing under the cache's prefix changed since), as a
    /// continued list needs; `None` otherwise.
    pub fn snapshot(
        &self,
        prefix: &str,
        start_after: Option<&[u8]>,
        at: Option<i64>,
    ) -> Option<CachedPage> {
        let state = lock(&self.state);
        if let Some(at) = at
            && (state.last_change > at || state.revision < at)
        {
            return None;
        }
        let lower = match start_after {
            Some(key) => std::ops::Bound::Excluded(key.to_vec()),
            None => std::ops::Bound::Included(prefix.as_bytes().to_vec()),
        };
        let objects = state
            .objects
            .range((lower, std::ops::Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(prefix.as_bytes()))
            .map(|(_, o)| o.clone())
            .collect();
        self.lists.fetch_add(1, Ordering::Relaxed);
        Some(CachedPage {
            objects,
            revision: at.unwrap_or(state.revision),
        })
    }

    /// Waits until the cache has seen every change up to `revision` (the store's current
    /// revision, for a consistent read), asking the store watch for progress notifications
    /// so that writes under other prefixes do not keep it waiting (kube's consistent reads
    /// from the cache); false after `timeout`.
    pub async fn wait_fresh(&self, revision: i64, timeout: Duration) -> bool {
        let fresh = self.wait_fresh_inner(revision, timeout).await;
        let counter = if fresh {
            &self.consistent_reads
        } else {
            &self.consistent_fallbacks
        };
        counter.fetch_add(1, Ordering::Relaxed);
        fresh
    }

    async fn wait_fresh_inner(&self, revision: i64, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut rx = self.revision.subscribe();
        loop {
            if *rx.borrow_and_update() >= revision {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            self.progress.notify_one();
            let wait = PROGRESS_RETRY.min(deadline - now);
            if let Ok(Err(_)) = tokio::time::timeout(wait, rx.changed()).await {
                return false;
            }
        }
    }

    /// Waits until the cache is at `revision` or newer (`NotOlderThan` reads); false after
    /// `timeout`.
    pub async fn wait_for(&self, revision: i64, timeout: Duration) -> bool {
        let mut rx = self.revision.subscribe();
        tokio::time::timeout(timeout, rx.wait_for(|r| *r >= revision))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    fn apply(&self, state: &mut CacheState, event: Event) {
        let ev = Arc::new(CachedEvent::new(event));
        match &ev.current {
            Some(kv) => {
                state
                    .objects
                    .insert(kv.key.clone(), Arc::new(CachedObject::new(kv.clone())));
            }
            None => {
                state.objects.remove(&ev.key);
            }
        }
        state.last_change = state.last_change.max(ev.revision);
        state.revision = state.revision.max(ev.revision);
        state.history.push_back(ev);
        if state.history.len() > HISTORY
            && let Some(dropped) = state.history.pop_front()
        {
            state.oldest = dropped.revision;
            state.first_seq += 1;
        }
    }

    /// Lists, then follows the store watch until it ends; returns why it ended.
    async fn run_once(&self, store: &dyn Store) -> Result<String, Error> {
        let mut objects = BTreeMap::new();
        let mut page = RangeRequest::prefix(self.prefix.as_bytes()).with_limit(1000);
        let revision = loop {
            let resp = store.range(page.clone()).await?;
            let last = resp.kvs.last().map(|kv| kv.key.clone());
            for kv in resp.kvs {
                objects.insert(kv.key.clone(), Arc::new(CachedObject::new(kv)));
            }
            page.revision = Some(resp.revision);
            match last {
                Some(key) if resp.more => page.start_after = Some(key),
                _ => break resp.revision,
            }
        };
        let request = WatchRequest::prefix(self.prefix.as_bytes())
            .from_revision(revision + 1)
            .with_prev_kv()
            .with_progress_notify();
        let mut stream = store.watch(request).await?;
        self.store_watches.fetch_add(1, Ordering::Relaxed);
        {
            let mut state = lock(&self.state);
            state.objects = objects;
            state.last_change = revision;
            state.revision = revision;
            state.oldest = revision;
            state.clear_history();
        }
        self.revision.send_replace(revision);
        self.loaded.send_replace(true);
        loop {
            let item = tokio::select! {
                item = stream.next() => item,
                () = self.progress.notified() => {
                    if let Err(e) = stream.request_progress().await {
                        return Ok(e.to_string());
                    }
                    continue;
                }
            };
            let Some(item) = item else { break };
            match item {
                Ok(WatchResponse::Events(events)) => {
                    let revision = {
                        let mut state = lock(&self.state);
                        for event in events {
                            self.apply(&mut state, event);
                        }
                        state.revision
                    };
                    self.revision.send_replace(revision);
                }
                Ok(WatchResponse::Progress { revision }) => {
                    let revision = {
                        let mut state = lock(&self.state);
                        state.revision = state.revision.max(revision);
                        state.revision
                    };
                    self.revision.send_replace(revision);
                }
                Err(e) => return Ok(e.to_string()),
            }
        }
        Ok("store watch ended".into())
    }

    /// Keeps the cache following the store until `store` is dropped.
    async fn run(self: Arc<Self>, store: std::sync::Weak<dyn Store>) {
        loop {
            let Some(strong) = store.upgrade() else {
                return;
            };
            let reason = match self.run_once(strong.as_ref()).await {
                Ok(reason) => reason,
                Err(e) => e.to_string(),
            };
            drop(strong);
            tracing::warn!(prefix = %self.prefix, %reason, "watch cache restarts");
            {
                // Subscribers miss what happens until the next list: they must start over.
                let mut state = lock(&self.state);
                state.oldest = i64::MAX;
                state.clear_history();
                state.epoch += 1;
                state.closed_reason = reason;
            }
            self.revision.send_modify(|_| {});
            tokio::time::sleep(RESTART_DELAY).await;
        }
    }
}

/// The watch caches of one server, one per storage prefix, started on first use.
pub struct WatchCaches {
    store: Arc<dyn Store>,
    caches: Mutex<HashMap<String, Arc<Cacher>>>,
}

impl WatchCaches {
    /// No caches yet; each starts when first asked for.
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            caches: Mutex::new(HashMap::new()),
        }
    }

    /// The cache of `prefix` (a collection prefix ending in `/`), started and loaded;
    /// Unavailable when it cannot load within `timeout` (the store is unreachable).
    pub async fn get(&self, prefix: &str, timeout: Duration) -> Result<Arc<Cacher>, Error> {
        let cacher = {
            let mut caches = lock(&self.caches);
            match caches.get(prefix) {
                Some(c) => c.clone(),
                None => {
                    let c = Arc::new(Cacher::new(prefix.to_owned()));
                    caches.insert(prefix.to_owned(), c.clone());
                    tokio::spawn(c.clone().run(Arc::downgrade(&self.store)));
                    c
                }
            }
        };
        let mut loaded = cacher.loaded.subscribe();
        match tokio::time::timeout(timeout, loaded.wait_for(|l| *l)).await {
            Ok(Ok(_)) => Ok(cacher),
            _ => Err(Error::unavailable(format!(
                "the watch cache of {prefix} is not loaded yet"
            ))),
        }
    }

    /// The caches started so far.
    pub fn all(&self) -> Vec<Arc<Cacher>> {
        lock(&self.caches).values().cloned().collect()
    }
}
