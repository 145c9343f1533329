//! YAML serializer behaviours R2.1, R2.11, R2.12, R2.24, one test each.

mod common;

use common::*;
use kapi_machinery::runtime::{Unknown, Unstructured};
use kapi_machinery::serializer::yaml::{split_documents, yaml_to_value};
use kapi_machinery::serializer::{Decoder, Encoder, YamlSerializer};
use serde_json::json;

fn yaml(strict: bool) -> YamlSerializer {
    YamlSerializer::new(scheme(), strict)
}

#[test]
fn yaml_decode_goes_through_json_rules_r2_1() {
    let d = yaml(false)
        .decode(
            b"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n",
            None,
            None,
        )
        .unwrap();
    assert_eq!(d.object.downcast_ref::<ConfigMap>().unwrap().data["a"], "b");
}

#[test]
fn yaml_syntax_error_is_returned_r2_1() {
    assert!(yaml(false).decode(b"a: [1, 2\nb: {", None, None).is_err());
}

#[test]
fn yaml_into_unknown_keeps_original_yaml_with_json_content_type_r2_4() {
    let data = b"apiVersion: v1\nkind: ConfigMap\n";
    let d = yaml(false)
        .decode(data, None, Some(&Unknown::default()))
        .unwrap();
    let u = d.object.downcast_ref::<Unknown>().unwrap();
    assert_eq!(
        (u.raw.as_slice(), u.content_type.as_str()),
        (&data[..], "application/json")
    );
}

#[test]
fn strict_yaml_reports_duplicate_keys_with_line_r2_11() {
    let data = b"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n  a: c\n";
    let err = yaml(true).decode(data, None, None).unwrap_err();
    let errors = &err.as_strict_decoding().unwrap().errors;
    assert_eq!(
        errors[0],
        "yaml: unmarshal errors:\n  line 5: key \"a\" already set in map"
    );
}

#[test]
fn strict_yaml_reports_every_duplicate_key_r2_11() {
    let data = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\ndata:\n  x: \"1\"\n  x: \"2\"\n";
    let err = yaml(true).decode(data, None, None).unwrap_err();
    assert_eq!(
        err.as_strict_decoding().unwrap().errors,
        [
            "yaml: unmarshal errors:\n  line 5: key \"name\" already set in map\n  line 8: key \"x\" already set in map"
        ]
    );
}

#[test]
fn strict_yaml_allows_same_key_in_different_maps_r2_11() {
    let data = b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {name: x}\n";
    assert!(yaml(true).decode(data, None, None).is_ok());
}

#[test]
fn non_strict_yaml_accepts_duplicate_keys_r2_12() {
    let data = b"apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n  a: c\n";
    assert!(yaml(false).decode(data, None, None).is_ok());
}

#[test]
fn yaml_integers_stay_integers_r2_12() {
    let v = yaml_to_value(b"i: 42\nbig: 9007199254740993\nf: 1.5\n").unwrap();
    assert_eq!(v["i"], json!(42));
    assert_eq!(v["big"].as_i64(), Some(9_007_199_254_740_993));
    assert!(v["f"].is_f64());
}

#[test]
fn yaml_1_1_booleans_become_booleans_r2_12() {
    let v = yaml_to_value(b"a: yes\nb: no\nc: true\n").unwrap();
    assert_eq!(v, json!({"a": true, "b": false, "c": true}));
}

#[test]
fn only_the_first_yaml_document_is_decoded_r2_12() {
    let v = yaml_to_value(b"a: 1\n---\nb: 2\n").unwrap();
    assert_eq!(v, json!({"a": 1}));
}

#[test]
fn multi_document_stream_splits_on_separator_lines_r2_24() {
    let docs = split_documents(b"---\na: 1\n--- # c\nb: 2\n---\n# only a comment\n");
    assert_eq!(docs, [&b"a: 1\n"[..], &b"b: 2\n"[..]]);
}

#[test]
fn decode_all_returns_each_document_in_order_r2_24() {
    let data = b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n";
    let names: Vec<String> = yaml(false)
        .decode_all(data, None, None)
        .into_iter()
        .map(|d| d.unwrap().object.object_meta().unwrap().name.clone())
        .collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn yaml_encode_quotes_strings_that_look_like_other_types_r2_14() {
    let u = Unstructured::from_value(json!({"a": "3", "b": "true", "c": "", "d": 3})).unwrap();
    let out = String::from_utf8(yaml(false).encode_to_vec(&u).unwrap()).unwrap();
    assert_eq!(out, "a: \"3\"\nb: \"true\"\nc: \"\"\nd: 3\n");
}
