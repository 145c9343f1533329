//! proptest round-trips for every codec: encode then decode gives the object back.

mod common;

use chrono::DateTime;
use common::*;
use kapi_machinery::meta::v1::{
    ObjectMeta, OwnerReference, Status, StatusCause, StatusDetails, Time,
};
use kapi_machinery::runtime::{Object, Unstructured};
use kapi_machinery::serializer::{
    Decoder, Encoder, JsonSerializer, ProtobufSerializer, SerializerOptions, YamlSerializer,
};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9.-]{0,12}",
        any::<String>(),
        Just("yes".to_string()),
        Just("0x1F".to_string()),
        Just("1e3".to_string()),
        Just("~".to_string()),
        Just(" <a&b> ".to_string()),
        Just("line1\nline2\n".to_string()),
    ]
}

fn time() -> impl Strategy<Value = Time> {
    prop_oneof![
        Just(Time(None)),
        (0i64..4_000_000_000).prop_map(|s| Time(DateTime::from_timestamp(s, 0)))
    ]
}

fn owner() -> impl Strategy<Value = OwnerReference> {
    (text(), text(), proptest::option::of(any::<bool>())).prop_map(|(name, uid, controller)| {
        OwnerReference {
            api_version: "v1".into(),
            kind: "Thing".into(),
            name,
            uid,
            controller,
            block_owner_deletion: None,
        }
    })
}

fn meta() -> impl Strategy<Value = ObjectMeta> {
    (
        text(),
        text(),
        any::<i64>(),
        time(),
        proptest::collection::btree_map("[a-z/.]{1,10}", text(), 0..4),
        proptest::collection::vec(owner(), 0..2),
        proptest::collection::vec(text(), 0..2),
    )
        .prop_map(
            |(
                name,
                namespace,
                generation,
                creation_timestamp,
                labels,
                owner_references,
                finalizers,
            )| {
                ObjectMeta {
                    name,
                    namespace,
                    generation,
                    creation_timestamp,
                    labels,
                    owner_references,
                    finalizers,
                    ..ObjectMeta::default()
                }
            },
        )
}

fn config_map() -> impl Strategy<Value = ConfigMap> {
    (
        meta(),
        proptest::collection::btree_map("[a-zA-Z0-9._-]{1,12}", text(), 0..5),
        proptest::collection::btree_map(
            "[a-z]{1,8}",
            proptest::collection::vec(any::<u8>(), 0..16),
            0..3,
        ),
        proptest::option::of(any::<bool>()),
    )
        .prop_map(|(metadata, data, binary_data, immutable)| ConfigMap {
            kind: "ConfigMap".into(),
            api_version: "v1".into(),
            metadata,
            immutable,
            data,
            binary_data,
        })
}

fn status() -> impl Strategy<Value = Status> {
    (
        text(),
        text(),
        any::<i32>(),
        proptest::collection::vec((text(), text()), 0..3),
    )
        .prop_map(|(message, reason, code, causes)| Status {
            kind: "Status".into(),
            api_version: "v1".into(),
            status: "Failure".into(),
            message,
            reason,
            code,
            details: Some(StatusDetails {
                causes: causes
                    .into_iter()
                    .map(|(m, f)| StatusCause {
                        message: m,
                        field: f,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }),
            ..Status::default()
        })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Whole floats come back as integers, as in Go (`1.0` is written `1`).
        (-1e15f64..1e15)
            .prop_filter("fractional", |f| f.fract() != 0.0)
            .prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn unstructured() -> impl Strategy<Value = Unstructured> {
    proptest::collection::btree_map("[a-z]{1,6}", json_value(), 0..5).prop_map(|m| {
        let mut object: serde_json::Map<String, Value> = m.into_iter().collect();
        object.insert("apiVersion".into(), Value::from("x.io/v1"));
        object.insert("kind".into(), Value::from("Thing"));
        Unstructured { object }
    })
}

fn roundtrip<T: Object + Clone>(
    codec: &(impl Encoder + Decoder),
    obj: &T,
    into: Option<&dyn Object>,
) -> Option<T> {
    let bytes = codec.encode_to_vec(obj).unwrap();
    codec
        .decode(&bytes, None, into)
        .unwrap()
        .object
        .downcast_ref::<T>()
        .cloned()
}

fn json(pretty: bool) -> JsonSerializer {
    JsonSerializer::new(
        scheme(),
        SerializerOptions {
            pretty,
            strict: true,
        },
    )
}

proptest! {
    #[test]
    fn json_roundtrip_configmap(cm in config_map()) {
        prop_assert_eq!(roundtrip(&json(false), &cm, None), Some(cm.clone()));
    }

    #[test]
    fn pretty_json_roundtrip_configmap(cm in config_map()) {
        prop_assert_eq!(roundtrip(&json(true), &cm, None), Some(cm.clone()));
    }

    #[test]
    fn yaml_roundtrip_configmap(cm in config_map()) {
        let yaml = YamlSerializer::new(scheme(), true);
        prop_assert_eq!(roundtrip(&yaml, &cm, None), Some(cm.clone()));
    }

    #[test]
    fn protobuf_roundtrip_configmap(cm in config_map()) {
        let pb = ProtobufSerializer::new(scheme());
        prop_assert_eq!(roundtrip(&pb, &cm, None), Some(cm.clone()));
    }

    #[test]
    fn protobuf_roundtrip_status(st in status()) {
        let pb = ProtobufSerializer::new(scheme());
        prop_assert_eq!(roundtrip(&pb, &st, None), Some(st.clone()));
    }

    #[test]
    fn json_roundtrip_status(st in status()) {
        prop_assert_eq!(roundtrip(&json(false), &st, None), Some(st.clone()));
    }

    #[test]
    fn json_roundtrip_unstructured(u in unstructured()) {
        prop_assert_eq!(roundtrip(&json(false), &u, Some(&Unstructured::default())), Some(u.clone()));
    }

    #[test]
    fn yaml_roundtrip_unstructured(u in unstructured()) {
        let yaml = YamlSerializer::new(scheme(), true);
        prop_assert_eq!(roundtrip(&yaml, &u, Some(&Unstructured::default())), Some(u.clone()));
    }

    #[test]
    fn typed_unstructured_typed_roundtrip(cm in config_map()) {
        let s = scheme();
        let u = s.to_unstructured(&cm).unwrap();
        let back = s.from_unstructured(&u).unwrap();
        prop_assert_eq!(back.downcast_ref::<ConfigMap>(), Some(&cm));
    }

    #[test]
    fn labels_map_protobuf_is_sorted_and_keeps_empty_values(labels in proptest::collection::btree_map("[a-z]{0,4}", "[a-z]{0,3}", 0..6)) {
        let meta = ObjectMeta { labels: labels.clone(), ..ObjectMeta::default() };
        let back: ObjectMeta = prost::Message::decode(prost::Message::encode_to_vec(&meta).as_slice()).unwrap();
        prop_assert_eq!(back.labels, labels);
    }
}

#[test]
fn binary_data_is_base64_in_json() {
    let cm = ConfigMap {
        binary_data: BTreeMap::from([("b".to_string(), vec![0, 1, 2])]),
        ..ConfigMap::default()
    };
    let out = String::from_utf8(json(false).encode_to_vec(&cm).unwrap()).unwrap();
    assert!(out.contains(r#""binaryData":{"b":"AAEC"}"#), "{out}");
}
