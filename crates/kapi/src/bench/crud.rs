//! Create, get and update of ConfigMaps, `n` of each, `c` requests in flight.

use super::client::ApiClient;
use super::report::Row;
use futures::StreamExt;
use http::Method;
use std::time::{Duration, Instant};

/// A ~300-byte ConfigMap body.
pub fn configmap(name: &str, value: usize, labels: &str) -> Vec<u8> {
    format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}","labels":{{"app":"kapi-bench",{labels}}}}},"data":{{"value":"{value}","payload":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}}}"#
    )
    .into_bytes()
}

/// The collection path of ConfigMaps in a namespace.
pub fn configmaps(ns: &str) -> String {
    format!("/api/v1/namespaces/{ns}/configmaps")
}

/// Runs `n` requests made by `request(i)`, `c` at a time; returns latencies and error count.
pub async fn run_many<F>(
    client: &ApiClient,
    n: usize,
    c: usize,
    request: F,
) -> (Vec<Duration>, usize, Duration)
where
    F: Fn(usize) -> (Method, String, Option<Vec<u8>>),
{
    let started = Instant::now();
    let results: Vec<Option<Duration>> = futures::stream::iter(0..n)
        .map(|i| {
            let (method, path, body) = request(i);
            async move {
                let t = Instant::now();
                match client.send(method, &path, "application/json", body).await {
                    Ok(r) if r.status.is_success() => Some(t.elapsed()),
                    Ok(r) => {
                        tracing::warn!(status = %r.status, %path, "unexpected status");
                        None
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "request failed");
                        None
                    }
                }
            }
        })
        .buffer_unordered(c.max(1))
        .collect()
        .await;
    let total = started.elapsed();
    let errors = results.iter().filter(|r| r.is_none()).count();
    (results.into_iter().flatten().collect(), errors, total)
}

/// create, get, update of `n` ConfigMaps named `bench-c<c>-<i>` at concurrency `c`.
pub async fn crud_rows(client: &ApiClient, ns: &str, n: usize, c: usize) -> Vec<Row> {
    let base = configmaps(ns);
    let name = |i: usize| format!("bench-c{c}-{i}");
    let mut rows = Vec::new();
    let (lat, err, t) = run_many(client, n, c, |i| {
        let body = configmap(&name(i), i, r#""phase":"crud""#);
        (Method::POST, base.clone(), Some(body))
    })
    .await;
    rows.push(Row::new("create", c, lat, err, t));
    let (lat, err, t) = run_many(client, n, c, |i| {
        (Method::GET, format!("{base}/{}", name(i)), None)
    })
    .await;
    rows.push(Row::new("get", c, lat, err, t));
    let (lat, err, t) = run_many(client, n, c, |i| {
        let body = configmap(&name(i), i + 1, r#""phase":"crud""#);
        (Method::PUT, format!("{base}/{}", name(i)), Some(body))
    })
    .await;
    rows.push(Row::new("update", c, lat, err, t));
    rows
}
