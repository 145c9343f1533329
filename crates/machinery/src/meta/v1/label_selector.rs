//! `LabelSelector` and `Condition`, the shared building blocks of many kinds.

use super::time::Time;
use crate::serde_helpers::{is_zero_i64, null_as_default as nd};
use crate::serializer::proto_wire;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Selects objects by labels: all of `match_labels` and all `match_expressions` must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelSelector {
    /// Exact label matches.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub match_labels: BTreeMap<String, String>,
    /// Set-based requirements.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One set-based requirement (`key In (a,b)`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct LabelSelectorRequirement {
    /// The label key.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "2")]
    pub operator: String,
    /// The values for `In`/`NotIn`.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[prost(string, repeated, tag = "3")]
    pub values: Vec<String>,
}

/// A field selector requirement (`key In (a,b)` on a field): the same fields, JSON and
/// protobuf numbers as a label selector requirement (meta/v1 `FieldSelectorRequirement`).
pub type FieldSelectorRequirement = LabelSelectorRequirement;

impl prost::Message for LabelSelector {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        proto_wire::encode_string_map(1, &self.match_labels, buf);
        encoding::message::encode_repeated(2, &self.match_expressions, buf);
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        match tag {
            1 => {
                proto_wire::check_length_delimited(wt)?;
                proto_wire::merge_string_map(&mut self.match_labels, buf, ctx)
            }
            2 => encoding::message::merge_repeated(wt, &mut self.match_expressions, buf, ctx),
            _ => encoding::skip_field(wt, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        proto_wire::string_map_encoded_len(1, &self.match_labels)
            + encoding::message::encoded_len_repeated(2, &self.match_expressions)
    }
    fn clear(&mut self) {
        *self = LabelSelector::default();
    }
}

/// A standard status condition.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// Condition type.
    #[serde(rename = "type", default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "2")]
    pub status: String,
    /// Generation the condition was set for.
    #[serde(default, deserialize_with = "nd", skip_serializing_if = "is_zero_i64")]
    #[prost(int64, required, tag = "3")]
    pub observed_generation: i64,
    /// When the status last changed (`null` when zero).
    #[serde(default)]
    #[prost(message, required, tag = "4")]
    pub last_transition_time: Time,
    /// Machine-readable reason.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "5")]
    pub reason: String,
    /// Human-readable message.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "6")]
    pub message: String,
}
