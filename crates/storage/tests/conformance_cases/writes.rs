//! Writes: revisions, create-if-absent, updates and deletes guarded by mod_revision.

use kapi_storage::{Store, StoreError};

pub async fn create_assigns_next_revision_and_version_one(store: &dyn Store) {
    let before = store.current_revision().await.unwrap();
    let kv = store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    assert_eq!(kv.mod_revision, before + 1);
    assert_eq!(kv.create_revision, before + 1);
    assert_eq!(kv.version, 1);
    assert_eq!(kv.value, b"1");
    assert_eq!(store.current_revision().await.unwrap(), before + 1);
    assert_eq!(store.get(b"/w/a", None).await.unwrap(), Some(kv));
}

pub async fn create_of_existing_key_fails_with_already_exists_and_current_value(store: &dyn Store) {
    let first = store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    let error = store.create(b"/w/a", b"2".to_vec()).await.unwrap_err();
    assert_eq!(
        error,
        StoreError::AlreadyExists {
            current: Box::new(first.clone())
        }
    );
    assert_eq!(
        store.current_revision().await.unwrap(),
        first.mod_revision,
        "a failed write takes no revision"
    );
}

pub async fn update_with_matching_mod_revision_replaces_value(store: &dyn Store) {
    let created = store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    let updated = store
        .update(b"/w/a", b"2".to_vec(), created.mod_revision)
        .await
        .unwrap();
    assert_eq!(updated.value, b"2");
    assert_eq!(updated.create_revision, created.create_revision);
    assert_eq!(updated.mod_revision, created.mod_revision + 1);
    assert_eq!(updated.version, 2);
    assert_eq!(store.get(b"/w/a", None).await.unwrap(), Some(updated));
}

pub async fn update_with_stale_mod_revision_fails_with_conflict_and_current(store: &dyn Store) {
    let created = store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    let updated = store
        .update(b"/w/a", b"2".to_vec(), created.mod_revision)
        .await
        .unwrap();
    let error = store
        .update(b"/w/a", b"3".to_vec(), created.mod_revision)
        .await
        .unwrap_err();
    assert!(error.is_conflict());
    assert_eq!(
        error,
        StoreError::Conflict {
            expected: created.mod_revision,
            current: Box::new(updated)
        }
    );
}

pub async fn update_of_missing_key_fails_with_not_found(store: &dyn Store) {
    let error = store
        .update(b"/w/missing", b"1".to_vec(), 1)
        .await
        .unwrap_err();
    assert_eq!(
        error,
        StoreError::NotFound {
            key: b"/w/missing".to_vec()
        }
    );
    assert_eq!(store.get(b"/w/missing", None).await.unwrap(), None);
}

pub async fn put_creates_then_replaces_unconditionally(store: &dyn Store) {
    let first = store.put(b"/w/a", b"1".to_vec()).await.unwrap();
    assert_eq!(first.version, 1);
    let second = store.put(b"/w/a", b"2".to_vec()).await.unwrap();
    assert_eq!(second.version, 2);
    assert_eq!(second.create_revision, first.create_revision);
    assert_eq!(second.mod_revision, first.mod_revision + 1);
    assert_eq!(store.get(b"/w/a", None).await.unwrap(), Some(second));
}

pub async fn delete_with_matching_revision_removes_key_and_returns_prev(store: &dyn Store) {
    let created = store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    let deleted = store
        .delete(b"/w/a", Some(created.mod_revision))
        .await
        .unwrap();
    assert_eq!(deleted.prev, created);
    assert_eq!(deleted.revision, created.mod_revision + 1);
    assert_eq!(store.get(b"/w/a", None).await.unwrap(), None);
    assert_eq!(store.current_revision().await.unwrap(), deleted.revision);
}

pub async fn delete_with_stale_revision_fails_with_conflict(store: &dyn Store) {
    let created = store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    let updated = store
        .update(b"/w/a", b"2".to_vec(), created.mod_revision)
        .await
        .unwrap();
    let error = store
        .delete(b"/w/a", Some(created.mod_revision))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        StoreError::Conflict {
            expected: created.mod_revision,
            current: Box::new(updated.clone())
        }
    );
    assert_eq!(store.get(b"/w/a", None).await.unwrap(), Some(updated));
}

pub async fn delete_of_missing_key_fails_with_not_found(store: &dyn Store) {
    assert!(
        store
            .delete(b"/w/missing", None)
            .await
            .unwrap_err()
            .is_not_found()
    );
    assert!(
        store
            .delete(b"/w/missing", Some(3))
            .await
            .unwrap_err()
            .is_not_found()
    );
}

pub async fn unconditional_delete_removes_key(store: &dyn Store) {
    let created = store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    let deleted = store.delete(b"/w/a", None).await.unwrap();
    assert_eq!(deleted.prev, created);
    assert_eq!(store.get(b"/w/a", None).await.unwrap(), None);
}

pub async fn recreate_after_delete_starts_a_new_life(store: &dyn Store) {
    store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    store.put(b"/w/a", b"2".to_vec()).await.unwrap();
    let deleted = store.delete(b"/w/a", None).await.unwrap();
    let again = store.create(b"/w/a", b"3".to_vec()).await.unwrap();
    assert_eq!(again.create_revision, deleted.revision + 1);
    assert_eq!(again.version, 1);
}

pub async fn each_write_advances_the_revision_by_one(store: &dyn Store) {
    let start = store.current_revision().await.unwrap();
    let a = store.create(b"/w/a", b"1".to_vec()).await.unwrap();
    let b = store.put(b"/w/b", b"1".to_vec()).await.unwrap();
    let a2 = store
        .update(b"/w/a", b"2".to_vec(), a.mod_revision)
        .await
        .unwrap();
    let d = store.delete(b"/w/b", Some(b.mod_revision)).await.unwrap();
    assert_eq!(
        [a.mod_revision, b.mod_revision, a2.mod_revision, d.revision],
        [start + 1, start + 2, start + 3, start + 4]
    );
}

pub async fn empty_key_is_rejected(store: &dyn Store) {
    let error = store.put(b"", b"1".to_vec()).await.unwrap_err();
    assert!(matches!(error, StoreError::InvalidRequest(_)), "{error:?}");
}

pub async fn large_binary_value_round_trips(store: &dyn Store) {
    let value: Vec<u8> = (0..512 * 1024u32).map(|i| (i % 251) as u8).collect();
    store.create(b"/w/big", value.clone()).await.unwrap();
    assert_eq!(
        store.get(b"/w/big", None).await.unwrap().unwrap().value,
        value
    );
}
