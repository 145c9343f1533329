//! Decoding kube-apiserver's JSON bodies and encoding them again gives the same JSON.

mod support;

use kapi_api::autoscaling::{v1 as hpa_v1, v2 as hpa_v2};
use kapi_api::coordination::v1::Lease;
use kapi_api::core::v1::{ConfigMap, ConfigMapList, Namespace, Secret};
use serde::Serialize;
use serde::de::DeserializeOwned;
use support::golden_json;

fn assert_json_round_trips<T: Serialize + DeserializeOwned>(name: &str) {
    let golden = golden_json(name);
    let obj: T = serde_json::from_value(golden.clone()).unwrap();
    assert_eq!(serde_json::to_value(&obj).unwrap(), golden, "{name}");
}

#[test]
fn configmap_json_round_trips() {
    assert_json_round_trips::<ConfigMap>("configmap.json");
}

#[test]
fn configmap_list_json_round_trips() {
    assert_json_round_trips::<ConfigMapList>("configmap-list.json");
}

#[test]
fn secret_json_round_trips() {
    assert_json_round_trips::<Secret>("secret.json");
}

#[test]
fn namespace_json_round_trips() {
    assert_json_round_trips::<Namespace>("namespace.json");
}

#[test]
fn lease_json_round_trips() {
    assert_json_round_trips::<Lease>("lease.json");
}

#[test]
fn hpa_v1_json_round_trips() {
    assert_json_round_trips::<hpa_v1::HorizontalPodAutoscaler>("hpa-v1.json");
}

#[test]
fn hpa_v2_json_round_trips_with_null_current_metrics() {
    assert_json_round_trips::<hpa_v2::HorizontalPodAutoscaler>("hpa-v2.json");
}

#[test]
fn json_fields_come_out_in_go_struct_order() {
    let cm: ConfigMap = serde_json::from_value(golden_json("configmap.json")).unwrap();
    let text = serde_json::to_string(&cm).unwrap();
    let pos = |key: &str| text.find(&format!("\"{key}\"")).unwrap();
    assert!(pos("kind") < pos("apiVersion"));
    assert!(pos("apiVersion") < pos("metadata"));
    assert!(pos("metadata") < pos("data"));
    assert!(pos("data") < pos("binaryData"));
}

#[test]
fn null_for_a_non_pointer_field_gives_its_zero_value() {
    let ns: Namespace =
        serde_json::from_str(r#"{"kind":"Namespace","spec":null,"status":{"phase":null}}"#)
            .unwrap();
    assert_eq!(ns.spec, Default::default());
    assert!(ns.status.phase.is_empty());
}

#[test]
fn scale_json_round_trips_with_zero_status_replicas() {
    assert_json_round_trips::<hpa_v1::Scale>("crd/cr-scale.json");
}

#[test]
fn event_writes_reporting_fields_and_zero_times_like_go() {
    use kapi_api::core::v1::Event;
    let event: Event = serde_json::from_value(serde_json::json!({
        "kind": "Event", "apiVersion": "v1",
        "metadata": {"name": "web.1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "web"},
        "reason": "Started", "type": "Normal", "source": {"component": "kubelet"}
    }))
    .unwrap();
    let out = serde_json::to_value(&event).unwrap();
    assert_eq!(out["reportingComponent"], "");
    assert_eq!(out["reportingInstance"], "");
    assert_eq!(out["firstTimestamp"], serde_json::Value::Null);
    assert_eq!(out["eventTime"], serde_json::Value::Null);
    assert!(out.get("count").is_none());
}
