//! Compaction: reads and watches before the compacted revision fail with `Compacted`; the
//! state at and after it stays readable.

use kapi_storage::{Event, RangeRequest, Store, StoreError, WatchRequest};

use crate::support::{next_error, next_events};

/// Writes three versions of /c/a and a deleted /c/b; returns the revisions of /c/a's versions.
async fn history(store: &dyn Store) -> Vec<i64> {
    let v1 = store.create(b"/c/a", b"1".to_vec()).await.unwrap();
    store.create(b"/c/b", b"1".to_vec()).await.unwrap();
    let v2 = store
        .update(b"/c/a", b"2".to_vec(), v1.mod_revision)
        .await
        .unwrap();
    store.delete(b"/c/b", None).await.unwrap();
    let v3 = store
        .update(b"/c/a", b"3".to_vec(), v2.mod_revision)
        .await
        .unwrap();
    vec![v1.mod_revision, v2.mod_revision, v3.mod_revision]
}

pub async fn reads_before_the_compacted_revision_fail_with_compacted(store: &dyn Store) {
    let revs = history(store).await;
    store.compact(revs[1]).await.unwrap();
    let error = store.get(b"/c/a", Some(revs[0])).await.unwrap_err();
    assert!(
        matches!(error, StoreError::Compacted { requested, .. } if requested == revs[0]),
        "{error:?}"
    );
    let error = store
        .range(RangeRequest::prefix("/c/").at_revision(revs[0]))
        .await
        .unwrap_err();
    assert!(error.is_compacted(), "{error:?}");
}

pub async fn reads_at_and_after_the_compacted_revision_still_work(store: &dyn Store) {
    let revs = history(store).await;
    store.compact(revs[1]).await.unwrap();
    assert_eq!(
        store
            .get(b"/c/a", Some(revs[1]))
            .await
            .unwrap()
            .unwrap()
            .value,
        b"2"
    );
    let at_compact = store
        .range(RangeRequest::prefix("/c/").at_revision(revs[1]))
        .await
        .unwrap();
    let keys: Vec<&[u8]> = at_compact.kvs.iter().map(|kv| kv.key.as_slice()).collect();
    assert_eq!(keys, [b"/c/a".as_slice(), b"/c/b".as_slice()]);
    let after = store
        .range(RangeRequest::prefix("/c/").at_revision(revs[1] + 1))
        .await
        .unwrap();
    assert_eq!(
        after.kvs.len(),
        1,
        "/c/b was deleted right after the compacted revision"
    );
    assert_eq!(store.get(b"/c/a", None).await.unwrap().unwrap().value, b"3");
}

pub async fn watch_from_before_the_compacted_revision_fails_with_compacted(store: &dyn Store) {
    let revs = history(store).await;
    store.compact(revs[1]).await.unwrap();
    let mut watch = store
        .watch(WatchRequest::prefix("/c/").from_revision(revs[0]))
        .await
        .unwrap();
    let error = next_error(&mut watch).await;
    assert!(
        matches!(error, StoreError::Compacted { compacted, .. } if compacted == revs[1]),
        "{error:?}"
    );
}

pub async fn watch_from_the_compacted_revision_replays_with_previous_values(store: &dyn Store) {
    let revs = history(store).await;
    store.compact(revs[1]).await.unwrap();
    let request = WatchRequest::prefix("/c/a")
        .with_prev_kv()
        .from_revision(revs[1]);
    let mut watch = store.watch(request).await.unwrap();
    let events = next_events(&mut watch, 2).await;
    assert_eq!(
        events.iter().map(Event::revision).collect::<Vec<_>>(),
        revs[1..]
    );
    assert_eq!(events[1].prev().unwrap().value, b"2");
}

pub async fn compacting_again_at_or_below_the_compacted_revision_fails(store: &dyn Store) {
    let revs = history(store).await;
    store.compact(revs[1]).await.unwrap();
    assert!(store.compact(revs[1]).await.unwrap_err().is_compacted());
    assert!(store.compact(revs[0]).await.unwrap_err().is_compacted());
    store.compact(revs[2]).await.unwrap();
}

pub async fn compacting_beyond_the_current_revision_fails_with_future_revision(store: &dyn Store) {
    let revs = history(store).await;
    let error = store.compact(revs[2] + 5).await.unwrap_err();
    assert!(
        matches!(error, StoreError::FutureRevision { .. }),
        "{error:?}"
    );
}

pub async fn writes_after_compaction_continue_the_revision_sequence(store: &dyn Store) {
    let revs = history(store).await;
    store.compact(revs[2]).await.unwrap();
    let next = store.update(b"/c/a", b"4".to_vec(), revs[2]).await.unwrap();
    assert_eq!(next.mod_revision, revs[2] + 1);
    assert_eq!(next.version, 4);
}
