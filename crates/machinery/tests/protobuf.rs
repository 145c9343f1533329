//! Protobuf serializer behaviours R2.16–R2.20, one test each.

mod common;

use common::*;
use kapi_machinery::meta::v1::{ObjectMeta, Status};
use kapi_machinery::runtime::{Object, Unknown, Unstructured};
use kapi_machinery::schema::GroupVersionKind;
use kapi_machinery::serializer::protobuf::{PREFIX, read_unknown_message};
use kapi_machinery::serializer::{Decoder, Encoder, ProtobufSerializer, RawProtobufSerializer};

fn pb() -> ProtobufSerializer {
    ProtobufSerializer::new(scheme())
}

fn widget() -> WidgetV1 {
    WidgetV1 {
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        metadata: ObjectMeta {
            name: "w".into(),
            ..Default::default()
        },
        size: "3".into(),
    }
}

#[test]
fn envelope_is_prefix_then_unknown_with_empty_fields_written_r2_16() {
    let out = pb().encode_to_vec(&widget()).unwrap();
    assert_eq!(&out[..4], &PREFIX);
    assert_eq!(&out[out.len() - 4..], &[0x1a, 0x00, 0x22, 0x00]);
    let unknown = read_unknown_message(&out[4..]).unwrap();
    assert_eq!(
        (unknown.api_version.as_str(), unknown.kind.as_str()),
        ("example.com/v1", "Widget")
    );
}

#[test]
fn type_meta_fields_never_reach_the_object_bytes_r2_16() {
    let out = pb().encode_to_vec(&widget()).unwrap();
    let raw = read_unknown_message(&out[4..]).unwrap().raw;
    let mut bare = widget();
    bare.api_version.clear();
    bare.kind.clear();
    assert_eq!(raw, prost::Message::encode_to_vec(&bare));
}

#[test]
fn status_encodes_like_kube_apiserver_r2_16() {
    let golden = golden("crd/error-406-cr-protobuf.pb");
    let decoded = pb().decode(&golden, None, None).unwrap();
    assert!(decoded.object.is::<Status>());
    assert_eq!(pb().encode_to_vec(&*decoded.object).unwrap(), golden);
}

#[test]
fn empty_data_is_an_error_r2_17() {
    assert_eq!(
        pb().decode(b"", None, None).unwrap_err().to_string(),
        "empty data"
    );
}

#[test]
fn data_without_prefix_is_an_error_r2_17() {
    let err = pb().decode(b"{}", None, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
    );
}

#[test]
fn prefix_alone_is_an_empty_body_r2_17() {
    assert_eq!(
        pb().decode(&PREFIX, None, None).unwrap_err().to_string(),
        "empty body"
    );
}

#[test]
fn decode_sets_the_gvk_from_the_envelope_r2_18() {
    let out = pb().encode_to_vec(&widget()).unwrap();
    let d = pb().decode(&out, None, None).unwrap();
    assert_eq!(d.object.downcast_ref::<WidgetV1>(), Some(&widget()));
}

#[test]
fn decode_takes_kind_and_version_from_defaults_r2_18() {
    let mut bare = widget();
    bare.api_version.clear();
    bare.kind.clear();
    let out = pb().encode_to_vec(&bare).unwrap();
    let defaults = GroupVersionKind::new("example.com", "v1", "Widget");
    let d = pb().decode(&out, Some(&defaults), None).unwrap();
    assert_eq!(d.gvk, defaults);
}

#[test]
fn decode_without_kind_is_missing_kind_quoting_type_meta_r2_18() {
    let mut bare = widget();
    bare.kind.clear();
    let out = pb().encode_to_vec(&bare).unwrap();
    let err = pb().decode(&out, None, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"Object 'Kind' is missing in 'runtime.TypeMeta{APIVersion:"example.com/v1", Kind:""}'"#
    );
}

#[test]
fn decode_into_unknown_returns_the_envelope_r2_18() {
    let out = pb().encode_to_vec(&widget()).unwrap();
    let d = pb().decode(&out, None, Some(&Unknown::default())).unwrap();
    let u = d.object.downcast_ref::<Unknown>().unwrap();
    assert_eq!(u.kind, "Widget");
    assert_eq!(u.raw, read_unknown_message(&out[4..]).unwrap().raw);
}

#[test]
fn unstructured_is_not_marshalable_to_protobuf_r2_19() {
    let err = pb().encode_to_vec(&Unstructured::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message"
    );
}

#[test]
fn recognizes_data_by_prefix_r2_19() {
    assert!(ProtobufSerializer::recognizes_data(b"k8s\x00\x0a"));
    assert!(!ProtobufSerializer::recognizes_data(b"{}"));
}

#[test]
fn raw_serializer_writes_no_prefix_and_needs_into_r2_20() {
    let raw = RawProtobufSerializer::new(scheme());
    let out = raw.encode_to_vec(&widget()).unwrap();
    assert_ne!(&out[..4], &PREFIX);
    assert!(raw.decode(&out, None, None).is_err());
    let d = raw.decode(&out, None, Some(&WidgetV1::default())).unwrap();
    assert_eq!(d.object.downcast_ref::<WidgetV1>().unwrap().size, "3");
}

#[test]
fn unknown_encodes_as_the_envelope_itself() {
    let out = pb().encode_to_vec(&widget()).unwrap();
    let unknown = read_unknown_message(&out[4..]).unwrap();
    assert_eq!(pb().encode_to_vec(&unknown).unwrap(), out);
    assert_eq!(unknown.type_name(), "*runtime.Unknown");
}
