//! Hostile input: every decoder returns an error, never a panic or a stack overflow.

mod common;

use common::*;
use kapi_machinery::runtime::Unstructured;
use kapi_machinery::serializer::framer::{FrameReader, Framing};
use kapi_machinery::serializer::{CodecFactory, Decoder, ProtobufSerializer};

const DEPTH: usize = 100_000;

fn universal() -> kapi_machinery::serializer::SharedDecoder {
    CodecFactory::new(scheme()).universal_deserializer()
}

#[test]
fn truncated_json_never_panics() {
    let data = golden("configmap.json");
    let u = universal();
    for n in 0..data.len() {
        let _ = u.decode(&data[..n], None, None);
    }
    assert!(u.decode(&data[..data.len() / 2], None, None).is_err());
}

#[test]
fn truncated_protobuf_never_panics() {
    let data = golden("configmap.pb");
    let u = universal();
    for n in 0..data.len() {
        let _ = u.decode(&data[..n], None, None);
    }
    assert!(u.decode(&data[..data.len() - 10], None, None).is_err());
}

#[test]
fn truncated_yaml_never_panics() {
    let data = golden("configmap-yaml.txt");
    let u = universal();
    for n in 0..data.len() {
        let _ = u.decode(&data[..n], None, None);
    }
    assert!(u.decode(&data[..7], None, None).is_err());
}

#[test]
fn deeply_nested_json_is_an_error() {
    let data = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","x":{}{}}}"#,
        "[".repeat(DEPTH),
        "]".repeat(DEPTH)
    );
    assert!(universal().decode(data.as_bytes(), None, None).is_err());
    assert!(
        universal()
            .decode(data.as_bytes(), None, Some(&Unstructured::default()))
            .is_err()
    );
}

#[test]
fn deeply_nested_json_in_strict_mode_is_an_error() {
    let f = CodecFactory::new(scheme());
    let strict = f.supported_media_types()[0]
        .strict_serializer
        .clone()
        .unwrap();
    let data = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","x":{}"#,
        r#"{"a":"#.repeat(DEPTH)
    );
    assert!(strict.decode(data.as_bytes(), None, None).is_err());
}

#[test]
fn deeply_nested_yaml_flow_is_an_error() {
    let data = format!(
        "apiVersion: v1\nkind: ConfigMap\nx: {}{}\n",
        "[".repeat(DEPTH),
        "]".repeat(DEPTH)
    );
    assert!(universal().decode(data.as_bytes(), None, None).is_err());
}

#[test]
fn deeply_nested_yaml_in_strict_mode_is_an_error() {
    let strict = kapi_machinery::serializer::YamlSerializer::new(scheme(), true);
    let data = format!(
        "apiVersion: v1\nkind: ConfigMap\nx: {}{}\n",
        "{a: ".repeat(DEPTH),
        "}".repeat(DEPTH)
    );
    assert!(strict.decode(data.as_bytes(), None, None).is_err());
}

#[test]
fn deeply_nested_yaml_block_is_an_error() {
    let mut data = String::from("apiVersion: v1\nkind: ConfigMap\n");
    for i in 0..2_000 {
        data.push_str(&" ".repeat(i));
        data.push_str("a:\n");
    }
    assert!(universal().decode(data.as_bytes(), None, None).is_err());
}

#[test]
fn deeply_nested_protobuf_groups_are_an_error() {
    // A Widget body made of 100 000 nested start-group markers (field 9, wire type 3).
    let mut raw = vec![0x1b; DEPTH];
    raw.extend(std::iter::repeat_n(0x1c, DEPTH));
    let mut data = b"k8s\x00".to_vec();
    let mut env = Vec::new();
    kapi_machinery::serializer::protobuf::write_unknown_message(
        "example.com/v1",
        "Widget",
        &raw,
        "",
        "",
        &mut env,
    );
    data.extend(env);
    assert!(
        ProtobufSerializer::new(scheme())
            .decode(&data, None, None)
            .is_err()
    );
}

#[test]
fn integer_beyond_i64_in_typed_field_is_an_error() {
    let data =
        br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generation":99999999999999999999}}"#;
    assert!(universal().decode(data, None, None).is_err());
}

#[test]
fn number_beyond_f64_is_an_error() {
    let data = br#"{"apiVersion":"x/v1","kind":"T","n":1e400}"#;
    assert!(
        universal()
            .decode(data, None, Some(&Unstructured::default()))
            .is_err()
    );
    let yaml = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generation: 1e400\n";
    assert!(universal().decode(yaml, None, None).is_err());
}

#[test]
fn invalid_utf8_is_an_error() {
    let json = b"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"data\":{\"a\":\"\xff\"}}";
    assert!(universal().decode(json, None, None).is_err());
    let yaml = b"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \xff\xfe\n";
    assert!(universal().decode(yaml, None, None).is_err());
    let mut env = b"k8s\x00".to_vec();
    kapi_machinery::serializer::protobuf::write_unknown_message(
        "v1",
        "ConfigMap",
        b"\x0a\x02\x0a\xff",
        "",
        "",
        &mut env,
    );
    assert!(universal().decode(&env, None, None).is_err());
}

#[test]
fn protobuf_length_prefix_larger_than_data_is_an_error() {
    // Unknown.raw (field 2) claims 1000 bytes, 3 follow.
    let data = b"k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\xe8\x07abc";
    assert!(
        ProtobufSerializer::new(scheme())
            .decode(data, None, None)
            .is_err()
    );
    // A nested length inside the object body.
    let mut env = b"k8s\x00".to_vec();
    kapi_machinery::serializer::protobuf::write_unknown_message(
        "v1",
        "ConfigMap",
        b"\x0a\xff\xff\x03\x0a",
        "",
        "",
        &mut env,
    );
    assert!(
        ProtobufSerializer::new(scheme())
            .decode(&env, None, None)
            .is_err()
    );
}

#[test]
fn frame_length_prefix_larger_than_limit_is_an_error() {
    let mut r = FrameReader::new(Framing::LengthDelimited);
    r.push(&[0x7f, 0xff, 0xff, 0xff, 0x00]);
    assert!(r.next_frame().is_err());
}
