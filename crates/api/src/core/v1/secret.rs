//! core/v1 Secret and SecretList.

use crate::meta::{ListMeta, ObjectMeta};
use crate::serde_util::{base64_map, null_default};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The type a Secret gets when none is given.
pub const SECRET_TYPE_OPAQUE: &str = "Opaque";

/// A Secret: sensitive data (k8s.io/api core/v1 `Secret`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Secret {
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
    /// The secret data: base64 in JSON, raw bytes in protobuf.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        with = "base64_map"
    )]
    pub data: BTreeMap<String, Vec<u8>>,
    /// Write-only plain-text data, merged into `data` on write.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    pub string_data: BTreeMap<String, String>,
    /// The secret type (`Opaque` by default).
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub r#type: String,
}
crate::proto_message!(Secret {
    metadata: msg_maps = 1,
    data: map = 2,
    r#type: string = 3,
    string_data: map = 4,
    immutable: opt_bool = 5,
});

/// `SecretList`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretList {
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
    /// The secrets.
    #[serde(default, deserialize_with = "null_default")]
    pub items: Vec<Secret>,
}
crate::proto_message!(SecretList {
    metadata: msg_maps = 1,
    items: msgs_maps = 2
});
