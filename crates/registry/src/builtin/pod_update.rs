//! What an update of a Pod's main resource may change (kube's `ValidatePodUpdate`):
//! images, a shorter `activeDeadlineSeconds`, added tolerations, removed scheduling gates,
//! a negative grace period set to 1, and for a gated Pod added node selectors and node
//! affinity; anything else is the `spec` Forbidden with upstream's text and kapi's diff.

use super::internal_json;
use super::semantic::{get, is_empty, items, semantic_eq, set};
use super::spec_diff::json_diff;
use super::tolerations::validate_tolerations;
use crate::error::StatusCause;
use crate::field;
use serde_json::{Value, json};

/// `updatablePodSpecFields` joined as upstream's message has them.
const UPDATABLE: &str = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

const MIRROR: &str = "kubernetes.io/config.mirror";
const APPARMOR_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// The update rules of `ValidatePodUpdate` after metadata and the new Pod's own validation.
pub fn validate_pod_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    let mut causes = annotation_updates(new, old);
    let null = Value::Null;
    let (spec, old_spec) = (
        new.get("spec").unwrap_or(&null),
        old.get("spec").unwrap_or(&null),
    );
    for key in ["containers", "initContainers"] {
        if container_updates(spec, old_spec, key, &mut causes) {
            return causes;
        }
    }
    if active_deadline_update(spec, old_spec, &mut causes) {
        return causes;
    }
    only_added_tolerations(spec, old_spec, &mut causes);
    only_deleted_scheduling_gates(spec, old_spec, &mut causes);
    if semantic_eq(Some(spec), Some(old_spec)) {
        return causes;
    }
    let munged = munged_spec(spec, old_spec, &mut causes);
    if !semantic_eq(Some(&munged), Some(old_spec)) {
        let diff = json_diff(Some(old_spec), Some(&munged));
        causes.push(field::forbidden("spec", &format!("{UPDATABLE}\n{diff}")));
    }
    causes
}

/// `ValidatePodSpecificAnnotationUpdates`: the mirror-pod and AppArmor annotations may be
/// neither added, changed nor removed.
fn annotation_updates(new: &Value, old: &Value) -> Vec<StatusCause> {
    let annotations = |o: &Value| {
        o.get("metadata")
            .and_then(|m| m.get("annotations"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let (new_a, old_a) = (annotations(new), annotations(old));
    let guarded = |k: &str| (k == MIRROR, k.starts_with(APPARMOR_PREFIX));
    let mut causes = Vec::new();
    for (k, v) in &old_a {
        if new_a.get(k) == Some(v) {
            continue;
        }
        let path = format!("metadata.annotations[{k}]");
        match guarded(k) {
            (_, true) => causes.push(field::forbidden(
                &path,
                "may not remove or update AppArmor annotations",
            )),
            (true, _) => causes.push(field::forbidden(
                &path,
                "may not remove or update mirror pod annotation",
            )),
            _ => {}
        }
    }
    for k in new_a.keys().filter(|k| !old_a.contains_key(*k)) {
        let path = format!("metadata.annotations[{k}]");
        match guarded(k) {
            (_, true) => causes.push(field::forbidden(&path, "may not add AppArmor annotations")),
            (true, _) => causes.push(field::forbidden(&path, "may not add mirror pod annotation")),
            _ => {}
        }
    }
    causes
}

/// `ValidateContainerUpdates`: the same number of containers, each with an image without
/// surrounding whitespace. Returns whether validation stops here.
fn container_updates(spec: &Value, old: &Value, key: &str, causes: &mut Vec<StatusCause>) -> bool {
    let (new_c, old_c) = (items(spec, key), items(old, key));
    if new_c.len() != old_c.len() {
        causes.push(field::forbidden(
            &format!("spec.{key}"),
            "pod updates may not add or remove containers",
        ));
        return true;
    }
    image_problems(new_c, key, causes);
    false
}

/// Each container of `spec.<key>` has an image without surrounding whitespace
/// (`validateContainersOnlyForPod`; re-checked by `ValidateContainerUpdates`).
pub(super) fn image_problems(containers: &[Value], key: &str, causes: &mut Vec<StatusCause>) {
    for (i, c) in containers.iter().enumerate() {
        let image = get(c, "image").and_then(Value::as_str).unwrap_or_default();
        let path = format!("spec.{key}[{i}].image");
        if image.is_empty() {
            causes.push(field::required(&path, ""));
        } else if image.trim() != image {
            causes.push(field::invalid(
                &path,
                &json!(image),
                "must not have leading or trailing whitespace",
            ));
        }
    }
}

/// `activeDeadlineSeconds` may be set, or lowered, never raised nor removed. Returns
/// whether validation stops here.
fn active_deadline_update(spec: &Value, old: &Value, causes: &mut Vec<StatusCause>) -> bool {
    const PATH: &str = "spec.activeDeadlineSeconds";
    let new_v = get(spec, "activeDeadlineSeconds").filter(|v| !v.is_null());
    let old_v = get(old, "activeDeadlineSeconds").and_then(Value::as_i64);
    let Some(value) = new_v else {
        if old_v.is_some() {
            causes.push(field::invalid(
                PATH,
                &Value::Null,
                "must not update from a positive integer to nil value",
            ));
        }
        return false;
    };
    let n = value.as_i64();
    if n.is_none_or(|n| !(0..=i64::from(i32::MAX)).contains(&n)) {
        causes.push(field::invalid(
            PATH,
            value,
            "must be between 0 and 2147483647, inclusive",
        ));
        return true;
    }
    if old_v.is_some_and(|o| n.is_some_and(|n| o < n)) {
        causes.push(field::invalid(
            PATH,
            value,
            "must be less than or equal to previous value",
        ));
        return true;
    }
    false
}

/// A toleration without its `tolerationSeconds`, as a comparable key: its other fields,
/// empty ones left out (an empty string and an absent field are the same toleration).
fn toleration_key(t: &Value) -> String {
    let mut fields: Vec<(&String, &Value)> = t
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, v)| {
            k.as_str() != "tolerationSeconds" && !v.is_null() && v.as_str() != Some("")
        })
        .collect();
    fields.sort_by(|a, b| a.0.cmp(b.0));
    serde_json::to_string(&fields).unwrap_or_default()
}

/// `validateOnlyAddedTolerations`: every old toleration is still there, only its
/// `tolerationSeconds` may differ (reported once); if so, the new list is checked again
/// (`ValidateTolerations`, so a bad toleration's causes appear twice on an update, as
/// upstream's do). Linear in both lists: a set of the new ones' keys.
fn only_added_tolerations(spec: &Value, old: &Value, causes: &mut Vec<StatusCause>) {
    let (new_t, old_t) = (items(spec, "tolerations"), items(old, "tolerations"));
    let kept = new_t == old_t || {
        let present: std::collections::HashSet<String> = new_t.iter().map(toleration_key).collect();
        old_t.iter().all(|o| present.contains(&toleration_key(o)))
    };
    if kept {
        causes.extend(validate_tolerations(new_t, "spec.tolerations"));
    } else {
        causes.push(field::forbidden(
            "spec.tolerations",
            "existing toleration can not be modified except its tolerationSeconds",
        ));
    }
}

/// `validateOnlyDeletedSchedulingGates`: no gate the old Pod did not have.
fn only_deleted_scheduling_gates(spec: &Value, old: &Value, causes: &mut Vec<StatusCause>) {
    let name = |g: &Value| {
        get(g, "name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let old_names: std::collections::HashSet<String> =
        items(old, "schedulingGates").iter().map(name).collect();
    for (i, gate) in items(spec, "schedulingGates").iter().enumerate() {
        let n = name(gate);
        if !old_names.contains(&n) {
            causes.push(field::forbidden(
                &format!("spec.schedulingGates[{i}].name"),
                &format!("only deletion is allowed, but found new scheduling gate '{n}'"),
            ));
        }
    }
}

/// The new spec with what may change taken from the old one (upstream's `mungedPodSpec`);
/// the mutations of a gated Pod's node selector and node affinity are checked on the way.
fn munged_spec(spec: &Value, old: &Value, causes: &mut Vec<StatusCause>) -> Value {
    let mut munged = spec.clone();
    for key in ["containers", "initContainers"] {
        let old_c = items(old, key);
        if let Some(list) = munged.get_mut(key).and_then(Value::as_array_mut) {
            for (c, o) in list.iter_mut().zip(old_c) {
                set(c, "image", get(o, "image"));
            }
        }
    }
    for key in ["activeDeadlineSeconds", "schedulingGates", "tolerations"] {
        set(&mut munged, key, get(old, key));
    }
    let grace = |s: &Value| get(s, "terminationGracePeriodSeconds").and_then(Value::as_i64);
    if grace(old).is_some_and(|g| g < 0) && grace(&munged) == Some(1) {
        set(
            &mut munged,
            "terminationGracePeriodSeconds",
            get(old, "terminationGracePeriodSeconds"),
        );
    }
    if !is_empty(get(old, "schedulingGates")) {
        gated_node_selector(&mut munged, old, causes);
        gated_node_affinity(&mut munged, old, causes);
    }
    munged
}

/// A gated Pod may add node selectors, not change or remove them.
fn gated_node_selector(munged: &mut Value, old: &Value, causes: &mut Vec<StatusCause>) {
    let (new_s, old_s) = (get(munged, "nodeSelector"), get(old, "nodeSelector"));
    if semantic_eq(new_s, old_s) {
        return;
    }
    let kept = old_s
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .all(|(k, v)| new_s.and_then(|n| n.get(k)) == Some(v));
    if !kept {
        causes.push(field::invalid(
            "spec.nodeSelector",
            new_s.unwrap_or(&Value::Null),
            "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
        ));
    }
    set(munged, "nodeSelector", old_s);
}

fn node_affinity(spec: &Value) -> Option<&Value> {
    get(spec, "affinity")
        .and_then(|a| get(a, "nodeAffinity"))
        .filter(|v| !v.is_null())
}

/// A gated Pod may add node affinity terms' requirements (`validateNodeAffinityMutation`);
/// the node affinity is then taken from the old Pod for the final comparison.
fn gated_node_affinity(munged: &mut Value, old: &Value, causes: &mut Vec<StatusCause>) {
    let old_na = node_affinity(old).cloned();
    let new_na = node_affinity(munged).cloned();
    if semantic_eq(new_na.as_ref(), old_na.as_ref()) {
        return;
    }
    causes.extend(node_affinity_mutation(new_na.as_ref(), old_na.as_ref()));
    let present = |v: &Value, key: &str| get(v, key).is_some_and(|x| !x.is_null());
    let new_affinity = get(munged, "affinity").filter(|a| !a.is_null()).cloned();
    match new_affinity {
        None => {
            if let Some(na) = &old_na {
                set(munged, "affinity", Some(&json!({"nodeAffinity": na})));
            }
        }
        Some(a)
            if !present(old, "affinity")
                && !present(&a, "podAffinity")
                && !present(&a, "podAntiAffinity") =>
        {
            set(munged, "affinity", None)
        }
        Some(_) => {
            if let Some(affinity) = munged.get_mut("affinity") {
                set(affinity, "nodeAffinity", old_na.as_ref());
            }
        }
    }
}

fn required_terms(na: Option<&Value>) -> Option<&[Value]> {
    let required = na
        .and_then(|n| get(n, "requiredDuringSchedulingIgnoredDuringExecution"))
        .filter(|r| !r.is_null())?;
    Some(items(required, "nodeSelectorTerms"))
}

/// `validateNodeAffinityMutation`: a non-empty list of required terms keeps its length,
/// and each term only gains requirements.
fn node_affinity_mutation(new: Option<&Value>, old: Option<&Value>) -> Vec<StatusCause> {
    const PATH: &str = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
    let Some(old_terms) = required_terms(old) else {
        return Vec::new();
    };
    let new_terms = required_terms(new).unwrap_or_default();
    if !old_terms.is_empty() && old_terms.len() != new_terms.len() {
        return vec![field::invalid(
            PATH,
            &internal_json::node_selector_terms(Some(&json!(new_terms))),
            "no additions/deletions to non-empty NodeSelectorTerms list are allowed",
        )];
    }
    old_terms
        .iter()
        .zip(new_terms)
        .enumerate()
        .filter(|(_, (o, n))| !term_has_only_additions(n, o))
        .map(|(i, (_, n))| {
            field::invalid(
                &format!("{PATH}[{i}]"),
                &internal_json::node_selector_term(n),
                "only additions are allowed (no mutations or deletions)",
            )
        })
        .collect()
}

/// `validateNodeSelectorTermHasOnlyAdditions`.
fn term_has_only_additions(new: &Value, old: &Value) -> bool {
    let list = |t: &Value, k: &str| items(t, k).to_vec();
    let old_empty = list(old, "matchExpressions").is_empty() && list(old, "matchFields").is_empty();
    let new_empty = list(new, "matchExpressions").is_empty() && list(new, "matchFields").is_empty();
    if old_empty && !new_empty {
        return false;
    }
    ["matchExpressions", "matchFields"].iter().all(|k| {
        let (o, n) = (list(old, k), list(new, k));
        o.is_empty()
            || (n.len() >= o.len() && semantic_eq(Some(&json!(n[..o.len()])), Some(&json!(o))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(spec: Value) -> Value {
        json!({"metadata": {"name": "p"}, "spec": spec})
    }

    fn base() -> Value {
        json!({"containers": [{"name": "c", "image": "nginx"}], "restartPolicy": "Always"})
    }

    fn with(mut spec: Value, key: &str, value: Value) -> Value {
        spec[key] = value;
        spec
    }

    fn fields(causes: &[StatusCause]) -> Vec<&str> {
        causes.iter().map(|c| c.field.as_str()).collect()
    }

    #[test]
    fn validate_pod_update_allows_a_new_image() {
        let new = with(
            base(),
            "containers",
            json!([{"name": "c", "image": "nginx:2"}]),
        );
        assert!(validate_pod_update(&pod(new), &pod(base())).is_empty());
    }

    #[test]
    fn validate_container_updates_refuses_an_added_container_and_stops() {
        let new = with(
            base(),
            "containers",
            json!([{"name": "c", "image": "nginx"}, {"name": "d", "image": "x"}]),
        );
        let causes = validate_pod_update(&pod(new), &pod(base()));
        assert_eq!(fields(&causes), ["spec.containers"]);
        assert_eq!(
            causes[0].message,
            "Forbidden: pod updates may not add or remove containers"
        );
    }

    #[test]
    fn validate_container_updates_wants_an_image_without_surrounding_spaces() {
        let new = with(base(), "containers", json!([{"name": "c", "image": " x"}]));
        let causes = validate_pod_update(&pod(new), &pod(base()));
        assert_eq!(
            causes[0].message,
            "Invalid value: \" x\": must not have leading or trailing whitespace"
        );
        let empty = with(base(), "containers", json!([{"name": "c"}]));
        let causes = validate_pod_update(&pod(empty), &pod(base()));
        assert_eq!(fields(&causes)[0], "spec.containers[0].image");
        assert_eq!(causes[0].message, "Required value");
    }

    #[test]
    fn validate_pod_update_lets_active_deadline_only_go_down() {
        let old = with(base(), "activeDeadlineSeconds", json!(30));
        let up = with(base(), "activeDeadlineSeconds", json!(60));
        let causes = validate_pod_update(&pod(up), &pod(old.clone()));
        assert_eq!(causes.len(), 1);
        assert_eq!(
            causes[0].message,
            "Invalid value: 60: must be less than or equal to previous value"
        );
        let down = with(base(), "activeDeadlineSeconds", json!(10));
        assert!(validate_pod_update(&pod(down), &pod(old.clone())).is_empty());
        let causes = validate_pod_update(&pod(base()), &pod(old));
        assert_eq!(
            causes[0].message,
            "Invalid value: null: must not update from a positive integer to nil value"
        );
        let negative = with(base(), "activeDeadlineSeconds", json!(-5));
        let causes = validate_pod_update(&pod(negative), &pod(base()));
        assert_eq!(
            causes[0].message,
            "Invalid value: -5: must be between 0 and 2147483647, inclusive"
        );
    }

    #[test]
    fn validate_only_added_tolerations_allows_new_seconds_and_additions() {
        let t = json!({"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 5});
        let old = with(base(), "tolerations", json!([t]));
        let mut t2 = t.clone();
        t2["tolerationSeconds"] = json!(10);
        let new = with(
            base(),
            "tolerations",
            json!([t2, {"key": "other", "operator": "Exists"}]),
        );
        assert!(validate_pod_update(&pod(new), &pod(old.clone())).is_empty());
        let changed = with(
            base(),
            "tolerations",
            json!([{"key": "k2", "operator": "Exists"}]),
        );
        let causes = validate_pod_update(&pod(changed), &pod(old));
        assert_eq!(fields(&causes), ["spec.tolerations"]);
        assert_eq!(
            causes[0].message,
            "Forbidden: existing toleration can not be modified except its tolerationSeconds"
        );
    }

    #[test]
    fn validate_only_deleted_scheduling_gates_names_a_new_gate() {
        let old = with(base(), "schedulingGates", json!([{"name": "a"}]));
        let new = with(
            base(),
            "schedulingGates",
            json!([{"name": "a"}, {"name": "b"}]),
        );
        let causes = validate_pod_update(&pod(new), &pod(old.clone()));
        assert_eq!(fields(&causes), ["spec.schedulingGates[1].name"]);
        assert_eq!(
            causes[0].message,
            "Forbidden: only deletion is allowed, but found new scheduling gate 'b'"
        );
        assert!(validate_pod_update(&pod(base()), &pod(old)).is_empty());
    }

    #[test]
    fn validate_pod_update_refuses_other_spec_changes_with_upstreams_text_and_a_diff() {
        let new = with(base(), "restartPolicy", json!("Never"));
        let causes = validate_pod_update(&pod(new), &pod(base()));
        assert_eq!(fields(&causes), ["spec"]);
        let (text, diff) = causes[0].message.split_once('\n').unwrap();
        assert_eq!(text, format!("Forbidden: {UPDATABLE}"));
        assert!(diff.contains("- \"restartPolicy\": \"Always\"\n"), "{diff}");
        assert!(diff.contains("+ \"restartPolicy\": \"Never\"\n"), "{diff}");
    }

    #[test]
    fn validate_pod_update_lets_a_negative_grace_period_become_one() {
        let old = with(base(), "terminationGracePeriodSeconds", json!(-1));
        let new = with(base(), "terminationGracePeriodSeconds", json!(1));
        assert!(validate_pod_update(&pod(new), &pod(old.clone())).is_empty());
        let other = with(base(), "terminationGracePeriodSeconds", json!(2));
        assert_eq!(
            fields(&validate_pod_update(&pod(other), &pod(old))),
            ["spec"]
        );
    }

    #[test]
    fn validate_node_selector_mutation_lets_a_gated_pod_only_add_selectors() {
        let gated = with(base(), "schedulingGates", json!([{"name": "g"}]));
        let old = with(gated.clone(), "nodeSelector", json!({"a": "1"}));
        let added = with(gated.clone(), "nodeSelector", json!({"a": "1", "b": "2"}));
        assert!(validate_pod_update(&pod(added), &pod(old.clone())).is_empty());
        let changed = with(gated, "nodeSelector", json!({"a": "2"}));
        let causes = validate_pod_update(&pod(changed), &pod(old));
        assert_eq!(fields(&causes), ["spec.nodeSelector"]);
        assert_eq!(
            causes[0].message,
            "Invalid value: {\"a\":\"2\"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)"
        );
    }

    #[test]
    fn an_ungated_pods_node_selector_is_immutable() {
        let new = with(base(), "nodeSelector", json!({"a": "1"}));
        assert_eq!(
            fields(&validate_pod_update(&pod(new), &pod(base()))),
            ["spec"]
        );
    }

    #[test]
    fn validate_node_affinity_mutation_lets_a_gated_pod_add_requirements() {
        let gated = with(base(), "schedulingGates", json!([{"name": "g"}]));
        let term = |exprs: Value| {
            json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                {"nodeSelectorTerms": [{"matchExpressions": exprs}]}}})
        };
        let a = json!({"key": "a", "operator": "Exists"});
        let b = json!({"key": "b", "operator": "In", "values": ["x"]});
        let old = with(gated.clone(), "affinity", term(json!([a])));
        let added = with(gated.clone(), "affinity", term(json!([a, b])));
        assert!(validate_pod_update(&pod(added), &pod(old.clone())).is_empty());
        let replaced = with(gated.clone(), "affinity", term(json!([b])));
        let causes = validate_pod_update(&pod(replaced), &pod(old));
        assert_eq!(
            causes[0].field,
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
        );
        assert_eq!(
            causes[0].message,
            "Invalid value: {\"MatchExpressions\":[{\"Key\":\"b\",\"Operator\":\"In\",\"Values\":[\"x\"]}],\"MatchFields\":null}: only additions are allowed (no mutations or deletions)"
        );
        let from_none = with(gated.clone(), "affinity", term(json!([b])));
        assert!(validate_pod_update(&pod(from_none), &pod(gated)).is_empty());
    }

    #[test]
    fn the_mirror_pod_annotation_may_not_be_added() {
        let mut new = pod(base());
        new["metadata"]["annotations"] = json!({MIRROR: "x"});
        let causes = validate_pod_update(&new, &pod(base()));
        assert_eq!(
            fields(&causes),
            ["metadata.annotations[kubernetes.io/config.mirror]"]
        );
        assert_eq!(
            causes[0].message,
            "Forbidden: may not add mirror pod annotation"
        );
    }
}
