//! The store's scale curve (issue 19): for each size N, on the embedded store and on a real
//! etcd, N objects of 1 KiB written (64 in flight) and each updated once, then: a full range
//! read (median of 5), the store reopened on its files (embedded: open, log replay and the
//! first range read), and a compaction of the N superseded versions (the call, and for the
//! embedded store until the history is physically removed, with a write measured meanwhile).
//!
//! `cargo run --release -p kapi-storage --example scale_curve -- 1000 10000 100000`

use futures::StreamExt;
use kapi_storage::{
    EmbeddedConfig, EmbeddedStore, EtcdConfig, EtcdStore, RangeRequest, Store, StoreError,
};
use kapi_testsupport::etcd::EtcdProcess;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Writes in flight while filling.
const IN_FLIGHT: usize = 64;
/// A value the size of a small ConfigMap as stored.
const VALUE: [u8; 1024] = [b'x'; 1024];

/// The prefix of a run with `n` objects (each size on etcd gets its own).
fn prefix(n: usize) -> String {
    format!("/registry/configmaps/scale-{n}/")
}

fn key(n: usize, i: usize) -> Vec<u8> {
    format!("{}object-{i:07}", prefix(n)).into_bytes()
}

/// Creates then updates `n` keys, 64 at a time; the writes per second of each pass.
async fn fill(store: &Arc<dyn Store>, n: usize) -> Result<(f64, f64), StoreError> {
    let started = Instant::now();
    let created: Vec<Result<(), StoreError>> = futures::stream::iter(0..n)
        .map(|i| {
            let store = store.clone();
            async move { store.create(&key(n, i), VALUE.to_vec()).await.map(|_| ()) }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    let create_rate = n as f64 / started.elapsed().as_secs_f64();
    created.into_iter().collect::<Result<Vec<()>, _>>()?;
    let started = Instant::now();
    let updated: Vec<Result<(), StoreError>> = futures::stream::iter(0..n)
        .map(|i| {
            let store = store.clone();
            let key = key(n, i);
            async move {
                // The update names the revision it replaces, read first as a client would.
                let current = store.get(&key, None).await?.map_or(0, |kv| kv.mod_revision);
                store
                    .update(&key, VALUE.to_vec(), current)
                    .await
                    .map(|_| ())
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    let update_rate = n as f64 / started.elapsed().as_secs_f64();
    updated.into_iter().collect::<Result<Vec<()>, _>>()?;
    Ok((create_rate, update_rate))
}

/// The first and the median time of 5 full range reads of the prefix.
async fn ranges(store: &Arc<dyn Store>, n: usize) -> Result<(Duration, Duration), StoreError> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let started = Instant::now();
        let got = store
            .range(RangeRequest::prefix(prefix(n).into_bytes()))
            .await?;
        times.push(started.elapsed());
        assert_eq!(got.kvs.len(), n, "the range read every object");
    }
    let first = times[0];
    times.sort();
    Ok((first, times[2]))
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

fn embedded_config(dir: &std::path::Path) -> EmbeddedConfig {
    let mut config = EmbeddedConfig::new(dir);
    config.compaction_interval = None;
    config
}

async fn embedded(n: usize) -> Result<(), StoreError> {
    let dir = tempfile::tempdir().map_err(|e| StoreError::Internal(e.to_string()))?;
    let store = EmbeddedStore::open(embedded_config(dir.path()))?;
    let as_store: Arc<dyn Store> = store.clone();
    let (create_rate, update_rate) = fill(&as_store, n).await?;
    let (_, range) = ranges(&as_store, n).await?;
    drop(as_store);
    store.close().await?;
    let bytes: u64 = std::fs::read_dir(dir.path())
        .map_err(|e| StoreError::Internal(e.to_string()))?
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    let started = Instant::now();
    let store = EmbeddedStore::open(embedded_config(dir.path()))?;
    let opened = started.elapsed();
    let as_store: Arc<dyn Store> = store.clone();
    let (first_range, _) = ranges(&as_store, n).await?;
    let current = as_store.current_revision().await?;
    let started = Instant::now();
    as_store.compact(current).await?;
    let logical = started.elapsed();
    // A write queued while the history is removed: it waits at most one chunk.
    let write_started = Instant::now();
    as_store.put(b"/registry/probe", b"x".to_vec()).await?;
    let write_during = write_started.elapsed();
    while store.physically_compacted() < current {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let physical = started.elapsed();
    println!(
        "| embedded | {n} | {create_rate:.0} | {update_rate:.0} | {} | {:.0} | {} | {} | {} | {} | {} |",
        ms(range),
        bytes as f64 / n as f64,
        ms(opened),
        ms(first_range),
        ms(logical),
        ms(physical),
        ms(write_during),
    );
    Ok(())
}

async fn etcd(n: usize, url: &str) -> Result<(), StoreError> {
    let store: Arc<dyn Store> = Arc::new(EtcdStore::connect(EtcdConfig::new([url])).await?);
    let (create_rate, update_rate) = fill(&store, n).await?;
    let (_, range) = ranges(&store, n).await?;
    let started = Instant::now();
    let reconnected: Arc<dyn Store> = Arc::new(EtcdStore::connect(EtcdConfig::new([url])).await?);
    let opened = started.elapsed();
    let (first_range, _) = ranges(&reconnected, n).await?;
    let current = reconnected.current_revision().await?;
    let started = Instant::now();
    reconnected.compact(current).await?;
    let logical = started.elapsed();
    let write_started = Instant::now();
    reconnected.put(b"/registry/probe", b"x".to_vec()).await?;
    let write_during = write_started.elapsed();
    println!(
        "| etcd | {n} | {create_rate:.0} | {update_rate:.0} | {} | — | {} | {} | {} | — | {} |",
        ms(range),
        ms(opened),
        ms(first_range),
        ms(logical),
        ms(write_during),
    );
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), StoreError> {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        sizes
    };
    println!(
        "| backend | objects | creates/s | updates/s | range all (ms) | disk bytes/object | open (ms) | first range after open (ms) | compact call (ms) | history removed (ms) | a write during it (ms) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for &n in &sizes {
        embedded(n).await?;
    }
    let etcd_process = EtcdProcess::start().await;
    for &n in &sizes {
        etcd(n, &etcd_process.client_url).await?;
    }
    Ok(())
}
