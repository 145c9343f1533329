//! Custom-resource mode: a CRD `benchwidgets.bench.kapi.dev` with a 20-field structural
//! schema (defaults, min/max, pattern, a nested object, a list); create, get, update and
//! lists of BenchWidgets, rows named like the ConfigMap rows with ` benchwidgets` appended.

use super::BenchError;
use super::client::ApiClient;
use super::crud::{run_many, run_many_versions, with_resource_version};
use super::list::{ListSpec, measure};
use super::report::Row;
use http::{Method, StatusCode};
use std::time::{Duration, Instant};

/// The CRD's name.
pub const CRD_NAME: &str = "benchwidgets.bench.kapi.dev";
const CRD_PATH: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
/// How long to wait for the CRD's `Established` condition.
const ESTABLISH_TIMEOUT: Duration = Duration::from_secs(60);

/// The CRD: namespaced, one served+storage version `v1`, 20 fields under `spec`.
fn crd() -> Vec<u8> {
    let spec = serde_json::json!({
        "type": "object",
        "properties": {
            "color": {"type": "string", "default": "blue", "pattern": "^[a-z]+$"},
            "replicas": {"type": "integer", "default": 1, "minimum": 0, "maximum": 1000},
            "priority": {"type": "integer", "default": 5, "minimum": 0, "maximum": 10},
            "port": {"type": "integer", "minimum": 1, "maximum": 65535},
            "timeoutSeconds": {"type": "integer", "default": 30},
            "retries": {"type": "integer", "default": 3, "maximum": 10},
            "enabled": {"type": "boolean", "default": true},
            "weight": {"type": "number"},
            "label": {"type": "string", "maxLength": 63},
            "owner": {"type": "string"},
            "tier": {"type": "string", "enum": ["gold", "silver", "bronze"]},
            "region": {"type": "string"},
            "zone": {"type": "string"},
            "image": {"type": "string", "minLength": 1},
            "command": {"type": "string"},
            "description": {"type": "string"},
            "value": {"type": "string"},
            "resources": {"type": "object", "properties": {
                "cpu": {"type": "string", "default": "100m"},
                "memory": {"type": "string", "default": "64Mi"}
            }},
            "tags": {"type": "array", "maxItems": 16, "items": {"type": "string"}},
            "payload": {"type": "string"}
        }
    });
    let body = serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": CRD_NAME},
        "spec": {
            "group": "bench.kapi.dev",
            "scope": "Namespaced",
            "names": {"plural": "benchwidgets", "singular": "benchwidget",
                      "kind": "BenchWidget", "listKind": "BenchWidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": spec
                }}}}]
        }
    });
    serde_json::to_vec(&body).unwrap_or_default()
}

/// A BenchWidget body (its defaults fill `priority`, `enabled`, `timeoutSeconds`, ...).
pub fn widget(name: &str, value: usize, labels: &str) -> Vec<u8> {
    format!(
        r#"{{"apiVersion":"bench.kapi.dev/v1","kind":"BenchWidget","metadata":{{"name":"{name}","labels":{{"app":"kapi-bench",{labels}}}}},"spec":{{"color":"red","replicas":3,"port":8080,"weight":0.5,"label":"bench","owner":"kapi","tier":"gold","region":"eu","zone":"eu-1a","image":"bench:1","command":"run","description":"a bench widget","value":"{value}","resources":{{"cpu":"250m"}},"tags":["a","b"],"payload":"0123456789abcdef0123456789abcdef"}}}}"#
    )
    .into_bytes()
}

/// The collection path of BenchWidgets in a namespace.
pub fn widgets(ns: &str) -> String {
    format!("/apis/bench.kapi.dev/v1/namespaces/{ns}/benchwidgets")
}

/// Creates the CRD (an existing one is fine) and waits for its `Established` condition.
pub async fn ensure_crd(client: &ApiClient) -> Result<(), BenchError> {
    let reply = client
        .send(Method::POST, CRD_PATH, "application/json", Some(crd()))
        .await?;
    if !reply.status.is_success() && reply.status != StatusCode::CONFLICT {
        return Err(BenchError::Request(format!(
            "creating CRD {CRD_NAME}: {} {}",
            reply.status,
            String::from_utf8_lossy(&reply.body)
        )));
    }
    let started = Instant::now();
    let path = format!("{CRD_PATH}/{CRD_NAME}");
    while started.elapsed() < ESTABLISH_TIMEOUT {
        let reply = client
            .send(Method::GET, &path, "application/json", None)
            .await?;
        if reply.status.is_success() && established(&reply.body) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(BenchError::Request(format!(
        "CRD {CRD_NAME} not Established after {ESTABLISH_TIMEOUT:?}"
    )))
}

/// Whether a CRD's status has `Established=True`.
fn established(body: &[u8]) -> bool {
    let Ok(crd) = serde_json::from_slice::<serde_json::Value>(body) else {
        return false;
    };
    crd["status"]["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == "Established" && c["status"] == "True")
    })
}

/// Deletes the CRD (and with it every BenchWidget).
pub async fn delete_crd(client: &ApiClient) -> Result<(), BenchError> {
    let path = format!("{CRD_PATH}/{CRD_NAME}");
    client
        .send(Method::DELETE, &path, "application/json", None)
        .await?;
    Ok(())
}

/// create, get, update of `n` BenchWidgets named `bench-c<c>-<i>` at concurrency `c`.
pub async fn crud_rows(client: &ApiClient, ns: &str, n: usize, c: usize) -> Vec<Row> {
    let base = widgets(ns);
    let name = |i: usize| format!("bench-c{c}-{i}");
    let mut rows = Vec::new();
    let (lat, err, t, versions) = run_many_versions(client, n, c, |i| {
        let body = widget(&name(i), i, r#""phase":"crud""#);
        (Method::POST, base.clone(), Some(body))
    })
    .await;
    rows.push(Row::new("create benchwidgets", c, lat, err, t));
    let (lat, err, t) = run_many(client, n, c, |i| {
        (Method::GET, format!("{base}/{}", name(i)), None)
    })
    .await;
    rows.push(Row::new("get benchwidgets", c, lat, err, t));
    let (lat, err, t) = run_many(client, n, c, |i| {
        let body =
            with_resource_version(widget(&name(i), i + 1, r#""phase":"crud""#), &versions[i]);
        (Method::PUT, format!("{base}/{}", name(i)), Some(body))
    })
    .await;
    rows.push(Row::new("update benchwidgets", c, lat, err, t));
    rows
}

/// Fills `ns` with `size` BenchWidgets (16 in flight, not measured), then measures JSON
/// lists, full and paged by `page`, at each concurrency. Custom resources have no protobuf.
pub async fn list_rows(
    client: &ApiClient,
    ns: &str,
    size: usize,
    concurrency: &[usize],
    repeats: usize,
    page: usize,
) -> Vec<Row> {
    let base = widgets(ns);
    let (_, failed, _) = run_many(client, size, 16, |i| {
        let body = widget(&format!("list-{i}"), i, r#""phase":"list""#);
        (Method::POST, base.clone(), Some(body))
    })
    .await;
    if failed > 0 {
        tracing::warn!(failed, size, "some BenchWidgets were not created");
    }
    let mut rows = Vec::new();
    for limit in [0, page] {
        for &c in concurrency {
            let paged = if limit > 0 {
                format!(" paged {limit}")
            } else {
                String::new()
            };
            let name = format!("list {size} json{paged} benchwidgets");
            let list = ListSpec {
                collection: &base,
                accept: "application/json",
                limit,
                any_version: false,
            };
            rows.push(measure(client, &list, c, repeats, name).await);
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crd_schema_has_twenty_spec_fields() {
        let crd: serde_json::Value = serde_json::from_slice(&crd()).unwrap();
        let props = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
            ["properties"];
        assert_eq!(props.as_object().unwrap().len(), 20);
    }

    #[test]
    fn established_reads_the_condition() {
        let yes = br#"{"status":{"conditions":[{"type":"NamesAccepted","status":"True"},{"type":"Established","status":"True"}]}}"#;
        let no = br#"{"status":{"conditions":[{"type":"Established","status":"False"}]}}"#;
        assert!(established(yes));
        assert!(!established(no));
    }
}
