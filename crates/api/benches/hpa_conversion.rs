//! HorizontalPodAutoscaler autoscaling/v1 → autoscaling/v2 conversion (through the hub).
//!
//! Inputs: the object kube-apiserver returned in `tests/golden/hpa-v1.json` (managed
//! fields and the `autoscaling.alpha.kubernetes.io/behavior` annotation to unpack), and a
//! plain v1 object (name, namespace, target, CPU 60 %). Each is converted by the direct
//! functions (inputs cloned and results dropped outside the measurement) and by the Scheme's
//! copying `convert_to_version` and moving `unsafe_convert_to_version` (the codecs' path). The allocator is mimalloc, as
//! in the kapi binary. Times are the benchmark thread's CPU time (kapi-machinery's
//! `benches/cpu_time.rs`), so that other jobs on a shared machine matter less.

#[path = "../../machinery/benches/cpu_time.rs"]
mod cpu_time;

use cpu_time::CpuTime;
use criterion::measurement::Measurement;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use kapi_api::autoscaling::{v1, v2};
use kapi_machinery::runtime::Object;
use kapi_machinery::schema::GroupVersion;
use std::hint::black_box;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn golden_v1() -> v1::HorizontalPodAutoscaler {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/golden/hpa-v1.json"
    );
    let text = std::fs::read_to_string(path).expect("golden hpa-v1.json");
    serde_json::from_str(&text).expect("valid HPA")
}

fn plain_v1() -> v1::HorizontalPodAutoscaler {
    serde_json::from_value(serde_json::json!({
        "apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                 "minReplicas": 2, "maxReplicas": 10, "targetCPUUtilizationPercentage": 60}
    }))
    .expect("valid HPA")
}

/// Times only the conversions, in cache-sized chunks: inputs are cloned and output slots
/// touched before the clock starts, results dropped after it stops.
fn convert_timed(hpa: &v1::HorizontalPodAutoscaler, iters: u64) -> u64 {
    const CHUNK: u64 = 256;
    let mut total = 0;
    let mut left = iters;
    while left > 0 {
        let n = left.min(CHUNK);
        left -= n;
        let inputs: Vec<v1::HorizontalPodAutoscaler> = (0..n).map(|_| hpa.clone()).collect();
        let mut outputs = vec![v2::HorizontalPodAutoscaler::default(); inputs.len()];
        let start = CpuTime.start();
        for (input, slot) in inputs.into_iter().zip(outputs.iter_mut()) {
            *slot = v2::from_hub(v1::to_hub(black_box(input)));
        }
        total += CpuTime.end(start);
        black_box(&outputs);
    }
    total
}

fn bench(c: &mut Criterion<CpuTime>) {
    let scheme = kapi_api::new_scheme().expect("scheme");
    let target = GroupVersion::new("autoscaling", "v2");
    for (name, hpa) in [("golden", golden_v1()), ("plain", plain_v1())] {
        c.bench_function(&format!("hpa_v1_to_v2/{name}/functions"), |b| {
            b.iter_custom(|iters| convert_timed(&hpa, iters))
        });
        c.bench_function(
            &format!("hpa_v1_to_v2/{name}/scheme_convert_to_version"),
            |b| {
                b.iter(|| {
                    scheme
                        .convert_to_version(black_box(&hpa), &target)
                        .expect("converts")
                })
            },
        );
        let moving = format!("hpa_v1_to_v2/{name}/scheme_unsafe_convert_to_version");
        c.bench_function(&moving, |b| {
            b.iter_batched(
                || Box::new(hpa.clone()) as Box<dyn Object>,
                |input| {
                    let out = scheme.unsafe_convert_to_version(black_box(input), &target);
                    out.expect("converts")
                },
                BatchSize::SmallInput,
            )
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench
}
criterion_main!(benches);
