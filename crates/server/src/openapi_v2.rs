//! OpenAPI v2 (Swagger 2.0) at `/openapi/v2`, in JSON and in protobuf (gnostic's
//! `openapi.v2.Document`; kubectl 1.32 asks for it on the second client-side `kubectl apply`
//! of an object to find the strategic merge patch metadata). The document is derived from
//! the v3 group-version documents (`openapi::group_version_doc`), so every served kind, the
//! built-in ones and any other registry entry, appears with the same schema and extensions.

use crate::openapi::group_version_doc;
use crate::openapi_schemas::REF_PREFIX;
use crate::openapi_v2_proto as pb;
use kapi_registry::entry::RegistryTable;
use serde_json::{Map, Value, json};

/// The media type kubectl asks for.
pub const PROTOBUF_ACCEPT: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
/// The media type of a protobuf answer (kube-apiserver's spelling).
pub const PROTOBUF_CONTENT_TYPE: &str =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

const DEF_PREFIX: &str = "#/definitions/";

/// The Swagger 2.0 document of everything served.
pub fn document(table: &RegistryTable) -> Value {
    let mut paths = Map::new();
    let mut definitions = Map::new();
    let gvs = table
        .groups()
        .into_iter()
        .flat_map(|(g, vs)| vs.into_iter().map(move |v| (g.clone(), v)));
    for (group, version) in gvs {
        let Some(doc) = group_version_doc(table, &group, &version) else {
            continue;
        };
        if let Some(schemas) = doc["components"]["schemas"].as_object() {
            for (name, schema) in schemas {
                definitions.insert(name.clone(), schema_v2(schema));
            }
        }
        if let Some(p) = doc["paths"].as_object() {
            for (path, item) in p {
                paths.insert(path.clone(), path_item_v2(item));
            }
        }
    }
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": format!("v1.{}.0", crate::health::KUBE_MINOR)},
        "paths": paths,
        "definitions": definitions,
    })
}

/// A v3 schema rewritten for v2: `allOf: [{$ref}]` becomes a plain `$ref` (kube-apiserver's
/// v2 shape), references point into `#/definitions/`.
pub fn schema_v2(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            let single_ref = map
                .get("allOf")
                .and_then(Value::as_array)
                .filter(|all| all.len() == 1)
                .and_then(|all| all[0].get("$ref"))
                .and_then(Value::as_str);
            for (k, v) in map {
                match (k.as_str(), single_ref) {
                    ("allOf", Some(r)) => {
                        out.insert("$ref".into(), json!(rewrite_ref(r)));
                    }
                    ("default", Some(_)) => {}
                    ("$ref", _) => {
                        out.insert(k.clone(), json!(v.as_str().map(rewrite_ref)));
                    }
                    _ => {
                        out.insert(k.clone(), schema_v2(v));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(schema_v2).collect()),
        other => other.clone(),
    }
}

fn rewrite_ref(r: &str) -> String {
    match r.strip_prefix(REF_PREFIX) {
        Some(name) => format!("{DEF_PREFIX}{name}"),
        None => r.to_owned(),
    }
}

/// A v3 path item rewritten for v2: query parameters typed inline, the JSON response schema
/// under `responses.<code>.schema`.
fn path_item_v2(item: &Value) -> Value {
    let Some(ops) = item.as_object() else {
        return item.clone();
    };
    let mut out = Map::new();
    for (method, op) in ops {
        let mut op = op.clone();
        if let Some(params) = op.get_mut("parameters").and_then(Value::as_array_mut) {
            for p in params.iter_mut() {
                if let Some(Value::Object(schema)) =
                    p.as_object_mut().and_then(|m| m.remove("schema"))
                {
                    for (k, v) in schema {
                        p[k] = v;
                    }
                }
            }
        }
        if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
            for response in responses.values_mut() {
                let schema = response["content"]["application/json"]["schema"].clone();
                if let Some(r) = response.as_object_mut() {
                    r.remove("content");
                    if !schema.is_null() {
                        r.insert("schema".into(), schema_v2(&schema));
                    }
                }
            }
        }
        op["consumes"] = json!([
            "application/json",
            "application/yaml",
            "application/vnd.kubernetes.protobuf"
        ]);
        op["produces"] = json!([
            "application/json",
            "application/yaml",
            "application/vnd.kubernetes.protobuf"
        ]);
        op["schemes"] = json!(["https"]);
        out.insert(method.clone(), op);
    }
    Value::Object(out)
}

/// The document as gnostic's `openapi.v2.Document`, protobuf-encoded.
pub fn protobuf(doc: &Value) -> Vec<u8> {
    prost::Message::encode_to_vec(&pb::document(doc))
}

/// `GET /openapi/v2`: protobuf when the client asks for gnostic's media type, else JSON.
pub async fn serve(
    axum::extract::State(state): axum::extract::State<std::sync::Arc<crate::state::ApiState>>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    let accept = headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let wants_protobuf = accept.contains(PROTOBUF_ACCEPT) || accept.contains(PROTOBUF_CONTENT_TYPE);
    let docs = crate::openapi_cache::documents(&state.registry.snapshot());
    let (content_type, body) = if wants_protobuf {
        (PROTOBUF_CONTENT_TYPE, docs.v2_protobuf.clone())
    } else {
        ("application/json", docs.v2_json.clone())
    };
    let etag = format!("\"{}\"", crate::openapi::hash(&body));
    axum::response::Response::builder()
        .status(axum::http::StatusCode::OK)
        .header(axum::http::header::CONTENT_TYPE, content_type)
        .header(axum::http::header::ETAG, etag)
        .header(axum::http::header::VARY, "Accept")
        .body(axum::body::Body::from(body))
        .unwrap_or_default()
}
