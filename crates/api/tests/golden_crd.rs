//! CustomResourceDefinitions as kube-apiserver returned them decode and encode again to
//! the same JSON (schemas with CEL rules, defaults, subresources, webhook conversion).

mod support;

use kapi_api::apiextensions::v1::{CustomResourceDefinition, JsonSchemaPropsOrBool, set_defaults};
use support::golden_json;

fn assert_crd_json_round_trips(name: &str) -> CustomResourceDefinition {
    let golden = golden_json(name);
    let crd: CustomResourceDefinition = serde_json::from_value(golden.clone()).unwrap();
    assert_eq!(serde_json::to_value(&crd).unwrap(), golden, "{name}");
    crd
}

#[test]
fn created_crd_json_round_trips() {
    assert_crd_json_round_trips("crd/crd-create.json");
}

#[test]
fn established_crd_json_round_trips() {
    let crd = assert_crd_json_round_trips("crd/crd-established.json");
    assert_eq!(crd.spec.names.kind, "Widget");
}

#[test]
fn storage_switched_crd_json_round_trips() {
    let crd = assert_crd_json_round_trips("crd/crd-storage-switched.json");
    assert_eq!(crd.status.stored_versions.map(|v| v.len()), Some(2));
}

#[test]
fn kube_apiservers_crd_is_already_defaulted() {
    let crd = assert_crd_json_round_trips("crd/crd-established.json");
    let mut defaulted = crd.clone();
    set_defaults(&mut defaulted);
    assert_eq!(defaulted, crd);
}

#[test]
fn crd_defaults_fill_names_conversion_and_stored_versions() {
    let mut crd: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
        "spec": {"group": "a.example.com", "names": {"plural": "widgets", "kind": "Widget"},
                 "scope": "Namespaced",
                 "versions": [{"name": "v1", "served": true, "storage": false},
                              {"name": "v2", "served": true, "storage": true}]}
    }))
    .unwrap();
    set_defaults(&mut crd);
    assert_eq!(crd.spec.names.singular, "widget");
    assert_eq!(crd.spec.names.list_kind, "WidgetList");
    assert_eq!(crd.spec.conversion.unwrap().strategy, "None");
    assert_eq!(crd.status.stored_versions, Some(vec!["v2".to_string()]));
}

#[test]
fn additional_properties_accepts_a_bool_or_a_schema() {
    let schema: kapi_api::apiextensions::v1::JsonSchemaProps =
        serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {
                "free": {"type": "object", "additionalProperties": true},
                "typed": {"type": "object", "additionalProperties": {"type": "string"}}
            }
        }))
        .unwrap();
    let free = schema.properties["free"].additional_properties.as_deref();
    assert_eq!(
        free,
        Some(&JsonSchemaPropsOrBool {
            allows: true,
            schema: None
        })
    );
    let typed = schema.properties["typed"]
        .additional_properties
        .as_deref()
        .unwrap();
    assert_eq!(
        typed.schema.as_ref().map(|s| s.r#type.as_str()),
        Some("string")
    );
}
