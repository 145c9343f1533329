//! `Unknown`: raw bytes of an object not decoded, with their content type and type meta.
//!
//! Decoding into an `Unknown` keeps the original bytes (R2.4); it is also the protobuf
//! envelope (R2.16) and encodes as its raw bytes (R2.30).

use super::error::{Error, Result};
use super::object::Object;

/// Content type of JSON data.
pub const CONTENT_TYPE_JSON: &str = "application/json";
/// Content type of YAML data.
pub const CONTENT_TYPE_YAML: &str = "application/yaml";
/// Content type of Kubernetes protobuf data.
pub const CONTENT_TYPE_PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// Raw, undecoded object bytes plus what is known about them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Unknown {
    /// `apiVersion` of the data.
    pub api_version: String,
    /// `kind` of the data.
    pub kind: String,
    /// The bytes, in `content_type`.
    pub raw: Vec<u8>,
    /// Content encoding (e.g. gzip); usually empty.
    pub content_encoding: String,
    /// Content type of `raw`; empty means JSON.
    pub content_type: String,
}

impl Unknown {
    fn is_json(&self) -> bool {
        self.content_type.is_empty() || self.content_type == CONTENT_TYPE_JSON
    }
}

impl Object for Unknown {
    fn assign_from(&mut self, other: Box<dyn Object>) -> std::result::Result<(), Box<dyn Object>> {
        *self = *super::object::downcast::<Unknown>(other)?;
        Ok(())
    }
    fn api_version(&self) -> &str {
        &self.api_version
    }
    fn kind(&self) -> &str {
        &self.kind
    }
    fn set_api_version_and_kind(&mut self, api_version: String, kind: String) {
        self.api_version = api_version;
        self.kind = kind;
    }
    fn type_name(&self) -> &'static str {
        "*runtime.Unknown"
    }
    fn clone_object(&self) -> Box<dyn Object> {
        Box::new(self.clone())
    }
    fn new_empty(&self) -> Box<dyn Object> {
        Box::new(Unknown::default())
    }
    fn encode_json(&self, out: &mut Vec<u8>, _pretty: bool) -> Result<()> {
        if !self.is_json() {
            return Err(Error::Encode(
                "runtime.Unknown: MarshalJSON on non-json data".into(),
            ));
        }
        if self.raw.is_empty() {
            out.extend_from_slice(b"null");
        } else {
            out.extend_from_slice(&self.raw);
        }
        Ok(())
    }
    fn to_json_value(&self) -> Result<serde_json::Value> {
        if !self.is_json() {
            return Err(Error::Encode(
                "runtime.Unknown: MarshalJSON on non-json data".into(),
            ));
        }
        serde_json::from_slice(&self.raw).map_err(|e| Error::Decode(e.to_string()))
    }
    fn decode_json(&mut self, data: &[u8], _strict: bool) -> Result<Vec<String>> {
        self.raw = data.to_vec();
        self.content_type = CONTENT_TYPE_JSON.to_string();
        Ok(Vec::new())
    }
    fn decode_json_value(&mut self, value: serde_json::Value) -> Result<()> {
        self.raw = serde_json::to_vec(&value).map_err(|e| Error::Encode(e.to_string()))?;
        self.content_type = CONTENT_TYPE_JSON.to_string();
        Ok(())
    }
    fn encode_protobuf(&self, out: &mut Vec<u8>) -> Result<()> {
        crate::serializer::protobuf::write_unknown_message(
            &self.api_version,
            &self.kind,
            &self.raw,
            &self.content_encoding,
            &self.content_type,
            out,
        );
        Ok(())
    }
    fn decode_protobuf(&mut self, data: &[u8]) -> Result<()> {
        *self = crate::serializer::protobuf::read_unknown_message(data)?;
        Ok(())
    }
    fn supports_protobuf(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_refuses_to_write_non_json_as_json_r2_30() {
        let u = Unknown {
            raw: vec![1, 2],
            content_type: CONTENT_TYPE_PROTOBUF.into(),
            ..Unknown::default()
        };
        let err = u.encode_json(&mut Vec::new(), false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "runtime.Unknown: MarshalJSON on non-json data"
        );
    }

    #[test]
    fn unknown_writes_json_raw_bytes_as_they_are_r2_30() {
        let u = Unknown {
            raw: br#"{"a": 1}"#.to_vec(),
            ..Unknown::default()
        };
        let mut out = Vec::new();
        u.encode_json(&mut out, false).unwrap();
        assert_eq!(out, br#"{"a": 1}"#);
    }
}
