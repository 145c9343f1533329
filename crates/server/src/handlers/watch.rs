//! WATCH: a chunked stream of watch events (JSON lines, or length-delimited protobuf),
//! with initial events, bookmarks, resume from a resourceVersion, 410 Expired when too old,
//! selectors, timeoutSeconds, and an end on server shutdown.

use super::Ctx;
use super::list::{Filter, collect_initial};
use crate::negotiate::Media;
use crate::respond::encode_text;
use crate::status::ApiError;
use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::Response;
use futures::StreamExt;
use kapi_registry::cache::{CacheMessage, CachedEvent, Subscription};
use kapi_registry::meta;
use kapi_storage::{WatchRequest, WatchResponse, WatchStream};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Default watch duration when `timeoutSeconds` is absent (kube: 30–60 min).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// How the watch starts: initial objects and the revision they were read at.
struct Start {
    initial: Vec<Value>,
    revision: i64,
    initial_end_bookmark: bool,
}

async fn start_point(ctx: &Ctx, filter: &Filter) -> Result<Start, ApiError> {
    let rv = ctx.query.get("resourceVersion").unwrap_or("");
    let send_initial = match filter.opts.send_initial_events {
        Some(v) => v,
        None => rv.is_empty() || rv == "0",
    };
    if send_initial {
        let (items, revision) = collect_initial(ctx, filter).await?;
        let explicit = filter.opts.send_initial_events.is_some();
        return Ok(Start {
            initial: items,
            revision,
            initial_end_bookmark: explicit,
        });
    }
    let revision = if rv.is_empty() || rv == "0" {
        ctx.state
            .store
            .current_revision()
            .await
            .map_err(|e| ctx.store_error(e, ""))?
    } else {
        rv.parse()
            .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv}")))?
    };
    Ok(Start {
        initial: Vec::new(),
        revision,
        initial_end_bookmark: false,
    })
}

/// Encodes one watch event in the negotiated format.
fn frame(ctx: &Ctx, kind: &str, obj: Value) -> Option<Bytes> {
    let obj = if kind == "ERROR" || kind == "BOOKMARK" {
        obj
    } else {
        ctx.writer.transform_for_watch(&ctx.entry, obj)
    };
    let event = kapi_registry::table::object(vec![("type", Value::from(kind)), ("object", obj)]);
    match ctx.writer.output.media {
        Media::Protobuf => ctx
            .entry
            .codec
            .encode_watch_frame_protobuf(kind, &event["object"])
            .ok()
            .map(Bytes::from),
        m => encode_text(&event, m, false).ok().map(Bytes::from),
    }
}

fn bookmark(ctx: &Ctx, revision: i64, initial_end: bool) -> Value {
    let mut metadata = json!({"resourceVersion": revision.to_string(), "creationTimestamp": null});
    if initial_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    json!({"kind": ctx.entry.names.kind, "apiVersion": ctx.entry.api_version(), "metadata": metadata})
}

fn expired(ctx: &Ctx, e: kapi_storage::StoreError) -> Value {
    status_value(ctx.store_error(e, ""))
}

/// An error as the object of an ERROR watch event (a `Status`).
fn status_value(err: ApiError) -> Value {
    serde_json::from_slice(&err.to_json()).unwrap_or(Value::Null)
}

/// Which event one change is for this watcher, and of which of its objects, honouring the
/// filter (R2.x cacher rules): an object that starts matching is ADDED, one that stops
/// matching DELETED (its previous state, sent at the change's revision).
fn classify<'v>(
    ctx: &Ctx,
    filter: &Filter,
    ev: &CachedEvent,
    current: Option<&'v Value>,
    previous: Option<&'v Value>,
) -> Option<(EventType, &'v Value)> {
    let Some(cur) = current else {
        let prev = previous?;
        return filter
            .matches(ctx, prev)
            .then_some((EventType::Deleted, prev));
    };
    let cur_ok = filter.matches(ctx, cur);
    let prev_ok = previous.map(|p| filter.matches(ctx, p));
    match (ev.is_create(), prev_ok, cur_ok) {
        (true, _, true) | (false, Some(false), true) => Some((EventType::Added, cur)),
        (false, Some(true) | None, true) => Some((EventType::Modified, cur)),
        (false, Some(true), false) => Some((EventType::Deleted, previous?)),
        _ => None,
    }
}

/// The type of a watch event that carries an object.
#[derive(Clone, Copy, PartialEq, Eq)]
enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// Everything a watch frame's bytes depend on besides the object and its codec: the event
/// type and the negotiated output; watchers with equal tags share one encoding of an event.
fn frame_tag(ctx: &Ctx, kind: EventType) -> u64 {
    let w = &ctx.writer;
    (kind as u64)
        | (w.output.media as u64) << 4
        | (w.output.transform as u64) << 8
        | u64::from(w.output.transform_v1beta1) << 12
        | u64::from(w.pretty) << 13
}

/// Where a watch's changes come from: the resource's watch cache (one store watch shared
/// by every watcher), or — for a revision older than the cache holds — a store watch of its
/// own.
enum Source {
    Cache(Subscription),
    Store {
        stream: WatchStream,
        pending: VecDeque<Arc<CachedEvent>>,
    },
}

/// One step of a watch.
enum Next {
    Event(Arc<CachedEvent>),
    Progress(i64),
    /// The watch ends with this ERROR event (or quietly).
    End(Option<Value>),
}

impl Source {
    async fn next(&mut self, ctx: &Ctx) -> Next {
        match self {
            Source::Cache(sub) => match sub.next().await {
                CacheMessage::Event(ev) => Next::Event(ev),
                CacheMessage::Progress(rev) => Next::Progress(rev),
                CacheMessage::Lagged(missed) => {
                    Next::End(Some(status_value(ApiError::expired(format!(
                        "the watcher fell behind by {missed} events and was closed; list and watch again"
                    )))))
                }
                CacheMessage::Closed(reason) => Next::End(Some(status_value(ApiError::expired(
                    format!("watch closed: {reason}; list and watch again"),
                )))),
            },
            Source::Store { stream, pending } => loop {
                if let Some(ev) = pending.pop_front() {
                    return Next::Event(ev);
                }
                match stream.next().await {
                    None => return Next::End(None),
                    Some(Err(e)) => return Next::End(Some(expired(ctx, e))),
                    Some(Ok(WatchResponse::Progress { revision })) => {
                        return Next::Progress(revision);
                    }
                    Some(Ok(WatchResponse::Events(events))) => {
                        pending.extend(events.into_iter().map(|e| Arc::new(CachedEvent::new(e))));
                    }
                }
            },
        }
    }
}

/// The frame of one change for this watcher: none when it is outside the watched
/// namespace or filtered out; an ERROR frame (and the end of the watch) when the object
/// cannot be decoded or converted (a webhook that broke), never a silent skip. The bytes are
/// encoded once per event for all watchers with the same codec and output.
async fn frames_of(ctx: &Ctx, filter: &Filter, ev: &CachedEvent) -> Result<Option<Bytes>, Bytes> {
    let prefix = ctx.entry.collection_prefix(ctx.namespace());
    if !ev.key.starts_with(prefix.as_bytes()) {
        return Ok(None);
    }
    let codec = &ctx.entry.codec;
    ev.with_decoded(codec, |decoded| match decoded {
        Ok((current, previous)) => {
            let Some((kind, obj)) = classify(ctx, filter, ev, current.as_ref(), previous.as_ref())
            else {
                return Ok(None);
            };
            Ok(ev.frame(codec, frame_tag(ctx, kind), || {
                let mut obj = obj.clone();
                if kind == EventType::Deleted {
                    meta::set_meta(
                        &mut obj,
                        "resourceVersion",
                        Some(json!(ev.revision.to_string())),
                    );
                }
                frame(ctx, kind.as_str(), obj)
            }))
        }
        Err(e) => {
            let status = status_value(ApiError::from(e.clone()));
            Err(frame(ctx, "ERROR", status).unwrap_or_default())
        }
    })
    .await
}

async fn pump(ctx: Ctx, filter: Filter, start: Start, mut source: Source, tx: mpsc::Sender<Bytes>) {
    let bookmarks = filter.opts.allow_watch_bookmarks;
    for obj in start.initial {
        let Some(b) = frame(&ctx, "ADDED", obj) else {
            continue;
        };
        if tx.send(b).await.is_err() {
            return;
        }
    }
    if start.initial_end_bookmark
        && let Some(b) = frame(&ctx, "BOOKMARK", bookmark(&ctx, start.revision, true))
        && tx.send(b).await.is_err()
    {
        return;
    }
    let timeout = filter
        .opts
        .timeout_seconds
        .map_or(DEFAULT_TIMEOUT, |t| Duration::from_secs(t.max(0) as u64));
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut shutdown = ctx.state.shutdown.clone();
    loop {
        let next = tokio::select! {
            next = source.next(&ctx) => next,
            () = &mut deadline => return,
            _ = shutdown.changed() => return,
            () = tx.closed() => return,
        };
        let out = match next {
            Next::End(error) => {
                if let Some(b) = error.and_then(|e| frame(&ctx, "ERROR", e)) {
                    let _ = tx.send(b).await;
                }
                return;
            }
            Next::Progress(revision) if bookmarks => {
                frame(&ctx, "BOOKMARK", bookmark(&ctx, revision, false))
            }
            Next::Progress(_) => None,
            Next::Event(ev) if ev.revision <= start.revision => None,
            Next::Event(ev) => match frames_of(&ctx, &filter, &ev).await {
                Ok(frame) => frame,
                Err(error_frame) => {
                    let _ = tx.send(error_frame).await;
                    return;
                }
            },
        };
        if let Some(b) = out
            && tx.send(b).await.is_err()
        {
            return;
        }
    }
}

/// How long a watch waits for its resource's cache to load before watching the store.
const CACHE_LOAD_TIMEOUT: Duration = Duration::from_secs(5);

/// GET with `watch=true`.
pub async fn watch(ctx: Ctx) -> Response {
    let filter = match Filter::from_query(&ctx) {
        Ok(f) => f,
        Err(e) => return ctx.writer.error(e),
    };
    let start = match start_point(&ctx, &filter).await {
        Ok(s) => s,
        Err(e) => return ctx.writer.error(e),
    };
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let content_type = match ctx.writer.output.media {
        Media::Protobuf => "application/vnd.kubernetes.protobuf;stream=watch",
        m => m.as_str(),
    };
    let cache_prefix = ctx.entry.collection_prefix(None);
    let cached = match ctx
        .state
        .caches
        .get(&cache_prefix, CACHE_LOAD_TIMEOUT)
        .await
    {
        Ok(cacher) => cacher.subscribe(start.revision).map(Source::Cache),
        Err(e) => {
            tracing::warn!(error = %e, "watching the store directly");
            None
        }
    };
    let source = match cached {
        Some(source) => Ok(source),
        None => {
            let mut req = WatchRequest::prefix(ctx.entry.collection_prefix(ctx.namespace()))
                .from_revision(start.revision + 1)
                .with_prev_kv();
            if filter.opts.allow_watch_bookmarks {
                req = req.with_progress_notify();
            }
            ctx.state
                .store
                .watch(req)
                .await
                .map(|stream| Source::Store {
                    stream,
                    pending: VecDeque::new(),
                })
        }
    };
    match source {
        Ok(source) => {
            tokio::spawn(pump(ctx, filter, start, source, tx));
        }
        Err(e) => {
            if let Some(b) = frame(&ctx, "ERROR", expired(&ctx, e)) {
                let _ = tx.try_send(b);
            }
        }
    }
    let body = Body::from_stream(
        tokio_stream::wrappers::ReceiverStream::new(rx).map(Ok::<_, std::io::Error>),
    );
    crate::respond::stream_response(StatusCode::OK, content_type, body)
}
