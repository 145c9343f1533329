//! Review of `CustomResourceSchemas::unchanged_read`: on edge-case stored bytes (numbers,
//! escapes, key order, metadata shapes, schema features), whenever it claims a read leaves
//! the bytes unchanged, the splice must equal the decoding path (`from_storage`, then
//! `resourceVersion`, then serde_json) byte for byte.

mod read_path;

use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::CustomResourceSchemas;
use proptest::prelude::*;
use serde_json::{Value, json};

const RV: i64 = 31337;

/// A CRD `reviews.review.example.net` whose v1 root schema has `props` (and a status
/// subresource).
fn schemas_with(props: Value) -> CustomResourceSchemas {
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": "reviews.review.example.net"},
        "spec": {"group": "review.example.net", "scope": "Namespaced",
            "names": {"plural": "reviews", "kind": "Review"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": props}}}]}
    }))
    .unwrap();
    CustomResourceSchemas::new(&crd).unwrap()
}

/// What the decoding path answers for `bytes` read in v1.
fn decoded(s: &CustomResourceSchemas, bytes: &[u8]) -> Option<String> {
    String::from_utf8(read_path::decoded(s, bytes, "v1", RV)?).ok()
}

/// The splice, when `unchanged_read` offers one.
fn spliced(s: &CustomResourceSchemas, bytes: &[u8]) -> Option<String> {
    let out = s.unchanged_read(bytes, "v1")?.splice(bytes, RV);
    Some(String::from_utf8(out).unwrap())
}

fn meta() -> Value {
    json!({"creationTimestamp": "2026-11-29T16:20:23Z", "generation": 1, "name": "r",
        "namespace": "default", "uid": "u-1"})
}

fn object(meta: Value, rest: Value) -> String {
    let mut o = json!({"apiVersion": "review.example.net/v1", "kind": "Review", "metadata": meta});
    for (k, v) in rest.as_object().unwrap() {
        o[k] = v.clone();
    }
    serde_json::to_string(&o).unwrap()
}

/// Whether the splice was taken; panics when it differs from the decoding path.
fn check(s: &CustomResourceSchemas, bytes: &str) -> bool {
    let Some(fast) = spliced(s, bytes.as_bytes()) else {
        return false;
    };
    assert_eq!(Some(fast), decoded(s, bytes.as_bytes()), "stored: {bytes}");
    true
}

fn review_schemas() -> CustomResourceSchemas {
    schemas_with(json!({
        "spec": {"type": "object", "properties": {
            "n": {"type": "number"},
            "i": {"type": "integer"},
            "s": {"type": "string"},
            "ios": {"x-kubernetes-int-or-string": true},
            "obj": {"type": "object", "properties": {"a": {"type": "string"}}},
            "arr": {"type": "array", "items": {"type": "string"}},
            "untyped": {"type": "array"},
            "nested": {"type": "object", "properties": {"metadata": {"type": "object",
                "properties": {"name": {"type": "string"}}}}},
            "objs": {"type": "array", "items": {"type": "object", "properties": {
                "k": {"type": "string"}, "d": {"type": "string", "default": "x"}}}},
            "map": {"type": "object", "additionalProperties": {"type": "object",
                "properties": {"v": {"type": "integer", "default": 7}}}},
            "boolmap": {"type": "object", "additionalProperties": true},
            "parent": {"type": "object", "properties": {
                "child": {"type": "string", "default": "c"}}},
            "nul": {"type": "string", "nullable": true}
        }},
        "status": {"type": "object", "properties": {"phase": {"type": "string"}}}
    }))
}

/// A stored object with `spec` given as raw JSON text.
fn with_raw_spec(spec: &str) -> String {
    format!(
        r#"{{"apiVersion":"review.example.net/v1","kind":"Review","metadata":{{"creationTimestamp":"2026-11-29T16:20:23Z","generation":1,"name":"r"}},"spec":{spec}}}"#
    )
}

fn with_spec(spec: Value) -> String {
    object(meta(), json!({ "spec": spec }))
}

fn with_meta(extra: Value) -> String {
    let mut m = meta();
    for (k, v) in extra.as_object().unwrap() {
        m[k] = v.clone();
    }
    object(m, json!({"spec": {}}))
}

#[test]
fn floats_serde_json_prints_back_unchanged_are_spliced_like_the_decoding_path() {
    let s = review_schemas();
    for n in [
        "-0.0",
        "5e-324",
        "0.1",
        "1.0",
        "100000.0",
        "123456789.12345679",
        "2.5e-8",
        "-1.5e-300",
        "1e-7",
    ] {
        assert!(check(&s, &with_raw_spec(&format!(r#"{{"n":{n}}}"#))), "{n}");
    }
}

#[test]
fn integers_beyond_i64_and_f64_precision_are_spliced_like_the_decoding_path() {
    let s = review_schemas();
    for n in [
        "18446744073709551615",
        "-9223372036854775808",
        "9007199254740993",
    ] {
        assert!(check(&s, &with_raw_spec(&format!(r#"{{"n":{n}}}"#))), "{n}");
    }
}

#[test]
fn numbers_serde_json_prints_another_way_are_not_spliced() {
    let s = review_schemas();
    for n in [
        "1e300",
        "1.7976931348623157e308",
        "1e16",
        "1e15",
        "0.000001",
        "1E5",
        "1e+5",
        "-0",
        "18446744073709551616",
        "-9223372036854775809",
    ] {
        assert!(
            !check(&s, &with_raw_spec(&format!(r#"{{"n":{n}}}"#))),
            "{n}"
        );
    }
}

#[test]
fn control_characters_non_ascii_and_separators_are_spliced_like_the_decoding_path() {
    let text = "\u{0}\u{1f}\u{7f}\u{2028}\u{2029}\u{feff}é😀\"\\/\u{8}\u{c}\n\r\t";
    assert!(check(&review_schemas(), &with_spec(json!({ "s": text }))));
}

#[test]
fn map_keys_in_byte_order_with_upper_case_and_non_ascii_are_spliced_like_the_decoding_path() {
    let spec = json!({"map": {"A": {"v": 1}, "a": {"v": 2}, "a-b": {"v": 0}, "a/b": {"v": 0},
        "é": {"v": 3}, "z": {"v": 4}}});
    assert!(check(&review_schemas(), &with_spec(spec)));
}

#[test]
fn a_missing_default_in_a_map_value_array_item_or_present_parent_is_not_spliced() {
    let s = review_schemas();
    for spec in [
        json!({"map": {"a": {}}}),
        json!({"objs": [{"k": "a"}]}),
        json!({"objs": [{}]}),
        json!({"parent": {}}),
    ] {
        assert!(!check(&s, &with_spec(spec.clone())), "{spec}");
        assert!(decoded(&s, with_spec(spec).as_bytes()).is_some());
    }
}

#[test]
fn a_default_below_an_absent_parent_does_not_stop_the_splice() {
    // `parent.child` has a default, `parent` is absent: defaulting adds nothing.
    assert!(check(&review_schemas(), &with_spec(json!({"s": "x"}))));
}

#[test]
fn defaulted_fields_already_present_are_spliced_like_the_decoding_path() {
    let s = review_schemas();
    for spec in [
        json!({"objs": [{"d": "y", "k": "a"}, {"d": "x"}]}),
        json!({"objs": []}),
        json!({"map": {}}),
        json!({"parent": {"child": "p"}}),
    ] {
        assert!(check(&s, &with_spec(spec.clone())), "{spec}");
    }
}

#[test]
fn values_of_another_type_than_the_schema_are_spliced_like_the_decoding_path() {
    let s = review_schemas();
    for spec in [
        json!({"obj": [1, 2]}),
        json!({"obj": [{}]}),
        json!({"obj": [[{}], []]}),
        json!({"obj": 5}),
        json!({"arr": {}}),
        json!({"arr": [{}]}),
        json!({"untyped": [{}, [1, {}], "x"]}),
        json!({"i": 1.5}),
        json!({"s": 1}),
        json!({"ios": "50%"}),
        json!({"ios": 5}),
        json!({"nul": "x"}),
    ] {
        assert!(check(&s, &with_spec(spec.clone())), "{spec}");
    }
}

#[test]
fn a_nested_metadata_that_is_no_embedded_resource_is_spliced_like_the_decoding_path() {
    let s = review_schemas();
    assert!(check(
        &s,
        &with_spec(json!({"nested": {"metadata": {"name": "n"}}}))
    ));
    assert!(check(&s, &with_spec(json!({"nested": {"metadata": {}}}))));
}

#[test]
fn keys_under_additional_properties_true_are_not_spliced() {
    assert!(!check(
        &review_schemas(),
        &with_spec(json!({"boolmap": {"x": {"y": 1}}}))
    ));
}

#[test]
fn status_and_a_missing_kind_are_spliced_like_the_decoding_path() {
    let s = review_schemas();
    assert!(check(
        &s,
        &object(
            meta(),
            json!({"spec": {"s": "x"}, "status": {"phase": "Ok"}})
        )
    ));
    let no_kind = r#"{"apiVersion":"review.example.net/v1","metadata":{"creationTimestamp":"2026-11-29T16:20:23Z","generation":1,"name":"r"},"spec":{}}"#;
    assert!(check(&s, no_kind));
}

#[test]
fn edge_times_are_spliced_like_the_decoding_path() {
    let s = review_schemas();
    for t in [
        json!("2016-12-31T23:59:60Z"),
        json!("0001-01-01T00:00:00Z"),
        json!("9999-12-31T23:59:59Z"),
        Value::Null,
    ] {
        assert!(
            check(&s, &with_meta(json!({"creationTimestamp": t}))),
            "{t}"
        );
    }
}

#[test]
fn metadata_values_go_keeps_are_spliced_like_the_decoding_path() {
    let s = review_schemas();
    for extra in [
        json!({"generation": -3}),
        json!({"generation": 9223372036854775807_i64}),
        json!({"deletionGracePeriodSeconds": 0}),
        json!({"deletionGracePeriodSeconds": -1}),
        json!({"deletionTimestamp": "2026-11-29T16:20:23Z"}),
        json!({"generateName": "g-", "selfLink": "/x"}),
        json!({"labels": {"a": "", "B": "é"}, "annotations": {"x": "\n"}}),
        json!({"finalizers": ["", "a/b"]}),
        json!({"uid": "\u{1}"}),
        json!({"ownerReferences": [{"apiVersion": "", "kind": "", "name": "", "uid": "",
            "controller": false}]}),
        json!({"ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u",
            "blockOwnerDeletion": true, "controller": true}]}),
    ] {
        assert!(check(&s, &with_meta(extra.clone())), "{extra}");
    }
}

#[test]
fn managed_fields_entries_are_spliced_like_the_decoding_path() {
    let s = review_schemas();
    for entry in [
        json!({}),
        json!({"fieldsV1": {}}),
        json!({"fieldsV1": {"f:a": null, "f:b": {"n": 1.5}}, "time": "2016-12-31T23:59:60Z"}),
        json!({"subresource": "status", "time": "2026-11-29T16:20:23Z"}),
    ] {
        assert!(
            check(&s, &with_meta(json!({ "managedFields": [entry.clone()] }))),
            "{entry}"
        );
    }
}

/// Not a divergence, a missed splice: list-map keys in `fieldsV1` (`k:{"name":"x"}`) hold
/// escaped quotes, and object keys with escapes are never proven.
#[test]
fn managed_fields_with_list_map_keys_are_not_spliced() {
    let entry = json!({"fieldsV1": {"f:spec": {"f:objs": {"k:{\"k\":\"a\"}": {}}}}});
    let bytes = with_meta(json!({ "managedFields": [entry] }));
    assert!(!check(&review_schemas(), &bytes));
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        2 => any::<bool>().prop_map(Value::from),
        2 => any::<i64>().prop_map(Value::from),
        2 => any::<u64>().prop_map(Value::from),
        3 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        4 => "[a-z\"\\\\\n\u{0}\u{1f}\u{7f}\u{2028}é😀/]{0,5}".prop_map(Value::from),
    ]
}

/// Values keyed with the review schema's own names at every level, so that defaults, maps,
/// list items and unknown keys all meet.
fn review_value() -> impl Strategy<Value = Value> {
    let key = prop::sample::select(vec![
        "n", "i", "s", "ios", "obj", "arr", "untyped", "nested", "objs", "map", "boolmap",
        "parent", "child", "nul", "a", "k", "d", "v", "metadata", "name", "A", "é",
    ]);
    leaf().prop_recursive(4, 32, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map(key.clone(), inner, 0..5).prop_map(|m| {
                Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn a_splice_of_any_spec_under_the_review_schema_equals_the_decoding_path(
        spec in review_value(),
        status in review_value(),
    ) {
        let s = review_schemas();
        check(&s, &object(meta(), json!({"spec": spec, "status": status})));
    }
}
