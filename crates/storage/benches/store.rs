//! Benchmarks of both backends: durable puts at concurrency 1 and 64, get, range of 1 000 and
//! 10 000 keys, and watch fan-out (1 writer, 100 watchers). Run with
//! `cargo bench -p kapi-storage --bench store`; figures go to docs/benchmarks.md.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use kapi_storage::{
    EmbeddedConfig, EmbeddedStore, EtcdConfig, EtcdStore, RangeRequest, Store, WatchRequest,
    WatchResponse,
};
use kapi_testsupport::etcd::EtcdProcess;
use tokio::runtime::Runtime;

const WATCHERS: usize = 100;
const VALUE: &[u8] = &[b'x'; 256];

/// A backend under benchmark and what keeps it alive.
struct Backend {
    name: &'static str,
    store: Arc<dyn Store>,
    _guard: Box<dyn std::any::Any>,
}

fn backends(rt: &Runtime) -> Vec<Backend> {
    let dir = tempfile::tempdir().unwrap();
    let mut config = EmbeddedConfig::new(dir.path());
    config.compaction_interval = None;
    let embedded = rt.block_on(async { EmbeddedStore::open(config) }).unwrap();
    // The same store with every redb commit durable itself (no write-ahead log): the
    // figures before issue 19.
    let plain_dir = tempfile::tempdir().unwrap();
    let mut plain_config = EmbeddedConfig::new(plain_dir.path());
    plain_config.compaction_interval = None;
    plain_config.write_ahead_log = false;
    let plain = rt
        .block_on(async { EmbeddedStore::open(plain_config) })
        .unwrap();
    let etcd = rt.block_on(EtcdProcess::start());
    let url = etcd.client_url.clone();
    let etcd_store = rt
        .block_on(EtcdStore::connect(EtcdConfig::new([url])))
        .unwrap();
    vec![
        Backend {
            name: "embedded",
            store: embedded,
            _guard: Box::new(dir),
        },
        Backend {
            name: "embedded-no-wal",
            store: plain,
            _guard: Box::new(plain_dir),
        },
        Backend {
            name: "etcd",
            store: Arc::new(etcd_store),
            _guard: Box::new(etcd),
        },
    ]
}

/// Time to do `ops` unique-key puts spread over `concurrency` tasks.
async fn timed_puts(
    store: &Arc<dyn Store>,
    ops: u64,
    concurrency: u64,
    next: &AtomicU64,
) -> Duration {
    let start = Instant::now();
    let mut tasks = Vec::new();
    for t in 0..concurrency {
        let store = store.clone();
        let share = ops / concurrency + u64::from(t < ops % concurrency);
        let first = next.fetch_add(share, Ordering::Relaxed);
        tasks.push(tokio::spawn(async move {
            for i in first..first + share {
                store
                    .put(format!("/bench/put/{i:012}").as_bytes(), VALUE.to_vec())
                    .await
                    .unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    start.elapsed()
}

fn bench_puts(c: &mut Criterion, rt: &Runtime, backends: &[Backend]) {
    let mut group = c.benchmark_group("put");
    group.throughput(Throughput::Elements(1)).sample_size(10);
    let next = AtomicU64::new(0);
    for backend in backends {
        for concurrency in [1u64, 64, 256] {
            let id = BenchmarkId::new(backend.name, format!("concurrency {concurrency}"));
            group.bench_function(id, |b| {
                b.iter_custom(|ops| {
                    rt.block_on(timed_puts(&backend.store, ops, concurrency, &next))
                })
            });
        }
    }
    group.finish();
}

fn bench_get(c: &mut Criterion, rt: &Runtime, backends: &[Backend]) {
    let mut group = c.benchmark_group("get");
    group.throughput(Throughput::Elements(1)).sample_size(20);
    for backend in backends {
        rt.block_on(backend.store.put(b"/bench/get", VALUE.to_vec()))
            .unwrap();
        group.bench_function(backend.name, |b| {
            b.iter(|| rt.block_on(backend.store.get(b"/bench/get", None)).unwrap())
        });
    }
    group.finish();
}

async fn fill(store: &Arc<dyn Store>, prefix: &str, n: usize) {
    let mut tasks = Vec::new();
    for chunk in 0..64 {
        let (store, prefix) = (store.clone(), prefix.to_string());
        tasks.push(tokio::spawn(async move {
            for i in (chunk..n).step_by(64) {
                store
                    .put(format!("{prefix}{i:06}").as_bytes(), VALUE.to_vec())
                    .await
                    .unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
}

fn bench_range(c: &mut Criterion, rt: &Runtime, backends: &[Backend]) {
    let mut group = c.benchmark_group("range");
    group.sample_size(10);
    for backend in backends {
        for n in [1_000usize, 10_000] {
            let prefix = format!("/bench/range{n}/");
            rt.block_on(fill(&backend.store, &prefix, n));
            group.throughput(Throughput::Elements(n as u64));
            group.bench_function(BenchmarkId::new(backend.name, format!("{n} keys")), |b| {
                b.iter(|| {
                    let response =
                        rt.block_on(backend.store.range(RangeRequest::prefix(prefix.clone())));
                    assert_eq!(response.unwrap().kvs.len(), n);
                })
            });
        }
    }
    group.finish();
}

/// Time from the first of `ops` writes until each of the watchers has received all of them.
async fn timed_fan_out(store: &Arc<dyn Store>, ops: u64, next: &AtomicU64) -> Duration {
    let base = next.fetch_add(ops, Ordering::Relaxed);
    let mut watchers = Vec::new();
    for _ in 0..WATCHERS {
        let mut watch = store
            .watch(WatchRequest::prefix("/bench/fan/"))
            .await
            .unwrap();
        watchers.push(tokio::spawn(async move {
            let mut seen = 0u64;
            while seen < ops {
                if let Some(Ok(WatchResponse::Events(events))) = watch.next().await {
                    seen += events.len() as u64;
                }
            }
        }));
    }
    let start = Instant::now();
    for i in base..base + ops {
        store
            .put(format!("/bench/fan/{i:012}").as_bytes(), VALUE.to_vec())
            .await
            .unwrap();
    }
    for watcher in watchers {
        watcher.await.unwrap();
    }
    start.elapsed()
}

fn bench_fan_out(c: &mut Criterion, rt: &Runtime, backends: &[Backend]) {
    let mut group = c.benchmark_group("watch fan-out (1 writer, 100 watchers)");
    group.throughput(Throughput::Elements(1)).sample_size(10);
    let next = AtomicU64::new(0);
    for backend in backends {
        group.bench_function(backend.name, |b| {
            b.iter_custom(|ops| rt.block_on(timed_fan_out(&backend.store, ops, &next)))
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let backends = backends(&rt);
    bench_puts(c, &rt, &backends);
    bench_get(c, &rt, &backends);
    bench_range(c, &rt, &backends);
    bench_fan_out(c, &rt, &backends);
}

criterion_group! {
    name = store;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    targets = benches
}
criterion_main!(store);
