//! The `/api` and `/apis` tree: each request is parsed into a request info, resolved against
//! the current registry snapshot, then handed to a generic handler (or a discovery document).

use crate::discovery::{self, DiscoveryFormat};
use crate::handlers::{self, Ctx, Query};
use crate::negotiate::{is_pretty, negotiate_output};
use crate::request_info::{self, DiscoveryPath, RequestInfo, ResourceRequest, Verb};
use crate::respond::{Writer, bytes_response, encode_text};
use crate::state::ApiState;
use crate::status::ApiError;
use axum::extract::{Request, State};
use axum::http::header::{ACCEPT, IF_NONE_MATCH, USER_AGENT};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// Plain `404 page not found` for paths nothing serves (R8.28).
pub fn page_not_found() -> Response {
    bytes_response(
        StatusCode::NOT_FOUND,
        "text/plain; charset=utf-8",
        b"404 page not found\n".to_vec(),
    )
}

/// Entry point for every `/api…` and `/apis…` request.
pub async fn serve(State(state): State<Arc<ApiState>>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let query = Query::parse(parts.uri.query());
    let watch = query.flag("watch");
    let Some(info) = request_info::parse(&parts.method, parts.uri.path(), watch) else {
        return page_not_found();
    };
    match info {
        RequestInfo::Discovery(path) => {
            if parts.method != axum::http::Method::GET {
                return ApiError::method_not_allowed().into_response();
            }
            serve_discovery(&state, &parts.headers, path)
        }
        RequestInfo::Resource(info) => {
            state.metrics.inflight(1);
            let verb = info.verb;
            let (group, resource) = (info.group.clone(), info.resource.clone());
            let user = parts.extensions.get::<crate::authn::User>().cloned();
            let resp = serve_resource(state.clone(), info, query, parts.headers, user, body).await;
            state.metrics.inflight(-1);
            state
                .metrics
                .record(verb.as_str(), &group, &resource, resp.status().as_u16());
            resp
        }
    }
}

fn serve_discovery(state: &ApiState, headers: &HeaderMap, path: DiscoveryPath) -> Response {
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok());
    let table = state.registry.snapshot();
    let doc = match (&path, discovery::negotiate(accept)) {
        (_, Err(e)) => return e.into_response(),
        (DiscoveryPath::Api, Ok(DiscoveryFormat::Aggregated(v))) => {
            return aggregated(headers, discovery::aggregated(&table, true, v), v);
        }
        (DiscoveryPath::Apis, Ok(DiscoveryFormat::Aggregated(v))) => {
            return aggregated(headers, discovery::aggregated(&table, false, v), v);
        }
        (DiscoveryPath::Api, _) => Some(discovery::api_versions(&state.server_address)),
        (DiscoveryPath::Apis, _) => Some(discovery::api_group_list(&table)),
        (DiscoveryPath::Group(g), _) => discovery::api_group(&table, g),
        (DiscoveryPath::ApiVersion(v), _) => discovery::resource_list(&table, "", v),
        (DiscoveryPath::GroupVersion(g, v), _) => discovery::resource_list(&table, g, v),
    };
    match doc.map(|d| encode_text(&d, crate::negotiate::Media::Json, false)) {
        Some(Ok(body)) => bytes_response(StatusCode::OK, "application/json", body),
        Some(Err(e)) => e.into_response(),
        None => page_not_found(),
    }
}

fn aggregated(headers: &HeaderMap, doc: serde_json::Value, version: &str) -> Response {
    let body = match encode_text(&doc, crate::negotiate::Media::Json, false) {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    let etag = discovery::etag(&body);
    let content_type =
        format!("application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList");
    let not_modified = headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v == etag);
    let mut resp = if not_modified {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        bytes_response(StatusCode::OK, &content_type, body)
    };
    if let Ok(v) = HeaderValue::from_str(&etag) {
        resp.headers_mut().insert("etag", v);
    }
    resp.headers_mut()
        .insert("vary", HeaderValue::from_static("Accept"));
    resp
}

/// Resolves a resource request against the registry and dispatches it.
async fn serve_resource(
    state: Arc<ApiState>,
    info: ResourceRequest,
    query: Query,
    headers: HeaderMap,
    user: Option<crate::authn::User>,
    body: axum::body::Body,
) -> Response {
    let table = state.registry.snapshot();
    let Some(entry) = table
        .get(&info.group, &info.version, &info.resource)
        .cloned()
    else {
        return page_not_found();
    };
    let scoped_ok = match (entry.namespaced(), &info.namespace, &info.name) {
        (false, Some(_), _) => false,
        (true, None, Some(_)) => false,
        (true, None, None) => matches!(info.verb, Verb::List | Verb::Watch),
        _ => true,
    };
    if !scoped_ok {
        return page_not_found();
    }
    if let Some(sub) = &info.subresource
        && entry.subresource(sub).is_none()
    {
        return page_not_found();
    }
    if !verb_allowed(&entry, &info) {
        return ApiError::method_not_allowed().into_response();
    }
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok());
    let output = match negotiate_output(accept, entry.codec.supports_protobuf()) {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    let ua = headers.get(USER_AGENT).and_then(|v| v.to_str().ok());
    let pretty = is_pretty(query.get("pretty"), accept, ua);
    let warnings = entry.strategy.warnings();
    // Writes of RBAC objects are checked for escalation as the user's own.
    let guard = match (&user, info.verb) {
        (Some(u), Verb::Create | Verb::Update | Verb::Patch)
            if entry.group == "rbac.authorization.k8s.io" =>
        {
            let ns = info.namespace.clone().unwrap_or_default();
            match state
                .authorizer
                .escalation_guard(&state, u, &entry.names.plural, &ns)
                .await
            {
                Ok(g) => g,
                Err(e) => return e.into_response(),
            }
        }
        _ => None,
    };
    let admission_warnings = crate::admission::Warnings::new();
    let ctx = Ctx {
        state,
        table,
        entry,
        info,
        query,
        headers,
        user,
        guard,
        writer: Writer { output, pretty },
        warnings: admission_warnings.clone(),
    };
    let mut resp = dispatch(ctx, body).await;
    handlers::body::add_warnings(&mut resp, &admission_warnings.list());
    prepend_warnings(&mut resp, &warnings);
    resp
}

/// Puts the entry's warnings (a deprecated version, R5.7) before the handler's own.
fn prepend_warnings(resp: &mut Response, warnings: &[String]) {
    if warnings.is_empty() {
        return;
    }
    let later: Vec<_> = match resp.headers_mut().entry("warning") {
        axum::http::header::Entry::Occupied(e) => e.remove_entry_mult().1.collect(),
        axum::http::header::Entry::Vacant(_) => Vec::new(),
    };
    handlers::body::add_warnings(resp, warnings);
    for v in later {
        resp.headers_mut().append("warning", v);
    }
}

fn verb_allowed(entry: &kapi_registry::entry::ResourceEntry, info: &ResourceRequest) -> bool {
    let named = info.name.is_some();
    let shape_ok = match info.verb {
        // A subresource takes a POST on a named object (pods/{name}/binding).
        Verb::Create => !named || info.subresource.is_some(),
        Verb::Update | Verb::Patch => named,
        _ => true,
    };
    if !shape_ok {
        return false;
    }
    match &info.subresource {
        Some(sub) => entry
            .subresource(sub)
            .is_some_and(|s| s.verbs.iter().any(|v| v == info.verb.as_str())),
        None => entry.allows(info.verb.as_str()),
    }
}

async fn dispatch(ctx: Ctx, body: axum::body::Body) -> Response {
    if crate::storage_versions::is_served_here(&ctx.entry) {
        return crate::storage_versions::serve(&ctx).await;
    }
    if handlers::binding::applies(&ctx) {
        return match ctx.info.verb {
            Verb::Create => handlers::binding::create(&ctx, body).await,
            _ => ApiError::method_not_allowed().into_response(),
        };
    }
    if handlers::access_review::applies(&ctx) {
        return match ctx.info.verb {
            Verb::Create => handlers::access_review::create(&ctx, body).await,
            _ => ApiError::method_not_allowed().into_response(),
        };
    }
    if handlers::token_request::applies(&ctx) {
        return match ctx.info.verb {
            Verb::Create => handlers::token_request::create(&ctx, body).await,
            _ => ApiError::method_not_allowed().into_response(),
        };
    }
    if handlers::token_review::applies(&ctx) {
        return match ctx.info.verb {
            Verb::Create => handlers::token_review::create(&ctx, body).await,
            _ => ApiError::method_not_allowed().into_response(),
        };
    }
    if handlers::component_status::applies(&ctx) {
        return handlers::component_status::dispatch(&ctx).await;
    }
    if handlers::eviction::applies(&ctx) {
        return match ctx.info.verb {
            Verb::Create => handlers::eviction::create(&ctx, body).await,
            _ => ApiError::method_not_allowed().into_response(),
        };
    }
    if handlers::view::applies(&ctx) {
        return handlers::view::dispatch(&ctx, body).await;
    }
    if let Some(sub) = ctx.info.subresource.as_deref()
        && sub != "status"
        && !ctx.entry.strategy.writes_subresource(sub)
    {
        // Discovery lists every subresource upstream has; those that need a kubelet
        // (log, exec, attach, portforward, proxy) say so.
        return ApiError::not_served(format!(
            "kapi does not serve {}/{sub} (it runs no kubelet, and this subresource is not implemented yet)",
            ctx.entry.names.plural
        ))
        .into_response();
    }
    match ctx.info.verb {
        Verb::Get => handlers::read::get(&ctx).await,
        Verb::List => handlers::list::list(&ctx).await,
        Verb::Watch => handlers::watch::watch(ctx).await,
        Verb::Create => handlers::write::create(&ctx, body).await,
        Verb::Update => handlers::write::update(&ctx, body).await,
        Verb::Patch => handlers::patch::patch(&ctx, body).await,
        Verb::Delete => handlers::delete::delete(&ctx, body).await,
        Verb::DeleteCollection => handlers::delete::delete_collection(&ctx, body).await,
    }
}

/// `GET /openapi/v3`: the index of group-version documents with their hashes.
pub async fn openapi_index(State(state): State<Arc<ApiState>>) -> Response {
    let table = state.registry.snapshot();
    match encode_text(
        &crate::openapi::index(&crate::openapi_cache::documents(&table).v3),
        crate::negotiate::Media::Json,
        false,
    ) {
        Ok(body) => bytes_response(StatusCode::OK, "application/json", body),
        Err(e) => e.into_response(),
    }
}

/// `GET /openapi/v3/<api/v1|apis/G/V>?hash=…`: 301 to the current hash on a mismatch,
/// immutable caching on a match (R8.4).
pub async fn openapi_document(State(state): State<Arc<ApiState>>, req: Request) -> Response {
    let table = state.registry.snapshot();
    let path = req
        .uri()
        .path()
        .trim_start_matches("/openapi/v3/")
        .to_owned();
    let query = Query::parse(req.uri().query());
    let docs = crate::openapi_cache::documents(&table);
    let Some((_, bytes)) = docs.v3.iter().find(|(p, _)| *p == path) else {
        return page_not_found();
    };
    let hash = crate::openapi::hash(bytes);
    match query.get("hash") {
        Some(h) if h != hash => {
            let location = format!("/openapi/v3/{path}?hash={hash}");
            let mut resp = StatusCode::MOVED_PERMANENTLY.into_response();
            if let Ok(v) = HeaderValue::from_str(&location) {
                resp.headers_mut().insert("location", v);
            }
            resp
        }
        Some(_) => {
            let mut resp = bytes_response(StatusCode::OK, "application/json", bytes.clone());
            resp.headers_mut().insert(
                "cache-control",
                HeaderValue::from_static("public, immutable"),
            );
            resp
        }
        None => bytes_response(StatusCode::OK, "application/json", bytes.clone()),
    }
}
