//! Structural-schema rules at CRD create/update (R5.18, R5.19).

use kapi_apiextensions::structural::validate_structural;
use kapi_apiextensions::{BuildError, FieldPath, Structural};
use serde_json::json;

fn errors(schema: serde_json::Value) -> Vec<String> {
    let s = Structural::from_json(&schema).unwrap();
    let path = FieldPath::new("spec.versions[0].schema.openAPIV3Schema");
    validate_structural(&path, &s)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn structural_requires_type_at_root_r5_18() {
    assert_eq!(
        errors(json!({"properties": {"spec": {"type": "object"}}})),
        [
            "spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root"
        ]
    );
}

#[test]
fn structural_requires_type_for_object_fields_and_items_r5_18() {
    let errs = errors(json!({"type": "object", "properties": {
        "a": {"description": "x"},
        "l": {"type": "array", "items": {"minimum": 1}}
    }}));
    assert_eq!(
        errs,
        [
            "spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields",
            "spec.versions[0].schema.openAPIV3Schema.properties[l].items.type: Required value: must not be empty for specified array items",
        ]
    );
}

#[test]
fn structural_array_requires_items_r5_18() {
    let errs = errors(json!({"type": "object", "properties": {"l": {"type": "array"}}}));
    assert_eq!(
        errs,
        [
            "spec.versions[0].schema.openAPIV3Schema.properties[l].items: Required value: must be specified"
        ]
    );
}

#[test]
fn structural_root_must_be_object_r5_18() {
    let errs = errors(json!({"type": "string"}));
    assert_eq!(
        errs,
        [
            "spec.versions[0].schema.openAPIV3Schema.type: Invalid value: \"string\": must be object at the root"
        ]
    );
}

#[test]
fn structural_root_metadata_may_only_specify_name_and_generate_name_r5_18() {
    assert!(errors(json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}}}})).is_empty());
    let errs = errors(
        json!({"type": "object", "properties": {"metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}}}),
    );
    assert_eq!(
        errs,
        [
            "spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
        ]
    );
}

#[test]
fn structural_forbids_type_and_defaults_inside_junctors_r5_18() {
    let errs = errors(
        json!({"type": "object", "properties": {"a": {"type": "string", "anyOf": [{"type": "string", "default": "x"}]}}}),
    );
    assert_eq!(
        errs,
        [
            "spec.versions[0].schema.openAPIV3Schema.properties[a].anyOf[0].default: Forbidden: must be undefined to be structural",
            "spec.versions[0].schema.openAPIV3Schema.properties[a].anyOf[0].type: Forbidden: must be empty to be structural",
        ]
    );
}

#[test]
fn structural_accepts_int_or_string_any_of_pattern_r6_5() {
    let errs = errors(json!({"type": "object", "properties": {"port": {
        "x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]
    }}}));
    assert!(errs.is_empty(), "{errs:?}");
}

#[test]
fn structural_requires_junctor_properties_in_structure_r5_18() {
    // Upstream checks completeness from the root's junctors only.
    let errs = errors(
        json!({"type": "object", "properties": {"x": {"type": "string"}},
        "oneOf": [{"properties": {"y": {"minLength": 1}}}]}),
    );
    assert_eq!(
        errs,
        [
            "spec.versions[0].schema.openAPIV3Schema.properties[y]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.oneOf[0].properties[y]"
        ]
    );
}

#[test]
fn structural_embedded_resource_must_be_object_with_properties_r6_4() {
    let errs = errors(
        json!({"type": "object", "properties": {"e": {"x-kubernetes-embedded-resource": true}}}),
    );
    assert_eq!(
        errs,
        [
            "spec.versions[0].schema.openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
            "spec.versions[0].schema.openAPIV3Schema.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true",
        ]
    );
}

#[test]
fn structural_build_rejects_unsupported_keywords_r5_19() {
    let err =
        Structural::from_json(&json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}}))
            .unwrap_err();
    assert_eq!(err, BuildError::Unsupported("$ref"));
    assert_eq!(err.to_string(), "OpenAPIV3Schema '$ref' is not supported");
}
