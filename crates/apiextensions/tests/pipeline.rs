//! The request and storage flows of a two-version CRD with strategy None (R4.8–R4.13),
//! checked against what a live kube-apiserver answered (Appendix B.4).

use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::CustomResourceSchemas;
use serde_json::{Value, json};

fn crd(alpha_props: Value, beta_props: Value) -> CustomResourceDefinition {
    let version = |name: &str, storage: bool, props: &Value| {
        json!({"name": name, "served": true, "storage": storage, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
            "spec": {"type": "object", "properties": props}}}}})
    };
    serde_json::from_value(json!({
        "metadata": {"name": "things.ref.example.net"},
        "spec": {"group": "ref.example.net", "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
            "conversion": {"strategy": "None"},
            "versions": [version("v1alpha1", true, &alpha_props), version("v1beta1", false, &beta_props)]}
    }))
    .unwrap()
}

fn case_a() -> CustomResourceSchemas {
    let alpha = json!({"a": {"type": "string", "default": "x"}, "b": {"type": "string"}});
    let beta = json!({"a": {"type": "string"}, "b": {"type": "string", "default": "y"}});
    CustomResourceSchemas::new(&crd(alpha, beta)).unwrap()
}

fn case_b() -> CustomResourceSchemas {
    let alpha = json!({"a": {"type": "string", "default": "x"}});
    let beta = json!({"b": {"type": "string", "default": "y"}});
    CustomResourceSchemas::new(&crd(alpha, beta)).unwrap()
}

fn thing(version: &str, spec: Value) -> Value {
    json!({"apiVersion": format!("ref.example.net/{version}"), "kind": "Thing", "metadata": {"name": "t"}, "spec": spec})
}

/// Create through v1beta1 with `spec: {}`; returns (etcd, create response, GET v1alpha1, GET v1beta1).
async fn create_through_beta(s: &CustomResourceSchemas) -> [Value; 4] {
    let mut obj = thing("v1beta1", json!({}));
    s.decode_request(&mut obj, "v1beta1", false).unwrap();
    assert!(s.validate(&obj, None, "v1beta1").unwrap().is_empty());
    let stored = s.to_storage(obj).await.unwrap();
    let response = s.from_storage(stored.clone(), "v1beta1").await.unwrap();
    let get_alpha = s.from_storage(stored.clone(), "v1alpha1").await.unwrap();
    let get_beta = s.from_storage(stored.clone(), "v1beta1").await.unwrap();
    [
        stored["spec"].clone(),
        response["spec"].clone(),
        get_alpha["spec"].clone(),
        get_beta["spec"].clone(),
    ]
}

#[tokio::test]
async fn defaulting_case_a_matches_live_server_r4_13() {
    let [etcd, response, alpha, beta] = create_through_beta(&case_a()).await;
    assert_eq!(etcd, json!({"b": "y"}));
    assert_eq!(response, json!({"a": "x", "b": "y"}));
    assert_eq!(alpha, json!({"a": "x", "b": "y"}));
    assert_eq!(beta, json!({"a": "x", "b": "y"}));
}

#[tokio::test]
async fn defaulting_case_b_matches_live_server_r4_13() {
    let [etcd, response, alpha, beta] = create_through_beta(&case_b()).await;
    assert_eq!(etcd, json!({}));
    assert_eq!(response, json!({}));
    assert_eq!(alpha, json!({"a": "x"}));
    assert_eq!(beta, json!({}));
}

#[tokio::test]
async fn read_in_another_version_gets_no_target_version_defaults_r4_12() {
    let s = case_b();
    let stored_in_beta = thing("v1beta1", json!({"b": "kept"}));
    let read = s.from_storage(stored_in_beta, "v1alpha1").await.unwrap();
    assert_eq!(read["apiVersion"], "ref.example.net/v1alpha1");
    assert_eq!(
        read["spec"],
        json!({}),
        "b pruned by v1alpha1's schema, a not defaulted on read"
    );
}

#[tokio::test]
async fn unknown_fields_written_behind_the_servers_back_are_pruned_on_read_r4_14() {
    let s = case_a();
    let mut raw = thing("v1alpha1", json!({"a": "1", "zzz": true}));
    raw["metadata"]["labels"] = json!({"direct": "yes"});
    let read = s.from_storage(raw, "v1alpha1").await.unwrap();
    assert_eq!(read["spec"], json!({"a": "1"}));
    assert_eq!(read["metadata"]["labels"], json!({"direct": "yes"}));
}

#[tokio::test]
async fn list_reads_convert_all_items_r4_23() {
    let s = case_a();
    let items = vec![
        thing("v1alpha1", json!({"a": "1"})),
        thing("v1beta1", json!({"b": "2"})),
    ];
    let out = s.list_from_storage(items, "v1beta1").await.unwrap();
    assert!(
        out.iter()
            .all(|o| o["apiVersion"] == "ref.example.net/v1beta1")
    );
}

#[test]
fn request_decode_reports_unknown_fields_for_warn_and_strict_r6_12() {
    let s = case_a();
    let mut obj = thing("v1alpha1", json!({"a": "1", "extra": 1}));
    assert_eq!(
        s.decode_request(&mut obj, "v1alpha1", true).unwrap(),
        ["spec.extra"]
    );
}
