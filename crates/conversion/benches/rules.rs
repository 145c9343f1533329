//! One custom resource converted by declarative rules: the example Widget's rename
//! (v1alpha1 → v1beta1 and back), and a CEL computation (split an image, join it back).

use criterion::{Criterion, criterion_group, criterion_main};
use kapi_conversion::Rules;
use serde_json::json;
use std::hint::black_box;

fn widget() -> serde_json::Value {
    json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": "w", "namespace": "default", "uid": "7a3c", "resourceVersion": "42",
            "labels": {"app": "w"}, "creationTimestamp": "2026-12-03T08:00:00Z"},
        "spec": {"label": "shown", "replicas": 3, "image": "nginx:1.27"},
        "status": {"replicas": 3}})
}

fn bench(c: &mut Criterion) {
    let rename = Rules::parse(
        "hub: v1beta1\nversions:\n  v1alpha1:\n    - rename: {from: spec.label, to: spec.displayName}\n",
    )
    .unwrap();
    let obj = widget();
    c.bench_function("rules/rename v1alpha1 to v1beta1", |b| {
        b.iter(|| rename.convert(black_box(&obj), "v1beta1").unwrap())
    });
    let hub = rename.convert(&obj, "v1beta1").unwrap();
    c.bench_function("rules/rename v1beta1 to v1alpha1", |b| {
        b.iter(|| rename.convert(black_box(&hub), "v1alpha1").unwrap())
    });
    let compute = Rules::parse(concat!(
        "hub: v1beta1\nversions:\n  v1alpha1:\n",
        "    - compute:\n",
        "        toHub: {spec.repository: \"self.spec.image.split(':')[0]\", spec.tag: \"self.spec.image.split(':')[1]\"}\n",
        "        fromHub: {spec.image: \"self.spec.repository + ':' + self.spec.tag\"}\n",
    ))
    .unwrap();
    c.bench_function("rules/compute split an image", |b| {
        b.iter(|| compute.convert(black_box(&obj), "v1beta1").unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
