//! GET of one object (and of its `status` subresource).

use super::Ctx;
use crate::negotiate::{Media, Transform};
use crate::respond::bytes_response;
use crate::status::ApiError;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;

/// Loads the object the URL names: `Ok(None)` when it does not exist.
pub async fn load(ctx: &Ctx) -> Result<Option<(Value, i64)>, ApiError> {
    let kv = ctx
        .state
        .store
        .get(ctx.key().as_bytes(), None)
        .await
        .map_err(|e| ctx.store_error(e, ctx.name()))?;
    match kv {
        Some(kv) => Ok(Some((ctx.decode(&kv)?, kv.mod_revision))),
        None => Ok(None),
    }
}

/// Loads the object the URL names, or 404.
pub async fn load_existing(ctx: &Ctx) -> Result<(Value, i64), ApiError> {
    load(ctx).await?.ok_or_else(|| ctx.not_found())
}

/// GET `…/NAME` and `…/NAME/status`. Plain JSON answers the stored bytes with the
/// resourceVersion spliced in when the codec allows it.
pub async fn get(ctx: &Ctx) -> Response {
    let w = ctx.writer;
    if w.output.media == Media::Json && w.output.transform == Transform::None && !w.pretty {
        let kv = match ctx.state.store.get(ctx.key().as_bytes(), None).await {
            Ok(Some(kv)) => kv,
            Ok(None) => return ctx.writer.error(ctx.not_found()),
            Err(e) => return ctx.writer.error(ctx.store_error(e, ctx.name())),
        };
        if let Some(mut body) = ctx
            .entry
            .codec
            .stored_json_with_resource_version(&kv.value, kv.mod_revision)
        {
            body.push(b'\n');
            return bytes_response(StatusCode::OK, "application/json", body);
        }
        return match ctx.decode(&kv) {
            Ok(obj) => ctx.writer.object(&ctx.entry, StatusCode::OK, obj),
            Err(e) => ctx.writer.error(e),
        };
    }
    match load_existing(ctx).await {
        Ok((obj, _)) => ctx.writer.object(&ctx.entry, StatusCode::OK, obj),
        Err(e) => ctx.writer.error(e),
    }
}
