//! The namespace controller (kube-controller-manager's, the part API semantics need): a
//! namespace with a deletionTimestamp has its content deleted through the REST layer (so
//! finalizers and strategies apply, and the garbage collector sees the deletions), says how
//! far it got in upstream's five deletion conditions (`NamespaceContentRemaining`,
//! `NamespaceFinalizersRemaining`, …), is looked at again while objects remain (their
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
use std::collections::BTreeMap;
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
        let content = delete_content(ctx, &table, name).await;
        write_conditions(&rest, name, &content).await?;
        if let Some(failure) = content.failures.first() {
            return Err(Error::internal(format!(
                "deleting the content of namespace {name}: {failure}"
            )));
        }
        if !content.remaining.is_empty() {
            tracing::debug!(namespace = name, remaining = ?content.remaining, "namespace content remaining");
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

/// What deleting a namespace's content left: objects per resource, objects per finalizer,
/// and the resources whose deletion failed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Content {
    /// `<resource>.<group>` → objects still there (being deleted).
    pub remaining: BTreeMap<String, usize>,
    /// finalizer → objects it holds.
    pub finalizers: BTreeMap<String, usize>,
    /// `<resource>.<group>: <error>` of each resource that could not be deleted.
    pub failures: Vec<String>,
}

impl Content {
    /// The namespace's deletion conditions, upstream's five in its order, saying this.
    pub fn conditions(&self) -> Vec<(&'static str, bool, &'static str, String)> {
        let counted = |m: &BTreeMap<String, usize>, what: &str| {
            m.iter()
                .map(|(k, n)| format!("{k} {what} {n} resource instances"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let failed = !self.failures.is_empty();
        let remain = !self.remaining.is_empty();
        let held = !self.finalizers.is_empty();
        vec![
            (
                "NamespaceDeletionDiscoveryFailure",
                false,
                "ResourcesDiscovered",
                "All resources successfully discovered".into(),
            ),
            (
                "NamespaceDeletionGroupVersionParsingFailure",
                false,
                "ParsedGroupVersions",
                "All legacy kube types successfully parsed".into(),
            ),
            if failed {
                (
                    "NamespaceDeletionContentFailure",
                    true,
                    "ContentDeletionFailed",
                    format!(
                        "Failed to delete all resource types, {} remaining: {}",
                        self.failures.len(),
                        self.failures.join(", ")
                    ),
                )
            } else {
                (
                    "NamespaceDeletionContentFailure",
                    false,
                    "ContentDeleted",
                    "All content successfully deleted, may be waiting on finalization".into(),
                )
            },
            if remain {
                (
                    "NamespaceContentRemaining",
                    true,
                    "SomeResourcesRemain",
                    format!(
                        "Some resources are remaining: {}",
                        counted(&self.remaining, "has")
                    ),
                )
            } else {
                (
                    "NamespaceContentRemaining",
                    false,
                    "ContentRemoved",
                    "All content successfully removed".into(),
                )
            },
            if held {
                (
                    "NamespaceFinalizersRemaining",
                    true,
                    "SomeFinalizersRemain",
                    format!(
                        "Some content in the namespace has finalizers remaining: {}",
                        counted(&self.finalizers, "in")
                    ),
                )
            } else {
                (
                    "NamespaceFinalizersRemaining",
                    false,
                    "ContentHasNoFinalizers",
                    "All content-preserving finalizers finished".into(),
                )
            },
        ]
    }
}

/// Writes the deletion conditions of `content` into the namespace's status (the `status`
/// subresource); a condition keeps its lastTransitionTime while its status holds.
async fn write_conditions(
    rest: &RestStore<'_>,
    name: &str,
    content: &Content,
) -> Result<(), Error> {
    let conditions = content.conditions();
    let w = WriteContext {
        subresource: Some("status".into()),
        manager: NAME.into(),
        ..WriteContext::default()
    };
    let mut info = UpdateFn::new(|current: Option<&Value>| {
        let mut ns = current.cloned().unwrap_or_default();
        let old: Vec<Value> = meta::nested(&ns, &["status", "conditions"])
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let now = meta::now_rfc3339();
        let fresh: Vec<Value> = conditions
            .iter()
            .map(|(kind, on, reason, message)| {
                let status = if *on { "True" } else { "False" };
                let since = old
                    .iter()
                    .find(|c| c["type"] == *kind && c["status"] == status)
                    .map_or_else(|| json!(now), |c| c["lastTransitionTime"].clone());
                json!({"type": kind, "status": status, "lastTransitionTime": since,
                    "reason": reason, "message": message})
            })
            .collect();
        if !ns["status"].is_object() {
            ns["status"] = json!({});
        }
        ns["status"]["conditions"] = Value::Array(fresh);
        Ok(ns)
    });
    match rest.update(&w, name, &mut info).await {
        Ok(_) | Err(Error::NotFound { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Deletes every object in `namespace`, one resource (storage prefix) at a time, through
/// the REST layer; what is left (finalizers pending, deletions that failed).
async fn delete_content(
    ctx: &Context,
    table: &kapi_registry::entry::RegistryTable,
    namespace: &str,
) -> Content {
    let mut entries: Vec<&Arc<ResourceEntry>> =
        table.entries().filter(|e| e.namespaced()).collect();
    entries.sort_by_key(|e| (e.storage_prefix.clone(), e.version_priority));
    entries.dedup_by(|a, b| a.storage_prefix == b.storage_prefix);
    let w = WriteContext {
        namespace: Some(namespace.to_owned()),
        manager: NAME.into(),
        ..WriteContext::default()
    };
    let mut content = Content::default();
    for entry in entries {
        let resource = format!("{}.{}", entry.names.plural, entry.group);
        let rest = RestStore::new(ctx.store.as_ref(), table, entry);
        match rest
            .delete_collection(&w, &DeleteOptions::default(), None)
            .await
        {
            Ok(deleted) if deleted.pending > 0 => {
                content.remaining.insert(resource, deleted.pending);
                let held = deleted
                    .items
                    .iter()
                    .filter(|o| !meta::meta_str(o, "deletionTimestamp").is_empty());
                for obj in held {
                    for f in meta::finalizers(obj) {
                        *content.finalizers.entry(f).or_default() += 1;
                    }
                }
            }
            Ok(_) => {}
            Err(e) => content.failures.push(format!("{resource}: {e}")),
        }
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remaining_content_and_finalizers_are_counted_in_upstreams_words() {
        let content = Content {
            remaining: [("configmaps.".to_owned(), 2)].into(),
            finalizers: [("example.com/hold".to_owned(), 2)].into(),
            failures: Vec::new(),
        };
        let conds = content.conditions();
        assert_eq!(conds.len(), 5);
        let (kind, on, reason, message) = &conds[3];
        assert_eq!(
            (*kind, *on, *reason),
            ("NamespaceContentRemaining", true, "SomeResourcesRemain")
        );
        assert_eq!(
            message,
            "Some resources are remaining: configmaps. has 2 resource instances"
        );
        assert_eq!(
            conds[4].3,
            "Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances"
        );
        assert_eq!(conds[2].2, "ContentDeleted");
    }
}
