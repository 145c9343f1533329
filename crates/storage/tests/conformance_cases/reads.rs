//! Reads: get at a revision, ranges by prefix with limit, continue and one revision across
//! pages, counts.

use kapi_storage::{RangeRequest, Store, StoreError};

async fn put_all(store: &dyn Store, keys: &[&str]) {
    for key in keys {
        store
            .put(key.as_bytes(), format!("v-{key}").into_bytes())
            .await
            .unwrap();
    }
}

fn keys(response: &kapi_storage::RangeResponse) -> Vec<String> {
    response
        .kvs
        .iter()
        .map(|kv| String::from_utf8(kv.key.clone()).unwrap())
        .collect()
}

pub async fn get_at_old_revision_returns_the_value_of_that_time(store: &dyn Store) {
    let v1 = store.create(b"/r/a", b"1".to_vec()).await.unwrap();
    let v2 = store
        .update(b"/r/a", b"2".to_vec(), v1.mod_revision)
        .await
        .unwrap();
    let deleted = store.delete(b"/r/a", None).await.unwrap();
    assert_eq!(
        store.get(b"/r/a", Some(v1.mod_revision)).await.unwrap(),
        Some(v1.clone())
    );
    assert_eq!(
        store.get(b"/r/a", Some(v2.mod_revision)).await.unwrap(),
        Some(v2)
    );
    assert_eq!(
        store.get(b"/r/a", Some(deleted.revision)).await.unwrap(),
        None
    );
    assert_eq!(
        store.get(b"/r/a", Some(v1.mod_revision - 1)).await.unwrap(),
        None
    );
}

pub async fn range_returns_only_keys_under_the_prefix_in_key_order(store: &dyn Store) {
    put_all(store, &["/r/p/b", "/r/p/a", "/r/pa", "/r/o", "/r/p/c/d"]).await;
    let response = store.range(RangeRequest::prefix("/r/p/")).await.unwrap();
    assert_eq!(keys(&response), ["/r/p/a", "/r/p/b", "/r/p/c/d"]);
    assert_eq!(response.count, 3);
    assert!(!response.more);
    assert_eq!(response.kvs[0].value, b"v-/r/p/a");
    assert_eq!(response.revision, store.current_revision().await.unwrap());
}

pub async fn range_pages_with_limit_and_start_after_cover_every_key_once(store: &dyn Store) {
    let all: Vec<String> = (0..25).map(|i| format!("/r/p/{i:03}")).collect();
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    put_all(store, &refs).await;
    let first = store
        .range(RangeRequest::prefix("/r/p/").with_limit(10))
        .await
        .unwrap();
    assert!(first.more);
    assert_eq!(first.count, 25);
    let mut seen = keys(&first);
    let mut last = first;
    while last.more {
        let after = last.kvs.last().unwrap().key.clone();
        let request = RangeRequest::prefix("/r/p/")
            .with_limit(10)
            .after(after)
            .at_revision(last.revision);
        last = store.range(request).await.unwrap();
        seen.extend(keys(&last));
    }
    assert_eq!(seen, all);
}

pub async fn range_count_includes_keys_beyond_the_limit(store: &dyn Store) {
    put_all(store, &["/r/p/a", "/r/p/b", "/r/p/c", "/r/p/d"]).await;
    let page = store
        .range(RangeRequest::prefix("/r/p/").with_limit(1).after("/r/p/a"))
        .await
        .unwrap();
    assert_eq!(keys(&page), ["/r/p/b"]);
    assert_eq!(
        page.count, 3,
        "count covers the requested range from start_after, ignoring the limit"
    );
    assert!(page.more);
}

pub async fn range_without_count_stops_at_the_limit_and_still_says_more(store: &dyn Store) {
    put_all(store, &["/r/p/a", "/r/p/b", "/r/p/c", "/r/p/d"]).await;
    let request = RangeRequest::prefix("/r/p/").with_limit(2).without_count();
    let page = store.range(request).await.unwrap();
    assert_eq!(keys(&page), ["/r/p/a", "/r/p/b"]);
    assert!(page.more);
    assert!(page.count >= 3, "at least the keys returned and one more");
    // A write after the first page: the rest is read from history at the page's revision.
    store.put(b"/r/p/e", b"new".to_vec()).await.unwrap();
    let rest = RangeRequest::prefix("/r/p/")
        .with_limit(2)
        .without_count()
        .after("/r/p/b")
        .at_revision(page.revision);
    let last = store.range(rest).await.unwrap();
    assert_eq!(keys(&last), ["/r/p/c", "/r/p/d"]);
    assert!(!last.more);
}

pub async fn range_at_a_revision_is_consistent_across_pages_despite_writes(store: &dyn Store) {
    put_all(store, &["/r/p/a", "/r/p/b", "/r/p/c", "/r/p/d"]).await;
    let first = store
        .range(RangeRequest::prefix("/r/p/").with_limit(2))
        .await
        .unwrap();
    store.put(b"/r/p/c", b"changed".to_vec()).await.unwrap();
    store.delete(b"/r/p/d", None).await.unwrap();
    store.put(b"/r/p/e", b"new".to_vec()).await.unwrap();
    let request = RangeRequest::prefix("/r/p/")
        .after("/r/p/b")
        .at_revision(first.revision);
    let second = store.range(request).await.unwrap();
    assert_eq!(keys(&second), ["/r/p/c", "/r/p/d"]);
    assert_eq!(second.kvs[0].value, b"v-/r/p/c");
    assert_eq!(second.revision, first.revision);
    let latest = store
        .range(RangeRequest::prefix("/r/p/").after("/r/p/b"))
        .await
        .unwrap();
    assert_eq!(keys(&latest), ["/r/p/c", "/r/p/e"]);
}

pub async fn range_of_empty_prefix_returns_every_key(store: &dyn Store) {
    put_all(store, &["/r/a", "/x/b"]).await;
    let response = store.range(RangeRequest::prefix("")).await.unwrap();
    assert_eq!(keys(&response), ["/r/a", "/x/b"]);
}

/// A range whose values add up to more than gRPC's default 4 MiB message answers whole
/// (etcd's client limit is raised as Go's clientv3 does; 10 000 1-KiB objects are 10 MiB).
pub async fn range_larger_than_four_mebibytes_returns_every_key(store: &dyn Store) {
    let value = vec![b'x'; 1024 * 1024];
    for i in 0..5 {
        store
            .create(format!("/big/{i}").as_bytes(), value.clone())
            .await
            .unwrap();
    }
    let response = store.range(RangeRequest::prefix("/big/")).await.unwrap();
    assert_eq!(response.kvs.len(), 5);
    assert!(response.kvs.iter().all(|kv| kv.value.len() == value.len()));
}

pub async fn range_at_a_future_revision_fails_with_future_revision(store: &dyn Store) {
    put_all(store, &["/r/a"]).await;
    let current = store.current_revision().await.unwrap();
    let error = store
        .range(RangeRequest::prefix("/r/").at_revision(current + 10))
        .await
        .unwrap_err();
    assert!(
        matches!(error, StoreError::FutureRevision { requested, .. } if requested == current + 10),
        "{error:?}"
    );
}

pub async fn count_counts_live_keys_under_the_prefix(store: &dyn Store) {
    put_all(store, &["/r/p/a", "/r/p/b", "/r/p/c", "/r/q"]).await;
    store.delete(b"/r/p/b", None).await.unwrap();
    assert_eq!(store.count(b"/r/p/").await.unwrap(), 2);
    assert_eq!(store.count(b"/r/none/").await.unwrap(), 0);
}
