//! Subresources that show the object as another kind (`scale` → autoscaling/v1 Scale): GET
//! answers the strategy's view; PUT and PATCH change the view and write it back into the
//! object, which then goes through the usual update path (validation, CAS, managedFields).

use super::Ctx;
use super::body::read_limited;
use super::patch::{PatchType, apply_patch, parse_patch, patch_type};
use super::read::load_existing;
use super::write::{prepare_update, store_update, validate_update};
use crate::request_info::Verb;
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use kapi_registry::meta;
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

fn view_of(ctx: &Ctx, obj: &Value) -> Result<Value, ApiError> {
    ctx.entry
        .strategy
        .view(sub(ctx), obj)
        .ok_or_else(|| ctx.not_found())
}

/// GET, PUT or PATCH of a view subresource.
pub async fn dispatch(ctx: &Ctx, body: Body) -> Response {
    let result = match ctx.info.verb {
        Verb::Get => match load_existing(ctx).await {
            Ok((obj, _)) => view_of(ctx, &obj),
            Err(e) => Err(e),
        },
        Verb::Update => write(ctx, body, None).await,
        Verb::Patch => match patch_type(ctx) {
            Ok(kind) => write(ctx, body, Some(kind)).await,
            Err(e) => Err(e),
        },
        _ => Err(ApiError::method_not_allowed()),
    };
    match result {
        Ok(view) => ctx.writer.object(&ctx.entry, StatusCode::OK, view),
        Err(e) => ctx.writer.error(e),
    }
}

/// Applies a PUT body (`patch` = `None`) or a patch to the view, then stores the object.
async fn write(ctx: &Ctx, body: Body, patch: Option<PatchType>) -> Result<Value, ApiError> {
    let bytes = read_limited(ctx, body).await?;
    let (old, mod_revision) = load_existing(ctx).await?;
    let current = view_of(ctx, &old)?;
    let view = match patch {
        None => serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::bad_request(format!("error decoding body: {e}")))?,
        Some(PatchType::Apply) => {
            let mut doc = current.clone();
            json_patch::merge(&mut doc, &parse_patch(PatchType::Apply, &bytes)?);
            doc
        }
        Some(kind) => apply_patch(kind, &parse_patch(kind, &bytes)?, &current)?,
    };
    let rv = meta::resource_version(&view).to_owned();
    if !rv.is_empty() && rv != mod_revision.to_string() {
        return Err(ApiError::conflict_modified(
            &ctx.entry.group,
            &ctx.entry.names.plural,
            ctx.name(),
        ));
    }
    let mut obj = old.clone();
    if let Err(causes) = ctx.entry.strategy.apply_view(sub(ctx), &mut obj, &view) {
        return Err(ApiError::invalid(
            "autoscaling",
            "Scale",
            ctx.name(),
            causes,
        ));
    }
    prepare_update(ctx, &mut obj, &old);
    ctx.record_update(&mut obj, Some(&old));
    validate_update(ctx, &obj, &old)?;
    let stored = store_update(ctx, obj, &old, mod_revision).await?;
    view_of(ctx, &stored)
}
