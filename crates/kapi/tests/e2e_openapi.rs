//! OpenAPI v2 (JSON and gnostic protobuf) and the field detail of the v3 schemas, against a
//! real `kapi serve`: the protobuf decodes back to the JSON document, kubectl's repeated
//! client-side apply fetches it (200), and `kubectl explain` shows fields.

mod e2e_support;

use e2e_support::{Kapi, json};
use kapi_server::openapi_v2_proto::{Document, Schema};
use prost::Message;

const PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

async fn get_v2(kapi: &Kapi, accept: &str) -> (u16, http::HeaderMap, Vec<u8>) {
    let req = http::Request::get("/openapi/v2")
        .header("accept", accept)
        .body(Vec::new())
        .unwrap();
    kapi.raw(req).await
}

fn definition<'a>(doc: &'a Document, name: &str) -> &'a Schema {
    let defs = &doc.definitions.as_ref().unwrap().additional_properties;
    defs.iter()
        .find(|d| d.name == name)
        .and_then(|d| d.value.as_ref())
        .unwrap_or_else(|| panic!("no definition {name}"))
}

fn property<'a>(schema: &'a Schema, name: &str) -> &'a Schema {
    let props = &schema.properties.as_ref().unwrap().additional_properties;
    props
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.value.as_ref())
        .unwrap_or_else(|| panic!("no property {name}"))
}

fn extension(schema: &Schema, name: &str) -> Option<String> {
    schema
        .vendor_extension
        .iter()
        .find(|e| e.name == name)
        .and_then(|e| e.value.as_ref())
        .map(|v| v.yaml.clone())
}

#[tokio::test]
async fn openapi_v2_protobuf_has_kubectls_content_type_and_the_json_definitions() {
    let kapi = Kapi::start().await;
    let (status, headers, body) = get_v2(&kapi, PROTOBUF).await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["content-type"],
        "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    );
    let doc = Document::decode(body.as_slice()).unwrap();
    assert_eq!(doc.swagger, "2.0");
    let (_, _, json_body) = get_v2(&kapi, "application/json").await;
    let json_doc = json(&json_body);
    let mut json_names: Vec<&String> = json_doc["definitions"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    let mut proto_names: Vec<&String> = doc
        .definitions
        .as_ref()
        .unwrap()
        .additional_properties
        .iter()
        .map(|d| &d.name)
        .collect();
    json_names.sort();
    proto_names.sort();
    assert_eq!(json_names, proto_names);
}

#[tokio::test]
async fn openapi_v2_defines_every_builtin_kind_with_its_group_version_kind() {
    let kapi = Kapi::start().await;
    let (_, _, body) = get_v2(&kapi, PROTOBUF).await;
    let doc = Document::decode(body.as_slice()).unwrap();
    let gvks: Vec<serde_json::Value> = doc
        .definitions
        .as_ref()
        .unwrap()
        .additional_properties
        .iter()
        .filter_map(|d| extension(d.value.as_ref()?, "x-kubernetes-group-version-kind"))
        .map(|yaml| serde_json::from_str::<serde_json::Value>(&yaml).unwrap()[0].clone())
        .collect();
    for (group, version, kind) in [
        ("", "v1", "ConfigMap"),
        ("", "v1", "Secret"),
        ("", "v1", "Namespace"),
        ("", "v1", "Event"),
        ("coordination.k8s.io", "v1", "Lease"),
        ("autoscaling", "v2", "HorizontalPodAutoscaler"),
        ("autoscaling", "v1", "HorizontalPodAutoscaler"),
        ("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
    ] {
        let want = serde_json::json!({"group": group, "version": version, "kind": kind});
        assert!(gvks.contains(&want), "{want} not in {gvks:?}");
    }
}

#[tokio::test]
async fn openapi_v2_carries_strategic_merge_keys_of_list_fields() {
    let kapi = Kapi::start().await;
    let (_, _, body) = get_v2(&kapi, PROTOBUF).await;
    let doc = Document::decode(body.as_slice()).unwrap();
    let meta = definition(&doc, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
    let owners = property(meta, "ownerReferences");
    assert_eq!(
        extension(owners, "x-kubernetes-patch-merge-key").as_deref(),
        Some("\"uid\"")
    );
    assert_eq!(
        extension(owners, "x-kubernetes-patch-strategy").as_deref(),
        Some("\"merge\"")
    );
    let finalizers = property(meta, "finalizers");
    assert_eq!(
        extension(finalizers, "x-kubernetes-patch-strategy").as_deref(),
        Some("\"merge\"")
    );
    let items = &owners.items.as_ref().unwrap().schema[0];
    assert_eq!(
        items.r#ref,
        "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"
    );
}

fn manifest(kapi: &Kapi, name: &str, text: &str) -> String {
    let path = kapi.dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Applies `first` then `second` with -v=8; returns the second run's log.
fn apply_twice(kapi: &Kapi, first: &str, second: &str) -> String {
    let f1 = manifest(kapi, "first.yaml", first);
    kapi.kubectl_ok(&["apply", "-f", &f1]);
    let f2 = manifest(kapi, "second.yaml", second);
    let out = kapi.kubectl(&["apply", "-f", &f2, "-v=8"]);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    log
}

/// kubectl -v=8 logs `GET <url>`, then headers, then `Response Status: 200 OK in N ms`.
fn openapi_v2_answered_200(log: &str) -> bool {
    let mut lines = log
        .lines()
        .skip_while(|l| !(l.contains("GET ") && l.contains("/openapi/v2")));
    lines
        .find(|l| l.contains("Response Status:"))
        .is_some_and(|l| l.contains("200 OK"))
}

#[tokio::test]
async fn repeated_kubectl_apply_of_a_configmap_reads_openapi_v2() {
    let kapi = Kapi::start().await;
    let cm = |v: &str| {
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\ndata:\n  a: \"{v}\"\n")
    };
    let log = apply_twice(&kapi, &cm("1"), &cm("2"));
    assert!(openapi_v2_answered_200(&log), "{log}");
    let got = kapi.kubectl_ok(&["get", "configmap", "cm1", "-o", "jsonpath={.data.a}"]);
    assert_eq!(got, "2");
}

#[tokio::test]
async fn repeated_kubectl_apply_of_a_lease_reads_openapi_v2() {
    let kapi = Kapi::start().await;
    let lease = |h: &str| {
        format!(
            "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l1\n  namespace: default\nspec:\n  holderIdentity: {h}\n"
        )
    };
    let log = apply_twice(&kapi, &lease("a"), &lease("b"));
    assert!(openapi_v2_answered_200(&log), "{log}");
    let got = kapi.kubectl_ok(&[
        "get",
        "lease",
        "l1",
        "-o",
        "jsonpath={.spec.holderIdentity}",
    ]);
    assert_eq!(got, "b");
}

#[tokio::test]
async fn kubectl_explain_configmap_data_shows_the_field() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&["explain", "configmap.data"]);
    assert!(out.contains("FIELD: data <map[string]string>"), "{out}");
    assert!(out.contains("configuration data"), "{out}");
}

#[tokio::test]
async fn kubectl_explain_hpa_spec_metrics_lists_the_metric_sources() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&["explain", "hpa.spec.metrics"]);
    assert!(out.contains("FIELD: metrics <[]MetricSpec>"), "{out}");
    for field in [
        "containerResource",
        "external",
        "object",
        "pods",
        "resource",
        "type",
    ] {
        assert!(
            out.lines()
                .any(|l| l.trim_start().starts_with(&format!("{field}\t"))),
            "{field} missing: {out}"
        );
    }
}
