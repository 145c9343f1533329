//! Stream encoder/decoder (R2.22, R2.23, R2.25) and list decoding into UnstructuredList.

mod common;

use common::*;
use kapi_machinery::runtime::{Object, UnstructuredList};
use kapi_machinery::serializer::framer::Framing;
use kapi_machinery::serializer::streaming::{StreamDecoder, StreamEncoder};
use kapi_machinery::serializer::{
    Decoder, JsonSerializer, ProtobufSerializer, SerializerOptions, SharedDecoder, SharedEncoder,
};
use std::sync::Arc;

fn widgets() -> Vec<WidgetV1> {
    (0..3)
        .map(|i| WidgetV1 {
            api_version: "example.com/v1".into(),
            kind: "Widget".into(),
            size: i.to_string(),
            ..WidgetV1::default()
        })
        .collect()
}

fn stream_roundtrip(
    codec: Arc<dyn kapi_machinery::serializer::Serializer>,
    framing: Framing,
) -> Vec<String> {
    let enc: SharedEncoder = codec.clone();
    let dec: SharedDecoder = codec;
    let encoder = StreamEncoder::new(enc, framing);
    let mut wire = Vec::new();
    for w in widgets() {
        encoder.encode(&w, &mut wire).unwrap();
    }
    let mut decoder = StreamDecoder::new(dec, framing);
    let mut sizes = Vec::new();
    // Feed the bytes in small pieces, as a network would.
    for chunk in wire.chunks(7) {
        decoder.push(chunk);
        while let Some(d) = decoder.next_object(None).unwrap() {
            sizes.push(d.object.downcast_ref::<WidgetV1>().unwrap().size.clone());
        }
    }
    sizes
}

#[test]
fn json_stream_decodes_each_object_as_bytes_arrive_r2_22() {
    let json = Arc::new(JsonSerializer::new(scheme(), SerializerOptions::default()));
    assert_eq!(stream_roundtrip(json, Framing::Json), ["0", "1", "2"]);
}

#[test]
fn length_delimited_stream_decodes_each_object_as_bytes_arrive_r2_23() {
    let pb = Arc::new(ProtobufSerializer::new(scheme()));
    assert_eq!(
        stream_roundtrip(pb, Framing::LengthDelimited),
        ["0", "1", "2"]
    );
}

#[test]
fn stream_decoder_refuses_frames_over_16_mib_r2_25() {
    let pb: SharedDecoder = Arc::new(ProtobufSerializer::new(scheme()));
    let mut decoder = StreamDecoder::new(pb, Framing::LengthDelimited);
    decoder.push(&(17u32 * 1024 * 1024).to_be_bytes());
    let err = decoder.next_object(None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "object to decode was longer than maximum allowed size"
    );
}

#[test]
fn list_decodes_into_unstructured_list_r2_5() {
    let json = JsonSerializer::new(scheme(), SerializerOptions::default());
    let d = json
        .decode(
            &golden("configmap-list.json"),
            None,
            Some(&UnstructuredList::default()),
        )
        .unwrap();
    let list = d.object.downcast_ref::<UnstructuredList>().unwrap();
    assert_eq!(d.gvk.kind, "ConfigMapList");
    assert!(!list.items.is_empty());
    assert!(list.items.iter().all(|i| !i.name().is_empty()));
    assert_eq!(list.kind(), "ConfigMapList");
}
