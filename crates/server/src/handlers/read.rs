//! GET of one object (and of its `status` subresource).

use super::Ctx;
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

/// GET `…/NAME` and `…/NAME/status`.
pub async fn get(ctx: &Ctx) -> Response {
    match load_existing(ctx).await {
        Ok((obj, _)) => ctx.writer.object(&ctx.entry, StatusCode::OK, obj),
        Err(e) => ctx.writer.error(e),
    }
}
