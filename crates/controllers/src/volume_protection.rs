//! kube-controller-manager's storage-object-in-use protection (pkg/controller/volume/
//! pvcprotection, pvprotection). kube-apiserver's StorageObjectInUseProtection admission
//! (`kapi_registry::builtin::storage_protection`) gives every new PersistentVolumeClaim the
//! finalizer `kubernetes.io/pvc-protection` and every PersistentVolume
//! `kubernetes.io/pv-protection`, so a delete only marks them; these two controllers take the
//! finalizer away once nothing needs the object:
//!
//! - `persistentvolumeclaim-protection-controller`: a claim being deleted loses its
//!   finalizer once no Pod of its namespace uses it. A Pod uses a claim, as upstream's
//!   `podUsesPVC` judges, when it is scheduled (`spec.nodeName`; the kubelet and scheduler
//!   refuse a claim being deleted to a Pod not yet on a node) and one of its volumes is
//!   `persistentVolumeClaim.claimName: <claim>` — whatever the Pod's phase: a Succeeded or
//!   Failed Pod keeps holding it until it is deleted, as upstream's still does — or a generic
//!   ephemeral volume whose claim `<pod name>-<volume name>` the Pod controls, unless the Pod
//!   is shut down (deleted with grace period 0). The Pods are listed live from the store, as
//!   upstream's controller confirms with a live list what its cache says.
//!   A Pod deleted, finished, shut down or not scheduled has its claims looked at again.
//! - `persistentvolume-protection-controller`: a volume being deleted loses its finalizer
//!   once its `status.phase` is not `Bound`.
//!
//! Both also give the finalizer to a claim or volume that is not being deleted and lacks it
//! (one stored before the plugin ran, or created with it disabled), as upstream's do. The
//! finalizer is removed (or added) through the REST store with the resourceVersion read, as
//! field manager `kube-controller-manager` (what kube-apiserver records for upstream's
//! controllers: the first segment of their user agent); a lost race is read and judged again.
//! envtest runs neither controller, so a deleted claim there stays Terminating forever.

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use kapi_registry::Error;
use kapi_registry::builtin::storage_protection::{
    PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER,
};
use kapi_registry::entry::ResourceEntry;
use kapi_registry::meta;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use kapi_storage::KeyValue;
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// The claim controller's name (kube-controller-manager's).
pub const PVC_NAME: &str = "persistentvolumeclaim-protection-controller";
/// Its post-start hook.
pub const PVC_HOOK: &str = "start-persistentvolumeclaim-protection-controller";
/// Its lease when elected.
pub const PVC_LEASE: &str = "kapi-pvc-protection";

/// The volume controller's name (kube-controller-manager's).
pub const PV_NAME: &str = "persistentvolume-protection-controller";
/// Its post-start hook.
pub const PV_HOOK: &str = "start-persistentvolume-protection-controller";
/// Its lease when elected.
pub const PV_LEASE: &str = "kapi-pv-protection";

/// The field manager of both controllers' writes.
pub const MANAGER: &str = "kube-controller-manager";

/// The metadata the controllers read of claims, volumes and Pods.
#[derive(Deserialize, Default, Debug)]
#[serde(rename_all = "camelCase", default)]
struct Metadata {
    name: String,
    uid: String,
    deletion_timestamp: Option<String>,
    deletion_grace_period_seconds: Option<i64>,
    finalizers: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Protected {
    metadata: Metadata,
}

/// Whether a stored claim or volume asks for the controller: it lacks `finalizer` and is
/// not being deleted (upstream's `NeedToAddFinalizer`), or it is being deleted and has it
/// (`IsDeletionCandidate`).
fn needs_work(bytes: &[u8], finalizer: &str) -> bool {
    serde_json::from_slice::<Protected>(bytes).is_ok_and(|p| {
        let has = p.metadata.finalizers.iter().any(|f| f == finalizer);
        p.metadata.deletion_timestamp.is_some() == has
    })
}

fn deleting(obj: &Value) -> bool {
    !meta::meta_str(obj, "deletionTimestamp").is_empty()
}

/// A Pod as far as claims go.
#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct PodClaims {
    metadata: Metadata,
    spec: PodSpec,
    status: PodStatus,
}

#[derive(Deserialize, Default, Debug)]
#[serde(rename_all = "camelCase", default)]
struct PodSpec {
    node_name: String,
    volumes: Vec<PodVolume>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(rename_all = "camelCase", default)]
struct PodVolume {
    name: String,
    persistent_volume_claim: Option<ClaimSource>,
    ephemeral: Option<Value>,
}

#[derive(Deserialize, Default, Debug)]
#[serde(rename_all = "camelCase", default)]
struct ClaimSource {
    claim_name: String,
}

#[derive(Deserialize, Default, Debug)]
#[serde(default)]
struct PodStatus {
    phase: String,
}

impl PodClaims {
    fn parse(bytes: &[u8]) -> Option<Self> {
        serde_json::from_slice(bytes).ok()
    }

    /// The claim of a generic ephemeral volume (`ephemeral.VolumeClaimName`).
    fn ephemeral_claim(&self, volume: &PodVolume) -> String {
        format!("{}-{}", self.metadata.name, volume.name)
    }

    /// The names of every claim the Pod's volumes name.
    fn claims(&self) -> Vec<String> {
        self.spec
            .volumes
            .iter()
            .filter_map(|v| match (&v.persistent_volume_claim, &v.ephemeral) {
                (Some(c), _) => Some(c.claim_name.clone()),
                (None, Some(_)) => Some(self.ephemeral_claim(v)),
                (None, None) => None,
            })
            .collect()
    }

    fn scheduled(&self) -> bool {
        !self.spec.node_name.is_empty()
    }

    /// Succeeded or Failed (`IsPodTerminated`).
    fn terminated(&self) -> bool {
        matches!(self.status.phase.as_str(), "Succeeded" | "Failed")
    }

    /// Deleted with grace period 0: the kubelet is done with it, or it was force-deleted
    /// (upstream's `podIsShutDown`).
    fn shut_down(&self) -> bool {
        self.metadata.deletion_timestamp.is_some()
            && self.metadata.deletion_grace_period_seconds == Some(0)
    }

    /// Whether this Pod keeps `claim` (its name, and the uid of its controller owner)
    /// from going (upstream's `podUsesPVC`).
    fn uses(&self, claim: &str, claim_controller: Option<&str>) -> bool {
        self.scheduled()
            && self.spec.volumes.iter().any(|v| {
                v.persistent_volume_claim
                    .as_ref()
                    .is_some_and(|c| c.claim_name == claim)
                    || (v.ephemeral.is_some()
                        && !self.shut_down()
                        && self.ephemeral_claim(v) == claim
                        && claim_controller == Some(self.metadata.uid.as_str()))
            })
    }

    /// Whether a change to this Pod may free its claims (upstream's `enqueuePVCs` filter:
    /// deleted, finished or unscheduled; shut down too).
    fn may_free_claims(&self) -> bool {
        self.terminated() || !self.scheduled() || self.shut_down()
    }
}

/// The uid of an object's controller owner reference.
fn controller_uid(obj: &Value) -> Option<&str> {
    meta::nested(obj, &["metadata", "ownerReferences"])
        .and_then(Value::as_array)?
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
        .and_then(|r| r.get("uid"))
        .and_then(Value::as_str)
}

/// The part of a storage key after `prefix`.
fn key_after<'k>(prefix: &str, storage_key: &'k [u8]) -> Option<&'k str> {
    std::str::from_utf8(storage_key).ok()?.strip_prefix(prefix)
}

/// The claim keys (`<namespace>/<claim>`) a change of the Pod at `key` (`<namespace>/<name>`)
/// asks to look at again: those of a Pod deleted, or now finished, unscheduled or shut down,
/// and those of a Pod replaced by another of its name.
fn pod_change_keys(key: &str, current: Option<&[u8]>, previous: Option<&[u8]>) -> Vec<String> {
    let Some((namespace, _)) = key.split_once('/') else {
        return Vec::new();
    };
    let now = current.and_then(PodClaims::parse);
    let before = previous.and_then(PodClaims::parse);
    let mut claims = Vec::new();
    match (&now, &before) {
        (Some(pod), _) if pod.may_free_claims() => claims.extend(pod.claims()),
        (None, Some(gone)) => claims.extend(gone.claims()),
        _ => {}
    }
    // A Pod deleted and made again under its name between two events: the one gone may
    // have held claims the new one does not name.
    if let (Some(pod), Some(old)) = (&now, &before)
        && pod.metadata.uid != old.metadata.uid
    {
        claims.extend(old.claims());
    }
    claims.sort();
    claims.dedup();
    claims
        .into_iter()
        .map(|c| format!("{namespace}/{c}"))
        .collect()
}

/// Adds or removes `finalizer` on the object as read (its resourceVersion a precondition).
async fn write_finalizer(
    rest: &RestStore<'_>,
    namespace: Option<&str>,
    read: &Value,
    finalizer: &str,
    add: bool,
) -> Result<Action, Error> {
    let name = meta::name(read).to_owned();
    let mut changed = read.clone();
    if add {
        meta::add_finalizer(&mut changed, finalizer);
    } else {
        meta::remove_finalizer(&mut changed, finalizer);
    }
    let w = WriteContext {
        namespace: namespace.map(str::to_owned),
        manager: MANAGER.to_owned(),
        ..WriteContext::default()
    };
    let mut info = UpdateFn::new(move |_current: Option<&Value>| Ok(changed.clone()));
    match rest.update(&w, &name, &mut info).await {
        Ok(_) => {
            tracing::info!(
                resource = rest.entry.names.plural.as_str(),
                namespace = namespace.unwrap_or(""),
                name = name.as_str(),
                finalizer,
                added = add,
                "protection finalizer written"
            );
            Ok(Action::Done)
        }
        Err(Error::NotFound { .. }) => Ok(Action::Done),
        // Changed since it was read: read it and judge again.
        Err(Error::Conflict { .. }) => Ok(Action::Requeue(Duration::ZERO)),
        Err(e) => Err(e),
    }
}

fn entry(ctx: &Context, resource: &str) -> Option<std::sync::Arc<ResourceEntry>> {
    ctx.registry.snapshot().get("", "v1", resource).cloned()
}

/// Removes `kubernetes.io/pvc-protection` from claims being deleted that no Pod uses.
pub struct PvcProtection;

impl PvcProtection {
    /// The name of a Pod of `namespace` that uses `claim`, read live from the store.
    async fn user(
        &self,
        ctx: &Context,
        pods: &ResourceEntry,
        namespace: &str,
        claim: &Value,
    ) -> Result<Option<String>, Error> {
        let prefix = pods.collection_prefix(Some(namespace));
        let listed = ctx
            .store
            .range(kapi_storage::RangeRequest::prefix(prefix.as_bytes()))
            .await?;
        let name = meta::name(claim);
        let owner = controller_uid(claim);
        for kv in &listed.kvs {
            match PodClaims::parse(&kv.value) {
                Some(pod) if pod.uses(name, owner) => return Ok(Some(pod.metadata.name)),
                Some(_) => {}
                // A Pod this controller cannot read might use the claim: keep the finalizer
                // (fail closed) rather than let the claim go while in use.
                None => {
                    let key = String::from_utf8_lossy(&kv.key).into_owned();
                    tracing::warn!(%key, "unreadable Pod counted as using the claim");
                    return Ok(Some(key.rsplit('/').next().unwrap_or_default().to_owned()));
                }
            }
        }
        Ok(None)
    }
}

#[async_trait::async_trait]
impl Reconciler for PvcProtection {
    fn name(&self) -> &'static str {
        PVC_NAME
    }

    fn hook(&self) -> &'static str {
        PVC_HOOK
    }

    fn description(&self) -> &'static str {
        "the protection of claims in use"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(PVC_LEASE)
    }

    fn watched_prefixes(&self, ctx: &Context) -> Vec<String> {
        [entry(ctx, "persistentvolumeclaims"), entry(ctx, "pods")]
            .into_iter()
            .flatten()
            .map(|e| e.collection_prefix(None))
            .collect()
    }

    fn observe(
        &self,
        prefix: &str,
        storage_key: &[u8],
        current: Option<&KeyValue>,
        previous: Option<&KeyValue>,
        _cache: &kapi_registry::cache::Cacher,
    ) -> Vec<String> {
        let Some(key) = key_after(prefix, storage_key) else {
            return Vec::new();
        };
        if !prefix.ends_with("/pods/") {
            // A claim, `<namespace>/<name>`.
            return match current {
                Some(kv) if needs_work(&kv.value, PVC_PROTECTION_FINALIZER) => {
                    vec![key.to_owned()]
                }
                _ => Vec::new(),
            };
        }
        pod_change_keys(
            key,
            current.map(|kv| kv.value.as_slice()),
            previous.map(|kv| kv.value.as_slice()),
        )
    }

    async fn reconcile(&self, ctx: &Context, key: &str) -> Result<Action, Error> {
        let Some((namespace, name)) = key.split_once('/') else {
            return Ok(Action::Done);
        };
        let table = ctx.registry.snapshot();
        let (Some(claims), Some(pods)) = (
            table.get("", "v1", "persistentvolumeclaims"),
            table.get("", "v1", "pods"),
        ) else {
            return Ok(Action::Done);
        };
        let rest = RestStore::new(ctx.store.as_ref(), &table, claims);
        let Some(claim) = rest.get(Some(namespace), name).await? else {
            return Ok(Action::Done);
        };
        let claim = claim.object;
        let has = meta::has_finalizer(&claim, PVC_PROTECTION_FINALIZER);
        if deleting(&claim) && has {
            if let Some(pod) = self.user(ctx, pods, namespace, &claim).await? {
                tracing::debug!(namespace, claim = name, pod, "keeping a claim a Pod uses");
                return Ok(Action::Done);
            }
            return write_finalizer(
                &rest,
                Some(namespace),
                &claim,
                PVC_PROTECTION_FINALIZER,
                false,
            )
            .await;
        }
        if !deleting(&claim) && !has {
            return write_finalizer(
                &rest,
                Some(namespace),
                &claim,
                PVC_PROTECTION_FINALIZER,
                true,
            )
            .await;
        }
        Ok(Action::Done)
    }
}

/// Removes `kubernetes.io/pv-protection` from volumes being deleted that are not Bound.
pub struct PvProtection;

/// Whether a volume is in use: Bound (upstream's `isBeingUsed`).
fn bound(volume: &Value) -> bool {
    meta::nested(volume, &["status", "phase"]).and_then(Value::as_str) == Some("Bound")
}

#[async_trait::async_trait]
impl Reconciler for PvProtection {
    fn name(&self) -> &'static str {
        PV_NAME
    }

    fn hook(&self) -> &'static str {
        PV_HOOK
    }

    fn description(&self) -> &'static str {
        "the protection of bound volumes"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(PV_LEASE)
    }

    fn watched_prefix(&self, ctx: &Context) -> Option<String> {
        entry(ctx, "persistentvolumes").map(|e| e.collection_prefix(None))
    }

    fn observe(
        &self,
        prefix: &str,
        storage_key: &[u8],
        current: Option<&KeyValue>,
        _previous: Option<&KeyValue>,
        _cache: &kapi_registry::cache::Cacher,
    ) -> Vec<String> {
        match (key_after(prefix, storage_key), current) {
            (Some(name), Some(kv)) if needs_work(&kv.value, PV_PROTECTION_FINALIZER) => {
                vec![name.to_owned()]
            }
            _ => Vec::new(),
        }
    }

    async fn reconcile(&self, ctx: &Context, name: &str) -> Result<Action, Error> {
        let table = ctx.registry.snapshot();
        let Some(volumes) = table.get("", "v1", "persistentvolumes") else {
            return Ok(Action::Done);
        };
        let rest = RestStore::new(ctx.store.as_ref(), &table, volumes);
        let Some(volume) = rest.get(None, name).await? else {
            return Ok(Action::Done);
        };
        let volume = volume.object;
        let has = meta::has_finalizer(&volume, PV_PROTECTION_FINALIZER);
        if deleting(&volume) && has {
            if bound(&volume) {
                tracing::debug!(volume = name, "keeping a Bound volume");
                return Ok(Action::Done);
            }
            return write_finalizer(&rest, None, &volume, PV_PROTECTION_FINALIZER, false).await;
        }
        if !deleting(&volume) && !has {
            return write_finalizer(&rest, None, &volume, PV_PROTECTION_FINALIZER, true).await;
        }
        Ok(Action::Done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(value: Value) -> PodClaims {
        serde_json::from_value(value).expect("a pod")
    }

    fn running_pod_with_claim(claim: &str) -> PodClaims {
        pod(json!({
            "metadata": {"name": "p", "uid": "pod-uid"},
            "spec": {"nodeName": "n", "volumes": [
                {"name": "data", "persistentVolumeClaim": {"claimName": claim}},
                {"name": "cfg", "configMap": {"name": "c"}},
            ]},
            "status": {"phase": "Running"},
        }))
    }

    fn ephemeral_pod(extra_meta: Value) -> PodClaims {
        let mut metadata = json!({"name": "p", "uid": "pod-uid"});
        if let (Some(m), Some(extra)) = (metadata.as_object_mut(), extra_meta.as_object()) {
            m.extend(extra.clone());
        }
        pod(json!({
            "metadata": metadata,
            "spec": {"nodeName": "n", "volumes": [
                {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
            ]},
        }))
    }

    #[test]
    fn a_claim_not_deleted_without_the_finalizer_or_deleted_with_it_needs_work() {
        let f = PVC_PROTECTION_FINALIZER;
        let missing = br#"{"metadata":{"name":"c"}}"#;
        let protected =
            br#"{"metadata":{"name":"c","finalizers":["kubernetes.io/pvc-protection"]}}"#;
        let deleted = br#"{"metadata":{"name":"c","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["kubernetes.io/pvc-protection"]}}"#;
        let released = br#"{"metadata":{"name":"c","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["x"]}}"#;
        assert!(needs_work(missing, f));
        assert!(!needs_work(protected, f));
        assert!(needs_work(deleted, f));
        assert!(!needs_work(released, f));
    }

    #[test]
    fn a_scheduled_pod_naming_the_claim_uses_it() {
        let p = running_pod_with_claim("data");
        assert!(p.uses("data", None));
        assert!(!p.uses("other", None));
    }

    #[test]
    fn an_unscheduled_pod_uses_no_claim() {
        let mut p = running_pod_with_claim("data");
        p.spec.node_name.clear();
        assert!(!p.uses("data", None));
        assert!(p.may_free_claims());
    }

    #[test]
    fn a_finished_pod_still_uses_its_claim_until_it_is_deleted() {
        let mut p = running_pod_with_claim("data");
        p.status.phase = "Succeeded".into();
        assert!(p.uses("data", None));
        assert!(p.may_free_claims());
    }

    #[test]
    fn a_pod_uses_the_ephemeral_claim_it_controls_until_it_is_shut_down() {
        let p = ephemeral_pod(json!({}));
        assert_eq!(p.claims(), ["p-scratch"]);
        assert!(p.uses("p-scratch", Some("pod-uid")));
        assert!(!p.uses("p-scratch", Some("another-pod")));
        assert!(!p.uses("p-scratch", None));
        let gone = ephemeral_pod(json!({
            "deletionTimestamp": "2026-01-01T00:00:00Z",
            "deletionGracePeriodSeconds": 0,
        }));
        assert!(gone.shut_down());
        assert!(!gone.uses("p-scratch", Some("pod-uid")));
        let graceful = ephemeral_pod(json!({
            "deletionTimestamp": "2026-01-01T00:00:30Z",
            "deletionGracePeriodSeconds": 30,
        }));
        assert!(graceful.uses("p-scratch", Some("pod-uid")));
    }

    #[test]
    fn a_running_scheduled_pod_frees_no_claims() {
        assert!(!running_pod_with_claim("data").may_free_claims());
    }

    #[test]
    fn the_controller_owner_of_a_claim_is_the_reference_marked_controller() {
        let claim = json!({"metadata": {"ownerReferences": [
            {"uid": "a", "controller": false},
            {"uid": "b", "controller": true},
        ]}});
        assert_eq!(controller_uid(&claim), Some("b"));
        assert_eq!(controller_uid(&json!({"metadata": {}})), None);
    }

    #[test]
    fn a_volume_is_used_only_while_bound() {
        assert!(bound(&json!({"status": {"phase": "Bound"}})));
        assert!(!bound(&json!({"status": {"phase": "Released"}})));
        assert!(!bound(&json!({})));
    }

    #[test]
    fn a_deleted_pod_queues_the_claims_it_named() {
        let before = serde_json::to_vec(&json!({
            "metadata": {"name": "p", "uid": "u"},
            "spec": {"nodeName": "n", "volumes": [
                {"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "e", "ephemeral": {}},
            ]},
        }))
        .expect("json");
        let keys = pod_change_keys("ns/p", None, Some(&before));
        assert_eq!(keys, ["ns/data", "ns/p-e"]);
        let running = pod_change_keys("ns/p", Some(&before), None);
        assert!(running.is_empty(), "{running:?}");
    }

    #[test]
    fn a_pod_replaced_under_its_name_queues_the_claims_of_the_one_gone() {
        let old = br#"{"metadata":{"name":"p","uid":"1"},"spec":{"nodeName":"n","volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"old"}}]}}"#;
        let new = br#"{"metadata":{"name":"p","uid":"2"},"spec":{"nodeName":"n","volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"new"}}]}}"#;
        assert_eq!(pod_change_keys("ns/p", Some(new), Some(old)), ["ns/old"]);
    }

    #[test]
    fn a_finished_pod_queues_its_claims() {
        let done = br#"{"metadata":{"name":"p","uid":"1"},"spec":{"nodeName":"n","volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"data"}}]},"status":{"phase":"Failed"}}"#;
        assert_eq!(pod_change_keys("ns/p", Some(done), None), ["ns/data"]);
    }
}
