//! The Widget kind of `golden.example.com`: v1alpha1 has `spec.label`, v1beta1 renamed it
//! `spec.displayName`; both convert through the hub type [`hub::Widget`].

use kapi_machinery::meta::v1::ObjectMeta;
use kapi_webhook::{ConvertError, Convertible, Hub, SchemeBuilder};
use serde::{Deserialize, Serialize};

/// The API group of Widget.
pub const GROUP: &str = "golden.example.com";
/// The kind.
pub const KIND: &str = "Widget";

/// `status`, the same in every version.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WidgetStatus {
    /// Observed replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
}

/// The hub: what every version converts through. Never served.
pub mod hub {
    use super::*;

    /// The hub's spec.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct WidgetSpec {
        /// The name shown to people.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub display_name: Option<String>,
        /// Desired replicas.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i64>,
    }

    /// The hub Widget.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Widget {
        /// Kind.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub kind: String,
        /// API version.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub api_version: String,
        /// Metadata.
        #[serde(default)]
        pub metadata: ObjectMeta,
        /// Spec.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub spec: Option<WidgetSpec>,
        /// Status.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub status: Option<WidgetStatus>,
    }
    kapi_machinery::impl_object!(Widget, object_meta, json_only);
    impl Hub for Widget {}
}

/// v1alpha1: `spec.label`.
pub mod v1alpha1 {
    use super::*;

    /// v1alpha1 spec.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    pub struct WidgetSpec {
        /// The name shown to people (v1beta1 calls it `displayName`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub label: Option<String>,
        /// Desired replicas.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub replicas: Option<i64>,
    }

    /// v1alpha1 Widget.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Widget {
        /// Kind.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub kind: String,
        /// API version.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub api_version: String,
        /// Metadata.
        #[serde(default)]
        pub metadata: ObjectMeta,
        /// Spec.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub spec: Option<WidgetSpec>,
        /// Status.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub status: Option<WidgetStatus>,
    }
    kapi_machinery::impl_object!(Widget, object_meta, json_only);

    impl Convertible for Widget {
        type Hub = hub::Widget;

        fn into_hub(self) -> Result<hub::Widget, ConvertError> {
            Ok(hub::Widget {
                kind: self.kind,
                api_version: self.api_version,
                metadata: self.metadata,
                spec: self.spec.map(|s| hub::WidgetSpec {
                    display_name: s.label,
                    replicas: s.replicas,
                }),
                status: self.status,
            })
        }

        fn from_hub(hub: hub::Widget) -> Result<Self, ConvertError> {
            Ok(Widget {
                kind: hub.kind,
                api_version: hub.api_version,
                metadata: hub.metadata,
                spec: hub.spec.map(|s| WidgetSpec {
                    label: s.display_name,
                    replicas: s.replicas,
                }),
                status: hub.status,
            })
        }
    }
}

/// v1beta1: `spec.displayName`.
pub mod v1beta1 {
    use super::*;

    /// v1beta1 Widget (its spec is the hub's).
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Widget {
        /// Kind.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub kind: String,
        /// API version.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pub api_version: String,
        /// Metadata.
        #[serde(default)]
        pub metadata: ObjectMeta,
        /// Spec.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub spec: Option<hub::WidgetSpec>,
        /// Status.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub status: Option<WidgetStatus>,
    }
    kapi_machinery::impl_object!(Widget, object_meta, json_only);

    impl Convertible for Widget {
        type Hub = hub::Widget;

        fn into_hub(self) -> Result<hub::Widget, ConvertError> {
            let Widget {
                kind,
                api_version,
                metadata,
                spec,
                status,
            } = self;
            Ok(hub::Widget {
                kind,
                api_version,
                metadata,
                spec,
                status,
            })
        }

        fn from_hub(hub: hub::Widget) -> Result<Self, ConvertError> {
            let hub::Widget {
                kind,
                api_version,
                metadata,
                spec,
                status,
            } = hub;
            Ok(Widget {
                kind,
                api_version,
                metadata,
                spec,
                status,
            })
        }
    }
}

/// The Scheme with both versions; v1alpha1 (the storage version) first.
pub fn scheme() -> kapi_machinery::runtime::Result<kapi_machinery::runtime::Scheme> {
    SchemeBuilder::new("widget-webhook")
        .version::<v1alpha1::Widget>(GROUP, "v1alpha1", KIND)
        .version::<v1beta1::Widget>(GROUP, "v1beta1", KIND)
        .build()
}
