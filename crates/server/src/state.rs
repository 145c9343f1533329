//! The state every request shares: the registry, the store, the watch caches, metrics and
//! health. A module of its own so that the HTTP tree (`api`, `handlers`) and the server's
//! assembly depend on it and not on each other; the controllers (kapi-controllers) run on
//! the same registry, store and caches, handed to them by `kapi serve`.

use crate::metrics::Metrics;
use kapi_registry::entry::Registry;
use kapi_storage::Store;
use std::sync::Arc;

/// State shared by every API request.
pub struct ApiState {
    /// The registry of served resources.
    pub registry: Arc<Registry>,
    /// The store.
    pub store: Arc<dyn Store>,
    /// Metrics.
    pub metrics: Arc<Metrics>,
    /// Admission webhook and policy metrics.
    pub admission_metrics: Arc<crate::admission::metrics::AdmissionMetrics>,
    /// Where conversion webhooks are called through (service resolvers, client pool,
    /// metrics), injected into every CRD's converter.
    pub webhooks: Arc<kapi_apiextensions::WebhookEnvironment>,
    /// The watch caches, one per resource prefix.
    pub caches: Arc<kapi_registry::cache::WatchCaches>,
    /// Health checks (`/livez`, `/readyz`); components mark their post-start hooks here.
    pub health: Arc<crate::health::Health>,
    /// `host:port` clients reach the server at (discovery's serverAddressByClientCIDRs).
    pub server_address: String,
    /// Flips to true when the server shuts down (ends watches).
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// Who may do what (`--authorization-mode`).
    pub authorizer: crate::authz::Authorizer,
    /// Who a request is (certificates, token files, ServiceAccount tokens).
    pub authenticator: Arc<crate::authn::Authenticator>,
    /// The built-in admission plugins that run (`--disable-admission-plugins`).
    pub admission_plugins: crate::admission::builtin::BuiltinPlugins,
}
