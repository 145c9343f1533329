//! The garbage collector (kube-controller-manager's): owner references across every served
//! resource — built-in and custom, namespaced and cluster-scoped, every version by uid — in
//! one graph ([`graph`]), kept from the watch caches of all resources (and of new ones as
//! CRDs are served) and rebuilt from lists whenever the collector starts, so a cascade that a
//! restart interrupted finishes. A key is an object's uid; reconciling it does what
//! upstream's `attemptToDelete` and `attemptToOrphan` do:
//!
//! - **Orphan** (the object is being deleted with the `orphan` finalizer): every dependent
//!   loses its reference to it, then the finalizer goes (and with it the object).
//! - **Foreground** (being deleted with `foregroundDeletion`): its dependents whose reference
//!   has `blockOwnerDeletion: true` are deleted (Foreground again when they have dependents
//!   of their own); once none is left the finalizer goes.
//! - **Dependents**: each owner reference is classified by a look-up of the owner (the graph
//!   first, then a read through the REST store, by name and uid): *solid* (it exists and is
//!   not waiting for its dependents), *dangling* (absent, or another object with that name), or
//!   *waiting* (being deleted in the Foreground). With a solid owner the dangling and waiting
//!   references are removed; with none, the object is deleted — in the Foreground, after its
//!   references stop blocking, when a waiting owner needs it gone and it has dependents of its
//!   own; otherwise Background. A reference that cannot be resolved (a kind nobody serves; a
//!   namespaced owner of a cluster-scoped dependent, which upstream treats as unresolvable)
//!   never gets the dependent collected; it is looked at again now and then, as is one whose
//!   owner exists but has not been seen through a watch yet.
//!
//! Every write goes through the REST store (strategies, validation, resourceVersions), a
//! delete with the uid as precondition, so a dependent created again under the same name is
//! not touched. With several kapi on one etcd it is elected (the Lease [`LEASE`]).

pub mod graph;

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use futures::{StreamExt, TryStreamExt};
use graph::{FOREGROUND, Graph, Node, ORPHAN, OwnerRef};
use kapi_registry::Error;
use kapi_registry::cache::Cacher;
use kapi_registry::entry::ResourceEntry;
use kapi_registry::meta;
use kapi_registry::rest::options::{DeleteOptions, Propagation};
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use kapi_storage::KeyValue;
use serde_json::{Value, json};
use std::collections::{BTreeSet, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The controller's name (kube-controller-manager's).
pub const NAME: &str = "garbage-collector-controller";
/// Its post-start hook.
pub const HOOK: &str = "start-garbage-collector-controller";
/// Its lease when elected.
pub const LEASE: &str = "kapi-garbage-collector";
/// The field manager of its writes.
pub const MANAGER: &str = "garbage-collector";

/// Objects reconciled at once (upstream's `--concurrent-gc-syncs` is 20).
const WORKERS: usize = 16;
/// Owner uids remembered as absent before the memory is cleared.
const ABSENT_OWNERS: usize = 100_000;

/// The garbage collector.
#[derive(Default)]
pub struct GarbageCollector {
    graph: Mutex<Graph>,
    /// Owners read through the REST store and found absent, as `namespace/uid` of the
    /// dependent's namespace (upstream's `absentOwnerCache`): a uid never comes back, so the
    /// thousands of dependents of one deleted owner cost one read of it, not one each.
    absent: Mutex<HashSet<String>>,
}

impl GarbageCollector {
    /// A collector with an empty graph (filled when it starts).
    pub fn new() -> Self {
        Self::default()
    }

    fn graph(&self) -> MutexGuard<'_, Graph> {
        self.graph.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn absent(&self) -> MutexGuard<'_, HashSet<String>> {
        self.absent.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// How soon a dependent whose owner exists but is not in the graph yet (its resource not
/// followed yet: a CRD served a moment ago) is looked at again, as upstream verifies its
/// "virtual" owner nodes.
const UNOBSERVED_OWNER_RECHECK: Duration = Duration::from_secs(2);
/// How soon a dependent with an owner reference nobody can resolve is looked at again (its
/// kind may be served later).
const UNRESOLVABLE_RECHECK: Duration = Duration::from_secs(30);

/// How an owner reference resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// It exists and is not waiting for its dependents (as the graph knows it).
    Solid,
    /// It exists, read through the REST store: the graph has not seen it yet.
    Unobserved,
    /// It exists and is being deleted in the Foreground.
    Waiting,
    /// It does not exist (or another object holds its name).
    Dangling,
    /// It cannot be looked up; the dependent is never collected for it.
    Unresolvable,
}

/// The entry objects under `prefix` are read and written through: the one of the highest
/// priority version (the storage version of a built-in, the preferred one of a CRD).
fn entry_for(ctx: &Context, prefix: &str) -> Option<Arc<ResourceEntry>> {
    let table = ctx.registry.snapshot();
    table
        .entries()
        .filter(|e| e.collection_prefix(None) == prefix)
        .min_by_key(|e| e.version_priority)
        .cloned()
}

/// The entry serving `apiVersion`/`kind` (another served version of the group when that
/// version is not served: objects of every version share a uid).
fn entry_of_kind(ctx: &Context, api_version: &str, kind: &str) -> Option<Arc<ResourceEntry>> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let table = ctx.registry.snapshot();
    let of_kind: Vec<&Arc<ResourceEntry>> = table
        .entries()
        .filter(|e| e.group == group && e.names.kind == kind)
        .collect();
    of_kind
        .iter()
        .find(|e| e.version == version)
        .or(of_kind.first())
        .map(|e| Arc::clone(e))
}

fn writer(namespace: &str) -> WriteContext {
    WriteContext {
        namespace: (!namespace.is_empty()).then(|| namespace.to_owned()),
        manager: MANAGER.into(),
        ..WriteContext::default()
    }
}

#[async_trait::async_trait]
impl Reconciler for GarbageCollector {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hook(&self) -> &'static str {
        HOOK
    }

    fn description(&self) -> &'static str {
        "garbage collection"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(LEASE)
    }

    /// Every resource that can be watched and deleted, once per storage prefix.
    fn watched_prefixes(&self, ctx: &Context) -> Vec<String> {
        let table = ctx.registry.snapshot();
        let prefixes: BTreeSet<String> = table
            .entries()
            .filter(|e| {
                e.verbs.iter().any(|v| v == "watch") && e.verbs.iter().any(|v| v == "delete")
            })
            .map(|e| e.collection_prefix(None))
            .collect();
        prefixes.into_iter().collect()
    }

    fn restart(&self) {
        *self.graph() = Graph::default();
    }

    fn workers(&self) -> usize {
        WORKERS
    }

    fn observe(
        &self,
        prefix: &str,
        storage_key: &[u8],
        current: Option<&KeyValue>,
        _previous: Option<&KeyValue>,
        _cache: &Cacher,
    ) -> Vec<String> {
        let mut graph = self.graph();
        match current.and_then(|kv| graph.node_from_stored(prefix, storage_key, &kv.value)) {
            Some(node) => graph.upsert(node),
            None => graph.remove(storage_key),
        }
    }

    async fn reconcile(&self, ctx: &Context, uid: &str) -> Result<Action, Error> {
        let Some(seen) = self.graph().get(uid).cloned() else {
            return Ok(Action::Done);
        };
        let Some(entry) = entry_for(ctx, &seen.prefix) else {
            return Ok(Action::Done);
        };
        let table = ctx.registry.snapshot();
        let rest = RestStore::new(ctx.store.as_ref(), &table, &entry);
        let ns = (!seen.namespace.is_empty()).then_some(&*seen.namespace);
        // The latest state; another uid under the name means this object is gone.
        let Some(latest) = rest.get(ns, &seen.name).await? else {
            return Ok(Action::Done);
        };
        let Some(node) = seen.refreshed(&latest.object) else {
            return Ok(Action::Done);
        };
        if node.orphans_dependents() {
            return self.orphan(ctx, &node).await;
        }
        if node.waits_for_dependents() {
            return self.delete_blocking_dependents(ctx, &node).await;
        }
        if node.deleting || node.owners.is_empty() {
            return Ok(Action::Done);
        }
        self.collect_if_orphaned(ctx, &rest, &node).await
    }
}

impl GarbageCollector {
    /// Orphan: every dependent loses its reference to `owner`, then the `orphan` finalizer
    /// goes.
    async fn orphan(&self, ctx: &Context, owner: &Node) -> Result<Action, Error> {
        let dependents: Vec<Node> = self
            .graph()
            .dependents_of(&owner.uid)
            .into_iter()
            .cloned()
            .collect();
        for d in &dependents {
            remove_owner_refs(ctx, d, &[owner.uid.to_string()]).await?;
        }
        remove_finalizer(ctx, owner, ORPHAN).await?;
        Ok(Action::Done)
    }

    /// Foreground: deletes the dependents that block `owner`; once none is left, the
    /// `foregroundDeletion` finalizer goes. Each dependent's removal looks at the owner again.
    async fn delete_blocking_dependents(
        &self,
        ctx: &Context,
        owner: &Node,
    ) -> Result<Action, Error> {
        let (blocking, with_dependents): (Vec<Node>, Vec<bool>) = {
            let graph = self.graph();
            graph
                .blocking_dependents_of(&owner.uid)
                .into_iter()
                .map(|d| (d.clone(), !graph.dependents_of(&d.uid).is_empty()))
                .unzip()
        };
        if blocking.is_empty() {
            remove_finalizer(ctx, owner, FOREGROUND).await?;
            return Ok(Action::Done);
        }
        // As many deletes in flight as the collector has workers (the store commits them
        // together).
        let mut work: Vec<(Node, Propagation)> = Vec::new();
        for (d, has_dependents) in blocking.into_iter().zip(with_dependents) {
            if d.deleting {
                continue;
            }
            let policy = if has_dependents {
                Propagation::Foreground
            } else {
                Propagation::Background
            };
            work.push((d, policy));
        }
        futures::stream::iter(work)
            .map(|(d, policy)| async move { delete(ctx, &d, policy).await })
            .buffer_unordered(WORKERS)
            .try_collect::<Vec<()>>()
            .await?;
        Ok(Action::Done)
    }

    /// A dependent: removes references to owners that are gone or waiting when a solid owner
    /// remains, else deletes it.
    async fn collect_if_orphaned(
        &self,
        ctx: &Context,
        rest: &RestStore<'_>,
        node: &Node,
    ) -> Result<Action, Error> {
        let mut solid = 0;
        let mut recheck = None;
        let mut dangling = Vec::new();
        let mut waiting = Vec::new();
        for owner in &node.owners {
            match self.resolve(ctx, rest.entry, node, owner).await? {
                Owner::Solid => solid += 1,
                Owner::Unobserved => {
                    solid += 1;
                    recheck = Some(UNOBSERVED_OWNER_RECHECK);
                }
                Owner::Unresolvable => {
                    solid += 1;
                    recheck = recheck.or(Some(UNRESOLVABLE_RECHECK));
                }
                Owner::Dangling => dangling.push(owner.uid.clone()),
                Owner::Waiting => waiting.push(owner.uid.clone()),
            }
        }
        if solid > 0 {
            let gone: Vec<String> = dangling.into_iter().chain(waiting).collect();
            if !gone.is_empty() {
                remove_owner_refs(ctx, node, &gone).await?;
            }
            return Ok(recheck.map_or(Action::Done, Action::Requeue));
        }
        let has_dependents = !self.graph().dependents_of(&node.uid).is_empty();
        if !waiting.is_empty() && has_dependents {
            // Its own dependents go first; its references must not block the waiting owners
            // meanwhile, or both would wait for ever.
            unblock_owner_refs(ctx, node, &waiting).await?;
            delete(ctx, node, Propagation::Foreground).await?;
            return Ok(Action::Done);
        }
        delete(ctx, node, Propagation::Background).await?;
        Ok(Action::Done)
    }

    /// Classifies one owner reference of `dependent`.
    async fn resolve(
        &self,
        ctx: &Context,
        dependent_entry: &ResourceEntry,
        dependent: &Node,
        owner: &OwnerRef,
    ) -> Result<Owner, Error> {
        if let Some(seen) = self.graph().get(&owner.uid) {
            // A namespaced owner is only ever looked for in its dependent's namespace (as
            // upstream's): one with that uid elsewhere is not this dependent's owner.
            match reachable(seen, dependent) {
                Reach::Yes => {
                    return Ok(if seen.waits_for_dependents() {
                        Owner::Waiting
                    } else {
                        Owner::Solid
                    });
                }
                Reach::OtherNamespace => return Ok(Owner::Dangling),
                Reach::FromClusterScope => return Ok(Owner::Unresolvable),
            }
        }
        let absent_key = format!("{}/{}", dependent.namespace, owner.uid);
        if self.absent().contains(&absent_key) {
            return Ok(Owner::Dangling);
        }
        let Some(entry) = entry_of_kind(ctx, &owner.api_version, &owner.kind) else {
            return Ok(Owner::Unresolvable);
        };
        let ns = match (entry.namespaced(), dependent_entry.namespaced()) {
            (true, true) => Some(&*dependent.namespace),
            (true, false) => return Ok(Owner::Unresolvable),
            (false, _) => None,
        };
        let table = ctx.registry.snapshot();
        let rest = RestStore::new(ctx.store.as_ref(), &table, &entry);
        let found = rest.get(ns, &owner.name).await?;
        Ok(match found {
            Some(s) if meta::meta_str(&s.object, "uid") == owner.uid => {
                let waits = !meta::meta_str(&s.object, "deletionTimestamp").is_empty()
                    && meta::finalizers(&s.object).iter().any(|f| f == FOREGROUND);
                if waits {
                    Owner::Waiting
                } else {
                    Owner::Unobserved
                }
            }
            _ => {
                let mut absent = self.absent();
                if absent.len() >= ABSENT_OWNERS {
                    absent.clear();
                }
                absent.insert(absent_key);
                Owner::Dangling
            }
        })
    }
}

/// Whether an owner the graph holds can own `dependent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Same namespace, or a cluster-scoped owner.
    Yes,
    /// A namespaced owner in another namespace than the namespaced dependent's.
    OtherNamespace,
    /// A namespaced owner of a cluster-scoped dependent.
    FromClusterScope,
}

fn reachable(owner: &Node, dependent: &Node) -> Reach {
    if owner.namespace.is_empty() || owner.namespace == dependent.namespace {
        Reach::Yes
    } else if dependent.namespace.is_empty() {
        Reach::FromClusterScope
    } else {
        Reach::OtherNamespace
    }
}

/// The REST store of `node`'s resource, for `f`.
async fn with_rest<T>(
    ctx: &Context,
    node: &Node,
    f: impl AsyncFnOnce(&RestStore<'_>) -> Result<T, Error>,
) -> Result<Option<T>, Error> {
    let Some(entry) = entry_for(ctx, &node.prefix) else {
        return Ok(None);
    };
    let table = ctx.registry.snapshot();
    let rest = RestStore::new(ctx.store.as_ref(), &table, &entry);
    f(&rest).await.map(Some)
}

/// Deletes `node` with `policy`, on the condition that it is still the same object.
async fn delete(ctx: &Context, node: &Node, policy: Propagation) -> Result<(), Error> {
    let opts = DeleteOptions {
        propagation: Some(policy),
        precondition_uid: Some(node.uid.to_string()),
        ..DeleteOptions::default()
    };
    let done = with_rest(ctx, node, async |rest| {
        rest.delete(&writer(&node.namespace), &node.name, &opts)
            .await
    })
    .await;
    match done {
        Ok(_) | Err(Error::NotFound { .. } | Error::Conflict { .. }) => {
            tracing::debug!(uid = %node.uid, name = %node.name, ?policy, "garbage collected");
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// Changes `node` by `change` (the fresh object, when it is still the same uid).
async fn update(
    ctx: &Context,
    node: &Node,
    change: impl Fn(&mut Value) + Send + Sync,
) -> Result<(), Error> {
    let uid = node.uid.clone();
    let mut info = UpdateFn::new(move |current: Option<&Value>| {
        let mut obj = current.cloned().unwrap_or_default();
        if meta::meta_str(&obj, "uid") == &*uid {
            change(&mut obj);
        }
        Ok(obj)
    });
    let done = with_rest(ctx, node, async |rest| {
        rest.update(&writer(&node.namespace), &node.name, &mut info)
            .await
    })
    .await;
    match done {
        Ok(_) | Err(Error::NotFound { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Removes `node`'s owner references to `uids`.
async fn remove_owner_refs(ctx: &Context, node: &Node, uids: &[String]) -> Result<(), Error> {
    update(ctx, node, |obj| {
        let kept: Vec<Value> = meta::nested(obj, &["metadata", "ownerReferences"])
            .and_then(Value::as_array)
            .map(|refs| {
                refs.iter()
                    .filter(|r| !uids.iter().any(|u| r["uid"] == u.as_str()))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let kept = (!kept.is_empty()).then_some(Value::Array(kept));
        meta::set_meta(obj, "ownerReferences", kept);
    })
    .await
}

/// Sets `blockOwnerDeletion: false` on `node`'s references to `uids`.
async fn unblock_owner_refs(ctx: &Context, node: &Node, uids: &[String]) -> Result<(), Error> {
    update(ctx, node, |obj| {
        if let Some(refs) = obj
            .pointer_mut("/metadata/ownerReferences")
            .and_then(Value::as_array_mut)
        {
            for r in refs.iter_mut() {
                if uids.iter().any(|u| r["uid"] == u.as_str()) {
                    r["blockOwnerDeletion"] = json!(false);
                }
            }
        }
    })
    .await
}

/// Removes `finalizer` from `node` (deleting it when it was the last one).
async fn remove_finalizer(ctx: &Context, node: &Node, finalizer: &str) -> Result<(), Error> {
    update(ctx, node, |obj| {
        meta::remove_finalizer(obj, finalizer);
    })
    .await
}
