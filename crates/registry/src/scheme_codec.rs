//! The storage codec of built-in kinds: typed through the machinery `Scheme`, converting
//! between the served version and the storage version through the hub, applying the
//! Scheme's defaults, reporting unknown and duplicate fields, and speaking protobuf. A kind
//! may be stored as another group's kind (events.k8s.io/v1 Events are core/v1 Events on
//! disk, as upstream's cohabiting resources are): the Scheme's direct conversion joins them.

use crate::codec::ObjectCodec;
use crate::error::Error;
use kapi_machinery::runtime::{Error as MachineryError, Object};
use kapi_machinery::schema::{
    GroupKind, GroupVersion, GroupVersionKind, GroupVersions, MultiGroupVersioner,
};
use kapi_machinery::serializer::framer::Framing;
use kapi_machinery::serializer::watch::WatchEncoder;
use kapi_machinery::serializer::{CodecFactory, Decoder, Encoder, SharedVersioner};
use serde_json::Value;
use std::sync::Arc;

/// A codec for one (group, version, kind) stored at `storage`.
pub struct SchemeCodec {
    factory: CodecFactory,
    /// `{"kind":"K","apiVersion":"V","metadata":{` as the storage encoder writes it.
    stored_prefix: Vec<u8>,
    served: GroupVersion,
    storage: GroupVersion,
    kind: String,
    protobuf: bool,
    /// What stored bytes of either group convert to: the served version.
    to_served: SharedVersioner,
    /// What a written object converts to: the storage version.
    to_storage: SharedVersioner,
}

impl SchemeCodec {
    /// A codec serving `served`/`kind`, storing at `storage`.
    pub fn new(
        factory: CodecFactory,
        served: GroupVersion,
        storage: GroupVersion,
        kind: &str,
    ) -> Self {
        let protobuf = factory
            .scheme()
            .new_object(&served.with_kind(kind))
            .map(|o| o.supports_protobuf())
            .unwrap_or(false);
        let stored_prefix = format!(
            "{{\"kind\":{},\"apiVersion\":{},\"metadata\":{{",
            Value::from(kind),
            Value::from(served.api_version())
        )
        .into_bytes();
        let (to_served, to_storage): (SharedVersioner, SharedVersioner) =
            if served.group == storage.group {
                (
                    Arc::new(GroupVersions(vec![served.clone()])),
                    Arc::new(storage.clone()),
                )
            } else {
                // Stored as another group's kind: either group's kind is accepted both ways.
                let kinds = vec![
                    GroupKind::new(served.group.clone(), kind),
                    GroupKind::new(storage.group.clone(), kind),
                ];
                (
                    Arc::new(MultiGroupVersioner {
                        target: served.clone(),
                        accepted: kinds.clone(),
                        coerce: false,
                    }),
                    Arc::new(MultiGroupVersioner {
                        target: storage.clone(),
                        accepted: kinds,
                        coerce: false,
                    }),
                )
            };
        Self {
            factory,
            stored_prefix,
            served,
            storage,
            kind: kind.to_owned(),
            protobuf,
            to_served,
            to_storage,
        }
    }

    fn gvk(&self) -> GroupVersionKind {
        self.served.with_kind(self.kind.as_str())
    }

    fn cannot_handle(&self, e: impl std::fmt::Display) -> Error {
        Error::bad_request(format!(
            "{} in version \"{}\" cannot be handled as a {}: {e}",
            self.kind, self.served.version, self.kind
        ))
    }

    /// The typed object of a JSON value, by the value's own apiVersion/kind.
    fn typed(&self, v: Value) -> Result<Box<dyn Object>, Error> {
        let av = v.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
        let gvk = if kind.is_empty() {
            self.gvk()
        } else {
            GroupVersionKind::from_api_version_and_kind(av, kind)
        };
        let mut obj = self
            .factory
            .scheme()
            .new_object(&gvk)
            .map_err(Error::internal)?;
        obj.decode_json_value(v)
            .map_err(|e| self.cannot_handle(e))?;
        obj.set_group_version_kind(&gvk);
        Ok(obj)
    }

    /// Decodes bytes of any format, defaulting and converting to the served version.
    fn decode_to_served(&self, bytes: &[u8]) -> Result<Value, Error> {
        let decoded = self
            .factory
            .decoder_to_version(
                self.factory.universal_deserializer(),
                self.to_served.clone(),
            )
            .decode(bytes, Some(&self.gvk()), None)
            .map_err(|e| self.cannot_handle(e))?;
        self.to_value(decoded.object.as_ref())
    }

    fn to_value(&self, obj: &dyn Object) -> Result<Value, Error> {
        let mut v = obj.to_json_value().map_err(Error::internal)?;
        if let Some(map) = v.as_object_mut() {
            map.insert(
                "apiVersion".into(),
                Value::String(self.served.api_version()),
            );
            map.insert("kind".into(), Value::String(self.kind.clone()));
        }
        Ok(v)
    }

    fn protobuf_encoder(&self) -> Result<Arc<dyn Encoder>, Error> {
        self.factory
            .serializer_for_media_type("application/vnd.kubernetes.protobuf")
            .map(|s| s.serializer.clone() as Arc<dyn Encoder>)
            .ok_or_else(|| Error::internal("no protobuf serializer"))
    }
}

fn machinery_error(e: MachineryError) -> Error {
    match e {
        MachineryError::NotMarshalable { .. } => {
            Error::not_acceptable(&["application/json", "application/yaml"])
        }
        other => Error::internal(other),
    }
}

#[async_trait::async_trait]
impl ObjectCodec for SchemeCodec {
    async fn decode_stored(&self, bytes: &[u8]) -> Result<Value, Error> {
        let stored_version = serde_json::from_slice::<Value>(bytes).ok().filter(|v| {
            v.get("apiVersion").and_then(Value::as_str) == Some(&self.served.api_version())
        });
        match stored_version {
            // Stored in the served version: defaults were applied when it was written.
            Some(v) => Ok(v),
            None => self.decode_to_served(bytes),
        }
    }

    async fn encode_for_storage(&self, obj: &Value) -> Result<Vec<u8>, Error> {
        let typed = self.typed(obj.clone())?;
        let json = self
            .factory
            .serializer_for_media_type("application/json")
            .map(|s| s.serializer.clone() as Arc<dyn Encoder>)
            .ok_or_else(|| Error::internal("no JSON serializer"))?;
        self.factory
            .encoder_for_version(json, self.to_storage.clone())
            .encode_to_vec(typed.as_ref())
            .map_err(Error::internal)
    }

    fn normalize(&self, obj: Value) -> Result<Value, Error> {
        let bytes = serde_json::to_vec(&obj).map_err(Error::internal)?;
        self.decode_to_served(&bytes)
    }

    fn field_problems(&self, json: &[u8]) -> Vec<String> {
        let Ok(mut obj) = self.factory.scheme().new_object(&self.gvk()) else {
            return Vec::new();
        };
        match obj.decode_json(json, true) {
            Ok(problems) => problems,
            Err(e) => e
                .as_strict_decoding()
                .map(|s| s.errors.clone())
                .unwrap_or_default(),
        }
    }

    fn zero_object(&self) -> Option<Value> {
        let obj = self.factory.scheme().new_object(&self.gvk()).ok()?;
        obj.to_json_value().ok()
    }

    fn supports_protobuf(&self) -> bool {
        self.protobuf
    }

    fn stored_json_with_resource_version(&self, bytes: &[u8], rv: i64) -> Option<Vec<u8>> {
        if self.served != self.storage {
            return None;
        }
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        crate::codec::splice_resource_version(body, &self.stored_prefix, rv)
    }

    fn encode_protobuf(&self, obj: Value) -> Result<Vec<u8>, Error> {
        let typed = self.typed(obj)?;
        self.protobuf_encoder()?
            .encode_to_vec(typed.as_ref())
            .map_err(machinery_error)
    }

    fn encode_protobuf_item(&self, bytes: &[u8], rv: i64) -> Option<Result<Vec<u8>, Error>> {
        if !self.protobuf || self.served != self.storage {
            return None;
        }
        let encode = || {
            let mut typed = self
                .factory
                .scheme()
                .new_object(&self.gvk())
                .map_err(Error::internal)?;
            typed
                .decode_json(bytes, false)
                .map_err(|e| self.cannot_handle(e))?;
            if let Some(meta) = typed.object_meta_mut() {
                meta.resource_version = rv.to_string();
            }
            // A list item carries no TypeMeta.
            typed.set_api_version_and_kind(String::new(), String::new());
            let mut out = Vec::with_capacity(bytes.len());
            typed.encode_protobuf(&mut out).map_err(machinery_error)?;
            Ok(out)
        };
        Some(encode())
    }

    fn encode_protobuf_list(
        &self,
        list_kind: &str,
        list_meta: &Value,
        items: &[Arc<[u8]>],
    ) -> Result<Vec<u8>, Error> {
        let gvk = self.served.with_kind(list_kind);
        let mut list = self
            .factory
            .scheme()
            .new_object(&gvk)
            .map_err(Error::internal)?;
        list.decode_json_value(serde_json::json!({ "metadata": list_meta }))
            .map_err(Error::internal)?;
        list.set_api_version_and_kind(String::new(), String::new());
        // The list's own message (its metadata; no items), then each item as field 2.
        let size: usize = items.iter().map(|i| i.len() + 6).sum();
        let mut body = Vec::with_capacity(size + 64);
        list.encode_protobuf(&mut body).map_err(machinery_error)?;
        for item in items {
            body.push(0x12);
            prost::encoding::encode_varint(item.len() as u64, &mut body);
            body.extend_from_slice(item);
        }
        let mut out = Vec::with_capacity(body.len() + 64);
        out.extend_from_slice(&kapi_machinery::serializer::protobuf::PREFIX);
        kapi_machinery::serializer::protobuf::write_unknown_message(
            &self.served.api_version(),
            list_kind,
            &body,
            "",
            "",
            &mut out,
        );
        Ok(out)
    }

    fn encode_protobuf_from_json(&self, json: &[u8]) -> Result<Vec<u8>, Error> {
        // Only the leading kind/apiVersion are read; the rest decodes straight into the type.
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct TypeMeta {
            #[serde(default)]
            api_version: String,
            #[serde(default)]
            kind: String,
        }
        let tm: TypeMeta = serde_json::from_slice(json).map_err(Error::internal)?;
        let gvk = GroupVersionKind::from_api_version_and_kind(&tm.api_version, &tm.kind);
        let mut typed = self
            .factory
            .scheme()
            .new_object(&gvk)
            .map_err(Error::internal)?;
        typed
            .decode_json(json, false)
            .map_err(|e| self.cannot_handle(e))?;
        typed.set_group_version_kind(&gvk);
        self.protobuf_encoder()?
            .encode_to_vec(typed.as_ref())
            .map_err(machinery_error)
    }

    fn decode_protobuf(&self, body: &[u8]) -> Result<Value, Error> {
        let decoded = self
            .factory
            .universal_deserializer()
            .decode(body, Some(&self.gvk()), None)
            .map_err(|e| self.cannot_handle(e))?;
        let mut v = decoded.object.to_json_value().map_err(Error::internal)?;
        if let Some(map) = v.as_object_mut() {
            map.insert(
                "apiVersion".into(),
                Value::String(decoded.gvk.api_version()),
            );
            map.insert("kind".into(), Value::String(decoded.gvk.kind.clone()));
        }
        Ok(v)
    }

    fn encode_watch_frame_protobuf(&self, kind: &str, obj: &Value) -> Result<Vec<u8>, Error> {
        let info = self
            .factory
            .serializer_for_media_type("application/vnd.kubernetes.protobuf")
            .and_then(|s| s.stream_serializer.clone())
            .ok_or_else(|| Error::internal("no protobuf stream serializer"))?;
        let stream: Arc<dyn Encoder> = info.serializer.clone();
        let encoder = WatchEncoder::new(self.protobuf_encoder()?, stream, Framing::LengthDelimited);
        let typed = self.typed(obj.clone())?;
        let mut out = Vec::new();
        encoder
            .encode_event(kind, typed.as_ref(), &mut out)
            .map_err(machinery_error)?;
        Ok(out)
    }
}
