//! kube-controller-manager's `validatingadmissionpolicy-status-controller`: when a
//! ValidatingAdmissionPolicy's `generation` is newer than its `status.observedGeneration`,
//! its expressions are type-checked ([`crate::policy_type_check`]) and the result written
//! to `status.typeChecking` with the generation observed, through the `status`
//! subresource.

use crate::context::Context;
use crate::policy_type_check::type_checking;
use crate::runtime::{Action, Reconciler};
use kapi_registry::Error;
use kapi_registry::cache::Cacher;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use kapi_storage::KeyValue;
use serde_json::Value;
use std::sync::Arc;

/// The controller's name (kube-controller-manager's).
pub const NAME: &str = "validatingadmissionpolicy-status-controller";
/// Its post-start hook.
pub const HOOK: &str = "start-validatingadmissionpolicy-status-controller";
/// Its lease when elected.
pub const LEASE: &str = "kapi-validatingadmissionpolicy-status";

fn policies_entry(ctx: &Context) -> Option<Arc<kapi_registry::entry::ResourceEntry>> {
    ctx.registry
        .snapshot()
        .get(
            "admissionregistration.k8s.io",
            "v1",
            "validatingadmissionpolicies",
        )
        .cloned()
}

/// Whether the policy's status is behind its spec.
fn stale(policy: &Value) -> bool {
    let generation = policy["metadata"]["generation"].as_i64().unwrap_or(0);
    let observed = policy["status"]["observedGeneration"].as_i64().unwrap_or(0);
    generation > observed
}

/// Type-checks ValidatingAdmissionPolicies into their status.
pub struct PolicyStatusController;

#[async_trait::async_trait]
impl Reconciler for PolicyStatusController {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hook(&self) -> &'static str {
        HOOK
    }

    fn description(&self) -> &'static str {
        "validating admission policy status"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(LEASE)
    }

    fn watched_prefix(&self, ctx: &Context) -> Option<String> {
        policies_entry(ctx).map(|e| e.collection_prefix(None))
    }

    fn observe(
        &self,
        _prefix: &str,
        _storage_key: &[u8],
        current: Option<&KeyValue>,
        _previous: Option<&KeyValue>,
        _cache: &Cacher,
    ) -> Vec<String> {
        current
            .and_then(|kv| serde_json::from_slice::<Value>(&kv.value).ok())
            .filter(stale)
            .and_then(|p| p["metadata"]["name"].as_str().map(str::to_owned))
            .into_iter()
            .collect()
    }

    async fn reconcile(&self, ctx: &Context, name: &str) -> Result<Action, Error> {
        let Some(entry) = policies_entry(ctx) else {
            return Ok(Action::Done);
        };
        let table = ctx.registry.snapshot();
        let rest = RestStore::new(ctx.store.as_ref(), &table, &entry);
        let Some(policy) = rest.get(None, name).await? else {
            return Ok(Action::Done);
        };
        if !stale(&policy.object) {
            return Ok(Action::Done);
        }
        let generation = policy.object["metadata"]["generation"].clone();
        let checked = type_checking(&policy.object, &table);
        let w = WriteContext {
            manager: NAME.to_owned(),
            subresource: Some("status".to_owned()),
            ..WriteContext::default()
        };
        let mut update = UpdateFn::new(move |current: Option<&Value>| {
            let mut out = current.cloned().unwrap_or_default();
            // Only the generation that was checked is recorded as observed.
            if out["metadata"]["generation"] == generation {
                out["status"]["observedGeneration"] = generation.clone();
                out["status"]["typeChecking"] = checked.clone();
            }
            Ok(out)
        });
        match rest.update(&w, name, &mut update).await {
            Ok(_) | Err(Error::NotFound { .. }) => Ok(Action::Done),
            Err(e) => Err(e),
        }
    }
}
