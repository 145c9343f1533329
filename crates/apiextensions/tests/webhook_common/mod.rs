//! Webhook-converter test support: a CA and serving certificates (rcgen), the real example
//! webhook (`widget-webhook`) started as a process on a free loopback port, an in-process
//! HTTPS webhook whose answers a test tampers with, and the golden Widget CRD pointed at them.

#![allow(dead_code)]

use axum::Router;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::routing::post;
use base64::Engine;
use kapi_api::apiextensions::v1::CustomResourceDefinition;
use kapi_apiextensions::WebhookEnvironment;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

/// A CA and a leaf certificate for `localhost`, `127.0.0.1` and `widgets.webhooks.svc`.
pub struct Certs {
    pub dir: tempfile::TempDir,
    pub ca_pem: String,
    pub cert_pem: String,
    pub key_pem: String,
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
}

/// A fresh CA and a serving certificate signed by it.
pub fn make_certs() -> Certs {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(
        DnType::CommonName,
        format!("kapi-webhook-test-ca-{}", rand_suffix()),
    );
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, &ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let names = ["localhost", "127.0.0.1", "widgets.webhooks.svc"].map(String::from);
    let leaf = CertificateParams::new(names.to_vec())
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cert_file = dir.path().join("tls.crt");
    let key_file = dir.path().join("tls.key");
    std::fs::write(&cert_file, leaf.pem()).unwrap();
    std::fs::write(&key_file, leaf_key.serialize_pem()).unwrap();
    Certs {
        dir,
        ca_pem: ca_cert.pem(),
        cert_pem: leaf.pem(),
        key_pem: leaf_key.serialize_pem(),
        cert_file,
        key_file,
    }
}

/// The `widget-webhook` binary of kapi-webhook (same profile as this test or bench), built
/// on demand.
fn widget_webhook_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    let bin = profile_dir.join("widget-webhook");
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut args = vec!["build", "-p", "kapi-webhook", "--bin", "widget-webhook"];
        if profile_dir.ends_with("release") {
            args.push("--release");
        }
        let status = Command::new(cargo).args(&args).status().unwrap();
        assert!(status.success(), "building widget-webhook failed");
    }
    bin
}

/// The real example webhook, running on a free loopback port; killed on drop.
pub struct WidgetWebhook {
    child: Child,
    pub port: u16,
    pub url: String,
    pub certs: Certs,
}

impl WidgetWebhook {
    /// Starts `widget-webhook --port 0` and waits for its `listening on ADDR` line.
    pub fn start() -> Self {
        let certs = make_certs();
        let mut child = Command::new(widget_webhook_binary())
            .args(["--port", "0", "--cert-file"])
            .arg(&certs.cert_file)
            .arg("--key-file")
            .arg(&certs.key_file)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port: u16 = line.trim().rsplit(':').next().unwrap().parse().unwrap();
        WidgetWebhook {
            child,
            port,
            url: format!("https://localhost:{port}/convert"),
            certs,
        }
    }
}

impl Drop for WidgetWebhook {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/golden/crd/crd-create.json");
    let mut crd: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    crd["spec"]["conversion"] = json!({"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": review_versions,
        "clientConfig": {"url": url, "caBundle": base64::engine::general_purpose::STANDARD.encode(ca_pem)}}});
    serde_json::from_value(crd).unwrap()
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

/// A suffix that makes each test CA's name unique (a CA is found by name before its key is
/// checked, so two CAs with one name would give "bad signature" instead of "unknown authority").
fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    u64::from(std::process::id()) * 1_000_000 + NEXT.fetch_add(1, Ordering::Relaxed)
}
