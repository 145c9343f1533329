//! Load tool for any Kubernetes API server (kapi or kube-apiserver): create, get, update of
//! N ConfigMaps at several concurrencies, and lists of all of them (JSON, protobuf, paged).
//! Prints a Markdown table and writes JSON.
//!
//! `cargo run --release -p kapi-server --example bench -- --kubeconfig kapi-data/kubeconfig
//!  [--objects 1000] [--concurrency 1,16] [--json bench.json] [--keep true]`

use futures::StreamExt;
use kube::config::{KubeConfigOptions, Kubeconfig};
use std::time::{Duration, Instant};

const NS: &str = "kapi-bench";

struct Args {
    kubeconfig: String,
    objects: usize,
    concurrency: Vec<usize>,
    json: Option<String>,
    keep: bool,
}

fn args() -> Args {
    let mut a = Args {
        kubeconfig: "kapi-data/kubeconfig".into(),
        objects: 1000,
        concurrency: vec![1, 16],
        json: None,
        keep: false,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    for pair in argv.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_default();
        match pair[0].as_str() {
            "--kubeconfig" => a.kubeconfig = value,
            "--objects" => a.objects = value.parse().unwrap_or(a.objects),
            "--concurrency" => {
                a.concurrency = value.split(',').filter_map(|c| c.parse().ok()).collect()
            }
            "--json" => a.json = Some(value),
            "--keep" => a.keep = value == "true",
            other => eprintln!("ignoring unknown flag {other}"),
        }
    }
    a
}

/// One measured operation.
struct Row {
    op: String,
    concurrency: usize,
    count: usize,
    seconds: f64,
    p50_ms: f64,
    p99_ms: f64,
}

fn summarize(op: &str, concurrency: usize, mut lat: Vec<Duration>, total: Duration) -> Row {
    lat.sort();
    let pick = |q: f64| {
        lat.get(((lat.len() as f64 - 1.0) * q).round() as usize)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    Row {
        op: op.into(),
        concurrency,
        count: lat.len(),
        seconds: total.as_secs_f64(),
        p50_ms: pick(0.5),
        p99_ms: pick(0.99),
    }
}

async fn send(client: &kube::Client, req: http::Request<Vec<u8>>) -> Duration {
    let start = Instant::now();
    let req = req.map(kube::client::Body::from);
    match client.send(req).await {
        Ok(resp) => {
            let status = resp.status();
            let _ = resp.into_body().collect_bytes().await;
            if !status.is_success() && status.as_u16() != 409 {
                eprintln!("unexpected status {status}");
            }
        }
        Err(e) => eprintln!("request failed: {e}"),
    }
    start.elapsed()
}

fn cm_body(name: &str, value: usize) -> Vec<u8> {
    format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}","labels":{{"bench":"kapi"}}}},"data":{{"value":"{value}","payload":"0123456789abcdef0123456789abcdef"}}}}"#).into_bytes()
}

async fn run_op(client: &kube::Client, op: &str, n: usize, c: usize, round: usize) -> Row {
    let started = Instant::now();
    let base = format!("/api/v1/namespaces/{NS}/configmaps");
    let lat: Vec<Duration> = futures::stream::iter(0..n)
        .map(|i| {
            let name = format!("bench-{round}-{i}");
            let req = match op {
                "create" => http::Request::post(&base)
                    .header("content-type", "application/json")
                    .body(cm_body(&name, i)),
                "get" => http::Request::get(format!("{base}/{name}")).body(Vec::new()),
                _ => http::Request::put(format!("{base}/{name}"))
                    .header("content-type", "application/json")
                    .body(cm_body(&name, i + 1)),
            }
            .expect("valid request");
            async move { send(client, req).await }
        })
        .buffer_unordered(c)
        .collect()
        .await;
    summarize(op, c, lat, started.elapsed())
}

async fn run_list(client: &kube::Client, name: &str, accept: &str, limit: usize) -> Row {
    let started = Instant::now();
    let mut lat = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let mut cont = String::new();
        loop {
            let mut path = format!("/api/v1/namespaces/{NS}/configmaps?limit={limit}");
            if !cont.is_empty() {
                path.push_str(&format!("&continue={cont}"));
            }
            let req = http::Request::get(path)
                .header("accept", accept)
                .body(Vec::new())
                .expect("valid request");
            let resp = client
                .send(req.map(kube::client::Body::from))
                .await
                .expect("list");
            let body = resp.into_body().collect_bytes().await.expect("list body");
            cont = if accept == "application/json" && limit > 0 {
                serde_json::from_slice::<serde_json::Value>(&body)
                    .ok()
                    .and_then(|v| v["metadata"]["continue"].as_str().map(str::to_owned))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            if cont.is_empty() {
                break;
            }
        }
        lat.push(t.elapsed());
    }
    summarize(name, 1, lat, started.elapsed())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let a = args();
    let kc = Kubeconfig::read_from(&a.kubeconfig)?;
    let config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default()).await?;
    let client = kube::Client::try_from(config)?;
    let ns = format!(r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{NS}"}}}}"#);
    send(
        &client,
        http::Request::post("/api/v1/namespaces")
            .header("content-type", "application/json")
            .body(ns.into_bytes())?,
    )
    .await;
    let mut rows = Vec::new();
    for (round, c) in a.concurrency.iter().enumerate() {
        for op in ["create", "get", "update"] {
            rows.push(run_op(&client, op, a.objects, *c, round).await);
        }
    }
    let total = a.objects * a.concurrency.len();
    rows.push(
        run_list(
            &client,
            &format!("list {total} json"),
            "application/json",
            0,
        )
        .await,
    );
    rows.push(
        run_list(
            &client,
            &format!("list {total} protobuf"),
            "application/vnd.kubernetes.protobuf",
            0,
        )
        .await,
    );
    rows.push(
        run_list(
            &client,
            &format!("list {total} json paged 500"),
            "application/json",
            500,
        )
        .await,
    );
    println!("| operation | concurrency | count | ops/s | p50 ms | p99 ms |");
    println!("|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {:.0} | {:.2} | {:.2} |",
            r.op,
            r.concurrency,
            r.count,
            r.count as f64 / r.seconds,
            r.p50_ms,
            r.p99_ms
        );
    }
    if let Some(path) = a.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| serde_json::json!({"operation": r.op, "concurrency": r.concurrency, "count": r.count, "ops_per_second": r.count as f64 / r.seconds, "p50_ms": r.p50_ms, "p99_ms": r.p99_ms}))
            .collect();
        std::fs::write(path, serde_json::to_vec_pretty(&v)?)?;
    }
    if !a.keep {
        let del = http::Request::delete(format!("/api/v1/namespaces/{NS}")).body(Vec::new())?;
        send(&client, del).await;
    }
    Ok(())
}
