//! What an update of a Job may change (kube's `ValidateJobSpecUpdate`): completions only
//! with parallelism for an elastic Indexed Job; the template only in what a suspended Job
//! may change (scheduling directives and container resources, 1.36's beta gates on); the
//! selector, completionMode, podFailurePolicy, backoffLimitPerIndex, managedBy and
//! successPolicy never.

use super::semantic::{get, immutable_field, semantic_eq, set};
use crate::error::StatusCause;
use crate::field;
use crate::meta;
use serde_json::{Value, json};

/// The rules of `ValidateJobSpecUpdate` after the new Job's own validation, in its order.
pub fn validate_job_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    let null = Value::Null;
    let (spec, old_spec) = (
        new.get("spec").unwrap_or(&null),
        old.get("spec").unwrap_or(&null),
    );
    let mut causes = Vec::new();
    causes.extend(completions_update(spec, old_spec));
    causes.extend(immutable(spec, old_spec, "selector"));
    causes.extend(template_update(spec, old_spec, mutable_scheduling(old)));
    for key in [
        "completionMode",
        "podFailurePolicy",
        "backoffLimitPerIndex",
        "managedBy",
        "successPolicy",
    ] {
        causes.extend(immutable(spec, old_spec, key));
    }
    causes
}

fn immutable(spec: &Value, old: &Value, key: &str) -> Option<StatusCause> {
    immutable_field(&format!("spec.{key}"), get(spec, key), get(old, key))
}

/// `validateCompletions`: immutable unless the Job is Indexed (elastic Indexed Jobs are
/// GA), where a new value must equal the new parallelism.
fn completions_update(spec: &Value, old: &Value) -> Option<StatusCause> {
    let indexed = get(spec, "completionMode").and_then(Value::as_str) == Some("Indexed");
    if !indexed {
        return immutable(spec, old, "completions");
    }
    let completions = get(spec, "completions").filter(|v| !v.is_null())?;
    if semantic_eq(Some(completions), get(old, "completions")) {
        return None;
    }
    (Some(completions) != get(spec, "parallelism")).then(|| {
        field::invalid(
            "spec.completions",
            completions,
            "can only be modified in tandem with spec.parallelism",
        )
    })
}

/// Whether the stored Job lets its template's scheduling directives and resources change
/// (`validationOptionsForJob`, with #139329's fix): suspended, and either never started or
/// `JobSuspended` with no active Pods.
pub fn mutable_scheduling(old: &Value) -> bool {
    let suspended = meta::nested(old, &["spec", "suspend"]).and_then(Value::as_bool) == Some(true);
    let status = old.get("status").unwrap_or(&Value::Null);
    let not_started = get(status, "startTime").is_none_or(Value::is_null);
    let suspended_condition = get(status, "conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|c| {
            get(c, "type").and_then(Value::as_str) == Some("Suspended")
                && get(c, "status").and_then(Value::as_str) == Some("True")
        });
    let active = get(status, "active").and_then(Value::as_i64).unwrap_or(0);
    suspended && (not_started || (suspended_condition && active == 0))
}

/// `validatePodTemplateUpdate`: the template is immutable except, when `mutable`, what
/// upstream takes from the new template before comparing.
fn template_update(spec: &Value, old: &Value, mutable: bool) -> Option<StatusCause> {
    let template = get(spec, "template");
    let mut old_template = get(old, "template").cloned().unwrap_or(Value::Null);
    if mutable && let Some(new_t) = template {
        take_scheduling_directives(&mut old_template, new_t);
        take_container_resources(&mut old_template, new_t);
    }
    immutable_field("spec.template", template, Some(&old_template))
}

/// Node affinity, node selector, tolerations, scheduling gates and the template's labels
/// and annotations, from the new template.
fn take_scheduling_directives(old_t: &mut Value, new_t: &Value) {
    let null = Value::Null;
    let new_spec = new_t.get("spec").unwrap_or(&null);
    let new_affinity = get(new_spec, "affinity").filter(|a| !a.is_null());
    if old_t.get("spec").is_none() {
        set(old_t, "spec", Some(&json!({})));
    }
    if let Some(old_spec) = old_t.get_mut("spec") {
        let old_affinity = get(old_spec, "affinity").filter(|a| !a.is_null()).cloned();
        match (new_affinity, old_affinity) {
            (None, Some(mut a)) => {
                set(&mut a, "nodeAffinity", None);
                let empty = a.as_object().is_some_and(|m| m.is_empty());
                set(old_spec, "affinity", (!empty).then_some(&a));
            }
            (Some(n), old_affinity) => {
                let mut a = old_affinity.unwrap_or_else(|| json!({}));
                set(&mut a, "nodeAffinity", get(n, "nodeAffinity"));
                set(old_spec, "affinity", Some(&a));
            }
            (None, None) => {}
        }
        for key in ["nodeSelector", "tolerations", "schedulingGates"] {
            set(old_spec, key, get(new_spec, key));
        }
    }
    let new_meta = new_t.get("metadata").unwrap_or(&null);
    if old_t.get("metadata").is_none() {
        set(old_t, "metadata", Some(&json!({})));
    }
    if let Some(old_meta) = old_t.get_mut("metadata") {
        for key in ["labels", "annotations"] {
            set(old_meta, key, get(new_meta, key));
        }
    }
}

/// Each container's `resources.requests` and `resources.limits` from the new template
/// (claims stay), matched by index.
fn take_container_resources(old_t: &mut Value, new_t: &Value) {
    for key in ["containers", "initContainers"] {
        let new_list = meta::nested(new_t, &["spec", key]).and_then(Value::as_array);
        let old_list = old_t
            .get_mut("spec")
            .and_then(|s| s.get_mut(key))
            .and_then(Value::as_array_mut);
        let (Some(new_list), Some(old_list)) = (new_list, old_list) else {
            continue;
        };
        for (o, n) in old_list.iter_mut().zip(new_list) {
            let new_res = get(n, "resources").cloned().unwrap_or(Value::Null);
            let mut res = get(o, "resources").cloned().unwrap_or(Value::Null);
            for part in ["requests", "limits"] {
                set(&mut res, part, get(&new_res, part));
            }
            let keep = res.as_object().is_some_and(|m| !m.is_empty());
            set(o, "resources", keep.then_some(&res));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(spec: Value) -> Value {
        let mut s = json!({"selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "u"}},
            "completions": 1, "parallelism": 1, "completionMode": "NonIndexed",
            "template": {"metadata": {"labels": {"a": "b"}},
                "spec": {"containers": [{"name": "c", "image": "busybox"}], "restartPolicy": "Never"}}});
        if let (Some(base), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
            base.extend(extra.clone());
        }
        json!({"metadata": {"name": "j"}, "spec": s})
    }

    fn fields(causes: &[StatusCause]) -> Vec<&str> {
        causes.iter().map(|c| c.field.as_str()).collect()
    }

    #[test]
    fn validate_completions_of_a_non_indexed_job_is_immutable() {
        let causes = validate_job_update(&job(json!({"completions": 5})), &job(json!({})));
        assert_eq!(fields(&causes), ["spec.completions"]);
        assert_eq!(causes[0].message, "Invalid value: 5: field is immutable");
    }

    #[test]
    fn validate_completions_of_an_indexed_job_moves_with_parallelism() {
        let old = job(json!({"completionMode": "Indexed"}));
        let both = job(json!({"completionMode": "Indexed", "completions": 4, "parallelism": 4}));
        assert!(validate_job_update(&both, &old).is_empty());
        let alone = job(json!({"completionMode": "Indexed", "completions": 4}));
        let causes = validate_job_update(&alone, &old);
        assert_eq!(
            causes[0].message,
            "Invalid value: 4: can only be modified in tandem with spec.parallelism"
        );
    }

    #[test]
    fn validate_pod_template_update_refuses_a_running_jobs_template_change() {
        let new = job(json!({"template": {"metadata": {"labels": {"a": "b"}},
            "spec": {"containers": [{"name": "c", "image": "busybox:2"}], "restartPolicy": "Never"}}}));
        let causes = validate_job_update(&new, &job(json!({})));
        assert_eq!(fields(&causes), ["spec.template"]);
        assert!(causes[0].message.ends_with(": field is immutable"));
    }

    #[test]
    fn a_suspended_unstarted_job_may_change_scheduling_directives_and_resources() {
        let old = job(json!({"suspend": true}));
        let new = job(
            json!({"suspend": true, "template": {"metadata": {"labels": {"a": "c"}, "annotations": {"x": "y"}},
            "spec": {"containers": [{"name": "c", "image": "busybox",
                "resources": {"requests": {"cpu": "1"}}}], "restartPolicy": "Never",
                "nodeSelector": {"disk": "ssd"}, "tolerations": [{"key": "k", "operator": "Exists"}],
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                    {"nodeSelectorTerms": [{"matchExpressions": [{"key": "z", "operator": "Exists"}]}]}}}}}}),
        );
        assert!(validate_job_update(&new, &old).is_empty());
    }

    #[test]
    fn a_suspended_jobs_image_stays_immutable() {
        let old = job(json!({"suspend": true}));
        let new = job(
            json!({"suspend": true, "template": {"metadata": {"labels": {"a": "b"}},
            "spec": {"containers": [{"name": "c", "image": "other"}], "restartPolicy": "Never"}}}),
        );
        assert_eq!(fields(&validate_job_update(&new, &old)), ["spec.template"]);
    }

    #[test]
    fn validation_options_for_job_need_suspension_and_no_start_or_a_suspended_condition() {
        let mut old = job(json!({"suspend": true}));
        assert!(mutable_scheduling(&old));
        old["status"] = json!({"startTime": "2026-01-01T00:00:00Z", "active": 1});
        assert!(!mutable_scheduling(&old));
        old["status"] = json!({"startTime": "2026-01-01T00:00:00Z",
            "conditions": [{"type": "Suspended", "status": "True"}]});
        assert!(mutable_scheduling(&old));
        assert!(!mutable_scheduling(&job(json!({"suspend": false}))));
    }

    #[test]
    fn validate_job_spec_update_keeps_the_policies_immutable() {
        let new = job(json!({"backoffLimitPerIndex": 3, "managedBy": "x"}));
        let causes = validate_job_update(&new, &job(json!({})));
        assert_eq!(
            fields(&causes),
            ["spec.backoffLimitPerIndex", "spec.managedBy"]
        );
        assert_eq!(
            causes[1].message,
            "Invalid value: \"x\": field is immutable"
        );
    }
}
