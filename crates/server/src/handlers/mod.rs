//! Generic REST handlers, written once over the registry entry: get, list, watch, create,
//! update, patch, delete, deletecollection (and the `status` subresource).

pub mod access_review;
pub mod binding;
pub mod body;
pub mod component_status;
pub mod delete;
pub mod eviction;
pub mod list;
pub mod patch;
pub mod read;
pub mod token_request;
pub mod token_review;
pub mod view;
pub mod watch;
pub mod write;

use crate::request_info::ResourceRequest;
use crate::respond::Writer;
use crate::state::ApiState;
use crate::status::ApiError;
use axum::http::HeaderMap;
use kapi_registry::entry::{RegistryTable, ResourceEntry};
use kapi_registry::rest::options::WriteOptions;
use kapi_registry::rest::{RestStore, WriteContext};
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

/// The strings of a JSON array (other items and non-arrays give none).
pub fn string_list(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .map(str::to_owned)
        .collect()
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
    /// The authenticated user.
    pub user: Option<crate::authn::User>,
    /// The check of this request's writes that depends on its user (RBAC escalation).
    pub guard: Option<kapi_registry::rest::WriteGuard>,
    /// Response writer.
    pub writer: Writer,
    /// What admission warned of while serving the request (sent as `Warning` headers).
    pub warnings: Arc<crate::admission::Warnings>,
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
        self.rest().not_found(self.name()).into()
    }

    /// The REST store of this request's entry.
    pub fn rest(&self) -> RestStore<'_> {
        RestStore::new(self.state.store.as_ref(), &self.table, &self.entry)
            .with_caches(&self.state.caches)
    }

    /// The write context of this request (namespace, subresource, manager, dryRun, the
    /// write guard and the admission webhooks).
    pub fn write_context(&self, opts: &WriteOptions) -> WriteContext {
        WriteContext {
            namespace: self.info.namespace.clone(),
            subresource: self.info.subresource.clone(),
            manager: self.manager(opts),
            dry_run: opts.dry_run,
            guard: self.guard.clone(),
            admission: Some(self.admission()),
        }
    }

    /// The admission chain of this request: the server's policies and webhooks, told its
    /// user; their warnings go to the response.
    pub fn admission(&self) -> kapi_registry::rest::admission::AdmissionChain {
        kapi_registry::rest::admission::AdmissionChain(Arc::new(
            crate::admission::RequestAdmission::new(
                self.state.clone(),
                self.user.clone(),
                self.warnings.clone(),
            ),
        ))
    }

    /// Maps a store error to a Status for the object `name`.
    pub fn store_error(&self, e: StoreError, name: &str) -> ApiError {
        self.rest().store_error(e, name).into()
    }

    /// Decodes a stored key-value into an object with its resourceVersion.
    pub async fn decode(&self, kv: &KeyValue) -> Result<Value, ApiError> {
        Ok(self.rest().decode(kv).await?)
    }

    /// Decodes the key-values of one list page (one conversion call for all of them), each
    /// with its resourceVersion.
    pub async fn decode_many(&self, kvs: &[&KeyValue]) -> Result<Vec<Value>, ApiError> {
        Ok(self.rest().decode_many(kvs).await?)
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
            user: self.user.clone(),
            guard: self.guard.clone(),
            writer: self.writer,
            warnings: self.warnings.clone(),
        }
    }

    /// The field manager of this request (`fieldManager`, else the User-Agent's product).
    pub fn manager(&self, opts: &WriteOptions) -> String {
        let ua = self
            .headers
            .get(axum::http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok());
        kapi_registry::managed_fields::manager_name(opts.field_manager.as_deref(), ua)
    }
}

/// Answers a POST that acted on another object (a Binding, an Eviction): 201 with a
/// `Success` Status, as upstream's connecters do, or the error.
pub fn created_success(ctx: &Ctx, result: Result<(), ApiError>) -> axum::response::Response {
    match result {
        Ok(()) => ctx.writer.object(
            &ctx.entry,
            axum::http::StatusCode::CREATED,
            serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Success", "code": 201}),
        ),
        Err(e) => ctx.writer.error(e),
    }
}
