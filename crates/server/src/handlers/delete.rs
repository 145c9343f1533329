//! DELETE and DELETE-collection: DeleteOptions from the body (JSON, YAML or protobuf) or
//! the query, then the REST store's delete (preconditions, dryRun, propagationPolicy,
//! finalizers, grace periods, R8.22–R8.24); a terminating namespace is emptied by the
//! namespace controller (`kapi_controllers::namespace`). A removed object is answered as
//! itself or as a Status, as its entry says (`ReturnDeletedObject`).

use super::Ctx;
use super::body::read_limited;
use super::list::Filter;
use crate::negotiate::{Media, negotiate_input};
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use kapi_registry::meta;
use kapi_registry::rest::options::{BodyEncoding, DeleteOptions};
use kapi_registry::rest::{Deleted, WriteContext};
use serde_json::{Value, json};

/// DeleteOptions of the request.
async fn options(ctx: &Ctx, body: Body) -> Result<DeleteOptions, ApiError> {
    let bytes = read_limited(ctx, body).await?;
    let content_type = ctx.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
    let encoding = if bytes.iter().all(u8::is_ascii_whitespace) {
        BodyEncoding::Json
    } else {
        match negotiate_input(content_type, true)? {
            Media::Json => BodyEncoding::Json,
            Media::Yaml => BodyEncoding::Yaml,
            Media::Protobuf => BodyEncoding::Protobuf,
        }
    };
    Ok(DeleteOptions::parse(&bytes, encoding, &ctx.query.0)?)
}

/// The Status of a completed deletion (R8.22).
fn success(ctx: &Ctx, name: &str, obj: &Value) -> Value {
    let mut details =
        json!({"name": name, "kind": ctx.entry.names.plural, "uid": meta::meta_str(obj, "uid")});
    if !ctx.entry.group.is_empty() {
        details["group"] = json!(ctx.entry.group);
    }
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details})
}

/// Deletes one object through the REST store. The answer is the object while it is being
/// deleted; once gone, the object as it was for the kinds whose kube-apiserver store returns
/// the deleted object (Services, Pods, PersistentVolumes, StorageClasses, …), else a Status.
async fn delete_one(
    ctx: &Ctx,
    w: &WriteContext,
    name: &str,
    opts: &DeleteOptions,
) -> Result<(StatusCode, Value), ApiError> {
    let deleted = ctx.rest().delete(w, name, opts).await?;
    match deleted {
        Deleted::Removed(obj) if ctx.entry.returns_deleted_object => Ok((StatusCode::OK, obj)),
        Deleted::Removed(obj) => Ok((StatusCode::OK, success(ctx, name, &obj))),
        Deleted::Pending { object, accepted } => {
            let status = if accepted {
                StatusCode::ACCEPTED
            } else {
                StatusCode::OK
            };
            Ok((status, object))
        }
    }
}

fn delete_context(ctx: &Ctx, opts: &DeleteOptions) -> WriteContext {
    WriteContext {
        namespace: ctx.info.namespace.clone(),
        subresource: None,
        manager: String::new(),
        dry_run: opts.dry_run,
        guard: None,
        admission: Some(ctx.admission()),
    }
}

/// DELETE of one object.
pub async fn delete(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = options(ctx, body).await?;
        let w = delete_context(ctx, &opts);
        delete_one(ctx, &w, ctx.name(), &opts).await
    }
    .await;
    match result {
        Ok((status, v)) => ctx.writer.object(&ctx.entry, status, v),
        Err(e) => ctx.writer.error(e),
    }
}

/// DELETE of a collection: the REST store's delete_collection over the objects the
/// label and field selectors keep; answers the list of deleted objects.
pub async fn delete_collection(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = options(ctx, body).await?;
        let filter = Filter::from_query(ctx)?;
        let w = delete_context(ctx, &opts);
        let keep = |obj: &Value| filter.matches(ctx, obj);
        let selected: Option<&(dyn Fn(&Value) -> bool + Send + Sync)> =
            (!filter.is_empty()).then_some(&keep);
        Ok::<_, ApiError>(ctx.rest().delete_collection(&w, &opts, selected).await?)
    }
    .await;
    match result {
        Ok(deleted) => ctx.writer.list(
            &ctx.entry,
            deleted.items,
            json!({"resourceVersion": deleted.revision.to_string()}),
        ),
        Err(e) => ctx.writer.error(e),
    }
}
