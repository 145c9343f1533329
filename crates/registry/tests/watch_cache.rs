//! The watch cache on the embedded store and on a real etcd: one store watch per prefix
//! whatever the number of subscribers, each event decoded once per codec, replay from a
//! recent revision, lists of the current objects, slow subscribers told they lagged.

#[macro_use]
mod support;

use kapi_registry::cache::{CacheMessage, SUBSCRIBER_BUFFER, WatchCaches};
use kapi_registry::codec::{JsonCodec, ObjectCodec};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use support::Backend;

const PREFIX: &str = "/registry/configmaps/";
const LOAD: Duration = Duration::from_secs(10);

async fn embedded() -> Backend {
    support::embedded().await
}

async fn etcd() -> Backend {
    support::etcd("/kapi-cache-test").await
}

fn cm(name: &str, value: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "a"}, "data": {"k": value}}))
    .unwrap()
}

/// A JSON codec that counts how often stored objects are decoded.
struct CountingCodec {
    inner: JsonCodec,
    decodes: AtomicUsize,
}

#[async_trait::async_trait]
impl ObjectCodec for CountingCodec {
    async fn decode_stored(&self, bytes: &[u8]) -> kapi_registry::Result<Value> {
        self.decodes.fetch_add(1, Ordering::SeqCst);
        self.inner.decode_stored(bytes).await
    }

    async fn encode_for_storage(&self, obj: &Value) -> kapi_registry::Result<Vec<u8>> {
        self.inner.encode_for_storage(obj).await
    }
}

async fn next_event(
    sub: &mut kapi_registry::cache::Subscription,
) -> Arc<kapi_registry::cache::CachedEvent> {
    loop {
        match tokio::time::timeout(LOAD, sub.next())
            .await
            .expect("an event in time")
        {
            CacheMessage::Event(ev) => return ev,
            CacheMessage::Progress(_) => continue,
            CacheMessage::Lagged(n) => panic!("lagged by {n}"),
            CacheMessage::Closed(why) => panic!("closed: {why}"),
        }
    }
}

mod cases {
    use super::*;

    pub async fn a_hundred_subscribers_share_one_store_watch(b: Backend) {
        let caches = WatchCaches::new(b.store.clone());
        let mut subs = Vec::new();
        for _ in 0..100 {
            let cacher = caches.get(PREFIX, LOAD).await.unwrap();
            subs.push(cacher.subscribe(cacher.revision()).expect("subscribed"));
        }
        b.store
            .put(format!("{PREFIX}a/one").as_bytes(), cm("one", "1"))
            .await
            .unwrap();
        for sub in &mut subs {
            let ev = next_event(sub).await;
            assert_eq!(ev.key, format!("{PREFIX}a/one").into_bytes());
        }
        let cacher = caches.get(PREFIX, LOAD).await.unwrap();
        assert_eq!(cacher.store_watches(), 1);
        assert_eq!(cacher.subscribers(), 100);
    }

    pub async fn each_event_is_decoded_once_per_codec(b: Backend) {
        let caches = WatchCaches::new(b.store.clone());
        let cacher = caches.get(PREFIX, LOAD).await.unwrap();
        let mut subs: Vec<_> = (0..20)
            .map(|_| cacher.subscribe(cacher.revision()).unwrap())
            .collect();
        let counting = Arc::new(CountingCodec {
            inner: JsonCodec::new("v1"),
            decodes: AtomicUsize::new(0),
        });
        let codec: Arc<dyn ObjectCodec> = counting.clone();
        b.store
            .put(format!("{PREFIX}a/one").as_bytes(), cm("one", "1"))
            .await
            .unwrap();
        for sub in &mut subs {
            let ev = next_event(sub).await;
            ev.with_decoded(&codec, |decoded| {
                let (current, previous) = decoded.as_ref().unwrap();
                assert_eq!(current.as_ref().unwrap()["data"]["k"], "1");
                assert!(previous.is_none());
            })
            .await;
        }
        assert_eq!(counting.decodes.load(Ordering::SeqCst), 1);
    }

    pub async fn each_event_is_encoded_once_per_codec_and_tag(b: Backend) {
        let caches = WatchCaches::new(b.store.clone());
        let cacher = caches.get(PREFIX, LOAD).await.unwrap();
        let mut subs: Vec<_> = (0..20)
            .map(|_| cacher.subscribe(cacher.revision()).unwrap())
            .collect();
        let json: Arc<dyn ObjectCodec> = Arc::new(JsonCodec::new("v1"));
        let other: Arc<dyn ObjectCodec> = Arc::new(JsonCodec::new("v1"));
        b.store
            .put(format!("{PREFIX}a/one").as_bytes(), cm("one", "1"))
            .await
            .unwrap();
        let encodes = AtomicUsize::new(0);
        let encode = |bytes: &'static [u8]| {
            encodes.fetch_add(1, Ordering::SeqCst);
            Some(bytes::Bytes::from_static(bytes))
        };
        for sub in &mut subs {
            let ev = next_event(sub).await;
            assert_eq!(ev.frame(&json, 1, || encode(b"one")).unwrap(), "one");
            assert_eq!(ev.frame(&json, 2, || encode(b"two")).unwrap(), "two");
            assert_eq!(ev.frame(&other, 1, || encode(b"three")).unwrap(), "three");
        }
        // Twenty watchers, three distinct (codec, tag) pairs: three encodings.
        assert_eq!(encodes.load(Ordering::SeqCst), 3);
    }

    pub async fn a_subscription_from_a_recent_revision_replays_what_followed(b: Backend) {
        let caches = WatchCaches::new(b.store.clone());
        let cacher = caches.get(PREFIX, LOAD).await.unwrap();
        let first = b
            .store
            .put(format!("{PREFIX}a/one").as_bytes(), cm("one", "1"))
            .await
            .unwrap();
        b.store
            .put(format!("{PREFIX}a/two").as_bytes(), cm("two", "2"))
            .await
            .unwrap();
        b.store
            .put(format!("{PREFIX}a/one").as_bytes(), cm("one", "3"))
            .await
            .unwrap();
        assert!(cacher.wait_for(first.mod_revision + 2, LOAD).await);
        let mut sub = cacher.subscribe(first.mod_revision).expect("in the window");
        let two = next_event(&mut sub).await;
        assert_eq!(two.key, format!("{PREFIX}a/two").into_bytes());
        let again = next_event(&mut sub).await;
        assert_eq!(again.revision, first.mod_revision + 2);
        assert!(again.previous.is_some());
    }

    pub async fn the_cache_lists_the_current_objects_of_a_namespace(b: Backend) {
        let caches = WatchCaches::new(b.store.clone());
        let cacher = caches.get(PREFIX, LOAD).await.unwrap();
        b.store
            .put(format!("{PREFIX}a/one").as_bytes(), cm("one", "1"))
            .await
            .unwrap();
        b.store
            .put(format!("{PREFIX}b/two").as_bytes(), cm("two", "2"))
            .await
            .unwrap();
        let last = b
            .store
            .put(format!("{PREFIX}a/three").as_bytes(), cm("three", "3"))
            .await
            .unwrap();
        assert!(cacher.wait_for(last.mod_revision, LOAD).await);
        let (kvs, revision) = cacher.list(&format!("{PREFIX}a/"));
        let keys: Vec<String> = kvs
            .iter()
            .map(|kv| String::from_utf8_lossy(&kv.key).into_owned())
            .collect();
        assert_eq!(keys, [format!("{PREFIX}a/one"), format!("{PREFIX}a/three")]);
        assert!(revision >= last.mod_revision);
    }
}

backend_suite!(
    a_hundred_subscribers_share_one_store_watch,
    each_event_is_decoded_once_per_codec,
    each_event_is_encoded_once_per_codec_and_tag,
    a_subscription_from_a_recent_revision_replays_what_followed,
    the_cache_lists_the_current_objects_of_a_namespace,
);

/// A subscriber that never reads while more than its buffer of events arrive is told it
/// lagged (the server then closes its watch with 410), instead of silently missing events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_that_falls_behind_is_told_it_lagged() {
    let b = embedded().await;
    let caches = WatchCaches::new(b.store.clone());
    let cacher = caches.get(PREFIX, LOAD).await.unwrap();
    let mut slow = cacher.subscribe(cacher.revision()).unwrap();
    let writes = (0..SUBSCRIBER_BUFFER + 100).map(|i| {
        let store = b.store.clone();
        async move {
            store
                .put(format!("{PREFIX}a/cm-{i}").as_bytes(), cm("x", "1"))
                .await
                .unwrap()
        }
    });
    let written = futures::future::join_all(writes).await;
    let last = written.iter().map(|kv| kv.mod_revision).max().unwrap();
    assert!(cacher.wait_for(last, LOAD).await);
    let lagged = loop {
        match slow.next().await {
            CacheMessage::Lagged(n) => break n,
            CacheMessage::Event(_) | CacheMessage::Progress(_) => continue,
            CacheMessage::Closed(why) => panic!("closed: {why}"),
        }
    };
    assert!(lagged > 0);
}
