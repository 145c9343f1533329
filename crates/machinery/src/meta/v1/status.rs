//! `Status`: the result of an operation that returns no object, and every API error.

use super::object_meta::ListMeta;
use crate::serde_helpers::{is_zero_i32, null_as_default as nd};
use serde::{Deserialize, Serialize};

/// `status` of a successful operation.
pub const STATUS_SUCCESS: &str = "Success";
/// `status` of a failed operation.
pub const STATUS_FAILURE: &str = "Failure";

/// The outcome of an operation, returned for errors and for some deletes.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// Kind (`Status`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    /// API version (`v1`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    /// List metadata (always written, `{}` when empty).
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, required, tag = "1")]
    pub metadata: ListMeta,
    /// `Success` or `Failure`.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "2")]
    pub status: String,
    /// Human-readable description.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "3")]
    pub message: String,
    /// Machine-readable reason (e.g. `NotFound`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "4")]
    pub reason: String,
    /// Extended data about the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(message, optional, tag = "5")]
    pub details: Option<StatusDetails>,
    /// HTTP status code.
    #[serde(default, deserialize_with = "nd", skip_serializing_if = "is_zero_i32")]
    #[prost(int32, required, tag = "6")]
    pub code: i32,
}

/// Details of a Status: which object, and the causes.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct StatusDetails {
    /// Name of the object concerned.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "1")]
    pub name: String,
    /// Group of the object concerned.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "2")]
    pub group: String,
    /// Kind of the object concerned.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "3")]
    pub kind: String,
    /// UID of the object concerned.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "6")]
    pub uid: String,
    /// The individual causes.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[prost(message, repeated, tag = "4")]
    pub causes: Vec<StatusCause>,
    /// Seconds to wait before retrying.
    #[serde(default, deserialize_with = "nd", skip_serializing_if = "is_zero_i32")]
    #[prost(int32, required, tag = "5")]
    pub retry_after_seconds: i32,
}

/// One cause of a failure, often one invalid field.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
pub struct StatusCause {
    /// Machine-readable reason (e.g. `FieldValueInvalid`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "1")]
    pub reason: String,
    /// Human-readable description.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "2")]
    pub message: String,
    /// The field path concerned.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "3")]
    pub field: String,
}

crate::impl_object!(Status, list_meta, protobuf);
