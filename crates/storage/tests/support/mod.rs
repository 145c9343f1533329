//! Test support of the storage integration tests: backend factories (embedded in a temp dir,
//! etcd on a private process from kapi-testsupport) and watch helpers.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use kapi_storage::{
    EmbeddedConfig, EtcdConfig, Event, Store, StoreConfig, WatchResponse, WatchStream, open_store,
};
use kapi_testsupport::etcd::EtcdProcess;

/// Generous bound for anything a test waits on (a loaded 2-core machine is slow).
pub const WAIT: Duration = Duration::from_secs(60);

/// A store under test and whatever keeps it alive (temp dir, etcd process).
pub struct Harness {
    pub store: Arc<dyn Store>,
    _guard: Box<dyn std::any::Any + Send + Sync>,
}

/// An embedded store in a fresh temp dir, no periodic compaction, progress every second.
pub async fn embedded() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let mut config = EmbeddedConfig::new(dir.path());
    config.compaction_interval = None;
    config.progress_notify_interval = Duration::from_secs(1);
    let store = open_store(StoreConfig::Embedded(config)).await.unwrap();
    Harness {
        store,
        _guard: Box::new(dir),
    }
}

/// An etcd store (key prefix `/kapi-test`) on a private single-member etcd.
pub async fn etcd() -> Harness {
    let process = EtcdProcess::start().await;
    let config = EtcdConfig::new([process.client_url.clone()]).with_prefix("/kapi-test");
    let config = StoreConfig::Etcd {
        config,
        compaction_interval: None,
    };
    let store = open_store(config).await.unwrap();
    Harness {
        store,
        _guard: Box::new(process),
    }
}

/// Waits until reading `key` at `revision` fails as compacted, writing a key beside it between
/// tries (compaction keeps the current revision); fails the test after [`WAIT`].
pub async fn wait_until_compacted(store: &dyn Store, key: &[u8], revision: i64) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match store.get(key, Some(revision)).await {
            Err(error) if error.is_compacted() => return,
            Ok(_) => assert!(
                tokio::time::Instant::now() < deadline,
                "history was never compacted"
            ),
            Err(error) => panic!("{error}"),
        }
        store.put(b"/compaction-tick", b"x".to_vec()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Reads the next message, failing the test after [`WAIT`].
pub async fn next_message(stream: &mut WatchStream) -> WatchResponse {
    match tokio::time::timeout(WAIT, stream.next()).await {
        Ok(Some(Ok(message))) => message,
        Ok(Some(Err(error))) => panic!("watch failed: {error}"),
        Ok(None) => panic!("watch ended"),
        Err(_) => panic!("no watch message within {WAIT:?}"),
    }
}

/// Collects exactly `n` events, skipping progress notifications.
pub async fn next_events(stream: &mut WatchStream, n: usize) -> Vec<Event> {
    let mut events = Vec::new();
    while events.len() < n {
        if let WatchResponse::Events(batch) = next_message(stream).await {
            events.extend(batch);
        }
    }
    assert_eq!(events.len(), n, "more events than expected: {events:?}");
    events
}

/// The first error on the stream (skipping messages), failing the test after [`WAIT`].
pub async fn next_error(stream: &mut WatchStream) -> kapi_storage::StoreError {
    loop {
        match tokio::time::timeout(WAIT, stream.next()).await {
            Ok(Some(Ok(_))) => continue,
            Ok(Some(Err(error))) => return error,
            Ok(None) => panic!("watch ended without an error"),
            Err(_) => panic!("no watch error within {WAIT:?}"),
        }
    }
}
