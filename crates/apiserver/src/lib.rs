//! kapi's control plane, assembled: the registry of the built-in kinds (and kapi's own
//! StorageVersion and StorageVersionMigration APIs), the store (embedded or etcd), the HTTPS
//! server and the controllers the API's semantics need. `kapi serve` runs it from its
//! flags until a signal; `kapi-test` runs it in a test's process on a free port.

use kapi_controllers::ControllerOptions;
use kapi_registry::builtin::{BuiltinOptions, ServiceNetwork};
use kapi_registry::entry::Registry;
use kapi_server::health::Health;
use kapi_server::{BoxError, Server, ServerError, ServerOptions};
use kapi_storage::StoreConfig;
use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

/// How a control plane is made.
pub struct ControlPlaneOptions {
    /// The server's options (address, data dir, authentication, authorization, …).
    pub server: ServerOptions,
    /// Where objects are stored.
    pub store: StoreConfig,
    /// The prefix of every storage key (`--etcd-prefix`, `/registry`).
    pub storage_prefix: String,
    /// Which controllers run, and their leader election.
    pub controllers: ControllerOptions,
}

/// Errors starting a control plane.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The scheme of the built-in kinds could not be built.
    #[error("scheme: {0}")]
    Scheme(BoxError),
    /// The server could not start (store, credentials, port).
    #[error(transparent)]
    Server(#[from] ServerError),
}

/// A started control plane: bound, its controllers running; serving once [`run`] runs.
///
/// [`run`]: ControlPlane::run
pub struct ControlPlane {
    server: Server,
    controllers: Vec<tokio::task::JoinHandle<()>>,
}

/// The registry of everything kapi serves before any CRD: the built-in kinds of
/// Kubernetes 1.36 and kapi's StorageVersion and StorageVersionMigration APIs.
pub fn builtin_registry(
    storage_prefix: &str,
    service_network: &ServiceNetwork,
) -> Result<Arc<Registry>, StartError> {
    let prefix = storage_prefix.trim_end_matches('/');
    let registry = Arc::new(Registry::new());
    let scheme = Arc::new(kapi_api::new_scheme().map_err(|e| StartError::Scheme(e.into()))?);
    let codecs = kapi_machinery::serializer::CodecFactory::new(scheme);
    registry.upsert(kapi_registry::builtin::scheme_entries_with(
        prefix,
        &codecs,
        &BuiltinOptions {
            service_network: service_network.clone(),
        },
    ));
    registry.upsert(kapi_server::storage_versions::entries(prefix));
    registry.upsert(kapi_registry::storage_migration::api::entries(prefix));
    Ok(registry)
}

impl ControlPlane {
    /// Builds the registry, opens the store while the credentials load and the port is
    /// bound, and starts the controllers (returning once the stored CRDs are served).
    pub async fn start(opts: ControlPlaneOptions) -> Result<Self, StartError> {
        let started = Instant::now();
        let registry = builtin_registry(&opts.storage_prefix, &opts.server.service_network)?;
        tracing::debug!(
            elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
            "registry built"
        );
        let store_config = opts.store;
        let open = async move {
            let store = kapi_storage::open_store(store_config).await;
            tracing::debug!(
                elapsed_ms = started.elapsed().as_secs_f64() * 1000.0,
                "store open"
            );
            Ok::<_, BoxError>(store?)
        };
        let server = Server::bind_opening(opts.server, open, registry).await?;
        let controllers =
            kapi_controllers::start(controller_context(&server), &opts.controllers).await;
        Ok(Self {
            server,
            controllers,
        })
    }

    /// The server (its address, kubeconfig, CA, state).
    pub fn server(&self) -> &Server {
        &self.server
    }

    /// Serves until `shutdown` resolves, then drains connections; the controllers stop with
    /// the server's shutdown signal.
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        let _controllers = self.controllers;
        self.server.run(shutdown).await;
    }
}

/// What the controllers run on: the server's registry, store, watch caches, webhook
/// environment, health hooks, shutdown, CA and ServiceAccount signing key.
fn controller_context(server: &Server) -> Arc<kapi_controllers::Context> {
    let state = server.state();
    Arc::new(kapi_controllers::Context {
        registry: state.registry.clone(),
        store: state.store.clone(),
        caches: state.caches.clone(),
        webhooks: state.webhooks.clone(),
        hooks: Arc::new(HealthHooks(state.health.clone())),
        shutdown: state.shutdown.clone(),
        root_ca: Some(server.ca_pem().to_owned()),
        token_signer: state
            .authenticator
            .service_accounts()
            .map(|sa| sa.signer().clone()),
    })
}

/// The server's `/readyz` post-start hooks, as the controllers mark them.
struct HealthHooks(Arc<Health>);

impl kapi_controllers::PostStartHooks for HealthHooks {
    fn register(&self, hook: &str) {
        self.0.register(hook);
    }

    fn mark_started(&self, hook: &str) {
        self.0.mark_started(hook);
    }
}
