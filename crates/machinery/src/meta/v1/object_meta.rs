//! `ObjectMeta`, `ListMeta` and their parts, JSON and protobuf compatible with Go.
//!
//! Field order is Go's struct order (JSON output order); protobuf field numbers are
//! go-to-protobuf's. Go's non-pointer fields are always sent in protobuf (`required` here).

use super::time::Time;
use crate::serde_helpers::{is_zero_i64, null_as_default as nd};
use crate::serializer::proto_wire;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// Metadata every persisted object has.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// Name, unique within a namespace.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    /// Prefix for a server-generated name.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub generate_name: String,
    /// Namespace.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub namespace: String,
    /// Deprecated self link.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub self_link: String,
    /// Unique id.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub uid: String,
    /// Opaque version for optimistic concurrency.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub resource_version: String,
    /// Generation of the desired state.
    #[serde(default, deserialize_with = "nd", skip_serializing_if = "is_zero_i64")]
    pub generation: i64,
    /// Creation time; left out when zero (`omitzero` since Kubernetes 1.33, so a pod
    /// template's metadata no longer shows `creationTimestamp: null`).
    #[serde(default, skip_serializing_if = "Time::is_zero")]
    pub creation_timestamp: Time,
    /// Deletion time, set when deletion is requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<Time>,
    /// Grace period of a pending deletion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_grace_period_seconds: Option<i64>,
    /// Labels.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub labels: BTreeMap<String, String>,
    /// Annotations.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub annotations: BTreeMap<String, String>,
    /// Owners.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub owner_references: Vec<OwnerReference>,
    /// Finalizers.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub finalizers: Vec<String>,
    /// Field ownership (server-side apply).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub managed_fields: Vec<ManagedFieldsEntry>,
}

/// A reference to an owning object.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    /// API version of the owner.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "5")]
    pub api_version: String,
    /// Kind of the owner.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub kind: String,
    /// Name of the owner.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "3")]
    pub name: String,
    /// UID of the owner.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "4")]
    pub uid: String,
    /// True if the owner is the managing controller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(bool, optional, tag = "6")]
    pub controller: Option<bool>,
    /// True if the owner cannot be deleted before this object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(bool, optional, tag = "7")]
    pub block_owner_deletion: Option<bool>,
}

/// One manager's field ownership.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct ManagedFieldsEntry {
    /// The manager.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "1")]
    pub manager: String,
    /// `Apply` or `Update`.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "2")]
    pub operation: String,
    /// The version the fields are expressed in.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "3")]
    pub api_version: String,
    /// When the entry was last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(message, optional, tag = "4")]
    pub time: Option<Time>,
    /// Format of `fields_v1` (`FieldsV1`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "6")]
    pub fields_type: String,
    /// The field set.
    #[serde(rename = "fieldsV1", default, skip_serializing_if = "Option::is_none")]
    #[prost(message, optional, tag = "7")]
    pub fields_v1: Option<FieldsV1>,
    /// The subresource written through.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "8")]
    pub subresource: String,
}

/// A field set, kept as the raw JSON text (as Go keeps `Raw []byte`); protobuf carries the
/// same bytes. Never parsed on the hot path.
#[derive(Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FieldsV1(pub Box<RawValue>);

impl FieldsV1 {
    /// Builds from a JSON value.
    pub fn from_value(value: &serde_json::Value) -> Self {
        FieldsV1(serde_json::value::to_raw_value(value).unwrap_or_default())
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    /// The field set as a JSON value.
    pub fn to_value(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::from_str(self.0.get())
    }
}

impl Default for FieldsV1 {
    fn default() -> Self {
        FieldsV1(RawValue::NULL.to_owned())
    }
}

/// Equal when the texts are equal or denote the same JSON value (whitespace aside).
impl PartialEq for FieldsV1 {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get() || self.to_value().ok() == other.to_value().ok()
    }
}

impl std::fmt::Debug for FieldsV1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FieldsV1({})", self.0.get())
    }
}

impl prost::Message for FieldsV1 {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        string_field(1, self.0.get(), buf);
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        if tag != 1 {
            return encoding::skip_field(wire_type, tag, buf, ctx);
        }
        let mut raw = String::new();
        encoding::string::merge(wire_type, &mut raw, buf, ctx)?;
        self.0 = RawValue::from_string(raw)
            .map_err(|e| crate::serializer::proto_wire::decode_error(format!("fieldsV1: {e}")))?;
        Ok(())
    }
    fn encoded_len(&self) -> usize {
        string_len(1, self.0.get())
    }
    fn clear(&mut self) {
        *self = FieldsV1::default();
    }
}

/// Metadata of a list.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct ListMeta {
    /// Deprecated self link.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "1")]
    pub self_link: String,
    /// The list's resource version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "2")]
    pub resource_version: String,
    /// Continue token for the next page.
    #[serde(
        rename = "continue",
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "3")]
    pub continue_: String,
    /// Items left after this page, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(int64, optional, tag = "4")]
    pub remaining_item_count: Option<i64>,
    /// The shard this list was selected with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[prost(message, optional, tag = "5")]
    pub shard_info: Option<ShardInfo>,
}

/// ListMeta has no string maps; implemented so that list kinds can use the bulk decoders.
impl proto_wire::StringMapFields for ListMeta {
    fn string_map_field(&mut self, _tag: u32) -> Option<&mut BTreeMap<String, String>> {
        None
    }
}

/// Shard selector information of a list.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
pub struct ShardInfo {
    /// The shard selector.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub selector: String,
}

fn string_field(tag: u32, v: &str, buf: &mut impl BufMut) {
    encoding::encode_key(tag, WireType::LengthDelimited, buf);
    encoding::encode_varint(v.len() as u64, buf);
    buf.put_slice(v.as_bytes());
}

fn string_len(tag: u32, v: &str) -> usize {
    encoding::key_len(tag) + encoding::encoded_len_varint(v.len() as u64) + v.len()
}

impl proto_wire::StringMapFields for ObjectMeta {
    fn string_map_field(&mut self, tag: u32) -> Option<&mut BTreeMap<String, String>> {
        match tag {
            11 => Some(&mut self.labels),
            12 => Some(&mut self.annotations),
            _ => None,
        }
    }
}

impl prost::Message for ObjectMeta {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        string_field(1, &self.name, buf);
        string_field(2, &self.generate_name, buf);
        string_field(3, &self.namespace, buf);
        string_field(4, &self.self_link, buf);
        string_field(5, &self.uid, buf);
        string_field(6, &self.resource_version, buf);
        encoding::int64::encode(7, &self.generation, buf);
        encoding::message::encode(8, &self.creation_timestamp, buf);
        if let Some(t) = &self.deletion_timestamp {
            encoding::message::encode(9, t, buf);
        }
        if let Some(s) = &self.deletion_grace_period_seconds {
            encoding::int64::encode(10, s, buf);
        }
        proto_wire::encode_string_map(11, &self.labels, buf);
        proto_wire::encode_string_map(12, &self.annotations, buf);
        encoding::message::encode_repeated(13, &self.owner_references, buf);
        encoding::string::encode_repeated(14, &self.finalizers, buf);
        encoding::message::encode_repeated(17, &self.managed_fields, buf);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        match tag {
            1 => proto_wire::merge_string(wt, &mut self.name, buf, ctx),
            2 => proto_wire::merge_string(wt, &mut self.generate_name, buf, ctx),
            3 => proto_wire::merge_string(wt, &mut self.namespace, buf, ctx),
            4 => proto_wire::merge_string(wt, &mut self.self_link, buf, ctx),
            5 => proto_wire::merge_string(wt, &mut self.uid, buf, ctx),
            6 => proto_wire::merge_string(wt, &mut self.resource_version, buf, ctx),
            7 => encoding::int64::merge(wt, &mut self.generation, buf, ctx),
            8 => encoding::message::merge(wt, &mut self.creation_timestamp, buf, ctx),
            9 => encoding::message::merge(
                wt,
                self.deletion_timestamp.get_or_insert_with(Time::default),
                buf,
                ctx,
            ),
            10 => encoding::int64::merge(
                wt,
                self.deletion_grace_period_seconds.get_or_insert(0),
                buf,
                ctx,
            ),
            11 => {
                proto_wire::check_length_delimited(wt)?;
                proto_wire::merge_string_map(&mut self.labels, buf, ctx)
            }
            12 => {
                proto_wire::check_length_delimited(wt)?;
                proto_wire::merge_string_map(&mut self.annotations, buf, ctx)
            }
            13 => encoding::message::merge_repeated(wt, &mut self.owner_references, buf, ctx),
            14 => encoding::string::merge_repeated(wt, &mut self.finalizers, buf, ctx),
            17 => encoding::message::merge_repeated(wt, &mut self.managed_fields, buf, ctx),
            _ => encoding::skip_field(wt, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        string_len(1, &self.name)
            + string_len(2, &self.generate_name)
            + string_len(3, &self.namespace)
            + string_len(4, &self.self_link)
            + string_len(5, &self.uid)
            + string_len(6, &self.resource_version)
            + encoding::int64::encoded_len(7, &self.generation)
            + encoding::message::encoded_len(8, &self.creation_timestamp)
            + self
                .deletion_timestamp
                .as_ref()
                .map_or(0, |t| encoding::message::encoded_len(9, t))
            + self
                .deletion_grace_period_seconds
                .as_ref()
                .map_or(0, |s| encoding::int64::encoded_len(10, s))
            + proto_wire::string_map_encoded_len(11, &self.labels)
            + proto_wire::string_map_encoded_len(12, &self.annotations)
            + encoding::message::encoded_len_repeated(13, &self.owner_references)
            + encoding::string::encoded_len_repeated(14, &self.finalizers)
            + encoding::message::encoded_len_repeated(17, &self.managed_fields)
    }

    fn clear(&mut self) {
        *self = ObjectMeta::default();
    }
}
