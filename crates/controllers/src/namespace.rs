//! The namespace controller (kube-controller-manager's, the part API semantics need): a
//! namespace with a deletionTimestamp has its content deleted through the REST layer (so
//! finalizers and strategies apply), is looked at again while objects remain (their
//! finalizers pending), and once empty loses its `kubernetes` finalizer through the
//! `finalize` subresource, which deletes it. Restart-safe: every namespace is reconciled
//! when the controller starts.

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use kapi_registry::Error;
use kapi_registry::entry::ResourceEntry;
use kapi_registry::meta;
use kapi_registry::rest::options::DeleteOptions;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How soon a namespace whose content still has finalizers pending is looked at again.
const CONTENT_RECHECK: Duration = Duration::from_secs(1);

/// The finalizer of `spec.finalizers` this controller owns.
const FINALIZER: &str = "kubernetes";

/// The controller's name.
pub const NAME: &str = "namespace-controller";
/// Its post-start hook.
pub const HOOK: &str = "start-namespace-controller";
/// Its lease when elected.
pub const LEASE: &str = "kapi-namespace-controller";

/// Empties and finalizes terminating namespaces.
pub struct NamespaceController;

fn namespaces(ctx: &Context) -> Option<Arc<ResourceEntry>> {
    ctx.registry.snapshot().get("", "v1", "namespaces").cloned()
}

#[async_trait::async_trait]
impl Reconciler for NamespaceController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hook(&self) -> &'static str {
        HOOK
    }

    fn description(&self) -> &'static str {
        "namespace finalization"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(LEASE)
    }

    fn watched_prefix(&self, ctx: &Context) -> Option<String> {
        namespaces(ctx).map(|e| e.collection_prefix(None))
    }

    fn key_of(&self, storage_key: &[u8]) -> Option<String> {
        let key = std::str::from_utf8(storage_key).ok()?;
        key.rsplit('/').next().map(str::to_owned)
    }

    async fn reconcile(&self, ctx: &Context, name: &str) -> Result<Action, Error> {
        let table = ctx.registry.snapshot();
        let Some(entry) = table.get("", "v1", "namespaces") else {
            return Ok(Action::Done);
        };
        let rest = RestStore::new(ctx.store.as_ref(), &table, entry);
        let Some(ns) = rest.get(None, name).await? else {
            return Ok(Action::Done);
        };
        if meta::meta_str(&ns.object, "deletionTimestamp").is_empty() {
            return Ok(Action::Done);
        }
        let remaining = delete_content(ctx, &table, name).await?;
        if remaining > 0 {
            tracing::debug!(namespace = name, remaining, "namespace content remaining");
            return Ok(Action::Requeue(CONTENT_RECHECK));
        }
        let w = WriteContext {
            subresource: Some("finalize".into()),
            manager: NAME.into(),
            ..WriteContext::default()
        };
        let mut info = UpdateFn::new(|current: Option<&Value>| {
            let mut ns = current.cloned().unwrap_or_default();
            let kept: Vec<Value> = meta::nested(&ns, &["spec", "finalizers"])
                .and_then(Value::as_array)
                .map(|f| f.iter().filter(|v| *v != FINALIZER).cloned().collect())
                .unwrap_or_default();
            ns["spec"]["finalizers"] = json!(kept);
            Ok(ns)
        });
        match rest.update(&w, name, &mut info).await {
            Ok(_) | Err(Error::NotFound { .. }) => Ok(Action::Done),
            Err(e) => Err(e),
        }
    }
}

/// Deletes every object in `namespace`, one resource (storage prefix) at a time, through
/// the REST layer; returns how many objects are still there (finalizers pending).
async fn delete_content(
    ctx: &Context,
    table: &kapi_registry::entry::RegistryTable,
    namespace: &str,
) -> Result<usize, Error> {
    let mut entries: Vec<&Arc<ResourceEntry>> =
        table.entries().filter(|e| e.namespaced()).collect();
    entries.sort_by_key(|e| (e.storage_prefix.clone(), e.version_priority));
    entries.dedup_by(|a, b| a.storage_prefix == b.storage_prefix);
    let w = WriteContext {
        namespace: Some(namespace.to_owned()),
        manager: NAME.into(),
        ..WriteContext::default()
    };
    let mut remaining = 0;
    for entry in entries {
        let rest = RestStore::new(ctx.store.as_ref(), table, entry);
        let deleted = rest
            .delete_collection(&w, &DeleteOptions::default(), None)
            .await?;
        remaining += deleted.pending;
    }
    Ok(remaining)
}
