//! Request option kinds: DeleteOptions, ListOptions, GetOptions, Create/Update/PatchOptions.

use crate::serde_helpers::{is_false, is_zero_i64, null_as_default as nd};
use serde::{Deserialize, Serialize};

/// Options of a delete (the request body of DELETE).
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct DeleteOptions {
    /// Kind (`DeleteOptions`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    /// API version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    /// Grace period before deletion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(int64, optional, tag = "1")]
    pub grace_period_seconds: Option<i64>,
    /// Conditions that must hold for the delete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(message, optional, tag = "2")]
    pub preconditions: Option<Preconditions>,
    /// Deprecated: orphan dependents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(bool, optional, tag = "3")]
    pub orphan_dependents: Option<bool>,
    /// `Orphan`, `Background` or `Foreground`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(string, optional, tag = "4")]
    pub propagation_policy: Option<String>,
    /// `All` for a dry run.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[prost(string, repeated, tag = "5")]
    pub dry_run: Vec<String>,
    /// Delete even if the object cannot be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(bool, optional, tag = "6")]
    pub ignore_store_read_error_with_cluster_breaking_potential: Option<bool>,
}

/// Preconditions of a delete.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct Preconditions {
    /// Required UID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(string, optional, tag = "1")]
    pub uid: Option<String>,
    /// Required resource version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(string, optional, tag = "2")]
    pub resource_version: Option<String>,
}

/// Options of a list or watch (usually query parameters).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListOptions {
    /// Kind (`ListOptions`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    /// API version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    /// Label selector.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub label_selector: String,
    /// Field selector.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub field_selector: String,
    /// Watch instead of list.
    #[serde(default, deserialize_with = "nd", skip_serializing_if = "is_false")]
    pub watch: bool,
    /// Ask for bookmark events.
    #[serde(default, deserialize_with = "nd", skip_serializing_if = "is_false")]
    pub allow_watch_bookmarks: bool,
    /// Resource version to start from.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub resource_version: String,
    /// How `resource_version` is matched.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub resource_version_match: String,
    /// Watch timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<i64>,
    /// Page size.
    #[serde(default, deserialize_with = "nd", skip_serializing_if = "is_zero_i64")]
    pub limit: i64,
    /// Continue token.
    #[serde(
        rename = "continue",
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub continue_: String,
    /// Send the current state as initial events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_initial_events: Option<bool>,
}

/// Options of a get.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetOptions {
    /// Kind (`GetOptions`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    /// API version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    /// Resource version to read at.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub resource_version: String,
}

/// Options of a create, update or patch (Go has three kinds with these fields).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteOptions {
    /// Kind (`CreateOptions`, `UpdateOptions` or `PatchOptions`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    /// API version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    /// `All` for a dry run.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub dry_run: Vec<String>,
    /// Force apply conflicts (patch only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    /// The field manager.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub field_manager: String,
    /// `Ignore`, `Warn` or `Strict`.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub field_validation: String,
}

crate::impl_object!(DeleteOptions, no_meta, protobuf);
crate::impl_object!(ListOptions, no_meta, json_only);
crate::impl_object!(GetOptions, no_meta, json_only);
crate::impl_object!(WriteOptions, no_meta, json_only);
