//! RBAC's rules (`pkg/apis/rbac/validation`): every policy rule of a Role or ClusterRole
//! names verbs and either resources with API groups or non-resource URLs
//! (`validatePolicyRule`), and a binding's `roleRef` never changes
//! (`ValidateRoleBindingUpdate`, `ValidateClusterRoleBindingUpdate`).

use super::internal_json;
use super::semantic::get;
use crate::error::StatusCause;
use crate::field;
use serde_json::Value;

/// `validatePolicyRule` of each of `rules` (`namespaced` for a Role).
pub fn validate_policy_rules(obj: &Value, namespaced: bool) -> Vec<StatusCause> {
    let rules = get(obj, "rules").and_then(Value::as_array);
    rules
        .into_iter()
        .flatten()
        .enumerate()
        .flat_map(|(i, rule)| policy_rule(rule, namespaced, &format!("rules[{i}]")))
        .collect()
}

fn policy_rule(rule: &Value, namespaced: bool, path: &str) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let len = |k: &str| get(rule, k).and_then(Value::as_array).map_or(0, Vec::len);
    if len("verbs") == 0 {
        causes.push(field::required(
            &format!("{path}.verbs"),
            "verbs must contain at least one value",
        ));
    }
    if len("nonResourceURLs") > 0 {
        let urls = get(rule, "nonResourceURLs").unwrap_or(&Value::Null);
        let at = format!("{path}.nonResourceURLs");
        if namespaced {
            causes.push(field::invalid(
                &at,
                urls,
                "namespaced rules cannot apply to non-resource URLs",
            ));
        }
        if len("apiGroups") > 0 || len("resources") > 0 || len("resourceNames") > 0 {
            causes.push(field::invalid(
                &at,
                urls,
                "rules cannot apply to both regular resources and non-resource URLs",
            ));
        }
        return causes;
    }
    if len("apiGroups") == 0 {
        causes.push(field::required(
            &format!("{path}.apiGroups"),
            "resource rules must supply at least one api group",
        ));
    }
    if len("resources") == 0 {
        causes.push(field::required(
            &format!("{path}.resources"),
            "resource rules must supply at least one resource",
        ));
    }
    causes
}

/// A binding's `roleRef` is fixed: `roleRef: Invalid value: {"APIGroup":…}: cannot
/// change roleRef` (the new roleRef, as upstream's internal type marshals).
pub fn validate_role_ref_update(new: &Value, old: &Value) -> Option<StatusCause> {
    let null = Value::Null;
    let (n, o) = (
        get(new, "roleRef").unwrap_or(&null),
        get(old, "roleRef").unwrap_or(&null),
    );
    let same = ["apiGroup", "kind", "name"].iter().all(|k| {
        let text = |v: &Value| {
            get(v, k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        text(n) == text(o)
    });
    (!same).then(|| {
        field::invalid(
            "roleRef",
            &internal_json::role_ref(n),
            "cannot change roleRef",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validate_policy_rule_requires_verbs() {
        let role = json!({"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": []}]});
        let causes = validate_policy_rules(&role, true);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "rules[0].verbs");
        assert_eq!(
            causes[0].message,
            "Required value: verbs must contain at least one value"
        );
    }

    #[test]
    fn validate_policy_rule_keeps_non_resource_urls_to_cluster_roles() {
        let rule = json!({"rules": [{"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]});
        assert!(validate_policy_rules(&rule, false).is_empty());
        let causes = validate_policy_rules(&rule, true);
        assert_eq!(
            causes[0].message,
            "Invalid value: [\"/healthz\"]: namespaced rules cannot apply to non-resource URLs"
        );
    }

    #[test]
    fn validate_policy_rule_wants_groups_and_resources() {
        let causes = validate_policy_rules(&json!({"rules": [{"verbs": ["get"]}]}), false);
        let fields: Vec<&str> = causes.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["rules[0].apiGroups", "rules[0].resources"]);
    }

    #[test]
    fn validate_role_binding_update_refuses_a_new_role_ref() {
        let rb = |name: &str| json!({"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name}});
        assert!(validate_role_ref_update(&rb("view"), &rb("view")).is_none());
        let cause = validate_role_ref_update(&rb("edit"), &rb("view")).unwrap();
        assert_eq!(cause.field, "roleRef");
        assert_eq!(
            cause.message,
            "Invalid value: {\"APIGroup\":\"rbac.authorization.k8s.io\",\"Kind\":\"ClusterRole\",\"Name\":\"edit\"}: cannot change roleRef"
        );
    }
}
