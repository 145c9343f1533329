//! A Pod spec's tolerations as kube-apiserver 1.36's `ValidateTolerations` checks them, for
//! Pods and for every pod template (Deployments, ReplicaSets, DaemonSets, StatefulSets,
//! Jobs, CronJobs, ReplicationControllers, PodTemplates), on create and on update.
//!
//! Per toleration, in upstream's order: a non-empty key is a qualified name; an empty key
//! needs the operator `Exists`; `tolerationSeconds` needs the effect `NoExecute`; with
//! `Equal` (or no operator) the value is a label value, with `Exists` it is empty, any
//! other operator is unsupported; a non-empty effect is one of the three taint effects.
//! `Lt` and `Gt` are refused as unsupported: 1.36 accepts them only behind the alpha
//! `TaintTolerationComparisonOperators` gate, off by default.

use super::semantic::get;
use crate::error::StatusCause;
use crate::field;
use crate::strategy::{label_value_problems, qualified_name_problems};
use serde_json::{Value, json};

/// The operators `ValidateTolerations` supports (with the comparison gate off).
const OPERATORS: [&str; 2] = ["Equal", "Exists"];
/// The taint effects a toleration may name (`validateTaintEffect`).
const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// `ValidateTolerations` of the list at `path` (e.g. `spec.tolerations`).
pub fn validate_tolerations(tolerations: &[Value], path: &str) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let text = |k: &str| get(t, k).and_then(Value::as_str).unwrap_or_default();
        let (key, operator, value, effect) =
            (text("key"), text("operator"), text("value"), text("effect"));
        let operator_at = format!("{at}.operator");
        let effect_at = format!("{at}.effect");
        if !key.is_empty() {
            for problem in qualified_name_problems(key) {
                causes.push(field::invalid(&format!("{at}.key"), &json!(key), &problem));
            }
        }
        if key.is_empty() && operator != "Exists" {
            causes.push(field::invalid(
                &operator_at,
                &json!(operator),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if get(t, "tolerationSeconds").is_some_and(|s| !s.is_null()) && effect != "NoExecute" {
            causes.push(field::invalid(
                &effect_at,
                &json!(effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match operator {
            "" | "Equal" => {
                let problems = label_value_problems(value);
                if !problems.is_empty() {
                    causes.push(field::invalid(
                        &operator_at,
                        &json!(value),
                        &problems.join(";"),
                    ));
                }
            }
            "Exists" => {
                if !value.is_empty() {
                    causes.push(field::invalid(
                        &operator_at,
                        &json!(value),
                        "value must be empty when `operator` is 'Exists'",
                    ));
                }
            }
            _ => causes.push(field::not_supported(
                &operator_at,
                &json!(operator),
                &OPERATORS,
            )),
        }
        if !effect.is_empty() && !EFFECTS.contains(&effect) {
            causes.push(field::not_supported(&effect_at, &json!(effect), &EFFECTS));
        }
    }
    causes
}

/// The tolerations of the pod spec at `spec_path` (`ValidatePodSpec` checks them when
/// there are any): the causes under `<spec_path>.tolerations`.
pub fn pod_spec_tolerations(spec: Option<&Value>, spec_path: &str) -> Vec<StatusCause> {
    let list = spec
        .and_then(|s| get(s, "tolerations"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    validate_tolerations(list, &format!("{spec_path}.tolerations"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(t: Value) -> Vec<(String, String, String)> {
        validate_tolerations(&[t], "spec.tolerations")
            .into_iter()
            .map(|c| (c.reason, c.field, c.message))
            .collect()
    }

    fn invalid(field: &str, message: &str) -> (String, String, String) {
        ("FieldValueInvalid".into(), field.into(), message.into())
    }

    #[test]
    fn valid_tolerations_pass() {
        for t in [
            json!({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}),
            json!({"operator": "Exists"}),
            json!({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}),
            json!({"key": "k", "operator": "Equal", "value": "", "effect": "PreferNoSchedule"}),
        ] {
            assert_eq!(check(t.clone()), [], "{t}");
        }
    }

    #[test]
    fn validate_tolerations_wants_a_qualified_key() {
        let causes = check(json!({"key": "bad key", "operator": "Exists"}));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].1, "spec.tolerations[0].key");
        assert!(
            causes[0]
                .2
                .starts_with("Invalid value: \"bad key\": name part must consist of")
        );
    }

    #[test]
    fn validate_tolerations_wants_exists_for_an_empty_key() {
        assert_eq!(
            check(json!({"value": "v"})),
            [invalid(
                "spec.tolerations[0].operator",
                "Invalid value: \"\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""
            )]
        );
    }

    #[test]
    fn validate_tolerations_wants_no_execute_with_toleration_seconds() {
        assert_eq!(
            check(
                json!({"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5})
            ),
            [invalid(
                "spec.tolerations[0].effect",
                "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"
            )]
        );
        assert_eq!(
            check(json!({"key": "k", "operator": "Exists", "tolerationSeconds": 5}))[0].2,
            "Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is set"
        );
    }

    #[test]
    fn validate_tolerations_wants_an_empty_value_with_exists() {
        assert_eq!(
            check(json!({"key": "k", "operator": "Exists", "value": "v"})),
            [invalid(
                "spec.tolerations[0].operator",
                "Invalid value: \"v\": value must be empty when `operator` is 'Exists'"
            )]
        );
    }

    #[test]
    fn validate_tolerations_wants_a_label_value_with_equal() {
        let long = "a".repeat(64);
        let causes = check(json!({"key": "k", "value": format!("{long}-")}));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].1, "spec.tolerations[0].operator");
        assert!(
            causes[0]
                .2
                .contains(": must be no more than 63 characters;a valid label must be")
        );
    }

    #[test]
    fn validate_tolerations_refuses_other_operators_and_effects() {
        assert_eq!(
            check(json!({"key": "k", "operator": "Gt", "value": "5", "effect": "Evict"})),
            [
                (
                    "FieldValueNotSupported".into(),
                    "spec.tolerations[0].operator".into(),
                    "Unsupported value: \"Gt\": supported values: \"Equal\", \"Exists\"".into()
                ),
                (
                    "FieldValueNotSupported".into(),
                    "spec.tolerations[0].effect".into(),
                    "Unsupported value: \"Evict\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"".into()
                )
            ]
        );
    }

    #[test]
    fn pod_spec_tolerations_prefix_the_spec_path() {
        let spec =
            json!({"tolerations": [{"operator": "Exists"}, {"key": "k", "operator": "Nope"}]});
        let causes = pod_spec_tolerations(Some(&spec), "spec.template.spec");
        assert_eq!(causes.len(), 1);
        assert_eq!(
            causes[0].field,
            "spec.template.spec.tolerations[1].operator"
        );
        assert!(pod_spec_tolerations(None, "spec").is_empty());
    }
}
