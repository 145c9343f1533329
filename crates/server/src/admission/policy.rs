//! ValidatingAdmissionPolicy (kube-apiserver's plugin of that name): every
//! ValidatingAdmissionPolicyBinding whose policy's `matchConstraints` and own
//! `matchResources` select the write evaluates the policy's CEL — `variables`,
//! `matchConditions`, `validations` and `auditAnnotations` — over `object`, `oldObject`,
//! `request`, `namespaceObject` and `params` (each object `paramRef` finds of the policy's
//! `paramKind`, custom resources included), and acts on a failure as its
//! `validationActions` say: Deny refuses the write, Warn adds a `Warning` header, Audit
//! logs it. Errors are the policy's `failurePolicy`'s to judge.
//!
//! The policy and binding pairing, matching and params are shared with
//! MutatingAdmissionPolicy ([`super::mutating_policy`]).

use super::metrics::PolicyCheck;
use super::review::{SeenAs, cel_variables, request_json};
use super::webhook::load_sorted;
use super::{Warnings, matching};
use crate::authn::User;
use crate::handlers::string_list;
use crate::state::ApiState;
use kapi_apiextensions::cel::{Expression, Variables};
use kapi_registry::Error;
use kapi_registry::rest::admission::{AdmissionRequest, Operation};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Instant;

const POLICIES: &str = "validatingadmissionpolicies";
const BINDINGS: &str = "validatingadmissionpolicybindings";

/// A policy and one of its bindings that select a write.
pub struct Bound {
    /// The policy.
    pub policy: Value,
    /// The binding.
    pub binding: Value,
}

impl Bound {
    /// The policy's name.
    pub fn policy_name(&self) -> &str {
        self.policy["metadata"]["name"].as_str().unwrap_or("")
    }

    /// The binding's name.
    pub fn binding_name(&self) -> &str {
        self.binding["metadata"]["name"].as_str().unwrap_or("")
    }

    /// Whether errors refuse the write (`failurePolicy: Fail`, the default).
    pub fn fails_closed(&self) -> bool {
        self.policy["spec"]["failurePolicy"].as_str() != Some("Ignore")
    }
}

/// Whether a `MatchResources` selects the write: one of its `resourceRules` (every resource
/// when it has none) and none of its `excludeResourceRules`, its namespace and object
/// selectors.
pub fn resources_match(
    m: &Value,
    r: &AdmissionRequest<'_>,
    obj: Option<&Value>,
    namespace: Option<&Value>,
    rules_required: bool,
) -> bool {
    let rules = &m["resourceRules"];
    let has_rules = rules.as_array().is_some_and(|a| !a.is_empty());
    if (has_rules || rules_required) && !matching::any_rule_matches(rules, r) {
        return false;
    }
    if matching::any_rule_matches(&m["excludeResourceRules"], r) {
        return false;
    }
    matching::object_selected(&m["objectSelector"], r, obj)
        && matching::namespace_selected(&m["namespaceSelector"], r, namespace)
}

/// The policies of `policies` bound by `bindings` (every binding of their resource, by
/// name; most writes of most servers have none, and then nothing else is read) whose
/// constraints select the write, in binding-name order.
pub async fn bound(
    state: &ApiState,
    policies: &str,
    bindings: Vec<Value>,
    r: &AdmissionRequest<'_>,
    obj: Option<&Value>,
    namespace: Option<&Value>,
) -> Result<Vec<Bound>, Error> {
    let policies: BTreeMap<String, Value> = load_sorted(state, policies)
        .await?
        .into_iter()
        .map(|p| (p["metadata"]["name"].as_str().unwrap_or("").to_owned(), p))
        .collect();
    let mut out = Vec::new();
    for binding in bindings {
        let Some(policy) = binding["spec"]["policyName"]
            .as_str()
            .and_then(|n| policies.get(n))
        else {
            continue;
        };
        if !resources_match(&policy["spec"]["matchConstraints"], r, obj, namespace, true) {
            continue;
        }
        let own = &binding["spec"]["matchResources"];
        if own.is_object() && !resources_match(own, r, obj, namespace, false) {
            continue;
        }
        out.push(Bound {
            policy: policy.clone(),
            binding,
        });
    }
    Ok(out)
}

/// The params a binding gives its policy: `[None]` without a `paramKind` or `paramRef`,
/// each object its `paramRef` finds otherwise.
pub enum Params {
    /// Evaluate once for each.
    Each(Vec<Option<Value>>),
    /// None found and `parameterNotFoundAction: Allow`: the policy passes.
    NoneAllowed,
}

/// Why a binding's params cannot be had.
pub struct ParamsError {
    /// Whether the policy itself is at fault (its paramKind), not the binding.
    pub policy_level: bool,
    /// Upstream's words, `failed to configure policy|binding: …`.
    pub message: String,
}

/// Finds the params of `b` for the write.
pub async fn params(
    state: &ApiState,
    b: &Bound,
    r: &AdmissionRequest<'_>,
) -> Result<Params, ParamsError> {
    let kind = &b.policy["spec"]["paramKind"];
    if !kind.is_object() {
        return Ok(Params::Each(vec![None]));
    }
    let param_ref = &b.binding["spec"]["paramRef"];
    if !param_ref.is_object() {
        // A binding without paramRef evaluates its policy once, with `params` null.
        return Ok(Params::Each(vec![None]));
    }
    let binding_error = |m: &str| ParamsError {
        policy_level: false,
        message: format!("failed to configure binding: {m}"),
    };
    let api_version = kind["apiVersion"].as_str().unwrap_or("");
    let kind_name = kind["kind"].as_str().unwrap_or("");
    let (group, version) = match api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", api_version),
    };
    let table = state.registry.snapshot();
    let Some(entry) = table
        .group_version(group, version)
        .into_iter()
        .find(|e| e.names.kind == kind_name)
        .cloned()
    else {
        return Err(ParamsError {
            policy_level: true,
            message: format!(
                "failed to configure policy: failed to find resource referenced by paramKind: '{api_version}, Kind={kind_name}'"
            ),
        });
    };
    let namespace = match (entry.namespaced(), param_ref["namespace"].as_str()) {
        (false, Some(ns)) if !ns.is_empty() => {
            return Err(binding_error(
                "paramRef.namespace must not be provided for a cluster-scoped `paramKind`",
            ));
        }
        (false, _) => None,
        (true, Some(ns)) if !ns.is_empty() => Some(ns.to_owned()),
        (true, _) => match r.namespace {
            Some(ns) => Some(ns.to_owned()),
            None => {
                return Err(binding_error(
                    "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
                ));
            }
        },
    };
    let prefix = entry.collection_prefix(namespace.as_deref());
    let cache = state
        .caches
        .get(&entry.collection_prefix(None), super::webhook::LOAD)
        .await
        .map_err(|e| binding_error(&e.to_string()))?;
    let (kvs, _) = cache.list(&prefix);
    let name = param_ref["name"].as_str().filter(|n| !n.is_empty());
    let mut found = Vec::new();
    for kv in kvs.iter() {
        let obj = entry
            .codec
            .decode_stored(&kv.value)
            .await
            .map_err(|e| binding_error(&e.to_string()))?;
        let chosen = match name {
            Some(n) => kapi_registry::meta::name(&obj) == n,
            None => matching::selected(&param_ref["selector"], &matching::labels(Some(&obj))),
        };
        if chosen {
            found.push(Some(obj));
        }
    }
    if !found.is_empty() {
        return Ok(Params::Each(found));
    }
    match param_ref["parameterNotFoundAction"].as_str() {
        Some("Allow") => Ok(Params::NoneAllowed),
        _ => Err(binding_error(
            "no params found for policy binding with `Deny` parameterNotFoundAction",
        )),
    }
}

/// The CEL variables of one evaluation: the write's, `params`, and the policy's
/// `variables` in order (one that fails is left out; expressions using it then fail).
pub fn variables(
    request: &Value,
    namespace: Option<&Value>,
    params: Option<&Value>,
    spec: &Value,
) -> Variables {
    let mut vars = cel_variables(request, namespace);
    vars.set("params", params.unwrap_or(&Value::Null));
    for v in spec["variables"].as_array().into_iter().flatten() {
        let name = v["name"].as_str().unwrap_or("");
        if let Ok(e) = Expression::cached(v["expression"].as_str().unwrap_or("")) {
            let _ = vars.define(name, &e);
        }
    }
    vars
}

/// One failed validation.
struct Failure {
    message: String,
    reason: String,
    /// A policy-level configuration error (named without the binding).
    policy_level: bool,
    /// An error (of evaluation or configuration), not a false validation.
    error: bool,
}

/// The HTTP code of a validation's `reason` (upstream's `reasonToCode`).
fn reason_code(reason: &str) -> u16 {
    match reason {
        "Unauthorized" => 401,
        "Forbidden" => 403,
        "RequestEntityTooLarge" => 413,
        _ => 422,
    }
}

/// ValidatingAdmissionPolicies for one request.
pub struct PolicyAdmission<'a> {
    state: &'a ApiState,
    user: Option<&'a User>,
    warnings: &'a Warnings,
}

impl<'a> PolicyAdmission<'a> {
    /// The policies for one request of `user`, warning into `warnings`.
    pub fn new(state: &'a ApiState, user: Option<&'a User>, warnings: &'a Warnings) -> Self {
        Self {
            state,
            user,
            warnings,
        }
    }

    /// Evaluates every binding that selects the write.
    pub async fn validate(
        &self,
        r: &AdmissionRequest<'_>,
        obj: &Value,
    ) -> kapi_registry::Result<()> {
        if matching::exempt(r) {
            return Ok(());
        }
        let bindings = load_sorted(self.state, BINDINGS).await?;
        if bindings.is_empty() {
            return Ok(());
        }
        let object = (r.operation != Operation::Delete).then_some(obj);
        let namespace = matching::namespace_object(self.state, r, object).await;
        let bound = bound(
            self.state,
            POLICIES,
            bindings,
            r,
            object,
            namespace.as_ref(),
        )
        .await?;
        if bound.is_empty() {
            return Ok(());
        }
        let request = request_json("", r, &SeenAs::requested(r), self.user, object, r.old);
        for b in &bound {
            let started = Instant::now();
            let failures = self.check(b, r, &request, namespace.as_ref()).await;
            self.record(b, &failures, started.elapsed());
            self.act(b, r, object, failures)?;
        }
        Ok(())
    }

    /// The failures of one binding's policy (errors included, when it fails closed).
    async fn check(
        &self,
        b: &Bound,
        r: &AdmissionRequest<'_>,
        request: &Value,
        namespace: Option<&Value>,
    ) -> Vec<Failure> {
        let spec = &b.policy["spec"];
        let error = |message: String, policy_level: bool| -> Vec<Failure> {
            if b.fails_closed() {
                vec![Failure {
                    message,
                    reason: "Invalid".into(),
                    policy_level,
                    error: true,
                }]
            } else {
                tracing::warn!(policy = %b.policy_name(), binding = %b.binding_name(), error = %message, "policy failed, failing open");
                Vec::new()
            }
        };
        let params = match params(self.state, b, r).await {
            Ok(Params::Each(p)) => p,
            Ok(Params::NoneAllowed) => return Vec::new(),
            Err(e) => return error(e.message, e.policy_level),
        };
        let mut failures = Vec::new();
        for param in &params {
            let vars = variables(request, namespace, param.as_ref(), spec);
            match matching::conditions_hold(spec, &vars) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => {
                    failures.extend(error(e, false));
                    continue;
                }
            }
            for v in spec["validations"].as_array().into_iter().flatten() {
                let source = v["expression"].as_str().unwrap_or("");
                let result = Expression::cached(source)
                    .and_then(|e| e.evaluate_bool(&vars).map_err(|e| e.to_string()));
                match result {
                    Ok(true) => {}
                    Ok(false) => failures.push(Failure {
                        message: validation_message(v, &vars),
                        reason: v["reason"].as_str().unwrap_or("Invalid").to_owned(),
                        policy_level: false,
                        error: false,
                    }),
                    Err(e) => failures.extend(error(
                        format!("expression '{source}' resulted in error: {e}"),
                        false,
                    )),
                }
            }
            self.audit_annotations(b, spec, &vars);
        }
        failures
    }

    /// Evaluates the `auditAnnotations` (kapi keeps no audit log: they are logged).
    fn audit_annotations(&self, b: &Bound, spec: &Value, vars: &Variables) {
        for a in spec["auditAnnotations"].as_array().into_iter().flatten() {
            let key = a["key"].as_str().unwrap_or("");
            let value = Expression::cached(a["valueExpression"].as_str().unwrap_or(""))
                .ok()
                .map(|e| e.evaluate(vars));
            if let Some(Ok(Value::String(v))) = value {
                tracing::info!(policy = %b.policy_name(), key = %format!("{}/{key}", b.policy_name()), value = %v, "audit annotation");
            }
        }
    }

    /// Counts one binding's check in the policy metrics, once per action taken.
    fn record(&self, b: &Bound, failures: &[Failure], elapsed: std::time::Duration) {
        let error_type = if failures.iter().any(|f| f.error) {
            "invalid_error"
        } else {
            "no_error"
        };
        let actions = string_list(&b.binding["spec"]["validationActions"]);
        let taken: Vec<&'static str> = if failures.is_empty() {
            vec!["allow"]
        } else {
            [("Deny", "deny"), ("Warn", "warn"), ("Audit", "audit")]
                .into_iter()
                .filter(|(a, _)| actions.iter().any(|x| x == a))
                .map(|(_, label)| label)
                .collect()
        };
        for action in taken {
            self.state.admission_metrics.policy_check(&PolicyCheck {
                policy: b.policy_name(),
                binding: b.binding_name(),
                enforcement_action: action,
                error_type,
                elapsed,
            });
        }
    }

    /// Acts on a binding's failures as its `validationActions` say.
    fn act(
        &self,
        b: &Bound,
        r: &AdmissionRequest<'_>,
        obj: Option<&Value>,
        failures: Vec<Failure>,
    ) -> kapi_registry::Result<()> {
        let actions = string_list(&b.binding["spec"]["validationActions"]);
        for f in failures {
            if actions.iter().any(|a| a == "Warn") {
                self.warnings.add(&format!(
                    "Validation failed for ValidatingAdmissionPolicy '{}' with binding '{}': {}",
                    b.policy_name(),
                    b.binding_name(),
                    f.message
                ));
            }
            if actions.iter().any(|a| a == "Audit") {
                tracing::info!(policy = %b.policy_name(), binding = %b.binding_name(), message = %f.message, "validation failure (audit)");
            }
            if actions.iter().any(|a| a == "Deny") || f.policy_level {
                let why = if f.policy_level {
                    format!(
                        "ValidatingAdmissionPolicy '{}' denied request: {}",
                        b.policy_name(),
                        f.message
                    )
                } else {
                    format!(
                        "ValidatingAdmissionPolicy '{}' with binding '{}' denied request: {}",
                        b.policy_name(),
                        b.binding_name(),
                        f.message
                    )
                };
                let name = object_name(r, obj.or(r.old));
                return Err(super::refusal(
                    r,
                    &name,
                    reason_code(&f.reason),
                    &f.reason,
                    &why,
                    true,
                ));
            }
        }
        Ok(())
    }
}

/// The name a refusal names: the request's, else the object's generateName.
pub fn object_name(r: &AdmissionRequest<'_>, obj: Option<&Value>) -> String {
    if !r.name.is_empty() {
        return r.name.to_owned();
    }
    obj.and_then(|o| o["metadata"]["generateName"].as_str())
        .unwrap_or("")
        .to_owned()
}

/// A failed validation's message: its `messageExpression`'s (when that gives a non-empty
/// single line), else its `message`, else `failed expression: <expression>`.
fn validation_message(v: &Value, vars: &Variables) -> String {
    if let Some(src) = v["messageExpression"].as_str().filter(|s| !s.is_empty())
        && let Ok(e) = Expression::cached(src)
        && let Ok(m) = e.evaluate_string(vars)
        && !m.trim().is_empty()
        && !m.contains(['\n', '\r'])
    {
        return m;
    }
    match v["message"].as_str().filter(|m| !m.is_empty()) {
        Some(m) => m.to_owned(),
        None => format!(
            "failed expression: {}",
            v["expression"].as_str().unwrap_or("")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_message_expression_wins_over_the_message() {
        let mut vars = Variables::new();
        vars.set("object", &json!({"spec": {"replicas": 7}}));
        let v = json!({
            "expression": "object.spec.replicas <= 5",
            "message": "too many",
            "messageExpression": "'replicas ' + string(object.spec.replicas) + ' > 5'",
        });
        assert_eq!(validation_message(&v, &vars), "replicas 7 > 5");
    }

    #[test]
    fn without_a_message_the_expression_is_named() {
        let v = json!({"expression": "object.spec.replicas <= 5"});
        assert_eq!(
            validation_message(&v, &Variables::new()),
            "failed expression: object.spec.replicas <= 5"
        );
    }

    #[test]
    fn reasons_map_to_upstreams_codes() {
        assert_eq!(reason_code("Invalid"), 422);
        assert_eq!(reason_code("Forbidden"), 403);
        assert_eq!(reason_code("Unauthorized"), 401);
        assert_eq!(reason_code("RequestEntityTooLarge"), 413);
    }
}
