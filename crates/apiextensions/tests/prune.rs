//! Pruning and metadata coercion (R6.1–R6.8, R4.8, R4.12).

use kapi_apiextensions::{CoerceError, CoerceOptions, Structural, coerce_custom_resource, prune};
use serde_json::{Value, json};

fn schema(v: Value) -> Structural {
    Structural::from_json(&v).unwrap()
}

fn widget_schema() -> Structural {
    schema(json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "label": {"type": "string"},
            "items": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "object", "properties": {"v": {"type": "string"}}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}}},
            "port": {"x-kubernetes-int-or-string": true},
            "template": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object", "properties": {"x": {"type": "string"}}}}}
        }}
    }}))
}

#[test]
fn prune_keeps_root_apiversion_kind_metadata_r6_1() {
    let mut obj = json!({"apiVersion": "g/v1", "kind": "W", "metadata": {"name": "a"}, "bogus": 1});
    let unknown = prune(&mut obj, &widget_schema(), true, true);
    assert_eq!(
        obj,
        json!({"apiVersion": "g/v1", "kind": "W", "metadata": {"name": "a"}})
    );
    assert_eq!(unknown, ["bogus"]);
}

#[test]
fn prune_records_nested_unknown_paths_sorted_r6_2() {
    let mut obj = json!({"spec": {"zzz": 1, "label": "x", "items": [{"n": 1, "extra": 2}], "labels": {"k": {"v": "a", "w": "b"}}}});
    let unknown = prune(&mut obj, &widget_schema(), true, true);
    assert_eq!(
        unknown,
        ["spec.items[0].extra", "spec.labels.k.w", "spec.zzz"]
    );
    assert_eq!(
        obj,
        json!({"spec": {"label": "x", "items": [{"n": 1}], "labels": {"k": {"v": "a"}}}})
    );
}

#[test]
fn prune_preserve_unknown_fields_keeps_unknown_but_prunes_known_r6_3() {
    let mut obj =
        json!({"spec": {"free": {"anything": {"deep": 1}, "known": {"a": "x", "b": "y"}}}});
    let unknown = prune(&mut obj, &widget_schema(), true, true);
    assert_eq!(
        obj,
        json!({"spec": {"free": {"anything": {"deep": 1}, "known": {"a": "x"}}}})
    );
    assert_eq!(unknown, ["spec.free.known.b"]);
}

#[test]
fn prune_embedded_resource_keeps_apiversion_kind_metadata_r6_4() {
    let mut obj = json!({"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": "1", "y": "2"}, "other": 1}}});
    prune(&mut obj, &widget_schema(), true, false);
    assert_eq!(
        obj,
        json!({"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"x": "1"}}}})
    );
}

#[test]
fn prune_leaves_int_or_string_scalars_r6_5() {
    let mut obj = json!({"spec": {"port": "http"}});
    prune(&mut obj, &widget_schema(), true, false);
    assert_eq!(obj, json!({"spec": {"port": "http"}}));
}

#[test]
fn coerce_drops_unknown_root_metadata_and_reports_it_r6_6() {
    let mut obj = json!({"apiVersion": "g/v1", "kind": "W", "metadata": {"name": "a", "bogusMeta": 1, "labels": {"x": "y"}}, "spec": {"bogus": 1}});
    let unknown = coerce_custom_resource(
        &mut obj,
        &widget_schema(),
        &CoerceOptions::for_request(true),
    )
    .unwrap();
    assert_eq!(unknown, ["metadata.bogusMeta", "spec.bogus"]);
    assert_eq!(
        obj["metadata"],
        json!({"name": "a", "labels": {"x": "y"}, "creationTimestamp": null})
    );
}

#[test]
fn coerce_does_not_report_unknown_fields_under_ignore_r6_15() {
    let mut obj =
        json!({"apiVersion": "g/v1", "kind": "W", "metadata": {"name": "a"}, "spec": {"bogus": 1}});
    let unknown = coerce_custom_resource(
        &mut obj,
        &widget_schema(),
        &CoerceOptions::for_request(false),
    )
    .unwrap();
    assert!(unknown.is_empty());
    assert_eq!(obj["spec"], json!({}));
}

#[test]
fn coerce_rejects_malformed_metadata_on_request_r4_8() {
    let mut obj = json!({"apiVersion": "g/v1", "kind": "W", "metadata": {"name": 5}});
    let err = coerce_custom_resource(
        &mut obj,
        &widget_schema(),
        &CoerceOptions::for_request(false),
    )
    .unwrap_err();
    assert!(matches!(err, CoerceError::Metadata(_)), "{err:?}");
}

#[test]
fn coerce_drops_malformed_metadata_and_repairs_generation_on_storage_read_r4_12() {
    let mut obj =
        json!({"apiVersion": "g/v1", "kind": "W", "metadata": {"name": "a", "labels": 5}});
    coerce_custom_resource(&mut obj, &widget_schema(), &CoerceOptions::for_storage()).unwrap();
    assert_eq!(
        obj["metadata"],
        json!({"name": "a", "generation": 1, "creationTimestamp": null})
    );
}

#[test]
fn coerce_prunes_embedded_metadata_and_reports_it_r6_4() {
    let mut obj = json!({"apiVersion": "g/v1", "kind": "W", "metadata": {"name": "a"},
        "spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "junk": 1, "creationTimestamp": null}}}});
    let unknown = coerce_custom_resource(
        &mut obj,
        &widget_schema(),
        &CoerceOptions::for_request(true),
    )
    .unwrap();
    assert_eq!(unknown, ["spec.template.metadata.junk"]);
    assert_eq!(obj["spec"]["template"]["metadata"], json!({"name": "p"}));
}

#[test]
fn coerce_rejects_non_string_embedded_kind_r6_4() {
    let mut obj = json!({"apiVersion": "g/v1", "kind": "W", "spec": {"template": {"kind": 1}}});
    let err = coerce_custom_resource(
        &mut obj,
        &widget_schema(),
        &CoerceOptions::for_request(false),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "spec.template.kind: Invalid value: 1: must be a string"
    );
}

#[test]
fn coerce_removes_non_nullable_nulls_without_default_r6_7() {
    let mut obj = json!({"apiVersion": "g/v1", "kind": "W", "spec": {"label": null}});
    coerce_custom_resource(&mut obj, &widget_schema(), &CoerceOptions::default()).unwrap();
    assert_eq!(obj["spec"], json!({}));
}

#[test]
fn coerce_with_preserve_unknown_fields_crd_does_not_prune_r6_8() {
    let mut obj = json!({"apiVersion": "g/v1", "kind": "W", "spec": {"bogus": 1}});
    let opts = CoerceOptions {
        preserve_unknown_fields: true,
        ..CoerceOptions::default()
    };
    coerce_custom_resource(&mut obj, &widget_schema(), &opts).unwrap();
    assert_eq!(obj["spec"], json!({"bogus": 1}));
}
