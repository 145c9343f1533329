//! Admission, plugged into every write the REST store makes for a request, in
//! kube-apiserver's plugin order: the built-in mutating plugins kapi runs
//! (StorageObjectInUseProtection, [`builtin`]), MutatingAdmissionPolicy,
//! MutatingAdmissionWebhook (with reinvocation), then, after schema validation, ValidatingAdmissionPolicy and
//! ValidatingAdmissionWebhook. What the plugins warn is collected per request and sent as
//! `Warning` headers.

pub mod answer;
pub mod builtin;
pub mod matching;
pub mod metrics;
pub mod mutating_policy;
pub mod policy;
pub mod review;
pub mod webhook;

use crate::authn::User;
use crate::state::ApiState;
use async_trait::async_trait;
use kapi_registry::entry::ResourceEntry;
use kapi_registry::rest::admission::{Admission, AdmissionRequest};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// The warnings admission gave one request, in order, each once.
#[derive(Debug, Default)]
pub struct Warnings(Mutex<Vec<String>>);

impl Warnings {
    /// A new, empty list.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Adds a warning, as upstream's recorder does: an empty one, or one with control
    /// characters (a header cannot carry them), is dropped; a repeated one is kept once.
    pub fn add(&self, text: &str) {
        if text.is_empty() || text.chars().any(char::is_control) {
            return;
        }
        if let Ok(mut list) = self.0.lock()
            && !list.iter().any(|w| w == text)
        {
            list.push(text.to_owned());
        }
    }

    /// The warnings to send: all of them while they total at most 4096 characters; past
    /// that each is cut to 256 and those beyond the total are left out (upstream's limits).
    pub fn list(&self) -> Vec<String> {
        const TOTAL: usize = 4096;
        const EACH: usize = 256;
        let all = self.0.lock().map(|l| l.clone()).unwrap_or_default();
        if all.iter().map(|w| w.chars().count()).sum::<usize>() <= TOTAL {
            return all;
        }
        let mut used = 0;
        let mut out = Vec::new();
        for w in all {
            if used >= TOTAL {
                break;
            }
            let cut: String = w.chars().take(EACH).collect();
            used += cut.chars().count();
            out.push(cut);
        }
        out
    }
}

/// The admission plugins of one request.
pub struct RequestAdmission {
    state: Arc<ApiState>,
    user: Option<User>,
    warnings: Arc<Warnings>,
}

impl RequestAdmission {
    /// Admission for a request of `user`, whose warnings go to `warnings`.
    pub fn new(state: Arc<ApiState>, user: Option<User>, warnings: Arc<Warnings>) -> Self {
        Self {
            state,
            user,
            warnings,
        }
    }

    fn webhooks(&self) -> webhook::WebhookAdmission<'_> {
        webhook::WebhookAdmission::new(&self.state, self.user.as_ref(), &self.warnings)
    }

    fn policies(&self) -> policy::PolicyAdmission<'_> {
        policy::PolicyAdmission::new(&self.state, self.user.as_ref(), &self.warnings)
    }

    fn mutating_policies(&self) -> mutating_policy::MutatingPolicyAdmission<'_> {
        mutating_policy::MutatingPolicyAdmission::new(&self.state, self.user.as_ref())
    }

    /// The entry of a write through a view subresource (`scale`), whose admission sees the
    /// view's kind (an autoscaling/v1 Scale) as upstream's does.
    fn view_entry(&self, r: &AdmissionRequest<'_>) -> Option<Arc<ResourceEntry>> {
        let sub = r.subresource?;
        let entry = self
            .state
            .registry
            .snapshot()
            .get(r.group, r.version, r.resource)
            .cloned()?;
        entry.strategy.has_view(sub).then_some(entry)
    }

    async fn mutate_object(
        &self,
        r: &AdmissionRequest<'_>,
        obj: &mut Value,
    ) -> kapi_registry::Result<()> {
        // Built-in mutating plugins first: kube-apiserver orders StorageObjectInUseProtection
        // before MutatingAdmissionPolicy and MutatingAdmissionWebhook, so policies and
        // webhooks see a new claim's finalizer, and all of them run before the store's
        // create strategy (a claim set Pending, `volume_status.rs`), as upstream's handler
        // admits before `registry.Store.Create` calls `PrepareForCreate`. Being a plugin of
        // the chain (not of the strategy) also lets `--disable-admission-plugins` turn it off.
        if self
            .state
            .admission_plugins
            .storage_object_in_use_protection
        {
            kapi_registry::builtin::storage_protection::admit(r, obj);
        }
        let policies = self.mutating_policies();
        let webhooks = self.webhooks();
        let policy_pass = policies.mutate(r, obj, None).await?;
        let webhook_pass = webhooks.mutate(r, obj, None).await?;
        // Reinvocation (upstream's `reinvocationPolicy: IfNeeded`): when a later plugin
        // changed the object, the IfNeeded policies and webhooks that ran before that change
        // run once more.
        if policy_pass.changed_after_reinvocable(obj) || webhook_pass.changed_after_reinvocable(obj)
        {
            policies.mutate(r, obj, Some(&policy_pass)).await?;
            webhooks.mutate(r, obj, Some(&webhook_pass)).await?;
        }
        Ok(())
    }

    async fn validate_object(
        &self,
        r: &AdmissionRequest<'_>,
        obj: &Value,
    ) -> kapi_registry::Result<()> {
        self.policies().validate(r, obj).await?;
        self.webhooks().validate(r, obj).await
    }
}

/// The view of `obj` through `sub`, as an error when the kind has none for it.
fn view_of(entry: &ResourceEntry, sub: &str, obj: &Value) -> kapi_registry::Result<Value> {
    entry
        .strategy
        .view(sub, obj)
        .ok_or_else(|| kapi_registry::Error::Internal(format!("no {sub} view of the object")))
}

#[async_trait]
impl Admission for RequestAdmission {
    async fn mutate(&self, r: &AdmissionRequest<'_>, obj: &mut Value) -> kapi_registry::Result<()> {
        let (Some(entry), Some(sub)) = (self.view_entry(r), r.subresource) else {
            return self.mutate_object(r, obj).await;
        };
        let mut view = view_of(&entry, sub, obj)?;
        let old = r.old.and_then(|o| entry.strategy.view(sub, o));
        let kind = view["kind"].as_str().unwrap_or("").to_owned();
        let as_view = AdmissionRequest {
            kind: &kind,
            old: old.as_ref(),
            ..*r
        };
        self.mutate_object(&as_view, &mut view).await?;
        entry
            .strategy
            .apply_view(sub, obj, &view)
            .map_err(|causes| kapi_registry::Error::invalid("autoscaling", &kind, r.name, causes))
    }

    async fn mutate_delete(&self, r: &AdmissionRequest<'_>) -> kapi_registry::Result<()> {
        // Mutating policies cannot select a DELETE (their validation refuses it); mutating
        // webhooks can, and are called with the object going as oldObject.
        self.webhooks().mutate_delete(r).await
    }

    async fn validate(&self, r: &AdmissionRequest<'_>, obj: &Value) -> kapi_registry::Result<()> {
        let (Some(entry), Some(sub)) = (self.view_entry(r), r.subresource) else {
            return self.validate_object(r, obj).await;
        };
        let view = view_of(&entry, sub, obj)?;
        let old = r.old.and_then(|o| entry.strategy.view(sub, o));
        let kind = view["kind"].as_str().unwrap_or("").to_owned();
        let as_view = AdmissionRequest {
            kind: &kind,
            old: old.as_ref(),
            ..*r
        };
        self.validate_object(&as_view, &view).await
    }
}

/// What one mutating pass did: for each plugin that may be reinvoked, the object as it
/// left it.
#[derive(Debug, Default)]
pub struct MutationPass {
    /// The IfNeeded plugins called, by name, with the object after their call.
    pub reinvocable: Vec<(String, Value)>,
}

impl MutationPass {
    /// Whether the object changed after one of the reinvocable plugins ran.
    pub fn changed_after_reinvocable(&self, now: &Value) -> bool {
        self.reinvocable.iter().any(|(_, after)| after != now)
    }

    /// Whether `name` is to run again in the reinvocation pass.
    pub fn reinvoke(&self, name: &str, now: &Value) -> bool {
        self.reinvocable
            .iter()
            .any(|(n, after)| n == name && after != now)
    }
}

/// A refusal as upstream's admission plugins word it (`admission.NewForbidden`,
/// `ToStatusErr`): `<resource> "<name>" is forbidden: <why>` (for a 500, `Internal error
/// occurred: <why>`), with `code` and `reason` (Forbidden, or InternalError for a 500, when
/// none is given), details naming the object, and `why` as the one cause when `with_cause`.
pub fn refusal(
    r: &AdmissionRequest<'_>,
    name: &str,
    code: u16,
    reason: &str,
    why: &str,
    with_cause: bool,
) -> kapi_registry::Error {
    use kapi_registry::error::{StatusCause, StatusDetails, qualified_resource};
    let name = if name.is_empty() { "Unknown" } else { name };
    let internal = code == 500;
    let message = if internal {
        format!("Internal error occurred: {why}")
    } else {
        format!(
            "{} {name:?} is forbidden: {why}",
            qualified_resource(r.group, r.resource)
        )
    };
    let reason = match (reason.is_empty(), internal) {
        (false, _) => reason.to_owned(),
        (true, true) => "InternalError".to_owned(),
        (true, false) => "Forbidden".to_owned(),
    };
    let causes = if with_cause || internal {
        vec![StatusCause {
            reason: String::new(),
            message: if internal {
                message.clone()
            } else {
                why.to_owned()
            },
            field: String::new(),
        }]
    } else {
        Vec::new()
    };
    let details = if internal {
        StatusDetails {
            causes,
            ..StatusDetails::default()
        }
    } else {
        StatusDetails {
            name: name.to_owned(),
            group: r.group.to_owned(),
            kind: r.resource.to_owned(),
            causes,
            ..StatusDetails::default()
        }
    };
    kapi_registry::Error::Status {
        code,
        reason,
        message,
        details: Some(Box::new(details)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_kept_once_and_control_characters_drop_them() {
        let w = Warnings::new();
        w.add("replicas above 5");
        w.add("replicas above 5");
        w.add("two\nlines");
        w.add("");
        assert_eq!(w.list(), vec!["replicas above 5".to_owned()]);
    }

    #[test]
    fn warnings_past_the_total_are_cut_and_dropped() {
        let w = Warnings::new();
        for i in 0..40 {
            w.add(&format!("{i:03}{}", "x".repeat(497)));
        }
        let sent = w.list();
        assert!(sent.iter().all(|s| s.chars().count() == 256));
        assert_eq!(sent.len(), 16);
    }
}
