//! Admission webhooks (kube-apiserver's MutatingAdmissionWebhook and
//! ValidatingAdmissionWebhook plugins), plugged into every write the REST store makes for a
//! request: the MutatingWebhookConfigurations' webhooks are called in order (configurations
//! by name) and their JSONPatch answers applied before the object is validated; the
//! ValidatingWebhookConfigurations' webhooks are called in parallel with the validated
//! object (or, for a delete, the object being deleted). A webhook is called when one of its
//! rules matches (operations, API groups, versions, resources with upstream's `*`, `*/*`,
//! `r/*` and `*/sub` forms, scope) and its `namespaceSelector` and `objectSelector` select
//! the request; AdmissionReview `v1` (or `v1beta1` when that is all it speaks), with the
//! requesting user; `timeoutSeconds` (default 10); a call that fails is skipped under
//! `failurePolicy: Ignore` and refuses the request otherwise (500, upstream's words); a
//! denial is the client's error with the webhook's code and message. Under dryRun a webhook
//! whose `sideEffects` are not `None`/`NoneOnDryRun` refuses the request (400). Webhooks
//! are not called for the webhook configurations themselves, as upstream.

use crate::authn::User;
use crate::state::ApiState;
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use kapi_apiextensions::webhook::{ServiceTarget, WebhookTarget};
use kapi_registry::Error;
use kapi_registry::builtin::selects;
use kapi_registry::rest::admission::{Admission, AdmissionRequest, Operation};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

const GROUP: &str = "admissionregistration.k8s.io";
const MUTATING: &str = "mutatingwebhookconfigurations";
const VALIDATING: &str = "validatingwebhookconfigurations";
/// How long the first admission may wait for the configurations' caches to load.
const LOAD: Duration = Duration::from_secs(5);

/// The webhooks of the server, for one request's user.
pub struct WebhookAdmission {
    state: Arc<ApiState>,
    user: Option<User>,
}

impl WebhookAdmission {
    /// Admission for a request of `user`.
    pub fn new(state: Arc<ApiState>, user: Option<User>) -> Self {
        Self { state, user }
    }
}

/// One webhook of a configuration.
struct Hook {
    name: String,
    spec: Value,
}

impl Hook {
    fn str_list(&self, v: &Value) -> Vec<String> {
        crate::handlers::string_list(v)
    }

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

    /// `admission.k8s.io/v1`, or `v1beta1` when that is the only version it speaks.
    fn review_version(&self) -> &'static str {
        let versions = self.str_list(&self.spec["admissionReviewVersions"]);
        if versions.is_empty() || versions.iter().any(|v| v == "v1") {
            "admission.k8s.io/v1"
        } else {
            "admission.k8s.io/v1beta1"
        }
    }

    fn safe_on_dry_run(&self) -> bool {
        matches!(
            self.spec["sideEffects"].as_str(),
            Some("None") | Some("NoneOnDryRun")
        )
    }

    /// Whether one of its rules names the request (upstream's `rules.Matcher`).
    fn rule_matches(&self, r: &AdmissionRequest<'_>) -> bool {
        let rules = self.spec["rules"].as_array().cloned().unwrap_or_default();
        rules.iter().any(|rule| {
            let has = |field: &str, want: &str| {
                self.str_list(&rule[field])
                    .iter()
                    .any(|v| v == "*" || v == want)
            };
            let scope = rule["scope"].as_str().unwrap_or("*");
            let namespaced = r.namespace.is_some();
            let scope_ok = match scope {
                "Cluster" => !namespaced,
                "Namespaced" => namespaced,
                _ => true,
            };
            has("operations", r.operation.as_str())
                && has("apiGroups", r.group)
                && has("apiVersions", r.version)
                && scope_ok
                && self
                    .str_list(&rule["resources"])
                    .iter()
                    .any(|res| resource_matches(res, r.resource, r.subresource))
        })
    }
}

/// Upstream's resource forms: `pods` (no subresource), `pods/status`, `pods/*`, `*`
/// (every resource, no subresource), `*/status`, `*/*`.
fn resource_matches(rule: &str, resource: &str, sub: Option<&str>) -> bool {
    let (res, rule_sub) = match rule.split_once('/') {
        Some((r, s)) => (r, Some(s)),
        None => (rule, None),
    };
    let res_ok = res == "*" || res == resource;
    let sub_ok = match (rule_sub, sub) {
        (None, None) => true,
        (None, Some(_)) => false,
        (Some("*"), _) => true,
        (Some(want), Some(got)) => want == got,
        (Some(_), None) => false,
    };
    res_ok && sub_ok
}

fn labels(obj: Option<&Value>) -> Map<String, Value> {
    obj.and_then(|o| o["metadata"]["labels"].as_object())
        .cloned()
        .unwrap_or_default()
}

/// A selector that is absent or empty selects everything.
fn selected(selector: &Value, labels: &Map<String, Value>) -> bool {
    let empty = selector.as_object().is_none_or(|m| {
        m.values()
            .all(|v| v.is_null() || v == &json!({}) || v == &json!([]))
    });
    empty || selects(selector, labels)
}

impl WebhookAdmission {
    /// The webhooks of the configurations of `resource`, configurations by name.
    async fn hooks(&self, resource: &str) -> Result<Vec<Hook>, Error> {
        let table = self.state.registry.snapshot();
        let Some(entry) = table.get(GROUP, "v1", resource) else {
            return Ok(Vec::new());
        };
        let prefix = entry.collection_prefix(None);
        let cache = self.state.caches.get(&prefix, LOAD).await?;
        let mut configs: Vec<Value> = cache
            .list(&prefix)
            .0
            .iter()
            .filter_map(|kv| serde_json::from_slice(&kv.value).ok())
            .collect();
        configs.sort_by(|a, b| {
            let name = |v: &Value| v["metadata"]["name"].as_str().unwrap_or("").to_owned();
            name(a).cmp(&name(b))
        });
        Ok(configs
            .iter()
            .flat_map(|c| c["webhooks"].as_array().cloned().unwrap_or_default())
            .map(|spec| Hook {
                name: spec["name"].as_str().unwrap_or("").to_owned(),
                spec,
            })
            .collect())
    }

    /// The labels the `namespaceSelector` judges: the request's namespace's (a Namespace
    /// object's own).
    async fn namespace_labels(
        &self,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
    ) -> Map<String, Value> {
        if r.group.is_empty() && r.resource == "namespaces" {
            return labels(obj.or(r.old));
        }
        let Some(ns) = r.namespace else {
            return Map::new();
        };
        let table = self.state.registry.snapshot();
        let Some(entry) = table.get("", "v1", "namespaces") else {
            return Map::new();
        };
        let key = entry.key(None, ns);
        match self.state.store.get(key.as_bytes(), None).await {
            Ok(Some(kv)) => labels(serde_json::from_slice::<Value>(&kv.value).ok().as_ref()),
            _ => Map::new(),
        }
    }

    /// The hooks of `resource` that apply to this request.
    async fn applicable(
        &self,
        resource: &str,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
    ) -> Result<Vec<Hook>, Error> {
        if r.group == GROUP && (r.resource == MUTATING || r.resource == VALIDATING) {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for hook in self.hooks(resource).await? {
            if !hook.rule_matches(r) {
                continue;
            }
            let object_ok = selected(&hook.spec["objectSelector"], &labels(obj))
                || selected(&hook.spec["objectSelector"], &labels(r.old));
            if !object_ok {
                continue;
            }
            let ns_selector = &hook.spec["namespaceSelector"];
            let cluster_scoped = r.namespace.is_none() && r.resource != "namespaces";
            if !cluster_scoped && !selected(ns_selector, &self.namespace_labels(r, obj).await) {
                continue;
            }
            if r.dry_run && !hook.safe_on_dry_run() {
                return Err(Error::bad_request(format!(
                    "admission webhook {:?} does not support dry run",
                    hook.name
                )));
            }
            out.push(hook);
        }
        Ok(out)
    }

    fn user_info(&self) -> Value {
        self.user
            .as_ref()
            .map_or_else(|| json!({}), User::info_json)
    }

    /// The AdmissionReview sent for this request.
    fn review(
        &self,
        hook: &Hook,
        uid: &str,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
    ) -> Value {
        let kind = json!({"group": r.group, "version": r.version, "kind": r.kind});
        let resource = json!({"group": r.group, "version": r.version, "resource": r.resource});
        let options_kind = match r.operation {
            Operation::Create => "CreateOptions",
            Operation::Update => "UpdateOptions",
            Operation::Delete => "DeleteOptions",
        };
        let mut request = json!({
            "uid": uid,
            "kind": kind,
            "resource": resource,
            "requestKind": kind,
            "requestResource": resource,
            "name": r.name,
            "operation": r.operation.as_str(),
            "userInfo": self.user_info(),
            "object": obj.cloned().unwrap_or(Value::Null),
            "oldObject": r.old.cloned().unwrap_or(Value::Null),
            "dryRun": r.dry_run,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": options_kind},
        });
        if let Some(ns) = r.namespace {
            request["namespace"] = json!(ns);
        }
        if let Some(sub) = r.subresource {
            request["subResource"] = json!(sub);
            request["requestSubResource"] = json!(sub);
        }
        json!({"apiVersion": hook.review_version(), "kind": "AdmissionReview", "request": request})
    }

    /// Calls `hook`; its `response`, or the failure in upstream's words.
    async fn call(
        &self,
        hook: &Hook,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
    ) -> Result<Value, String> {
        let uid = kapi_registry::meta::new_uid();
        let review = self.review(hook, &uid, r, obj);
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
        let body = serde_json::to_vec(&review).map_err(|e| e.to_string())?;
        let answer = self
            .state
            .webhooks
            .post_json(&hook.name, &target, body, hook.timeout())
            .await
            .map_err(|e| format!("failed to call webhook: {e}"))?;
        let answer: Value = serde_json::from_slice(&answer)
            .map_err(|e| format!("received invalid webhook response: {e}"))?;
        let response = answer
            .get("response")
            .filter(|r| r.is_object())
            .ok_or("received invalid webhook response: response was absent")?;
        let got = response["uid"].as_str().unwrap_or("");
        if got != uid {
            return Err(format!("expected response.uid={uid:?}, got {got:?}"));
        }
        Ok(response.clone())
    }

    /// Calls `hook` as its failure policy says: `Ok(None)` when an ignorable call failed.
    async fn call_with_policy(
        &self,
        hook: &Hook,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
    ) -> Result<Option<Value>, Error> {
        match self.call(hook, r, obj).await {
            Ok(response) => Ok(Some(response)),
            Err(cause) if !hook.fails_closed() => {
                tracing::warn!(webhook = %hook.name, error = %cause, "failed calling webhook, failing open");
                Ok(None)
            }
            Err(cause) => Err(Error::Internal(format!(
                "failed calling webhook {:?}: {cause}",
                hook.name
            ))),
        }
    }
}

/// A denial as upstream's `ToStatusErr` words it.
fn denial(hook: &str, response: &Value) -> Error {
    let status = &response["status"];
    let by = format!("admission webhook {hook:?} denied the request");
    let message = status["message"].as_str().filter(|m| !m.is_empty());
    let reason = status["reason"].as_str().unwrap_or("");
    let message = match (message, reason) {
        (Some(m), _) => format!("{by}: {m}"),
        (None, r) if !r.is_empty() => format!("{by}: {r}"),
        _ => format!("{by} without explanation"),
    };
    let code = status["code"]
        .as_u64()
        .and_then(|c| u16::try_from(c).ok())
        .filter(|c| *c >= 400)
        .unwrap_or(403);
    Error::Status {
        code,
        reason: reason.to_owned(),
        message,
    }
}

#[async_trait]
impl Admission for WebhookAdmission {
    async fn mutate(&self, r: &AdmissionRequest<'_>, obj: &mut Value) -> kapi_registry::Result<()> {
        for hook in self.applicable(MUTATING, r, Some(obj)).await? {
            let Some(response) = self.call_with_policy(&hook, r, Some(obj)).await? else {
                continue;
            };
            if response["allowed"] != true {
                return Err(denial(&hook.name, &response));
            }
            let Some(patch) = response["patch"].as_str() else {
                continue;
            };
            let patch_type = response["patchType"].as_str().unwrap_or("JSONPatch");
            if patch_type != "JSONPatch" {
                return Err(Error::Internal(format!(
                    "failed calling webhook {:?}: unsupported patch type {patch_type:?}",
                    hook.name
                )));
            }
            let ops: json_patch::Patch = STANDARD
                .decode(patch)
                .ok()
                .and_then(|b| serde_json::from_slice(&b).ok())
                .ok_or_else(|| {
                    Error::Internal(format!(
                        "failed calling webhook {:?}: the patch is not a JSON patch",
                        hook.name
                    ))
                })?;
            let mut patched = obj.clone();
            json_patch::patch(&mut patched, &ops).map_err(|e| {
                Error::Internal(format!(
                    "failed calling webhook {:?}: applying the patch: {e}",
                    hook.name
                ))
            })?;
            *obj = patched;
        }
        Ok(())
    }

    async fn validate(&self, r: &AdmissionRequest<'_>, obj: &Value) -> kapi_registry::Result<()> {
        // A delete's object is the one going; the review carries it as oldObject.
        let object = (r.operation != Operation::Delete).then_some(obj);
        let hooks = self.applicable(VALIDATING, r, object).await?;
        let calls = hooks.iter().map(|h| self.call_with_policy(h, r, object));
        let answers = futures::future::join_all(calls).await;
        for (hook, answer) in hooks.iter().zip(answers) {
            if let Some(response) = answer?
                && response["allowed"] != true
            {
                return Err(denial(&hook.name, &response));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_forms_match_as_upstreams() {
        assert!(resource_matches("pods", "pods", None));
        assert!(!resource_matches("pods", "pods", Some("status")));
        assert!(resource_matches("pods/status", "pods", Some("status")));
        assert!(resource_matches("pods/*", "pods", Some("status")));
        assert!(resource_matches("pods/*", "pods", None));
        assert!(resource_matches("*", "configmaps", None));
        assert!(!resource_matches("*", "pods", Some("status")));
        assert!(resource_matches("*/status", "pods", Some("status")));
        assert!(resource_matches("*/*", "deployments", Some("scale")));
    }

    #[test]
    fn a_denial_carries_the_webhooks_message_and_code() {
        let e = denial(
            "no.example.com",
            &json!({"allowed": false, "status": {"code": 422, "message": "names must be short"}}),
        );
        assert_eq!(
            e,
            Error::Status {
                code: 422,
                reason: String::new(),
                message:
                    "admission webhook \"no.example.com\" denied the request: names must be short"
                        .into()
            }
        );
        let bare = denial("x", &json!({"allowed": false}));
        assert_eq!(
            bare.to_string(),
            "admission webhook \"x\" denied the request without explanation"
        );
        assert!(matches!(bare, Error::Status { code: 403, .. }));
    }

    #[test]
    fn an_empty_selector_selects_everything() {
        assert!(selected(&Value::Null, &Map::new()));
        assert!(selected(&json!({}), &Map::new()));
        assert!(!selected(&json!({"matchLabels": {"a": "b"}}), &Map::new()));
    }
}
