//! A 1 000-object list converted through the real example webhook (`widget-webhook`) over
//! loopback HTTPS: the webhook converter end to end, against a bare POST of the same review
//! (HTTP + the webhook's own time), so the difference is the converter's own cost.

#[path = "../tests/webhook_common/mod.rs"]
mod webhook_common;

use criterion::{Criterion, criterion_group, criterion_main};
use kapi_apiextensions::converter_for_with;
use kapi_webhook::{ConversionReview, ReviewVersion};
use serde_json::Value;
use std::hint::black_box;
use std::time::Duration;
use webhook_common::{WidgetWebhook, env, widget, widget_crd};

const V1BETA1: &str = "golden.example.com/v1beta1";

fn items(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| widget(&format!("widget-{i}"), &format!("label-{i}")))
        .collect()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let hook = WidgetWebhook::start();
    let env = env(Duration::from_secs(30));
    let crd = widget_crd(&hook.url, &hook.certs.ca_pem, &["v1"]);
    let converter = converter_for_with(&crd, env.clone()).unwrap();
    let mut group = c.benchmark_group("webhook_converter");
    group.sample_size(30);
    for n in [100, 1000] {
        let list = items(n);
        group.bench_function(format!("convert_list_{n}"), |b| {
            b.to_async(&rt).iter(|| async {
                black_box(converter.convert(list.clone(), V1BETA1).await.unwrap())
            })
        });
        kapi_webhook::tls::install_crypto_provider();
        let ca = reqwest::Certificate::from_pem(hook.certs.ca_pem.as_bytes()).unwrap();
        let client = reqwest::Client::builder()
            .tls_certs_only([ca])
            .build()
            .unwrap();
        group.bench_function(format!("bare_post_{n}"), |b| {
            b.to_async(&rt).iter(|| async {
                let review =
                    ConversionReview::new_request(ReviewVersion::V1, "u", V1BETA1, list.clone());
                let body = serde_json::to_vec(&review).unwrap();
                let answer = client.post(&hook.url).body(body).send().await.unwrap();
                let bytes = answer.bytes().await.unwrap();
                black_box(serde_json::from_slice::<Value>(&bytes).unwrap())
            })
        });
    }
    group.finish();
    // One HTTP call per converted list, whatever its length (R4.23).
    eprintln!(
        "webhook calls made by the converter: {} (one per convert call)",
        env.metrics().calls("widgets.golden.example.com")
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
