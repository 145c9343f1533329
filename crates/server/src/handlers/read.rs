//! GET of one object (and of its `status` subresource).

use super::Ctx;
use crate::negotiate::{Media, Transform};
use crate::respond::bytes_response;
use axum::http::StatusCode;
use axum::response::Response;

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
        return match ctx.decode(&kv).await {
            Ok(obj) => ctx.writer.object(&ctx.entry, StatusCode::OK, obj),
            Err(e) => ctx.writer.error(e),
        };
    }
    match ctx.rest().get_existing(ctx.namespace(), ctx.name()).await {
        Ok(stored) => ctx.writer.object(&ctx.entry, StatusCode::OK, stored.object),
        Err(e) => ctx.writer.error(e),
    }
}
