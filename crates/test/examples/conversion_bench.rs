//! A list of custom resources read in the version they are not stored in: the example
//! Widget CRD of `examples/declarative-conversion/` converted by its rules in-process, and
//! the same CRD converted by the same rules served as a webhook over HTTPS (kapi-webhook's
//! `Converter::from_rules`, in this process). 1 000 Widgets stored in v1alpha1, listed in
//! v1beta1; p50 of 20 lists each, and one GET.
//!
//! ```sh
//! cargo build --release -p kapi-test --examples
//! target/release/examples/conversion_bench [--objects 1000]
//! ```

use kapi_test::TestServer;
use kapi_webhook::service::WebhookRouter;
use kapi_webhook::{Converter, tls};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

const CRD: &str = include_str!("../../../examples/declarative-conversion/crd.yaml");

async fn request(
    server: &TestServer,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<String, BoxError> {
    let req = http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .body(body.map(|b| b.to_string().into_bytes()).unwrap_or_default())?;
    Ok(server.client().request_text(req).await?)
}

/// A server with the CRD (as `crd`) and `objects` Widgets stored in v1alpha1.
async fn server_with(crd: &Value, objects: usize) -> Result<TestServer, BoxError> {
    let server = TestServer::start().await?;
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("crd.json");
    std::fs::write(&path, crd.to_string())?;
    server.install_crds(&path).await?;
    for i in 0..objects {
        let w = json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
            "metadata": {"name": format!("w-{i:05}")}, "spec": {"label": format!("widget {i}"), "replicas": 1}});
        request(
            &server,
            "POST",
            "/apis/golden.example.com/v1alpha1/namespaces/default/widgets",
            Some(&w),
        )
        .await?;
    }
    Ok(server)
}

async fn p50(server: &TestServer, path: &str, times: usize) -> Result<Duration, BoxError> {
    let mut all = Vec::with_capacity(times);
    for _ in 0..times {
        let started = Instant::now();
        let text = request(server, "GET", path, None).await?;
        all.push(started.elapsed());
        if path.contains("v1beta1") && !text.contains("displayName") {
            return Err("the list is not in v1beta1".into());
        }
    }
    all.sort();
    Ok(all[all.len() / 2])
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let mut objects = 1000usize;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match (flag.as_str(), args.next()) {
            ("--objects", Some(v)) => objects = v.parse()?,
            _ => return Err("usage: conversion_bench [--objects N]".into()),
        }
    }
    let crd: Value = serde_saphyr::from_str(CRD)?;
    let rules = kapi_conversion_rules(&crd)?;
    // The webhook: the same rules over HTTPS.
    tls::install_crypto_provider();
    let certs = kapi_testsupport::certs::make_certs();
    let config = tls::server_config_from_pem(certs.cert_pem.as_bytes(), certs.key_pem.as_bytes())?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!(
        "https://127.0.0.1:{}/convert",
        listener.local_addr()?.port()
    );
    let router = WebhookRouter::new()
        .conversion("/convert", Converter::from_rules(rules))
        .build();
    tokio::spawn(tls::serve_tls(
        listener,
        config,
        router,
        std::future::pending(),
    ));
    let mut webhook_crd = crd.clone();
    if let Some(m) = webhook_crd["metadata"].as_object_mut() {
        m.remove("annotations");
    }
    webhook_crd["spec"]["conversion"]["webhook"]["clientConfig"] =
        json!({"url": url, "caBundle": certs.ca_bundle()});

    let in_process = server_with(&crd, objects).await?;
    let through_webhook = server_with(&webhook_crd, objects).await?;
    let list = "/apis/golden.example.com/v1beta1/namespaces/default/widgets";
    let one = "/apis/golden.example.com/v1beta1/namespaces/default/widgets/w-00000";
    let (a_list, b_list) = (
        p50(&in_process, list, 20).await?,
        p50(&through_webhook, list, 20).await?,
    );
    let (a_one, b_one) = (
        p50(&in_process, one, 200).await?,
        p50(&through_webhook, one, 200).await?,
    );
    let stored = "/apis/golden.example.com/v1alpha1/namespaces/default/widgets";
    let a_stored = p50(&in_process, stored, 20).await?;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "| read in v1beta1 (stored v1alpha1) | rules in-process | rules through the webhook | ratio |"
    );
    println!("|---|---|---|---|");
    println!(
        "| list of {objects} (p50 of 20) | {:.2} ms | {:.2} ms | {:.1}× |",
        ms(a_list),
        ms(b_list),
        ms(b_list) / ms(a_list)
    );
    println!(
        "| get one (p50 of 200) | {:.3} ms | {:.3} ms | {:.1}× |",
        ms(a_one),
        ms(b_one),
        ms(b_one) / ms(a_one)
    );
    println!(
        "| list of {objects} in the stored version, no conversion (p50 of 20) | {:.2} ms | | |",
        ms(a_stored)
    );
    in_process.stop().await;
    through_webhook.stop().await;
    Ok(())
}

fn kapi_conversion_rules(crd: &Value) -> Result<kapi_conversion::Rules, BoxError> {
    Ok(kapi_conversion::Rules::of_crd(crd).ok_or("the CRD has no rules")??)
}
