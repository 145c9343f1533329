//! The built-in StorageVersionMigration controller. It picks up every migration without a
//! terminal condition, oldest first, one at a time (so a restart resumes an interrupted one):
//! records `status.resourceVersion` (R7.8) and `Running`, rewrites the resource's objects
//! stored in an old version ([`super::rewrite`], R7.3), and for a custom resource keeps the
//! CRD's `StorageMigrating` condition and, when the accounting shows no object left in another
//! version and the storage version did not change meanwhile, sets `status.storedVersions` to
//! `[storage]` ([`super::crd_status`], R7.10). docs/migration.md.

use super::conditions::{self, Condition};
use super::crd_status::{self, StoredCrd};
use super::leader::{Elector, LeaseTiming};
use super::rewrite::rewrite_all;
use kapi_registry::entry::{Registry, ResourceEntry, storage_version_hash};
use kapi_registry::storage_migration::accounting::count_stored_versions;
use kapi_registry::storage_migration::api::{GROUP, RESOURCE, is_finished};
use kapi_storage::{RangeRequest, Store, StoreError};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How often unfinished migrations are looked for.
const POLL: Duration = Duration::from_millis(300);
/// Rewrite passes before objects still written in another version fail the migration.
const PASSES: u32 = 3;

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
    /// spec.resource names nothing this server serves (R7.8's wording).
    #[error("resource does not exist in discovery")]
    UnknownResource,
    /// The storage version changed during the migration.
    #[error("the storage version changed from {0} to {1} during the migration")]
    StorageChanged(String, String),
    /// Objects in other versions remained after every pass (written by an older kapi meanwhile).
    #[error("{0} objects remain stored in other versions")]
    Remaining(u64),
}

/// Spawns the controller on the current runtime. With `election` (several kapi processes on
/// one etcd), only the holder of the migration lease runs migrations ([`super::leader`]).
pub fn spawn(
    store: Arc<dyn Store>,
    registry: Arc<Registry>,
    root: String,
    election: Option<LeaseTiming>,
) {
    tokio::spawn(async move {
        let elector = election.and_then(|t| Elector::new(store.clone(), &registry, t));
        let mut leading = false;
        loop {
            match pending(store.as_ref(), &root).await {
                Ok(list) if list.is_empty() => {
                    if leading && let Some(e) = &elector {
                        leading = false;
                        if let Err(err) = e.release().await {
                            tracing::warn!(error = %err, "releasing the migration lease");
                        }
                    }
                }
                Ok(list) => {
                    let e = elector.as_ref();
                    leading = lead_and_run(store.as_ref(), &registry, e, leading, list).await;
                }
                Err(e) => tracing::warn!(error = %e, "storage version migration controller"),
            }
            tokio::time::sleep(POLL).await;
        }
    });
}

/// Runs `list` when this process may (no election, or it holds the lease), renewing the lease
/// meanwhile and stopping when it is lost. Whether this process holds the lease afterwards
/// (`was_leading`: whether it held it before).
async fn lead_and_run(
    store: &dyn Store,
    registry: &Registry,
    elector: Option<&Elector>,
    was_leading: bool,
    list: Vec<(String, Value)>,
) -> bool {
    let Some(elector) = elector else {
        if let Err(e) = run_all(store, registry, list).await {
            tracing::warn!(error = %e, "storage version migration controller");
        }
        return false;
    };
    match elector.try_acquire_or_renew().await {
        Ok(true) => {}
        Ok(false) => return false,
        Err(e) => {
            tracing::warn!(error = %e, "acquiring the migration lease");
            return false;
        }
    }
    if !was_leading {
        tracing::info!(
            identity = elector.identity(),
            "leading storage version migration"
        );
    }
    tokio::select! {
        result = run_all(store, registry, list) => {
            if let Err(e) = result {
                tracing::warn!(error = %e, "storage version migration controller");
            }
            true
        }
        () = elector.hold() => {
            tracing::warn!(identity = elector.identity(), "lost the migration lease; stopping");
            false
        }
    }
}

fn migrations_prefix(root: &str) -> String {
    format!("{root}/{GROUP}/{RESOURCE}/")
}

/// Every migration without a terminal condition, oldest first: (key, object).
async fn pending(store: &dyn Store, root: &str) -> Result<Vec<(String, Value)>, StoreError> {
    let list = store
        .range(RangeRequest::prefix(migrations_prefix(root)))
        .await?;
    let mut pending: Vec<(String, Value)> = list
        .kvs
        .into_iter()
        .filter_map(|kv| {
            let obj = serde_json::from_slice::<Value>(&kv.value).ok()?;
            (!is_finished(&obj)).then(|| (String::from_utf8_lossy(&kv.key).into_owned(), obj))
        })
        .collect();
    pending.sort_by_cached_key(|(key, obj)| {
        let created = obj["metadata"]["creationTimestamp"].as_str().unwrap_or("");
        (created.to_owned(), key.clone())
    });
    Ok(pending)
}

/// Runs the migrations of `list` one after another.
async fn run_all(
    store: &dyn Store,
    registry: &Registry,
    list: Vec<(String, Value)>,
) -> Result<(), StoreError> {
    for (key, obj) in list {
        run_one(store, registry, &key, &obj).await?;
    }
    Ok(())
}

/// Marks `key` Running (recording the start revision once), runs it, records the outcome.
async fn run_one(
    store: &dyn Store,
    registry: &Registry,
    key: &str,
    migration: &Value,
) -> Result<(), StoreError> {
    let group = migration["spec"]["resource"]["group"]
        .as_str()
        .unwrap_or_default();
    let resource = migration["spec"]["resource"]["resource"]
        .as_str()
        .unwrap_or_default();
    let started = Instant::now();
    let outcome = match resolve(store, registry, group, resource).await {
        Ok(None) => {
            tracing::debug!(migration = %key, "waiting for the registry to serve the CRD's storage version");
            return Ok(());
        }
        Ok(Some(target)) => {
            let revision = start_revision(store, &target).await?;
            conditions::update_json(store, key, |svm| {
                if svm["status"]["resourceVersion"]
                    .as_str()
                    .unwrap_or("")
                    .is_empty()
                {
                    svm["status"]["resourceVersion"] = json!(revision.to_string());
                }
                conditions::set(svm, RUNNING);
                true
            })
            .await?;
            run(store, registry, group, resource, target).await
        }
        Err(e) => Err(e),
    };
    let secs = started.elapsed().as_secs_f64();
    let (terminal, message) = match &outcome {
        Ok(n) => {
            tracing::info!(migration = %key, rewritten = n, elapsed_s = secs,
                objects_per_s = *n as f64 / secs.max(1e-9), "storage version migration succeeded");
            ("Succeeded", String::new())
        }
        Err(e) => {
            tracing::warn!(migration = %key, error = %e, "storage version migration failed");
            ("Failed", e.to_string())
        }
    };
    let reason = format!("Migration{terminal}");
    conditions::update_json(store, key, |svm| {
        let done = Condition {
            kind: terminal,
            status: "True",
            reason: &reason,
            message: &message,
        };
        conditions::set(svm, done);
        conditions::set(
            svm,
            Condition {
                kind: "Running",
                status: "False",
                ..done
            },
        );
        true
    })
    .await
}

const RUNNING: Condition<'static> = Condition {
    kind: "Running",
    status: "True",
    reason: "MigrationRunning",
    message: "The migration is running",
};

/// What a migration rewrites: a custom resource (with its CRD) or a built-in resource.
enum Target {
    Custom(StoredCrd, Arc<ResourceEntry>),
    BuiltIn(Arc<ResourceEntry>),
}

impl Target {
    fn entry(&self) -> &ResourceEntry {
        match self {
            Target::Custom(_, e) | Target::BuiltIn(e) => e,
        }
    }
}

/// The served resource `resource.group`: an entry of the CRD (once the registry serves it with
/// the CRD's current storage version, i.e. the same storageVersionHash discovery shows, R7.2),
/// or a built-in one. None while the registry has not caught up with the CRD yet.
async fn resolve(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
) -> Result<Option<Target>, MigrationError> {
    let table = registry.snapshot();
    let mut served = table
        .entries()
        .filter(|e| e.group == group && e.names.plural == resource);
    let Some(crd) = crd_status::find(store, registry, group, resource).await? else {
        return match served.next() {
            Some(entry) => Ok(Some(Target::BuiltIn(entry.clone()))),
            None => Err(MigrationError::UnknownResource),
        };
    };
    let storage = crd.storage();
    let current: Vec<&Arc<ResourceEntry>> = served
        .filter(|e| e.storage_version_hash == storage_version_hash(group, &storage, &e.names.kind))
        .collect();
    // The storage version's own entry converts a page once; another served version's entry
    // (when the storage version is not served) converts each object again on write.
    let entry = current
        .iter()
        .find(|e| e.version == storage)
        .or(current.first())
        .map(|e| Arc::clone(e));
    Ok(entry.map(|entry| Target::Custom(crd, entry)))
}

/// The store revision a one-item list of the resource reads at (R7.8).
async fn start_revision(store: &dyn Store, target: &Target) -> Result<i64, StoreError> {
    let prefix = target.entry().collection_prefix(None);
    let page = store
        .range(RangeRequest::prefix(prefix.as_bytes()).with_limit(1))
        .await?;
    Ok(page.revision)
}

/// Rewrites the target; the number of objects rewritten.
async fn run(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
    target: Target,
) -> Result<u64, MigrationError> {
    let Target::Custom(crd, entry) = target else {
        return rewrite_all(store, target.entry(), &|_| {}).await;
    };
    crd_status::mark_running(store, registry, group, resource).await?;
    let result = migrate_custom(store, registry, group, resource, &crd.storage(), &entry).await;
    if result.is_err()
        && let Err(e) = crd_status::mark_failed(store, registry, group, resource).await
    {
        // The migration's own error is the one to report.
        tracing::warn!(error = %e, "setting StorageMigrating=True (MigrationFailed)");
    }
    result
}

/// Rewrite passes until the accounting shows nothing outside `storage`, then storedVersions.
async fn migrate_custom(
    store: &dyn Store,
    registry: &Registry,
    group: &str,
    resource: &str,
    storage: &str,
    entry: &ResourceEntry,
) -> Result<u64, MigrationError> {
    let api_version = format!("{group}/{storage}");
    let progress = |n: u64| tracing::debug!(resource, rewritten = n, "migration page done");
    let mut rewritten = 0;
    for pass in 1..=PASSES {
        rewritten += rewrite_all(store, entry, &progress).await?;
        let now = crd_status::find(store, registry, group, resource)
            .await?
            .map(|c| c.storage())
            .unwrap_or_default();
        if now != storage {
            return Err(MigrationError::StorageChanged(storage.to_owned(), now));
        }
        let counts = count_stored_versions(store, &entry.collection_prefix(None)).await?;
        let remaining = counts.not_at(&api_version);
        if remaining == 0 {
            crd_status::mark_succeeded(store, registry, group, resource, storage).await?;
            return Ok(rewritten);
        }
        if pass == PASSES {
            return Err(MigrationError::Remaining(remaining));
        }
        tracing::info!(
            resource,
            remaining,
            pass,
            "objects in other versions remain; rewriting again"
        );
    }
    Ok(rewritten)
}
