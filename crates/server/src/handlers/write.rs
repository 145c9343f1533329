//! POST (create) and PUT (update, also of `status`), generic over the entry's strategy:
//! server fields, generateName, dryRun, namespace checks, 409 on a stale resourceVersion.

use super::Ctx;
use super::body::{Decoded, add_warnings, decode_body};
use super::read::load_existing;
use crate::namespace_lifecycle;
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use kapi_registry::meta;
use kapi_registry::strategy::validate_name;
use kapi_storage::StoreError;
use serde_json::{Value, json};

/// Server-owned metadata a client may not set on create (R8.11).
const SYSTEM_FIELDS: [&str; 5] = [
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
];

/// The namespace in the body must match the URL (R8.12); it is filled in when absent.
pub fn reconcile_namespace(ctx: &Ctx, obj: &mut Value) -> Result<(), ApiError> {
    if !ctx.entry.namespaced() {
        meta::set_meta(obj, "namespace", None);
        return Ok(());
    }
    let url_ns = ctx.namespace().unwrap_or("");
    let body_ns = meta::namespace(obj).to_owned();
    if !body_ns.is_empty() && body_ns != url_ns {
        return Err(ApiError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        ));
    }
    meta::set_meta(obj, "namespace", Some(json!(url_ns)));
    Ok(())
}

fn invalid(ctx: &Ctx, obj: &Value, causes: Vec<crate::status::StatusCause>) -> ApiError {
    ApiError::invalid(
        &ctx.entry.group,
        &ctx.entry.names.kind,
        meta::name(obj),
        causes,
    )
}

/// Validation shared by create and update: name, then the strategy's own rules.
pub fn validate(ctx: &Ctx, obj: &Value) -> Result<(), ApiError> {
    let mut causes = validate_name(ctx.entry.strategy.name_rule(), obj);
    causes.extend(kapi_registry::strategy::validate_labels_and_annotations(
        obj,
    ));
    causes.extend(ctx.entry.strategy.validate(obj));
    if causes.is_empty() {
        Ok(())
    } else {
        Err(invalid(ctx, obj, causes))
    }
}

/// Validation of an update (also through `/status`): name, then the strategy's rules,
/// which may compare with the stored object `old` (CEL transition rules, immutable fields).
pub fn validate_update(ctx: &Ctx, obj: &Value, old: &Value) -> Result<(), ApiError> {
    let mut causes = validate_name(ctx.entry.strategy.name_rule(), obj);
    let sub = ctx.info.subresource.as_deref();
    causes.extend(ctx.entry.strategy.validate_update(obj, old, sub));
    if causes.is_empty() {
        Ok(())
    } else {
        Err(invalid(ctx, obj, causes))
    }
}

/// Sets uid, creationTimestamp and generation; runs the strategy's create preparation.
pub fn prepare_create(ctx: &Ctx, obj: &mut Value) {
    for f in SYSTEM_FIELDS
        .iter()
        .chain(["resourceVersion", "generation"].iter())
    {
        meta::set_meta(obj, f, None);
    }
    meta::set_meta(obj, "uid", Some(json!(meta::new_uid())));
    meta::set_meta(obj, "creationTimestamp", Some(json!(meta::now_rfc3339())));
    let strategy = &ctx.entry.strategy;
    if strategy.tracks_generation() {
        meta::set_meta(obj, "generation", Some(json!(1)));
    }
    if strategy.has_status()
        && let Some(map) = obj.as_object_mut()
    {
        map.remove("status");
    }
    strategy.prepare_for_create(obj);
}

/// Stores a prepared new object (or only returns it under dryRun): 201 with the object.
pub async fn store_new(ctx: &Ctx, mut obj: Value) -> Result<Value, ApiError> {
    let generate = meta::meta_str(&obj, "generateName").to_owned();
    let explicit = !meta::name(&obj).is_empty();
    for _attempt in 0..5 {
        if !explicit && !generate.is_empty() {
            let name = format!("{generate}{}", meta::random_suffix(5));
            meta::set_meta(&mut obj, "name", Some(json!(name)));
        }
        validate(ctx, &obj)?;
        let name = meta::name(&obj).to_owned();
        if let Some(ns) = ctx.namespace() {
            namespace_lifecycle::admit_create(&ctx.state, &ctx.table, &ctx.entry, ns, &name)
                .await?;
        }
        if ctx.dry_run() {
            return Ok(obj);
        }
        let key = ctx.entry.key(ctx.namespace(), &name);
        let bytes = ctx.entry.codec.encode_for_storage(&obj)?;
        match ctx.state.store.create(key.as_bytes(), bytes).await {
            Ok(kv) => return ctx.decode(&kv),
            Err(StoreError::AlreadyExists { .. }) if !explicit && !generate.is_empty() => continue,
            Err(e) => return Err(ctx.store_error(e, &name)),
        }
    }
    Err(ApiError::already_exists(
        &ctx.entry.group,
        &ctx.entry.names.plural,
        meta::name(&obj),
    ))
}

/// POST to a collection.
pub async fn create(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let Decoded { mut obj, warnings } = decode_body(ctx, body).await?;
        reconcile_namespace(ctx, &mut obj)?;
        prepare_create(ctx, &mut obj);
        ctx.record_update(&mut obj, None);
        Ok::<_, ApiError>((store_new(ctx, obj).await?, warnings))
    }
    .await;
    match result {
        Ok((obj, warnings)) => {
            let mut resp = ctx.writer.object(&ctx.entry, StatusCode::CREATED, obj);
            add_warnings(&mut resp, &warnings);
            resp
        }
        Err(e) => ctx.writer.error(e),
    }
}

/// Carries server-owned fields from `old` into `new` and applies the status rules of the
/// main resource or the `status` subresource (R8.14).
pub fn prepare_update(ctx: &Ctx, new: &mut Value, old: &Value) {
    if let Some(sub) = ctx.info.subresource.as_deref()
        && sub != "status"
        && ctx.entry.strategy.prepare_subresource_update(sub, new, old)
    {
        return;
    }
    let status_sub = ctx.info.subresource.as_deref() == Some("status");
    if status_sub {
        let status = new.get("status").cloned();
        let mut merged = old.clone();
        if let Some(map) = merged.as_object_mut() {
            match status {
                Some(s) => map.insert("status".into(), s),
                None => map.remove("status"),
            };
        }
        *new = merged;
        ctx.entry
            .strategy
            .prepare_for_update(new, old, Some("status"));
        return;
    }
    for f in [
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "generation",
    ] {
        let v = meta::meta(old).and_then(|m| m.get(f)).cloned();
        meta::set_meta(new, f, v);
    }
    let strategy = &ctx.entry.strategy;
    if strategy.has_status()
        && let Some(map) = new.as_object_mut()
    {
        match old.get("status") {
            Some(s) => map.insert("status".into(), s.clone()),
            None => map.remove("status"),
        };
    }
    if strategy.tracks_generation() && new.get("spec") != old.get("spec") {
        let g = meta::nested(old, &["metadata", "generation"])
            .and_then(Value::as_i64)
            .unwrap_or(0);
        meta::set_meta(new, "generation", Some(json!(g + 1)));
    }
    strategy.prepare_for_update(new, old, None);
}

/// Whether the stored object is in the current storage version (else a no-op update
/// rewrites it).
async fn stored_current(ctx: &Ctx) -> Result<bool, ApiError> {
    let key = ctx.key();
    match ctx.state.store.get(key.as_bytes(), None).await {
        Ok(Some(kv)) => Ok(ctx.entry.codec.is_stored_current(&kv.value)),
        Ok(None) => Ok(true),
        Err(e) => Err(ctx.store_error(e, ctx.name())),
    }
}

/// Writes `new` over the stored object at `mod_revision`; a no-op update writes nothing.
/// An object being deleted whose finalizers are gone is deleted instead (R8.24).
pub async fn store_update(
    ctx: &Ctx,
    mut new: Value,
    old: &Value,
    mod_revision: i64,
) -> Result<Value, ApiError> {
    let name = ctx.name().to_owned();
    let mut old_cmp = old.clone();
    meta::set_meta(&mut old_cmp, "resourceVersion", None);
    meta::set_meta(&mut new, "resourceVersion", None);
    if new == old_cmp && stored_current(ctx).await? {
        return Ok(old.clone());
    }
    if ctx.dry_run() {
        meta::set_meta(
            &mut new,
            "resourceVersion",
            Some(json!(mod_revision.to_string())),
        );
        return Ok(new);
    }
    let key = ctx.key();
    let deleting = !meta::meta_str(&new, "deletionTimestamp").is_empty();
    if deleting && meta::finalizers(&new).is_empty() {
        let resp = ctx
            .state
            .store
            .delete(key.as_bytes(), Some(mod_revision))
            .await
            .map_err(|e| ctx.store_error(e, &name))?;
        let mut gone = ctx.decode(&resp.prev)?;
        meta::set_meta(
            &mut gone,
            "resourceVersion",
            Some(json!(resp.revision.to_string())),
        );
        return Ok(gone);
    }
    let bytes = ctx.entry.codec.encode_for_storage(&new)?;
    let kv = ctx
        .state
        .store
        .update(key.as_bytes(), bytes, mod_revision)
        .await
        .map_err(|e| ctx.store_error(e, &name))?;
    ctx.decode(&kv)
}

/// PUT of an object or its `status`.
pub async fn update(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let Decoded { mut obj, warnings } = decode_body(ctx, body).await?;
        reconcile_namespace(ctx, &mut obj)?;
        let body_name = meta::name(&obj).to_owned();
        if body_name != ctx.name() {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({})",
                ctx.name()
            )));
        }
        let (old, mod_revision) = load_existing(ctx).await?;
        let rv = meta::resource_version(&obj).to_owned();
        if !rv.is_empty() && rv != mod_revision.to_string() {
            return Err(ApiError::conflict_modified(
                &ctx.entry.group,
                &ctx.entry.names.plural,
                ctx.name(),
            ));
        }
        prepare_update(ctx, &mut obj, &old);
        ctx.record_update(&mut obj, Some(&old));
        validate_update(ctx, &obj, &old)?;
        Ok((store_update(ctx, obj, &old, mod_revision).await?, warnings))
    }
    .await;
    match result {
        Ok((obj, warnings)) => {
            let mut resp = ctx.writer.object(&ctx.entry, StatusCode::OK, obj);
            add_warnings(&mut resp, &warnings);
            resp
        }
        Err(e) => ctx.writer.error(e),
    }
}
