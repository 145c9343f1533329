//! What every controller shares with the server it runs in: the registry, the store, the
//! watch caches, the conversion-webhook environment, the post-start hooks and shutdown.

use kapi_apiextensions::WebhookEnvironment;
use kapi_registry::cache::WatchCaches;
use kapi_registry::entry::Registry;
use kapi_storage::Store;
use std::sync::Arc;

/// The post-start hooks of `/readyz` (`poststarthook/<name>`), as the server keeps them.
pub trait PostStartHooks: Send + Sync {
    /// Adds a hook that is not started yet (`/readyz` fails until it is).
    fn register(&self, hook: &str);
    /// Marks a hook started.
    fn mark_started(&self, hook: &str);
}

/// Hooks nobody reads (tests that run controllers without a server).
#[derive(Debug, Default)]
pub struct NoHooks;

impl PostStartHooks for NoHooks {
    fn register(&self, _hook: &str) {}
    fn mark_started(&self, _hook: &str) {}
}

/// The shared state of the controllers of one process.
pub struct Context {
    /// The registry of served resources (the CRD controller adds and removes entries).
    pub registry: Arc<Registry>,
    /// The store.
    pub store: Arc<dyn Store>,
    /// The watch caches the controllers follow their resources through.
    pub caches: Arc<WatchCaches>,
    /// Where conversion webhooks are called through (every CRD's converter gets it).
    pub webhooks: Arc<WebhookEnvironment>,
    /// `/readyz`'s post-start hooks.
    pub hooks: Arc<dyn PostStartHooks>,
    /// Flips to true when the process shuts down.
    pub shutdown: tokio::sync::watch::Receiver<bool>,
    /// The CA bundle (PEM) that verifies the API server, published in every namespace as
    /// `kube-root-ca.crt`; `None` publishes nothing.
    pub root_ca: Option<String>,
    /// The key that signs ServiceAccount tokens; with it the token controller fills
    /// `kubernetes.io/service-account-token` Secrets.
    pub token_signer: Option<Arc<kapi_serviceaccount::SigningKey>>,
}

impl Context {
    /// The storage root (`/registry`), from where the registry keeps CRDs.
    pub fn storage_root(&self) -> Option<String> {
        let table = self.registry.snapshot();
        let crds = table.get("apiextensions.k8s.io", "v1", "customresourcedefinitions")?;
        crds.storage_prefix
            .strip_suffix("/apiextensions.k8s.io/customresourcedefinitions")
            .map(str::to_owned)
    }
}
