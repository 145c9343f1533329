//! The real example conversion webhook (`widget-webhook` of kapi-webhook) as a process on a
//! loopback port with a fresh certificate, and the golden Widget CRD (v1alpha1 `spec.label`
//! ⇄ v1beta1 `spec.displayName`) pointed at it.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::certs::{Certs, make_certs};
use crate::golden::golden;

/// `target/<profile>/widget-webhook` for the profile of the running test or bench (found from
/// its executable in `target/<profile>/deps/`), built with cargo when absent.
pub fn widget_webhook_binary() -> PathBuf {
    webhook_binary("widget-webhook")
}

/// `target/<profile>/NAME` of a kapi-webhook binary, built with cargo when absent.
pub fn webhook_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
    let bin = profile_dir.join(name);
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut args = vec!["build", "-p", "kapi-webhook", "--bin", name];
        if profile_dir.ends_with("release") {
            args.push("--release");
        }
        let status = Command::new(cargo).args(&args).status().unwrap();
        assert!(status.success(), "building {name} failed");
    }
    bin
}

/// The running example webhook; killed on drop.
pub struct WidgetWebhook {
    child: Child,
    /// The port it listens on (kept across [`WidgetWebhook::restart`]).
    pub port: u16,
    /// `https://localhost:PORT/convert`.
    pub url: String,
    /// Its CA and serving certificate.
    pub certs: Certs,
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

    /// Starts the webhook again, on the same port with the same certificate, without extra flags.
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
        self.certs.ca_bundle()
    }
}

impl Drop for WidgetWebhook {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Spawns `widget-webhook` on `port` (0: a free one); the child and the port it listens on.
fn spawn(certs: &Certs, port: u16, extra: &[&str]) -> (Child, u16) {
    spawn_webhook(&widget_webhook_binary(), certs, port, extra)
}

/// Spawns a kapi-webhook binary with its certificate on `port` (0: a free one) and waits for
/// its `listening on ADDR` line; the child and the port.
pub fn spawn_webhook(bin: &Path, certs: &Certs, port: u16, extra: &[&str]) -> (Child, u16) {
    let mut child = Command::new(bin)
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

/// The golden Widget CRD (`crd-create.json`: v1alpha1 storage, v1beta1 served) as JSON, with
/// `conversion` as its `spec.conversion`.
pub fn widget_crd(conversion: Value) -> Value {
    let mut crd = golden("crd-create.json");
    crd["spec"]["conversion"] = conversion;
    crd
}

/// A Webhook `conversion` calling `url` with `review_versions`, trusting `ca_bundle` (base64).
pub fn webhook_conversion(url: &str, ca_bundle: &str, review_versions: &[&str]) -> Value {
    json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": review_versions,
        "clientConfig": {"url": url, "caBundle": ca_bundle}}})
}

/// A Webhook `conversion` calling `url` with the review versions v1 and v1beta1, trusting
/// `ca_bundle` (base64).
pub fn webhook_url_conversion(url: &str, ca_bundle: &str) -> Value {
    webhook_conversion(url, ca_bundle, &["v1", "v1beta1"])
}
