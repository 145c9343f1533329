//! DELETE and DELETE-collection: preconditions, dryRun, propagationPolicy, finalizers and
//! deletionTimestamp (R8.22–R8.24), namespace finalization.

use super::Ctx;
use super::body::read_limited;
use super::list::{Filter, collect};
use super::read::load_existing;
use crate::namespace_lifecycle;
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use kapi_registry::meta;
use serde_json::{Value, json};

/// DeleteOptions from the body and the query.
#[derive(Debug, Default)]
struct DeleteOptions {
    uid: Option<String>,
    resource_version: Option<String>,
    propagation: Option<String>,
    orphan_dependents: Option<bool>,
    dry_run: bool,
}

async fn options(ctx: &Ctx, body: Body) -> Result<DeleteOptions, ApiError> {
    let bytes = read_limited(ctx, body).await?;
    let v: Value = if bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::bad_request(format!("error decoding DeleteOptions: {e}")))?
    };
    let s = |p: &[&str]| {
        meta::nested(&v, p)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Ok(DeleteOptions {
        uid: s(&["preconditions", "uid"]),
        resource_version: s(&["preconditions", "resourceVersion"]),
        propagation: s(&["propagationPolicy"])
            .or_else(|| ctx.query.get("propagationPolicy").map(str::to_owned)),
        orphan_dependents: v.get("orphanDependents").and_then(Value::as_bool),
        dry_run: v
            .get("dryRun")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|d| d == "All")),
    })
}

fn check_preconditions(ctx: &Ctx, opts: &DeleteOptions, obj: &Value) -> Result<(), ApiError> {
    let fail = |what: &str, want: &str, have: &str| {
        ApiError::conflict(
            &ctx.entry.group,
            &ctx.entry.names.plural,
            ctx.name(),
            &format!(
                "Precondition failed: {what} in precondition: {want}, {what} in object meta: {have}"
            ),
        )
    };
    if let Some(uid) = &opts.uid
        && uid != meta::meta_str(obj, "uid")
    {
        return Err(fail("UID", uid, meta::meta_str(obj, "uid")));
    }
    if let Some(rv) = &opts.resource_version
        && rv != meta::resource_version(obj)
    {
        return Err(fail("ResourceVersion", rv, meta::resource_version(obj)));
    }
    Ok(())
}

/// The Status of a completed deletion (R8.22).
fn success(ctx: &Ctx, obj: &Value) -> Value {
    let mut details = json!({"name": ctx.name(), "kind": ctx.entry.names.plural, "uid": meta::meta_str(obj, "uid")});
    if !ctx.entry.group.is_empty() {
        details["group"] = json!(ctx.entry.group);
    }
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": details})
}

/// Marks the object as being deleted (finalizers pending); returns the updated object.
async fn mark_deleting(
    ctx: &Ctx,
    mut obj: Value,
    mod_revision: i64,
    extra: Option<&str>,
) -> Result<Value, ApiError> {
    let old = obj.clone();
    if meta::meta_str(&obj, "deletionTimestamp").is_empty() {
        meta::set_meta(
            &mut obj,
            "deletionTimestamp",
            Some(json!(meta::now_rfc3339())),
        );
        meta::set_meta(&mut obj, "deletionGracePeriodSeconds", Some(json!(0)));
        if ctx.entry.strategy.tracks_generation() {
            let g = meta::nested(&obj, &["metadata", "generation"])
                .and_then(Value::as_i64)
                .unwrap_or(0);
            meta::set_meta(&mut obj, "generation", Some(json!(g + 1)));
        }
    }
    if let Some(f) = extra {
        let mut fs = meta::finalizers(&obj);
        if !fs.iter().any(|x| x == f) {
            fs.push(f.to_owned());
            meta::set_meta(&mut obj, "finalizers", Some(json!(fs)));
        }
    }
    if ctx.entry.strategy.on_delete_finalizes_content()
        && let Some(map) = obj.as_object_mut()
    {
        map.insert("status".into(), json!({"phase": "Terminating"}));
    }
    super::write::store_update(ctx, obj, &old, mod_revision).await
}

async fn delete_one(
    ctx: &Ctx,
    opts: &DeleteOptions,
    obj: Value,
    mod_revision: i64,
) -> Result<(StatusCode, Value), ApiError> {
    namespace_lifecycle::admit_delete(&ctx.entry, ctx.name())?;
    check_preconditions(ctx, opts, &obj)?;
    let finalizer = match opts.propagation.as_deref() {
        Some("Foreground") => Some("foregroundDeletion"),
        Some("Orphan") => Some("orphan"),
        _ if opts.orphan_dependents == Some(true) => Some("orphan"),
        _ => ctx.entry.strategy.delete_finalizer(),
    };
    let accepted = if opts.orphan_dependents == Some(false) {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    if ctx.entry.strategy.on_delete_finalizes_content() {
        let updated = mark_deleting(ctx, obj, mod_revision, finalizer).await?;
        if !ctx.dry_run() {
            tokio::spawn(namespace_lifecycle::finalize_namespace(
                ctx.state.clone(),
                ctx.name().to_owned(),
            ));
        }
        return Ok((StatusCode::OK, updated));
    }
    if !meta::finalizers(&obj).is_empty() || finalizer.is_some() {
        return Ok((
            accepted,
            mark_deleting(ctx, obj, mod_revision, finalizer).await?,
        ));
    }
    if !ctx.dry_run() {
        ctx.state
            .store
            .delete(ctx.key().as_bytes(), Some(mod_revision))
            .await
            .map_err(|e| ctx.store_error(e, ctx.name()))?;
    }
    Ok((StatusCode::OK, success(ctx, &obj)))
}

/// DELETE of one object.
pub async fn delete(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = options(ctx, body).await?;
        let (obj, mod_revision) = load_existing(ctx).await?;
        if opts.dry_run && !ctx.dry_run() {
            let mut dry = ctx.for_object(ctx.info.namespace.clone(), ctx.name().to_owned());
            dry.query = ctx.query.clone();
            dry.query.0.insert("dryRun".into(), "All".into());
            return delete_one(&dry, &opts, obj, mod_revision).await;
        }
        delete_one(ctx, &opts, obj, mod_revision).await
    }
    .await;
    match result {
        Ok((status, v)) => ctx.writer.object(&ctx.entry, status, v),
        Err(e) => ctx.writer.error(e),
    }
}

/// DELETE of a collection: every selected object, each as a single delete; answers the
/// list of deleted objects.
pub async fn delete_collection(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = options(ctx, body).await?;
        let filter = Filter::from_query(ctx)?;
        let (items, list_meta) = collect(ctx, &filter).await?;
        let mut deleted = Vec::new();
        for obj in items {
            let name = meta::name(&obj).to_owned();
            let ns = meta::namespace(&obj).to_owned();
            let mut one = Ctx::for_object(ctx, (!ns.is_empty()).then_some(ns), name);
            one.query = ctx.query.clone();
            let rv = meta::resource_version(&obj).parse::<i64>().unwrap_or(0);
            match delete_one(&one, &opts, obj.clone(), rv).await {
                Ok(_) => deleted.push(obj),
                Err(e) if e.code == 404 || e.code == 409 => {}
                Err(e) => return Err(e),
            }
        }
        Ok((deleted, list_meta))
    }
    .await;
    match result {
        Ok((items, list_meta)) => ctx.writer.list(&ctx.entry, items, list_meta),
        Err(e) => ctx.writer.error(e),
    }
}
