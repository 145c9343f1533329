//! Which writes an admission webhook or policy applies to: upstream's rules (operations,
//! API groups, versions, resources with the `*`, `*/*`, `r/*` and `*/sub` forms, scope,
//! resource names), label selectors on the object and on its namespace.

use crate::handlers::string_list;
use crate::state::ApiState;
use kapi_apiextensions::cel::{Expression, Variables};
use kapi_registry::builtin::selects;
use kapi_registry::rest::admission::AdmissionRequest;
use serde_json::{Map, Value, json};

/// Upstream's resource forms: `pods` (no subresource), `pods/status`, `pods/*`, `*`
/// (every resource, no subresource), `*/status`, `*/*`.
pub fn resource_matches(rule: &str, resource: &str, sub: Option<&str>) -> bool {
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

/// The admissionregistration resources no webhook or policy is called for (upstream's
/// `IsExemptAdmissionConfigurationResource`): a broken configuration must stay mendable.
pub fn exempt(r: &AdmissionRequest<'_>) -> bool {
    r.group == "admissionregistration.k8s.io"
        && matches!(
            r.resource,
            "validatingwebhookconfigurations"
                | "mutatingwebhookconfigurations"
                | "validatingadmissionpolicies"
                | "validatingadmissionpolicybindings"
                | "mutatingadmissionpolicies"
                | "mutatingadmissionpolicybindings"
        )
}

/// Whether the `matchConditions` of `spec` (a webhook's or a policy's) all hold: a false one
/// is `Ok(false)`; an evaluation error, with none false, is `Err` in upstream's words.
pub fn conditions_hold(spec: &Value, vars: &Variables) -> Result<bool, String> {
    let mut error = None;
    for c in spec["matchConditions"].as_array().into_iter().flatten() {
        let name = c["name"].as_str().unwrap_or("");
        let result = Expression::cached(c["expression"].as_str().unwrap_or(""))
            .and_then(|e| e.evaluate_bool(vars).map_err(|e| e.to_string()));
        match result {
            Ok(true) => {}
            Ok(false) => return Ok(false),
            Err(e) => {
                error.get_or_insert(format!("failed to evaluate match condition {name:?}: {e}"));
            }
        }
    }
    error.map_or(Ok(true), Err)
}

/// Whether one rule (a `RuleWithOperations`, or a policy's `NamedRuleWithOperations` with
/// its `resourceNames`) names the request.
pub fn rule_matches(rule: &Value, r: &AdmissionRequest<'_>) -> bool {
    let (group, version) = (r.group, r.version);
    let has = |field: &str, want: &str| {
        string_list(&rule[field])
            .iter()
            .any(|v| v == "*" || v == want)
    };
    let scope_ok = match rule["scope"].as_str().unwrap_or("*") {
        "Cluster" => r.namespace.is_none(),
        "Namespaced" => r.namespace.is_some(),
        _ => true,
    };
    let names = string_list(&rule["resourceNames"]);
    let name_ok = names.is_empty() || names.iter().any(|n| n == r.name);
    has("operations", r.operation.as_str())
        && has("apiGroups", group)
        && has("apiVersions", version)
        && scope_ok
        && name_ok
        && string_list(&rule["resources"])
            .iter()
            .any(|res| resource_matches(res, r.resource, r.subresource))
}

/// Whether any rule of `rules` (a JSON array) names the request.
pub fn any_rule_matches(rules: &Value, r: &AdmissionRequest<'_>) -> bool {
    rules
        .as_array()
        .into_iter()
        .flatten()
        .any(|rule| rule_matches(rule, r))
}

/// An object's labels.
pub fn labels(obj: Option<&Value>) -> Map<String, Value> {
    obj.and_then(|o| o["metadata"]["labels"].as_object())
        .cloned()
        .unwrap_or_default()
}

/// A selector that is absent or empty selects everything.
pub fn selected(selector: &Value, labels: &Map<String, Value>) -> bool {
    let empty = selector.as_object().is_none_or(|m| {
        m.values()
            .all(|v| v.is_null() || v == &json!({}) || v == &json!([]))
    });
    empty || selects(selector, labels)
}

/// Whether the `objectSelector` selects the new or the old object (upstream matches either).
pub fn object_selected(selector: &Value, r: &AdmissionRequest<'_>, obj: Option<&Value>) -> bool {
    selected(selector, &labels(obj)) || selected(selector, &labels(r.old))
}

/// The Namespace object of the request (a Namespace's own object when it is the one
/// written), `None` for cluster-scoped objects; read from the namespaces' watch cache.
pub async fn namespace_object(
    state: &ApiState,
    r: &AdmissionRequest<'_>,
    obj: Option<&Value>,
) -> Option<Value> {
    if r.group.is_empty() && r.resource == "namespaces" {
        return obj.or(r.old).cloned();
    }
    let ns = r.namespace?;
    let table = state.registry.snapshot();
    let entry = table.get("", "v1", "namespaces")?;
    let cache = state
        .caches
        .get(&entry.collection_prefix(None), super::webhook::LOAD)
        .await
        .ok()?;
    let kv = cache.get(&entry.key(None, ns))?;
    serde_json::from_slice(&kv.value).ok()
}

/// Whether the `namespaceSelector` selects the request: cluster-scoped objects (other than
/// Namespaces) always are.
pub fn namespace_selected(
    selector: &Value,
    r: &AdmissionRequest<'_>,
    namespace: Option<&Value>,
) -> bool {
    let cluster_scoped =
        r.namespace.is_none() && !(r.group.is_empty() && r.resource == "namespaces");
    cluster_scoped || selected(selector, &labels(namespace))
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
    fn the_admission_configuration_kinds_are_exempt() {
        let r = |group, resource| AdmissionRequest {
            operation: kapi_registry::rest::admission::Operation::Create,
            group,
            version: "v1",
            resource,
            kind: "",
            subresource: None,
            namespace: None,
            name: "x",
            old: None,
            dry_run: false,
        };
        assert!(exempt(&r(
            "admissionregistration.k8s.io",
            "validatingwebhookconfigurations"
        )));
        assert!(exempt(&r(
            "admissionregistration.k8s.io",
            "mutatingadmissionpolicybindings"
        )));
        assert!(!exempt(&r("", "configmaps")));
    }

    #[test]
    fn an_empty_selector_selects_everything() {
        assert!(selected(&Value::Null, &Map::new()));
        assert!(selected(&json!({}), &Map::new()));
        assert!(!selected(&json!({"matchLabels": {"a": "b"}}), &Map::new()));
    }
}
