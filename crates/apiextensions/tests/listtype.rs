//! `x-kubernetes-list-type` set/map uniqueness (R5.20).

use kapi_apiextensions::validation::validate_list_sets_and_maps;
use kapi_apiextensions::{FieldPath, Structural};
use serde_json::json;

fn errors(schema: serde_json::Value, obj: serde_json::Value) -> Vec<String> {
    let s = Structural::from_json(&schema).unwrap();
    validate_list_sets_and_maps(&FieldPath::root(), &s, &obj)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn list_type_set_reports_each_repeated_value_once_r5_20() {
    let schema = json!({"type": "object", "properties": {"s": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}});
    assert_eq!(
        errors(schema, json!({"s": ["a", "b", "a", "a"]})),
        [r#"s[2]: Duplicate value: "a""#]
    );
}

#[test]
fn list_type_map_reports_duplicate_keys_r5_20() {
    let schema = json!({"type": "object", "properties": {"ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
        "items": {"type": "object", "properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}}}}}});
    let obj = json!({"ports": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"}, {"port": 80, "protocol": "TCP"}]});
    assert_eq!(
        errors(schema, obj),
        [r#"ports[2]: Duplicate value: {"port":80,"protocol":"TCP"}"#]
    );
}

#[test]
fn list_type_atomic_allows_duplicates_r5_20() {
    let schema = json!({"type": "object", "properties": {"s": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}}}});
    assert!(errors(schema, json!({"s": ["a", "a"]})).is_empty());
}
