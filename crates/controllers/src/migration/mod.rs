//! The StorageVersionMigration controller (issue 7, kube-behaviours.md section 7). It runs
//! every migration without a terminal condition, oldest first, one at a time (so a restart
//! resumes an interrupted one): records `status.resourceVersion` (R7.8) and `Running`,
//! rewrites the resource's objects stored in an old version
//! (`kapi_registry::storage_migration::rewrite`, R7.3), and for a custom resource keeps the
//! CRD's `StorageMigrating` condition and, when the accounting shows no object left in
//! another version and the storage version did not change meanwhile, sets
//! `status.storedVersions` to `[storage]` ([`crd_status`], R7.10). Every status write goes
//! through the REST store's `status` subresource. With several kapi on one etcd, one process
//! runs migrations at a time (the Lease [`LEASE`]). docs/migration.md.

pub mod conditions;
pub mod crd_status;

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use conditions::Condition;
use crd_status::{MigratedCrd, storage_of};
use kapi_registry::Error;
use kapi_registry::entry::{ResourceEntry, storage_version_hash};
use kapi_registry::rest::RestStore;
use kapi_registry::storage_migration::accounting::count_stored_versions;
use kapi_registry::storage_migration::api::{GROUP, RESOURCE, VERSION, is_finished};
use kapi_registry::storage_migration::rewrite::{RewriteError, rewrite_all};
use kapi_storage::{RangeRequest, StoreError};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The controller's name (kube-controller-manager's).
pub const NAME: &str = "storage-version-migrator-controller";
/// Its post-start hook.
pub const HOOK: &str = "start-storage-version-migrator";
/// Its lease when elected.
pub const LEASE: &str = "kapi-storage-version-migrator";
/// The field manager of its writes.
pub const MANAGER: &str = "storage-version-migrator";

/// Rewrite passes before objects still written in another version fail the migration.
const PASSES: u32 = 3;
/// How soon a migration waiting for the registry to serve its CRD's storage version is
/// looked at again.
const WAIT_FOR_REGISTRY: Duration = Duration::from_millis(100);

/// Why a migration failed (its `Failed` condition's message).
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    /// The store failed.
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    /// Reading or writing through the REST store failed.
    #[error(transparent)]
    Registry(#[from] Error),
    /// Converting or rewriting an object failed (e.g. the conversion webhook is down).
    #[error(transparent)]
    Rewrite(#[from] RewriteError),
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

/// Runs storage-version migrations.
pub struct MigrationController;

fn migrations(ctx: &Context) -> Option<Arc<ResourceEntry>> {
    ctx.registry
        .snapshot()
        .get(GROUP, VERSION, RESOURCE)
        .cloned()
}

#[async_trait::async_trait]
impl Reconciler for MigrationController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hook(&self) -> &'static str {
        HOOK
    }

    fn description(&self) -> &'static str {
        "storage version migration"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(LEASE)
    }

    fn watched_prefix(&self, ctx: &Context) -> Option<String> {
        migrations(ctx).map(|e| e.collection_prefix(None))
    }

    /// Runs every unfinished migration up to `name`, oldest first: one at a time, in
    /// creation order, whichever key comes first.
    async fn reconcile(&self, ctx: &Context, name: &str) -> Result<Action, Error> {
        let Some(entry) = migrations(ctx) else {
            return Ok(Action::Done);
        };
        let table = ctx.registry.snapshot();
        let rest = RestStore::new(ctx.store.as_ref(), &table, &entry);
        let pending = pending(&rest).await?;
        let Some(last) = pending.iter().position(|(n, _)| n == name) else {
            return Ok(Action::Done);
        };
        for (n, migration) in &pending[..=last] {
            if !run_one(ctx, &rest, n, migration).await? {
                return Ok(Action::Requeue(WAIT_FOR_REGISTRY));
            }
        }
        Ok(Action::Done)
    }
}

/// Every migration without a terminal condition, oldest first: (name, object).
async fn pending(rest: &RestStore<'_>) -> Result<Vec<(String, Value)>, Error> {
    let prefix = rest.entry.collection_prefix(None);
    let list = rest.store.range(RangeRequest::prefix(prefix)).await?;
    let mut pending = Vec::new();
    for kv in &list.kvs {
        let obj = rest.decode(kv).await?;
        if !is_finished(&obj) {
            pending.push((kapi_registry::meta::name(&obj).to_owned(), obj));
        }
    }
    pending.sort_by_cached_key(|(name, obj)| {
        let created = obj["metadata"]["creationTimestamp"].as_str().unwrap_or("");
        (created.to_owned(), name.clone())
    });
    Ok(pending)
}

const RUNNING: Condition<'static> = Condition {
    kind: "Running",
    status: "True",
    reason: "MigrationRunning",
    message: "The migration is running",
};

/// Marks `name` Running (recording the start revision once), runs it, records the outcome.
/// False while the registry does not serve the CRD's storage version yet.
async fn run_one(
    ctx: &Context,
    rest: &RestStore<'_>,
    name: &str,
    migration: &Value,
) -> Result<bool, Error> {
    let group = migration["spec"]["resource"]["group"]
        .as_str()
        .unwrap_or_default();
    let resource = migration["spec"]["resource"]["resource"]
        .as_str()
        .unwrap_or_default();
    let started = Instant::now();
    let outcome = match resolve(ctx, group, resource).await {
        Ok(None) => {
            tracing::debug!(
                migration = name,
                "waiting for the registry to serve the CRD's storage version"
            );
            return Ok(false);
        }
        Ok(Some(target)) => {
            let revision = start_revision(ctx, &target).await?;
            conditions::update_status(rest, name, |svm| {
                if svm["status"]["resourceVersion"]
                    .as_str()
                    .unwrap_or("")
                    .is_empty()
                {
                    svm["status"]["resourceVersion"] = json!(revision.to_string());
                }
                conditions::set(svm, RUNNING);
            })
            .await?;
            run(ctx, target).await
        }
        Err(e) => Err(e),
    };
    let secs = started.elapsed().as_secs_f64();
    let (terminal, message) = match &outcome {
        Ok(n) => {
            tracing::info!(
                migration = name,
                rewritten = n,
                elapsed_s = secs,
                objects_per_s = *n as f64 / secs.max(1e-9),
                "storage version migration succeeded"
            );
            ("Succeeded", String::new())
        }
        Err(e) => {
            tracing::warn!(migration = name, error = %e, "storage version migration failed");
            ("Failed", e.to_string())
        }
    };
    let reason = format!("Migration{terminal}");
    conditions::update_status(rest, name, |svm| {
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
    })
    .await?;
    Ok(true)
}

/// What a migration rewrites: a custom resource (with its CRD and storage version) or a
/// built-in resource.
enum Target {
    Custom(MigratedCrd, String, Arc<ResourceEntry>),
    BuiltIn(Arc<ResourceEntry>),
}

impl Target {
    fn entry(&self) -> &ResourceEntry {
        match self {
            Target::Custom(_, _, e) | Target::BuiltIn(e) => e,
        }
    }
}

/// The served resource `resource.group`: an entry of the CRD (once the registry serves it with
/// the CRD's current storage version, i.e. the same storageVersionHash discovery shows, R7.2),
/// or a built-in one. None while the registry has not caught up with the CRD yet.
async fn resolve(
    ctx: &Context,
    group: &str,
    resource: &str,
) -> Result<Option<Target>, MigrationError> {
    let table = ctx.registry.snapshot();
    let mut served = table
        .entries()
        .filter(|e| e.group == group && e.names.plural == resource);
    let crd = MigratedCrd::new(ctx, group, resource);
    let stored = match &crd {
        Some(crd) => crd.get(ctx).await?,
        None => None,
    };
    let (Some(crd), Some(stored)) = (crd, stored) else {
        return match served.next() {
            Some(entry) => Ok(Some(Target::BuiltIn(entry.clone()))),
            None => Err(MigrationError::UnknownResource),
        };
    };
    let storage = storage_of(&stored);
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
    Ok(entry.map(|entry| Target::Custom(crd, storage, entry)))
}

/// The store revision a one-item list of the resource reads at (R7.8).
async fn start_revision(ctx: &Context, target: &Target) -> Result<i64, StoreError> {
    let prefix = target.entry().collection_prefix(None);
    let page = ctx
        .store
        .range(RangeRequest::prefix(prefix.as_bytes()).with_limit(1))
        .await?;
    Ok(page.revision)
}

/// Rewrites the target; the number of objects rewritten.
async fn run(ctx: &Context, target: Target) -> Result<u64, MigrationError> {
    let store = ctx.store.as_ref();
    let Target::Custom(crd, storage, entry) = target else {
        return Ok(rewrite_all(store, target.entry(), &|_| {}).await?);
    };
    crd.mark_running(ctx).await?;
    let result = migrate_custom(ctx, &crd, &storage, &entry).await;
    if result.is_err()
        && let Err(e) = crd.mark_failed(ctx).await
    {
        // The migration's own error is the one to report.
        tracing::warn!(error = %e, "setting StorageMigrating=True (MigrationFailed)");
    }
    result
}

/// Rewrite passes until the accounting shows nothing outside `storage`, then storedVersions.
async fn migrate_custom(
    ctx: &Context,
    crd: &MigratedCrd,
    storage: &str,
    entry: &ResourceEntry,
) -> Result<u64, MigrationError> {
    let store = ctx.store.as_ref();
    let resource = entry.names.plural.as_str();
    let api_version = format!("{}/{storage}", entry.group);
    let progress = |n: u64| tracing::debug!(resource, rewritten = n, "migration page done");
    let mut rewritten = 0;
    for pass in 1..=PASSES {
        rewritten += rewrite_all(store, entry, &progress).await?;
        let now = crd.storage(ctx).await?;
        if now != storage {
            return Err(MigrationError::StorageChanged(storage.to_owned(), now));
        }
        let counts = count_stored_versions(store, &entry.collection_prefix(None)).await?;
        let remaining = counts.not_at(&api_version);
        if remaining == 0 {
            crd.mark_succeeded(ctx, storage).await?;
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
