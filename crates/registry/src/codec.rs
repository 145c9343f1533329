//! The storage codec of a registry entry: how stored bytes become an object in the entry's
//! version and back, which fields a kind knows (field validation), and protobuf where the
//! kind has it. Handlers only see objects as JSON values in the request version.

use crate::error::Error;
use serde_json::Value;
use std::sync::Arc;

/// Converts between stored bytes and objects in one entry's version. Decoding and encoding
/// for storage are async: a custom resource's converter may call a webhook, and the
/// request awaits it on the runtime instead of blocking a worker thread.
#[async_trait::async_trait]
pub trait ObjectCodec: Send + Sync {
    /// Decodes a stored value into an object in this entry's version.
    async fn decode_stored(&self, bytes: &[u8]) -> Result<Value, Error>;

    /// Decodes the stored values of one list page, in order. Codecs that convert through a
    /// webhook override it so that a page costs one conversion call (issue 6).
    async fn decode_stored_many(&self, values: &[&[u8]]) -> Result<Vec<Value>, Error> {
        let mut out = Vec::with_capacity(values.len());
        for b in values {
            out.push(self.decode_stored(b).await?);
        }
        Ok(out)
    }

    /// Encodes an object in this entry's version for storage (in the storage version).
    async fn encode_for_storage(&self, obj: &Value) -> Result<Vec<u8>, Error>;

    /// Brings a decoded body into the kind's canonical form in this entry's version
    /// (defaults applied, unknown fields dropped).
    fn normalize(&self, obj: Value) -> Result<Value, Error> {
        Ok(obj)
    }

    /// The error for a body whose `kind`/`apiVersion` (either may be empty) differ from this
    /// entry's, when the kind words it differently from built-ins (custom resources).
    fn check_type(&self, _kind: &str, _api_version: &str) -> Option<Error> {
        None
    }

    /// Whether stored bytes are already in the current storage version. An update that
    /// changes nothing still rewrites an object stored in an older version (storage
    /// migration, as kube-apiserver writes when the encoded bytes differ).
    fn is_stored_current(&self, _bytes: &[u8]) -> bool {
        true
    }

    /// The OpenAPI v3 schema of objects in this entry's version, when the kind has one with
    /// field detail (custom resources: the CRD version's `openAPIV3Schema`).
    fn openapi_schema(&self) -> Option<Value> {
        None
    }

    /// The kind's zero value as JSON (Go's `New()` encoded: non-pointer structs present,
    /// nil slices `null`), which server-side apply compares a created object with; `None`
    /// for kinds without a typed form (an empty object).
    fn zero_object(&self) -> Option<Value> {
        None
    }

    /// Field-validation problems of a JSON body, as Kubernetes words them
    /// (`unknown field "spec.x"`, `duplicate field "a"`).
    fn field_problems(&self, json: &[u8]) -> Vec<String> {
        crate::json_dups::parse_with_duplicates(json)
            .map(|(_, dups)| {
                dups.iter()
                    .map(|p| format!("duplicate field \"{p}\""))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The stored JSON as this entry's response with `resourceVersion` set, when the stored
    /// bytes are already exactly that (same version, compact JSON); `None` otherwise.
    fn stored_json_with_resource_version(&self, _bytes: &[u8], _rv: i64) -> Option<Vec<u8>> {
        None
    }

    /// Whether [`ObjectCodec::encode_protobuf`] and [`ObjectCodec::decode_protobuf`] work.
    fn supports_protobuf(&self) -> bool {
        false
    }

    /// Encodes an object (or a list, meta.k8s.io types included) as Kubernetes protobuf.
    fn encode_protobuf(&self, _obj: Value) -> Result<Vec<u8>, Error> {
        Err(Error::not_acceptable(&[
            "application/json",
            "application/yaml",
        ]))
    }

    /// Encodes JSON bytes of an object or list as Kubernetes protobuf.
    fn encode_protobuf_from_json(&self, json: &[u8]) -> Result<Vec<u8>, Error> {
        let value = serde_json::from_slice(json).map_err(Error::internal)?;
        self.encode_protobuf(value)
    }

    /// The object stored as `bytes` at revision `rv` as a protobuf list item (its message,
    /// without TypeMeta), when this codec serves the storage version of a kind with
    /// protobuf: a pure function of the stored bytes, which the watch cache may keep.
    /// `None` when the codec cannot make one.
    fn encode_protobuf_item(&self, _bytes: &[u8], _rv: i64) -> Option<Result<Vec<u8>, Error>> {
        None
    }

    /// A protobuf list (`k8s\0` envelope) of kind `list_kind` with `list_meta` and items made
    /// by [`ObjectCodec::encode_protobuf_item`].
    fn encode_protobuf_list(
        &self,
        _list_kind: &str,
        _list_meta: &Value,
        _items: &[Arc<[u8]>],
    ) -> Result<Vec<u8>, Error> {
        Err(Error::not_acceptable(&[
            "application/json",
            "application/yaml",
        ]))
    }

    /// Whether decoding the same stored bytes always gives the same object, so that the
    /// watch cache may keep a decoded form for later lists (false for conversion webhooks,
    /// whose answers may change while the CRD does not).
    fn is_deterministic(&self) -> bool {
        true
    }

    /// Encodes one length-delimited protobuf watch frame of event `kind` carrying `obj`.
    fn encode_watch_frame_protobuf(&self, _kind: &str, _obj: &Value) -> Result<Vec<u8>, Error> {
        Err(Error::not_acceptable(&[
            "application/json",
            "application/yaml",
        ]))
    }

    /// Decodes a Kubernetes protobuf body into an object in this entry's version.
    fn decode_protobuf(&self, _body: &[u8]) -> Result<Value, Error> {
        Err(Error::unsupported_media_type(&[
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

#[async_trait::async_trait]
impl ObjectCodec for JsonCodec {
    async fn decode_stored(&self, bytes: &[u8]) -> Result<Value, Error> {
        let mut obj: Value = serde_json::from_slice(bytes)
            .map_err(|e| Error::internal(format!("decoding stored object: {e}")))?;
        if let Some(map) = obj.as_object_mut() {
            map.insert(
                "apiVersion".to_owned(),
                Value::String(self.api_version.clone()),
            );
        }
        Ok(obj)
    }

    async fn encode_for_storage(&self, obj: &Value) -> Result<Vec<u8>, Error> {
        serde_json::to_vec(obj).map_err(Error::internal)
    }
}

/// Inserts `"resourceVersion":"<rv>"` at the start of the top-level `metadata` of compact
/// JSON that begins exactly with `prefix` (which must end with `"metadata":{`).
pub fn splice_resource_version(bytes: &[u8], prefix: &[u8], rv: i64) -> Option<Vec<u8>> {
    let rest = bytes.strip_prefix(prefix)?;
    let mut out = Vec::with_capacity(bytes.len() + 32);
    out.extend_from_slice(prefix);
    out.extend_from_slice(format!("\"resourceVersion\":\"{rv}\"").as_bytes());
    if rest.first() != Some(&b'}') {
        out.push(b',');
    }
    out.extend_from_slice(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_inserts_the_resource_version_first_in_metadata() {
        let prefix = br#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"#;
        let stored =
            br#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"},"data":{"k":"v"}}"#;
        let out = splice_resource_version(stored, prefix, 7).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["metadata"]["resourceVersion"], "7");
        assert_eq!(v["metadata"]["name"], "a");
    }

    #[test]
    fn splice_refuses_other_shapes() {
        let prefix = br#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"#;
        assert!(splice_resource_version(br#"{"apiVersion":"v1"}"#, prefix, 1).is_none());
    }
}
