//! Request bodies: the 3 MiB limit (413), decoding by Content-Type (415 otherwise),
//! malformed input (400), apiVersion/kind against the URL (400) and field validation
//! (Strict / Warn / Ignore, R6.13, goldens `error-400-*.json`, `warn-header.txt`).

use super::Ctx;
use crate::negotiate::{Media, negotiate_input};
use crate::status::ApiError;
use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use kapi_registry::json_dups::parse_with_duplicates;
use kapi_registry::meta;
use kapi_registry::rest::options::FieldValidation;
use serde_json::Value;

/// kube-apiserver's default maximum request body (`--max-request-bytes` is 3 MiB).
pub const MAX_BODY_BYTES: usize = 3 * 1024 * 1024;

/// How much of an oversized body is read and dropped so that the client, still sending,
/// receives the 413 instead of a reset connection.
const DRAIN_LIMIT: usize = 64 * 1024 * 1024;

/// Reads the whole body, refusing more than [`MAX_BODY_BYTES`] with 413.
pub async fn read_limited(_ctx: &Ctx, mut body: Body) -> Result<Bytes, ApiError> {
    use http_body_util::BodyExt;
    let mut buf = Vec::new();
    let mut seen = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| ApiError::bad_request(format!("reading the body: {e}")))?;
        let Some(data) = frame.data_ref() else {
            continue;
        };
        seen += data.len();
        if seen <= MAX_BODY_BYTES {
            buf.extend_from_slice(data);
        } else if seen > DRAIN_LIMIT {
            break;
        }
    }
    if seen > MAX_BODY_BYTES {
        return Err(ApiError::too_large(MAX_BODY_BYTES));
    }
    Ok(Bytes::from(buf))
}

/// A decoded body with what field validation found.
pub struct Decoded {
    /// The object.
    pub obj: Value,
    /// Warnings to send as `Warning` headers.
    pub warnings: Vec<String>,
}

/// The first 30 bytes of a body for error messages (Go's `summarizeData`).
fn summarize(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(30)];
    match std::str::from_utf8(head) {
        Ok(s) if bytes.len() > 30 => format!("{s} ..."),
        Ok(s) => s.to_owned(),
        Err(_) => head.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

/// Parses the body by media type.
fn parse(ctx: &Ctx, media: Media, bytes: &[u8]) -> Result<Value, ApiError> {
    let kind = &ctx.entry.names.kind;
    let unrecognized = |err: String| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {kind}): couldn't get version/kind; json parse error: {err} ({})",
            summarize(bytes)
        ))
    };
    match media {
        Media::Json => parse_with_duplicates(bytes)
            .map(|(v, _)| v)
            .map_err(|e| unrecognized(e.to_string())),
        Media::Yaml => {
            let text = std::str::from_utf8(bytes).map_err(|e| unrecognized(e.to_string()))?;
            serde_saphyr::from_str(text).map_err(|e| unrecognized(e.to_string()))
        }
        Media::Protobuf => ctx
            .entry
            .codec
            .decode_protobuf(bytes)
            .map_err(ApiError::from),
    }
}

/// Checks `apiVersion`/`kind` of the body against the URL; fills them when absent.
fn check_type(ctx: &Ctx, obj: &mut Value) -> Result<(), ApiError> {
    let e = &ctx.entry;
    let want_av = e.api_version();
    let kind = meta::top_str(obj, "kind").to_owned();
    let av = meta::top_str(obj, "apiVersion").to_owned();
    let version = av.rsplit('/').next().unwrap_or("").to_owned();
    if let Some(err) = e.codec.check_type(&kind, &av) {
        return Err(err.into());
    }
    if (!kind.is_empty() && kind != e.names.kind) || (!av.is_empty() && av != want_av) {
        let internal_group = if e.group.is_empty() {
            "core"
        } else {
            e.group.split('.').next().unwrap_or("")
        };
        let shown_kind = if kind.is_empty() {
            &e.names.kind
        } else {
            &kind
        };
        return Err(ApiError::bad_request(format!(
            "{shown_kind} in version \"{version}\" cannot be handled as a {}: converting ({version}.{shown_kind}) to ({internal_group}.{}): unknown conversion",
            e.names.kind, e.names.kind
        )));
    }
    if let Some(map) = obj.as_object_mut() {
        map.insert("apiVersion".into(), Value::String(want_av));
        map.insert("kind".into(), Value::String(e.names.kind.clone()));
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type {}): couldn't get version/kind; json parse error: not an object",
            e.names.kind
        )))
    }
}

/// Reads, decodes and validates a write body.
pub async fn decode_body(
    ctx: &Ctx,
    body: Body,
    mode: FieldValidation,
) -> Result<Decoded, ApiError> {
    let content_type = ctx.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let media = negotiate_input(content_type, ctx.entry.codec.supports_protobuf())?;
    let bytes = read_limited(ctx, body).await?;
    let obj = parse(ctx, media, &bytes)?;
    let problems = match media {
        Media::Json => ctx.entry.codec.field_problems(&bytes),
        Media::Yaml => serde_json::to_vec(&obj)
            .map(|json| ctx.entry.codec.field_problems(&json))
            .unwrap_or_default(),
        Media::Protobuf => Vec::new(),
    };
    let mut obj = obj;
    check_type(ctx, &mut obj)?;
    let obj = ctx.entry.codec.normalize(obj)?;
    Ok(validated(ctx, obj, problems, mode)?)
}

/// Applies the field-validation mode to what decoding found: Strict fails with 400,
/// Warn turns problems into warnings, Ignore drops them.
pub fn validated(
    ctx: &Ctx,
    obj: Value,
    problems: Vec<String>,
    mode: FieldValidation,
) -> Result<Decoded, kapi_registry::Error> {
    match mode {
        FieldValidation::Strict if !problems.is_empty() => {
            let version = &ctx.entry.version;
            let kind = &ctx.entry.names.kind;
            Err(kapi_registry::Error::bad_request(format!(
                "{kind} in version \"{version}\" cannot be handled as a {kind}: strict decoding error: {}",
                problems.join(", ")
            )))
        }
        FieldValidation::Strict | FieldValidation::Warn => Ok(Decoded {
            obj,
            warnings: problems,
        }),
        FieldValidation::Ignore => Ok(Decoded {
            obj,
            warnings: Vec::new(),
        }),
    }
}

/// Adds `Warning: 299 - "<text>"` headers.
pub fn add_warnings(resp: &mut axum::response::Response, warnings: &[String]) {
    for w in warnings {
        let text = format!("299 - {}", serde_json::Value::String(w.clone()));
        if let Ok(v) = axum::http::HeaderValue::from_str(&text) {
            resp.headers_mut().append("warning", v);
        }
    }
}

/// Reads the body of a subresource POST that carries an object of its own `kind` (an
/// Eviction, a TokenRequest) as JSON, YAML or protobuf (kubectl sends `create token`'s in
/// protobuf); 400 with upstream's wording otherwise.
pub async fn read_kind(ctx: &Ctx, body: Body, kind: &str) -> Result<Value, ApiError> {
    let content_type = ctx.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let media = negotiate_input(content_type, ctx.entry.codec.supports_protobuf())?;
    let bytes = read_limited(ctx, body).await?;
    let parsed: Result<Value, String> = match media {
        // The envelope names the kind; the entry's scheme codec decodes any kind it knows.
        Media::Protobuf => ctx
            .entry
            .codec
            .decode_protobuf(&bytes)
            .map_err(|e| e.to_string()),
        Media::Yaml => std::str::from_utf8(&bytes)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_saphyr::from_str(t).map_err(|e| e.to_string())),
        _ => serde_json::from_slice(&bytes).map_err(|e| e.to_string()),
    };
    let obj = parsed.map_err(|e| {
        kapi_registry::Error::bad_request(format!(
            "{kind} in version \"v1\" cannot be handled as a {kind}: {e}"
        ))
    })?;
    // Clients that leave the kind out (the Python client) mean the subresource's own.
    let found = meta::top_str(&obj, "kind");
    if !found.is_empty() && found != kind {
        return Err(
            kapi_registry::Error::bad_request(format!("not a {kind} object: {found}")).into(),
        );
    }
    if !obj.is_object() {
        return Err(kapi_registry::Error::bad_request(format!("not a {kind} object")).into());
    }
    Ok(obj)
}
