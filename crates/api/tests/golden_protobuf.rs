//! Decoding kube-apiserver's protobuf bodies and encoding the objects again gives the same
//! bytes, and the decoded objects equal the JSON bodies of the same objects.

mod support;

use kapi_api::autoscaling::{v1 as hpa_v1, v2 as hpa_v2};
use kapi_api::coordination::v1::Lease;
use kapi_api::core::v1::{ConfigMap, ConfigMapList, Namespace, Secret};
use prost::Message;
use serde::Serialize;
use support::{golden_json, golden_raw};

fn assert_reencodes_byte_for_byte<M: Message + Default>(name: &str) -> M {
    let raw = golden_raw(name);
    let obj = M::decode(raw.as_slice()).unwrap();
    assert_eq!(obj.encode_to_vec(), raw, "{name}: re-encoded bytes differ");
    obj
}

fn assert_matches_json<T: Serialize>(obj: &T, api_version: &str, kind: &str, json_name: &str) {
    let mut value = serde_json::to_value(obj).unwrap();
    value["apiVersion"] = api_version.into();
    value["kind"] = kind.into();
    assert_eq!(value, golden_json(json_name), "{json_name}");
}

#[test]
fn configmap_protobuf_reencodes_byte_for_byte() {
    let cm: ConfigMap = assert_reencodes_byte_for_byte("configmap.pb");
    assert_eq!(cm.data.get("empty").map(String::as_str), Some(""));
    assert_eq!(cm.binary_data.get("blob"), Some(&vec![0u8, 1, 2]));
}

#[test]
fn configmap_protobuf_decodes_to_the_json_golden() {
    let cm: ConfigMap = assert_reencodes_byte_for_byte("configmap.pb");
    assert_matches_json(&cm, "v1", "ConfigMap", "configmap.json");
}

#[test]
fn configmap_list_protobuf_reencodes_byte_for_byte() {
    let list: ConfigMapList = assert_reencodes_byte_for_byte("configmap-list.pb");
    assert!(!list.items.is_empty());
}

#[test]
fn secret_protobuf_carries_raw_bytes_and_json_carries_base64() {
    let secret: Secret = assert_reencodes_byte_for_byte("secret.pb");
    assert_eq!(secret.data.get("pw"), Some(&b"hunter2".to_vec()));
    assert_matches_json(&secret, "v1", "Secret", "secret.json");
}

#[test]
fn namespace_protobuf_reencodes_and_matches_json() {
    let ns: Namespace = assert_reencodes_byte_for_byte("namespace.pb");
    assert_matches_json(&ns, "v1", "Namespace", "namespace.json");
}

#[test]
fn lease_protobuf_reencodes_and_matches_json() {
    let lease: Lease = assert_reencodes_byte_for_byte("lease.pb");
    assert_matches_json(&lease, "coordination.k8s.io/v1", "Lease", "lease.json");
}

#[test]
fn hpa_v1_protobuf_reencodes_and_matches_json() {
    let hpa: hpa_v1::HorizontalPodAutoscaler = assert_reencodes_byte_for_byte("hpa-v1.pb");
    assert_matches_json(
        &hpa,
        "autoscaling/v1",
        "HorizontalPodAutoscaler",
        "hpa-v1.json",
    );
}

#[test]
fn hpa_v2_protobuf_reencodes_and_matches_json() {
    let hpa: hpa_v2::HorizontalPodAutoscaler = assert_reencodes_byte_for_byte("hpa-v2.pb");
    assert_matches_json(
        &hpa,
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
        "hpa-v2.json",
    );
}
