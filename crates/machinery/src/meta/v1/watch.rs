//! `WatchEvent` and `RawExtension`: the wire form of one watch event (R2.26, R2.27, R2.30).

use crate::runtime::{Error, Result, TypedObject};
use crate::serde_helpers::null_as_default as nd;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Event type of an added object.
pub const ADDED: &str = "ADDED";
/// Event type of a modified object.
pub const MODIFIED: &str = "MODIFIED";
/// Event type of a deleted object (carries its last state).
pub const DELETED: &str = "DELETED";
/// Event type of a bookmark (only resourceVersion set).
pub const BOOKMARK: &str = "BOOKMARK";
/// Event type of an error (carries a Status).
pub const ERROR: &str = "ERROR";
/// Annotation of the bookmark that ends the initial events of a watch.
pub const INITIAL_EVENTS_END_ANNOTATION: &str = "k8s.io/initial-events-end";

/// Already-encoded bytes of an embedded object.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct RawExtension {
    /// The encoded object (JSON, or protobuf with its envelope).
    #[prost(bytes = "vec", tag = "1")]
    pub raw: Vec<u8>,
}

impl Serialize for RawExtension {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if self.raw.is_empty() {
            return s.serialize_none();
        }
        let text = std::str::from_utf8(&self.raw).map_err(serde::ser::Error::custom)?;
        let raw = serde_json::value::RawValue::from_string(text.to_string())
            .map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

impl<'de> Deserialize<'de> for RawExtension {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw: Option<Box<serde_json::value::RawValue>> = Option::deserialize(d)?;
        Ok(RawExtension {
            raw: raw.map(|r| r.get().as_bytes().to_vec()).unwrap_or_default(),
        })
    }
}

/// One watch event: the type and the encoded object.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
pub struct WatchEvent {
    /// `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
    #[serde(rename = "type", default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub type_: String,
    /// The object, already encoded.
    #[serde(default)]
    #[prost(message, required, tag = "2")]
    pub object: RawExtension,
}

/// WatchEvent has no TypeMeta in Go: its GVK can be neither read nor set.
impl TypedObject for WatchEvent {
    fn type_meta(&self) -> (&str, &str) {
        ("", "")
    }
    fn set_type_meta(&mut self, _api_version: String, _kind: String) {}
    fn encode_protobuf(&self, out: &mut Vec<u8>) -> Result<()> {
        prost::Message::encode_raw(self, out);
        Ok(())
    }
    fn decode_protobuf(data: &[u8]) -> Result<Self> {
        <Self as prost::Message>::decode(data).map_err(|e| Error::Decode(e.to_string()))
    }
    fn supports_protobuf() -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_extension_null_leaves_it_empty_r2_30() {
        let ev: WatchEvent = serde_json::from_str(r#"{"type":"ADDED","object":null}"#).unwrap();
        assert!(ev.object.raw.is_empty());
        assert_eq!(
            serde_json::to_string(&ev).unwrap(),
            r#"{"type":"ADDED","object":null}"#
        );
    }

    #[test]
    fn raw_extension_embeds_json_verbatim_r2_30() {
        let ev: WatchEvent =
            serde_json::from_str(r#"{"type":"ADDED","object":{"b":1,"a":2}}"#).unwrap();
        assert_eq!(ev.object.raw, br#"{"b":1,"a":2}"#);
        assert_eq!(
            serde_json::to_string(&ev).unwrap(),
            r#"{"type":"ADDED","object":{"b":1,"a":2}}"#
        );
    }

    #[test]
    fn watch_event_has_no_type_meta_r2_27() {
        use crate::runtime::Object;
        let mut ev = WatchEvent::default();
        ev.set_api_version_and_kind("v1".into(), "WatchEvent".into());
        assert_eq!((ev.api_version(), ev.kind()), ("", ""));
    }
}
