//! What a migration writes into the CRD it migrates (R7.10): the `StorageMigrating` condition
//! while it runs and after, and `status.storedVersions = [storage]` once the accounting shows
//! no object left in another version and the storage version did not change meanwhile.

use super::conditions::{self, Condition};
use super::controller::MigrationError;
use super::storage_versions::storage_version;
use kapi_registry::entry::{Registry, ResourceEntry};
use kapi_storage::{KeyValue, Store, StoreError};
use serde_json::{Value, json};
use std::sync::Arc;

/// The CRD condition type a migration sets.
pub const STORAGE_MIGRATING: &str = "StorageMigrating";

/// A CRD as stored: its key, stored key-value, decoded object and the CRD registry entry.
pub struct StoredCrd {
    /// The CRD's storage key.
    pub key: String,
    /// The stored key-value (for its revision).
    pub kv: KeyValue,
    /// The decoded CRD.
    pub crd: Value,
    /// The registry entry of customresourcedefinitions (its codec).
    pub entry: Arc<ResourceEntry>,
}

impl StoredCrd {
    /// The version marked `storage: true`.
    pub fn storage(&self) -> String {
        storage_version(&self.crd).unwrap_or_default().to_owned()
    }

    /// `metadata.generation`.
    pub fn generation(&self) -> i64 {
        self.crd["metadata"]["generation"].as_i64().unwrap_or(0)
    }
}

/// The stored CRD `resource.group`, or None when there is none.
pub async fn find(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
) -> Result<Option<StoredCrd>, MigrationError> {
    let Some(entry) = registry
        .snapshot()
        .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .cloned()
    else {
        return Ok(None);
    };
    let key = entry.key(None, &format!("{resource}.{group}"));
    let Some(kv) = store.get(key.as_bytes(), None).await? else {
        return Ok(None);
    };
    let crd = entry
        .codec
        .decode_stored(&kv.value)
        .await
        .map_err(|e| MigrationError::Store(StoreError::Internal(e.to_string())))?;
    Ok(Some(StoredCrd {
        key,
        kv,
        crd,
        entry,
    }))
}

/// Writes `change` into the CRD's status (CAS, retried); `change` sees the fresh CRD.
async fn update(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
    mut change: impl FnMut(&mut StoredCrd),
) -> Result<(), MigrationError> {
    loop {
        let Some(mut crd) = find(store, registry, group, resource).await? else {
            return Ok(());
        };
        change(&mut crd);
        let bytes = crd
            .entry
            .codec
            .encode_for_storage(&crd.crd)
            .await
            .map_err(|e| StoreError::Internal(e.to_string()))?;
        match store
            .update(crd.key.as_bytes(), bytes, crd.kv.mod_revision)
            .await
        {
            Err(e) if e.is_conflict() => continue,
            other => return other.map(|_| ()).map_err(Into::into),
        }
    }
}

/// A `StorageMigrating=True` condition with `reason` and `message`.
fn migrating<'a>(reason: &'a str, message: &'a str) -> Condition<'a> {
    Condition {
        kind: STORAGE_MIGRATING,
        status: "True",
        reason,
        message,
    }
}

/// Sets `StorageMigrating=True` (MigrationRunning) with the CRD's current generation.
pub async fn mark_running(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
) -> Result<(), MigrationError> {
    let cond = migrating("MigrationRunning", "The migration is running");
    update(store, registry, group, resource, |c| {
        conditions::set(&mut c.crd, cond)
    })
    .await
}

/// Sets `StorageMigrating=True` (MigrationFailed).
pub async fn mark_failed(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
) -> Result<(), MigrationError> {
    let cond = migrating("MigrationFailed", "The migration has failed");
    update(store, registry, group, resource, |c| {
        conditions::set(&mut c.crd, cond)
    })
    .await
}

/// After a successful rewrite whose accounting showed no object in another version: sets
/// `status.storedVersions = [storage]` when the storage version is still `storage`, and
/// `StorageMigrating=False` (MigrationSucceeded) either way, saying which. Returns whether
/// storedVersions was updated.
pub async fn mark_succeeded(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
    storage: &str,
) -> Result<bool, MigrationError> {
    let mut updated = false;
    update(store, registry, group, resource, |c| {
        updated = c.storage() == storage;
        if updated {
            c.crd["status"]["storedVersions"] = json!([storage]);
        }
        let message = if updated {
            "The migration has succeeded and the stored versions have been updated"
        } else {
            "The migration has succeeded but the stored versions have not been updated because the storage version changed"
        };
        conditions::set(
            &mut c.crd,
            Condition {
                kind: STORAGE_MIGRATING,
                status: "False",
                reason: "MigrationSucceeded",
                message,
            },
        );
    })
    .await?;
    Ok(updated)
}
