//! Behaviours of the embedded backend beyond the shared contract: the directory lock,
//! persistence across reopen, slow watchers, periodic compaction, ranges that skip counting.

mod support;

use std::time::Duration;

use futures::StreamExt;
use kapi_storage::{
    EmbeddedConfig, EmbeddedStore, Event, RangeRequest, Store, StoreError, WatchRequest,
    WatchResponse,
};

fn config(dir: &std::path::Path) -> EmbeddedConfig {
    let mut config = EmbeddedConfig::new(dir);
    config.compaction_interval = None;
    config
}

#[tokio::test]
async fn second_open_of_a_held_directory_fails_with_locked() {
    let dir = tempfile::tempdir().unwrap();
    let _first = EmbeddedStore::open(config(dir.path())).unwrap();
    let second = EmbeddedStore::open(config(dir.path()));
    assert!(
        matches!(second, Err(StoreError::Locked { .. })),
        "{:?}",
        second.err()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_store_leaves_its_file_closed_cleanly_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(config(dir.path())).unwrap();
    store.put(b"/k", b"v".to_vec()).await.unwrap();
    // Dropped without `close` (as a process ends): the file is released and marked clean
    // before the drop returns, so the next open neither waits for it nor repairs it.
    drop(store);
    let repaired = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = repaired.clone();
    let reopened = redb::Database::builder()
        .set_repair_callback(move |_| flag.store(true, std::sync::atomic::Ordering::SeqCst))
        .create(dir.path().join(kapi_storage::embedded::DB_FILE));
    assert!(reopened.is_ok(), "{:?}", reopened.err());
    assert!(
        !repaired.load(std::sync::atomic::Ordering::SeqCst),
        "the file needed a repair"
    );
}

#[tokio::test]
async fn a_new_store_directory_and_file_are_private_to_the_owner() {
    use std::os::unix::fs::PermissionsExt;
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("data");
    let _store = EmbeddedStore::open(config(&dir)).unwrap();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join(kapi_storage::embedded::DB_FILE)), 0o600);
    assert_eq!(mode(&dir.join(kapi_storage::embedded::WAL_FILE)), 0o600);
}

fn wal_len(dir: &std::path::Path) -> Option<u64> {
    std::fs::metadata(dir.join(kapi_storage::embedded::WAL_FILE))
        .ok()
        .map(|m| m.len())
}

/// Each write batch is made durable in the write-ahead log before it is answered; closing
/// the store checkpoints redb and leaves the log empty, and reopening finds every key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_is_in_the_log_until_the_store_closes_with_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.checkpoint_idle = None;
    let store = EmbeddedStore::open(cfg.clone()).unwrap();
    for i in 0..20 {
        store
            .create(format!("/k/{i:02}").as_bytes(), b"v".to_vec())
            .await
            .unwrap();
    }
    assert!(wal_len(dir.path()).unwrap() > 0, "batches are logged");
    store.close().await.unwrap();
    assert_eq!(wal_len(dir.path()), Some(0), "closing checkpoints");
    let store = EmbeddedStore::open(cfg).unwrap();
    let all = store.range(RangeRequest::prefix(b"/k/")).await.unwrap();
    assert_eq!(all.kvs.len(), 20);
    assert_eq!(all.revision, 20);
}

/// A store that has been idle for `checkpoint_idle` checkpoints on its own: the log is
/// emptied while the store stays open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_store_checkpoints_and_empties_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.checkpoint_idle = Some(Duration::from_millis(20));
    let store = EmbeddedStore::open(cfg).unwrap();
    store.put(b"/k", b"v".to_vec()).await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while wal_len(dir.path()) != Some(0) {
        assert!(std::time::Instant::now() < deadline, "no idle checkpoint");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(store.get(b"/k", None).await.unwrap().unwrap().value, b"v");
}

/// With the log off every redb commit is durable itself and no log file is made.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_log_every_commit_is_durable_itself() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.write_ahead_log = false;
    let store = EmbeddedStore::open(cfg.clone()).unwrap();
    store.put(b"/k", b"v".to_vec()).await.unwrap();
    store.close().await.unwrap();
    assert_eq!(wal_len(dir.path()), None);
    let store = EmbeddedStore::open(cfg).unwrap();
    assert_eq!(store.get(b"/k", None).await.unwrap().unwrap().value, b"v");
}

#[tokio::test]
async fn reopen_keeps_keys_revisions_and_the_compacted_revision() {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(config(dir.path())).unwrap();
    let first = store.put(b"/p/a", b"1".to_vec()).await.unwrap();
    let second = store.put(b"/p/a", b"2".to_vec()).await.unwrap();
    store.compact(second.mod_revision).await.unwrap();
    store.close().await.unwrap();

    let store = EmbeddedStore::open(config(dir.path())).unwrap();
    assert_eq!(store.current_revision().await.unwrap(), second.mod_revision);
    assert_eq!(
        store.get(b"/p/a", None).await.unwrap(),
        Some(second.clone())
    );
    let error = store
        .get(b"/p/a", Some(first.mod_revision))
        .await
        .unwrap_err();
    assert!(error.is_compacted(), "{error:?}");
    let next = store.put(b"/p/b", b"1".to_vec()).await.unwrap();
    assert_eq!(next.mod_revision, second.mod_revision + 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_that_stops_reading_blocks_no_writer_and_later_gets_every_event() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path());
    config.watch_buffer = 2;
    let store = EmbeddedStore::open(config).unwrap();
    let mut idle = store.watch(WatchRequest::prefix("/s/")).await.unwrap();
    let mut revisions = Vec::new();
    for i in 0..2000 {
        revisions.push(
            store
                .put(format!("/s/{i:05}").as_bytes(), b"x".to_vec())
                .await
                .unwrap()
                .mod_revision,
        );
    }
    let seen: Vec<i64> = support::next_events(&mut idle, revisions.len())
        .await
        .iter()
        .map(Event::revision)
        .collect();
    assert_eq!(seen, revisions);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lagging_watcher_whose_history_was_compacted_ends_with_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path());
    config.watch_buffer = 2;
    let store = EmbeddedStore::open(config).unwrap();
    let mut idle = store.watch(WatchRequest::prefix("/s/")).await.unwrap();
    let mut last = 0;
    for i in 0..2000 {
        last = store
            .put(format!("/s/{i:05}").as_bytes(), b"x".to_vec())
            .await
            .unwrap()
            .mod_revision;
    }
    store.compact(last).await.unwrap();
    let error = support::next_error(&mut idle).await;
    assert!(
        matches!(error, StoreError::Compacted { compacted, .. } if compacted == last),
        "{error:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn periodic_compaction_discards_history_older_than_one_interval() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = config(dir.path());
    config.compaction_interval = Some(Duration::from_millis(100));
    let store = EmbeddedStore::open(config).unwrap();
    let first = store.put(b"/p/a", b"1".to_vec()).await.unwrap();
    store.put(b"/p/a", b"2".to_vec()).await.unwrap();
    support::wait_until_compacted(&*store, b"/p/a", first.mod_revision).await;
    assert_eq!(store.get(b"/p/a", None).await.unwrap().unwrap().value, b"2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watchers_end_with_unavailable_when_the_store_closes() {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(config(dir.path())).unwrap();
    let mut watch = store.watch(WatchRequest::prefix("/")).await.unwrap();
    store.close().await.unwrap();
    match tokio::time::timeout(support::WAIT, watch.next())
        .await
        .unwrap()
    {
        Some(Err(StoreError::Unavailable(_))) | None => {}
        Some(Ok(WatchResponse::Events(e))) => panic!("unexpected events {e:?}"),
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn a_range_without_count_stops_one_key_past_the_limit_latest_and_at_a_revision() {
    let dir = tempfile::tempdir().unwrap();
    let store = EmbeddedStore::open(config(dir.path())).unwrap();
    for i in 0..10 {
        let key = format!("/r/k{i}");
        store.put(key.as_bytes(), b"v".to_vec()).await.unwrap();
    }
    let latest = RangeRequest::prefix("/r/").with_limit(2).without_count();
    let page = store.range(latest).await.unwrap();
    assert_eq!((page.kvs.len(), page.more, page.count), (2, true, 3));
    store.put(b"/r/k9", b"changed".to_vec()).await.unwrap();
    let history = RangeRequest::prefix("/r/")
        .with_limit(2)
        .without_count()
        .at_revision(page.revision);
    let page = store.range(history).await.unwrap();
    assert_eq!((page.kvs.len(), page.more, page.count), (2, true, 3));
    let counted = RangeRequest::prefix("/r/").with_limit(2);
    assert_eq!(store.range(counted).await.unwrap().count, 10);
}
