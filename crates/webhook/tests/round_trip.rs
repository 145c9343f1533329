//! The property-test helper on the Widget types: every version of the golden Widget CRD
//! round-trips through the hub for generated objects; a lossy version is caught; generated
//! objects follow the schema.

#[path = "../src/bin/widget-webhook/widget.rs"]
#[allow(dead_code)]
mod widget;

mod common;

use kapi_machinery::meta::v1::ObjectMeta;
use kapi_webhook::testing::{RoundTripError, check_crd_round_trips, object_strategy};
use kapi_webhook::{ConvertError, Converter, Convertible, SchemeBuilder};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

fn crd() -> serde_json::Value {
    common::golden("crd-create.json")
}

#[test]
fn widget_versions_round_trip_through_the_hub() {
    let converter = Converter::new(widget::scheme().unwrap());
    check_crd_round_trips(&converter, &crd(), 256).unwrap();
}

/// A v1beta1 that forgets `replicas`: the helper must catch it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ForgetfulWidget {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    api_version: String,
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spec: Option<widget::hub::WidgetSpec>,
}
kapi_machinery::impl_object!(ForgetfulWidget, object_meta, json_only);

impl Convertible for ForgetfulWidget {
    type Hub = widget::hub::Widget;
    fn into_hub(self) -> Result<widget::hub::Widget, ConvertError> {
        let spec = self.spec.map(|s| widget::hub::WidgetSpec {
            replicas: None,
            ..s
        });
        Ok(widget::hub::Widget {
            kind: self.kind,
            api_version: self.api_version,
            metadata: self.metadata,
            spec,
            status: None,
        })
    }
    fn from_hub(h: widget::hub::Widget) -> Result<Self, ConvertError> {
        Ok(ForgetfulWidget {
            kind: h.kind,
            api_version: h.api_version,
            metadata: h.metadata,
            spec: h.spec,
        })
    }
}

#[test]
fn round_trip_check_catches_a_lossy_version() {
    let scheme = SchemeBuilder::new("lossy")
        .version::<widget::v1alpha1::Widget>(widget::GROUP, "v1alpha1", widget::KIND)
        .version::<ForgetfulWidget>(widget::GROUP, "v1beta1", widget::KIND)
        .build()
        .unwrap();
    let err = check_crd_round_trips(&Converter::new(scheme), &crd(), 256).unwrap_err();
    assert!(matches!(err, RoundTripError::Failed(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("replicas") || text.contains(".status"),
        "{text}"
    );
}

fn v1alpha1_schema() -> serde_json::Value {
    crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"].clone()
}

proptest! {
    #[test]
    fn generated_objects_follow_the_schema(object in object_strategy(
        &kapi_machinery::schema::GroupVersionKind::new(widget::GROUP, "v1alpha1", widget::KIND),
        true,
        &v1alpha1_schema(),
    )) {
        prop_assert_eq!(&object["apiVersion"], "golden.example.com/v1alpha1");
        prop_assert_eq!(&object["metadata"]["namespace"], "default");
        if let Some(label) = object["spec"]["label"].as_str() {
            prop_assert!(label.chars().count() <= 20);
        }
        if let Some(replicas) = object["spec"]["replicas"].as_i64() {
            prop_assert!(replicas >= 0);
        }
        let unknown: Vec<&String> = object.as_object().unwrap().keys()
            .filter(|k| !["apiVersion", "kind", "metadata", "spec", "status"].contains(&k.as_str()))
            .collect();
        prop_assert!(unknown.is_empty(), "{:?}", unknown);
    }
}
