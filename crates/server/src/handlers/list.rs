//! LIST: label and field selectors, limit/continue pagination at one revision,
//! resourceVersion / resourceVersionMatch semantics, remainingItemCount.

use super::Ctx;
use crate::negotiate::{Media, Transform};
use crate::request_info::Verb;
use crate::respond::bytes_response;
use crate::status::ApiError;
use axum::http::StatusCode;
use axum::response::Response;
use base64::Engine;
use kapi_registry::meta;
use kapi_registry::rest::options::{ListOptions, ResourceVersionMatch};
use kapi_registry::selectors::{Requirement, Selector, parse_fields, parse_labels};
use kapi_storage::{KeyValue, RangeRequest};
use serde_json::{Value, json};
use std::time::Duration;

/// Selectors of a list or watch.
pub struct Filter {
    labels: Selector,
    fields: Selector,
    /// The list options, parsed once.
    pub opts: ListOptions,
}

impl Filter {
    /// Parses `labelSelector` and `fieldSelector`; unknown field labels are 400.
    pub fn from_query(ctx: &Ctx) -> Result<Self, ApiError> {
        let opts = ListOptions::from_query(&ctx.query.0, ctx.info.verb == Verb::Watch)?;
        let labels = parse_labels(&opts.label_selector)?;
        let mut fields = parse_fields(&opts.field_selector)?;
        // A watch of one named object watches its collection filtered by name.
        if let Some(name) = ctx.info.name.as_ref().filter(|n| !n.is_empty()) {
            fields
                .0
                .push(Requirement::In("metadata.name".into(), vec![name.clone()]));
        }
        let known: Vec<String> = ctx
            .entry
            .strategy
            .field_labels(&Value::Null)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        for key in fields.keys() {
            let ok = key == "metadata.name"
                || (key == "metadata.namespace" && ctx.entry.namespaced())
                || known.iter().any(|k| k == key);
            if !ok {
                return Err(ApiError::bad_request(format!(
                    "field label not supported: {key}"
                )));
            }
        }
        Ok(Filter {
            labels,
            fields,
            opts,
        })
    }

    /// True when no selector is set.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    /// Whether `obj` passes both selectors.
    pub fn matches(&self, ctx: &Ctx, obj: &Value) -> bool {
        if !self.labels.matches(&meta::labels(obj)) {
            return false;
        }
        if self.fields.is_empty() {
            return true;
        }
        let extra = ctx.entry.strategy.field_labels(obj);
        let mut pairs: Vec<(&str, &str)> = vec![
            ("metadata.name", meta::name(obj)),
            ("metadata.namespace", meta::namespace(obj)),
        ];
        pairs.extend(extra.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        self.fields.matches(&pairs)
    }
}

/// Encodes a continue token (revision + last key relative to the collection prefix).
/// The revision of an "inconsistent continue" token: list on at the latest revision.
const INCONSISTENT: i64 = -1;

fn encode_continue(revision: i64, start: &str) -> String {
    let token = json!({"v": "meta.k8s.io/v1", "rv": revision, "start": start});
    base64::engine::general_purpose::URL_SAFE.encode(token.to_string())
}

fn decode_continue(token: &str) -> Result<(i64, String), ApiError> {
    let bad = || ApiError::bad_request(format!("continue key is not valid: {token}"));
    let bytes = base64::engine::general_purpose::URL_SAFE
        .decode(token)
        .map_err(|_| bad())?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    let rv = v.get("rv").and_then(Value::as_i64).ok_or_else(bad)?;
    let start = v.get("start").and_then(Value::as_str).ok_or_else(bad)?;
    Ok((rv, start.to_owned()))
}

/// The revision to read at and the key to start after, from the query.
async fn read_point(ctx: &Ctx, prefix: &str) -> Result<(Option<i64>, Option<String>), ApiError> {
    let rv = ctx.query.get("resourceVersion").unwrap_or("");
    if let Some(token) = ctx.query.get("continue").filter(|t| !t.is_empty()) {
        if !rv.is_empty() && rv != "0" {
            return Err(ApiError::bad_request(
                "specifying resource version is not allowed when using continue",
            ));
        }
        let (rev, start) = decode_continue(token)?;
        if rev == INCONSISTENT {
            // The token of an expired-continue Status: go on at the latest revision (R7.4).
            return Ok((None, Some(format!("{prefix}{start}"))));
        }
        // Nothing was written since the first page: the latest state is that revision, and
        // reading it is cheaper than reading history.
        let current = ctx.state.store.current_revision().await.ok();
        let rev = (current != Some(rev)).then_some(rev);
        return Ok((rev, Some(format!("{prefix}{start}"))));
    }
    if rv.is_empty() || rv == "0" {
        return Ok((None, None));
    }
    let n: i64 = rv
        .parse()
        .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv}")))?;
    if ctx.query.get("resourceVersionMatch") == Some("Exact") {
        return Ok((Some(n), None));
    }
    let current = ctx
        .state
        .store
        .current_revision()
        .await
        .map_err(|e| ctx.store_error(e, ""))?;
    if n > current {
        return Err(ctx.store_error(
            kapi_storage::StoreError::FutureRevision {
                requested: n,
                current,
            },
            "",
        ));
    }
    Ok((None, None))
}

/// The objects of one list page and its list metadata.
pub async fn collect(ctx: &Ctx, filter: &Filter) -> Result<(Vec<Value>, Value), ApiError> {
    let (items, list_meta) = collect_items(ctx, filter, false).await?;
    Ok((decode_items(ctx, items).await?, list_meta))
}

/// The listed objects, decoded; the stored ones in one batch (one conversion call).
pub async fn decode_items(ctx: &Ctx, items: Vec<Item>) -> Result<Vec<Value>, ApiError> {
    let raw: Vec<&KeyValue> = items
        .iter()
        .filter_map(|item| match item {
            Item::Raw(kv) => Some(kv),
            Item::Decoded(_) => None,
        })
        .collect();
    let mut decoded = ctx.decode_many(&raw).await?.into_iter();
    items
        .into_iter()
        .map(|item| match item {
            Item::Decoded(v) => Ok(v),
            Item::Raw(_) => decoded
                .next()
                .ok_or_else(|| ApiError::internal("list decode returned too few objects")),
        })
        .collect()
}

/// One listed object: decoded, or (unfiltered raw lists) the stored key-value.
pub enum Item {
    /// Stored bytes not decoded yet (the key is not kept).
    Raw(KeyValue),
    /// The object.
    Decoded(Value),
}

/// Like [`collect`]; with `raw` and no selector, objects are left undecoded.
pub async fn collect_items(
    ctx: &Ctx,
    filter: &Filter,
    raw: bool,
) -> Result<(Vec<Item>, Value), ApiError> {
    let raw = raw && filter.is_empty();
    let prefix = ctx.entry.collection_prefix(ctx.namespace());
    let limit = usize::try_from(filter.opts.limit.max(0)).unwrap_or(0);
    if let Some(cached) = from_cache(ctx, filter, &prefix, raw).await? {
        return Ok(cached);
    }
    let (mut revision, mut start_after) = read_point(ctx, &prefix).await?;
    let mut items = Vec::new();
    let (more, remaining) = loop {
        let resp = ctx
            .state
            .store
            .range(RangeRequest {
                prefix: prefix.clone().into_bytes(),
                start_after: start_after.clone().map(String::into_bytes),
                limit,
                revision,
                skip_count: false,
            })
            .await
            .map_err(|e| continue_error(ctx, e))?;
        revision = Some(resp.revision);
        let mut examined = 0i64;
        // One decode for the page: a custom resource in another version converts all its
        // items in one webhook call (issue 6).
        let mut decoded = if raw {
            Vec::new()
        } else {
            ctx.decode_many(&resp.kvs.iter().collect::<Vec<_>>())
                .await?
        }
        .into_iter();
        let page_len = resp.kvs.len() as i64;
        let mut last_key = None;
        // Stored values are moved into the items, not copied (a list can be megabytes).
        for mut kv in resp.kvs {
            examined += 1;
            last_key = Some(std::mem::take(&mut kv.key));
            let item = match decoded.next() {
                None => Item::Raw(kv),
                Some(obj) if filter.matches(ctx, &obj) => Item::Decoded(obj),
                Some(_) => continue,
            };
            items.push(item);
            if limit > 0 && items.len() == limit {
                break;
            }
        }
        if let Some(key) = last_key {
            start_after = Some(String::from_utf8_lossy(&key).into_owned());
        }
        let more = resp.more || examined < page_len;
        if limit == 0 || !more || items.len() == limit {
            break (more, resp.count - examined);
        }
    };
    let rev = revision.unwrap_or_default();
    let mut list_meta = json!({"resourceVersion": rev.to_string()});
    if more && limit > 0 {
        let last = start_after.unwrap_or_default();
        let rel = last.strip_prefix(&prefix).unwrap_or(&last);
        list_meta["continue"] = json!(encode_continue(rev, rel));
        if filter.is_empty() && remaining > 0 {
            list_meta["remainingItemCount"] = json!(remaining);
        }
    }
    Ok((items, list_meta))
}

/// How long a `NotOlderThan` list waits for the watch cache to reach its revision.
const CACHE_WAIT: Duration = Duration::from_secs(3);

/// An unpaged list that may be served from the watch cache (`resourceVersion=0`, or
/// `resourceVersionMatch=NotOlderThan`), as kube-apiserver serves it: the cache's current
/// objects, without a store read. `None` for lists the store answers.
async fn from_cache(
    ctx: &Ctx,
    filter: &Filter,
    prefix: &str,
    raw: bool,
) -> Result<Option<(Vec<Item>, Value)>, ApiError> {
    let opts = &filter.opts;
    let rv = opts.resource_version.as_str();
    let not_older = opts.resource_version_match == Some(ResourceVersionMatch::NotOlderThan);
    let cacheable = opts.limit <= 0
        && opts.continue_token.is_empty()
        && (rv == "0" || (not_older && !rv.is_empty()));
    if !cacheable {
        return Ok(None);
    }
    let cacher = match ctx
        .state
        .caches
        .get(&ctx.entry.collection_prefix(None), CACHE_WAIT)
        .await
    {
        Ok(c) => c,
        Err(_) => return Ok(None),
    };
    if rv != "0" {
        let wanted: i64 = rv
            .parse()
            .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv}")))?;
        if !cacher.wait_for(wanted, CACHE_WAIT).await {
            return Err(ctx.store_error(
                kapi_storage::StoreError::FutureRevision {
                    requested: wanted,
                    current: cacher.revision(),
                },
                "",
            ));
        }
    }
    let (kvs, revision) = cacher.list(prefix);
    let items = if raw {
        kvs.into_iter().map(Item::Raw).collect()
    } else {
        ctx.decode_many(&kvs.iter().collect::<Vec<_>>())
            .await?
            .into_iter()
            .filter(|obj| filter.matches(ctx, obj))
            .map(Item::Decoded)
            .collect()
    };
    Ok(Some((
        items,
        json!({"resourceVersion": revision.to_string()}),
    )))
}

fn continue_error(ctx: &Ctx, e: kapi_storage::StoreError) -> ApiError {
    if e.is_compacted()
        && let Some(token) = ctx.query.get("continue")
    {
        let mut err = ApiError::expired(
            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
        );
        // Where the expired token stopped, at the latest revision from now on (R7.4).
        if let Ok((_, start)) = decode_continue(token) {
            err.list_continue = encode_continue(INCONSISTENT, &start);
        }
        return err;
    }
    if e.is_compacted() {
        return ApiError::expired("The resourceVersion for the provided list is too old.");
    }
    ctx.store_error(e, "")
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
        collect_items(ctx, &filter, raw).await
    }
    .await;
    let (items, list_meta) = match result {
        Ok(r) => r,
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
    let values = decode_items(ctx, items).await;
    match values {
        Ok(values) => ctx.writer.list(&ctx.entry, values, list_meta),
        Err(e) => ctx.writer.error(e),
    }
}
