//! Workload mode (`--workloads`): create, get and update of Pods and Deployments whose pod
//! spec is a realistic 4 KiB (two containers and an init container with env, ports,
//! probes, resources and mounts; three volumes; tolerations), and JSON and protobuf lists
//! of a namespace holding `size` of each. Rows are named like the ConfigMap rows with
//! ` pods` or ` deployments` appended. Built-in kinds pass through defaulting, validation
//! and (for Pods on kube-apiserver) ServiceAccount admission, so these rows show what an
//! operator's typical objects cost next to the small ConfigMaps.

use super::BenchError;
use super::client::ApiClient;
use super::crud::{run_many, run_many_versions, with_resource_version};
use super::list::{ListSpec, measure};
use super::report::Row;
use http::{Method, StatusCode};
use serde_json::{Value, json};

/// The two workload kinds: (row suffix, collection path of a namespace).
pub const KINDS: [&str; 2] = ["pods", "deployments"];

/// The collection path of `kind` (`pods` or `deployments`) in `ns`.
pub fn collection(kind: &str, ns: &str) -> String {
    match kind {
        "pods" => format!("/api/v1/namespaces/{ns}/pods"),
        _ => format!("/apis/apps/v1/namespaces/{ns}/deployments"),
    }
}

fn env(prefix: &str, n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"name": format!("{prefix}_SETTING_{i}"), "value": format!("value-{i}-of-the-bench-configuration")}))
            .collect(),
    )
}

/// The pod spec every Pod and Deployment template carries (about 4 KiB of JSON).
fn pod_spec() -> Value {
    let resources = json!({"requests": {"cpu": "250m", "memory": "256Mi"},
        "limits": {"cpu": "1", "memory": "512Mi"}});
    json!({
        "initContainers": [{
            "name": "migrate", "image": "registry.example.com/bench/app:1.27.3",
            "command": ["/bin/app", "migrate", "--wait-for-database", "--timeout=60s"],
            "env": env("MIGRATE", 3),
            "resources": resources,
        }],
        "containers": [{
            "name": "app", "image": "registry.example.com/bench/app:1.27.3",
            "command": ["/bin/app"],
            "args": ["serve", "--listen=:8080", "--metrics=:9090", "--config=/etc/app/config.yaml"],
            "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                      {"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
            "env": env("APP", 22),
            "resources": resources,
            "volumeMounts": [{"name": "config", "mountPath": "/etc/app", "readOnly": true},
                             {"name": "tls", "mountPath": "/etc/tls", "readOnly": true},
                             {"name": "scratch", "mountPath": "/tmp"}],
            "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http"},
                "initialDelaySeconds": 10, "periodSeconds": 10, "failureThreshold": 3},
            "readinessProbe": {"httpGet": {"path": "/readyz", "port": "http"},
                "periodSeconds": 5},
            "securityContext": {"runAsNonRoot": true, "runAsUser": 10001,
                "allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
                "capabilities": {"drop": ["ALL"]}},
        }, {
            "name": "proxy", "image": "registry.example.com/bench/proxy:2.4.1",
            "args": ["--upstream=http://127.0.0.1:8080", "--listen=:8443", "--tls-dir=/etc/tls"],
            "ports": [{"name": "https", "containerPort": 8443, "protocol": "TCP"}],
            "env": env("PROXY", 4),
            "resources": {"requests": {"cpu": "50m", "memory": "64Mi"},
                "limits": {"cpu": "200m", "memory": "128Mi"}},
            "volumeMounts": [{"name": "tls", "mountPath": "/etc/tls", "readOnly": true}],
        }],
        "volumes": [{"name": "config", "configMap": {"name": "bench-app-config"}},
                    {"name": "tls", "secret": {"secretName": "bench-app-tls"}},
                    {"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "bench.kapi.dev/dedicated", "operator": "Equal",
            "value": "bench", "effect": "NoSchedule"}],
        "terminationGracePeriodSeconds": 30,
    })
}

/// A Pod or Deployment named `name`, labelled `app: kapi-bench` plus `labels`, with `rev`
/// as a label (an update changes it).
pub fn object(kind: &str, name: &str, rev: usize, phase: &str) -> Vec<u8> {
    let labels = json!({"app": "kapi-bench", "phase": phase, "rev": rev.to_string()});
    let body = match kind {
        "pods" => json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": labels},
            "spec": pod_spec()}),
        _ => json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "labels": labels},
            "spec": {"replicas": 3,
                "selector": {"matchLabels": {"app": "kapi-bench", "bench": name}},
                "template": {"metadata": {"labels": {"app": "kapi-bench", "bench": name}},
                    "spec": pod_spec()}}}),
    };
    serde_json::to_vec(&body).unwrap_or_default()
}

/// Makes the namespace's `default` ServiceAccount when it is missing: kube-apiserver's
/// ServiceAccount admission refuses Pods until it exists, and without a controller-manager
/// nothing makes it there.
pub async fn ensure_service_account(client: &ApiClient, ns: &str) -> Result<(), BenchError> {
    let body = format!(
        r#"{{"apiVersion":"v1","kind":"ServiceAccount","metadata":{{"name":"default","namespace":"{ns}"}}}}"#
    );
    let path = format!("/api/v1/namespaces/{ns}/serviceaccounts");
    let reply = client
        .send(
            Method::POST,
            &path,
            "application/json",
            Some(body.into_bytes()),
        )
        .await?;
    if reply.status.is_success() || reply.status == StatusCode::CONFLICT {
        Ok(())
    } else {
        Err(BenchError::Request(format!(
            "creating the default ServiceAccount of {ns}: {} {}",
            reply.status,
            String::from_utf8_lossy(&reply.body)
        )))
    }
}

/// create, get, update of `n` objects of `kind` named `bench-c<c>-<i>` at concurrency `c`.
pub async fn crud_rows(client: &ApiClient, kind: &str, ns: &str, n: usize, c: usize) -> Vec<Row> {
    let base = collection(kind, ns);
    let name = |i: usize| format!("bench-c{c}-{i}");
    let mut rows = Vec::new();
    let (lat, err, t, versions) = run_many_versions(client, n, c, |i| {
        (
            Method::POST,
            base.clone(),
            Some(object(kind, &name(i), 0, "crud")),
        )
    })
    .await;
    rows.push(Row::new(format!("create {kind}"), c, lat, err, t));
    let (lat, err, t) = run_many(client, n, c, |i| {
        (Method::GET, format!("{base}/{}", name(i)), None)
    })
    .await;
    rows.push(Row::new(format!("get {kind}"), c, lat, err, t));
    let (lat, err, t) = run_many(client, n, c, |i| {
        let body = with_resource_version(object(kind, &name(i), 1, "crud"), &versions[i]);
        (Method::PUT, format!("{base}/{}", name(i)), Some(body))
    })
    .await;
    rows.push(Row::new(format!("update {kind}"), c, lat, err, t));
    rows
}

/// Fills `ns` with `size` objects of `kind` (16 in flight, not measured), then measures
/// whole JSON and protobuf lists at each concurrency.
pub async fn list_rows(
    client: &ApiClient,
    kind: &str,
    ns: &str,
    size: usize,
    concurrency: &[usize],
    repeats: usize,
) -> Vec<Row> {
    let base = collection(kind, ns);
    let (_, failed, _) = run_many(client, size, 16, |i| {
        (
            Method::POST,
            base.clone(),
            Some(object(kind, &format!("list-{i}"), 0, "list")),
        )
    })
    .await;
    if failed > 0 {
        tracing::warn!(failed, size, kind, "some list objects were not created");
    }
    let mut rows = Vec::new();
    for (format, accept) in [
        ("json", "application/json"),
        ("protobuf", "application/vnd.kubernetes.protobuf"),
    ] {
        for &c in concurrency {
            let list = ListSpec {
                collection: &base,
                accept,
                limit: 0,
                any_version: false,
            };
            let name = format!("list {size} {format} {kind}");
            rows.push(measure(client, &list, c, repeats, name).await);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bench_pod_is_about_four_kib() {
        let spec = serde_json::to_vec(&pod_spec()).unwrap().len();
        let pod = object("pods", "bench-c16-1999", 1, "crud").len();
        assert!((3_900..4_300).contains(&spec), "pod spec {spec} bytes");
        assert!((4_000..4_500).contains(&pod), "pod {pod} bytes");
    }

    #[test]
    fn a_bench_deployment_selects_its_template() {
        let d: Value = serde_json::from_slice(&object("deployments", "d", 0, "list")).unwrap();
        assert_eq!(
            d["spec"]["selector"]["matchLabels"],
            d["spec"]["template"]["metadata"]["labels"]
        );
    }

    #[test]
    fn an_update_changes_only_the_rev_label() {
        let a: Value = serde_json::from_slice(&object("pods", "p", 0, "crud")).unwrap();
        let mut b: Value = serde_json::from_slice(&object("pods", "p", 1, "crud")).unwrap();
        assert_eq!(b["metadata"]["labels"]["rev"], "1");
        b["metadata"]["labels"]["rev"] = json!("0");
        assert_eq!(a, b);
    }
}
