//! kapi's controllers, the ones the API's own semantics need, on one small reconcile
//! runtime ([`runtime`], kube-runtime's shape): the CRD controller ([`crd`]: names,
//! Established, serving the CRD's versions, deleting its objects before it goes), the
//! namespace controller ([`namespace`]) and the storage-version-migration controller
//! ([`migration`]). Every controller reads its resource through the watch cache, writes
//! through the REST store (`kapi_registry::rest`, so strategies, validation and
//! resourceVersions apply), reconciles everything when it starts, and stops on shutdown.
//! With several kapi processes on one etcd, the namespace and migration controllers run in
//! one process at a time, elected through a Lease ([`leader`]); the CRD controller runs in
//! every process, since each serves the CRDs itself (as every kube-apiserver runs its
//! apiextensions controllers).

pub mod context;
pub mod crd;
pub mod leader;
pub mod migration;
pub mod namespace;
pub mod runtime;

pub use context::{Context, PostStartHooks};
pub use leader::LeaseTiming;

use std::sync::Arc;
use std::time::Duration;

/// How the controllers of one process are run.
#[derive(Debug, Clone, Default)]
pub struct ControllerOptions {
    /// Leader election for the elected controllers (several kapi on one etcd); `None` runs
    /// them all in this process (the embedded store belongs to one process).
    pub election: Option<LeaseTiming>,
}

/// How long start-up waits for the CRD controller's first pass (the stored CRDs served)
/// before serving anyway; the controller goes on in the background.
const CRD_FIRST_PASS: Duration = Duration::from_secs(10);

/// The post-start hooks the controllers mark, registered by [`start`].
pub const HOOKS: [&str; 3] = [crd::HOOK, namespace::HOOK, migration::HOOK];

/// Starts every controller. Returns once the CRD controller has reconciled the stored
/// CRDs (at most [`CRD_FIRST_PASS`]), so a restarted kapi serves its custom resources from
/// its first request.
pub async fn start(
    ctx: Arc<Context>,
    opts: &ControllerOptions,
) -> Vec<tokio::task::JoinHandle<()>> {
    for hook in HOOKS {
        ctx.hooks.register(hook);
    }
    let mut crds = runtime::spawn(ctx.clone(), Arc::new(crd::CrdController::new()), None);
    let namespaces = runtime::spawn(
        ctx.clone(),
        Arc::new(namespace::NamespaceController),
        opts.election,
    );
    let migrations = runtime::spawn(
        ctx.clone(),
        Arc::new(migration::MigrationController),
        opts.election,
    );
    if tokio::time::timeout(CRD_FIRST_PASS, crds.first_pass())
        .await
        .is_err()
    {
        tracing::warn!("the stored CRDs are not all served yet; going on in the background");
    }
    vec![crds.task, namespaces.task, migrations.task]
}
