//! CRD validation on create and update (R5.1–R5.16), compared with kube-apiserver's answers.

mod support;

use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::crd::{
    stored_versions_for_create, stored_versions_for_status_update, stored_versions_for_update,
};
use kapi_apiextensions::{validate_crd, validate_crd_update};
use serde_json::{Value, json};
use support::{assert_matches_golden_422, golden};

fn crd(v: Value) -> CustomResourceDefinition {
    serde_json::from_value(v).unwrap()
}

fn messages(errs: &[kapi_apiextensions::FieldError]) -> Vec<String> {
    errs.iter().map(ToString::to_string).collect()
}

fn minimal() -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}}]},
        "status": {"storedVersions": ["v1"]}})
}

#[test]
fn golden_crd_is_valid_on_create() {
    let errs = validate_crd(&crd(golden("crd-create.json")));
    assert!(errs.is_empty(), "{:?}", messages(&errs));
}

#[test]
fn minimal_crd_is_valid_on_create() {
    assert!(validate_crd(&crd(minimal())).is_empty());
}

#[test]
fn crd_name_must_be_plural_dot_group_r5_1() {
    let mut v = minimal();
    v["metadata"]["name"] = json!("gadgets.example.com");
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [
            r#"metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group"#
        ]
    );
}

#[test]
fn crd_group_needs_a_dot_r5_2() {
    let mut v = minimal();
    v["spec"]["group"] = json!("example");
    v["metadata"]["name"] = json!("widgets.example");
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [r#"spec.group: Invalid value: "example": should be a domain with at least one dot"#]
    );
}

#[test]
fn crd_scope_must_be_cluster_or_namespaced_r5_3() {
    let mut v = minimal();
    v["spec"]["scope"] = json!("Global");
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [r#"spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced""#]
    );
}

#[test]
fn crd_version_names_must_be_dns1035_labels_r5_5() {
    let mut v = minimal();
    v["spec"]["versions"][0]["name"] = json!("V1");
    v["status"]["storedVersions"] = json!(["V1"]);
    let errs = messages(&validate_crd(&crd(v)));
    assert_eq!(
        errs,
        [
            r#"spec.versions[0].name: Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"#
        ]
    );
}

#[test]
fn crd_version_names_must_be_unique_r5_5() {
    let mut v = minimal();
    let mut second = v["spec"]["versions"][0].clone();
    second["storage"] = json!(false);
    v["spec"]["versions"].as_array_mut().unwrap().push(second);
    let errs = messages(&validate_crd(&crd(v)));
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].starts_with("spec.versions: Invalid value: [{\"Name\":\"v1\"")
            && errs[0].ends_with("]: must contain unique version names"),
        "{}",
        errs[0]
    );
}

#[test]
fn crd_with_two_storage_versions_matches_golden_422_r5_5() {
    let old = crd(golden("crd-established.json"));
    let mut new = golden("crd-established.json");
    new["spec"]["versions"][1]["storage"] = json!(true);
    let errs = validate_crd_update(&crd(new), &old);
    assert_matches_golden_422(
        &errs,
        "error-422-crd-two-storage-versions.json",
        "CustomResourceDefinition",
        "apiextensions.k8s.io",
        "widgets.golden.example.com",
    );
}

#[test]
fn dropping_a_stored_version_matches_golden_422_r5_10() {
    let old = crd(golden("crd-storage-switched.json"));
    let mut new = golden("crd-storage-switched.json");
    new["spec"]["versions"]
        .as_array_mut()
        .unwrap()
        .retain(|v| v["name"] != "v1alpha1");
    let errs = validate_crd_update(&crd(new), &old);
    assert_matches_golden_422(
        &errs,
        "error-422-crd-drop-stored-version.json",
        "CustomResourceDefinition",
        "apiextensions.k8s.io",
        "widgets.golden.example.com",
    );
}

#[test]
fn crd_without_schema_is_refused_r5_8() {
    let mut v = minimal();
    v["spec"]["versions"][0]
        .as_object_mut()
        .unwrap()
        .remove("schema");
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        ["spec.versions[0].schema.openAPIV3Schema: Required value"]
    );
}

#[test]
fn single_version_schema_errors_use_the_hoisted_validation_path_r5_27() {
    let mut v = minimal();
    v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"] =
        json!({"description": "no type"});
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [
            "spec.validation.openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields"
        ]
    );
}

#[test]
fn webhook_conversion_requires_review_versions_r5_14() {
    let mut v = minimal();
    v["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://example.com/convert"}}});
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        ["spec.conversion.conversionReviewVersions: Required value"]
    );
}

#[test]
fn webhook_conversion_requires_preserve_unknown_fields_false_r5_15() {
    let mut v = minimal();
    v["spec"]["preserveUnknownFields"] = json!(true);
    v["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "https://example.com/convert"}, "conversionReviewVersions": ["v1"]}});
    let errs = messages(&validate_crd(&crd(v)));
    assert!(errs.contains(&r#"spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true"#.to_string()), "{errs:?}");
}

#[test]
fn webhook_url_must_be_https_r5_16() {
    let mut v = minimal();
    v["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {"clientConfig": {"url": "http://example.com/convert"}, "conversionReviewVersions": ["v1"]}});
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [
            r#"spec.conversion.webhookClientConfig.url: Invalid value: "http://example.com/convert": 'https' is the only allowed URL scheme"#
        ]
    );
}

#[test]
fn none_conversion_forbids_review_versions_r5_14() {
    let mut v = minimal();
    v["spec"]["conversion"] =
        json!({"strategy": "None", "webhook": {"conversionReviewVersions": ["v1"]}});
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [
            "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook"
        ]
    );
}

#[test]
fn stored_versions_must_include_storage_version_r5_10() {
    let mut v = minimal();
    v["status"]["storedVersions"] = json!([]);
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        ["status.storedVersions: Invalid value: []: must have at least one stored version"]
    );
}

#[test]
fn group_and_plural_are_immutable_r5_3() {
    let old = crd(minimal());
    let mut new = minimal();
    new["spec"]["names"]["plural"] = json!("gizmos");
    new["metadata"]["name"] = json!("gizmos.example.com");
    let errs = messages(&validate_crd_update(&crd(new), &old));
    assert_eq!(
        errs,
        [r#"spec.names.plural: Invalid value: "gizmos": field is immutable"#]
    );
}

#[test]
fn stored_versions_start_with_the_storage_version_r5_11() {
    let c = crd(golden("crd-create.json"));
    assert_eq!(stored_versions_for_create(&c.spec), ["v1alpha1"]);
}

#[test]
fn stored_versions_append_a_new_storage_version_r5_11() {
    let switched = crd(golden("crd-storage-switched.json"));
    assert_eq!(
        stored_versions_for_update(&["v1alpha1".to_string()], &switched.spec),
        ["v1alpha1", "v1beta1"]
    );
    assert_eq!(
        switched.status.stored_versions.unwrap(),
        ["v1alpha1", "v1beta1"],
        "as the live server answered"
    );
}

#[test]
fn status_write_with_empty_stored_versions_defaults_to_storage_version_r5_13() {
    let c = crd(golden("crd-create.json"));
    assert_eq!(
        stored_versions_for_status_update(Some(&[]), &c.spec),
        ["v1alpha1"]
    );
    assert_eq!(
        stored_versions_for_status_update(Some(&["v9".to_string()]), &c.spec),
        ["v9"]
    );
}

#[test]
fn crd_create_warns_about_unrecognized_formats_and_non_scalar_sets_r5_28() {
    let mut v = minimal();
    v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"] = json!({
        "a": {"type": "string", "format": "made-up"},
        "b": {"type": "integer", "format": "int32"},
        "c": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "x-kubernetes-map-type": "atomic"}}
    });
    assert_eq!(
        kapi_apiextensions::crd::crd_warnings_on_create(&crd(v)),
        [
            "unrecognized format \"made-up\"",
            "x-kubernetes-list-type: set for items of type \"object\" is not supported by server-side apply or CEL validation rules"
        ]
    );
}

#[test]
fn crd_update_warns_only_about_new_unrecognized_formats_r5_28() {
    let mut old = minimal();
    old["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["a"] =
        json!({"type": "string", "format": "made-up"});
    let mut new = old.clone();
    new["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["b"] =
        json!({"type": "string", "format": "other"});
    assert_eq!(
        kapi_apiextensions::crd::crd_warnings_on_update(&crd(new), &crd(old)),
        ["unrecognized format \"other\""]
    );
}

#[test]
fn selectable_fields_must_point_to_scalar_fields_outside_metadata_r5_26() {
    let mut v = minimal();
    v["spec"]["versions"][0]["selectableFields"] = json!([{"jsonPath": ".spec.size"}, {"jsonPath": ".spec"}, {"jsonPath": ".spec.nope"}, {"jsonPath": ".spec.size"}]);
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [
            r#"spec.selectableFields[1].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."#,
            r#"spec.selectableFields[2].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field"#,
            r#"spec.selectableFields[3].jsonPath: Duplicate value: ".spec.size""#,
        ]
    );
}

#[test]
fn status_subresource_restricts_root_schema_fields_r5_21() {
    let mut v = minimal();
    v["spec"]["versions"][0]["subresources"] = json!({"status": {}});
    v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["anyOf"] =
        json!([{"required": ["spec"]}]);
    let errs = messages(&validate_crd(&crd(v)));
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(
        errs[0].starts_with("spec.validation.openAPIV3Schema: Invalid value: {\"ID\":\"\""),
        "{}",
        errs[0]
    );
    assert!(errs[0].ends_with("}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled"), "{}", errs[0]);
}

fn with_spec_props(props: Value) -> Value {
    let mut v = minimal();
    v["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"] =
        props;
    v
}

#[test]
fn old_self_is_refused_under_uncorrelatable_lists_r5_23() {
    let v = with_spec_props(
        json!({"l": {"type": "array", "items": {"type": "string", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}),
    );
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [
            r#"spec.validation.openAPIV3Schema.properties[spec].properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[l]"#
        ]
    );
}

#[test]
fn list_map_keys_must_be_required_or_defaulted_r5_20() {
    let v = with_spec_props(
        json!({"ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
        "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}),
    );
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [
            "spec.validation.openAPIV3Schema.properties[spec].properties[ports].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"
        ]
    );
}

#[test]
fn multi_line_rule_needs_a_message_r5_23() {
    let v = with_spec_props(
        json!({"n": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 0 &&\nself < 10"}]}}),
    );
    assert_eq!(
        messages(&validate_crd(&crd(v))),
        [
            "spec.validation.openAPIV3Schema.properties[spec].properties[n].x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks"
        ]
    );
}
