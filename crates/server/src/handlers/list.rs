//! LIST: the REST store's list (`kapi_registry::rest::list`: selectors, pagination,
//! resourceVersion semantics, the watch cache) encoded for the client; a plain JSON or
//! protobuf list splices the stored bytes instead of decoding and encoding each object.

use super::Ctx;
use crate::negotiate::{Media, Transform};
use crate::request_info::Verb;
use crate::respond::bytes_response;
use crate::status::ApiError;
use axum::http::StatusCode;
use axum::response::Response;
use kapi_registry::rest::list::{Item, ListPage, Selection};
use kapi_registry::rest::options::ListOptions;
use kapi_storage::KeyValue;
use serde_json::Value;

/// The options and selectors of a list, delete-collection or watch.
pub struct Filter {
    selection: Selection,
    /// The list options, parsed once.
    pub opts: ListOptions,
}

impl Filter {
    /// Parses the options and the selectors; unknown field labels are 400.
    pub fn from_query(ctx: &Ctx) -> Result<Self, ApiError> {
        let opts = ListOptions::from_query(&ctx.query.0, ctx.info.verb == Verb::Watch)?;
        let selection = Selection::new(&ctx.rest(), &opts, ctx.info.name.as_deref())?;
        Ok(Filter { selection, opts })
    }

    /// True when no selector is set.
    pub fn is_empty(&self) -> bool {
        self.selection.is_empty()
    }

    /// Whether `obj` passes both selectors.
    pub fn matches(&self, ctx: &Ctx, obj: &Value) -> bool {
        self.selection.matches(&ctx.rest(), obj)
    }
}

/// The objects of one list page, decoded, and its list metadata.
pub async fn collect(ctx: &Ctx, filter: &Filter) -> Result<(Vec<Value>, Value), ApiError> {
    let page = list_page(ctx, filter, false).await?;
    let list_meta = page.list_meta();
    Ok((ctx.rest().decode_items(page.items).await?, list_meta))
}

/// The initial state of a watch: every object the selectors keep, at the latest revision
/// (the watch's own limit, continue and resourceVersion do not apply), decoded.
pub async fn collect_initial(ctx: &Ctx, filter: &Filter) -> Result<(Vec<Value>, i64), ApiError> {
    let mut opts = filter.opts.clone();
    opts.limit = 0;
    opts.continue_token.clear();
    opts.resource_version.clear();
    let page = ctx
        .rest()
        .list(
            Some(ctx.state.caches.as_ref()),
            ctx.namespace(),
            &opts,
            &filter.selection,
            false,
        )
        .await?;
    let revision = page.revision;
    Ok((ctx.rest().decode_items(page.items).await?, revision))
}

/// One page through the REST store (from the watch cache where it may be).
async fn list_page(ctx: &Ctx, filter: &Filter, raw: bool) -> Result<ListPage, ApiError> {
    let caches = Some(ctx.state.caches.as_ref());
    Ok(ctx
        .rest()
        .list(
            caches,
            ctx.namespace(),
            &filter.opts,
            &filter.selection,
            raw,
        )
        .await?)
}

/// Writes a plain JSON list by splicing stored objects (no decode/encode round trip).
async fn raw_json_list(
    ctx: &Ctx,
    items: Vec<Item>,
    list_meta: &Value,
) -> Result<Vec<u8>, ApiError> {
    let e = &ctx.entry;
    let mut out = format!(
        "{{\"kind\":{},\"apiVersion\":{},\"metadata\":{list_meta},\"items\":[",
        Value::from(e.names.list_kind.as_str()),
        Value::from(e.api_version())
    )
    .into_bytes();
    let spliced: Vec<Option<Vec<u8>>> = items
        .iter()
        .map(|item| match item {
            Item::Raw(kv) => e
                .codec
                .stored_json_with_resource_version(&kv.value, kv.mod_revision),
            Item::Decoded(_) => None,
        })
        .collect();
    // Items that cannot be spliced (another version) are decoded together: one conversion.
    let undecoded: Vec<&KeyValue> = items
        .iter()
        .zip(&spliced)
        .filter_map(|(item, s)| match (item, s) {
            (Item::Raw(kv), None) => Some(kv),
            _ => None,
        })
        .collect();
    let mut decoded = ctx.decode_many(&undecoded).await?.into_iter();
    for (i, (item, spliced)) in items.into_iter().zip(spliced).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match (spliced, item) {
            (Some(bytes), _) => out.extend_from_slice(&bytes),
            (None, Item::Raw(_)) => {
                let obj = decoded
                    .next()
                    .ok_or_else(|| ApiError::internal("list decode returned too few objects"))?;
                serde_json::to_writer(&mut out, &obj).map_err(ApiError::internal)?
            }
            (None, Item::Decoded(v)) => {
                serde_json::to_writer(&mut out, &v).map_err(ApiError::internal)?
            }
        }
    }
    out.extend_from_slice(b"]}\n");
    Ok(out)
}

/// GET of a collection.
pub async fn list(ctx: &Ctx) -> Response {
    let w = ctx.writer;
    let plain = w.output.transform == Transform::None;
    let raw_json = plain && w.output.media == Media::Json && !w.pretty;
    let raw_protobuf = plain && w.output.media == Media::Protobuf;
    let raw = raw_json || raw_protobuf;
    let result = async {
        let filter = Filter::from_query(ctx)?;
        list_page(ctx, &filter, raw).await
    }
    .await;
    let (items, list_meta) = match result {
        Ok(page) => {
            let meta = page.list_meta();
            (page.items, meta)
        }
        Err(e) => return ctx.writer.error(e),
    };
    if raw {
        let body = raw_json_list(ctx, items, &list_meta)
            .await
            .and_then(|json| {
                if raw_protobuf {
                    ctx.entry
                        .codec
                        .encode_protobuf_from_json(&json)
                        .map_err(ApiError::from)
                } else {
                    Ok(json)
                }
            });
        return match body {
            Ok(body) => bytes_response(StatusCode::OK, w.output.media.as_str(), body),
            Err(e) => ctx.writer.error(e),
        };
    }
    let values = ctx.rest().decode_items(items).await;
    match values {
        Ok(values) => ctx.writer.list(&ctx.entry, values, list_meta),
        Err(e) => ctx.writer.error(ApiError::from(e)),
    }
}
