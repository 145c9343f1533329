//! kapi as envtest's kube-apiserver (issue 17): the binary run with no subcommand and
//! exactly the argument list controller-runtime's envtest builds, its cert dir (serving
//! certificate, ServiceAccount signer, client CA) and a real etcd; probed with `--help`
//! as envtest's `CheckFlag` does, waited for on `/healthz` anonymously, then driven as
//! envtest drives it — a client-certificate user in `system:masters`, the `default`
//! namespace, CRUD, a watch, and a CRD whose conversion webhook's caBundle is the webhook's
//! own serving certificate, installed and waited for in discovery — and stopped by SIGTERM.

mod e2e_support;

use e2e_support::{json, send_raw};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kapi_testsupport::envtest;
use kapi_testsupport::etcd::EtcdProcess;
use kapi_testsupport::net::free_port;
use kapi_testsupport::widget_webhook::{WidgetWebhook, webhook_url_conversion, widget_crd};
use kube::api::{Api, PostParams, WatchEvent, WatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::json;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

fn kapi_binary() -> &'static str {
    env!("CARGO_BIN_EXE_kapi")
}

/// A kapi started as envtest starts kube-apiserver; SIGTERM on drop.
struct EnvtestApiserver {
    child: Child,
    cert_dir: tempfile::TempDir,
    port: u16,
    files: envtest::EnvtestFiles,
    _etcd: Option<EtcdProcess>,
}

impl EnvtestApiserver {
    async fn start() -> Self {
        let etcd = EtcdProcess::start().await;
        let cert_dir = tempfile::tempdir().unwrap();
        let files = envtest::write_cert_dir(cert_dir.path());
        Self::start_in(cert_dir, files, Some(etcd)).await
    }

    /// envtest's arguments without `--etcd-servers` (kapi then keeps its embedded store in
    /// `<cert-dir>/kapi`), in `cert_dir`.
    async fn start_embedded_in(cert_dir: tempfile::TempDir, files: envtest::EnvtestFiles) -> Self {
        Self::start_in(cert_dir, files, None).await
    }

    async fn start_in(
        cert_dir: tempfile::TempDir,
        files: envtest::EnvtestFiles,
        etcd: Option<EtcdProcess>,
    ) -> Self {
        let port = free_port();
        let mut args = envtest::apiserver_args(cert_dir.path(), port, "");
        match &etcd {
            Some(etcd) => {
                for arg in &mut args {
                    if arg.starts_with("--etcd-servers=") {
                        *arg = format!("--etcd-servers={}", etcd.client_url);
                    }
                }
            }
            None => args.retain(|a| !a.starts_with("--etcd-servers=")),
        }
        let log = std::fs::File::options()
            .create(true)
            .append(true)
            .open(cert_dir.path().join("kapi.log"))
            .unwrap();
        let child = Command::new(kapi_binary())
            .args(&args)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let server = Self {
            child,
            cert_dir,
            port,
            files,
            _etcd: etcd,
        };
        server.wait_healthy().await;
        server
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.cert_dir.path().join("kapi.log")).unwrap_or_default()
    }

    /// envtest's readiness: `GET /healthz` without credentials or CA check, every 100 ms,
    /// until a 200.
    async fn wait_healthy(&self) {
        let mut config =
            kube::Config::new(format!("https://127.0.0.1:{}", self.port).parse().unwrap());
        config.accept_invalid_certs = true;
        let client = kube::Client::try_from(config).unwrap();
        for _ in 0..200 {
            let req = http::Request::get("/healthz").body(Vec::new()).unwrap();
            if client.request_text(req).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("/healthz never answered 200: {}", self.log());
    }

    fn kubeconfig_path(&self) -> std::path::PathBuf {
        let path = self.cert_dir.path().join("admin.kubecfg");
        std::fs::write(&path, envtest::kubeconfig(self.port, &self.files)).unwrap();
        path
    }

    /// envtest's `admin` user (client certificate, `system:masters`).
    async fn client(&self) -> kube::Client {
        let kc = Kubeconfig::read_from(self.kubeconfig_path()).unwrap();
        let mut config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
            .await
            .unwrap();
        config.default_retry = false;
        kube::Client::try_from(config).unwrap()
    }

    /// SIGTERM (envtest's stop); the exit status.
    fn stop(&mut self) -> std::process::ExitStatus {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        self.child.wait().unwrap()
    }
}

impl Drop for EnvtestApiserver {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.stop();
        }
    }
}

#[test]
fn help_exits_0_without_the_insecure_port_flag_as_envtests_check_flag_needs() {
    let out = Command::new(kapi_binary()).arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text
            .lines()
            .any(|l| l.trim_start().starts_with("--insecure-port"))
    );
}

#[test]
fn version_is_printed_as_kube_apiserver_prints_it() {
    let out = Command::new(kapi_binary())
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("Kubernetes v1."), "{text}");
}

#[tokio::test]
async fn envtests_admin_reads_the_default_namespace_with_its_client_certificate() {
    let server = EnvtestApiserver::start().await;
    let namespaces: Api<Namespace> = Api::all(server.client().await);
    let mut found = false;
    for _ in 0..100 {
        if namespaces.get("default").await.is_ok() {
            found = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(found, "namespace default: {}", server.log());
    let (status, _, body) = send_raw(
        &server.client().await,
        http::Request::post("/apis/authentication.k8s.io/v1/selfsubjectreviews")
            .header("content-type", "application/json")
            .body(
                json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
                    .to_string()
                    .into_bytes(),
            )
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201);
    let info = &json(&body)["status"]["userInfo"];
    assert_eq!(info["username"], "admin");
    assert!(
        info["groups"]
            .as_array()
            .unwrap()
            .contains(&json!("system:masters"))
    );
}

#[tokio::test]
async fn envtests_other_kube_apiserver_flags_are_ignored_with_a_warning() {
    let server = EnvtestApiserver::start().await;
    let log = server.log();
    for flag in [
        "--allow-privileged=true",
        "--disable-admission-plugins=ServiceAccount",
    ] {
        assert!(
            log.lines()
                .any(|l| l.contains("WARN") && l.contains(flag) && l.contains("ignored")),
            "{flag}: {log}"
        );
    }
    // kapi's own state lives in the cert dir envtest removes afterwards.
    assert!(
        server
            .cert_dir
            .path()
            .join("kapi")
            .join("tokens.csv")
            .exists()
    );
}

#[tokio::test]
async fn crud_and_a_watch_go_through_kapi_on_envtests_etcd() {
    let server = EnvtestApiserver::start().await;
    let client = server.client().await;
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let watch_from = cms
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut events = cms
        .watch(&WatchParams::default(), &watch_from)
        .await
        .unwrap()
        .boxed();
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "settings"},
        "data": {"mode": "a"}}))
    .unwrap();
    cms.create(&PostParams::default(), &cm).await.unwrap();
    let mut got = cms.get("settings").await.unwrap();
    got.data.as_mut().unwrap().insert("mode".into(), "b".into());
    let replaced = cms
        .replace("settings", &PostParams::default(), &got)
        .await
        .unwrap();
    assert_eq!(replaced.data.unwrap()["mode"], "b");
    cms.delete("settings", &Default::default()).await.unwrap();
    let mut kinds = Vec::new();
    while kinds.len() < 3 {
        let event = tokio::time::timeout(Duration::from_secs(10), events.try_next())
            .await
            .expect("a watch event")
            .unwrap()
            .unwrap();
        match event {
            WatchEvent::Added(cm) | WatchEvent::Modified(cm) | WatchEvent::Deleted(cm)
                if cm.metadata.name.as_deref() == Some("settings") =>
            {
                kinds.push(match kinds.len() {
                    0 => "added",
                    1 => "modified",
                    _ => "deleted",
                })
            }
            WatchEvent::Error(e) => panic!("{e:?}"),
            _ => {}
        }
    }
    assert_eq!(kinds, ["added", "modified", "deleted"]);
}

#[tokio::test]
async fn a_crd_with_a_conversion_webhook_installs_as_envtest_installs_it() {
    let server = EnvtestApiserver::start().await;
    let client = server.client().await;
    let webhook = WidgetWebhook::start();
    // envtest's caBundle is the webhook's serving certificate itself, not its CA.
    let ca_bundle = {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(&webhook.certs.cert_pem)
    };
    let mut crd = widget_crd(webhook_url_conversion(&webhook.url, &ca_bundle));
    crd["metadata"] = json!({"name": "widgets.golden.example.com"});
    crd.as_object_mut().unwrap().remove("status");
    let post = |path: &str, body: serde_json::Value| {
        http::Request::post(path.to_owned())
            .header("content-type", "application/json")
            .body(body.to_string().into_bytes())
            .unwrap()
    };
    let (status, _, body) = send_raw(
        &client,
        post(
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            crd,
        ),
    )
    .await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
    // envtest's WaitForCRDs: every served version lists the plural in discovery.
    for version in ["v1alpha1", "v1beta1"] {
        let mut listed = false;
        for _ in 0..100 {
            let req = http::Request::get(format!("/apis/golden.example.com/{version}"))
                .body(Vec::new())
                .unwrap();
            let (status, _, body) = send_raw(&client, req).await;
            if status == 200
                && json(&body)["resources"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|r| r["name"] == "widgets"))
            {
                listed = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(listed, "{version} never listed widgets: {}", server.log());
    }
    let widget = json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": "w1"}, "spec": {"label": "hello"}});
    let (status, _, body) = send_raw(
        &client,
        post(
            "/apis/golden.example.com/v1alpha1/namespaces/default/widgets",
            widget,
        ),
    )
    .await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
    let req = http::Request::get("/apis/golden.example.com/v1beta1/namespaces/default/widgets/w1")
        .body(Vec::new())
        .unwrap();
    let (status, _, body) = send_raw(&client, req).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(json(&body)["spec"]["displayName"], "hello");
}

#[tokio::test]
async fn sigterm_stops_it_with_exit_code_0_as_envtest_stops_it() {
    let mut server = EnvtestApiserver::start().await;
    assert!(server.stop().success(), "{}", server.log());
}

#[tokio::test]
async fn kubectl_works_with_envtests_kubeconfig() {
    let server = EnvtestApiserver::start().await;
    let kubeconfig = server.kubeconfig_path();
    let out = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--cache-dir")
        .arg(server.cert_dir.path().join("kubectl-cache"))
        .args(["get", "namespace", "default", "-o", "name"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "namespace/default"
    );
}

#[tokio::test]
async fn without_etcd_servers_it_keeps_an_embedded_store_in_the_cert_dir_across_restarts() {
    let cert_dir = tempfile::tempdir().unwrap();
    let files = envtest::write_cert_dir(cert_dir.path());
    let mut server = EnvtestApiserver::start_embedded_in(cert_dir, files).await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client().await, "default");
    let cm: ConfigMap = serde_json::from_value(
        json!({"metadata": {"name": "kept"}, "data": {"store": "embedded"}}),
    )
    .unwrap();
    cms.create(&PostParams::default(), &cm).await.unwrap();
    assert!(server.stop().success(), "{}", server.log());
    let store = server.cert_dir.path().join("kapi");
    assert!(
        std::fs::read_dir(&store).unwrap().next().is_some(),
        "the embedded store is in {}",
        store.display()
    );
    let cert_dir = std::mem::replace(&mut server.cert_dir, tempfile::tempdir().unwrap());
    let files = server.files.clone();
    drop(server);
    let server = EnvtestApiserver::start_embedded_in(cert_dir, files).await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client().await, "default");
    let kept = cms.get("kept").await.unwrap();
    assert_eq!(kept.data.unwrap()["store"], "embedded");
}
