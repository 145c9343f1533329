//! The built-in StorageVersionMigration controller: picks up every migration without a
//! terminal condition (so a restart resumes), rewrites the resource's objects stored in an old
//! version page by page through the CRD's converter (a compare-and-swap write on the read
//! revision, retried on conflict; other requests are never blocked), then, when the accounting
//! shows no object left in another version and the storage version did not change meanwhile,
//! sets the CRD's `status.storedVersions` to `[storage]` (R7.3 rewrite loop, R7.10 storedVersions;
//! docs/migration.md).

use super::accounting::count_stored_versions;
use super::api::{GROUP, RESOURCE, is_finished};
use super::storage_versions::storage_version;
use crate::registry::{Registry, ResourceEntry};
use kapi_storage::{KeyValue, RangeRequest, Store, StoreError};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// Objects read per page.
const PAGE: usize = 500;
/// How often unfinished migrations are looked for.
const POLL: Duration = Duration::from_millis(300);

/// Why a migration failed.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    /// The store failed.
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    /// Converting or encoding an object failed (e.g. the conversion webhook is down).
    #[error("converting {key}: {message}")]
    Convert {
        /// The object's key.
        key: String,
        /// The converter's message.
        message: String,
    },
    /// No served CRD matches spec.resource.
    #[error("no custom resource {0} is served")]
    UnknownResource(String),
    /// The storage version changed during the migration.
    #[error("the storage version changed from {0} to {1} during the migration")]
    StorageChanged(String, String),
    /// Objects in other versions remained (written by an older kapi meanwhile).
    #[error("{0} objects remain stored in other versions")]
    Remaining(u64),
}

/// Spawns the controller on the current runtime.
pub fn spawn(store: Arc<dyn Store>, registry: Arc<Registry>, root: String) {
    tokio::spawn(async move {
        loop {
            if let Err(e) = tick(store.as_ref(), &registry, &root).await {
                tracing::warn!(error = %e, "storage version migration controller");
            }
            tokio::time::sleep(POLL).await;
        }
    });
}

fn migrations_prefix(root: &str) -> String {
    format!("{root}/{GROUP}/{RESOURCE}/")
}

async fn tick(store: &dyn Store, registry: &Registry, root: &str) -> Result<(), StoreError> {
    let list = store
        .range(RangeRequest::prefix(migrations_prefix(root)))
        .await?;
    for kv in list.kvs {
        let Ok(obj) = serde_json::from_slice::<Value>(&kv.value) else {
            continue;
        };
        if is_finished(&obj) {
            continue;
        }
        let key = String::from_utf8_lossy(&kv.key).into_owned();
        set_condition(store, &key, "Running", "True", "Migrating", "").await?;
        let started = std::time::Instant::now();
        let outcome = run(store, registry, &obj).await;
        let secs = started.elapsed().as_secs_f64();
        match outcome {
            Ok(n) => {
                tracing::info!(migration = %key, rewritten = n, elapsed_s = secs,
                    objects_per_s = n as f64 / secs.max(1e-9), "storage version migration succeeded");
                set_condition(store, &key, "Succeeded", "True", "Succeeded", "").await?;
            }
            Err(e) => {
                tracing::warn!(migration = %key, error = %e, "storage version migration failed");
                set_condition(store, &key, "Failed", "True", "Failed", &e.to_string()).await?;
            }
        }
    }
    Ok(())
}

/// Sets one condition (and Running=False once terminal), CAS-retried.
async fn set_condition(
    store: &dyn Store,
    key: &str,
    kind: &str,
    status: &str,
    reason: &str,
    message: &str,
) -> Result<(), StoreError> {
    loop {
        let Some(kv) = store.get(key.as_bytes(), None).await? else {
            return Ok(());
        };
        let Ok(mut obj) = serde_json::from_slice::<Value>(&kv.value) else {
            return Ok(());
        };
        let now = crate::meta::now_rfc3339();
        let mut conds: Vec<Value> = obj["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        conds.retain(|c| c["type"] != kind);
        if kind != "Running" {
            for c in conds.iter_mut().filter(|c| c["type"] == "Running") {
                c["status"] = json!("False");
            }
        }
        conds.push(json!({"type": kind, "status": status, "reason": reason,
            "message": message, "lastUpdateTime": now}));
        obj["status"]["conditions"] = Value::Array(conds);
        let bytes = serde_json::to_vec(&obj).map_err(|e| StoreError::Internal(e.to_string()))?;
        match store.update(key.as_bytes(), bytes, kv.mod_revision).await {
            Err(e) if e.is_conflict() => continue,
            Err(StoreError::NotFound { .. }) => return Ok(()),
            other => return other.map(|_| ()),
        }
    }
}

/// The CRD's stored object and key for `resource.group`, decoded by the CRD entry's codec.
async fn find_crd(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
) -> Result<(String, KeyValue, Value, Arc<ResourceEntry>), MigrationError> {
    let crds = registry
        .snapshot()
        .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .cloned()
        .ok_or_else(|| MigrationError::UnknownResource("customresourcedefinitions".into()))?;
    let key = crds.key(None, &format!("{resource}.{group}"));
    let kv = store
        .get(key.as_bytes(), None)
        .await?
        .ok_or_else(|| MigrationError::UnknownResource(format!("{resource}.{group}")))?;
    let crd = crds
        .codec
        .decode_stored(&kv.value)
        .map_err(|e| MigrationError::UnknownResource(e.to_string()))?;
    Ok((key, kv, crd, crds))
}

/// Runs one migration; the number of objects rewritten.
async fn run(
    store: &dyn Store,
    registry: &Registry,
    migration: &Value,
) -> Result<u64, MigrationError> {
    let group = migration["spec"]["resource"]["group"]
        .as_str()
        .unwrap_or_default();
    let resource = migration["spec"]["resource"]["resource"]
        .as_str()
        .unwrap_or_default();
    let (_, _, crd, _) = find_crd(store, registry, group, resource).await?;
    let storage = storage_version(&crd).unwrap_or_default().to_owned();
    let entry = registry
        .snapshot()
        .get(group, &storage, resource)
        .cloned()
        .ok_or_else(|| MigrationError::UnknownResource(format!("{resource}.{group}/{storage}")))?;
    let rewritten = rewrite_all(store, &entry).await?;
    finish(store, registry, group, resource, &storage, &entry).await?;
    Ok(rewritten)
}

/// Pages over the resource's keys and rewrites each object not in the storage version.
async fn rewrite_all(store: &dyn Store, entry: &ResourceEntry) -> Result<u64, MigrationError> {
    let prefix = entry.collection_prefix(None);
    let mut request = RangeRequest::prefix(prefix.as_bytes()).with_limit(PAGE);
    let mut rewritten = 0;
    loop {
        let page = store.range(request).await?;
        rewritten += rewrite_page(store, entry, &page.kvs).await?;
        match (page.more, page.kvs.last()) {
            (true, Some(last)) => {
                request = RangeRequest::prefix(prefix.as_bytes())
                    .with_limit(PAGE)
                    .after(last.key.clone());
            }
            _ => return Ok(rewritten),
        }
        tokio::task::yield_now().await;
    }
}

/// Rewrites a page's old-version objects: one batched conversion (one webhook call), then a
/// CAS write each; an object changed meanwhile goes through [`rewrite_one`].
async fn rewrite_page(
    store: &dyn Store,
    entry: &ResourceEntry,
    kvs: &[KeyValue],
) -> Result<u64, MigrationError> {
    let stale: Vec<&KeyValue> = kvs
        .iter()
        .filter(|kv| !entry.codec.is_stored_current(&kv.value))
        .collect();
    let Some(first) = stale.first() else {
        return Ok(0);
    };
    let values: Vec<&[u8]> = stale.iter().map(|kv| kv.value.as_slice()).collect();
    let objs = entry
        .codec
        .decode_stored_many(&values)
        .map_err(|e| MigrationError::Convert {
            key: String::from_utf8_lossy(&first.key).into_owned(),
            message: e.to_string(),
        })?;
    let mut rewritten = 0;
    for (kv, obj) in stale.into_iter().zip(objs) {
        let bytes = entry
            .codec
            .encode_for_storage(&obj)
            .map_err(|e| MigrationError::Convert {
                key: String::from_utf8_lossy(&kv.key).into_owned(),
                message: e.to_string(),
            })?;
        match store.update(&kv.key, bytes, kv.mod_revision).await {
            Ok(_) => rewritten += 1,
            Err(e) if e.is_conflict() => {
                if let Some(fresh) = store.get(&kv.key, None).await?
                    && rewrite_one(store, entry, fresh).await?
                {
                    rewritten += 1;
                }
            }
            Err(StoreError::NotFound { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(rewritten)
}

/// Rewrites one object in the storage version, retrying on conflict; false when it was
/// deleted or already current.
async fn rewrite_one(
    store: &dyn Store,
    entry: &ResourceEntry,
    mut kv: KeyValue,
) -> Result<bool, MigrationError> {
    loop {
        if entry.codec.is_stored_current(&kv.value) {
            return Ok(false);
        }
        let convert = |message: String| MigrationError::Convert {
            key: String::from_utf8_lossy(&kv.key).into_owned(),
            message,
        };
        let obj = entry
            .codec
            .decode_stored(&kv.value)
            .map_err(|e| convert(e.to_string()))?;
        let bytes = entry
            .codec
            .encode_for_storage(&obj)
            .map_err(|e| convert(e.to_string()))?;
        match store.update(&kv.key, bytes, kv.mod_revision).await {
            Ok(_) => return Ok(true),
            Err(e) if e.is_conflict() => match store.get(&kv.key, None).await? {
                Some(fresh) => kv = fresh,
                None => return Ok(false),
            },
            Err(StoreError::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(e.into()),
        }
    }
}

/// Checks the accounting and the storage version, then sets storedVersions to [storage].
async fn finish(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
    storage: &str,
    entry: &ResourceEntry,
) -> Result<(), MigrationError> {
    loop {
        let counts = count_stored_versions(store, &entry.collection_prefix(None)).await?;
        let remaining = counts.not_at(&format!("{group}/{storage}"));
        if remaining > 0 {
            return Err(MigrationError::Remaining(remaining));
        }
        let (key, kv, mut crd, crds) = find_crd(store, registry, group, resource).await?;
        let now = storage_version(&crd).unwrap_or_default().to_owned();
        if now != storage {
            return Err(MigrationError::StorageChanged(storage.to_owned(), now));
        }
        crd["status"]["storedVersions"] = json!([storage]);
        let bytes = crds
            .codec
            .encode_for_storage(&crd)
            .map_err(|e| StoreError::Internal(e.to_string()))?;
        match store.update(key.as_bytes(), bytes, kv.mod_revision).await {
            Err(e) if e.is_conflict() => continue,
            other => return other.map(|_| ()).map_err(Into::into),
        }
    }
}
