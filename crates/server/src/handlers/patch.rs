//! PATCH: JSON patch (RFC 6902), merge patch (RFC 7386), strategic merge patch (see
//! `strategic.rs`), and server-side apply (managed fields, conflicts). Conflicts are retried when the patch carries no resourceVersion.

use super::Ctx;
use super::body::read_limited;
use super::read::load;
use super::write::{
    prepare_create, prepare_update, reconcile_namespace, store_new, store_update, validate_update,
};
use crate::status::ApiError;
use axum::body::Body;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use kapi_registry::meta;
use serde_json::{Value, json};

/// The patch types kube-apiserver accepts for built-in kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PatchType {
    Json,
    Merge,
    Strategic,
    Apply,
}

const ACCEPTED: [&str; 4] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
    "application/strategic-merge-patch+json",
];

pub(super) fn patch_type(ctx: &Ctx) -> Result<PatchType, ApiError> {
    let ct = ctx
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default();
    match ct.as_str() {
        "application/json-patch+json" => Ok(PatchType::Json),
        "application/merge-patch+json" => Ok(PatchType::Merge),
        "application/strategic-merge-patch+json"
            if ctx.entry.strategy.supports_strategic_merge_patch() =>
        {
            Ok(PatchType::Strategic)
        }
        "application/strategic-merge-patch+json" => {
            Err(ApiError::unsupported_media_type(&ACCEPTED[..3]))
        }
        "application/apply-patch+yaml" => Ok(PatchType::Apply),
        _ => Err(ApiError::unsupported_media_type(&ACCEPTED)),
    }
}

/// Merges without deleting: apply's "set what is given" for fields not owned elsewhere.
pub fn apply_merge(target: &mut Value, applied: &Value) {
    match (target.as_object_mut(), applied.as_object()) {
        (Some(t), Some(a)) => {
            for (k, v) in a {
                match t.get_mut(k) {
                    Some(existing) if existing.is_object() && v.is_object() => {
                        apply_merge(existing, v)
                    }
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        _ => *target = applied.clone(),
    }
}

pub(super) fn parse_patch(kind: PatchType, bytes: &[u8]) -> Result<Value, ApiError> {
    let bad = |e: String| ApiError::bad_request(format!("error decoding patch: {e}"));
    match kind {
        PatchType::Apply => {
            let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
            serde_saphyr::from_str(text).map_err(|e| bad(e.to_string()))
        }
        _ => serde_json::from_slice(bytes).map_err(|e| bad(e.to_string())),
    }
}

pub(super) fn apply_patch(
    kind: PatchType,
    patch: &Value,
    current: &Value,
) -> Result<Value, ApiError> {
    let mut doc = current.clone();
    match kind {
        PatchType::Json => {
            let ops: json_patch::Patch = serde_json::from_value(patch.clone())
                .map_err(|e| ApiError::bad_request(format!("error decoding patch: {e}")))?;
            if ops.0.len() > 10_000 {
                return Err(ApiError::bad_request(
                    "The allowed maximum operations in a JSON patch is 10000, got more",
                ));
            }
            json_patch::patch(&mut doc, &ops).map_err(|e| ApiError {
                code: 422,
                reason: "Invalid",
                message: e.to_string(),
                details: None,
                list_continue: String::new(),
            })?;
        }
        PatchType::Merge => json_patch::merge(&mut doc, patch),
        PatchType::Strategic => kapi_registry::strategic::apply(&mut doc, patch, ""),
        PatchType::Apply => apply_merge(&mut doc, patch),
    }
    Ok(doc)
}

/// Server-side apply of `patch` onto `current` with ownership and conflicts.
fn ssa(ctx: &Ctx, current: &Value, patch: &Value) -> Result<Value, ApiError> {
    let manager = ctx.manager();
    let api_version = ctx.entry.api_version();
    let w = kapi_registry::managed_fields::Writer {
        manager: &manager,
        api_version: &api_version,
        subresource: ctx.info.subresource.as_deref().unwrap_or(""),
    };
    let target = (
        ctx.entry.group.as_str(),
        ctx.entry.names.plural.as_str(),
        ctx.name(),
    );
    kapi_registry::managed_fields::apply(current, patch, &w, ctx.query.flag("force"), target)
        .map_err(ApiError::from)
}

/// Creates the object from an apply configuration when it does not exist yet.
async fn apply_create(ctx: &Ctx, patch: &Value) -> Result<(StatusCode, Value), ApiError> {
    let mut obj = ctx.entry.codec.normalize(ssa(ctx, &json!({}), patch)?)?;
    reconcile_namespace(ctx, &mut obj)?;
    if meta::name(&obj) != ctx.name() {
        meta::set_meta(&mut obj, "name", Some(json!(ctx.name())));
    }
    prepare_create(ctx, &mut obj);
    Ok((StatusCode::CREATED, store_new(ctx, obj).await?))
}

async fn patch_once(
    ctx: &Ctx,
    kind: PatchType,
    patch: &Value,
) -> Result<(StatusCode, Value), ApiError> {
    let Some((current, mod_revision)) = load(ctx).await? else {
        if kind == PatchType::Apply {
            return apply_create(ctx, patch).await;
        }
        return Err(ctx.not_found());
    };
    let patched = match kind {
        PatchType::Apply => ssa(ctx, &current, patch)?,
        _ => apply_patch(kind, patch, &current)?,
    };
    let mut obj = ctx.entry.codec.normalize(patched)?;
    if meta::top_str(&obj, "kind") != ctx.entry.names.kind || meta::name(&obj) != ctx.name() {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({}) does not match the name on the URL ({})",
            meta::name(&obj),
            ctx.name()
        )));
    }
    let rv = meta::resource_version(&obj).to_owned();
    if !rv.is_empty() && rv != mod_revision.to_string() {
        return Err(ApiError::conflict_modified(
            &ctx.entry.group,
            &ctx.entry.names.plural,
            ctx.name(),
        ));
    }
    prepare_update(ctx, &mut obj, &current);
    if kind != PatchType::Apply {
        ctx.record_update(&mut obj, Some(&current));
    }
    validate_update(ctx, &obj, &current)?;
    Ok((
        StatusCode::OK,
        store_update(ctx, obj, &current, mod_revision).await?,
    ))
}

/// A write that lost a race on the resourceVersion (retried), not an apply conflict.
fn is_storage_conflict(e: &ApiError) -> bool {
    e.code == 409
        && e.reason == "Conflict"
        && e.details.as_ref().is_none_or(|d| d.causes.is_empty())
}

/// PATCH of an object or its `status`.
pub async fn patch(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let kind = patch_type(ctx)?;
        if kind == PatchType::Apply && ctx.query.get("fieldManager").is_none_or(str::is_empty) {
            return Err(ApiError::bad_request(
                "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch",
            ));
        }
        let bytes = read_limited(ctx, body).await?;
        let patch = parse_patch(kind, &bytes)?;
        let explicit_rv = !meta::resource_version(&patch).is_empty();
        let mut attempt = 0;
        loop {
            match patch_once(ctx, kind, &patch).await {
                Err(e) if is_storage_conflict(&e) && !explicit_rv && attempt < 5 => attempt += 1,
                other => return other,
            }
        }
    }
    .await;
    match result {
        Ok((status, obj)) => ctx.writer.object(&ctx.entry, status, obj),
        Err(e) => ctx.writer.error(e),
    }
}
