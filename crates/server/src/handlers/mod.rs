//! Generic REST handlers, written once over the registry entry: get, list, watch, create,
//! update, patch, delete, deletecollection (and the `status` subresource).

pub mod body;
pub mod delete;
pub mod list;
pub mod patch;
pub mod read;
pub mod view;
pub mod watch;
pub mod write;

use crate::api::ApiState;
use crate::request_info::ResourceRequest;
use crate::respond::Writer;
use crate::status::ApiError;
use axum::http::HeaderMap;
use kapi_registry::entry::{RegistryTable, ResourceEntry};
use kapi_registry::meta;
use kapi_storage::{KeyValue, StoreError};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Query parameters (first value of each key).
#[derive(Debug, Default, Clone)]
pub struct Query(pub BTreeMap<String, String>);

impl Query {
    /// Parses a raw query string.
    pub fn parse(raw: Option<&str>) -> Self {
        let map = raw
            .map(|q| {
                form_urlencoded::parse(q.as_bytes()).into_owned().fold(
                    BTreeMap::new(),
                    |mut m, (k, v)| {
                        m.entry(k).or_insert(v);
                        m
                    },
                )
            })
            .unwrap_or_default();
        Query(map)
    }

    /// A parameter.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// A boolean parameter (`true`/`1`).
    pub fn flag(&self, key: &str) -> bool {
        matches!(self.get(key), Some("true" | "1" | "True" | "TRUE"))
    }
}

/// Everything a handler needs for one resource request.
pub struct Ctx {
    /// Shared server state.
    pub state: Arc<ApiState>,
    /// The registry snapshot the request resolved against.
    pub table: Arc<RegistryTable>,
    /// The entry serving the request.
    pub entry: Arc<ResourceEntry>,
    /// Parsed request info.
    pub info: ResourceRequest,
    /// Query parameters.
    pub query: Query,
    /// Request headers.
    pub headers: HeaderMap,
    /// Response writer.
    pub writer: Writer,
}

impl Ctx {
    /// The object name from the URL.
    pub fn name(&self) -> &str {
        self.info.name.as_deref().unwrap_or("")
    }

    /// The namespace from the URL.
    pub fn namespace(&self) -> Option<&str> {
        self.info.namespace.as_deref()
    }

    /// The storage key of the object the URL names.
    pub fn key(&self) -> String {
        self.entry.key(self.namespace(), self.name())
    }

    /// 404 for the object the URL names.
    pub fn not_found(&self) -> ApiError {
        ApiError::not_found(&self.entry.group, &self.entry.names.plural, self.name())
    }

    /// Maps a store error to a Status for the object `name`.
    pub fn store_error(&self, e: StoreError, name: &str) -> ApiError {
        let (g, r) = (&self.entry.group, &self.entry.names.plural);
        match e {
            StoreError::NotFound { .. } => ApiError::not_found(g, r, name),
            StoreError::AlreadyExists { .. } => ApiError::already_exists(g, r, name),
            StoreError::Conflict { .. } => ApiError::conflict_modified(g, r, name),
            StoreError::Compacted {
                requested,
                compacted,
            } => ApiError::expired(format!(
                "too old resource version: {requested} ({compacted})"
            )),
            StoreError::FutureRevision { requested, current } => ApiError {
                code: 504,
                reason: "Timeout",
                message: format!("Too large resource version: {requested}, current: {current}"),
                details: None,
                list_continue: String::new(),
            },
            StoreError::Unavailable(m) => ApiError::unavailable(m),
            other => ApiError::internal(other),
        }
    }

    /// Decodes a stored key-value into an object with its resourceVersion.
    pub fn decode(&self, kv: &KeyValue) -> Result<Value, ApiError> {
        let mut obj = self.entry.codec.decode_stored(&kv.value)?;
        meta::set_meta(
            &mut obj,
            "resourceVersion",
            Some(Value::String(kv.mod_revision.to_string())),
        );
        Ok(obj)
    }

    /// Decodes the key-values of one list page (one conversion call for all of them), each
    /// with its resourceVersion.
    pub fn decode_many(&self, kvs: &[&KeyValue]) -> Result<Vec<Value>, ApiError> {
        let values: Vec<&[u8]> = kvs.iter().map(|kv| kv.value.as_slice()).collect();
        let mut objs = self.entry.codec.decode_stored_many(&values)?;
        for (obj, kv) in objs.iter_mut().zip(kvs) {
            meta::set_meta(
                obj,
                "resourceVersion",
                Some(Value::String(kv.mod_revision.to_string())),
            );
        }
        Ok(objs)
    }

    /// A context for another object of the same entry (namespace, name), e.g. one item of
    /// a collection.
    pub fn for_object(&self, namespace: Option<String>, name: String) -> Ctx {
        let mut info = self.info.clone();
        info.namespace = namespace;
        info.name = (!name.is_empty()).then_some(name);
        Ctx {
            state: self.state.clone(),
            table: self.table.clone(),
            entry: self.entry.clone(),
            info,
            query: Query::default(),
            headers: self.headers.clone(),
            writer: self.writer,
        }
    }

    /// The field manager of this request (`fieldManager`, else the User-Agent's product).
    pub fn manager(&self) -> String {
        let ua = self
            .headers
            .get(axum::http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok());
        kapi_registry::managed_fields::manager_name(self.query.get("fieldManager"), ua)
    }

    /// Records this request's Update in `new`'s managedFields (`old` is `None` on create).
    pub fn record_update(&self, new: &mut Value, old: Option<&Value>) {
        let manager = self.manager();
        let api_version = self.entry.api_version();
        let w = kapi_registry::managed_fields::Writer {
            manager: &manager,
            api_version: &api_version,
            subresource: self.info.subresource.as_deref().unwrap_or(""),
        };
        kapi_registry::managed_fields::record_update(new, old, &w);
    }

    /// Whether `dryRun=All` was requested.
    pub fn dry_run(&self) -> bool {
        self.query.get("dryRun") == Some("All")
    }
}
