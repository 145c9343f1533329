//! POST (create) and PUT (update, also of `status` and other object subresources): decode
//! the body, then the REST store's create or its guaranteed-update loop.

use super::Ctx;
use super::body::{Decoded, add_warnings, decode_body};
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use kapi_registry::rest::UpdateFn;
use kapi_registry::rest::options::{WriteOptions, WriteVerb};

/// A response with the object and the decoding warnings.
pub fn respond(
    ctx: &Ctx,
    status: StatusCode,
    obj: serde_json::Value,
    warnings: &[String],
) -> Response {
    let mut resp = ctx.writer.object(&ctx.entry, status, obj);
    add_warnings(&mut resp, warnings);
    resp
}

/// 201 when an update created the object (apply, create-on-update kinds), else 200.
pub fn update_status(updated: &kapi_registry::rest::Updated) -> StatusCode {
    if updated.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    }
}

/// POST to a collection.
pub async fn create(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = WriteOptions::from_query(&ctx.query.0, WriteVerb::Create)?;
        let Decoded { mut obj, warnings } = decode_body(ctx, body, opts.field_validation).await?;
        stamp_requester(ctx, &mut obj);
        let created = ctx.rest().create(&ctx.write_context(&opts), obj).await?;
        Ok::<_, ApiError>((created, warnings))
    }
    .await;
    match result {
        Ok((obj, warnings)) => respond(ctx, StatusCode::CREATED, obj, &warnings),
        Err(e) => ctx.writer.error(e),
    }
}

/// A CertificateSigningRequest names who asked for it: its `spec.username`, `uid`,
/// `groups` and `extra` are the requesting user's, whatever the body said (upstream's
/// `PrepareForCreate`), so that approvers and signers can trust them.
fn stamp_requester(ctx: &Ctx, obj: &mut serde_json::Value) {
    if ctx.entry.group != "certificates.k8s.io"
        || ctx.entry.names.plural != "certificatesigningrequests"
    {
        return;
    }
    let Some(spec) = obj
        .get_mut("spec")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return;
    };
    for field in ["username", "uid", "groups", "extra"] {
        spec.remove(field);
    }
    let Some(user) = &ctx.user else {
        return;
    };
    spec.insert("username".into(), user.name.clone().into());
    if !user.uid.is_empty() {
        spec.insert("uid".into(), user.uid.clone().into());
    }
    spec.insert("groups".into(), serde_json::json!(user.groups));
    if !user.extra.is_empty() {
        spec.insert("extra".into(), serde_json::json!(user.extra));
    }
}

/// PUT of an object or its `status`: the body replaces the stored object (its
/// resourceVersion, when given, is a precondition).
pub async fn update(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = WriteOptions::from_query(&ctx.query.0, WriteVerb::Update)?;
        let Decoded { obj, warnings } = decode_body(ctx, body, opts.field_validation).await?;
        let mut info = UpdateFn::new(move |_current: Option<&serde_json::Value>| Ok(obj.clone()));
        let updated = ctx
            .rest()
            .update(&ctx.write_context(&opts), ctx.name(), &mut info)
            .await?;
        Ok::<_, ApiError>((update_status(&updated), updated.object, warnings))
    }
    .await;
    match result {
        Ok((status, obj, warnings)) => respond(ctx, status, obj, &warnings),
        Err(e) => ctx.writer.error(e),
    }
}
