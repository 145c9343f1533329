//! Table columns of the controllers' kinds (ReplicaSets, StatefulSets, DaemonSets,
//! ReplicationControllers, Jobs, CronJobs, PodTemplates, ControllerRevisions,
//! PodDisruptionBudgets), as kube-apiserver 1.36's printers define them. The server always
//! prints the wide columns (kubectl hides priority 1 without `-o wide`).

use super::printers::{doc, int_at, str_at, template_cells};
use super::workload::{label_map_string, label_selector_string};
use crate::meta::nested;
use crate::table::{Column, ColumnTable, age, age_column, human_duration, name_column};
use serde_json::Value;

const CONTAINERS: &str = "Names of each container in the template.";
const IMAGES: &str = "Images referenced by each container in the template.";

/// `metav1.FormatLabelSelector`: `<none>` for an absent or empty selector.
pub(super) fn selector_cell(sel: Option<&Value>) -> Value {
    match sel.map(label_selector_string) {
        Some(s) if !s.is_empty() => Value::from(s),
        _ => Value::from("<none>"),
    }
}

/// `labels.FormatLabels`: `<none>` for an absent or empty map.
pub(super) fn labels_cell(map: Option<&Value>) -> Value {
    match map.map(label_map_string) {
        Some(s) if !s.is_empty() => Value::from(s),
        _ => Value::from("<none>"),
    }
}

/// The Containers and Images columns over the pod spec at `path`.
fn container_columns(names: fn(&Value) -> Value, images: fn(&Value) -> Value) -> [Column; 2] {
    [
        Column::new("Containers", "string", CONTAINERS, names).wide(),
        Column::new("Images", "string", IMAGES, images).wide(),
    ]
}

/// Desired, Current, Ready, Age, Containers, Images, Selector: ReplicaSets and
/// ReplicationControllers.
fn replica_columns(
    desired: &'static str,
    current: &'static str,
    ready: &'static str,
    selector: (&'static str, fn(&Value) -> Value),
) -> ColumnTable {
    let [names, images] = container_columns(
        |o| template_cells(o, &["spec", "template", "spec"], "name"),
        |o| template_cells(o, &["spec", "template", "spec"], "image"),
    );
    ColumnTable(vec![
        name_column(),
        Column::new("Desired", "integer", desired, |o| {
            Value::from(int_at(o, &["spec", "replicas"]))
        }),
        Column::new("Current", "integer", current, |o| {
            Value::from(int_at(o, &["status", "replicas"]))
        }),
        Column::new("Ready", "integer", ready, |o| {
            Value::from(int_at(o, &["status", "readyReplicas"]))
        }),
        age_column(),
        names,
        images,
        Column::new("Selector", "string", selector.0, selector.1).wide(),
    ])
}

/// ReplicaSets.
pub fn replicasets() -> ColumnTable {
    const M: &str = "io.k8s.api.extensions.v1beta1.ReplicaSetSpec";
    const S: &str = "io.k8s.api.extensions.v1beta1.ReplicaSetStatus";
    replica_columns(
        doc(M, "replicas"),
        doc(S, "replicas"),
        doc(S, "readyReplicas"),
        (doc(M, "selector"), |o| {
            selector_cell(nested(o, &["spec", "selector"]))
        }),
    )
}

/// ReplicationControllers (their selector is a plain map).
pub fn replicationcontrollers() -> ColumnTable {
    const M: &str = "io.k8s.api.core.v1.ReplicationControllerSpec";
    const S: &str = "io.k8s.api.core.v1.ReplicationControllerStatus";
    replica_columns(
        doc(M, "replicas"),
        doc(S, "replicas"),
        doc(S, "readyReplicas"),
        (doc(M, "selector"), |o| {
            labels_cell(nested(o, &["spec", "selector"]))
        }),
    )
}

/// StatefulSets: Name, Ready, Age, Containers, Images.
pub fn statefulsets() -> ColumnTable {
    let [names, images] = container_columns(
        |o| template_cells(o, &["spec", "template", "spec"], "name"),
        |o| template_cells(o, &["spec", "template", "spec"], "image"),
    );
    ColumnTable(vec![
        name_column(),
        super::printers::ready_replicas_column(),
        age_column(),
        names,
        images,
    ])
}

/// DaemonSets: Name, Desired, Current, Ready, Up-to-date, Available, Node Selector, Age,
/// Containers, Images, Selector.
pub fn daemonsets() -> ColumnTable {
    const S: &str = "io.k8s.api.extensions.v1beta1.DaemonSetStatus";
    let [names, images] = container_columns(
        |o| template_cells(o, &["spec", "template", "spec"], "name"),
        |o| template_cells(o, &["spec", "template", "spec"], "image"),
    );
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Desired",
            "integer",
            doc(S, "desiredNumberScheduled"),
            |o| Value::from(int_at(o, &["status", "desiredNumberScheduled"])),
        ),
        Column::new(
            "Current",
            "integer",
            doc(S, "currentNumberScheduled"),
            |o| Value::from(int_at(o, &["status", "currentNumberScheduled"])),
        ),
        Column::new("Ready", "integer", doc(S, "numberReady"), |o| {
            Value::from(int_at(o, &["status", "numberReady"]))
        }),
        Column::new(
            "Up-to-date",
            "integer",
            doc(S, "updatedNumberScheduled"),
            |o| Value::from(int_at(o, &["status", "updatedNumberScheduled"])),
        ),
        Column::new("Available", "integer", doc(S, "numberAvailable"), |o| {
            Value::from(int_at(o, &["status", "numberAvailable"]))
        }),
        Column::new(
            "Node Selector",
            "string",
            doc("io.k8s.api.core.v1.PodSpec", "nodeSelector"),
            |o| labels_cell(nested(o, &["spec", "template", "spec", "nodeSelector"])),
        ),
        age_column(),
        names,
        images,
        Column::new(
            "Selector",
            "string",
            doc("io.k8s.api.extensions.v1beta1.DaemonSetSpec", "selector"),
            |o| selector_cell(nested(o, &["spec", "selector"])),
        )
        .wide(),
    ])
}

/// Whether the first condition of `kind` is True (printJob's check).
fn first_condition_true(o: &Value, kind: &str) -> bool {
    nested(o, &["status", "conditions"])
        .and_then(Value::as_array)
        .and_then(|cs| cs.iter().find(|c| c["type"] == kind))
        .is_some_and(|c| c["status"] == "True")
}

fn job_status(o: &Value) -> Value {
    let status = if first_condition_true(o, "Complete") {
        "Complete"
    } else if first_condition_true(o, "Failed") {
        "Failed"
    } else if nested(o, &["metadata", "deletionTimestamp"]).is_some_and(|t| !t.is_null()) {
        "Terminating"
    } else if first_condition_true(o, "Suspended") {
        "Suspended"
    } else if first_condition_true(o, "FailureTarget") {
        "FailureTarget"
    } else if first_condition_true(o, "SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else {
        "Running"
    };
    Value::from(status)
}

fn job_completions(o: &Value) -> Value {
    let succeeded = int_at(o, &["status", "succeeded"]);
    let text = match nested(o, &["spec", "completions"]).and_then(Value::as_i64) {
        Some(c) => format!("{succeeded}/{c}"),
        None => match int_at(o, &["spec", "parallelism"]) {
            p if p > 1 => format!("{succeeded}/1 of {p}"),
            _ => format!("{succeeded}/1"),
        },
    };
    Value::from(text)
}

fn seconds_between(from: &str, to: Option<&str>) -> Option<i64> {
    let start = chrono::DateTime::parse_from_rfc3339(from).ok()?;
    let end = match to {
        Some(t) => chrono::DateTime::parse_from_rfc3339(t).ok()?.to_utc(),
        None => chrono::Utc::now(),
    };
    Some(end.signed_duration_since(start).num_seconds())
}

fn job_duration(o: &Value) -> Value {
    let Some(start) = str_at(o, &["status", "startTime"]) else {
        return Value::from("");
    };
    let end = str_at(o, &["status", "completionTime"]);
    Value::from(
        seconds_between(start, end)
            .map(human_duration)
            .unwrap_or_default(),
    )
}

/// Jobs: Name, Status, Completions, Duration, Age, Containers, Images, Selector.
pub fn jobs() -> ColumnTable {
    let [names, images] = container_columns(
        |o| template_cells(o, &["spec", "template", "spec"], "name"),
        |o| template_cells(o, &["spec", "template", "spec"], "image"),
    );
    ColumnTable(vec![
        name_column(),
        Column::new("Status", "string", "Status of the job.", job_status),
        Column::new(
            "Completions",
            "string",
            doc("io.k8s.api.batch.v1.JobStatus", "succeeded"),
            job_completions,
        ),
        Column::new(
            "Duration",
            "string",
            "Time required to complete the job.",
            job_duration,
        ),
        age_column(),
        names,
        images,
        Column::new(
            "Selector",
            "string",
            doc("io.k8s.api.batch.v1.JobSpec", "selector"),
            |o| selector_cell(nested(o, &["spec", "selector"])),
        )
        .wide(),
    ])
}

/// CronJobs: Name, Schedule, Timezone, Suspend, Active, Last Schedule, Age, Containers,
/// Images, Selector.
pub fn cronjobs() -> ColumnTable {
    const M: &str = "io.k8s.api.batch.v1beta1.CronJobSpec";
    const S: &str = "io.k8s.api.batch.v1beta1.CronJobStatus";
    const POD: &[&str] = &["spec", "jobTemplate", "spec", "template", "spec"];
    let [names, images] = container_columns(
        |o| template_cells(o, POD, "name"),
        |o| template_cells(o, POD, "image"),
    );
    ColumnTable(vec![
        name_column(),
        Column::new("Schedule", "string", doc(M, "schedule"), |o| {
            Value::from(str_at(o, &["spec", "schedule"]).unwrap_or_default())
        }),
        Column::new("Timezone", "string", doc(M, "timeZone"), |o| {
            Value::from(str_at(o, &["spec", "timeZone"]).unwrap_or("<none>"))
        }),
        // Declared boolean, printed as a string (printBoolPtr).
        Column::new("Suspend", "boolean", doc(M, "suspend"), |o| {
            Value::from(
                match nested(o, &["spec", "suspend"]).and_then(Value::as_bool) {
                    Some(true) => "True",
                    Some(false) => "False",
                    None => "<unset>",
                },
            )
        }),
        Column::new("Active", "integer", doc(S, "active"), |o| {
            Value::from(
                nested(o, &["status", "active"])
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len),
            )
        }),
        Column::new("Last Schedule", "string", doc(S, "lastScheduleTime"), |o| {
            Value::from(match str_at(o, &["status", "lastScheduleTime"]) {
                Some(t) => age(t),
                None => "<none>".to_owned(),
            })
        }),
        age_column(),
        names,
        images,
        Column::new(
            "Selector",
            "string",
            doc("io.k8s.api.batch.v1.JobSpec", "selector"),
            |o| selector_cell(nested(o, &["spec", "jobTemplate", "spec", "selector"])),
        )
        .wide(),
    ])
}

/// PodTemplates: Name, Containers, Images, Pod Labels (no Age).
pub fn podtemplates() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new("Containers", "string", CONTAINERS, |o| {
            template_cells(o, &["template", "spec"], "name")
        }),
        Column::new("Images", "string", IMAGES, |o| {
            template_cells(o, &["template", "spec"], "image")
        }),
        Column::new(
            "Pod Labels",
            "string",
            "The labels for the pod template.",
            |o| labels_cell(nested(o, &["template", "metadata", "labels"])),
        ),
    ])
}

/// The controller owner of an object as `kind.group/name` (lower-cased), `<none>` without one.
fn controller_of(o: &Value) -> Value {
    let owner = nested(o, &["metadata", "ownerReferences"])
        .and_then(Value::as_array)
        .and_then(|refs| refs.iter().find(|r| r["controller"] == true));
    let Some(owner) = owner else {
        return Value::from("<none>");
    };
    let api_version = owner["apiVersion"].as_str().unwrap_or_default();
    let group = match api_version.split_once('/') {
        Some((g, _)) => g,
        None => "",
    };
    let kind = owner["kind"].as_str().unwrap_or_default();
    let name = owner["name"].as_str().unwrap_or_default();
    if group.is_empty() && kind.is_empty() {
        return Value::from(name);
    }
    let kind_group = if group.is_empty() {
        kind.to_owned()
    } else {
        format!("{kind}.{group}")
    };
    Value::from(format!("{}/{name}", kind_group.to_lowercase()))
}

/// ControllerRevisions: Name, Controller, Revision, Age.
pub fn controllerrevisions() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Controller",
            "string",
            "Controller of the object",
            controller_of,
        ),
        Column::new(
            "Revision",
            "string",
            doc("io.k8s.api.apps.v1beta1.ControllerRevision", "revision"),
            |o| Value::from(int_at(o, &["revision"])),
        ),
        age_column(),
    ])
}

fn int_or_string(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => Value::from(s.clone()),
        Some(Value::Number(n)) => Value::from(n.to_string()),
        _ => Value::from("N/A"),
    }
}

/// PodDisruptionBudgets: Name, Min Available, Max Unavailable, Allowed Disruptions, Age.
pub fn poddisruptionbudgets() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Min Available",
            "string",
            "The minimum number of pods that must be available.",
            |o| int_or_string(nested(o, &["spec", "minAvailable"])),
        ),
        Column::new(
            "Max Unavailable",
            "string",
            "The maximum number of pods that may be unavailable.",
            |o| int_or_string(nested(o, &["spec", "maxUnavailable"])),
        ),
        Column::new(
            "Allowed Disruptions",
            "integer",
            "Calculated number of pods that may be disrupted at this time.",
            |o| Value::from(int_at(o, &["status", "disruptionsAllowed"])),
        ),
        age_column(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cells(table: ColumnTable, o: &Value) -> Vec<Value> {
        table.0.iter().map(|c| (c.cell)(o)).collect()
    }

    #[test]
    fn a_job_prints_complete_and_completions_of_its_spec() {
        let job = json!({"metadata": {"name": "pi"},
            "spec": {"completions": 3, "selector": {"matchLabels": {"a": "b"}},
                "template": {"spec": {"containers": [{"name": "pi", "image": "perl"}]}}},
            "status": {"succeeded": 3, "startTime": "2026-01-01T00:00:00Z",
                "completionTime": "2026-01-01T00:01:30Z",
                "conditions": [{"type": "Complete", "status": "True"}]}});
        let c = cells(jobs(), &job);
        assert_eq!(c[1], "Complete");
        assert_eq!(c[2], "3/3");
        assert_eq!(c[3], "90s");
        assert_eq!(c[5], "pi");
        assert_eq!(c[7], "a=b");
    }

    #[test]
    fn a_parallel_job_without_completions_prints_one_of_its_parallelism() {
        let job = json!({"spec": {"parallelism": 4}, "status": {"succeeded": 1}});
        assert_eq!(job_completions(&job), "1/1 of 4");
        assert_eq!(job_status(&job), "Running");
        assert_eq!(job_duration(&job), "");
    }

    #[test]
    fn a_cronjob_prints_suspend_as_a_string_and_counts_active_jobs() {
        let cj = json!({"spec": {"schedule": "*/1 * * * *", "suspend": false},
            "status": {"active": [{"name": "a"}, {"name": "b"}]}});
        let c = cells(cronjobs(), &cj);
        assert_eq!(c[1], "*/1 * * * *");
        assert_eq!(c[2], "<none>");
        assert_eq!(c[3], "False");
        assert_eq!(c[4], 2);
        assert_eq!(c[5], "<none>");
    }

    #[test]
    fn a_controller_revision_names_its_controller_kind_and_group() {
        let cr = json!({"revision": 2, "metadata": {"ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "web", "controller": true}]}});
        let c = cells(controllerrevisions(), &cr);
        assert_eq!(c[1], "statefulset.apps/web");
        assert_eq!(c[2], 2);
    }

    #[test]
    fn a_budget_prints_na_for_the_bound_it_does_not_set() {
        let pdb = json!({"spec": {"minAvailable": "50%"}, "status": {"disruptionsAllowed": 1}});
        let c = cells(poddisruptionbudgets(), &pdb);
        assert_eq!(c[1..4], [json!("50%"), json!("N/A"), json!(1)]);
    }
}
