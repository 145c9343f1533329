//! The fixed endpoints: `/healthz`, `/livez`, `/readyz`, `/version`, `/metrics`.

use crate::metrics::Metrics;
use axum::Json;
use axum::extract::State;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use serde::Serialize;
use std::sync::Arc;

/// The Kubernetes minor version whose API kapi serves.
pub const KUBE_MINOR: &str = "35";

/// `/version`, shaped as kube-apiserver's `version.Info` (golden `version.json`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionInfo {
    major: &'static str,
    minor: &'static str,
    emulation_major: &'static str,
    emulation_minor: &'static str,
    min_compatibility_major: &'static str,
    min_compatibility_minor: &'static str,
    git_version: String,
    git_commit: &'static str,
    git_tree_state: &'static str,
    build_date: &'static str,
    go_version: &'static str,
    compiler: &'static str,
    platform: String,
}

impl VersionInfo {
    /// The version of this build.
    pub fn current() -> Self {
        Self {
            major: "1",
            minor: KUBE_MINOR,
            emulation_major: "1",
            emulation_minor: KUBE_MINOR,
            min_compatibility_major: "1",
            min_compatibility_minor: "34",
            git_version: format!("v1.{KUBE_MINOR}.0-kapi.{}", env!("CARGO_PKG_VERSION")),
            git_commit: "",
            git_tree_state: "",
            build_date: "1970-01-01T00:00:00Z",
            go_version: "",
            compiler: "rustc",
            platform: format!("{}/{}", std::env::consts::OS, go_arch()),
        }
    }
}

fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    }
}

/// `/healthz`, `/livez`, `/readyz`: `ok` once serving.
pub async fn ok() -> impl IntoResponse {
    ([(CONTENT_TYPE, "text/plain; charset=utf-8")], "ok")
}

/// `/version`.
pub async fn version() -> Json<VersionInfo> {
    Json(VersionInfo::current())
}

/// `/metrics` in the Prometheus text format: the server's metrics, then the conversion
/// webhooks' (`apiserver_conversion_webhook_*`, of the global `WebhookEnvironment`).
pub async fn metrics(State(metrics): State<Arc<Metrics>>) -> impl IntoResponse {
    let mut text = metrics.render();
    text.push_str(
        &kapi_apiextensions::WebhookEnvironment::global()
            .metrics()
            .render(),
    );
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        text,
    )
}
