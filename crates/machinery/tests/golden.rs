//! Byte-level comparisons against real kube-apiserver responses (testdata/golden, copied from shared/reference/golden).

mod common;

use common::*;
use kapi_machinery::serializer::{
    Decoder, Encoder, JsonSerializer, ProtobufSerializer, SerializerOptions, YamlSerializer,
};

#[test]
fn protobuf_configmap_reencodes_to_golden_bytes_r2_16() {
    let pb = ProtobufSerializer::new(scheme());
    let bytes = golden("configmap.pb");
    let decoded = pb.decode(&bytes, None, None).unwrap();
    assert!(decoded.object.is::<ConfigMap>());
    assert_eq!(pb.encode_to_vec(&*decoded.object).unwrap(), bytes);
}

#[test]
fn protobuf_configmap_list_reencodes_to_golden_bytes_r2_16() {
    let pb = ProtobufSerializer::new(scheme());
    let bytes = golden("configmap-list.pb");
    let decoded = pb.decode(&bytes, None, None).unwrap();
    assert!(decoded.object.is::<ConfigMapList>());
    assert_eq!(pb.encode_to_vec(&*decoded.object).unwrap(), bytes);
}

#[test]
fn json_configmap_matches_golden_semantically() {
    let json = JsonSerializer::new(scheme(), SerializerOptions::default());
    let bytes = golden("configmap.json");
    let decoded = json.decode(&bytes, None, None).unwrap();
    let out = json.encode_to_vec(&*decoded.object).unwrap();
    let a: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let b: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(a, b);
}

#[test]
fn protobuf_and_json_golden_configmaps_decode_to_the_same_object() {
    let s = scheme();
    let from_pb = ProtobufSerializer::new(s.clone())
        .decode(&golden("configmap.pb"), None, None)
        .unwrap();
    let from_json = JsonSerializer::new(s, SerializerOptions::default())
        .decode(&golden("configmap.json"), None, None)
        .unwrap();
    assert_eq!(
        from_pb.object.downcast_ref::<ConfigMap>(),
        from_json.object.downcast_ref::<ConfigMap>()
    );
}

/// Same document as kube-apiserver's; serde-saphyr quotes a few plain-safe keys
/// (`"f:data"`) that go-yaml leaves bare, so compare parsed values, and the text without
/// quotes.
#[test]
fn yaml_configmap_encodes_like_golden_r2_14() {
    let s = scheme();
    let decoded = JsonSerializer::new(s.clone(), SerializerOptions::default())
        .decode(&golden("configmap.json"), None, None)
        .unwrap();
    let yaml = YamlSerializer::new(s, false)
        .encode_to_vec(&*decoded.object)
        .unwrap();
    let ours = kapi_machinery::serializer::yaml::yaml_to_value(&yaml).unwrap();
    let theirs =
        kapi_machinery::serializer::yaml::yaml_to_value(&golden("configmap-yaml.txt")).unwrap();
    assert_eq!(ours, theirs);
    let unquoted = |b: &[u8]| String::from_utf8_lossy(b).replace('"', "");
    assert_eq!(unquoted(&yaml), unquoted(&golden("configmap-yaml.txt")));
}

#[test]
fn golden_yaml_decodes_to_the_golden_json_object_r2_1() {
    let s = scheme();
    let from_yaml = YamlSerializer::new(s.clone(), false)
        .decode(&golden("configmap-yaml.txt"), None, None)
        .unwrap();
    let from_json = JsonSerializer::new(s, SerializerOptions::default())
        .decode(&golden("configmap.json"), None, None)
        .unwrap();
    assert_eq!(
        from_yaml.object.downcast_ref::<ConfigMap>(),
        from_json.object.downcast_ref::<ConfigMap>()
    );
}
