//! The cleanup half of the CRD controller (apiextensions-apiserver's finalizer controller):
//! a deleted CRD keeps serving its objects (creates refused) while they are deleted through
//! the REST store, so their own finalizers are honoured; the `Terminating` condition says how
//! far it got; once none is left the `customresourcecleanup.apiextensions.k8s.io` finalizer
//! is removed, which deletes the CRD.

use super::names::{self, condition, set_condition};
use super::{MANAGER, write_status};
use crate::context::Context;
use crate::runtime::Action;
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_registry::Error;
use kapi_registry::crd::CLEANUP_FINALIZER;
use kapi_registry::entry::ResourceEntry;
use kapi_registry::meta;
use kapi_registry::rest::options::DeleteOptions;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use serde_json::Value;
use std::time::Duration;

/// How soon a CRD whose objects still have finalizers pending is looked at again.
const INSTANCES_RECHECK: Duration = Duration::from_secs(1);

/// Handles a CRD with a deletionTimestamp: deletes its objects, then its finalizer.
pub async fn reconcile(
    ctx: &Context,
    crds: &RestStore<'_>,
    root: &str,
    crd: &CustomResourceDefinition,
) -> Result<Action, Error> {
    let name = crd.metadata.name.as_str();
    if !crd
        .metadata
        .finalizers
        .iter()
        .any(|f| f == CLEANUP_FINALIZER)
    {
        // Other finalizers are someone else's to remove.
        return Ok(Action::Done);
    }
    if !names::established(crd) {
        let never = condition(
            "Terminating",
            false,
            "NeverEstablished",
            "resource was never established",
        );
        write_terminating(crds, name, never).await?;
        return release(crds, name).await;
    }
    if !names::has_condition(crd, "Terminating", "True") {
        let started = condition(
            "Terminating",
            true,
            "InstanceDeletionInProgress",
            "CustomResource deletion is in progress",
        );
        write_terminating(crds, name, started).await?;
    }
    let entry = instance_entry(ctx, root, crd)?;
    let remaining = match delete_instances(ctx, &entry).await {
        Ok(n) => n,
        Err(e) => {
            let failed = condition(
                "Terminating",
                true,
                "InstanceDeletionFailed",
                &format!("could not delete instances: {e}"),
            );
            write_terminating(crds, name, failed).await?;
            return Err(e);
        }
    };
    if remaining > 0 {
        tracing::debug!(
            crd = name,
            remaining,
            "custom resources with finalizers remain"
        );
        return Ok(Action::Requeue(INSTANCES_RECHECK));
    }
    let done = condition(
        "Terminating",
        false,
        "InstanceDeletionCompleted",
        "removed all instances",
    );
    write_terminating(crds, name, done).await?;
    release(crds, name).await
}

async fn write_terminating(
    crds: &RestStore<'_>,
    name: &str,
    cond: kapi_api::apiextensions::v1::CustomResourceDefinitionCondition,
) -> Result<(), Error> {
    let change = move |c: &mut CustomResourceDefinition| {
        let mut conds = c.status.conditions.clone().unwrap_or_default();
        set_condition(&mut conds, cond.clone());
        c.status.conditions = Some(conds);
    };
    match write_status(crds, name, change).await {
        Ok(_) | Err(Error::NotFound { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes the cleanup finalizer; the CRD is deleted when it was the last one.
async fn release(crds: &RestStore<'_>, name: &str) -> Result<Action, Error> {
    let w = WriteContext {
        manager: MANAGER.into(),
        ..WriteContext::default()
    };
    let mut info = UpdateFn::new(|current: Option<&Value>| {
        let mut obj = current.cloned().unwrap_or_default();
        meta::remove_finalizer(&mut obj, CLEANUP_FINALIZER);
        Ok(obj)
    });
    match crds.update(&w, name, &mut info).await {
        Ok(_) | Err(Error::NotFound { .. }) => Ok(Action::Done),
        Err(e) => Err(e),
    }
}

/// The entry the CRD's objects are deleted through: its storage version's (no conversion
/// for objects stored in it), built from the CRD itself so that it works whether or not the
/// registry serves it.
fn instance_entry(
    ctx: &Context,
    root: &str,
    crd: &CustomResourceDefinition,
) -> Result<ResourceEntry, Error> {
    let entries = kapi_registry::crd::entries_for_crd(root, crd, ctx.webhooks.clone())
        .map_err(|e| Error::internal(format!("serving {}: {e}", crd.metadata.name)))?;
    let storage = crd
        .spec
        .versions
        .iter()
        .find(|v| v.storage)
        .map(|v| v.name.clone())
        .unwrap_or_default();
    let mut entries = entries.into_iter();
    let first = entries
        .next()
        .ok_or_else(|| Error::internal(format!("{} serves no version", crd.metadata.name)))?;
    if first.version == storage {
        return Ok(first);
    }
    Ok(entries.find(|e| e.version == storage).unwrap_or(first))
}

/// Deletes every object of `entry` through the REST store; how many are left (their
/// finalizers pending).
async fn delete_instances(ctx: &Context, entry: &ResourceEntry) -> Result<usize, Error> {
    let table = ctx.registry.snapshot();
    let rest = RestStore::new(ctx.store.as_ref(), &table, entry);
    let w = WriteContext {
        manager: MANAGER.into(),
        ..WriteContext::default()
    };
    let deleted = rest
        .delete_collection(&w, &DeleteOptions::default(), None)
        .await?;
    Ok(deleted.pending)
}
