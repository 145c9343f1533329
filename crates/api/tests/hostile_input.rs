//! Hostile bytes give errors, never panics: random and truncated protobuf messages for
//! every kind, and deeply nested CRD schemas in JSON.

mod support;

use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_api::autoscaling::{v1 as hpa_v1, v2 as hpa_v2};
use kapi_api::coordination::v1::Lease;
use kapi_api::core::v1::{ConfigMap, ConfigMapList, Event, Namespace, Secret};
use proptest::prelude::*;
use prost::Message;
use support::golden_raw;

fn decode_all(bytes: &[u8]) {
    let _ = ConfigMap::decode(bytes);
    let _ = ConfigMapList::decode(bytes);
    let _ = Secret::decode(bytes);
    let _ = Namespace::decode(bytes);
    let _ = Event::decode(bytes);
    let _ = Lease::decode(bytes);
    let _ = hpa_v1::HorizontalPodAutoscaler::decode(bytes);
    let _ = hpa_v2::HorizontalPodAutoscaler::decode(bytes);
}

proptest! {
    #[test]
    fn random_protobuf_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        decode_all(&bytes);
    }
}

#[test]
fn every_truncation_of_a_real_message_is_an_error_or_a_value() {
    for name in [
        "hpa-v2.pb",
        "hpa-v1.pb",
        "configmap.pb",
        "secret.pb",
        "lease.pb",
    ] {
        let raw = golden_raw(name);
        for cut in 0..raw.len() {
            decode_all(&raw[..cut]);
        }
    }
}

#[test]
fn truncated_hpa_message_is_an_error() {
    let raw = golden_raw("hpa-v2.pb");
    assert!(hpa_v2::HorizontalPodAutoscaler::decode(&raw[..raw.len() - 3]).is_err());
}

#[test]
fn deeply_nested_schema_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let mut text =
        String::from(r#"{"spec":{"versions":[{"name":"v1","schema":{"openAPIV3Schema":"#);
    text.push_str(&r#"{"properties":{"a":"#.repeat(depth));
    text.push_str(&"}}".repeat(depth));
    text.push_str("}}]}}");
    assert!(serde_json::from_str::<CustomResourceDefinition>(&text).is_err());
}

#[test]
fn length_prefix_beyond_the_data_is_an_error() {
    // field 1 (metadata), length 200, but only 2 bytes follow.
    assert!(ConfigMap::decode(&[0x0a, 0xc8, 0x01, 0x0a, 0x00][..]).is_err());
}
