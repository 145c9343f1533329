//! Validation of custom resources against OpenAPI schemas and CEL rules (R6.18, R6.19),
//! compared with kube-apiserver's answers where a golden answer exists.

mod support;

use kapi_apiextensions::{CustomResourceValidator, ScalePaths, Structural, validate_openapi};
use serde_json::{Value, json};
use support::{assert_matches_golden_422, widget_schema};

fn widget_validator() -> CustomResourceValidator {
    let scale = ScalePaths {
        spec_replicas_path: ".spec.replicas".into(),
        status_replicas_path: ".status.replicas".into(),
    };
    CustomResourceValidator::new(&widget_schema("v1alpha1"), Some(scale))
}

fn widget(spec: Value) -> Value {
    json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec})
}

fn messages(schema: Value, obj: Value) -> Vec<String> {
    let s = Structural::from_json(&schema).unwrap();
    validate_openapi(&obj, &s)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn validation_of_too_long_and_below_minimum_matches_golden_422_r6_18() {
    let errs = widget_validator().validate(
        &widget(json!({"label": "x".repeat(21), "replicas": -1})),
        None,
    );
    assert_matches_golden_422(
        &errs,
        "error-422-cr-schema.json",
        "Widget",
        "golden.example.com",
        "bad",
    );
}

#[test]
fn validation_of_wrong_type_matches_golden_422_r6_18() {
    let errs = widget_validator().validate(&widget(json!({"replicas": "three"})), None);
    assert_matches_golden_422(
        &errs,
        "error-422-cr-type.json",
        "Widget",
        "golden.example.com",
        "bad3",
    );
}

#[test]
fn cel_rule_failure_matches_golden_422_r6_19() {
    let errs = widget_validator().validate(&widget(json!({"replicas": 11})), None);
    assert_matches_golden_422(
        &errs,
        "error-422-cr-cel.json",
        "Widget",
        "golden.example.com",
        "bad2",
    );
}

#[test]
fn valid_widget_has_no_errors() {
    let errs = widget_validator().validate(&widget(json!({"label": "ok", "replicas": 3})), None);
    assert!(errs.is_empty(), "{errs:?}");
}

#[test]
fn required_property_missing_is_required_value_r6_18() {
    let errs = messages(
        json!({"type": "object", "properties": {"spec": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}}}),
        json!({"spec": {}}),
    );
    assert_eq!(errs, ["spec.a: Required value"]);
}

#[test]
fn enum_violation_is_unsupported_value_r6_18() {
    let errs = messages(
        json!({"type": "object", "properties": {"mode": {"type": "string", "enum": ["a", "b"]}}}),
        json!({"mode": "c"}),
    );
    assert_eq!(
        errs,
        [r#"mode: Unsupported value: "c": supported values: "a", "b""#]
    );
}

#[test]
fn pattern_violation_is_invalid_value_r6_18() {
    let errs = messages(
        json!({"type": "object", "properties": {"n": {"type": "string", "pattern": "^[a-z]+$"}}}),
        json!({"n": "A1"}),
    );
    assert_eq!(
        errs,
        [r#"n: Invalid value: "A1": n in body should match '^[a-z]+$'"#]
    );
}

#[test]
fn exclusive_maximum_and_multiple_of_are_invalid_values_r6_18() {
    let errs = messages(
        json!({"type": "object", "properties": {"n": {"type": "number", "maximum": 10, "exclusiveMaximum": true, "multipleOf": 4}}}),
        json!({"n": 10}),
    );
    assert_eq!(
        errs,
        [
            "n: Invalid value: 10: n in body should be a multiple of 4",
            "n: Invalid value: 10: n in body should be less than 10"
        ]
    );
}

#[test]
fn min_length_and_min_items_are_invalid_values_r6_18() {
    let schema = json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 2}, "l": {"type": "array", "minItems": 1, "items": {"type": "string"}}}});
    let errs = messages(schema, json!({"s": "x", "l": []}));
    assert_eq!(
        errs,
        [
            "l: Invalid value: 0: l in body should have at least 1 items",
            r#"s: Invalid value: "x": s in body should be at least 2 chars long"#
        ]
    );
}

#[test]
fn max_items_and_max_properties_are_too_many_r6_18() {
    let schema = json!({"type": "object", "properties": {"l": {"type": "array", "maxItems": 1, "items": {"type": "integer"}}, "m": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}}}});
    let errs = messages(schema, json!({"l": [1, 2], "m": {"a": "1", "b": "2"}}));
    assert_eq!(
        errs,
        [
            "l: Too many: 2: must have at most 1 item",
            "m: Too many: 2: must have at most 1 item"
        ]
    );
}

#[test]
fn null_is_type_invalid_unless_nullable_r6_18() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string", "nullable": true}}});
    let errs = messages(schema, json!({"a": null, "b": null}));
    assert_eq!(
        errs,
        [r#"a: Invalid value: "null": a in body must be of type string: "null""#]
    );
}

#[test]
fn int_or_string_accepts_both_and_rejects_others_r6_5() {
    let schema =
        json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true}}});
    assert!(messages(schema.clone(), json!({"p": 80})).is_empty());
    assert!(messages(schema.clone(), json!({"p": "http"})).is_empty());
    assert_eq!(
        messages(schema, json!({"p": true})),
        [r#"p: Invalid value: "boolean": p in body must be of type integer,string: "boolean""#]
    );
}

#[test]
fn integral_float_is_accepted_as_integer_r6_18() {
    let errs = messages(
        json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        json!({"n": 2.0}),
    );
    assert!(errs.is_empty(), "{errs:?}");
}

#[test]
fn format_violation_is_type_invalid_r6_18() {
    let schema = json!({"type": "object", "properties": {"u": {"type": "string", "format": "uuid"}, "t": {"type": "string", "format": "date-time"}}});
    let errs = messages(schema, json!({"u": "nope", "t": "2024-01-01T00:00:00Z"}));
    assert_eq!(
        errs,
        [r#"u: Invalid value: "nope": u in body must be of type uuid: "nope""#]
    );
}

#[test]
fn unknown_format_is_not_validated_r5_28() {
    let errs = messages(
        json!({"type": "object", "properties": {"x": {"type": "string", "format": "made-up"}}}),
        json!({"x": "anything"}),
    );
    assert!(errs.is_empty());
}

#[test]
fn items_errors_carry_index_paths_r6_18() {
    let schema = json!({"type": "object", "properties": {"l": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}}}});
    let errs = messages(schema, json!({"l": [{"n": 1}, {"n": 0}]}));
    assert_eq!(
        errs,
        ["l[1].n: Invalid value: 0: l[1].n in body should be greater than or equal to 1"]
    );
}

#[test]
fn any_of_failure_reports_composite_error_at_root_r6_18() {
    let schema = json!({"type": "object", "properties": {"s": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}});
    let errs = messages(schema, json!({"s": {}}));
    assert_eq!(
        errs,
        [
            r#"<nil>: Invalid value: "": "s" must validate at least one schema (anyOf)"#,
            "s.a: Required value"
        ]
    );
}

#[test]
fn invalid_status_serializes_like_the_golden_422_r6_18() {
    let errs = widget_validator().validate(
        &widget(json!({"label": "x".repeat(21), "replicas": -1})),
        None,
    );
    let status = kapi_apiextensions::invalid_status("Widget", "golden.example.com", "bad", &errs);
    assert_eq!(
        serde_json::to_value(&status).unwrap(),
        support::golden("error-422-cr-schema.json")
    );
}

#[test]
fn unknown_field_messages_quote_the_path_r6_12() {
    assert_eq!(
        kapi_apiextensions::unknown_field_messages(&["spec.extra".into()]),
        [r#"unknown field "spec.extra""#]
    );
}
