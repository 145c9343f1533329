//! Subresources that show the object as another kind (`scale` → autoscaling/v1 Scale): GET
//! answers the strategy's view; PUT and PATCH change the view and write it back into the
//! object inside the REST store's guaranteed-update loop (so validation, the Scale's
//! resourceVersion as a precondition, CAS retries and managedFields apply as to any update).
//! A PUT body is negotiated and field-validated like any other body.

use super::Ctx;
use super::body::{read_limited, validated};
use super::patch::patch_type;
use crate::negotiate::{Media, negotiate_input};
use crate::request_info::Verb;
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use kapi_machinery::runtime::Object;
use kapi_registry::Error;
use kapi_registry::meta;
use kapi_registry::patch::{PatchType, apply_patch, parse_patch};
use kapi_registry::rest::UpdateFn;
use kapi_registry::rest::options::{WriteOptions, WriteVerb};
use serde_json::Value;

/// Whether the request addresses a view subresource of its entry.
pub fn applies(ctx: &Ctx) -> bool {
    ctx.info
        .subresource
        .as_deref()
        .is_some_and(|s| ctx.entry.strategy.has_view(s))
}

fn sub(ctx: &Ctx) -> &str {
    ctx.info.subresource.as_deref().unwrap_or("")
}

fn view_of(ctx: &Ctx, obj: &Value) -> Result<Value, Error> {
    ctx.entry
        .strategy
        .view(sub(ctx), obj)
        .ok_or_else(|| ctx.rest().not_found(ctx.name()))
}

/// GET, PUT or PATCH of a view subresource.
pub async fn dispatch(ctx: &Ctx, body: Body) -> Response {
    let result = match ctx.info.verb {
        Verb::Get => match ctx.rest().get_existing(ctx.namespace(), ctx.name()).await {
            Ok(stored) => view_of(ctx, &stored.object)
                .map(|v| (v, Vec::new()))
                .map_err(ApiError::from),
            Err(e) => Err(e.into()),
        },
        Verb::Update => write(ctx, body, None).await,
        Verb::Patch => match patch_type(ctx) {
            Ok(kind) => write(ctx, body, Some(kind)).await,
            Err(e) => Err(e.into()),
        },
        _ => Err(ApiError::method_not_allowed()),
    };
    match result {
        Ok((view, warnings)) => super::write::respond(ctx, StatusCode::OK, view, &warnings),
        Err(e) => ctx.writer.error(e),
    }
}

/// Unknown and duplicate fields of a Scale body, as the typed autoscaling/v1 Scale decodes
/// it strictly.
fn scale_field_problems(json: &[u8]) -> Vec<String> {
    let mut scale = kapi_api::autoscaling::v1::Scale::default();
    match scale.decode_json(json, true) {
        Ok(problems) => problems,
        Err(e) => e
            .as_strict_decoding()
            .map(|s| s.errors.clone())
            .unwrap_or_default(),
    }
}

/// A PUT body as a Scale: negotiated (JSON or YAML), malformed input 400, field validation.
fn decode_view_body(
    ctx: &Ctx,
    bytes: &[u8],
    opts: &WriteOptions,
) -> Result<(Value, Vec<String>), ApiError> {
    let content_type = ctx.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let media = negotiate_input(content_type, false)?;
    let bad = |e: String| {
        ApiError::bad_request(format!(
            "the object provided is unrecognized (must be of type Scale): {e}"
        ))
    };
    let view: Value = match media {
        Media::Yaml => {
            let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
            serde_saphyr::from_str(text).map_err(|e| bad(e.to_string()))?
        }
        _ => serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?,
    };
    let json = serde_json::to_vec(&view).map_err(ApiError::internal)?;
    let problems = scale_field_problems(if media == Media::Json { bytes } else { &json });
    let decoded = validated(ctx, view, problems, opts.field_validation)?;
    Ok((decoded.obj, decoded.warnings))
}

/// Applies a PUT body (`patch` = `None`) or a patch to the view, then stores the object.
async fn write(
    ctx: &Ctx,
    body: Body,
    patch: Option<PatchType>,
) -> Result<(Value, Vec<String>), ApiError> {
    let verb = if patch.is_some() {
        WriteVerb::Patch
    } else {
        WriteVerb::Update
    };
    let opts = WriteOptions::from_query(&ctx.query.0, verb)?;
    if let Some(kind) = patch {
        opts.validate_patch(kind == PatchType::Apply)?;
    }
    let bytes = read_limited(ctx, body).await?;
    let (given, warnings) = match patch {
        None => decode_view_body(ctx, &bytes, &opts)?,
        Some(kind) => (parse_patch(kind, &bytes)?, Vec::new()),
    };
    let mut info = UpdateFn::new(|current: Option<&Value>| {
        let current = current.ok_or_else(|| ctx.rest().not_found(ctx.name()))?;
        let now = view_of(ctx, current)?;
        let view = match patch {
            None => given.clone(),
            Some(PatchType::Apply) => {
                let mut doc = now;
                json_patch::merge(&mut doc, &given);
                doc
            }
            Some(kind) => apply_patch(kind, &given, &now)?,
        };
        let mut obj = current.clone();
        ctx.entry
            .strategy
            .apply_view(sub(ctx), &mut obj, &view)
            .map_err(|causes| Error::invalid("autoscaling", "Scale", ctx.name(), causes))?;
        // The Scale's resourceVersion is a precondition on the object (R8.17).
        let rv = meta::resource_version(&view);
        if !rv.is_empty() {
            meta::set_meta(
                &mut obj,
                "resourceVersion",
                Some(Value::String(rv.to_owned())),
            );
        }
        Ok(obj)
    });
    let updated = ctx
        .rest()
        .update(&ctx.write_context(&opts), ctx.name(), &mut info)
        .await?;
    Ok((view_of(ctx, &updated.object)?, warnings))
}
