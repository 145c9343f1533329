//! Test support: certificates from a fresh CA (kapi-testsupport), the example webhook started as a
//! process on a free loopback port, an HTTPS client trusting only that CA, and the checks
//! kube-apiserver applies to a webhook's answer (R4.25–R4.27).

#![allow(dead_code, unused_imports)]

pub use kapi_testsupport::certs::{Certs, make_certs};
pub use kapi_testsupport::golden::golden;
use kapi_webhook::ConversionReview;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// An HTTPS client that trusts only `ca_pem` (ring provider, `rustls-no-provider`).
pub fn client(ca_pem: &str, http1_only: bool) -> reqwest::Client {
    kapi_webhook::tls::install_crypto_provider();
    let ca = reqwest::Certificate::from_pem(ca_pem.as_bytes()).unwrap();
    let builder = reqwest::Client::builder().tls_certs_only([ca]);
    let builder = if http1_only {
        builder.http1_only()
    } else {
        builder
    };
    builder.build().unwrap()
}

/// The example webhook binary running on a free loopback port; killed on drop.
pub struct WidgetWebhook {
    child: Child,
    pub url: String,
    pub certs: Certs,
}

impl WidgetWebhook {
    /// Starts `widget-webhook --port 0` and waits for its `listening on ADDR` line.
    pub fn start() -> Self {
        let certs = make_certs();
        let mut child = Command::new(env!("CARGO_BIN_EXE_widget-webhook"))
            .args(["--port", "0", "--cert-file"])
            .arg(&certs.cert_file)
            .arg("--key-file")
            .arg(&certs.key_file)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let addr = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap()
            .to_owned();
        let port = addr.rsplit(':').next().unwrap();
        WidgetWebhook {
            child,
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

/// kube-apiserver's checks of a webhook answer to `request` (R4.25–R4.27): the review's
/// GVK (v1 only), a response, the uid (v1 only), Success, the object count, then per object
/// the desired apiVersion, the same kind, name, namespace and uid, and metadata equal to the
/// original's apart from labels and annotations.
pub fn kube_apiserver_accepts(request: &ConversionReview, answer: &Value) -> Result<(), String> {
    let req = request.request.as_ref().unwrap();
    let v1 = request.api_version == "apiextensions.k8s.io/v1";
    if v1
        && (answer["apiVersion"] != request.api_version.as_str()
            || answer["kind"] != "ConversionReview")
    {
        return Err(format!(
            "expected webhook response of {}, got {answer}",
            request.api_version
        ));
    }
    let response = answer.get("response").ok_or("no response provided")?;
    if v1 && response["uid"] != req.uid.as_str() {
        return Err(format!(
            "expected response.uid={:?}, got {}",
            req.uid, response["uid"]
        ));
    }
    if response["result"]["status"] != "Success" {
        return Err(format!("result: {}", response["result"]));
    }
    let converted = response["convertedObjects"]
        .as_array()
        .ok_or("no convertedObjects")?;
    if converted.len() != req.objects.len() {
        return Err(format!(
            "returned {} objects, expected {}",
            converted.len(),
            req.objects.len()
        ));
    }
    for (i, (out, orig)) in converted.iter().zip(&req.objects).enumerate() {
        if out["apiVersion"] != req.desired_api_version.as_str() {
            return Err(format!(
                "index {i}: invalid groupVersion {}",
                out["apiVersion"]
            ));
        }
        if out["kind"] != orig["kind"] {
            return Err(format!("index {i}: invalid kind {}", out["kind"]));
        }
        for field in ["name", "namespace", "uid"] {
            if out["metadata"][field] != orig["metadata"][field] {
                return Err(format!("index {i}: must have the same {field}"));
            }
        }
        let strip = |m: &Value| {
            let mut m = m.as_object().cloned().unwrap_or_default();
            m.remove("labels");
            m.remove("annotations");
            m
        };
        if strip(&out["metadata"]) != strip(&orig["metadata"]) {
            return Err(format!(
                "index {i}: metadata other than labels/annotations changed"
            ));
        }
    }
    Ok(())
}
