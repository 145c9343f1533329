//! `POST tokenreviews`: whether a bearer token authenticates, and as whom — what
//! webhook-authenticating proxies and aggregated API servers ask (`system:auth-delegator`).
//! The token goes through the server's own token authenticators (token files, then
//! ServiceAccount tokens) for the `spec.audiences` asked (the API's by default). The
//! answer is 201 with `status` filled; nothing is stored.

use super::Ctx;
use super::body::{Decoded, decode_body};
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use kapi_registry::Error;
use kapi_registry::rest::options::{WriteOptions, WriteVerb};
use serde_json::{Value, json};

/// Whether the request is a TokenReview.
pub fn applies(ctx: &Ctx) -> bool {
    ctx.entry.group == "authentication.k8s.io" && ctx.entry.names.plural == "tokenreviews"
}

/// POST of a TokenReview.
pub async fn create(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = WriteOptions::from_query(&ctx.query.0, WriteVerb::Create)?;
        let Decoded { obj, .. } = decode_body(ctx, body, opts.field_validation).await?;
        review(ctx, obj).await
    }
    .await;
    match result {
        Ok(obj) => ctx.writer.object(&ctx.entry, StatusCode::CREATED, obj),
        Err(e) => ctx.writer.error(e),
    }
}

async fn review(ctx: &Ctx, mut obj: Value) -> Result<Value, ApiError> {
    let spec = obj.get("spec").cloned().unwrap_or_else(|| json!({}));
    let token = spec["token"].as_str().unwrap_or_default();
    if token.is_empty() {
        return Err(
            Error::bad_request("token is required for TokenReview in authentication").into(),
        );
    }
    let audiences = super::string_list(&spec["audiences"]);
    let wanted = (!audiences.is_empty()).then_some(audiences.as_slice());
    let answer = ctx
        .state
        .authenticator
        .authenticate_token(&ctx.state, token, wanted)
        .await;
    let status = match answer {
        Ok(Some((user, auds))) => {
            json!({"authenticated": true, "user": user.info_json(), "audiences": auds})
        }
        Ok(None) => json!({"user": {}}),
        Err(why) => json!({"user": {}, "error": why}),
    };
    obj["status"] = status;
    Ok(obj)
}
