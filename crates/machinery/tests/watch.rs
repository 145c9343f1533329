//! Watch encoding R2.22–R2.28 against kube-apiserver's recorded watch streams.

mod common;

use common::*;
use kapi_machinery::meta::v1::WatchEvent;
use kapi_machinery::serializer::framer::{FrameReader, Framing};
use kapi_machinery::serializer::watch::{WatchEncoder, decode_event};
use kapi_machinery::serializer::{
    Decoder, JsonSerializer, ProtobufSerializer, RawProtobufSerializer, SerializerOptions,
    SharedDecoder,
};
use std::sync::Arc;

fn frames(data: &[u8], framing: Framing) -> Vec<Vec<u8>> {
    let mut r = FrameReader::new(framing);
    r.push(data);
    std::iter::from_fn(|| r.next_frame().unwrap()).collect()
}

#[test]
fn json_watch_stream_reencodes_to_kube_apiserver_bytes_r2_27() {
    let s = scheme();
    let json = Arc::new(JsonSerializer::new(s.clone(), SerializerOptions::default()));
    let golden = golden("watch-json.bin");
    let encoder = WatchEncoder::new(json.clone(), json.clone(), Framing::Json);
    let embedded: SharedDecoder = json.clone();
    let mut out = Vec::new();
    let mut types = Vec::new();
    for frame in frames(&golden, Framing::Json) {
        let (event_type, decoded) = decode_event(&frame, &*json, &embedded, None).unwrap();
        assert!(decoded.object.is::<ConfigMap>());
        encoder
            .encode_event(&event_type, &*decoded.object, &mut out)
            .unwrap();
        types.push(event_type);
    }
    assert_eq!(types, ["ADDED", "MODIFIED", "DELETED"]);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        String::from_utf8(golden).unwrap()
    );
}

#[test]
fn protobuf_watch_stream_reencodes_to_kube_apiserver_bytes_r2_27() {
    let s = scheme();
    let pb = Arc::new(ProtobufSerializer::new(s.clone()));
    let raw = Arc::new(RawProtobufSerializer::new(s));
    let golden = golden("watch-protobuf.bin");
    let encoder = WatchEncoder::new(pb.clone(), raw.clone(), Framing::LengthDelimited);
    let embedded: SharedDecoder = pb.clone();
    let mut out = Vec::new();
    for frame in frames(&golden, Framing::LengthDelimited) {
        let (event_type, decoded) = decode_event(&frame, &*raw, &embedded, None).unwrap();
        encoder
            .encode_event(&event_type, &*decoded.object, &mut out)
            .unwrap();
    }
    assert_eq!(out, golden);
}

#[test]
fn protobuf_watch_event_has_no_prefix_but_object_keeps_envelope_r2_27() {
    let golden = golden("watch-protobuf.bin");
    let first = &frames(&golden, Framing::LengthDelimited)[0];
    assert_ne!(&first[..4], b"k8s\x00");
    let raw = RawProtobufSerializer::new(scheme());
    let ev = raw
        .decode(first, None, Some(&WatchEvent::default()))
        .unwrap();
    let ev = ev.object.downcast_ref::<WatchEvent>().unwrap();
    assert_eq!(ev.type_, "ADDED");
    assert_eq!(&ev.object.raw[..4], b"k8s\x00");
}

#[test]
fn watch_event_is_registered_in_every_group_version_r2_27() {
    let s = scheme();
    assert!(s.recognizes(&common::core_v1().with_kind("WatchEvent")));
    assert!(
        s.recognizes(&kapi_machinery::meta::v1::scheme_group_version().with_kind("WatchEvent"))
    );
}

#[test]
fn watch_content_types_r2_28() {
    use kapi_machinery::serializer::watch::{WATCH_CONTENT_TYPE_JSON, WATCH_CONTENT_TYPE_PROTOBUF};
    assert_eq!(WATCH_CONTENT_TYPE_JSON, "application/json");
    assert_eq!(
        WATCH_CONTENT_TYPE_PROTOBUF,
        "application/vnd.kubernetes.protobuf;stream=watch"
    );
}
