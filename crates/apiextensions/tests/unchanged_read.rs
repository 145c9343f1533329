//! `CustomResourceSchemas::unchanged_read`: whenever it claims stored bytes read back
//! unchanged, splicing `resourceVersion` into them gives exactly the bytes of the decoding
//! path (`from_storage` in the stored version, resourceVersion set, serde_json encoding);
//! after a schema change that adds a default or removes a field it does not claim so.

mod read_path;

use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::CustomResourceSchemas;
use proptest::prelude::*;
use serde_json::{Value, json};

const RV: i64 = 4711;

fn schemas_with(spec_props: Value) -> CustomResourceSchemas {
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": "widgets.unchanged.example.net"},
        "spec": {"group": "unchanged.example.net", "scope": "Namespaced",
            "names": {"plural": "widgets", "kind": "Widget"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": spec_props}}}}},
                {"name": "v1alpha1", "served": true, "storage": false, "schema": {"openAPIV3Schema": {
                    "type": "object", "properties": {"spec": {"type": "object", "properties": spec_props}}}}}
            ]}
    }))
    .unwrap();
    CustomResourceSchemas::new(&crd).unwrap()
}

fn props() -> Value {
    json!({
        "color": {"type": "string", "default": "blue"},
        "replicas": {"type": "integer", "default": 1},
        "weight": {"type": "number"},
        "enabled": {"type": "boolean", "default": true},
        "resources": {"type": "object", "properties": {
            "cpu": {"type": "string", "default": "100m"},
            "memory": {"type": "string", "default": "64Mi"}}},
        "tags": {"type": "array", "items": {"type": "string"}},
        "limits": {"type": "object", "additionalProperties": {"type": "integer"}},
        "note": {"type": "string", "nullable": true},
        "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
    })
}

fn schemas() -> CustomResourceSchemas {
    schemas_with(props())
}

/// What the decoding path answers for `bytes` read in v1.
fn decoded(s: &CustomResourceSchemas, bytes: &[u8]) -> Option<Vec<u8>> {
    read_path::decoded(s, bytes, "v1", RV)
}

/// The spliced answer, after checking it equals the decoding path's whenever given.
fn spliced(s: &CustomResourceSchemas, bytes: &[u8]) -> Option<Vec<u8>> {
    let fast = s.unchanged_read(bytes, "v1")?.splice(bytes, RV);
    assert_eq!(
        Some(String::from_utf8_lossy(&fast).into_owned()),
        decoded(s, bytes).map(|d| String::from_utf8_lossy(&d).into_owned()),
        "stored: {}",
        String::from_utf8_lossy(bytes)
    );
    Some(fast)
}

fn metadata() -> Value {
    json!({
        "creationTimestamp": "2026-11-29T16:20:23Z",
        "generation": 1,
        "labels": {"app": "bench"},
        "managedFields": [{"apiVersion": "unchanged.example.net/v1", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {".": {}, "f:color": {}}}, "manager": "kubectl",
            "operation": "Update", "time": "2026-11-29T16:20:23Z"}],
        "name": "w",
        "namespace": "default",
        "uid": "dd9457e7-0a1d-4e36-9c4a-d58c1627d7b5"
    })
}

fn spec() -> Value {
    json!({"color": "red", "replicas": 3, "weight": 0.5, "enabled": false,
        "resources": {"cpu": "250m", "memory": "64Mi"}, "tags": ["a", "b"], "limits": {"x": 2}})
}

fn widget(meta: Value, spec: Value) -> Vec<u8> {
    serde_json::to_vec(
        &json!({"apiVersion": "unchanged.example.net/v1", "kind": "Widget",
        "metadata": meta, "spec": spec}),
    )
    .unwrap()
}

#[test]
fn a_written_widget_is_spliced_like_the_decoding_path() {
    assert!(spliced(&schemas(), &widget(metadata(), spec())).is_some());
}

#[test]
fn resource_version_goes_last_when_no_metadata_key_sorts_after_it() {
    let meta = json!({"creationTimestamp": "2026-11-29T16:20:23Z", "generation": 2, "name": "w"});
    let out = spliced(&schemas(), &widget(meta, spec())).unwrap();
    assert!(
        String::from_utf8(out)
            .unwrap()
            .contains(r#""name":"w","resourceVersion":"4711"}"#)
    );
}

#[test]
fn a_default_added_to_the_schema_after_the_write_is_applied_on_read() {
    let mut p = props();
    p["zone"] = json!({"type": "string", "default": "eu-1a"});
    let s = schemas_with(p);
    let bytes = widget(metadata(), spec());
    assert!(s.unchanged_read(&bytes, "v1").is_none());
    let read: Value = serde_json::from_slice(&decoded(&s, &bytes).unwrap()).unwrap();
    assert_eq!(read["spec"]["zone"], "eu-1a");
}

#[test]
fn a_field_removed_from_the_schema_after_the_write_is_pruned_on_read() {
    let mut p = props();
    p.as_object_mut().unwrap().remove("weight");
    let s = schemas_with(p);
    let bytes = widget(metadata(), spec());
    assert!(s.unchanged_read(&bytes, "v1").is_none());
    let read: Value = serde_json::from_slice(&decoded(&s, &bytes).unwrap()).unwrap();
    assert!(read["spec"].get("weight").is_none());
}

#[test]
fn an_object_stored_in_another_version_is_not_spliced() {
    let mut obj: Value = serde_json::from_slice(&widget(metadata(), spec())).unwrap();
    obj["apiVersion"] = json!("unchanged.example.net/v1alpha1");
    let bytes = serde_json::to_vec(&obj).unwrap();
    assert!(schemas().unchanged_read(&bytes, "v1").is_none());
}

#[test]
fn metadata_a_read_would_normalize_is_not_spliced() {
    let variants = [
        ("generation", Value::Null),
        ("generation", json!(0)),
        ("creationTimestamp", json!("2026-11-29T17:20:23+01:00")),
        ("labels", json!({})),
        ("labels", json!({"a": null})),
        ("name", json!("")),
        ("resourceVersion", json!("12")),
        ("unknownField", json!("x")),
        ("finalizers", json!([])),
        (
            "ownerReferences",
            json!([{"apiVersion": "v1", "kind": "K", "name": "n"}]),
        ),
    ];
    for (key, value) in variants {
        let mut meta = metadata();
        if value.is_null() {
            meta.as_object_mut().unwrap().remove(key);
        } else {
            meta[key] = value;
        }
        let bytes = widget(meta, spec());
        assert!(spliced(&schemas(), &bytes).is_none(), "{key}");
    }
}

#[test]
fn bytes_serde_json_would_encode_differently_are_not_spliced() {
    let canonical = String::from_utf8(widget(metadata(), spec())).unwrap();
    let variants = [
        canonical.replace(r#""weight":0.5"#, r#""weight":0.50"#),
        canonical.replace(r#""color":"red""#, r#""color":"r\u0065d""#),
        canonical.replace(r#""kind":"Widget""#, r#""kind": "Widget""#),
        canonical.replace(
            r#""apiVersion":"unchanged.example.net/v1","kind":"Widget""#,
            r#""kind":"Widget","apiVersion":"unchanged.example.net/v1""#,
        ),
        format!("{canonical}\n"),
    ];
    for bytes in variants {
        assert!(spliced(&schemas(), bytes.as_bytes()).is_none(), "{bytes}");
    }
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        3 => any::<bool>().prop_map(Value::from),
        3 => any::<i64>().prop_map(Value::from),
        3 => any::<u64>().prop_map(Value::from),
        3 => (-1e6f64..1e6).prop_map(Value::from),
        6 => "[a-z\"\\\\\n\t\u{1}\u{7f}é😀/]{0,6}".prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[a-z]{1,3}|color|cpu|x", inner, 0..3)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn spec_value() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "color",
        "replicas",
        "weight",
        "enabled",
        "resources",
        "tags",
        "limits",
        "note",
        "free",
        "unknown",
    ]);
    prop::collection::btree_map(key, json_value(), 0..10)
        .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
}

fn metadata_value() -> impl Strategy<Value = Value> {
    let field = |key: &'static str, values: Vec<Value>| {
        prop::sample::select(values).prop_map(move |v| (key, v))
    };
    (
        field("generation", vec![Value::Null, json!(1), json!(0), json!(-3), json!(2.0)]),
        field(
            "creationTimestamp",
            vec![json!("2026-11-29T16:20:23Z"), json!("2026-11-29T16:20:23.5Z"), Value::Null, json!(5)],
        ),
        field("labels", vec![Value::Null, json!({"a": "b"}), json!({}), json!({"a": null})]),
        field("uid", vec![Value::Null, json!("u"), json!("")]),
        field("selfLink", vec![Value::Null, json!("/x")]),
        field("resourceVersion", vec![Value::Null, json!("9")]),
        field(
            "ownerReferences",
            vec![
                Value::Null,
                json!([{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u", "controller": true}]),
                json!([{"apiVersion": "v1", "kind": "K", "name": "n"}]),
            ],
        ),
        field(
            "managedFields",
            vec![
                Value::Null,
                json!([{"manager": "m", "operation": "Apply", "time": "2026-11-29T16:20:23Z",
                    "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:a": {}, "x": null}}}]),
                json!([{"manager": "", "time": "2026-11-29T16:20:23Z"}]),
                json!([{"manager": "m", "extra": 1}]),
            ],
        ),
    )
        .prop_map(|fields| {
            let (a, b, c, d, e, f, g, h) = fields;
            let mut meta = json!({"name": "w", "namespace": "default"});
            for (k, v) in [a, b, c, d, e, f, g, h] {
                if !v.is_null() || k == "creationTimestamp" {
                    meta[k] = v;
                }
            }
            meta
        })
}

const SCHEMA_CHANGES: usize = 6;

/// `props()` changed in one of several ways after objects were written.
fn changed_schemas(change: usize) -> CustomResourceSchemas {
    let mut p = props();
    match change {
        0 => p["aaa"] = json!({"type": "string", "default": "first"}),
        1 => p["zone"] = json!({"type": "string", "default": "last"}),
        2 => p["resources"]["properties"]["disk"] = json!({"type": "string", "default": "1Gi"}),
        3 => p["resources"]["properties"]["cpu"]["default"] = json!("1"),
        4 => {
            p.as_object_mut().unwrap().remove("enabled");
        }
        _ => {
            p["resources"]["properties"]
                .as_object_mut()
                .unwrap()
                .remove("cpu");
        }
    }
    schemas_with(p)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Any object, canonical or not, pruned/defaulted or not: a splice equals the decoding path.
    #[test]
    fn a_splice_always_equals_the_decoding_path(
        meta in prop_oneof![3 => Just(metadata()), 1 => metadata_value()],
        spec in spec_value(),
    ) {
        let s = schemas();
        spliced(&s, &widget(meta, spec));
    }

    /// An object written under one schema and read under another (defaults added, changed
    /// or removed, fields removed): a splice, if any, equals the decoding path.
    #[test]
    fn a_splice_after_a_schema_change_equals_the_decoding_path(
        spec in spec_value(),
        change in 0..SCHEMA_CHANGES,
    ) {
        let mut obj: Value = serde_json::from_slice(&widget(metadata(), spec)).unwrap();
        schemas().decode_request(&mut obj, "v1", false).unwrap();
        let bytes = serde_json::to_vec(&obj).unwrap();
        spliced(&changed_schemas(change), &bytes);
    }

    /// Whatever was written through the request pipeline and stored reads back unchanged
    /// (when it holds no nulls, which the proof does not attempt).
    #[test]
    fn a_written_object_is_spliced(spec in spec_value()) {
        let s = schemas();
        let mut obj: Value = serde_json::from_slice(&widget(metadata(), spec)).unwrap();
        s.decode_request(&mut obj, "v1", false).unwrap();
        let bytes = serde_json::to_vec(&obj).unwrap();
        let has_null = String::from_utf8_lossy(&bytes).contains("null");
        let free = obj["spec"].get("free").is_some();
        let out = spliced(&s, &bytes);
        prop_assert!(out.is_some() || has_null || free);
    }
}
