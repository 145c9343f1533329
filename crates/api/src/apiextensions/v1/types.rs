//! apiextensions.k8s.io/v1 CustomResourceDefinition and its parts (JSON form only).

use super::schema::JsonSchemaProps;
use crate::meta::{ListMeta, ObjectMeta, Time};
use crate::serde_util::{base64_bytes, is_false, is_zero_i64, null_default};
use serde::{Deserialize, Serialize};

/// A CustomResourceDefinition: a new resource served by the API server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinition {
    /// TypeMeta `kind`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub kind: String,
    /// TypeMeta `apiVersion`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub api_version: String,
    /// Standard object metadata.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// The resource being defined.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: CustomResourceDefinitionSpec,
    /// Conditions, accepted names, stored versions.
    #[serde(default, deserialize_with = "null_default")]
    pub status: CustomResourceDefinitionStatus,
}

/// `CustomResourceDefinitionSpec`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinitionSpec {
    /// The API group.
    #[serde(default, deserialize_with = "null_default")]
    pub group: String,
    /// Resource and kind names.
    #[serde(default, deserialize_with = "null_default")]
    pub names: CustomResourceDefinitionNames,
    /// `Namespaced` or `Cluster`.
    #[serde(default, deserialize_with = "null_default")]
    pub scope: String,
    /// The served versions.
    #[serde(default, deserialize_with = "null_default")]
    pub versions: Vec<CustomResourceDefinitionVersion>,
    /// How objects convert between versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversion: Option<CustomResourceConversion>,
    /// Legacy: keep fields the schema does not name.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub preserve_unknown_fields: bool,
}

/// `CustomResourceConversion`: `None` or `Webhook`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceConversion {
    /// `None` or `Webhook`.
    #[serde(default, deserialize_with = "null_default")]
    pub strategy: String,
    /// The webhook, for `Webhook`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookConversion>,
}

/// `WebhookConversion`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookConversion {
    /// How to reach the webhook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_config: Option<WebhookClientConfig>,
    /// ConversionReview versions the webhook understands, preferred first.
    #[serde(default, deserialize_with = "null_default")]
    pub conversion_review_versions: Vec<String>,
}

/// `WebhookClientConfig`: a URL or a service, and the CA bundle to trust.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookClientConfig {
    /// `https://host:port/path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// An in-cluster service.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service: Option<ServiceReference>,
    /// PEM CA bundle (base64 in JSON).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "base64_bytes")]
    pub ca_bundle: Vec<u8>,
}

/// `ServiceReference`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceReference {
    /// Service namespace.
    #[serde(default, deserialize_with = "null_default")]
    pub namespace: String,
    /// Service name.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// URL path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Port (443 by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// `CustomResourceDefinitionVersion`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinitionVersion {
    /// Version name (`v1beta1`).
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// Whether the version is served.
    #[serde(default, deserialize_with = "null_default")]
    pub served: bool,
    /// Whether objects are stored in this version (exactly one).
    #[serde(default, deserialize_with = "null_default")]
    pub storage: bool,
    /// Whether the version is deprecated.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub deprecated: bool,
    /// Warning sent to clients of a deprecated version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecation_warning: Option<String>,
    /// The schema of this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<CustomResourceValidation>,
    /// Status and scale subresources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subresources: Option<CustomResourceSubresources>,
    /// Extra `kubectl get` columns.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub additional_printer_columns: Vec<CustomResourceColumnDefinition>,
    /// Fields usable in field selectors.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub selectable_fields: Vec<SelectableField>,
}

/// `SelectableField`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectableField {
    /// JSON path of the field.
    #[serde(default, deserialize_with = "null_default")]
    pub json_path: String,
}

/// `CustomResourceColumnDefinition`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceColumnDefinition {
    /// Column header.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// OpenAPI type of the column.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// OpenAPI format.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub format: String,
    /// Column description.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub description: String,
    /// 0 for the standard view.
    #[serde(
        default,
        skip_serializing_if = "crate::serde_util::is_zero_i32",
        deserialize_with = "null_default"
    )]
    pub priority: i32,
    /// JSON path of the value.
    #[serde(default, deserialize_with = "null_default")]
    pub json_path: String,
}

/// `CustomResourceDefinitionNames`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinitionNames {
    /// Plural resource name (URL segment).
    #[serde(default, deserialize_with = "null_default")]
    pub plural: String,
    /// Singular name.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub singular: String,
    /// Short names for kubectl.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub short_names: Vec<String>,
    /// The kind.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// The list kind.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub list_kind: String,
    /// Categories (`all`).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub categories: Vec<String>,
}

/// `CustomResourceDefinitionCondition`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinitionCondition {
    /// `Established`, `NamesAccepted`, …
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// `True`, `False`, `Unknown`.
    #[serde(default, deserialize_with = "null_default")]
    pub status: String,
    /// When the status last changed.
    #[serde(default, deserialize_with = "null_default")]
    pub last_transition_time: Time,
    /// Machine-readable reason.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub reason: String,
    /// Human-readable message.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub message: String,
    /// The generation the condition was set for.
    #[serde(
        default,
        skip_serializing_if = "is_zero_i64",
        deserialize_with = "null_default"
    )]
    pub observed_generation: i64,
}

/// `CustomResourceDefinitionStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinitionStatus {
    /// Conditions; `None` is Go's nil (JSON `null`).
    #[serde(default)]
    pub conditions: Option<Vec<CustomResourceDefinitionCondition>>,
    /// The names actually served.
    #[serde(default, deserialize_with = "null_default")]
    pub accepted_names: CustomResourceDefinitionNames,
    /// Every version objects may be stored in; `None` is Go's nil.
    #[serde(default)]
    pub stored_versions: Option<Vec<String>>,
    /// The generation the status was computed for.
    #[serde(
        default,
        skip_serializing_if = "is_zero_i64",
        deserialize_with = "null_default"
    )]
    pub observed_generation: i64,
}

/// `CustomResourceValidation`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CustomResourceValidation {
    /// The OpenAPI v3 schema.
    #[serde(
        rename = "openAPIV3Schema",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub open_api_v3_schema: Option<Box<JsonSchemaProps>>,
}

/// `CustomResourceSubresources`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceSubresources {
    /// Enables `/status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CustomResourceSubresourceStatus>,
    /// Enables `/scale`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<CustomResourceSubresourceScale>,
}

/// `CustomResourceSubresourceStatus`: an empty object that turns `/status` on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CustomResourceSubresourceStatus {}

/// `CustomResourceSubresourceScale`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceSubresourceScale {
    /// JSON path of the desired replicas.
    #[serde(default, deserialize_with = "null_default")]
    pub spec_replicas_path: String,
    /// JSON path of the observed replicas.
    #[serde(default, deserialize_with = "null_default")]
    pub status_replicas_path: String,
    /// JSON path of the label selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector_path: Option<String>,
}

/// `CustomResourceDefinitionList`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomResourceDefinitionList {
    /// TypeMeta `kind`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub kind: String,
    /// TypeMeta `apiVersion`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub api_version: String,
    /// Standard list metadata.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ListMeta,
    /// The definitions.
    #[serde(default, deserialize_with = "null_default")]
    pub items: Vec<CustomResourceDefinition>,
}
