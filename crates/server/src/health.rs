//! The fixed endpoints: `/healthz`, `/livez`, `/readyz` (with checks of what they name),
//! `/version` (`/metrics` is `metrics_endpoint`).

use axum::Json;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use kapi_storage::Store;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The Kubernetes minor version whose API kapi serves.
pub const KUBE_MINOR: &str = "36";

/// kapi's `gitVersion`: the Kubernetes version it serves, with kapi's own as pre-release.
pub fn git_version() -> String {
    format!("v1.{KUBE_MINOR}.0-kapi.{}", env!("CARGO_PKG_VERSION"))
}

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
            min_compatibility_minor: "35",
            git_version: git_version(),
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

/// The checks behind `/livez`, `/readyz` and `/healthz`, as kube-apiserver runs them:
/// `ping`; `etcd` (the store answers a revision read within 2 s, on either backend);
/// `poststarthook/<name>` for each component registered at start (it passes once the
/// component says it started); and for `/readyz` only, `shutdown` (fails once the server
/// is draining).
pub struct Health {
    store: Arc<dyn Store>,
    hooks: Mutex<BTreeMap<String, bool>>,
    shutdown: tokio::sync::watch::Receiver<bool>,
}

/// Which endpoint is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// `/livez`.
    Live,
    /// `/readyz`.
    Ready,
    /// `/healthz` (the same checks as `/livez`).
    Healthz,
}

impl Probe {
    fn name(self) -> &'static str {
        match self {
            Self::Live => "livez",
            Self::Ready => "readyz",
            Self::Healthz => "healthz",
        }
    }
}

/// How long the store may take to answer the `etcd` check.
const STORE_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

impl Health {
    /// Checks over `store`; `shutdown` flips to true when the server drains.
    pub fn new(store: Arc<dyn Store>, shutdown: tokio::sync::watch::Receiver<bool>) -> Self {
        Self {
            store,
            hooks: Mutex::new(BTreeMap::new()),
            shutdown,
        }
    }

    /// Registers a post-start hook that fails until [`Health::mark_started`].
    pub fn register(&self, hook: &str) {
        if let Ok(mut hooks) = self.hooks.lock() {
            hooks.entry(hook.to_owned()).or_insert(false);
        }
    }

    /// Marks a post-start hook as done.
    pub fn mark_started(&self, hook: &str) {
        if let Ok(mut hooks) = self.hooks.lock() {
            hooks.insert(hook.to_owned(), true);
        }
    }

    /// The `etcd` check: the store answers a revision read within 2 s.
    pub async fn check_store(&self) -> Result<(), String> {
        match tokio::time::timeout(STORE_CHECK_TIMEOUT, self.store.current_revision()).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {STORE_CHECK_TIMEOUT:?}")),
        }
    }

    /// The registered post-start hooks and whether each has finished, by name.
    pub fn hooks(&self) -> Vec<(String, bool)> {
        self.hooks
            .lock()
            .map(|h| h.iter().map(|(k, v)| (k.clone(), *v)).collect())
            .unwrap_or_default()
    }

    /// Runs the checks of `probe` that `wanted` names, in upstream's order; `Err` carries
    /// the reason. Checks not wanted are not run (the store is not asked for `/livez/ping`).
    pub async fn run(
        &self,
        probe: Probe,
        wanted: impl Fn(&str) -> bool,
    ) -> Vec<(String, Result<(), String>)> {
        let mut out = vec![("ping".to_owned(), Ok(()))];
        if wanted("etcd") {
            out.push(("etcd".to_owned(), self.check_store().await));
        }
        for (hook, started) in self.hooks() {
            let result = if started {
                Ok(())
            } else {
                Err("not finished".to_owned())
            };
            out.push((format!("poststarthook/{hook}"), result));
        }
        if probe == Probe::Ready {
            let draining = *self.shutdown.borrow();
            let result = if draining {
                Err("process is shutting down".to_owned())
            } else {
                Ok(())
            };
            out.push(("shutdown".to_owned(), result));
        }
        out.retain(|(name, _)| wanted(name));
        out
    }
}

/// Answers a probe (`check`: one named check, as `/readyz/etcd`): `ok` when all pass (the
/// per-check lines with `?verbose`), else 500 with the lines and `<probe> check failed`;
/// `?exclude=<check>` skips a check. Reasons are withheld from the body and logged, as
/// kube-apiserver does.
pub async fn probe(
    health: &Health,
    probe: Probe,
    check: Option<&str>,
    query: Option<&str>,
) -> axum::response::Response {
    let params: Vec<(String, String)> = query
        .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    let verbose = params.iter().any(|(k, _)| k == "verbose");
    let excluded: Vec<&str> = params
        .iter()
        .filter(|(k, _)| k == "exclude")
        .map(|(_, v)| v.as_str())
        .collect();
    let mut results = health
        .run(probe, |name| check.is_none_or(|c| c == name))
        .await;
    if check.is_some() && results.is_empty() {
        return (StatusCode::NOT_FOUND, "404 page not found\n").into_response();
    }
    results.retain(|(n, _)| !excluded.contains(&n.as_str()));
    let failed = results.iter().any(|(_, r)| r.is_err());
    for (name, r) in &results {
        if let Err(reason) = r {
            tracing::warn!(check = %name, %reason, probe = probe.name(), "health check failed");
        }
    }
    let text_plain = [(CONTENT_TYPE, "text/plain; charset=utf-8")];
    if !failed && (!verbose || check.is_some()) {
        return (StatusCode::OK, text_plain, "ok".to_owned()).into_response();
    }
    let mut body = String::new();
    for (name, r) in &results {
        match r {
            Ok(()) => body.push_str(&format!("[+]{name} ok\n")),
            Err(_) => body.push_str(&format!("[-]{name} failed: reason withheld\n")),
        }
    }
    for name in excluded {
        body.push_str(&format!("[+]{name} excluded: ok\n"));
    }
    let (status, verdict) = if failed {
        (StatusCode::INTERNAL_SERVER_ERROR, "failed")
    } else {
        (StatusCode::OK, "passed")
    };
    body.push_str(&format!("{} check {verdict}\n", probe.name()));
    (status, text_plain, body).into_response()
}

/// The router of the three probes and their per-check paths.
pub fn probe_routes(health: Arc<Health>) -> axum::Router {
    use axum::extract::{Path, RawQuery};
    use axum::routing::get;
    let route = |p: Probe| {
        let h = health.clone();
        let h2 = health.clone();
        (
            get(move |RawQuery(q): RawQuery| async move { probe(&h, p, None, q.as_deref()).await }),
            get(
                move |Path(check): Path<String>, RawQuery(q): RawQuery| async move {
                    probe(&h2, p, Some(&check), q.as_deref()).await
                },
            ),
        )
    };
    let (live, live_one) = route(Probe::Live);
    let (ready, ready_one) = route(Probe::Ready);
    let (healthz, healthz_one) = route(Probe::Healthz);
    axum::Router::new()
        .route("/livez", live)
        .route("/livez/{*check}", live_one)
        .route("/readyz", ready)
        .route("/readyz/{*check}", ready_one)
        .route("/healthz", healthz)
        .route("/healthz/{*check}", healthz_one)
}

/// `/version`.
pub async fn version() -> Json<VersionInfo> {
    Json(VersionInfo::current())
}
