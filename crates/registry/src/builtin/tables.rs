//! Table columns of the built-in kinds, as kube-apiserver's printers define them (goldens
//! `configmap-table.json`, `hpa-table.json`).

use crate::meta::{self, nested};
use crate::table::{Column, ColumnTable, age, age_column, default_table, name_column};
use serde_json::Value;

fn str_at(obj: &Value, path: &[&str]) -> Value {
    Value::String(
        nested(obj, path)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
    )
}

fn count_keys(obj: &Value, fields: &[&str]) -> Value {
    let n: usize = fields
        .iter()
        .filter_map(|f| obj.get(*f).and_then(Value::as_object))
        .map(|m| m.len())
        .sum();
    Value::from(n)
}

/// Namespaces: Name, Status, Age.
pub fn namespaces() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new("Status", "string", "The status of the namespace", |o| {
            str_at(o, &["status", "phase"])
        }),
        age_column(),
    ])
}

/// ConfigMaps: Name, Data, Age.
pub fn configmaps() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Data",
            "string",
            "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
            |o| count_keys(o, &["data", "binaryData"]),
        ),
        age_column(),
    ])
}

/// Secrets: Name, Type, Data, Age.
pub fn secrets() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Type",
            "string",
            "Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types",
            |o| str_at(o, &["type"]),
        ),
        Column::new(
            "Data",
            "string",
            "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
            |o| count_keys(o, &["data", "stringData"]),
        ),
        age_column(),
    ])
}

fn event_last_seen(o: &Value) -> Value {
    let ts = [
        &["lastTimestamp"][..],
        &["eventTime"][..],
        &["series", "lastObservedTime"][..],
        &["metadata", "creationTimestamp"][..],
    ]
    .iter()
    .find_map(|p| {
        nested(o, p)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    })
    .unwrap_or("");
    Value::String(age(ts))
}

fn event_object(o: &Value) -> Value {
    let kind = nested(o, &["involvedObject", "kind"])
        .and_then(Value::as_str)
        .unwrap_or("");
    let name = nested(o, &["involvedObject", "name"])
        .and_then(Value::as_str)
        .unwrap_or("");
    Value::String(format!("{}/{name}", kind.to_lowercase()))
}

fn event_source(o: &Value) -> Value {
    let c = nested(o, &["source", "component"])
        .and_then(Value::as_str)
        .unwrap_or("");
    let h = nested(o, &["source", "host"])
        .and_then(Value::as_str)
        .unwrap_or("");
    Value::String(if h.is_empty() {
        c.to_owned()
    } else {
        format!("{c}, {h}")
    })
}

/// Events: Last Seen, Type, Reason, Object, Message (+ wide: Subobject, Source, First Seen,
/// Count, Name).
pub fn events() -> ColumnTable {
    ColumnTable(vec![
        Column::new(
            "Last Seen",
            "string",
            "Time when last event occurred",
            event_last_seen,
        ),
        Column::new(
            "Type",
            "string",
            "Type of this event (Normal, Warning), new types could be added in the future.",
            |o| str_at(o, &["type"]),
        ),
        Column::new(
            "Reason",
            "string",
            "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
            |o| str_at(o, &["reason"]),
        ),
        Column::new(
            "Object",
            "string",
            "The object that this event is about",
            event_object,
        ),
        Column::new(
            "Subobject",
            "string",
            "The subobject that this event is about",
            |o| str_at(o, &["involvedObject", "fieldPath"]),
        ).wide(),
        Column::new(
            "Source",
            "string",
            "The component reporting this event. Should be a short machine understandable string.",
            event_source,
        ).wide(),
        Column::new(
            "Message",
            "string",
            "A human-readable description of the status of this operation.",
            |o| str_at(o, &["message"]),
        ),
        Column::new(
            "First Seen",
            "string",
            "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)",
            |o| {
                Value::String(age(nested(o, &["firstTimestamp"])
                    .and_then(Value::as_str)
                    .unwrap_or("")))
            },
        ).wide(),
        Column::new(
            "Count",
            "string",
            "The number of times this event has occurred.",
            |o| Value::String(o.get("count").map(|c| c.to_string()).unwrap_or_default()),
        ).wide(),
        Column::new(
            "Name",
            "string",
            crate::table::NAME_DESCRIPTION,
            |o| Value::String(meta::name(o).to_owned()),
        ).wide(),
    ])
}

/// Leases: Name, Holder, Age.
pub fn leases() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new("Holder", "string", "The holder of the lease", |o| {
            str_at(o, &["spec", "holderIdentity"])
        }),
        age_column(),
    ])
}

fn hpa_reference(o: &Value) -> Value {
    let kind = nested(o, &["spec", "scaleTargetRef", "kind"])
        .and_then(Value::as_str)
        .unwrap_or("");
    let name = nested(o, &["spec", "scaleTargetRef", "name"])
        .and_then(Value::as_str)
        .unwrap_or("");
    Value::String(format!("{kind}/{name}"))
}

/// One metric of an autoscaling/v2 HPA, as `kubectl get hpa` prints it.
fn hpa_metric(spec: &Value, current: Option<&Value>) -> String {
    let kind = spec.get("type").and_then(Value::as_str).unwrap_or("");
    let key = match kind {
        "Resource" => "resource",
        "ContainerResource" => "containerResource",
        "Pods" => "pods",
        "Object" => "object",
        "External" => "external",
        _ => return "<unknown type>".into(),
    };
    let src = spec.get(key).cloned().unwrap_or(Value::Null);
    let target = src.get("target").cloned().unwrap_or(Value::Null);
    let cur = current
        .and_then(|c| c.get(key))
        .and_then(|c| c.get("current"));
    let name = src.get("name").and_then(Value::as_str).unwrap_or("");
    if let Some(u) = target.get("averageUtilization") {
        let now = cur
            .and_then(|c| c.get("averageUtilization"))
            .map(|v| format!("{v}%"))
            .unwrap_or_else(|| "<unknown>".into());
        return format!("{name}: {now}/{u}%");
    }
    let field = ["averageValue", "value"]
        .into_iter()
        .find(|f| target.get(*f).is_some())
        .unwrap_or("value");
    let want = target
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or("<unset>");
    let now = cur
        .and_then(|c| c.get(field))
        .and_then(Value::as_str)
        .unwrap_or("<unknown>");
    if name.is_empty() {
        format!("{now}/{want}")
    } else {
        format!("{name}: {now}/{want}")
    }
}

fn hpa_targets(o: &Value) -> Value {
    if let Some(target) = nested(o, &["spec", "targetCPUUtilizationPercentage"]) {
        // autoscaling/v1: one CPU utilization target.
        let now = nested(o, &["status", "currentCPUUtilizationPercentage"])
            .map(|v| format!("{v}%"))
            .unwrap_or_else(|| "<unknown>".into());
        return Value::String(format!("cpu: {now}/{target}%"));
    }
    let metrics = nested(o, &["spec", "metrics"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if metrics.is_empty() {
        return Value::String("<none>".into());
    }
    let current = nested(o, &["status", "currentMetrics"]).and_then(Value::as_array);
    let parts: Vec<String> = metrics
        .iter()
        .enumerate()
        .map(|(i, m)| hpa_metric(m, current.and_then(|c| c.get(i))))
        .collect();
    Value::String(parts.join(", "))
}

/// HorizontalPodAutoscalers: Name, Reference, Targets, MinPods, MaxPods, Replicas, Age.
pub fn hpas() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Reference",
            "string",
            "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
            hpa_reference,
        ),
        Column::new(
            "Targets",
            "string",
            "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.",
            hpa_targets,
        ),
        Column::new(
            "MinPods",
            "string",
            "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.",
            |o| {
                Value::String(
                    nested(o, &["spec", "minReplicas"])
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "<unset>".into()),
                )
            },
        ),
        Column::new(
            "MaxPods",
            "string",
            "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
            |o| {
                nested(o, &["spec", "maxReplicas"])
                    .cloned()
                    .unwrap_or(Value::from(0))
            },
        ),
        Column::new(
            "Replicas",
            "string",
            "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
            |o| {
                nested(o, &["status", "currentReplicas"])
                    .cloned()
                    .unwrap_or(Value::from(0))
            },
        ),
        age_column(),
    ])
}

/// CustomResourceDefinitions: Name, Created At.
pub fn crds() -> ColumnTable {
    default_table()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hpa_targets_print_v2_resource_utilization_like_kubectl() {
        let hpa = json!({"spec": {"metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]}});
        assert_eq!(hpa_targets(&hpa), "cpu: <unknown>/60%");
    }

    #[test]
    fn hpa_targets_print_v1_cpu_target_like_v2() {
        let hpa = json!({"spec": {"targetCPUUtilizationPercentage": 60}, "status": {"currentCPUUtilizationPercentage": 12}});
        assert_eq!(hpa_targets(&hpa), "cpu: 12%/60%");
    }

    #[test]
    fn configmap_data_column_counts_data_and_binary_data() {
        let cm = json!({"data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}});
        assert_eq!(count_keys(&cm, &["data", "binaryData"]), 3);
    }
}
