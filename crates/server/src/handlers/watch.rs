//! WATCH: a chunked stream of watch events (JSON lines, or length-delimited protobuf),
//! with initial events, bookmarks, resume from a resourceVersion, 410 Expired when too old,
//! selectors, timeoutSeconds, and an end on server shutdown.

use super::Ctx;
use super::list::{Filter, collect};
use crate::negotiate::Media;
use crate::respond::encode_text;
use crate::status::ApiError;
use axum::body::{Body, Bytes};
use axum::http::StatusCode;
use axum::response::Response;
use futures::StreamExt;
use kapi_registry::meta;
use kapi_storage::{Event, KeyValue, WatchRequest, WatchResponse, WatchStream};
use serde_json::{Value, json};
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
        let mut list_ctx = Ctx::for_object(ctx, ctx.info.namespace.clone(), String::new());
        list_ctx.query = ctx.query.clone();
        list_ctx.query.0.remove("limit");
        list_ctx.query.0.remove("continue");
        list_ctx.query.0.remove("resourceVersion");
        let (items, list_meta) = collect(&list_ctx, filter).await?;
        let revision = list_meta["resourceVersion"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
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
    let err = ctx.store_error(e, "");
    serde_json::from_slice(&err.to_json()).unwrap_or(Value::Null)
}

/// Turns one store event into a watch event, honouring the filter (R2.x cacher rules).
fn convert(ctx: &Ctx, filter: &Filter, ev: &Event) -> Option<(&'static str, Value)> {
    let decode = |kv: &KeyValue| ctx.decode(kv).ok();
    match ev {
        Event::Put { kv, prev } => {
            let cur = decode(kv)?;
            let cur_ok = filter.matches(ctx, &cur);
            let prev_ok = prev
                .as_ref()
                .and_then(decode)
                .map(|p| filter.matches(ctx, &p));
            match (kv.create_revision == kv.mod_revision, prev_ok, cur_ok) {
                (true, _, true) | (false, Some(false), true) => Some(("ADDED", cur)),
                (false, Some(true) | None, true) => Some(("MODIFIED", cur)),
                (false, Some(true), false) => {
                    let mut p = prev.as_ref().and_then(decode)?;
                    meta::set_meta(
                        &mut p,
                        "resourceVersion",
                        Some(json!(kv.mod_revision.to_string())),
                    );
                    Some(("DELETED", p))
                }
                _ => None,
            }
        }
        Event::Delete { revision, prev, .. } => {
            let mut p = prev.as_ref().and_then(decode)?;
            meta::set_meta(&mut p, "resourceVersion", Some(json!(revision.to_string())));
            filter.matches(ctx, &p).then_some(("DELETED", p))
        }
    }
}

async fn pump(
    ctx: Ctx,
    filter: Filter,
    start: Start,
    mut stream: WatchStream,
    tx: mpsc::Sender<Bytes>,
) {
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
        let item = tokio::select! {
            item = stream.next() => item,
            () = &mut deadline => return,
            _ = shutdown.changed() => return,
            () = tx.closed() => return,
        };
        let frames: Vec<Bytes> = match item {
            None => return,
            Some(Err(e)) => {
                let _ = frame(&ctx, "ERROR", expired(&ctx, e)).map(|b| tx.try_send(b));
                return;
            }
            Some(Ok(WatchResponse::Progress { revision })) if bookmarks => {
                frame(&ctx, "BOOKMARK", bookmark(&ctx, revision, false))
                    .into_iter()
                    .collect()
            }
            Some(Ok(WatchResponse::Progress { .. })) => Vec::new(),
            Some(Ok(WatchResponse::Events(events))) => events
                .iter()
                .filter_map(|ev| convert(&ctx, &filter, ev))
                .filter_map(|(kind, obj)| frame(&ctx, kind, obj))
                .collect(),
        };
        for b in frames {
            if tx.send(b).await.is_err() {
                return;
            }
        }
    }
}

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
    let mut req = WatchRequest::prefix(ctx.entry.collection_prefix(ctx.namespace()))
        .from_revision(start.revision + 1)
        .with_prev_kv();
    if filter.opts.allow_watch_bookmarks {
        req = req.with_progress_notify();
    }
    let (tx, rx) = mpsc::channel::<Bytes>(64);
    let content_type = match ctx.writer.output.media {
        Media::Protobuf => "application/vnd.kubernetes.protobuf;stream=watch",
        m => m.as_str(),
    };
    match ctx.state.store.watch(req).await {
        Ok(stream) => {
            tokio::spawn(pump(ctx, filter, start, stream, tx));
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
