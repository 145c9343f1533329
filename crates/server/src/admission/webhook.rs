//! Admission webhooks (kube-apiserver's MutatingAdmissionWebhook and
//! ValidatingAdmissionWebhook plugins): the MutatingWebhookConfigurations' webhooks are
//! called in order (configurations by name) and their JSONPatch answers applied before the
//! object is validated; the ValidatingWebhookConfigurations' webhooks are called in parallel
//! with the validated object (or, for a delete, the object being deleted).
//!
//! A webhook is called when one of its rules matches (operations, API groups, versions,
//! resources with upstream's `*`, `*/*`, `r/*` and `*/sub` forms, scope) — or, under
//! `matchPolicy: Equivalent` (the default), when a rule matches another version of the same
//! resource, which it then receives the object converted to —, its `namespaceSelector` and
//! `objectSelector` select the request and all its `matchConditions` (CEL) hold.
//! AdmissionReview `v1` (or `v1beta1` when that is all it speaks), with the requesting
//! user; `timeoutSeconds` (default 10); a call that fails is skipped under
//! `failurePolicy: Ignore` and refuses the request otherwise (500, upstream's words); a
//! denial is the client's error with the webhook's code and message; `warnings` go to the
//! response's `Warning` headers. Under dryRun a webhook whose `sideEffects` are not
//! `None`/`NoneOnDryRun` refuses the request (400). Webhooks are not called for the six
//! admissionregistration kinds ([`matching::exempt`]), as upstream.

use super::answer;
use super::metrics::{AdmissionMetrics, WebhookCall};
use super::review::{SeenAs, cel_variables, request_json};
use super::{MutationPass, Warnings, matching};
use crate::authn::User;
use crate::handlers::string_list;
use crate::state::ApiState;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use kapi_apiextensions::webhook::{ServiceTarget, WebhookTarget};
use kapi_registry::Error;
use kapi_registry::entry::ResourceEntry;
use kapi_registry::rest::admission::{AdmissionRequest, Operation};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

const GROUP: &str = "admissionregistration.k8s.io";
const MUTATING: &str = "mutatingwebhookconfigurations";
const VALIDATING: &str = "validatingwebhookconfigurations";
/// How long the first admission may wait for the configurations' caches to load.
pub(crate) const LOAD: Duration = Duration::from_secs(5);
/// The largest webhook response read (upstream's limit on an AdmissionReview response).
const MAX_RESPONSE: usize = 3 * 1024 * 1024;

/// The webhooks of the server, for one request.
pub struct WebhookAdmission<'a> {
    state: &'a ApiState,
    user: Option<&'a User>,
    warnings: &'a Warnings,
}

/// One webhook of a configuration.
struct Hook {
    name: String,
    /// `validating` or `admit`, as upstream's metrics label the two kinds.
    kind: &'static str,
    spec: Value,
}

/// A webhook that applies to a request, and how it sees it.
struct Matched {
    hook: Hook,
    seen: SeenAs,
    /// The entry of the version the webhook sees, when not the request's own.
    convert_to: Option<Arc<ResourceEntry>>,
}

impl Hook {
    fn fails_closed(&self) -> bool {
        self.spec["failurePolicy"].as_str() != Some("Ignore")
    }

    fn timeout(&self) -> Duration {
        let secs = self.spec["timeoutSeconds"]
            .as_u64()
            .unwrap_or(10)
            .clamp(1, 30);
        Duration::from_secs(secs)
    }

    fn safe_on_dry_run(&self) -> bool {
        matches!(
            self.spec["sideEffects"].as_str(),
            Some("None") | Some("NoneOnDryRun")
        )
    }

    fn reinvocable(&self) -> bool {
        self.spec["reinvocationPolicy"].as_str() == Some("IfNeeded")
    }

    fn equivalent_allowed(&self) -> bool {
        self.spec["matchPolicy"].as_str() != Some("Exact")
    }
}

/// A call's failure: why, and the metrics' error type.
struct CallError {
    message: String,
    /// `calling_webhook_error` (the failure policy decides) or `apiserver_internal_error`
    /// (the request is refused whatever the policy), upstream's labels.
    error_type: &'static str,
}

impl CallError {
    fn calling(message: String) -> Self {
        Self {
            message,
            error_type: "calling_webhook_error",
        }
    }

    fn internal(message: String) -> Self {
        Self {
            message,
            error_type: "apiserver_internal_error",
        }
    }

    fn invalid(reason: String) -> Self {
        Self::calling(format!("received invalid webhook response: {reason}"))
    }
}

/// A webhook's checked answer: its `response`, and the non-empty JSON patch of a mutating
/// webhook that allowed the request.
struct Answer {
    response: Value,
    patch: Option<json_patch::Patch>,
}

impl<'a> WebhookAdmission<'a> {
    /// The webhooks for one request of `user`, warning into `warnings`.
    pub fn new(state: &'a ApiState, user: Option<&'a User>, warnings: &'a Warnings) -> Self {
        Self {
            state,
            user,
            warnings,
        }
    }

    fn metrics(&self) -> &AdmissionMetrics {
        &self.state.admission_metrics
    }

    /// The webhooks of the configurations of `resource`, configurations by name.
    async fn hooks(&self, resource: &str) -> Result<Vec<Hook>, Error> {
        let kind = if resource == MUTATING {
            "admit"
        } else {
            "validating"
        };
        let configs = load_sorted(self.state, resource).await?;
        Ok(configs
            .iter()
            .flat_map(|c| c["webhooks"].as_array().cloned().unwrap_or_default())
            .map(|spec| Hook {
                name: spec["name"].as_str().unwrap_or("").to_owned(),
                kind,
                spec,
            })
            .collect())
    }

    /// How `hook` sees the request, if one of its rules names it: as requested, or as an
    /// equivalent version of the same resource (same storage) under `matchPolicy: Equivalent`.
    fn seen_as(
        &self,
        hook: &Hook,
        r: &AdmissionRequest<'_>,
    ) -> Option<(SeenAs, Option<Arc<ResourceEntry>>)> {
        let rules = &hook.spec["rules"];
        if matching::any_rule_matches(rules, r) {
            return Some((SeenAs::requested(r), None));
        }
        if !hook.equivalent_allowed() {
            return None;
        }
        let table = self.state.registry.snapshot();
        let own = table.get(r.group, r.version, r.resource)?;
        let mut others: Vec<&Arc<ResourceEntry>> = table
            .same_storage(&own.storage_prefix)
            .into_iter()
            .filter(|e| !(e.group == own.group && e.version == own.version))
            .collect();
        others.sort_by_key(|e| std::cmp::Reverse(e.version_priority));
        others.into_iter().find_map(|e| {
            let as_other = AdmissionRequest {
                group: &e.group,
                version: &e.version,
                resource: &e.names.plural,
                kind: &e.names.kind,
                ..*r
            };
            matching::any_rule_matches(rules, &as_other).then(|| {
                let seen = SeenAs {
                    group: e.group.clone(),
                    version: e.version.clone(),
                    resource: e.names.plural.clone(),
                    kind: e.names.kind.clone(),
                };
                (seen, Some(e.clone()))
            })
        })
    }

    /// The hooks of `resource` that apply to this request and `obj`.
    async fn applicable(
        &self,
        resource: &str,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
    ) -> Result<Vec<Matched>, Error> {
        if matching::exempt(r) {
            return Ok(Vec::new());
        }
        let mut namespace = None;
        let mut out = Vec::new();
        for hook in self.hooks(resource).await? {
            out.extend(self.judge(hook, r, obj, &mut namespace).await?);
        }
        Ok(out)
    }

    /// `hook` as it applies to the request with `obj` (its rules, selectors and
    /// matchConditions), or `None`; `namespace` keeps the request's Namespace between calls
    /// (except when the write is of that Namespace, whose labels a webhook may change).
    async fn judge(
        &self,
        hook: Hook,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
        namespace: &mut Option<Option<Value>>,
    ) -> Result<Option<Matched>, Error> {
        let Some((seen, convert_to)) = self.seen_as(&hook, r) else {
            return Ok(None);
        };
        if !matching::object_selected(&hook.spec["objectSelector"], r, obj) {
            return Ok(None);
        }
        let ns = match namespace {
            Some(ns) => ns.clone(),
            None => {
                let ns = matching::namespace_object(self.state, r, obj).await;
                if !(r.group.is_empty() && r.resource == "namespaces") {
                    *namespace = Some(ns.clone());
                }
                ns
            }
        };
        if !matching::namespace_selected(&hook.spec["namespaceSelector"], r, ns.as_ref()) {
            return Ok(None);
        }
        if !self.conditions_hold(&hook, r, &seen, obj, ns.as_ref())? {
            return Ok(None);
        }
        if r.dry_run && !hook.safe_on_dry_run() {
            return Err(Error::bad_request(format!(
                "admission webhook {:?} does not support dry run",
                hook.name
            )));
        }
        Ok(Some(Matched {
            hook,
            seen,
            convert_to,
        }))
    }

    /// Whether the webhook's `matchConditions` all hold: a false one skips it; an error
    /// (with none false) is the failure policy's to judge.
    fn conditions_hold(
        &self,
        hook: &Hook,
        r: &AdmissionRequest<'_>,
        seen: &SeenAs,
        obj: Option<&Value>,
        namespace: Option<&Value>,
    ) -> Result<bool, Error> {
        if hook.spec["matchConditions"]
            .as_array()
            .is_none_or(Vec::is_empty)
        {
            return Ok(true);
        }
        let request = request_json("", r, seen, self.user, obj, r.old);
        let vars = cel_variables(&request, namespace);
        match matching::conditions_hold(&hook.spec, &vars) {
            Ok(holds) => Ok(holds),
            Err(e) if hook.fails_closed() => Err(super::refusal(r, r.name, 403, "", &e, false)),
            Err(e) => {
                tracing::warn!(webhook = %hook.name, error = %e, "match condition failed, skipping webhook");
                Ok(false)
            }
        }
    }

    /// Calls `m`; its checked answer, or the failure in upstream's words.
    async fn call(
        &self,
        m: &Matched,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
        old: Option<&Value>,
    ) -> Result<Answer, CallError> {
        let hook = &m.hook;
        let version = answer::review_version(&string_list(&hook.spec["admissionReviewVersions"]))
            .map_err(CallError::calling)?;
        let uid = kapi_registry::meta::new_uid();
        let request = request_json(&uid, r, &m.seen, self.user, obj, old);
        let review = json!({"apiVersion": version, "kind": "AdmissionReview", "request": request});
        let cc = &hook.spec["clientConfig"];
        let ca: Arc<[u8]> = cc["caBundle"]
            .as_str()
            .and_then(|b| STANDARD.decode(b).ok())
            .unwrap_or_default()
            .into();
        let service = cc
            .get("service")
            .filter(|s| s.is_object())
            .map(|s| ServiceTarget {
                namespace: s["namespace"].as_str().unwrap_or(""),
                name: s["name"].as_str().unwrap_or(""),
                path: s["path"].as_str(),
                port: s["port"].as_i64().and_then(|p| i32::try_from(p).ok()),
            });
        let target = WebhookTarget {
            url: cc["url"].as_str(),
            service,
            ca_bundle: &ca,
        };
        let body = serde_json::to_vec(&review).map_err(|e| CallError::internal(e.to_string()))?;
        let answer = self
            .state
            .webhooks
            .post_json(&hook.name, &target, body, hook.timeout())
            .await
            .map_err(|e| CallError::calling(format!("failed to call webhook: {e}")))?;
        if answer.len() > MAX_RESPONSE {
            return Err(CallError::invalid(format!(
                "the response is {} bytes, over the limit of {MAX_RESPONSE}",
                answer.len()
            )));
        }
        let answer: Value =
            serde_json::from_slice(&answer).map_err(|e| CallError::invalid(e.to_string()))?;
        let mutating = hook.kind == "admit";
        let response =
            answer::verify(&answer, &uid, version, mutating).map_err(CallError::invalid)?;
        for w in string_list(&response["warnings"]) {
            self.warnings.add(&w);
        }
        let patch = match response["patch"].as_str() {
            Some(p) if response["allowed"] == true => {
                Some(answer::decode_patch(p).map_err(CallError::calling)?)
            }
            _ => None,
        }
        .filter(|ops| !ops.0.is_empty());
        if patch.is_some() && obj.is_none() {
            return Err(CallError::internal(format!(
                "admission webhook {:?} attempted to modify the object, which is not supported for this operation",
                hook.name
            )));
        }
        if let Some(t) = response["patchType"].as_str()
            && patch.is_some()
            && t != "JSONPatch"
        {
            return Err(CallError::calling(format!("unsupported patch type {t:?}")));
        }
        Ok(Answer { response, patch })
    }

    /// Calls `m` as its failure policy says, recording the metrics: `Ok(None)` when an
    /// ignorable call failed.
    async fn call_with_policy(
        &self,
        m: &Matched,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
        old: Option<&Value>,
    ) -> Result<Option<Answer>, Error> {
        let started = Instant::now();
        let result = self.call(m, r, obj, old).await;
        let hook = &m.hook;
        let mut call = WebhookCall {
            name: &hook.name,
            kind: hook.kind,
            operation: r.operation.as_str(),
            elapsed: started.elapsed(),
            rejected: false,
            code: 200,
            error_type: None,
        };
        match result {
            Ok(answer) => {
                if answer.response["allowed"] != true {
                    call.rejected = true;
                    call.code = denial_code(&answer.response);
                    call.error_type = Some("no_error");
                }
                self.metrics().observe(&call);
                Ok(Some(answer))
            }
            Err(e) => {
                call.rejected = true;
                call.code = 0;
                call.error_type = Some(e.error_type);
                self.metrics().observe(&call);
                if e.error_type == "apiserver_internal_error" {
                    return Err(Error::Internal(e.message));
                }
                if hook.fails_closed() {
                    return Err(Error::Internal(format!(
                        "failed calling webhook {:?}: {}",
                        hook.name, e.message
                    )));
                }
                self.metrics().fail_open(&hook.name, hook.kind);
                tracing::warn!(webhook = %hook.name, error = %e.message, "failed calling webhook, failing open");
                Ok(None)
            }
        }
    }

    /// Mutating webhooks, in order, each judged on the object as the ones before it left it
    /// (as upstream's dispatcher); `previous` is the first pass when this is the
    /// reinvocation (then only the IfNeeded webhooks whose object changed since run again).
    pub async fn mutate(
        &self,
        r: &AdmissionRequest<'_>,
        obj: &mut Value,
        previous: Option<&MutationPass>,
    ) -> kapi_registry::Result<MutationPass> {
        let mut pass = MutationPass::default();
        if matching::exempt(r) {
            return Ok(pass);
        }
        let mut namespace = None;
        for hook in self.hooks(MUTATING).await? {
            let Some(m) = self.judge(hook, r, Some(obj), &mut namespace).await? else {
                continue;
            };
            if let Some(first) = previous
                && !(m.hook.reinvocable() && first.reinvoke(&m.hook.name, obj))
            {
                continue;
            }
            self.mutate_one(&m, r, obj).await?;
            if m.hook.reinvocable() {
                pass.reinvocable.push((m.hook.name.clone(), obj.clone()));
            }
        }
        Ok(pass)
    }

    /// Mutating webhooks registered for a delete, in order: each is called with the object
    /// going as `oldObject` and a null `object`, and may refuse; a non-empty patch is an
    /// error, there being no object to apply it to (upstream's dispatcher).
    pub async fn mutate_delete(&self, r: &AdmissionRequest<'_>) -> kapi_registry::Result<()> {
        for m in self.applicable(MUTATING, r, None).await? {
            let (_, seen_old) = self.as_seen(&m, r, None).await?;
            if let Some(answer) = self
                .call_with_policy(&m, r, None, seen_old.as_ref().or(r.old))
                .await?
                && answer.response["allowed"] != true
            {
                return Err(denial(r, &m.hook.name, &answer.response));
            }
        }
        Ok(())
    }

    /// Calls one mutating webhook and applies its patch (to the object as the webhook saw
    /// it, converted back when it saw another version).
    async fn mutate_one(
        &self,
        m: &Matched,
        r: &AdmissionRequest<'_>,
        obj: &mut Value,
    ) -> kapi_registry::Result<()> {
        let hook = &m.hook;
        let (seen_obj, seen_old) = self.as_seen(m, r, Some(obj)).await?;
        let sent = seen_obj.as_ref().unwrap_or(obj);
        let Some(answer) = self
            .call_with_policy(m, r, Some(sent), seen_old.as_ref().or(r.old))
            .await?
        else {
            return Ok(());
        };
        if answer.response["allowed"] != true {
            return Err(denial(r, &hook.name, &answer.response));
        }
        let Some(ops) = answer.patch else {
            return Ok(());
        };
        let failed =
            |why: String| Error::Internal(format!("failed calling webhook {:?}: {why}", hook.name));
        let mut patched = sent.clone();
        json_patch::patch(&mut patched, &ops)
            .map_err(|e| failed(format!("applying the patch: {e}")))?;
        if !patched.is_object() {
            return Err(failed("the patched object is not an object".to_owned()));
        }
        *obj = match &m.convert_to {
            Some(seen) => {
                self.convert(&patched, seen, &*own_entry(self.state, r)?)
                    .await?
            }
            None => patched,
        };
        Ok(())
    }

    /// Converts `obj` from `from`'s version to `to`'s (through the storage version, as
    /// every converter does).
    async fn convert(
        &self,
        obj: &Value,
        from: &ResourceEntry,
        to: &ResourceEntry,
    ) -> kapi_registry::Result<Value> {
        let bytes = from.codec.encode_for_storage(obj).await?;
        to.codec.decode_stored(&bytes).await
    }

    /// The object and old object as `m` sees them (converted when it registered for another
    /// version); `None` where they are the request's own.
    async fn as_seen(
        &self,
        m: &Matched,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
    ) -> kapi_registry::Result<(Option<Value>, Option<Value>)> {
        let Some(to) = &m.convert_to else {
            return Ok((None, None));
        };
        let own = own_entry(self.state, r)?;
        let obj = match obj {
            Some(o) => Some(self.convert(o, &own, to).await?),
            None => None,
        };
        let old = match r.old {
            Some(o) => Some(self.convert(o, &own, to).await?),
            None => None,
        };
        Ok((obj, old))
    }

    /// Validating webhooks, called in parallel.
    pub async fn validate(
        &self,
        r: &AdmissionRequest<'_>,
        obj: &Value,
    ) -> kapi_registry::Result<()> {
        // A delete's object is the one going; the review carries it as oldObject.
        let object = (r.operation != Operation::Delete).then_some(obj);
        let hooks = self.applicable(VALIDATING, r, object).await?;
        let mut sent = Vec::with_capacity(hooks.len());
        for m in &hooks {
            let (o, old) = self.as_seen(m, r, object).await?;
            sent.push((
                o.or_else(|| object.cloned()),
                old.or_else(|| r.old.cloned()),
            ));
        }
        let calls = hooks
            .iter()
            .zip(&sent)
            .map(|(m, (o, old))| self.call_with_policy(m, r, o.as_ref(), old.as_ref()));
        let answers = futures::future::join_all(calls).await;
        for (m, answer) in hooks.iter().zip(answers) {
            if let Some(answer) = answer?
                && answer.response["allowed"] != true
            {
                return Err(denial(r, &m.hook.name, &answer.response));
            }
        }
        Ok(())
    }
}

/// The entry the request writes through.
fn own_entry(
    state: &ApiState,
    r: &AdmissionRequest<'_>,
) -> kapi_registry::Result<Arc<ResourceEntry>> {
    state
        .registry
        .snapshot()
        .get(r.group, r.version, r.resource)
        .cloned()
        .ok_or_else(|| {
            Error::Internal(format!(
                "no entry for {}/{} {}",
                r.group, r.version, r.resource
            ))
        })
}

/// The configurations (or policies) of `resource`, by name.
pub(crate) async fn load_sorted(state: &ApiState, resource: &str) -> Result<Vec<Value>, Error> {
    let table = state.registry.snapshot();
    let Some(entry) = table.get(GROUP, "v1", resource) else {
        return Ok(Vec::new());
    };
    let prefix = entry.collection_prefix(None);
    let cache = state.caches.get(&prefix, LOAD).await?;
    let mut items: Vec<Value> = cache
        .list(&prefix)
        .0
        .iter()
        .filter_map(|kv| serde_json::from_slice(&kv.value).ok())
        .collect();
    items.sort_by(|a, b| {
        let name = |v: &Value| v["metadata"]["name"].as_str().unwrap_or("").to_owned();
        name(a).cmp(&name(b))
    });
    Ok(items)
}

/// The code of a denial: the webhook's own when it is an error code, else 403.
fn denial_code(response: &Value) -> u16 {
    response["status"]["code"]
        .as_u64()
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| *c >= 400)
        .unwrap_or(403)
}

/// A denial as upstream's `ToStatusErr` words it.
fn denial(r: &AdmissionRequest<'_>, hook: &str, response: &Value) -> Error {
    let status = &response["status"];
    let by = format!("admission webhook {hook:?} denied the request");
    let message = status["message"].as_str().filter(|m| !m.is_empty());
    let reason = status["reason"].as_str().unwrap_or("");
    let why = match (message, reason) {
        (Some(m), _) => format!("{by}: {m}"),
        (None, r) if !r.is_empty() => format!("{by}: {r}"),
        _ => format!("{by} without explanation"),
    };
    super::refusal(r, r.name, denial_code(response), reason, &why, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> AdmissionRequest<'static> {
        AdmissionRequest {
            operation: Operation::Create,
            group: "",
            version: "v1",
            resource: "configmaps",
            kind: "ConfigMap",
            subresource: None,
            namespace: Some("default"),
            name: "bad",
            old: None,
            dry_run: false,
        }
    }

    #[test]
    fn a_denial_carries_the_webhooks_message_and_code() {
        let e = denial(
            &request(),
            "no.example.com",
            &json!({"allowed": false, "status": {"code": 422, "message": "names must be short"}}),
        );
        assert_eq!(
            e.to_string(),
            "configmaps \"bad\" is forbidden: admission webhook \"no.example.com\" denied the request: names must be short"
        );
        assert!(matches!(e, Error::Status { code: 422, .. }));
    }

    #[test]
    fn a_bare_denial_is_forbidden_without_explanation() {
        let bare = denial(&request(), "x", &json!({"allowed": false}));
        assert_eq!(
            bare.to_string(),
            "configmaps \"bad\" is forbidden: admission webhook \"x\" denied the request without explanation"
        );
        let Error::Status { code, reason, .. } = bare else {
            panic!("not a Status");
        };
        assert_eq!((code, reason.as_str()), (403, "Forbidden"));
    }
}
