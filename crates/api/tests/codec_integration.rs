//! The built-in kinds through machinery's codecs, as the server uses them: decode any
//! format into the hub (with the input version's defaults), encode converting to a version.

mod support;

use kapi_api::autoscaling::internal;
use kapi_machinery::schema::GroupVersion;
use kapi_machinery::serializer::{CodecFactory, Decoder, Encoder, SharedEncoder};
use std::sync::Arc;
use support::{golden_bytes, golden_json};

fn codecs() -> CodecFactory {
    CodecFactory::new(Arc::new(kapi_api::new_scheme().unwrap()))
}

fn encoder(codecs: &CodecFactory, media_type: &str) -> SharedEncoder {
    codecs
        .serializer_for_media_type(media_type)
        .unwrap()
        .serializer
        .clone()
}

#[test]
fn hpa_v1_protobuf_decodes_to_the_hub_and_encodes_as_the_v2_protobuf_body() {
    let codecs = codecs();
    let decoded = codecs
        .universal_decoder(&[])
        .decode(&golden_bytes("hpa-v1.pb"), None, None)
        .unwrap();
    assert!(
        decoded
            .object
            .downcast_ref::<internal::HorizontalPodAutoscaler>()
            .is_some()
    );
    let v2 = Arc::new(GroupVersion::new("autoscaling", "v2"));
    let enc =
        codecs.encoder_for_version(encoder(&codecs, "application/vnd.kubernetes.protobuf"), v2);
    assert_eq!(
        enc.encode_to_vec(&*decoded.object).unwrap(),
        golden_bytes("hpa-v2.pb")
    );
}

#[test]
fn hpa_v2_json_encodes_as_the_v1_json_kube_apiserver_serves() {
    let codecs = codecs();
    let decoded = codecs
        .universal_decoder(&[])
        .decode(&golden_bytes("hpa-v2.json"), None, None)
        .unwrap();
    let v1 = Arc::new(GroupVersion::new("autoscaling", "v1"));
    let enc = codecs.encoder_for_version(encoder(&codecs, "application/json"), v1);
    let out: serde_json::Value =
        serde_json::from_slice(&enc.encode_to_vec(&*decoded.object).unwrap()).unwrap();
    assert_eq!(out, golden_json("hpa-v1.json"));
}

#[test]
fn decoding_applies_the_input_versions_defaults() {
    let codecs = codecs();
    let body = br#"{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"a"},"spec":{"maxReplicas":3}}"#;
    let decoded = codecs
        .universal_decoder(&[])
        .decode(body, None, None)
        .unwrap();
    let hub = decoded
        .object
        .downcast_ref::<internal::HorizontalPodAutoscaler>()
        .unwrap();
    assert_eq!(hub.spec.min_replicas, Some(1));
    assert_eq!(
        hub.spec.metrics[0]
            .resource
            .as_ref()
            .unwrap()
            .target
            .average_utilization,
        Some(80)
    );
}

#[test]
fn secret_protobuf_body_round_trips_through_the_codec() {
    let codecs = codecs();
    let body = golden_bytes("secret.pb");
    let decoded = codecs
        .universal_deserializer()
        .decode(&body, None, None)
        .unwrap();
    let enc = encoder(&codecs, "application/vnd.kubernetes.protobuf");
    assert_eq!(enc.encode_to_vec(&*decoded.object).unwrap(), body);
}
