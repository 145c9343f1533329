//! Writing objects to the client in the negotiated representation: JSON (optionally
//! pretty), YAML, protobuf through the entry's codec, and the Table /
//! PartialObjectMetadata transforms (R3.12–R3.15).

use crate::negotiate::{Media, Output, Transform};
use crate::status::ApiError;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use kapi_registry::entry::ResourceEntry;
use kapi_registry::table;
use serde_json::{Value, json};

/// How to write a response.
#[derive(Debug, Clone, Copy)]
pub struct Writer {
    /// Negotiated output.
    pub output: Output,
    /// Pretty JSON.
    pub pretty: bool,
}

/// Encodes `value` as JSON or YAML (no protobuf).
pub fn encode_text(value: &Value, media: Media, pretty: bool) -> Result<Vec<u8>, ApiError> {
    match media {
        Media::Yaml => serde_saphyr::to_string(value)
            .map(String::into_bytes)
            .map_err(ApiError::internal),
        _ => {
            let mut out = if pretty {
                serde_json::to_vec_pretty(value)
            } else {
                serde_json::to_vec(value)
            }
            .map_err(ApiError::internal)?;
            out.push(b'\n');
            Ok(out)
        }
    }
}

/// A response with a body and content type.
pub fn bytes_response(status: StatusCode, content_type: &str, body: Vec<u8>) -> Response {
    let mut resp = (status, body).into_response();
    if let Ok(v) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp
}

/// A streaming response (watch).
pub fn stream_response(status: StatusCode, content_type: &str, body: axum::body::Body) -> Response {
    let mut resp = (status, body).into_response();
    if let Ok(v) = HeaderValue::from_str(content_type) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp
}

impl Writer {
    /// The object of a watch event after the requested transform (a one-row Table for
    /// `as=Table`); objects that cannot be transformed are sent as they are.
    pub fn transform_for_watch(&self, entry: &ResourceEntry, obj: Value) -> Value {
        let fallback = obj.clone();
        let transformed = match self.output.transform {
            Transform::PartialObjectMetadataList => Ok(table::partial_object_metadata(
                &obj,
                self.output.transform_v1beta1,
            )),
            _ => self.transform_object(entry, obj),
        };
        transformed.unwrap_or(fallback)
    }

    /// Writes one object (after the transform the client asked for).
    pub fn object(&self, entry: &ResourceEntry, status: StatusCode, obj: Value) -> Response {
        match self.transform_object(entry, obj) {
            Ok(v) => self.encode(entry, status, v),
            Err(e) => self.error(e),
        }
    }

    /// Writes a list (`items` never null, R3.14).
    pub fn list(&self, entry: &ResourceEntry, items: Vec<Value>, list_meta: Value) -> Response {
        let v = match self.output.transform {
            Transform::Table => Ok(table::to_table(
                entry.table.as_ref(),
                &items,
                list_meta,
                self.output.transform_v1beta1,
                "Metadata",
            )),
            Transform::PartialObjectMetadata => Err(ApiError::not_acceptable_msg(
                "you requested PartialObjectMetadata, but the requested object is a list (*v1.PartialObjectMetadataList)",
            )),
            Transform::PartialObjectMetadataList => {
                let partial = items
                    .iter()
                    .map(|o| table::partial_object_metadata(o, self.output.transform_v1beta1))
                    .collect();
                Ok(table::object(vec![
                    ("kind", Value::from("PartialObjectMetadataList")),
                    ("apiVersion", Value::from(self.meta_api_version())),
                    ("metadata", list_meta),
                    ("items", Value::Array(partial)),
                ]))
            }
            Transform::None => Ok(table::object(vec![
                ("kind", Value::from(entry.names.list_kind.as_str())),
                ("apiVersion", Value::from(entry.api_version())),
                ("metadata", list_meta),
                ("items", Value::Array(items)),
            ])),
        };
        match v {
            Ok(v) => self.encode(entry, StatusCode::OK, v),
            Err(e) => self.error(e),
        }
    }

    fn meta_api_version(&self) -> &'static str {
        if self.output.transform_v1beta1 {
            "meta.k8s.io/v1beta1"
        } else {
            "meta.k8s.io/v1"
        }
    }

    fn transform_object(&self, entry: &ResourceEntry, obj: Value) -> Result<Value, ApiError> {
        // A Status result is never transformed (R3.12).
        if obj.get("kind").and_then(Value::as_str) == Some("Status") {
            return Ok(obj);
        }
        match self.output.transform {
            Transform::None => Ok(obj),
            Transform::Table => {
                let rv = kapi_registry::meta::resource_version(&obj).to_owned();
                Ok(table::to_table(
                    entry.table.as_ref(),
                    &[obj],
                    json!({"resourceVersion": rv}),
                    self.output.transform_v1beta1,
                    "Metadata",
                ))
            }
            Transform::PartialObjectMetadata => Ok(table::partial_object_metadata(
                &obj,
                self.output.transform_v1beta1,
            )),
            Transform::PartialObjectMetadataList => Err(ApiError::not_acceptable_msg(
                "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.PartialObjectMetadata)",
            )),
        }
    }

    /// Encodes a value in the negotiated media type.
    pub fn encode(&self, entry: &ResourceEntry, status: StatusCode, v: Value) -> Response {
        let media = self.output.media;
        let body = match media {
            Media::Protobuf => entry.codec.encode_protobuf(v).map_err(ApiError::from),
            _ => encode_text(&v, media, self.pretty),
        };
        match body {
            Ok(b) => bytes_response(status, media.as_str(), b),
            Err(e) => e.into_response(),
        }
    }

    /// Writes an error Status (JSON; YAML when YAML was negotiated).
    pub fn error(&self, e: impl Into<ApiError>) -> Response {
        e.into().into_response()
    }
}
