//! kapi in a test's own process: [`TestServer::start`] runs a fresh control plane (the
//! built-in API of Kubernetes 1.36, RBAC, the controllers the API needs) on a free loopback
//! port with a temporary store, and hands back a [`kube::Client`] (admin, `system:masters`)
//! and a kubeconfig — in milliseconds, with nothing to download. What kube-rs users lack
//! for controller tests (which otherwise need a kind or k3d cluster).
//!
//! ```
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::api::{Api, PostParams};
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server = kapi_test::TestServer::start().await?;
//! let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
//! let cm: ConfigMap = serde_json::from_value(serde_json::json!({
//!     "metadata": {"name": "settings"}, "data": {"mode": "fast"}
//! }))?;
//! cms.create(&PostParams::default(), &cm).await?;
//! assert_eq!(cms.get("settings").await?.data.unwrap()["mode"], "fast");
//! server.stop().await;
//! # Ok(())
//! # }
//! ```
//!
//! [`TestServer::builder`] installs CRDs from manifest files before the server is handed
//! out (waiting until they are Established and in discovery, as envtest does), routes a
//! CRD's conversion-webhook `service` reference to a webhook the test serves itself, runs on
//! etcd instead of the embedded store, or picks the controllers.

use kapi_apiextensions::WebhookEnvironment;
use kapi_apiextensions::webhook::{ServiceOverride, StaticServiceResolver};
use kapi_apiserver::{ControlPlane, ControlPlaneOptions};
use kapi_controllers::{ControllerOptions, ControllerSet};
use kapi_server::ServerOptions;
use kapi_storage::{EmbeddedConfig, EtcdConfig, StoreConfig};
use serde_json::Value;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Why a test server could not start.
#[derive(Debug, thiserror::Error)]
pub enum TestServerError {
    /// The temporary directory.
    #[error("temporary directory: {0}")]
    TempDir(std::io::Error),
    /// A builder setting that does not parse (a webhook service, a controller name).
    #[error("{0}")]
    Setting(String),
    /// The control plane.
    #[error(transparent)]
    Start(#[from] kapi_apiserver::StartError),
    /// The client from the kubeconfig.
    #[error("client: {0}")]
    Client(String),
    /// A CRD manifest that could not be read or installed.
    #[error("CRD {0}")]
    Crd(String),
}

/// How a [`TestServer`] is made.
#[derive(Debug, Default)]
pub struct TestServerBuilder {
    crd_files: Vec<PathBuf>,
    services: Vec<String>,
    etcd: Vec<String>,
    controllers: Option<Vec<String>>,
    compaction_interval: Option<Duration>,
    data_dir: Option<PathBuf>,
}

/// How long a CRD may take to be Established and served.
const CRD_WAIT: Duration = Duration::from_secs(10);

impl TestServerBuilder {
    /// Installs the CustomResourceDefinitions of a manifest file (YAML or JSON, several
    /// documents, other kinds skipped) before the server is handed out.
    pub fn crd_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.crd_files.push(path.into());
        self
    }

    /// Sends a webhook `service` reference (`namespace`/`name`, any port) to `addr`, as
    /// `kapi serve --service-resolver` does: a CRD's conversion webhook served by the test
    /// itself, with the manifest unchanged.
    pub fn webhook_service(mut self, namespace: &str, name: &str, addr: SocketAddr) -> Self {
        self.services.push(format!("{namespace}/{name}={addr}"));
        self
    }

    /// Stores objects in etcd at these endpoints (`http://127.0.0.1:2379`) instead of the
    /// embedded store.
    pub fn etcd(mut self, endpoints: &[&str]) -> Self {
        self.etcd = endpoints.iter().map(|e| (*e).to_owned()).collect();
        self
    }

    /// Runs these controllers (`kapi serve --controllers` syntax: `*`, `foo`, `-foo`)
    /// instead of all of them.
    pub fn controllers(mut self, list: &[&str]) -> Self {
        self.controllers = Some(list.iter().map(|c| (*c).to_owned()).collect());
        self
    }

    /// Compacts the store's history this often (`kapi serve --etcd-compaction-interval`),
    /// for tests of what clients see after a compaction (410 Expired).
    pub fn compaction_interval(mut self, every: Duration) -> Self {
        self.compaction_interval = Some(every);
        self
    }

    /// Keeps the store, certificates and kubeconfig in `dir` (created if missing, left in
    /// place when the server stops) instead of a temporary directory removed with it.
    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }

    /// Starts the server.
    pub async fn start(self) -> Result<TestServer, TestServerError> {
        let dir = match &self.data_dir {
            Some(path) => DataDir::Given(path.clone()),
            None => DataDir::Temporary(tempfile::tempdir().map_err(TestServerError::TempDir)?),
        };
        let mut resolver = StaticServiceResolver::new();
        for s in &self.services {
            let entry: ServiceOverride = s
                .parse()
                .map_err(|e| TestServerError::Setting(format!("webhook service {s}: {e}")))?;
            resolver.insert(entry);
        }
        let webhooks = Arc::new(WebhookEnvironment::new().add_service_resolver(Arc::new(resolver)));
        let server = ServerOptions {
            bind_address: IpAddr::V4(Ipv4Addr::LOCALHOST),
            secure_port: 0,
            data_dir: dir.path().to_owned(),
            webhooks,
            ..ServerOptions::default()
        };
        let store = if self.etcd.is_empty() {
            let mut config = EmbeddedConfig::new(dir.path().to_owned());
            if self.compaction_interval.is_some() {
                config.compaction_interval = self.compaction_interval;
            }
            StoreConfig::Embedded(config)
        } else {
            StoreConfig::Etcd {
                config: EtcdConfig::new(self.etcd.clone()),
                compaction_interval: self.compaction_interval,
            }
        };
        let selection = match &self.controllers {
            Some(list) => ControllerSet::parse(list.iter().map(String::as_str))
                .map_err(|e| TestServerError::Setting(e.to_string()))?,
            None => ControllerSet::all(),
        };
        let plane = ControlPlane::start(ControlPlaneOptions {
            server,
            store,
            storage_prefix: "/registry".to_owned(),
            controllers: ControllerOptions {
                election: None,
                controllers: selection,
            },
        })
        .await?;
        let addr = plane.server().local_addr();
        let kubeconfig = plane.server().kubeconfig_path().to_owned();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(plane.run(async {
            let _ = stopped.await;
        }));
        let client = client_from(&kubeconfig).await?;
        let server = TestServer {
            client,
            kubeconfig,
            addr,
            stop: Some(stop),
            task: Some(task),
            dir,
        };
        for file in &self.crd_files {
            server.install_crds(file).await?;
        }
        Ok(server)
    }
}

async fn client_from(kubeconfig: &Path) -> Result<kube::Client, TestServerError> {
    let failed = |e: &dyn std::fmt::Display| TestServerError::Client(e.to_string());
    let kc = kube::config::Kubeconfig::read_from(kubeconfig).map_err(|e| failed(&e))?;
    let config =
        kube::Config::from_custom_kubeconfig(kc, &kube::config::KubeConfigOptions::default())
            .await
            .map_err(|e| failed(&e))?;
    kube::Client::try_from(config).map_err(|e| failed(&e))
}

/// A control plane running in this process; stopped by [`TestServer::stop`] or when
/// dropped (the store goes with its temporary directory).
pub struct TestServer {
    client: kube::Client,
    kubeconfig: PathBuf,
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    dir: DataDir,
}

/// Where a [`TestServer`] keeps its data.
#[derive(Debug)]
enum DataDir {
    /// Removed when the server is dropped.
    Temporary(tempfile::TempDir),
    /// The test's own directory, left in place.
    Given(PathBuf),
}

impl DataDir {
    fn path(&self) -> &Path {
        match self {
            DataDir::Temporary(dir) => dir.path(),
            DataDir::Given(path) => path,
        }
    }
}

impl TestServer {
    /// A server with every controller, the embedded store and no CRDs.
    pub async fn start() -> Result<Self, TestServerError> {
        Self::builder().start().await
    }

    /// A builder for other settings.
    pub fn builder() -> TestServerBuilder {
        TestServerBuilder::default()
    }

    /// A client for the admin user (`system:masters`).
    pub fn client(&self) -> kube::Client {
        self.client.clone()
    }

    /// The admin kubeconfig (for kubectl, or another client).
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig
    }

    /// `https://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// The server's data directory (certificates, tokens, the embedded store).
    pub fn data_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Installs the CustomResourceDefinitions of a manifest file and waits until each is
    /// Established and its served versions list it in discovery.
    pub async fn install_crds(&self, path: &Path) -> Result<(), TestServerError> {
        let failed = |what: String| TestServerError::Crd(format!("{}: {what}", path.display()));
        let text = std::fs::read_to_string(path).map_err(|e| failed(e.to_string()))?;
        let docs: Vec<Value> =
            serde_saphyr::from_multiple(&text).map_err(|e| failed(e.to_string()))?;
        for crd in docs
            .into_iter()
            .filter(|d| d["kind"] == "CustomResourceDefinition")
        {
            let name = crd["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            self.request(
                "POST",
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                Some(&crd),
            )
            .await
            .map_err(|e| failed(format!("{name}: {e}")))?;
            self.wait_served(&crd)
                .await
                .map_err(|e| failed(format!("{name}: {e}")))?;
        }
        Ok(())
    }

    /// Waits until every served version of `crd` lists its plural in discovery.
    async fn wait_served(&self, crd: &Value) -> Result<(), String> {
        let group = crd["spec"]["group"].as_str().unwrap_or_default();
        let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default();
        let versions: Vec<&str> = crd["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| v["served"] == true)
            .filter_map(|v| v["name"].as_str())
            .collect();
        let deadline = tokio::time::Instant::now() + CRD_WAIT;
        for version in versions {
            loop {
                let path = format!("/apis/{group}/{version}");
                let listed = match self.request("GET", &path, None).await {
                    Ok(v) => v["resources"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|r| r["name"] == plural)),
                    _ => false,
                };
                if listed {
                    break;
                }
                if tokio::time::Instant::now() > deadline {
                    return Err(format!("{group}/{version} does not serve {plural}"));
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        Ok(())
    }

    /// Sends a request as the admin; the answer's JSON, or the failure's text.
    async fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, String> {
        let req = http::Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", "application/json")
            .body(body.map(|b| b.to_string().into_bytes()).unwrap_or_default())
            .map_err(|e| e.to_string())?;
        let text = self
            .client
            .request_text(req)
            .await
            .map_err(|e| e.to_string())?;
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    /// Stops the server and waits until it has drained its connections.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
