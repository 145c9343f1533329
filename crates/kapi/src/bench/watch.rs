//! Watch fan-out: `w` watchers on one label selector, one writer creating `events` ConfigMaps
//! one after another; events/s delivered to all watchers and latency create-sent → event
//! received, over every (watcher, event) pair.

use super::client::ApiClient;
use super::crud::{configmap, configmaps};
use super::report::Row;
use http::Method;
use http_body_util::BodyExt;
use serde::Deserialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How long watchers wait for the last event before giving up.
const DEADLINE: Duration = Duration::from_secs(60);

#[derive(Deserialize)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    object: Object,
}

#[derive(Deserialize)]
struct Object {
    metadata: Meta,
}

#[derive(Deserialize)]
struct Meta {
    name: String,
}

/// Send times of the writer, as nanoseconds since `base` plus one (0: not sent yet).
struct Clock {
    base: Instant,
    sent: Vec<AtomicU64>,
}

impl Clock {
    fn latency(&self, i: usize, now: Instant) -> Option<Duration> {
        let sent = self.sent.get(i)?.load(Ordering::Acquire).checked_sub(1)?;
        Some(now.duration_since(self.base) - Duration::from_nanos(sent))
    }
}

/// Watches per connection: below the stream limit HTTP/2 servers announce (kube-apiserver's
/// and kapi's alike), so no watch waits for a stream.
const WATCHES_PER_CONNECTION: usize = 100;

/// One fan-out phase: `watchers` watchers, `events` creates.
pub async fn fan_out(client: &Arc<ApiClient>, ns: &str, watchers: usize, events: usize) -> Row {
    let watch_client = Arc::new(client.with_at_least(watchers.div_ceil(WATCHES_PER_CONNECTION)));
    let label = format!("w{watchers}");
    let name = format!("watch fan-out {events} events");
    let rv = match list_rv(client, ns).await {
        Ok(rv) => rv,
        Err(e) => {
            tracing::warn!(error = %e, "watch: list failed");
            return Row::new(
                name,
                watchers,
                Vec::new(),
                watchers * events,
                Duration::ZERO,
            );
        }
    };
    let clock = Arc::new(Clock {
        base: Instant::now(),
        sent: (0..events).map(|_| AtomicU64::new(0)).collect(),
    });
    let path = format!(
        "{}?watch=1&resourceVersion={rv}&labelSelector=watch%3D{label}",
        configmaps(ns)
    );
    let (ready_tx, mut ready_rx) = mpsc::channel(watchers.max(1));
    let mut tasks = Vec::new();
    for _ in 0..watchers {
        let (client, clock, path, ready) = (
            watch_client.clone(),
            clock.clone(),
            path.clone(),
            ready_tx.clone(),
        );
        let prefix = format!("watch-{label}-");
        tasks.push(tokio::spawn(async move {
            watch_one(&client, &path, &prefix, events, &clock, ready).await
        }));
    }
    drop(ready_tx);
    // Watches start at `rv`, so a watcher that is slow to answer misses nothing.
    let all_ready = async { while ready_rx.recv().await.is_some() {} };
    let _ = tokio::time::timeout(Duration::from_secs(10), all_ready).await;
    super::server_cpu::phase_started();
    let started = Instant::now();
    let labels = format!(r#""watch":"{label}""#);
    for i in 0..events {
        let body = configmap(&format!("watch-{label}-{i}"), i, &labels);
        clock.sent[i].store(
            clock.base.elapsed().as_nanos() as u64 + 1,
            Ordering::Release,
        );
        if let Err(e) = client
            .send(
                Method::POST,
                &configmaps(ns),
                "application/json",
                Some(body),
            )
            .await
        {
            tracing::warn!(error = %e, "watch writer failed");
        }
    }
    let mut latencies = Vec::new();
    for task in tasks {
        if let Ok(mut lat) = task.await {
            latencies.append(&mut lat);
        }
    }
    let delivered = latencies.len();
    Row::new(
        name,
        watchers,
        latencies,
        watchers * events - delivered,
        started.elapsed(),
    )
}

/// The resourceVersion to start watching from (a one-item list).
async fn list_rv(client: &ApiClient, ns: &str) -> Result<String, String> {
    let path = format!("{}?limit=1", configmaps(ns));
    let reply = client
        .send(Method::GET, &path, "application/json", None)
        .await
        .map_err(|e| e.to_string())?;
    let v: serde_json::Value = serde_json::from_slice(&reply.body).map_err(|e| e.to_string())?;
    v["metadata"]["resourceVersion"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no resourceVersion in list ({})", reply.status))
}

/// One watcher: reports ready once the response head arrived, then collects the latency of
/// each ADDED event of the writer's objects until all arrived or the deadline passed.
async fn watch_one(
    client: &ApiClient,
    path: &str,
    prefix: &str,
    events: usize,
    clock: &Clock,
    ready: mpsc::Sender<()>,
) -> Vec<Duration> {
    let mut latencies = Vec::with_capacity(events);
    let resp = client
        .open(Method::GET, path, "application/json", None)
        .await;
    drop(ready);
    let Ok(resp) = resp else { return latencies };
    let mut body = resp.into_body();
    let mut buf: Vec<u8> = Vec::new();
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while latencies.len() < events {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(Ok(frame))) => frame,
            _ => break,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let now = Instant::now();
        buf.extend_from_slice(&data);
        while let Some(end) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=end).collect();
            let Ok(ev) = serde_json::from_slice::<Event>(&line) else {
                continue;
            };
            let index = ev
                .object
                .metadata
                .name
                .strip_prefix(prefix)
                .and_then(|i| i.parse().ok());
            if ev.kind == "ADDED"
                && let Some(lat) = index.and_then(|i| clock.latency(i, now))
            {
                latencies.push(lat);
            }
        }
    }
    latencies
}
