//! Recognizer (R2.21), CodecFactory (R3.1–R3.4) and versioning codec (R3.5–R3.6).

mod common;

use common::*;
use kapi_machinery::meta::v1::ObjectMeta;
use kapi_machinery::runtime::{Error, Unknown, Unstructured};
use kapi_machinery::schema::{GroupVersion, GroupVersionKind};
use kapi_machinery::serializer::{CodecFactory, Decoder, Encoder, SharedVersioner};
use serde_json::json;
use std::sync::Arc;

fn factory() -> CodecFactory {
    CodecFactory::new(scheme())
}

fn v(gv: GroupVersion) -> SharedVersioner {
    Arc::new(gv)
}

fn widget_v1_json() -> &'static [u8] {
    br#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"size":"4"}"#
}

#[test]
fn universal_deserializer_sniffs_json_yaml_and_protobuf_r2_21() {
    let f = factory();
    let u = f.universal_deserializer();
    let from_json = u.decode(widget_v1_json(), None, None).unwrap();
    let from_yaml = u
        .decode(
            b"apiVersion: example.com/v1\nkind: Widget\nsize: \"4\"\n",
            None,
            None,
        )
        .unwrap();
    let pb = f.supported_media_types()[2]
        .serializer
        .encode_to_vec(&*from_json.object)
        .unwrap();
    let from_pb = u.decode(&pb, None, None).unwrap();
    for d in [from_json, from_yaml, from_pb] {
        assert_eq!(d.object.downcast_ref::<WidgetV1>().unwrap().size, "4");
    }
}

#[test]
fn universal_deserializer_returns_last_error_when_nothing_matches_r2_21() {
    let err = factory()
        .universal_deserializer()
        .decode(b"\x00\x01garbage: [", None, None)
        .unwrap_err();
    assert!(err.to_string().contains("YAML"), "{err}");
}

#[test]
fn supported_media_types_are_json_yaml_protobuf_in_order_r3_1() {
    let f = factory();
    let types: Vec<&str> = f
        .supported_media_types()
        .iter()
        .map(|s| s.media_type)
        .collect();
    assert_eq!(
        types,
        [
            "application/json",
            "application/yaml",
            "application/vnd.kubernetes.protobuf"
        ]
    );
}

#[test]
fn json_has_pretty_strict_and_stream_serializers_r3_1() {
    let f = factory();
    let j = &f.supported_media_types()[0];
    assert!(j.encodes_as_text && j.pretty_serializer.is_some() && j.strict_serializer.is_some());
    assert!(j.stream_serializer.is_some());
}

#[test]
fn yaml_has_no_stream_serializer_r3_1() {
    assert!(
        factory().supported_media_types()[1]
            .stream_serializer
            .is_none()
    );
}

#[test]
fn protobuf_streams_raw_messages_with_length_frames_r3_1() {
    let f = factory();
    let stream = f.supported_media_types()[2]
        .stream_serializer
        .as_ref()
        .unwrap();
    assert_eq!(
        stream.framing,
        kapi_machinery::serializer::framer::Framing::LengthDelimited
    );
    assert_eq!(stream.serializer.identifier(), "raw-protobuf");
}

#[test]
fn universal_deserializer_does_not_default_or_convert_r3_2() {
    let d = factory()
        .universal_deserializer()
        .decode(
            br#"{"apiVersion":"example.com/v2","kind":"Widget","replicas":1}"#,
            None,
            None,
        )
        .unwrap();
    assert_eq!(d.object.downcast_ref::<WidgetV2>().unwrap().mode, "");
}

#[test]
fn universal_decoder_defaults_and_converts_to_internal_r3_2() {
    let d = factory()
        .universal_decoder(&[])
        .decode(
            br#"{"apiVersion":"example.com/v2","kind":"Widget","replicas":1}"#,
            None,
            None,
        )
        .unwrap();
    let hub = d.object.downcast_ref::<Widget>().unwrap();
    assert_eq!((hub.replicas, hub.mode.as_str()), (1, "auto"));
    assert_eq!((hub.api_version.as_str(), hub.kind.as_str()), ("", ""));
}

#[test]
fn universal_decoder_with_versions_converts_to_them_r3_2() {
    let d = factory()
        .universal_decoder(&[widgets_v2()])
        .decode(widget_v1_json(), None, None)
        .unwrap();
    let w = d.object.downcast_ref::<WidgetV2>().unwrap();
    assert_eq!((w.replicas, w.api_version.as_str()), (4, "example.com/v2"));
}

#[test]
fn legacy_codec_encodes_json_in_the_given_version_r3_2() {
    let codec = factory().legacy_codec(&[widgets_v1()]);
    let hub = Widget {
        replicas: 6,
        ..Widget::default()
    };
    let out: serde_json::Value =
        serde_json::from_slice(&codec.encode_to_vec(&hub).unwrap()).unwrap();
    assert_eq!(
        out,
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {}, "size": "6"})
    );
}

#[test]
fn codec_without_encode_version_does_not_convert_r3_3() {
    let f = factory();
    let json = f.supported_media_types()[0].serializer.clone();
    let codec = f.codec_for_versions(Some(json), None, None, None);
    let err = codec.encode_to_vec(&Widget::default()).unwrap_err();
    assert!(err.is_not_registered());
}

#[test]
fn codec_without_decode_version_decodes_to_internal_r3_3() {
    let f = factory();
    let json = f.supported_media_types()[0].serializer.clone();
    let d = f
        .codec_for_versions(None, Some(json), None, None)
        .decode(widget_v1_json(), None, None)
        .unwrap();
    assert!(d.object.is::<Widget>());
}

#[test]
fn without_conversion_encoder_only_sets_the_gvk_r3_4() {
    let f = factory();
    let json = f.supported_media_types()[0].serializer.clone();
    let enc = f
        .without_conversion()
        .encoder_for_version(json, v(widgets_v1()));
    let out = String::from_utf8(enc.encode_to_vec(&WidgetV1::default()).unwrap()).unwrap();
    assert!(
        out.starts_with(r#"{"kind":"Widget","apiVersion":"example.com/v1""#),
        "{out}"
    );
}

#[test]
fn without_conversion_decoder_clears_the_gvk_r3_4() {
    let f = factory();
    let dec = f
        .without_conversion()
        .decoder_to_version(f.universal_deserializer());
    let d = dec.decode(widget_v1_json(), None, None).unwrap();
    assert_eq!((d.object.api_version(), d.object.kind()), ("", ""));
    assert!(d.object.is::<WidgetV1>());
}

#[test]
fn versioning_decode_into_other_version_converts_into_it_r3_5() {
    let f = factory();
    let codec = f.decoder_to_version(f.universal_deserializer(), v(widgets_v2()));
    let into = WidgetV2::default();
    let d = codec.decode(widget_v1_json(), None, Some(&into)).unwrap();
    let w = d.object.downcast_ref::<WidgetV2>().unwrap();
    assert_eq!((w.replicas, w.metadata.name.as_str()), (4, "w"));
    assert_eq!(into, WidgetV2::default());
}

#[test]
fn versioning_decode_defaults_before_converting_r3_5() {
    let f = factory();
    let codec = f.decoder_to_version(f.universal_deserializer(), v(widgets_v2()));
    let d = codec
        .decode(
            br#"{"apiVersion":"example.com/v2","kind":"Widget","replicas":2}"#,
            None,
            None,
        )
        .unwrap();
    assert_eq!(d.object.downcast_ref::<WidgetV2>().unwrap().mode, "auto");
}

#[test]
fn versioning_decode_keeps_strict_errors_with_the_converted_object_r3_5() {
    let f = factory();
    let strict = f.supported_media_types()[0]
        .strict_serializer
        .clone()
        .unwrap();
    let codec = f.decoder_to_version(strict, v(widgets_v2()));
    let data = br#"{"apiVersion":"example.com/v1","kind":"Widget","size":"3","bogus":true}"#;
    let Err(Error::StrictDecoding(e)) = codec.decode(data, None, None) else {
        panic!("expected strict error")
    };
    assert_eq!(e.errors, [r#"unknown field "bogus""#]);
    assert_eq!(
        e.decoded
            .unwrap()
            .object
            .downcast_ref::<WidgetV2>()
            .unwrap()
            .replicas,
        3
    );
}

#[test]
fn versioning_encode_converts_to_the_target_r3_6() {
    let f = factory();
    let json = f.supported_media_types()[0].serializer.clone();
    let enc = f.encoder_for_version(json, v(widgets_v1()));
    let v2 = WidgetV2 {
        replicas: 8,
        metadata: ObjectMeta {
            name: "x".into(),
            ..Default::default()
        },
        ..Default::default()
    };
    let before = v2.clone();
    let out: serde_json::Value = serde_json::from_slice(&enc.encode_to_vec(&v2).unwrap()).unwrap();
    assert_eq!(out["size"], json!("8"));
    assert_eq!(out["apiVersion"], json!("example.com/v1"));
    assert_eq!(v2, before, "the caller's object is left as it was");
}

#[test]
fn versioning_encode_passes_unknown_untouched_r3_6() {
    let f = factory();
    let json = f.supported_media_types()[0].serializer.clone();
    let enc = f.encoder_for_version(json, v(widgets_v1()));
    let u = Unknown {
        raw: br#"{"x":1}"#.to_vec(),
        ..Unknown::default()
    };
    assert_eq!(enc.encode_to_vec(&u).unwrap(), b"{\"x\":1}\n");
}

#[test]
fn versioning_encode_passes_unstructured_in_target_version_untouched_r3_6() {
    let f = factory();
    let json = f.supported_media_types()[0].serializer.clone();
    let enc = f.encoder_for_version(json, v(GroupVersion::new("x.io", "v1")));
    let u = Unstructured::from_value(json!({"apiVersion": "x.io/v1", "kind": "Thing", "a": 1}))
        .unwrap();
    assert_eq!(
        enc.encode_to_vec(&u).unwrap(),
        b"{\"a\":1,\"apiVersion\":\"x.io/v1\",\"kind\":\"Thing\"}\n"
    );
}

#[test]
fn versioning_encode_rejects_unstructured_of_another_group_r3_6() {
    let f = factory();
    let json = f.supported_media_types()[0].serializer.clone();
    let enc = f.encoder_for_version(json, v(GroupVersion::new("x.io", "v1")));
    let u = Unstructured::from_value(json!({"apiVersion": "y.io/v1", "kind": "Thing"})).unwrap();
    let err = enc.encode_to_vec(&u).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#""y.io/v1" is not suitable for converting to "x.io/v1" in scheme "test""#
    );
}

#[test]
fn versioning_encode_of_unversioned_sets_its_kind_r3_6() {
    let f = factory();
    let json = f.supported_media_types()[0].serializer.clone();
    let enc = f.encoder_for_version(json, v(widgets_v1()));
    let out = String::from_utf8(
        enc.encode_to_vec(&kapi_machinery::meta::v1::Status::default())
            .unwrap(),
    )
    .unwrap();
    assert!(
        out.starts_with(r#"{"kind":"Status","apiVersion":"v1""#),
        "{out}"
    );
}

#[test]
fn versioning_roundtrip_v1_to_v2_to_v1_is_lossless_r3_6() {
    let f = factory();
    let u = f.universal_deserializer();
    let json = f.supported_media_types()[0].serializer.clone();
    let to_v2 = f.encoder_for_version(json.clone(), v(widgets_v2()));
    let to_v1 = f.encoder_for_version(json, v(widgets_v1()));
    let d1 = u.decode(widget_v1_json(), None, None).unwrap();
    let v2_bytes = to_v2.encode_to_vec(&*d1.object).unwrap();
    let d2 = u.decode(&v2_bytes, None, None).unwrap();
    let back = to_v1.encode_to_vec(&*d2.object).unwrap();
    let d3 = u.decode(&back, None, None).unwrap();
    assert_eq!(
        d3.object.downcast_ref::<WidgetV1>(),
        d1.object.downcast_ref::<WidgetV1>()
    );
    assert_eq!(d3.gvk, GroupVersionKind::new("example.com", "v1", "Widget"));
}
