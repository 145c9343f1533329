//! Assembling and running a server: options, bootstrap of the data dir, binding, serving.

use crate::api;
use crate::authn::{self, Authenticator};
use crate::metrics::Metrics;
use crate::pki::{self, Credentials, PkiError};
use crate::service_accounts::ServiceAccountTokens;
use crate::state::ApiState;
use crate::tls::{self, TlsError};
use axum::Router;
use axum::routing::{any, get};
use kapi_registry::entry::Registry;
use kapi_storage::Store;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::net::TcpListener;

/// What `kapi serve` is started with.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Address to listen on (`--bind-address`).
    pub bind_address: IpAddr,
    /// Port to listen on; 0 picks a free one (`--secure-port`).
    pub secure_port: u16,
    /// Directory for certificates, tokens, the kubeconfig and the embedded store.
    pub data_dir: PathBuf,
    /// Extra address for the serving certificate and kubeconfig (`--advertise-address`).
    pub advertise_address: Option<IpAddr>,
    /// The environment conversion webhooks are called through (`--service-resolver`).
    pub webhooks: Arc<kapi_apiextensions::WebhookEnvironment>,
    /// The Service network (`--service-cluster-ip-range`) the `kubernetes` Service is in.
    pub service_network: kapi_registry::builtin::ServiceNetwork,
    /// How requests are authorized (`--authorization-mode`).
    pub authorization: crate::authz::Mode,
    /// Users of `--token-auth-file` (token → user), besides the data dir's admin token.
    pub token_users: std::collections::HashMap<String, crate::authn::User>,
    /// Requests without credentials are `system:anonymous` (`--anonymous-auth`) instead of 401.
    pub anonymous_auth: bool,
    /// ServiceAccount token keys, issuers and audiences (`--service-account-*`).
    pub service_accounts: crate::service_accounts::ServiceAccountOptions,
    /// A serving certificate and key to use instead of the data dir's (`--tls-cert-file`,
    /// `--tls-private-key-file`, or `--cert-dir`'s `apiserver.crt`/`apiserver.key`).
    pub serving_files: Option<(PathBuf, PathBuf)>,
    /// More CAs whose client certificates authenticate (`--client-ca-file`).
    pub client_ca_file: Option<PathBuf>,
    /// The built-in admission plugins that run (all unless `--disable-admission-plugins`).
    pub admission_plugins: crate::admission::builtin::BuiltinPlugins,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            bind_address: IpAddr::V4(Ipv4Addr::LOCALHOST),
            secure_port: 6443,
            data_dir: PathBuf::from("kapi-data"),
            advertise_address: None,
            webhooks: Default::default(),
            service_network: Default::default(),
            authorization: Default::default(),
            token_users: Default::default(),
            anonymous_auth: false,
            service_accounts: Default::default(),
            serving_files: None,
            client_ca_file: None,
            admission_plugins: Default::default(),
        }
    }
}

/// Errors starting a server.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// Certificates, tokens or kubeconfig.
    #[error(transparent)]
    Pki(#[from] PkiError),
    /// TLS configuration.
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// ServiceAccount keys.
    #[error("service account keys: {0}")]
    ServiceAccountKeys(#[from] crate::service_accounts::ServiceAccountKeyError),
    /// Bootstrapping the API (system namespaces).
    #[error("bootstrap: {0}")]
    Bootstrap(#[from] crate::status::ApiError),
    /// Opening the store.
    #[error("store: {0}")]
    Store(BoxError),
    /// Binding the listening socket.
    #[error("listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The cause.
        source: std::io::Error,
    },
}

/// A boxed error from opening the store.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Listener, TLS config, bound address, kubeconfig path, credentials and ServiceAccount
/// keys.
type Prepared = (
    TcpListener,
    (Arc<rustls::ServerConfig>, tls::ClientCerts),
    SocketAddr,
    PathBuf,
    (Credentials, Arc<ServiceAccountTokens>),
);

/// A server bound to its port and ready to serve.
pub struct Server {
    listener: TcpListener,
    tls: (Arc<rustls::ServerConfig>, tls::ClientCerts),
    app: Router,
    state: Arc<ApiState>,
    local_addr: SocketAddr,
    kubeconfig: PathBuf,
    ca_pem: String,
    shutdown: tokio::sync::watch::Sender<bool>,
}

impl Server {
    /// Bootstraps the data dir (first start: CA, certificates, token), binds the port and
    /// writes the kubeconfig with the address actually bound.
    pub async fn bind(
        opts: ServerOptions,
        store: Arc<dyn Store>,
        registry: Arc<Registry>,
    ) -> Result<Self, ServerError> {
        Self::bind_opening(opts, async { Ok(store) }, registry).await
    }

    /// Like [`Server::bind`], opening the store (`open_store`) while the credentials are
    /// loaded and the port is bound, which shortens start-up.
    pub async fn bind_opening(
        opts: ServerOptions,
        open_store: impl Future<Output = Result<Arc<dyn Store>, BoxError>>,
        registry: Arc<Registry>,
    ) -> Result<Self, ServerError> {
        let (store, prepared) = tokio::join!(open_store, Self::prepare(&opts));
        let store = store.map_err(ServerError::Store)?;
        Self::finish(opts, store, registry, prepared?).await
    }

    async fn prepare(opts: &ServerOptions) -> Result<Prepared, ServerError> {
        tls::install_crypto_provider();
        let extra: Vec<IpAddr> = [Some(opts.bind_address), opts.advertise_address]
            .into_iter()
            .flatten()
            .filter(|ip| !ip.is_unspecified())
            .collect();
        let data_dir = opts.data_dir.clone();
        let sa_opts = opts.service_accounts.clone();
        let (serving_files, client_ca) = (opts.serving_files.clone(), opts.client_ca_file.clone());
        let (creds, sa) = tokio::task::spawn_blocking(move || {
            let mut creds = Credentials::load_or_create(&data_dir, &extra)?;
            if let Some((cert, key)) = &serving_files {
                creds = creds.with_serving_files(cert, key)?;
            }
            if let Some(file) = &client_ca {
                creds = creds.with_client_ca_file(file)?;
            }
            let sa = ServiceAccountTokens::load(&sa_opts, &data_dir)?;
            Ok::<_, ServerError>((creds, Arc::new(sa)))
        })
        .await
        .map_err(|e| {
            PkiError::File(crate::files::FileError {
                path: opts.data_dir.clone(),
                source: std::io::Error::other(e),
            })
        })??;
        tracing::debug!("credentials loaded");
        let tls = tls::server_config(&creds)?;
        let addr = SocketAddr::new(opts.bind_address, opts.secure_port);
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServerError::Bind { addr, source })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| ServerError::Bind { addr, source })?;
        let url = format!("https://{}", client_host(opts, local_addr));
        let kubeconfig = pki::write_kubeconfig(&opts.data_dir, &url, &creds)?;
        tracing::debug!("kubeconfig written");
        Ok((listener, tls, local_addr, kubeconfig, (creds, sa)))
    }

    async fn finish(
        opts: ServerOptions,
        store: Arc<dyn Store>,
        registry: Arc<Registry>,
        prepared: Prepared,
    ) -> Result<Self, ServerError> {
        let (listener, tls, local_addr, kubeconfig, (creds, sa)) = prepared;
        let mut tokens = opts.token_users.clone();
        tokens.extend(creds.tokens.clone());
        let auth = Arc::new(
            Authenticator::new(tokens, opts.anonymous_auth).with_service_accounts(sa.clone()),
        );
        let (shutdown, shutdown_rx) = tokio::sync::watch::channel(false);
        let health = Arc::new(crate::health::Health::new(
            store.clone(),
            shutdown_rx.clone(),
        ));
        health.register(SYSTEM_NAMESPACES_HOOK);
        let state = Arc::new(ApiState {
            registry,
            webhooks: opts.webhooks.clone(),
            caches: Arc::new(kapi_registry::cache::WatchCaches::new(store.clone())),
            store,
            health,
            metrics: Arc::new(Metrics::new()),
            admission_metrics: Arc::new(crate::admission::metrics::AdmissionMetrics::new()),
            server_address: client_host(&opts, local_addr).to_string(),
            shutdown: shutdown_rx,
            authorizer: crate::authz::Authorizer::new(opts.authorization),
            authenticator: auth,
            admission_plugins: opts.admission_plugins,
        });
        crate::namespace_lifecycle::ensure_system_namespaces(&state).await?;
        state.health.mark_started(SYSTEM_NAMESPACES_HOOK);
        tracing::debug!("system namespaces ensured");
        state.health.register(crate::bootstrap::HOOK);
        let (bootstrap_state, network) = (state.clone(), opts.service_network.clone());
        let server_ip = client_host(&opts, local_addr).ip().to_string();
        tokio::spawn(async move {
            let state = bootstrap_state;
            match crate::bootstrap::ensure(&state, &network, &server_ip, local_addr.port()).await {
                Ok(()) => state.health.mark_started(crate::bootstrap::HOOK),
                Err(e) => {
                    tracing::error!(error = %e, "the kubernetes Service could not be created")
                }
            }
        });
        state.health.register(crate::rbac_bootstrap::HOOK);
        let rbac_state = state.clone();
        tokio::spawn(async move {
            match crate::rbac_bootstrap::ensure(&rbac_state).await {
                Ok(()) => rbac_state.health.mark_started(crate::rbac_bootstrap::HOOK),
                Err(e) => {
                    tracing::error!(error = %e, "the bootstrap RBAC policy could not be created")
                }
            }
        });
        Ok(Self {
            listener,
            tls,
            app: router(state.clone()),
            state,
            local_addr,
            kubeconfig,
            ca_pem: creds.serving_ca_pem.clone(),
            shutdown,
        })
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The state requests share (registry, store, watch caches, health, shutdown): what
    /// the controllers of the process run on, started by whoever wires the server.
    pub fn state(&self) -> &Arc<ApiState> {
        &self.state
    }

    /// The kubeconfig written for the admin user.
    pub fn kubeconfig_path(&self) -> &std::path::Path {
        &self.kubeconfig
    }

    /// The CA (PEM) that signed the serving certificate: what clients verify it with.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// Serves until `shutdown` resolves, then drains open connections.
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        let tx = self.shutdown;
        let signal = async move {
            shutdown.await;
            let _ = tx.send(true);
        };
        let (config, client_certs) = self.tls;
        crate::listener::serve(self.listener, config, client_certs, self.app, signal).await;
    }
}

/// The post-start hook that creates the system namespaces.
pub(crate) const SYSTEM_NAMESPACES_HOOK: &str = "start-system-namespaces-controller";

/// The host:port clients should use: the advertise address, else the bound one
/// (127.0.0.1 when bound to all interfaces).
fn client_host(opts: &ServerOptions, bound: SocketAddr) -> SocketAddr {
    let ip = match (opts.advertise_address, bound.ip()) {
        (Some(ip), b) if b.is_unspecified() => ip,
        (_, b) if b.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        (_, b) => b,
    };
    SocketAddr::new(ip, bound.port())
}

fn router(state: Arc<ApiState>) -> Router {
    let health = state.health.clone();
    let fixed_state = state.clone();
    let authz_state = state.clone();
    let authn_state = state.clone();
    let oidc_state = state.clone();
    let api = Router::new()
        .route("/api", any(api::serve))
        .route("/api/{*rest}", any(api::serve))
        .route("/apis", any(api::serve))
        .route("/apis/{*rest}", any(api::serve))
        .route("/openapi/v2", get(crate::openapi_v2::serve))
        .route("/openapi/v3", get(api::openapi_index))
        .route("/openapi/v3/{*rest}", get(api::openapi_document))
        .with_state(state);
    let fixed = crate::health::probe_routes(health)
        .route("/version", get(crate::health::version))
        .route(
            crate::oidc::CONFIGURATION_PATH,
            get(crate::oidc::configuration).with_state(oidc_state.clone()),
        )
        .route(
            crate::oidc::JWKS_PATH,
            get(crate::oidc::keys).with_state(oidc_state),
        )
        .route(
            "/metrics",
            get(crate::metrics_endpoint::serve).with_state(fixed_state),
        );
    fixed
        .merge(api)
        .fallback(|| async { api::page_not_found() })
        // Layers run outermost last-added first: authentication, then authorization.
        .layer(axum::middleware::from_fn_with_state(
            authz_state,
            crate::authz::authorize,
        ))
        .layer(axum::middleware::from_fn_with_state(
            authn_state,
            authn::authenticate,
        ))
        // Outermost: every error, authentication's included, in the form `Accept` asks for.
        .layer(axum::middleware::from_fn(
            crate::error_negotiation::negotiate_errors,
        ))
}
