//! Defaulting (R6.9, R6.7, R4.12–R4.13).

use kapi_apiextensions::{Structural, apply_defaults};
use serde_json::{Value, json};

fn schema(v: Value) -> Structural {
    Structural::from_json(&v).unwrap()
}

#[test]
fn default_fills_absent_property_r6_9() {
    let s = schema(
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer", "default": 1}}}}}),
    );
    let mut obj = json!({"spec": {}});
    apply_defaults(&mut obj, &s);
    assert_eq!(obj, json!({"spec": {"replicas": 1}}));
}

#[test]
fn default_does_not_create_absent_parent_without_its_own_default_r6_9() {
    let s = schema(
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"replicas": {"type": "integer", "default": 1}}}}}),
    );
    let mut obj = json!({"kind": "W"});
    apply_defaults(&mut obj, &s);
    assert_eq!(obj, json!({"kind": "W"}));
}

#[test]
fn default_recurses_into_defaulted_objects_r6_9() {
    let s = schema(
        json!({"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {"a": {"type": "string", "default": "x"}}}}}),
    );
    let mut obj = json!({});
    apply_defaults(&mut obj, &s);
    assert_eq!(obj, json!({"spec": {"a": "x"}}));
}

#[test]
fn default_replaces_non_nullable_null_r6_7() {
    let s = schema(
        json!({"type": "object", "properties": {"a": {"type": "string", "default": "x"}, "b": {"type": "string", "nullable": true, "default": "y"}}}),
    );
    let mut obj = json!({"a": null, "b": null});
    apply_defaults(&mut obj, &s);
    assert_eq!(obj, json!({"a": "x", "b": null}));
}

#[test]
fn default_applies_inside_items_and_additional_properties_r6_9() {
    let s = schema(json!({"type": "object", "properties": {
        "list": {"type": "array", "items": {"type": "object", "properties": {"p": {"type": "integer", "default": 80}}}},
        "map": {"type": "object", "additionalProperties": {"type": "object", "default": {"on": true}, "properties": {"on": {"type": "boolean"}}}}
    }}));
    let mut obj = json!({"list": [{}, {"p": 1}], "map": {"a": null, "b": {"on": false}}});
    apply_defaults(&mut obj, &s);
    assert_eq!(
        obj,
        json!({"list": [{"p": 80}, {"p": 1}], "map": {"a": {"on": true}, "b": {"on": false}}})
    );
}

#[test]
fn default_request_version_then_storage_version_gives_both_on_create_response_r4_13() {
    // Live confirmation (Appendix B.4, case A): create through v1beta1 persists v1beta1's
    // default only; decoding from storage adds the storage version's default.
    let v1alpha1 = schema(
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "a": {"type": "string", "default": "x"}, "b": {"type": "string"}}}}}),
    );
    let v1beta1 = schema(
        json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "a": {"type": "string"}, "b": {"type": "string", "default": "y"}}}}}),
    );
    let mut obj = json!({"spec": {}});
    apply_defaults(&mut obj, &v1beta1);
    assert_eq!(obj, json!({"spec": {"b": "y"}}), "persisted");
    apply_defaults(&mut obj, &v1alpha1);
    assert_eq!(
        obj,
        json!({"spec": {"a": "x", "b": "y"}}),
        "create response"
    );
}
