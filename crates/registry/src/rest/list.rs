//! LIST through the REST store: label and field selectors ([`Selection`], unknown field
//! labels 400), limit/continue pagination at one revision with remainingItemCount,
//! resourceVersion / resourceVersionMatch semantics (latest, not-older-than, exact; 504 for a
//! revision in the future, 410 once compacted, an "inconsistent continue" token for an
//! expired one, R7.4), and unpaged `resourceVersion=0` / `NotOlderThan` lists answered from
//! the watch cache without a store read. A page of stored objects is decoded in one codec
//! call (one conversion-webhook call for a custom resource), or left undecoded for callers
//! that splice the stored bytes.

use super::RestStore;
use super::options::{ListOptions, ResourceVersionMatch};
use crate::cache::{CachedObject, WatchCaches};
use crate::error::{Error, Result};
use crate::meta;
use crate::selectors::{Requirement, Selector, parse_fields, parse_labels};
use base64::Engine;
use kapi_storage::{KeyValue, RangeRequest, StoreError};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// How long a `NotOlderThan` list waits for the watch cache to reach its revision.
const CACHE_WAIT: Duration = Duration::from_secs(3);

/// How long a consistent list waits for the watch cache to catch up with the store before
/// it reads the store instead.
const CONSISTENT_WAIT: Duration = Duration::from_secs(3);

/// The revision of an "inconsistent continue" token: list on at the latest revision.
const INCONSISTENT: i64 = -1;

/// The label and field selectors of a list, delete-collection or watch.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    labels: Selector,
    fields: Selector,
}

impl Selection {
    /// Parses the selectors of `opts` for `rest`'s resource (a watch of one named object
    /// adds `metadata.name=<name>`); a field label the kind does not have is 400 `field
    /// label not supported: <key>`.
    pub fn new(rest: &RestStore<'_>, opts: &ListOptions, name: Option<&str>) -> Result<Self> {
        let labels = parse_labels(&opts.label_selector)?;
        let mut fields = parse_fields(&opts.field_selector)?;
        if let Some(name) = name.filter(|n| !n.is_empty()) {
            fields.0.push(Requirement::In(
                "metadata.name".into(),
                vec![name.to_owned()],
            ));
        }
        let entry = rest.entry;
        let known: Vec<String> = entry
            .strategy
            .field_labels(&Value::Null)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        for key in fields.keys() {
            let ok = key == "metadata.name"
                || (key == "metadata.namespace" && entry.namespaced())
                || known.iter().any(|k| k == key);
            if !ok {
                return Err(Error::bad_request(format!(
                    "field label not supported: {key}"
                )));
            }
        }
        Ok(Self { labels, fields })
    }

    /// True when no selector is set.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    /// Whether `obj` (of `rest`'s resource) passes both selectors.
    pub fn matches(&self, rest: &RestStore<'_>, obj: &Value) -> bool {
        if !self.labels.matches(&meta::labels(obj)) {
            return false;
        }
        if self.fields.is_empty() {
            return true;
        }
        let extra = rest.entry.strategy.field_labels(obj);
        let mut pairs: Vec<(&str, &str)> = vec![
            ("metadata.name", meta::name(obj)),
            ("metadata.namespace", meta::namespace(obj)),
        ];
        pairs.extend(extra.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        self.fields.matches(&pairs)
    }
}

/// One listed object: decoded, or (unfiltered lists asked for raw) the stored key-value.
pub enum Item {
    /// Stored bytes not decoded yet (the key is not kept).
    Raw(KeyValue),
    /// A watch-cache object not decoded yet, with the encodings earlier lists made of it.
    Cached(Arc<CachedObject>),
    /// The object, with its resourceVersion.
    Decoded(Value),
}

impl Item {
    /// The stored key-value of an undecoded item.
    pub fn stored(&self) -> Option<&KeyValue> {
        match self {
            Item::Raw(kv) => Some(kv),
            Item::Cached(obj) => Some(&obj.kv),
            Item::Decoded(_) => None,
        }
    }
}

/// One page of a list.
pub struct ListPage {
    /// The objects, in key order.
    pub items: Vec<Item>,
    /// The revision the page was read at.
    pub revision: i64,
    /// The token of the next page, when there is one.
    pub continue_token: Option<String>,
    /// How many objects follow the page (unfiltered paged lists).
    pub remaining_item_count: Option<i64>,
}

impl ListPage {
    /// Sets the token that continues after `last_key` (a key under `prefix`) at the page's
    /// revision, and `remainingItemCount` when it is known (unfiltered lists) and not zero.
    fn continue_after(&mut self, prefix: &str, last_key: &str, remaining: Option<i64>) {
        let rel = last_key.strip_prefix(prefix).unwrap_or(last_key);
        self.continue_token = Some(encode_continue(self.revision, rel));
        self.remaining_item_count = remaining.filter(|n| *n > 0);
    }

    /// The list's `metadata` (resourceVersion, continue, remainingItemCount).
    pub fn list_meta(&self) -> Value {
        let mut m = json!({"resourceVersion": self.revision.to_string()});
        if let Some(token) = &self.continue_token {
            m["continue"] = json!(token);
        }
        if let Some(n) = self.remaining_item_count {
            m["remainingItemCount"] = json!(n);
        }
        m
    }
}

/// Encodes a continue token (revision + last key relative to the collection prefix).
pub fn encode_continue(revision: i64, start: &str) -> String {
    let token = json!({"v": "meta.k8s.io/v1", "rv": revision, "start": start});
    base64::engine::general_purpose::URL_SAFE.encode(token.to_string())
}

/// The revision and start key of a continue token; 400 when it is not one.
pub fn decode_continue(token: &str) -> Result<(i64, String)> {
    let bad = || Error::bad_request(format!("continue key is not valid: {token}"));
    let bytes = base64::engine::general_purpose::URL_SAFE
        .decode(token)
        .map_err(|_| bad())?;
    let v: Value = serde_json::from_slice(&bytes).map_err(|_| bad())?;
    let rv = v.get("rv").and_then(Value::as_i64).ok_or_else(bad)?;
    let start = v.get("start").and_then(Value::as_str).ok_or_else(bad)?;
    Ok((rv, start.to_owned()))
}

/// A resourceVersion given as a number; 400 when it is not one.
fn parse_rv(rv: &str) -> Result<i64> {
    rv.parse()
        .map_err(|_| Error::bad_request(format!("invalid resource version: {rv}")))
}

impl RestStore<'_> {
    /// Decodes the key-values of one list page (one conversion call for all of them), each
    /// with its resourceVersion.
    pub async fn decode_many(&self, kvs: &[&KeyValue]) -> Result<Vec<Value>> {
        let values: Vec<&[u8]> = kvs.iter().map(|kv| kv.value.as_slice()).collect();
        let mut objs = self.entry.codec.decode_stored_many(&values).await?;
        for (obj, kv) in objs.iter_mut().zip(kvs) {
            meta::set_meta(
                obj,
                "resourceVersion",
                Some(Value::String(kv.mod_revision.to_string())),
            );
        }
        Ok(objs)
    }

    /// The listed objects, decoded; the stored ones in one batch (one conversion call).
    pub async fn decode_items(&self, items: Vec<Item>) -> Result<Vec<Value>> {
        let raw: Vec<&KeyValue> = items.iter().filter_map(Item::stored).collect();
        let mut decoded = self.decode_many(&raw).await?.into_iter();
        items
            .into_iter()
            .map(|item| match item {
                Item::Decoded(v) => Ok(v),
                Item::Raw(_) | Item::Cached(_) => decoded
                    .next()
                    .ok_or_else(|| Error::internal("list decode returned too few objects")),
            })
            .collect()
    }

    /// LIST of the objects under `namespace` (every namespace when `None`) that `selection`
    /// keeps, one page as `opts` asks; with `raw` and no selector, objects are left
    /// undecoded. With `caches`, consistent lists (no resourceVersion), their continued
    /// pages while nothing changed, `resourceVersion=0` and unpaged `NotOlderThan` lists are
    /// answered from the watch cache; the store answers the rest.
    pub async fn list(
        &self,
        caches: Option<&WatchCaches>,
        namespace: Option<&str>,
        opts: &ListOptions,
        selection: &Selection,
        raw: bool,
    ) -> Result<ListPage> {
        let raw = raw && selection.is_empty();
        let prefix = self.entry.collection_prefix(namespace);
        let limit = usize::try_from(opts.limit.max(0)).unwrap_or(0);
        if let Some(caches) = caches
            && let Some(cached) = self
                .list_from_cache(caches, opts, selection, &prefix, raw)
                .await?
        {
            return Ok(cached);
        }
        let (mut revision, mut start_after) = self.read_point(opts, &prefix).await?;
        let mut items = Vec::new();
        let (more, remaining) = loop {
            let resp = self
                .store
                .range(RangeRequest {
                    prefix: prefix.clone().into_bytes(),
                    start_after: start_after.clone().map(String::into_bytes),
                    limit,
                    revision,
                    skip_count: false,
                })
                .await
                .map_err(|e| self.continue_error(opts, e))?;
            revision = Some(resp.revision);
            let mut examined = 0i64;
            // One decode for the page: a custom resource in another version converts all
            // its items in one webhook call (issue 6).
            let mut decoded = if raw {
                Vec::new()
            } else {
                self.decode_many(&resp.kvs.iter().collect::<Vec<_>>())
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
                    Some(obj) if selection.matches(self, &obj) => Item::Decoded(obj),
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
        let revision = revision.unwrap_or_default();
        let mut page = ListPage {
            items,
            revision,
            continue_token: None,
            remaining_item_count: None,
        };
        if more && limit > 0 {
            let last = start_after.unwrap_or_default();
            page.continue_after(&prefix, &last, selection.is_empty().then_some(remaining));
        }
        Ok(page)
    }

    /// The revision to read at and the key to start after.
    async fn read_point(
        &self,
        opts: &ListOptions,
        prefix: &str,
    ) -> Result<(Option<i64>, Option<String>)> {
        let rv = opts.resource_version.as_str();
        if !opts.continue_token.is_empty() {
            if !rv.is_empty() && rv != "0" {
                return Err(Error::bad_request(
                    "specifying resource version is not allowed when using continue",
                ));
            }
            let (rev, start) = decode_continue(&opts.continue_token)?;
            if rev == INCONSISTENT {
                // The token of an expired-continue Status: go on at the latest revision (R7.4).
                return Ok((None, Some(format!("{prefix}{start}"))));
            }
            // Nothing was written since the first page: the latest state is that revision,
            // and reading it is cheaper than reading history.
            let current = self.store.current_revision().await.ok();
            let rev = (current != Some(rev)).then_some(rev);
            return Ok((rev, Some(format!("{prefix}{start}"))));
        }
        if rv.is_empty() || rv == "0" {
            return Ok((None, None));
        }
        let n = parse_rv(rv)?;
        if opts.resource_version_match == Some(ResourceVersionMatch::Exact) {
            return Ok((Some(n), None));
        }
        let current = self
            .store
            .current_revision()
            .await
            .map_err(|e| self.store_error(e, ""))?;
        if n > current {
            return Err(self.store_error(
                StoreError::FutureRevision {
                    requested: n,
                    current,
                },
                "",
            ));
        }
        Ok((None, None))
    }

    /// A list the watch cache answers, as kube-apiserver's cache does: a consistent list
    /// once the cache has caught up with the store's current revision (progress requested
    /// from the store watch), `resourceVersion=0` at once, an unpaged `NotOlderThan` once the
    /// cache reached that revision, and a continued page while nothing under the resource
    /// changed since its first page. `None` for lists the store answers (exact revisions,
    /// changed continuations, a cache that cannot catch up in time).
    async fn list_from_cache(
        &self,
        caches: &WatchCaches,
        opts: &ListOptions,
        selection: &Selection,
        prefix: &str,
        raw: bool,
    ) -> Result<Option<ListPage>> {
        enum Read {
            Any,
            NotOlderThan(i64),
            Consistent,
            Continue(i64, String),
        }
        let rv = opts.resource_version.as_str();
        let matching = opts.resource_version_match;
        let read = if !opts.continue_token.is_empty() {
            if !rv.is_empty() && rv != "0" {
                return Ok(None);
            }
            let (rev, start) = decode_continue(&opts.continue_token)?;
            if rev == INCONSISTENT {
                return Ok(None);
            }
            Read::Continue(rev, format!("{prefix}{start}"))
        } else if rv.is_empty() {
            Read::Consistent
        } else if rv == "0" && matching != Some(ResourceVersionMatch::Exact) {
            Read::Any
        } else if matching == Some(ResourceVersionMatch::NotOlderThan) && opts.limit <= 0 {
            Read::NotOlderThan(parse_rv(rv)?)
        } else {
            return Ok(None);
        };
        let Ok(cacher) = caches
            .get(&self.entry.collection_prefix(None), CACHE_WAIT)
            .await
        else {
            return Ok(None);
        };
        let (start_after, at) = match &read {
            Read::Any => (None, None),
            Read::NotOlderThan(wanted) => {
                if !cacher.wait_for(*wanted, CACHE_WAIT).await {
                    return Err(self.store_error(
                        StoreError::FutureRevision {
                            requested: *wanted,
                            current: cacher.revision(),
                        },
                        "",
                    ));
                }
                (None, None)
            }
            Read::Consistent => {
                let Ok(current) = self.store.current_revision().await else {
                    return Ok(None);
                };
                if !cacher.wait_fresh(current, CONSISTENT_WAIT).await {
                    return Ok(None);
                }
                (None, None)
            }
            Read::Continue(rev, start) => (Some(start.as_bytes()), Some(*rev)),
        };
        let Some(snapshot) = cacher.snapshot(prefix, start_after, at) else {
            return Ok(None);
        };
        let limit = usize::try_from(opts.limit.max(0)).unwrap_or(0);
        let objects = snapshot.objects;
        let total = objects.len();
        let mut items = Vec::new();
        let mut examined = 0;
        if raw {
            examined = if limit > 0 { limit.min(total) } else { total };
            items.extend(objects[..examined].iter().cloned().map(Item::Cached));
        } else {
            // One decode per page-sized chunk (one conversion call for a custom resource in
            // another version), stopping once the page is full.
            let chunk = if limit > 0 { limit } else { total.max(1) };
            'chunks: for group in objects.chunks(chunk) {
                let kvs: Vec<&KeyValue> = group.iter().map(|o| &o.kv).collect();
                for obj in self.decode_many(&kvs).await? {
                    examined += 1;
                    if selection.matches(self, &obj) {
                        items.push(Item::Decoded(obj));
                        if limit > 0 && items.len() == limit {
                            break 'chunks;
                        }
                    }
                }
            }
        }
        let mut page = ListPage {
            items,
            revision: snapshot.revision,
            continue_token: None,
            remaining_item_count: None,
        };
        if limit > 0
            && examined < total
            && let Some(last) = examined.checked_sub(1).and_then(|i| objects.get(i))
        {
            let remaining = (total - examined) as i64;
            let last = String::from_utf8_lossy(&last.kv.key);
            page.continue_after(prefix, &last, selection.is_empty().then_some(remaining));
        }
        Ok(Some(page))
    }

    /// A failed range as the list's error: a compacted continue token is 410 with a token
    /// that lists on at the latest revision (R7.4); a compacted resourceVersion is 410.
    fn continue_error(&self, opts: &ListOptions, e: StoreError) -> Error {
        if e.is_compacted() && !opts.continue_token.is_empty() {
            let continue_token = decode_continue(&opts.continue_token)
                .map(|(_, start)| encode_continue(INCONSISTENT, &start))
                .unwrap_or_default();
            return Error::Expired {
                message: "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.".into(),
                continue_token,
            };
        }
        if e.is_compacted() {
            return Error::expired("The resourceVersion for the provided list is too old.");
        }
        self.store_error(e, "")
    }
}
