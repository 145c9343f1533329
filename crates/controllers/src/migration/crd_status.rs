//! What a migration writes into the CRD it migrates (R7.10), through the CRD's `status`
//! subresource: the `StorageMigrating` condition while it runs and after, and
//! `status.storedVersions = [storage]` once the accounting shows no object left in another
//! version and the storage version did not change meanwhile.

use super::conditions::{self, Condition};
use crate::context::Context;
use kapi_registry::Error;
use kapi_registry::entry::ResourceEntry;
use kapi_registry::rest::RestStore;
use kapi_registry::storage_migration::accounting::storage_version;
use serde_json::{Value, json};
use std::sync::Arc;

/// The CRD condition type a migration sets.
pub const STORAGE_MIGRATING: &str = "StorageMigrating";

/// The CRD of one resource, as a migration sees it.
pub struct MigratedCrd {
    /// The CRDs' registry entry.
    entry: Arc<ResourceEntry>,
    /// The CRD's name (`<resource>.<group>`).
    name: String,
}

/// The CRD object's storage version (`storage: true`).
pub fn storage_of(crd: &Value) -> String {
    storage_version(crd).unwrap_or_default().to_owned()
}

impl MigratedCrd {
    /// The CRD of `resource.group`, when the registry serves CRDs.
    pub fn new(ctx: &Context, group: &str, resource: &str) -> Option<Self> {
        let entry = ctx
            .registry
            .snapshot()
            .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
            .cloned()?;
        Some(Self {
            entry,
            name: format!("{resource}.{group}"),
        })
    }

    /// The stored CRD, or None when there is none.
    pub async fn get(&self, ctx: &Context) -> Result<Option<Value>, Error> {
        let table = ctx.registry.snapshot();
        let rest = RestStore::new(ctx.store.as_ref(), &table, &self.entry);
        Ok(rest.get(None, &self.name).await?.map(|s| s.object))
    }

    /// The CRD's storage version now ("" when it is gone).
    pub async fn storage(&self, ctx: &Context) -> Result<String, Error> {
        Ok(self
            .get(ctx)
            .await?
            .map(|c| storage_of(&c))
            .unwrap_or_default())
    }

    async fn update(
        &self,
        ctx: &Context,
        change: impl Fn(&mut Value) + Send + Sync,
    ) -> Result<(), Error> {
        let table = ctx.registry.snapshot();
        let rest = RestStore::new(ctx.store.as_ref(), &table, &self.entry);
        conditions::update_status(&rest, &self.name, change).await
    }

    /// Sets `StorageMigrating=True` (MigrationRunning) with the CRD's current generation.
    pub async fn mark_running(&self, ctx: &Context) -> Result<(), Error> {
        let cond = migrating("MigrationRunning", "The migration is running");
        self.update(ctx, move |c| conditions::set(c, cond)).await
    }

    /// Sets `StorageMigrating=True` (MigrationFailed).
    pub async fn mark_failed(&self, ctx: &Context) -> Result<(), Error> {
        let cond = migrating("MigrationFailed", "The migration has failed");
        self.update(ctx, move |c| conditions::set(c, cond)).await
    }

    /// After a successful rewrite whose accounting showed no object in another version: sets
    /// `status.storedVersions = [storage]` when the storage version is still `storage`, and
    /// `StorageMigrating=False` (MigrationSucceeded) either way, saying which.
    pub async fn mark_succeeded(&self, ctx: &Context, storage: &str) -> Result<(), Error> {
        self.update(ctx, |c| {
            let updated = storage_of(c) == storage;
            if updated {
                c["status"]["storedVersions"] = json!([storage]);
            }
            let message = if updated {
                "The migration has succeeded and the stored versions have been updated"
            } else {
                "The migration has succeeded but the stored versions have not been updated because the storage version changed"
            };
            conditions::set(
                c,
                Condition {
                    kind: STORAGE_MIGRATING,
                    status: "False",
                    reason: "MigrationSucceeded",
                    message,
                },
            );
        })
        .await
    }
}

/// A `StorageMigrating=True` condition with `reason` and `message`.
fn migrating(reason: &'static str, message: &'static str) -> Condition<'static> {
    Condition {
        kind: STORAGE_MIGRATING,
        status: "True",
        reason,
        message,
    }
}
