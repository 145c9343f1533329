//! What an update of an apps/v1 controller may change: a Deployment's, ReplicaSet's or
//! DaemonSet's selector never (their strategies' `ValidateImmutableField`), a
//! StatefulSet's spec only in the fields `ValidateStatefulSetUpdate` lists (its selector is
//! covered by that one `spec` error, with no rule of its own).

use super::semantic::{get, immutable_field, semantic_eq, set};
use crate::error::StatusCause;
use crate::field;
use serde_json::Value;

/// The fields of a StatefulSet's spec an update may change.
const STATEFULSET_MUTABLE: [&str; 7] = [
    "replicas",
    "template",
    "updateStrategy",
    "minReadySeconds",
    "ordinals",
    "persistentVolumeClaimRetentionPolicy",
    "revisionHistoryLimit",
];

/// `ValidateStatefulSetUpdate`'s message (1.36, with `revisionHistoryLimit`).
const STATEFULSET_FORBIDDEN: &str = "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/// A Deployment's, ReplicaSet's or DaemonSet's `spec.selector` is immutable.
pub fn selector_update(new: &Value, old: &Value) -> Option<StatusCause> {
    fn selector(o: &Value) -> Option<&Value> {
        o.get("spec").and_then(|s| get(s, "selector"))
    }
    immutable_field("spec.selector", selector(new), selector(old))
}

/// `ValidateStatefulSetUpdate`: the new spec with the mutable fields taken from the old
/// one must equal the old spec (no diff, no period: upstream's text).
pub fn statefulset_update(new: &Value, old: &Value) -> Option<StatusCause> {
    let null = Value::Null;
    let old_spec = old.get("spec").unwrap_or(&null);
    let mut spec = new.get("spec").cloned().unwrap_or(Value::Null);
    for key in STATEFULSET_MUTABLE {
        set(&mut spec, key, get(old_spec, key));
    }
    (!semantic_eq(Some(&spec), Some(old_spec)))
        .then(|| field::forbidden("spec", STATEFULSET_FORBIDDEN))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sts(spec: Value) -> Value {
        let mut s = json!({"replicas": 1, "serviceName": "web",
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}}});
        if let (Some(base), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
            base.extend(extra.clone());
        }
        json!({"spec": s})
    }

    #[test]
    fn validate_statefulset_update_allows_replicas_template_and_strategy() {
        let new = sts(json!({"replicas": 3, "minReadySeconds": 5,
            "updateStrategy": {"type": "OnDelete"}, "revisionHistoryLimit": 2,
            "template": {"metadata": {"labels": {"app": "web", "v": "2"}}}}));
        assert!(statefulset_update(&new, &sts(json!({}))).is_none());
    }

    #[test]
    fn validate_statefulset_update_forbids_a_new_selector_as_a_spec_change() {
        let new = sts(json!({"selector": {"matchLabels": {"app": "other"}}}));
        let cause = statefulset_update(&new, &sts(json!({}))).unwrap();
        assert_eq!(cause.field, "spec");
        assert_eq!(cause.message, format!("Forbidden: {STATEFULSET_FORBIDDEN}"));
    }

    #[test]
    fn validate_statefulset_update_forbids_a_new_service_name() {
        let new = sts(json!({"serviceName": "other"}));
        assert!(statefulset_update(&new, &sts(json!({}))).is_some());
    }

    #[test]
    fn a_deployments_selector_compares_semantically() {
        let old = json!({"spec": {"selector": {"matchLabels": {"app": "a"}}}});
        let same =
            json!({"spec": {"selector": {"matchLabels": {"app": "a"}, "matchExpressions": []}}});
        assert!(selector_update(&same, &old).is_none());
        let other = json!({"spec": {"selector": {"matchLabels": {"app": "b"}}}});
        assert_eq!(
            selector_update(&other, &old).map(|c| c.message),
            Some("Invalid value: {\"matchLabels\":{\"app\":\"b\"}}: field is immutable".to_owned())
        );
    }
}
