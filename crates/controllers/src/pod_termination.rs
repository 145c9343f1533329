//! The end of a Pod's graceful deletion. A Pod deleted with a grace period stays, marked
//! with `deletionTimestamp` (when its grace ends) and `deletionGracePeriodSeconds`, until
//! something deletes it again with a grace period of 0 — on a cluster, the kubelet, once it
//! has stopped the Pod's containers. kapi runs no kubelet; this controller stands in for it
//! at the latest moment a kubelet would: when the grace period ends it deletes the Pod with
//! `gracePeriodSeconds: 0` (and the Pod's uid as precondition), so a controller under test
//! sees the Pod go as it would on a cluster, never stuck Terminating as under envtest.
//! Finalizers still hold the Pod after that, as upstream. Off with
//! `--controllers=*,-pod-termination-controller`.

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use kapi_registry::Error;
use kapi_registry::meta;
use kapi_registry::rest::options::DeleteOptions;
use kapi_registry::rest::{RestStore, WriteContext};
use kapi_storage::KeyValue;
use serde::Deserialize;
use std::time::Duration;

/// The controller's name.
pub const NAME: &str = "pod-termination-controller";
/// Its post-start hook.
pub const HOOK: &str = "start-pod-termination-controller";
/// Its lease when elected.
pub const LEASE: &str = "kapi-pod-termination";
/// The field manager of its writes.
pub const MANAGER: &str = "kubelet";

/// The metadata that says whether a stored Pod waits for its grace period.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Deleting {
    #[serde(default)]
    deletion_timestamp: Option<String>,
    #[serde(default)]
    deletion_grace_period_seconds: Option<i64>,
}

#[derive(Deserialize)]
struct Stored {
    #[serde(default)]
    metadata: Deleting,
}

/// Whether stored Pod bytes wait for a grace period to end.
fn grace_pending(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Stored>(bytes).is_ok_and(|s| {
        s.metadata.deletion_timestamp.is_some()
            && s.metadata
                .deletion_grace_period_seconds
                .is_some_and(|g| g > 0)
    })
}

/// How long until `deletion_timestamp` (RFC 3339); zero once it has passed.
fn until(deletion_timestamp: &str) -> Option<Duration> {
    let at = chrono::DateTime::parse_from_rfc3339(deletion_timestamp).ok()?;
    let left = at.signed_duration_since(chrono::Utc::now());
    Some(left.to_std().unwrap_or(Duration::ZERO))
}

/// Deletes Pods whose grace period has ended.
pub struct PodTermination;

#[async_trait::async_trait]
impl Reconciler for PodTermination {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hook(&self) -> &'static str {
        HOOK
    }

    fn description(&self) -> &'static str {
        "the end of Pods' grace periods"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(LEASE)
    }

    fn watched_prefix(&self, ctx: &Context) -> Option<String> {
        let table = ctx.registry.snapshot();
        table
            .get("", "v1", "pods")
            .map(|e| e.collection_prefix(None))
    }

    fn observe(
        &self,
        prefix: &str,
        storage_key: &[u8],
        current: Option<&KeyValue>,
        _previous: Option<&KeyValue>,
        _cache: &kapi_registry::cache::Cacher,
    ) -> Vec<String> {
        if !current.is_some_and(|kv| grace_pending(&kv.value)) {
            return Vec::new();
        }
        std::str::from_utf8(storage_key)
            .ok()
            .and_then(|k| k.strip_prefix(prefix))
            .map(|k| vec![k.to_owned()])
            .unwrap_or_default()
    }

    async fn reconcile(&self, ctx: &Context, key: &str) -> Result<Action, Error> {
        let Some((namespace, name)) = key.split_once('/') else {
            return Ok(Action::Done);
        };
        let table = ctx.registry.snapshot();
        let Some(entry) = table.get("", "v1", "pods") else {
            return Ok(Action::Done);
        };
        let rest = RestStore::new(ctx.store.as_ref(), &table, entry);
        let Some(pod) = rest.get(Some(namespace), name).await? else {
            return Ok(Action::Done);
        };
        let grace = meta::nested(&pod.object, &["metadata", "deletionGracePeriodSeconds"])
            .and_then(serde_json::Value::as_i64)
            .unwrap_or(0);
        let Some(left) = until(meta::meta_str(&pod.object, "deletionTimestamp")) else {
            return Ok(Action::Done);
        };
        if grace <= 0 {
            return Ok(Action::Done);
        }
        if !left.is_zero() {
            return Ok(Action::Requeue(left));
        }
        let w = WriteContext {
            namespace: Some(namespace.to_owned()),
            manager: MANAGER.to_owned(),
            ..WriteContext::default()
        };
        let opts = DeleteOptions {
            grace_period_seconds: Some(0),
            precondition_uid: Some(meta::meta_str(&pod.object, "uid").to_owned()),
            ..DeleteOptions::default()
        };
        match rest.delete(&w, name, &opts).await {
            // Gone meanwhile, or another Pod now has the name.
            Ok(_) | Err(Error::NotFound { .. }) | Err(Error::Conflict { .. }) => Ok(Action::Done),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pod_waits_for_its_grace_only_with_a_positive_period() {
        let waiting = br#"{"metadata":{"deletionTimestamp":"2026-01-01T00:00:30Z","deletionGracePeriodSeconds":30}}"#;
        let finalizing = br#"{"metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z","deletionGracePeriodSeconds":0}}"#;
        let live = br#"{"metadata":{"name":"p"}}"#;
        assert!(grace_pending(waiting));
        assert!(!grace_pending(finalizing));
        assert!(!grace_pending(live));
    }

    #[test]
    fn a_passed_deletion_timestamp_leaves_no_time() {
        assert_eq!(until("2020-01-01T00:00:00Z"), Some(Duration::ZERO));
        assert!(until("2999-01-01T00:00:00Z").is_some_and(|d| d > Duration::ZERO));
    }
}
