//! core/v1 Namespace and NamespaceList.

use crate::meta::{ListMeta, ObjectMeta, Time};
use crate::serde_util::null_default;
use serde::{Deserialize, Serialize};

/// A Namespace: a scope for names (k8s.io/api core/v1 `Namespace`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Namespace {
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
    /// The desired behaviour of the namespace.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: NamespaceSpec,
    /// The observed state of the namespace.
    #[serde(default, deserialize_with = "null_default")]
    pub status: NamespaceStatus,
}
crate::proto_message!(Namespace {
    metadata: msg_maps = 1,
    spec: msg = 2,
    status: msg = 3
});

/// `NamespaceSpec`: finalizers that must be empty before the namespace is removed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSpec {
    /// Opaque finalizer names.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub finalizers: Vec<String>,
}
crate::proto_message!(NamespaceSpec {
    finalizers: strings = 1
});

/// `NamespaceStatus`: lifecycle phase and conditions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceStatus {
    /// `Active` or `Terminating`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub phase: String,
    /// Latest observations of the namespace's state.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub conditions: Vec<NamespaceCondition>,
}
crate::proto_message!(NamespaceStatus {
    phase: string = 1,
    conditions: msgs = 2
});

/// `NamespaceCondition`: one observation of a namespace's state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceCondition {
    /// Condition type.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// `True`, `False` or `Unknown`.
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
}
crate::proto_message!(NamespaceCondition {
    r#type: string = 1,
    status: string = 2,
    last_transition_time: msg = 4,
    reason: string = 5,
    message: string = 6,
});

/// `NamespaceList`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamespaceList {
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
    /// The namespaces.
    #[serde(default, deserialize_with = "null_default")]
    pub items: Vec<Namespace>,
}
crate::proto_message!(NamespaceList {
    metadata: msg_maps = 1,
    items: msgs_maps = 2
});
