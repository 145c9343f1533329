//! The real example conversion webhook (`widget-webhook` of kapi-webhook) for kapi's tests:
//! a fresh rcgen CA and serving certificate, the process on a free loopback port, and the
//! golden Widget CRD (v1alpha1 `spec.label` ⇄ v1beta1 `spec.displayName`) pointed at it.

#![allow(dead_code)]

use base64::Engine;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A CA (PEM) and the directory holding a leaf certificate and key signed by it, valid for
/// `localhost`, `127.0.0.1` and `widgets.webhooks.svc`.
pub struct Certs {
    pub dir: tempfile::TempDir,
    pub ca_pem: String,
    pub cert_file: PathBuf,
    pub key_file: PathBuf,
}

/// A fresh CA (uniquely named) and a serving certificate signed by it.
pub fn make_certs() -> Certs {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(
        DnType::CommonName,
        format!("kapi-cli-webhook-ca-{}", std::process::id()),
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
        cert_file,
        key_file,
    }
}

/// `target/<profile>/widget-webhook`, built with cargo when absent.
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

/// The running example webhook; killed on drop.
pub struct WidgetWebhook {
    child: Child,
    pub port: u16,
    pub url: String,
    pub certs: Certs,
}

/// Spawns `widget-webhook` on `port` (0: a free one); the child and the port it listens on.
fn spawn(certs: &Certs, port: u16, extra: &[&str]) -> (Child, u16) {
    let mut child = Command::new(widget_webhook_binary())
        .args(["--port", &port.to_string(), "--cert-file"])
        .arg(&certs.cert_file)
        .arg("--key-file")
        .arg(&certs.key_file)
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().rsplit(':').next().unwrap().parse().unwrap();
    (child, port)
}

impl WidgetWebhook {
    /// Starts `widget-webhook --port 0` and waits for its `listening on ADDR` line.
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts the webhook with extra flags (e.g. `--delay-ms 300`).
    pub fn start_with(extra: &[&str]) -> Self {
        let certs = make_certs();
        let (child, port) = spawn(&certs, 0, extra);
        WidgetWebhook {
            child,
            port,
            url: format!("https://localhost:{port}/convert"),
            certs,
        }
    }

    /// Starts the webhook again, on the same port with the same certificate, without delay.
    pub fn restart(&mut self) {
        self.kill();
        let (child, _) = spawn(&self.certs, self.port, &[]);
        self.child = child;
    }

    /// Stops the webhook now (later calls to it fail to connect).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The caBundle (base64 PEM) that trusts this webhook.
    pub fn ca_bundle(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.certs.ca_pem)
    }
}

impl Drop for WidgetWebhook {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The golden Widget CRD (v1alpha1 storage, v1beta1 served) as JSON, with `conversion`.
pub fn widget_crd(conversion: Value) -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/golden/crd/crd-create.json");
    let mut crd: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    crd["spec"]["conversion"] = conversion;
    crd
}

/// `conversion` calling `url` with the review versions v1 and v1beta1, trusting `ca_bundle`.
pub fn webhook_url_conversion(url: &str, ca_bundle: &str) -> Value {
    json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1", "v1beta1"],
        "clientConfig": {"url": url, "caBundle": ca_bundle}}})
}
