//! Starts kapi for a test — in the test's process by default (kapi-test's control plane on
//! a runtime of its own, so the test may block on kubectl), or as a real `kapi serve`
//! process when the test needs one (flags, its log, a SIGKILL, its PID) — on a free
//! loopback port with a temp data dir, and hands out clients for it: the `kube` crate
//! (admin, anonymous, raw) and the real `kubectl`.
#![allow(dead_code)]

pub mod credentials;

use kube::config::{KubeConfigOptions, Kubeconfig};
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// A running kapi, stopped on drop (a process by SIGTERM, by PID).
pub struct Kapi {
    server: Server,
    /// The data dir (a temp dir, removed on drop).
    pub dir: tempfile::TempDir,
    /// `https://127.0.0.1:PORT`.
    pub url: String,
}

/// Where the server runs.
enum Server {
    /// A `kapi serve` child process.
    Process(Child),
    /// kapi-test's control plane on a thread and runtime of its own in this process.
    InProcess {
        stop: tokio::sync::oneshot::Sender<()>,
        thread: std::thread::JoinHandle<()>,
    },
    /// Stopped.
    Stopped,
}

impl Kapi {
    /// Starts a `kapi serve` process with extra flags and waits until /readyz answers.
    pub async fn start_with(extra: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        Self::start_in(dir, extra).await
    }

    /// Starts kapi in this process, with every controller.
    pub async fn start() -> Self {
        Self::in_process(None).await
    }

    /// Starts a `kapi serve` process with default flags (for tests of the process itself:
    /// its log, a crash, its PID).
    pub async fn start_process() -> Self {
        Self::start_with(&[]).await
    }

    /// Starts kapi in this process without the root CA publisher, for tests that count
    /// every ConfigMap of a namespace (each namespace otherwise holds `kube-root-ca.crt`, as
    /// on a cluster).
    #[allow(dead_code)]
    pub async fn start_without_root_ca() -> Self {
        Self::in_process(Some(&["*", "-root-ca-certificate-publisher-controller"])).await
    }

    /// Starts kapi-test's control plane on its own thread and runtime, in the data dir.
    async fn in_process(controllers: Option<&[&str]>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_owned();
        let controllers: Option<Vec<String>> =
            controllers.map(|c| c.iter().map(|s| s.to_string()).collect());
        let (ready, started) = tokio::sync::oneshot::channel();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let mut builder = kapi_test::TestServer::builder().data_dir(path);
                if let Some(list) = &controllers {
                    let list: Vec<&str> = list.iter().map(String::as_str).collect();
                    builder = builder.controllers(&list);
                }
                match builder.start().await {
                    Ok(server) => {
                        let _ = ready.send(Ok(server.url()));
                        let _ = stopped.await;
                        server.stop().await;
                    }
                    Err(e) => {
                        let _ = ready.send(Err(e.to_string()));
                    }
                }
            });
        });
        let url = match started.await {
            Ok(Ok(url)) => url,
            Ok(Err(e)) => panic!("the in-process kapi did not start: {e}"),
            Err(_) => panic!("the in-process kapi's thread ended before it started"),
        };
        let kapi = Kapi {
            server: Server::InProcess { stop, thread },
            dir,
            url,
        };
        kapi.wait_ready().await;
        kapi
    }

    /// The server's process id (0 when it runs in this process).
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        match &self.server {
            Server::Process(child) => child.id(),
            _ => 0,
        }
    }

    /// Starts a `kapi serve` process on an existing data dir.
    pub async fn start_in(dir: tempfile::TempDir, extra: &[&str]) -> Self {
        let _ = std::fs::remove_file(dir.path().join("kubeconfig"));
        let log = std::fs::File::create(dir.path().join("kapi.log")).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_kapi"))
            .args(["serve", "--secure-port", "0", "--data-dir"])
            .arg(dir.path())
            .args(extra)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut kapi = Kapi {
            server: Server::Process(child),
            dir,
            url: String::new(),
        };
        kapi.url = kapi.wait_for_kubeconfig().await;
        kapi.wait_ready().await;
        kapi
    }

    async fn wait_for_kubeconfig(&mut self) -> String {
        let path = self.kubeconfig();
        for _ in 0..500 {
            if let Ok(text) = std::fs::read_to_string(&path)
                && let Some(line) = text.lines().find(|l| l.trim_start().starts_with("server:"))
            {
                return line
                    .trim_start()
                    .trim_start_matches("server:")
                    .trim()
                    .to_owned();
            }
            if let Server::Process(child) = &mut self.server
                && let Some(status) = child.try_wait().unwrap()
            {
                panic!("kapi exited early ({status}): {}", self.log());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("no kubeconfig after 5 s: {}", self.log());
    }

    async fn wait_ready(&self) {
        let client = self.client().await;
        for _ in 0..500 {
            let req = http::Request::get("/readyz").body(Vec::new()).unwrap();
            if client.request_text(req).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("not ready after 5 s: {}", self.log());
    }

    /// The kubeconfig kapi wrote.
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.path().join("kubeconfig")
    }

    /// kapi's log so far (a process's; an in-process server logs to the test's tracing).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("kapi.log")).unwrap_or_default()
    }

    /// The kube config from the written kubeconfig (admin bearer token). kube's default
    /// retry of 429/503/504 is off: tests see what the server answers, at once.
    pub async fn config(&self) -> kube::Config {
        let kc = Kubeconfig::read_from(self.kubeconfig()).unwrap();
        let mut config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
            .await
            .unwrap();
        config.default_retry = false;
        config
    }

    /// An admin client.
    pub async fn client(&self) -> kube::Client {
        kube::Client::try_from(self.config().await).unwrap()
    }

    /// A client that trusts the CA but sends no credentials.
    pub async fn anonymous_client(&self) -> kube::Client {
        let mut config = self.config().await;
        config.auth_info = Default::default();
        kube::Client::try_from(config).unwrap()
    }

    /// Sends a raw request with the admin token; returns (status, headers, body).
    pub async fn raw(&self, req: http::Request<Vec<u8>>) -> (u16, http::HeaderMap, Vec<u8>) {
        send_raw(&self.client().await, req).await
    }

    /// Sends `body` as `content_type` with the admin token; (status, the answer's JSON).
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        content_type: &str,
        body: &serde_json::Value,
    ) -> (u16, serde_json::Value) {
        let (status, _, bytes) = self
            .raw(typed_request(method, path, content_type, body))
            .await;
        (status, json(&bytes))
    }

    /// kubectl's discovery/HTTP cache for this server. kubectl keys its default cache
    /// (`~/.kube/cache`) by host:port, and ports are reused between tests: a server with
    /// other resources on a reused port would be described by a stale discovery cache.
    pub fn kubectl_cache_dir(&self) -> PathBuf {
        self.dir.path().join("kubectl-cache")
    }

    /// Runs kubectl against this server.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(self.kubeconfig())
            .arg("--cache-dir")
            .arg(self.kubectl_cache_dir())
            .args(args)
            .output()
            .unwrap()
    }

    /// Runs `kubectl edit <args>` with an editor that applies the sed expression `sed` to
    /// the file kubectl opens; panics with stderr when it fails.
    pub fn kubectl_edit(&self, args: &[&str], sed: &str) {
        let editor = self.dir.path().join("editor.sh");
        std::fs::write(&editor, format!("#!/bin/sh\nsed -i '{sed}' \"$1\"\n")).unwrap();
        std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let out = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(self.kubeconfig())
            .arg("--cache-dir")
            .arg(self.kubectl_cache_dir())
            .arg("edit")
            .args(args)
            .env("KUBE_EDITOR", &editor)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "kubectl edit {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Runs kubectl and returns stdout, panicking with stderr when it fails.
    pub fn kubectl_ok(&self, args: &[&str]) -> String {
        let out = self.kubectl(args);
        assert!(
            out.status.success(),
            "kubectl {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.log()
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// Kills kapi with SIGKILL (no shutdown at all) and hands back its data dir, to start
    /// again on with [`Kapi::start_in`].
    pub fn crash(mut self) -> tempfile::TempDir {
        match std::mem::replace(&mut self.server, Server::Stopped) {
            Server::Process(mut child) => {
                let _ = child.kill();
                let _ = child.wait();
            }
            Server::InProcess { .. } => panic!("crash() needs kapi as a process: start_process"),
            Server::Stopped => {}
        }
        std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap())
    }

    /// Sends SIGTERM and waits; returns whether kapi exited successfully.
    pub fn stop(&mut self) -> bool {
        match std::mem::replace(&mut self.server, Server::Stopped) {
            Server::Process(mut child) => {
                // SAFETY: kill(2) on the PID of a child we spawned and have not reaped.
                unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
                child.wait().map(|s| s.success()).unwrap_or(false)
            }
            Server::InProcess { stop, thread } => {
                let _ = stop.send(());
                thread.join().is_ok()
            }
            Server::Stopped => false,
        }
    }
}

impl Drop for Kapi {
    /// A process is stopped and reaped; an in-process server is told to stop and left to
    /// drain on its own thread (joining it here would block the test's runtime, which may
    /// still have to answer the server's goodbye on the test's open connections).
    fn drop(&mut self) {
        match std::mem::replace(&mut self.server, Server::Stopped) {
            Server::InProcess { stop, .. } => {
                let _ = stop.send(());
            }
            other => {
                self.server = other;
                self.stop();
            }
        }
    }
}

/// Sends a raw request through `client`; returns (status, headers, body).
pub async fn send_raw(
    client: &kube::Client,
    req: http::Request<Vec<u8>>,
) -> (u16, http::HeaderMap, Vec<u8>) {
    let req = req.map(kube::client::Body::from);
    let resp = client.send(req).await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.into_body().collect_bytes().await.unwrap().to_vec();
    (status, headers, body)
}

/// A JSON request (`body` Null: no body).
pub fn json_request(method: &str, path: &str, body: &serde_json::Value) -> http::Request<Vec<u8>> {
    typed_request(method, path, "application/json", body)
}

/// A request whose JSON `body` is sent as `content_type` (a patch type, apply YAML…),
/// accepting JSON (`body` Null: no body).
pub fn typed_request(
    method: &str,
    path: &str,
    content_type: &str,
    body: &serde_json::Value,
) -> http::Request<Vec<u8>> {
    http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .header("accept", "application/json")
        .body(if body.is_null() {
            Vec::new()
        } else {
            body.to_string().into_bytes()
        })
        .unwrap()
}

/// Sends a JSON request; (status, the answer's JSON or Null when empty).
pub async fn send_json(
    client: &kube::Client,
    method: &str,
    path: &str,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let (status, _, bytes) = send_raw(client, json_request(method, path, body)).await;
    let value = if bytes.is_empty() {
        serde_json::Value::Null
    } else {
        json(&bytes)
    };
    (status, value)
}

/// Runs a Python script of `tests/e2e_python` with `kubeconfig` as its argument, through
/// `KAPI_E2E_PYTHON` (else `python3`), and asserts it ends with "ok" (its output, and
/// `kapi_log`, shown otherwise).
pub async fn run_python_script(script: &str, kubeconfig: PathBuf, kapi_log: impl Fn() -> String) {
    run_python_script_with(script, kubeconfig, &[], kapi_log).await
}

/// Runs `e2e_python/<script>` as [`run_python_script`] does, with `env` set for it.
pub async fn run_python_script_with(
    script: &str,
    kubeconfig: PathBuf,
    env: &[(&str, &str)],
    kapi_log: impl Fn() -> String,
) {
    let python = std::env::var("KAPI_E2E_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let path = format!("{}/tests/e2e_python/{script}", env!("CARGO_MANIFEST_DIR"));
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .arg(path)
            .arg(kubeconfig)
            .envs(env)
            .output()
            .expect("the Python interpreter runs (KAPI_E2E_PYTHON or python3)")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python client failed after:\n{stdout}\n{stderr}\nkapi's log:\n{}",
        kapi_log()
    );
    assert_eq!(stdout.lines().last(), Some("ok"), "{stdout}");
}

/// Parses a JSON body.
pub fn json(body: &[u8]) -> serde_json::Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(body)))
}

/// The sum of the `/metrics` samples of series `name` whose labels include every one of
/// `labels` (each as written, e.g. `result="success"`); 0 when there is none.
pub async fn metric_sum(kapi: &Kapi, name: &str, labels: &[&str]) -> u64 {
    let req = http::Request::get("/metrics").body(Vec::new()).unwrap();
    let (_, _, body) = kapi.raw(req).await;
    let series = format!("{name}{{");
    String::from_utf8_lossy(&body)
        .lines()
        .filter(|l| l.starts_with(&series) && labels.iter().all(|label| l.contains(label)))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
        .sum()
}
