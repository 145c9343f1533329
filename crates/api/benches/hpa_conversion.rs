//! HorizontalPodAutoscaler autoscaling/v1 → autoscaling/v2 conversion (through the hub),
//! on the object kube-apiserver returned in `tests/golden/hpa-v1.json`: the direct
//! functions, and the Scheme's boxed path the codecs use.

use criterion::{Criterion, criterion_group, criterion_main};
use kapi_api::autoscaling::{v1, v2};
use kapi_machinery::schema::GroupVersion;
use std::hint::black_box;

fn golden_v1() -> v1::HorizontalPodAutoscaler {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/hpa-v1.json");
    let text = std::fs::read_to_string(path).expect("golden hpa-v1.json");
    serde_json::from_str(&text).expect("valid HPA")
}

fn bench(c: &mut Criterion) {
    let hpa = golden_v1();
    c.bench_function("hpa_v1_to_v2/functions", |b| {
        b.iter(|| v2::from_hub(v1::to_hub(black_box(hpa.clone()))))
    });
    let scheme = kapi_api::new_scheme().expect("scheme");
    let target = GroupVersion::new("autoscaling", "v2");
    c.bench_function("hpa_v1_to_v2/scheme_convert_to_version", |b| {
        b.iter(|| {
            scheme
                .convert_to_version(black_box(&hpa), &target)
                .expect("converts")
        })
    });
    c.bench_function("hpa_v1_clone_only", |b| b.iter(|| black_box(hpa.clone())));
}

criterion_group!(benches, bench);
criterion_main!(benches);
