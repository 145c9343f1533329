//! Custom-resource converters (R4.16–R4.19, R4.28).

use kapi_apiextensions::converter::CrdVersions;
use kapi_apiextensions::{
    ConversionError, CrConverter, NoneConverter, convert_list, convert_one, converter_for,
};
use serde_json::json;
use std::sync::Arc;

fn none() -> Arc<dyn CrConverter> {
    Arc::new(NoneConverter::new(CrdVersions::new(
        "example.com",
        ["v1alpha1", "v1beta1"],
    )))
}

#[tokio::test]
async fn none_converter_changes_only_api_version_r4_19() {
    let obj = json!({"apiVersion": "example.com/v1alpha1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"label": "x"}});
    let out = convert_one(&*none(), obj, "example.com/v1beta1")
        .await
        .unwrap();
    assert_eq!(
        out,
        json!({"apiVersion": "example.com/v1beta1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"label": "x"}})
    );
}

#[tokio::test]
async fn none_converter_converts_a_list_in_one_call_and_sets_list_version_r4_28() {
    let list = json!({"apiVersion": "example.com/v1alpha1", "kind": "WidgetList", "items": [
        {"apiVersion": "example.com/v1alpha1", "kind": "Widget"}, {"apiVersion": "example.com/v1beta1", "kind": "Widget"}]});
    let out = convert_list(&*none(), list, "example.com/v1beta1")
        .await
        .unwrap();
    assert_eq!(out["apiVersion"], "example.com/v1beta1");
    assert!(
        out["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["apiVersion"] == "example.com/v1beta1")
    );
}

#[tokio::test]
async fn conversion_to_an_unknown_version_fails_r4_17() {
    let err = convert_one(
        &*none(),
        json!({"apiVersion": "example.com/v1alpha1"}),
        "example.com/v9",
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "request to convert CR to an invalid group/version: example.com/v9"
    );
}

#[tokio::test]
async fn conversion_from_an_unknown_version_fails_r4_17() {
    let err = convert_one(
        &*none(),
        json!({"apiVersion": "other.com/v1"}),
        "example.com/v1beta1",
    )
    .await
    .unwrap_err();
    assert_eq!(err, ConversionError::InvalidSource("other.com/v1".into()));
}

#[tokio::test]
async fn list_item_in_an_unknown_version_names_its_index_r4_17() {
    let items = vec![
        json!({"apiVersion": "example.com/v1alpha1"}),
        json!({"apiVersion": "example.com/v0"}),
    ];
    let err = none()
        .convert(items, "example.com/v1beta1")
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "request to convert CR list failed, list index 1 has invalid group/version: example.com/v0"
    );
}

#[test]
fn converter_for_picks_none_and_refuses_unknown_strategies_r4_16() {
    let mut crd: kapi_api::apiextensions::v1::CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"plural": "widgets", "kind": "Widget"}, "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true}]}
    }))
    .unwrap();
    assert!(converter_for(&crd).is_ok());
    crd.spec.conversion = Some(kapi_api::apiextensions::v1::CustomResourceConversion {
        strategy: "Magic".into(),
        webhook: None,
    });
    assert_eq!(
        converter_for(&crd).err(),
        Some(ConversionError::UnknownStrategy("Magic".into()))
    );
}
