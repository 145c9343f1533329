//! LIST: the REST store's list (`kapi_registry::rest::list`: selectors, pagination,
//! resourceVersion semantics, the watch cache) encoded for the client; a plain JSON list
//! splices the stored bytes, and a protobuf list joins each object's protobuf message (kept
//! by the watch cache), instead of decoding and encoding each object.

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
use std::sync::Arc;

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

/// Writes a plain JSON list by splicing stored objects (no decode/encode round trip); items
/// in another version are decoded together (one conversion), and the watch cache keeps what
/// a deterministic codec made of them for the next list.
async fn raw_json_list(
    ctx: &Ctx,
    items: Vec<Item>,
    list_meta: &Value,
) -> Result<Vec<u8>, ApiError> {
    let e = &ctx.entry;
    let codec = &e.codec;
    let mut out = format!(
        "{{\"kind\":{},\"apiVersion\":{},\"metadata\":{list_meta},\"items\":[",
        Value::from(e.names.list_kind.as_str()),
        Value::from(e.api_version())
    )
    .into_bytes();
    let ready: Vec<Option<Bytes>> = items
        .iter()
        .map(|item| {
            let kv = item.stored()?;
            let spliced = codec.stored_json_with_resource_version(&kv.value, kv.mod_revision);
            match (spliced, item) {
                (Some(bytes), _) => Some(Bytes::Owned(bytes)),
                (None, Item::Cached(obj)) => obj.json_for(codec).map(Bytes::Shared),
                (None, _) => None,
            }
        })
        .collect();
    // Items that cannot be spliced (another version) are decoded together: one conversion.
    let undecoded: Vec<&KeyValue> = items
        .iter()
        .zip(&ready)
        .filter_map(|(item, r)| r.is_none().then(|| item.stored()).flatten())
        .collect();
    let mut decoded = ctx.decode_many(&undecoded).await?.into_iter();
    let keep = codec.is_deterministic();
    for (i, (item, ready)) in items.into_iter().zip(ready).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match (ready, item) {
            (Some(bytes), _) => out.extend_from_slice(bytes.as_slice()),
            (None, Item::Decoded(v)) => {
                serde_json::to_writer(&mut out, &v).map_err(ApiError::internal)?
            }
            (None, item) => {
                let obj = decoded
                    .next()
                    .ok_or_else(|| ApiError::internal("list decode returned too few objects"))?;
                let start = out.len();
                serde_json::to_writer(&mut out, &obj).map_err(ApiError::internal)?;
                if keep && let Item::Cached(cached) = item {
                    cached.keep_json(codec, out[start..].into());
                }
            }
        }
    }
    out.extend_from_slice(b"]}\n");
    Ok(out)
}

/// An item's JSON: spliced for this list, or kept by the watch cache.
enum Bytes {
    Owned(Vec<u8>),
    Shared(Arc<[u8]>),
}

impl Bytes {
    fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Shared(a) => a,
        }
    }
}

/// Writes a protobuf list from each item's protobuf message (kept by the watch cache once
/// made), without a JSON round trip; kinds or versions without such items go through JSON.
async fn protobuf_list(
    ctx: &Ctx,
    items: Vec<Item>,
    list_meta: &Value,
) -> Result<Vec<u8>, ApiError> {
    let codec = &ctx.entry.codec;
    let mut encoded: Vec<Arc<[u8]>> = Vec::with_capacity(items.len());
    let mut direct = codec.supports_protobuf();
    for item in &items {
        if !direct {
            break;
        }
        let bytes = match item {
            Item::Cached(obj) => obj.protobuf_item(codec.as_ref()),
            Item::Raw(kv) => codec
                .encode_protobuf_item(&kv.value, kv.mod_revision)
                .map(|r| r.map(Arc::from)),
            Item::Decoded(_) => None,
        };
        match bytes {
            Some(bytes) => encoded.push(bytes?),
            None => direct = false,
        }
    }
    if direct {
        return Ok(codec.encode_protobuf_list(&ctx.entry.names.list_kind, list_meta, &encoded)?);
    }
    let json = raw_json_list(ctx, items, list_meta).await?;
    Ok(codec.encode_protobuf_from_json(&json)?)
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
        let body = if raw_protobuf {
            protobuf_list(ctx, items, &list_meta).await
        } else {
            raw_json_list(ctx, items, &list_meta).await
        };
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
