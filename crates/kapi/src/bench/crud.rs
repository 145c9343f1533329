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
    let (lat, errors, total, _) = run_many_versions(client, n, c, request).await;
    (lat, errors, total)
}

/// [`run_many`], also returning the `metadata.resourceVersion` each reply carried (by
/// request index; empty for a failed request), so that updates can name it as real
/// clients do (custom resources refuse updates without it, R8.13).
pub async fn run_many_versions<F>(
    client: &ApiClient,
    n: usize,
    c: usize,
    request: F,
) -> (Vec<Duration>, usize, Duration, Vec<String>)
where
    F: Fn(usize) -> (Method, String, Option<Vec<u8>>),
{
    super::server_cpu::phase_started();
    let started = Instant::now();
    let mut results: Vec<(usize, Option<(Duration, String)>)> = futures::stream::iter(0..n)
        .map(|i| {
            let (method, path, body) = request(i);
            async move {
                let t = Instant::now();
                let outcome = match client.send(method, &path, "application/json", body).await {
                    Ok(r) if r.status.is_success() => {
                        Some((t.elapsed(), resource_version(&r.body)))
                    }
                    Ok(r) => {
                        tracing::warn!(status = %r.status, %path, "unexpected status");
                        None
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "request failed");
                        None
                    }
                };
                (i, outcome)
            }
        })
        .buffer_unordered(c.max(1))
        .collect()
        .await;
    let total = started.elapsed();
    results.sort_by_key(|(i, _)| *i);
    let errors = results.iter().filter(|(_, r)| r.is_none()).count();
    let versions = results
        .iter()
        .map(|(_, r)| r.as_ref().map(|(_, rv)| rv.clone()).unwrap_or_default())
        .collect();
    let latencies = results
        .into_iter()
        .filter_map(|(_, r)| r.map(|(d, _)| d))
        .collect();
    (latencies, errors, total, versions)
}

/// `metadata.resourceVersion` of a JSON reply, or empty.
fn resource_version(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["metadata"]["resourceVersion"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// Puts `"resourceVersion":"<rv>"` first in the metadata of a body built by this module.
pub fn with_resource_version(body: Vec<u8>, rv: &str) -> Vec<u8> {
    if rv.is_empty() {
        return body;
    }
    let text = String::from_utf8_lossy(&body).replacen(
        r#""metadata":{"#,
        &format!(r#""metadata":{{"resourceVersion":"{rv}","#),
        1,
    );
    text.into_bytes()
}

/// create, get, update of `n` ConfigMaps named `bench-c<c>-<i>` at concurrency `c`.
pub async fn crud_rows(client: &ApiClient, ns: &str, n: usize, c: usize) -> Vec<Row> {
    let base = configmaps(ns);
    let name = |i: usize| format!("bench-c{c}-{i}");
    let mut rows = Vec::new();
    let (lat, err, t, versions) = run_many_versions(client, n, c, |i| {
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
        let body = with_resource_version(
            configmap(&name(i), i + 1, r#""phase":"crud""#),
            &versions[i],
        );
        (Method::PUT, format!("{base}/{}", name(i)), Some(body))
    })
    .await;
    rows.push(Row::new("update", c, lat, err, t));
    rows
}
