//! The storage codec of a registry entry: how stored bytes become an object in the entry's
//! version and back, which fields a kind knows (field validation), and protobuf where the
//! kind has it. Handlers only see objects as JSON values in the request version.

use crate::status::ApiError;
use serde_json::Value;

/// Converts between stored bytes and objects in one entry's version.
pub trait ObjectCodec: Send + Sync {
    /// Decodes a stored value into an object in this entry's version.
    fn decode_stored(&self, bytes: &[u8]) -> Result<Value, ApiError>;

    /// Encodes an object in this entry's version for storage (in the storage version).
    fn encode_for_storage(&self, obj: &Value) -> Result<Vec<u8>, ApiError>;

    /// Paths of fields in `obj` that the kind does not know, sorted (field validation).
    /// An empty answer means "all known" or "the kind preserves unknown fields".
    fn unknown_fields(&self, _obj: &Value) -> Vec<String> {
        Vec::new()
    }

    /// Whether [`ObjectCodec::encode_protobuf`] and [`ObjectCodec::decode_protobuf`] work.
    fn supports_protobuf(&self) -> bool {
        false
    }

    /// Encodes an object (or a list, meta.k8s.io types included) as Kubernetes protobuf.
    fn encode_protobuf(&self, _obj: &Value) -> Result<Vec<u8>, ApiError> {
        Err(ApiError::not_acceptable(&[
            "application/json",
            "application/yaml",
        ]))
    }

    /// Encodes the object of a watch event as a protobuf `WatchEvent` (without the length
    /// prefix the stream framer adds).
    fn encode_watch_event_protobuf(&self, _kind: &str, _obj: &Value) -> Result<Vec<u8>, ApiError> {
        Err(ApiError::not_acceptable(&[
            "application/json",
            "application/yaml",
        ]))
    }

    /// Decodes a Kubernetes protobuf body into an object in this entry's version.
    fn decode_protobuf(&self, _body: &[u8]) -> Result<Value, ApiError> {
        Err(ApiError::unsupported_media_type(&[
            "application/json",
            "application/yaml",
        ]))
    }
}

/// Stores objects as JSON in the entry's own version (no conversion): the codec of kinds
/// served in a single version, and of custom resources with conversion `None`.
pub struct JsonCodec {
    api_version: String,
}

impl JsonCodec {
    /// A codec that serves stored JSON as `api_version`.
    pub fn new(api_version: impl Into<String>) -> Self {
        Self {
            api_version: api_version.into(),
        }
    }
}

impl ObjectCodec for JsonCodec {
    fn decode_stored(&self, bytes: &[u8]) -> Result<Value, ApiError> {
        let mut obj: Value = serde_json::from_slice(bytes)
            .map_err(|e| ApiError::internal(format!("decoding stored object: {e}")))?;
        if let Some(map) = obj.as_object_mut() {
            map.insert(
                "apiVersion".to_owned(),
                Value::String(self.api_version.clone()),
            );
        }
        Ok(obj)
    }

    fn encode_for_storage(&self, obj: &Value) -> Result<Vec<u8>, ApiError> {
        serde_json::to_vec(obj).map_err(ApiError::internal)
    }
}
