//! Converting a 1 000-object ConversionReview (v1alpha1 → v1beta1 Widgets, shaped like the
//! objects kube-apiserver sent in golden/crd/webhook-exchange-list.json) in process: through
//! the Converter alone, and through the axum service (router, body, JSON in and out); and,
//! as the floor, parsing and writing the same review without converting.

#[path = "../src/bin/widget-webhook/widget.rs"]
#[allow(dead_code)]
mod widget;

use axum::body::Body;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use http_body_util::BodyExt;
use kapi_webhook::{ConversionReview, Converter, ReviewVersion, service};
use serde_json::{Value, json};
use tower::ServiceExt;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const OBJECTS: usize = 1000;

fn object(i: usize) -> Value {
    json!({
        "apiVersion": "golden.example.com/v1alpha1",
        "kind": "Widget",
        "metadata": {
            "creationTimestamp": "2026-11-29T12:55:12Z",
            "generation": 1,
            "labels": {"app": "bench", "tier": "x"},
            "managedFields": [{
                "apiVersion": "golden.example.com/v1alpha1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {".": {}, "f:label": {}, "f:replicas": {}}},
                "manager": "Python-urllib",
                "operation": "Update",
                "time": "2026-11-29T12:55:12Z"
            }],
            "name": format!("w{i}"),
            "namespace": "golden-crd",
            "resourceVersion": format!("{}", 1000 + i),
            "uid": format!("6030925d-7b64-481d-97ae-{i:012}")
        },
        "spec": {"label": format!("label-{i}"), "replicas": 3},
        "status": {"replicas": 3}
    })
}

fn review_body() -> Vec<u8> {
    let objects = (0..OBJECTS).map(object).collect();
    let review = ConversionReview::new_request(
        ReviewVersion::V1,
        "8d9926ae-ab8a-48b0-a0e4-3672ac6b184c",
        "golden.example.com/v1beta1",
        objects,
    );
    serde_json::to_vec(&review).expect("review encodes")
}

fn bench(c: &mut Criterion) {
    let converter = Converter::new(widget::scheme().expect("scheme"));
    let body = review_body();
    let mut group = c.benchmark_group("webhook_review_1000");
    group.throughput(Throughput::Elements(OBJECTS as u64));
    group.bench_function("baseline_json_parse_and_write", |b| {
        b.iter(|| {
            let review: ConversionReview = serde_json::from_slice(&body).expect("parses");
            serde_json::to_vec(&review).expect("writes")
        })
    });
    group.bench_function("converter_json", |b| {
        b.iter(|| converter.review_json(&body).expect("converts"))
    });
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let router = service::router(converter.clone());
    group.bench_function("axum_service", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let request = axum::http::Request::post("/convert")
                    .header("content-type", "application/json")
                    .body(Body::from(body.clone()))
                    .expect("request");
                let response = router.clone().oneshot(request).await.expect("response");
                assert!(response.status().is_success());
                response
                    .into_body()
                    .collect()
                    .await
                    .expect("body")
                    .to_bytes()
            })
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
