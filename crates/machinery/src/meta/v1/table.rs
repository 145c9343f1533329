//! `Table` (server-side printing) and `PartialObjectMetadata` (metadata-only views).

use super::object_meta::{ListMeta, ObjectMeta};
use super::watch::RawExtension;
use crate::serde_helpers::null_as_default as nd;
use serde::{Deserialize, Serialize};

/// A tabular view of objects (`as=Table`); JSON only, as in Go.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Table {
    /// Kind (`Table`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    /// API version (`meta.k8s.io/v1`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    /// List metadata.
    #[serde(default, deserialize_with = "nd")]
    pub metadata: ListMeta,
    /// Column definitions (may be omitted after the first watch event).
    #[serde(default, deserialize_with = "nd")]
    pub column_definitions: Vec<TableColumnDefinition>,
    /// The rows.
    #[serde(default, deserialize_with = "nd")]
    pub rows: Vec<TableRow>,
}

/// One column of a Table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableColumnDefinition {
    /// Column title.
    #[serde(default, deserialize_with = "nd")]
    pub name: String,
    /// OpenAPI type (`string`, `integer`…).
    #[serde(rename = "type", default, deserialize_with = "nd")]
    pub type_: String,
    /// OpenAPI format (`name`, `date`…).
    #[serde(default, deserialize_with = "nd")]
    pub format: String,
    /// Description.
    #[serde(default, deserialize_with = "nd")]
    pub description: String,
    /// 0 for the default columns, higher for wide output.
    #[serde(default, deserialize_with = "nd")]
    pub priority: i32,
}

/// One row of a Table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// Cell values, one per column.
    #[serde(default, deserialize_with = "nd")]
    pub cells: Vec<serde_json::Value>,
    /// Row conditions.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub conditions: Vec<TableRowCondition>,
    /// The object of the row (`null` when not included).
    #[serde(default)]
    pub object: RawExtension,
}

/// A condition of a Table row.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TableRowCondition {
    /// Condition type (`Completed`).
    #[serde(rename = "type", default, deserialize_with = "nd")]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default, deserialize_with = "nd")]
    pub status: String,
    /// Machine-readable reason.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub reason: String,
    /// Human-readable message.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub message: String,
}

/// An object's metadata alone (`as=PartialObjectMetadata`).
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct PartialObjectMetadata {
    /// Kind (`PartialObjectMetadata`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    /// API version (`meta.k8s.io/v1`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    /// The metadata.
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, required, tag = "1")]
    pub metadata: ObjectMeta,
}

/// A list of metadata-only objects (`as=PartialObjectMetadataList`).
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct PartialObjectMetadataList {
    /// Kind (`PartialObjectMetadataList`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    /// API version (`meta.k8s.io/v1`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    /// List metadata.
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, required, tag = "1")]
    pub metadata: ListMeta,
    /// The items.
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, repeated, tag = "2")]
    pub items: Vec<PartialObjectMetadata>,
}

crate::impl_object!(Table, list_meta, json_only);
crate::impl_object!(PartialObjectMetadata, object_meta, protobuf);
crate::impl_object!(PartialObjectMetadataList, list_meta, protobuf);
