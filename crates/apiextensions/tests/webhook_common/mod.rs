//! Webhook-converter test support: the real example webhook (`widget-webhook`) and fresh
//! certificates from kapi-testsupport, an in-process HTTPS webhook whose answers a test
//! tampers with, and the golden Widget CRD (typed) pointed at them.

#![allow(dead_code)]

use axum::Router;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::routing::post;
use base64::Engine;
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::WebhookEnvironment;
use kapi_testsupport::certs::Certs;
use kapi_testsupport::widget_webhook::webhook_conversion;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

// The shared pieces, re-exported so that the tests and the bench name them all from here
// (each test binary uses only some of them).
#[allow(unused_imports)]
pub use kapi_testsupport::{certs::make_certs, widget_webhook::WidgetWebhook};

/// What a tampering webhook does to the correct answer (a JSON ConversionReview) before
/// sending it: returns the status and the body bytes.
pub type Tamper = Arc<dyn Fn(Value) -> (StatusCode, Vec<u8>) + Send + Sync>;

/// The correct answer to a review: every object with the desired apiVersion, `spec.label`
/// renamed `spec.displayName` (or back), in the request's review version.
pub fn honest_answer(review: &Value) -> Value {
    let req = &review["request"];
    let desired = req["desiredAPIVersion"].as_str().unwrap_or("");
    let objects: Vec<Value> = req["objects"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut o| {
            o["apiVersion"] = json!(desired);
            if let Some(spec) = o.get_mut("spec").and_then(Value::as_object_mut) {
                let (from, to) = if desired.ends_with("v1beta1") {
                    ("label", "displayName")
                } else {
                    ("displayName", "label")
                };
                if let Some(v) = spec.remove(from) {
                    spec.insert(to.into(), v);
                }
            }
            o
        })
        .collect();
    json!({"apiVersion": review["apiVersion"], "kind": "ConversionReview",
        "response": {"uid": req["uid"], "convertedObjects": objects, "result": {"status": "Success"}}})
}

/// An in-process HTTPS webhook (kapi-webhook's `tls::serve_tls`) answering through `tamper`
/// after `delay`; stops when dropped.
pub struct TamperingWebhook {
    pub url: String,
    pub certs: Certs,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl TamperingWebhook {
    /// Serves on a free loopback port.
    pub async fn start(tamper: Tamper, delay: Duration) -> Self {
        kapi_webhook::tls::install_crypto_provider();
        let certs = make_certs();
        let config = kapi_webhook::tls::server_config_from_pem(
            certs.cert_pem.as_bytes(),
            certs.key_pem.as_bytes(),
        )
        .unwrap();
        let handler = move |body: Bytes| {
            let tamper = tamper.clone();
            async move {
                tokio::time::sleep(delay).await;
                let review: Value = serde_json::from_slice(&body).unwrap();
                let (status, bytes) = tamper(honest_answer(&review));
                (status, bytes)
            }
        };
        let router = Router::new().route("/convert", post(handler));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(kapi_webhook::tls::serve_tls(
            listener,
            config,
            router,
            async {
                let _ = stopped.await;
            },
        ));
        TamperingWebhook {
            url: format!("https://127.0.0.1:{port}/convert"),
            certs,
            stop: Some(stop),
        }
    }
}

impl Drop for TamperingWebhook {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Serializes a JSON answer with status 200.
pub fn ok(answer: Value) -> (StatusCode, Vec<u8>) {
    (StatusCode::OK, serde_json::to_vec(&answer).unwrap())
}

/// The golden Widget CRD (v1alpha1 storage, v1beta1) calling `url`, trusting `ca_pem`, with
/// `conversionReviewVersions` = `review_versions`.
pub fn widget_crd(url: &str, ca_pem: &str, review_versions: &[&str]) -> CustomResourceDefinition {
    let ca_bundle = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    let conversion = webhook_conversion(url, &ca_bundle, review_versions);
    serde_json::from_value(kapi_testsupport::widget_webhook::widget_crd(conversion)).unwrap()
}

/// A fresh environment (own pool and metrics) with `timeout`.
pub fn env(timeout: Duration) -> Arc<WebhookEnvironment> {
    Arc::new(WebhookEnvironment::with_timeout(timeout))
}

/// A stored v1alpha1 Widget.
pub fn widget(name: &str, label: &str) -> Value {
    json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
            "resourceVersion": "7", "generation": 1, "labels": {"app": "w"}},
        "spec": {"label": label, "replicas": 2}})
}
