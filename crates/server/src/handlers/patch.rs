//! PATCH: JSON patch, merge patch, strategic merge patch and server-side apply
//! (`kapi_registry::patch`, `kapi_registry::managed_fields`), each applied to the current
//! object inside the REST store's guaranteed-update loop, so a lost race re-applies the
//! patch to the fresh object (R8.18) and only a resourceVersion in the patch ends in 409.
//! `fieldValidation` applies to what the patch introduces.

use super::Ctx;
use super::body::{read_limited, validated};
use super::write::{respond, update_status};
use crate::status::ApiError;
use axum::body::Body;
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use kapi_registry::Error;
use kapi_registry::managed_fields;
use kapi_registry::meta;
use kapi_registry::patch::{PatchType, apply_patch, parse_patch};
use kapi_registry::rest::UpdateFn;
use kapi_registry::rest::options::{FieldValidation, WriteOptions, WriteVerb};
use serde_json::{Value, json};

/// The patch type of the request's Content-Type.
pub(super) fn patch_type(ctx: &Ctx) -> Result<PatchType, Error> {
    let ct = ctx
        .headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    PatchType::from_content_type(ct, ctx.entry.strategy.supports_strategic_merge_patch())
}

/// What one application of the patch needs.
struct Patcher<'a> {
    ctx: &'a Ctx,
    kind: PatchType,
    patch: Value,
    manager: String,
    force: bool,
    mode: FieldValidation,
}

impl Patcher<'_> {
    /// Server-side apply of the patch onto `current`, with ownership and conflicts.
    fn ssa(&self, current: &Value) -> Result<Value, Error> {
        let api_version = self.ctx.entry.api_version();
        let w = managed_fields::Writer {
            manager: &self.manager,
            api_version: &api_version,
            subresource: self.ctx.info.subresource.as_deref().unwrap_or(""),
        };
        let e = &self.ctx.entry;
        let target = managed_fields::Target {
            group: &e.group,
            resource: &e.names.plural,
            kind: &e.names.kind,
            api_version: &api_version,
            namespace: self.ctx.namespace().unwrap_or(""),
            name: self.ctx.name(),
        };
        managed_fields::apply(
            current,
            &self.patch,
            &w,
            self.force,
            &target,
            e.kind_fields(),
        )
    }

    /// The patched object (in canonical form) and the field-validation warnings.
    fn patched(&self, current: Option<&Value>) -> Result<(Value, Vec<String>), Error> {
        let patched = match (self.kind, current) {
            (PatchType::Apply, Some(cur)) => self.ssa(cur)?,
            (PatchType::Apply, None) => {
                let mut obj = self.ssa(&json!({}))?;
                if meta::name(&obj).is_empty() {
                    meta::set_meta(&mut obj, "name", Some(json!(self.ctx.name())));
                }
                obj
            }
            (kind, Some(cur)) => apply_patch(kind, &self.patch, cur)?,
            (_, None) => return Err(self.ctx.rest().not_found(self.ctx.name())),
        };
        let problems = match self.mode {
            FieldValidation::Ignore => Vec::new(),
            _ => serde_json::to_vec(&patched)
                .map(|json| self.ctx.entry.codec.field_problems(&json))
                .unwrap_or_default(),
        };
        let decoded = validated(self.ctx, patched, problems, self.mode)?;
        let obj = self.ctx.entry.codec.normalize(decoded.obj)?;
        if meta::top_str(&obj, "kind") != self.ctx.entry.names.kind {
            return Err(Error::bad_request(format!(
                "the name of the object ({}) does not match the name on the URL ({})",
                meta::name(&obj),
                self.ctx.name()
            )));
        }
        Ok((obj, decoded.warnings))
    }
}

/// PATCH of an object or its `status`.
pub async fn patch(ctx: &Ctx, body: Body) -> Response {
    let result = async {
        let opts = WriteOptions::from_query(&ctx.query.0, WriteVerb::Patch)?;
        let kind = patch_type(ctx)?;
        opts.validate_patch(kind == PatchType::Apply)?;
        let bytes = read_limited(ctx, body).await?;
        let patcher = Patcher {
            ctx,
            kind,
            patch: parse_patch(kind, &bytes)?,
            manager: ctx.manager(&opts),
            force: opts.forced(),
            mode: opts.field_validation,
        };
        let mut warnings = Vec::new();
        let info = UpdateFn::new(|current: Option<&Value>| {
            let (obj, w) = patcher.patched(current)?;
            warnings = w;
            Ok(obj)
        });
        let mut info = if kind == PatchType::Apply {
            info.creating().without_update_record()
        } else {
            info
        };
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
