//! The CRD controller: the registry follows the CRDs in storage. For each CRD it decides
//! whether its names are free ([`names`]), writes NamesAccepted / Established through the
//! `status` subresource, serves its versions once Established (the entries built by
//! `kapi_registry::crd`), and when the CRD is deleted deletes its objects through the REST
//! store before releasing the cleanup finalizer ([`finalizer`]). It runs in every kapi
//! process (each serves the CRDs from its own registry); their status writes race by
//! resourceVersion, harmlessly, as every kube-apiserver's apiextensions controllers do.

pub mod finalizer;
pub mod names;

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_registry::Error;
use kapi_registry::cache::Cacher;
use kapi_registry::entry::ResourceEntry;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The controller's name.
pub const NAME: &str = "crd-controller";
/// Its post-start hook (kube-apiserver's name for the apiextensions controllers' hook).
pub const HOOK: &str = "start-apiextensions-controllers";
/// The field manager of its writes (kube-apiserver's own controllers write as it).
pub const MANAGER: &str = "kube-apiserver";

const GROUP: &str = "apiextensions.k8s.io";
const RESOURCE: &str = "customresourcedefinitions";

/// How long the controller waits for the CRDs' watch cache when it reads its siblings.
const CACHE_TIMEOUT: Duration = Duration::from_secs(10);

/// Keeps the registry in step with the stored CRDs.
#[derive(Default)]
pub struct CrdController {
    /// The resourceVersion each served CRD's entries were built from (building compiles
    /// the schemas, so an unchanged CRD is not built again).
    built: Mutex<BTreeMap<String, i64>>,
}

impl CrdController {
    /// A controller that has served nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn built(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, i64>> {
        self.built.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Serves the CRD's versions (a terminating CRD's refuse creates) unless they are
    /// served from this revision already.
    fn serve(&self, ctx: &Context, root: &str, crd: &CustomResourceDefinition, revision: i64) {
        let name = &crd.metadata.name;
        if self.built().get(name) == Some(&revision) {
            return;
        }
        match kapi_registry::crd::entries_for_crd(root, crd, ctx.webhooks.clone()) {
            Ok(entries) => {
                ctx.registry
                    .replace_resource(&crd.spec.group, &crd.spec.names.plural, entries);
                self.built().insert(name.clone(), revision);
            }
            Err(e) => tracing::warn!(crd = %name, error = %e, "CRD not served"),
        }
    }

    fn unserve(&self, ctx: &Context, name: &str) {
        if let Some((plural, group)) = name.split_once('.') {
            ctx.registry.remove_resource(group, plural);
        }
        self.built().remove(name);
    }
}

/// The CRDs' registry entry.
fn crds(ctx: &Context) -> Option<Arc<ResourceEntry>> {
    ctx.registry.snapshot().get(GROUP, "v1", RESOURCE).cloned()
}

/// A stored CRD as its typed form, with names defaulted (singular, listKind) as they are
/// accepted and compared.
pub fn typed(obj: &Value) -> Result<CustomResourceDefinition, Error> {
    let mut crd: CustomResourceDefinition =
        serde_json::from_value(obj.clone()).map_err(|e| Error::internal(format!("CRD: {e}")))?;
    kapi_api::apiextensions::v1::set_defaults(&mut crd);
    Ok(crd)
}

/// The group of the CRD named `<plural>.<group>`.
fn group_of(name: &str) -> &str {
    name.split_once('.').map_or("", |(_, g)| g)
}

/// Writes `change` into the CRD's conditions and acceptedNames (the `status` subresource, with the resourceVersion
/// read, retried on a lost race); `change` sees the fresh CRD. The CRD as stored after.
pub async fn write_status(
    rest: &RestStore<'_>,
    name: &str,
    change: impl Fn(&mut CustomResourceDefinition) + Send + Sync,
) -> Result<Value, Error> {
    let w = WriteContext {
        subresource: Some("status".into()),
        manager: MANAGER.into(),
        ..WriteContext::default()
    };
    let mut info = UpdateFn::new(|current: Option<&Value>| {
        let mut obj = current.cloned().unwrap_or_default();
        let mut crd = typed(&obj)?;
        change(&mut crd);
        // Only what the controller owns is written back, so nothing else changes shape.
        let conditions = serde_json::to_value(&crd.status.conditions).map_err(Error::internal)?;
        let names = serde_json::to_value(&crd.status.accepted_names).map_err(Error::internal)?;
        if !obj["status"].is_object() {
            obj["status"] = Value::Object(Default::default());
        }
        obj["status"]["conditions"] = conditions;
        obj["status"]["acceptedNames"] = names;
        Ok(obj)
    });
    Ok(rest.update(&w, name, &mut info).await?.object)
}

#[async_trait::async_trait]
impl Reconciler for CrdController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hook(&self) -> &'static str {
        HOOK
    }

    fn description(&self) -> &'static str {
        "custom resource definitions"
    }

    fn watched_prefix(&self, ctx: &Context) -> Option<String> {
        crds(ctx).map(|e| e.collection_prefix(None))
    }

    /// The other CRDs of the group: a change of one may free or take names they wait for.
    fn related_keys(&self, key: &str, cache: &Cacher) -> Vec<String> {
        let group = group_of(key);
        let (kvs, _) = cache.list(cache.prefix());
        kvs.iter()
            .filter_map(|kv| self.key_of(&kv.key))
            .filter(|other| other != key && group_of(other) == group)
            .collect()
    }

    async fn reconcile(&self, ctx: &Context, name: &str) -> Result<Action, Error> {
        let (Some(root), Some(entry)) = (ctx.storage_root(), crds(ctx)) else {
            return Ok(Action::Done);
        };
        let table = ctx.registry.snapshot();
        let rest = RestStore::new(ctx.store.as_ref(), &table, &entry);
        let Some(stored) = rest.get(None, name).await? else {
            self.unserve(ctx, name);
            return Ok(Action::Done);
        };
        let mut crd = typed(&stored.object)?;
        let mut revision = stored.revision;
        if crd.metadata.deletion_timestamp.is_some() {
            if names::established(&crd) {
                self.serve(ctx, &root, &crd, revision);
            }
            return finalizer::reconcile(ctx, &rest, &root, &crd).await;
        }
        let others = siblings(ctx, &entry, &crd).await?;
        let accepted = names::accepted(&crd, &others);
        if names::needs_status(&crd, accepted) {
            let written =
                write_status(&rest, name, |c| names::set_names_status(c, accepted)).await?;
            crd = typed(&written)?;
            revision = kapi_registry::meta::resource_version(&written)
                .parse()
                .unwrap_or(revision);
        }
        if names::established(&crd) {
            self.serve(ctx, &root, &crd, revision);
        }
        Ok(Action::Done)
    }
}

/// The other CRDs of `crd`'s group, from the watch cache.
async fn siblings(
    ctx: &Context,
    entry: &ResourceEntry,
    crd: &CustomResourceDefinition,
) -> Result<Vec<CustomResourceDefinition>, Error> {
    let prefix = entry.collection_prefix(None);
    let cache = ctx.caches.get(&prefix, CACHE_TIMEOUT).await?;
    let suffix = format!(".{}", crd.spec.group);
    let own = format!("/{}", crd.metadata.name);
    let mut out = Vec::new();
    for kv in cache.list(&prefix).0 {
        let key = String::from_utf8_lossy(&kv.key);
        if !key.ends_with(&suffix) || key.ends_with(&own) {
            continue;
        }
        match entry.codec.decode_stored(&kv.value).await {
            Ok(obj) => out.push(typed(&obj)?),
            Err(e) => tracing::warn!(key = %key, error = %e, "unreadable CRD in storage"),
        }
    }
    Ok(out)
}
