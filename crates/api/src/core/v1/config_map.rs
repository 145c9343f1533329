//! core/v1 ConfigMap and ConfigMapList.

use crate::meta::{ListMeta, ObjectMeta};
use crate::serde_util::{base64_map, null_default};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A ConfigMap: configuration data for pods (k8s.io/api core/v1 `ConfigMap`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigMap {
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
    /// When true, only metadata may change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immutable: Option<bool>,
    /// UTF-8 configuration data.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    pub data: BTreeMap<String, String>,
    /// Binary configuration data (base64 in JSON).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "base64_map"
    )]
    pub binary_data: BTreeMap<String, Vec<u8>>,
}
crate::proto_message!(ConfigMap {
    metadata: msg_maps = 1,
    data: map = 2,
    binary_data: map = 3,
    immutable: opt_bool = 4,
});

/// `ConfigMapList`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigMapList {
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
    /// The config maps.
    #[serde(default, deserialize_with = "null_default")]
    pub items: Vec<ConfigMap>,
}
crate::proto_message!(ConfigMapList {
    metadata: msg_maps = 1,
    items: msgs_maps = 2
});
