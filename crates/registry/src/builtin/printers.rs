//! Table columns of the workload kinds, as kube-apiserver's printers
//! (pkg/printers/internalversion) define them: Pods, Deployments and Services (goldens
//! `pod-table.json`, `deployment-table.json`, `service-table.json`). Column descriptions
//! that upstream takes from the types' swagger docs come from the generated OpenAPI models.

use super::workload::{label_map_string, label_selector_string};
use crate::meta::nested;
use crate::table::{Column, ColumnTable, age_column, name_column};
use serde_json::Value;

/// The description of `field` of the model `model` without the enum suffix (what Go's
/// `SwaggerDoc()` gives).
fn field_doc(model: &str, field: &str) -> &'static str {
    let text = kapi_api::openapi::schema(model)
        .and_then(|m| m["properties"][field]["description"].as_str())
        .unwrap_or_default();
    match text.find("\n\nPossible enum values:") {
        Some(i) => &text[..i],
        None => text,
    }
}

/// The description upstream's printer takes from `model`'s swagger doc of `field`: the
/// 1.36 text kept in `printer_docs`, else the served OpenAPI model's.
pub(super) fn doc(model: &str, field: &str) -> &'static str {
    super::printer_docs::doc(model, field).unwrap_or_else(|| field_doc(model, field))
}

/// The non-empty string at `path`.
pub(super) fn str_at<'a>(o: &'a Value, path: &[&str]) -> Option<&'a str> {
    nested(o, path)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

fn str_or_none(v: Option<&Value>) -> Value {
    match v.and_then(Value::as_str).filter(|s| !s.is_empty()) {
        Some(s) => Value::from(s),
        None => Value::from("<none>"),
    }
}

fn containers(o: &Value, path: &[&str]) -> Vec<Value> {
    nested(o, path)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn pod_ready(o: &Value) -> Value {
    let total = containers(o, &["spec", "containers"]).len();
    let ready = containers(o, &["status", "containerStatuses"])
        .iter()
        .filter(|c| c["ready"].as_bool() == Some(true))
        .count();
    Value::from(format!("{ready}/{total}"))
}

/// printPod's status: Terminating, the pod's reason, else its phase, overridden by a
/// container that is waiting or terminated with a reason.
fn pod_status(o: &Value) -> Value {
    let mut reason = nested(o, &["status", "reason"])
        .or_else(|| nested(o, &["status", "phase"]))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    for c in containers(o, &["status", "containerStatuses"]).iter().rev() {
        let r = nested(c, &["state", "waiting", "reason"])
            .or_else(|| nested(c, &["state", "terminated", "reason"]))
            .and_then(Value::as_str);
        if let Some(r) = r.filter(|r| !r.is_empty()) {
            reason = r.to_owned();
        }
    }
    if nested(o, &["metadata", "deletionTimestamp"]).is_some() && reason != "NodeLost" {
        reason = "Terminating".into();
    }
    Value::from(reason)
}

fn pod_restarts(o: &Value) -> Value {
    let n: i64 = containers(o, &["status", "containerStatuses"])
        .iter()
        .filter_map(|c| c["restartCount"].as_i64())
        .sum();
    Value::from(n.to_string())
}

fn pod_readiness_gates(o: &Value) -> Value {
    let gates = containers(o, &["spec", "readinessGates"]);
    if gates.is_empty() {
        return Value::from("<none>");
    }
    let conditions = containers(o, &["status", "conditions"]);
    let true_count = gates
        .iter()
        .filter(|g| {
            conditions
                .iter()
                .any(|c| c["type"] == g["conditionType"] && c["status"] == "True")
        })
        .count();
    Value::from(format!("{true_count}/{}", gates.len()))
}

/// Pods: Name, Ready, Status, Restarts, Age (+ wide: IP, Node, Nominated Node, Readiness
/// Gates).
pub fn pods() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Ready",
            "string",
            "The aggregate readiness state of this pod for accepting traffic.",
            pod_ready,
        ),
        Column::new(
            "Status",
            "string",
            "The aggregate status of the containers in this pod.",
            pod_status,
        ),
        Column::new(
            "Restarts",
            "string",
            "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
            pod_restarts,
        ),
        age_column(),
        Column::new(
            "IP",
            "string",
            field_doc("io.k8s.api.core.v1.PodStatus", "podIP"),
            |o| str_or_none(nested(o, &["status", "podIP"])),
        )
        .wide(),
        Column::new(
            "Node",
            "string",
            field_doc("io.k8s.api.core.v1.PodSpec", "nodeName"),
            |o| str_or_none(nested(o, &["spec", "nodeName"])),
        )
        .wide(),
        Column::new(
            "Nominated Node",
            "string",
            field_doc("io.k8s.api.core.v1.PodStatus", "nominatedNodeName"),
            |o| str_or_none(nested(o, &["status", "nominatedNodeName"])),
        )
        .wide(),
        Column::new(
            "Readiness Gates",
            "string",
            field_doc("io.k8s.api.core.v1.PodSpec", "readinessGates"),
            pod_readiness_gates,
        )
        .wide(),
    ])
}

/// The integer at `path`, 0 when absent.
pub(super) fn int_at(o: &Value, path: &[&str]) -> i64 {
    nested(o, path).and_then(Value::as_i64).unwrap_or(0)
}

/// `key` (`name` or `image`) of each container of the pod spec at `spec`, comma-joined
/// (upstream's `layoutContainerCells`).
pub(super) fn template_cells(o: &Value, spec: &[&str], key: &str) -> Value {
    let parts: Vec<&str> = nested(o, spec)
        .and_then(|s| s["containers"].as_array())
        .into_iter()
        .flatten()
        .map(|c| c[key].as_str().unwrap_or_default())
        .collect();
    Value::from(parts.join(","))
}

fn template_containers(o: &Value, key: &str) -> Value {
    template_cells(o, &["spec", "template", "spec"], key)
}

/// The Ready column of Deployments and StatefulSets: `readyReplicas/replicas`.
pub(super) fn ready_replicas_column() -> Column {
    Column::new(
        "Ready",
        "string",
        "Number of the pod with ready state",
        |o| {
            Value::from(format!(
                "{}/{}",
                int_at(o, &["status", "readyReplicas"]),
                int_at(o, &["spec", "replicas"])
            ))
        },
    )
}

/// Deployments: Name, Ready, Up-to-date, Available, Age (+ wide: Containers, Images,
/// Selector).
pub fn deployments() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        ready_replicas_column(),
        Column::new(
            "Up-to-date",
            "string",
            field_doc("io.k8s.api.apps.v1.DeploymentStatus", "updatedReplicas"),
            |o| Value::from(int_at(o, &["status", "updatedReplicas"])),
        ),
        Column::new(
            "Available",
            "string",
            field_doc("io.k8s.api.apps.v1.DeploymentStatus", "availableReplicas"),
            |o| Value::from(int_at(o, &["status", "availableReplicas"])),
        ),
        age_column(),
        Column::new(
            "Containers",
            "string",
            "Names of each container in the template.",
            |o| template_containers(o, "name"),
        )
        .wide(),
        Column::new(
            "Images",
            "string",
            "Images referenced by each container in the template.",
            |o| template_containers(o, "image"),
        )
        .wide(),
        Column::new(
            "Selector",
            "string",
            field_doc("io.k8s.api.apps.v1.DeploymentSpec", "selector"),
            |o| match nested(o, &["spec", "selector"]).map(label_selector_string) {
                Some(s) if !s.is_empty() => Value::from(s),
                _ => Value::from("<none>"),
            },
        )
        .wide(),
    ])
}

fn service_external_ip(o: &Value) -> Value {
    let external: Vec<String> = containers(o, &["spec", "externalIPs"])
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let text = match nested(o, &["spec", "type"]).and_then(Value::as_str) {
        Some("ExternalName") => nested(o, &["spec", "externalName"])
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        Some("LoadBalancer") => {
            let mut ips: Vec<String> = containers(o, &["status", "loadBalancer", "ingress"])
                .iter()
                .filter_map(|i| {
                    i["ip"]
                        .as_str()
                        .or(i["hostname"].as_str())
                        .map(str::to_owned)
                })
                .collect();
            ips.extend(external);
            if ips.is_empty() {
                "<pending>".to_owned()
            } else {
                ips.join(",")
            }
        }
        _ if !external.is_empty() => external.join(","),
        _ => "<none>".to_owned(),
    };
    Value::from(text)
}

fn service_ports(o: &Value) -> Value {
    let ports: Vec<String> = containers(o, &["spec", "ports"])
        .iter()
        .map(|p| {
            let port = p["port"].as_i64().unwrap_or(0);
            let proto = p["protocol"].as_str().unwrap_or("TCP");
            match p["nodePort"].as_i64().filter(|n| *n != 0) {
                Some(n) => format!("{port}:{n}/{proto}"),
                None => format!("{port}/{proto}"),
            }
        })
        .collect();
    Value::from(if ports.is_empty() {
        "<none>".to_owned()
    } else {
        ports.join(",")
    })
}

/// Services: Name, Type, Cluster-IP, External-IP, Port(s), Age (+ wide: Selector).
pub fn services() -> ColumnTable {
    ColumnTable(vec![
        name_column(),
        Column::new(
            "Type",
            "string",
            field_doc("io.k8s.api.core.v1.ServiceSpec", "type"),
            |o| {
                Value::from(
                    nested(o, &["spec", "type"])
                        .and_then(Value::as_str)
                        .unwrap_or(""),
                )
            },
        ),
        Column::new(
            "Cluster-IP",
            "string",
            field_doc("io.k8s.api.core.v1.ServiceSpec", "clusterIP"),
            |o| str_or_none(nested(o, &["spec", "clusterIP"])),
        ),
        Column::new(
            "External-IP",
            "string",
            field_doc("io.k8s.api.core.v1.ServiceSpec", "externalIPs"),
            service_external_ip,
        ),
        Column::new(
            "Port(s)",
            "string",
            field_doc("io.k8s.api.core.v1.ServiceSpec", "ports"),
            service_ports,
        ),
        age_column(),
        Column::new(
            "Selector",
            "string",
            field_doc("io.k8s.api.core.v1.ServiceSpec", "selector"),
            |o| {
                let selector = nested(o, &["spec", "selector"]).map(label_map_string);
                Value::from(
                    selector
                        .filter(|s| !s.is_empty())
                        .unwrap_or("<none>".into()),
                )
            },
        )
        .wide(),
    ])
}
