//! kapi's controllers, the ones the API's own semantics need, on one small reconcile
//! runtime ([`runtime`], kube-runtime's shape): the CRD controller ([`crd`]: names,
//! Established, serving the CRD's versions, deleting its objects before it goes), the
//! namespace controller ([`namespace`]), the garbage collector ([`gc`]), the
//! storage-version-migration controller ([`migration`]), and the `default` ServiceAccount
//! and `kube-root-ca.crt` ConfigMap of every namespace ([`namespace_objects`]), and the end
//! of Pods' grace periods, where a kubelet would delete them ([`pod_termination`]), and the
//! rules of aggregated ClusterRoles ([`clusterrole_aggregation`]), and the legacy tokens of
//! ServiceAccount token Secrets ([`service_account_tokens`]), and the type check of
//! ValidatingAdmissionPolicies in their status ([`admission_policy_status`]), and the
//! protection finalizers of claims and volumes in use ([`volume_protection`]). Every
//! controller follows its resources through the watch caches, writes through the REST
//! store (`kapi_registry::rest`, so strategies, validation and resourceVersions apply),
//! reconciles everything when it starts, and stops on shutdown. With several kapi processes on one etcd, the namespace,
//! garbage-collector and migration controllers run in one process at a time, each elected
//! through a Lease ([`leader`]); the CRD controller runs in every process, since each serves
//! the CRDs itself (as every kube-apiserver runs its apiextensions controllers).

pub mod admission_policy_status;
pub mod clusterrole_aggregation;
pub mod context;
pub mod crd;
pub mod gc;
pub mod leader;
pub mod migration;
pub mod namespace;
pub mod namespace_objects;
pub mod pod_termination;
pub mod policy_type_check;
pub mod runtime;
pub mod service_account_tokens;
pub mod volume_protection;

pub use context::{Context, PostStartHooks};
pub use leader::LeaseTiming;

use std::sync::Arc;
use std::time::Duration;

/// How the controllers of one process are run.
#[derive(Debug, Clone)]
pub struct ControllerOptions {
    /// Leader election for the elected controllers (several kapi on one etcd); `None` runs
    /// them all in this process (the embedded store belongs to one process).
    pub election: Option<LeaseTiming>,
    /// Which of the optional controllers run ([`ControllerSet`], kube's `--controllers`).
    pub controllers: ControllerSet,
}

impl Default for ControllerOptions {
    fn default() -> Self {
        Self {
            election: None,
            controllers: ControllerSet::all(),
        }
    }
}

/// The controllers `--controllers` can turn off, kube-controller-manager's names first and
/// their older aliases after. The CRD controller is the API server's own and always runs.
pub const OPTIONAL: [(&str, &[&str]); 11] = [
    (namespace::NAME, &["namespace"]),
    (gc::NAME, &["garbagecollector", "garbage-collector"]),
    (migration::NAME, &["storage-version-migrator"]),
    (namespace_objects::SERVICE_ACCOUNT_NAME, &["serviceaccount"]),
    (
        namespace_objects::ROOT_CA_NAME,
        &["root-ca-cert-publisher", "root-ca-certificate-publisher"],
    ),
    (pod_termination::NAME, &["pod-termination"]),
    (clusterrole_aggregation::NAME, &["clusterrole-aggregation"]),
    (service_account_tokens::NAME, &["serviceaccount-token"]),
    (
        admission_policy_status::NAME,
        &["validatingadmissionpolicy-status"],
    ),
    (
        volume_protection::PVC_NAME,
        &["pvc-protection", "pvc-protection-controller"],
    ),
    (
        volume_protection::PV_NAME,
        &["pv-protection", "pv-protection-controller"],
    ),
];

/// A `--controllers` list as kube-controller-manager reads it: `*` turns on every
/// controller, `foo` turns on foo, `-foo` turns it off; one not named is off unless `*` is
/// there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerSet {
    all: bool,
    on: Vec<&'static str>,
    off: Vec<&'static str>,
}

/// A `--controllers` entry that names no controller.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a known controller; known controllers: {known}", known = known_names())]
pub struct UnknownController(pub String);

fn known_names() -> String {
    OPTIONAL
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

fn canonical(name: &str) -> Option<&'static str> {
    OPTIONAL
        .iter()
        .find(|(n, aliases)| *n == name || aliases.contains(&name))
        .map(|(n, _)| *n)
}

impl ControllerSet {
    /// Every controller (`*`).
    pub fn all() -> Self {
        Self {
            all: true,
            on: Vec::new(),
            off: Vec::new(),
        }
    }

    /// Parses the entries of `--controllers` (already split at commas).
    pub fn parse<'a>(
        entries: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, UnknownController> {
        let mut s = Self {
            all: false,
            on: Vec::new(),
            off: Vec::new(),
        };
        for entry in entries.into_iter().map(str::trim).filter(|e| !e.is_empty()) {
            if entry == "*" {
                s.all = true;
                continue;
            }
            let (off, name) = match entry.strip_prefix('-') {
                Some(n) => (true, n),
                None => (false, entry),
            };
            let name = canonical(name).ok_or_else(|| UnknownController(name.to_owned()))?;
            if off {
                s.off.push(name)
            } else {
                s.on.push(name)
            }
        }
        Ok(s)
    }

    /// Whether the controller `name` runs.
    pub fn enabled(&self, name: &str) -> bool {
        !self.off.contains(&name) && (self.all || self.on.contains(&name))
    }
}

/// How long start-up waits for the CRD controller's first pass (the stored CRDs served)
/// before serving anyway; the controller goes on in the background.
const CRD_FIRST_PASS: Duration = Duration::from_secs(10);

/// The post-start hooks the controllers mark; [`start`] registers those of the controllers
/// it runs.
pub const HOOKS: [&str; 12] = [
    crd::HOOK,
    namespace::HOOK,
    gc::HOOK,
    migration::HOOK,
    namespace_objects::SERVICE_ACCOUNT_HOOK,
    namespace_objects::ROOT_CA_HOOK,
    pod_termination::HOOK,
    clusterrole_aggregation::HOOK,
    service_account_tokens::HOOK,
    admission_policy_status::HOOK,
    volume_protection::PVC_HOOK,
    volume_protection::PV_HOOK,
];

/// Starts every controller. Returns once the CRD controller has reconciled the stored
/// CRDs (at most [`CRD_FIRST_PASS`]), so a restarted kapi serves its custom resources from
/// its first request.
pub async fn start(
    ctx: Arc<Context>,
    opts: &ControllerOptions,
) -> Vec<tokio::task::JoinHandle<()>> {
    ctx.hooks.register(crd::HOOK);
    let mut crds = runtime::spawn(ctx.clone(), Arc::new(crd::CrdController::new()), None);
    let mut optional: Vec<Arc<dyn runtime::Reconciler>> = vec![
        Arc::new(namespace::NamespaceController),
        Arc::new(gc::GarbageCollector::new()),
        Arc::new(migration::MigrationController),
        Arc::new(namespace_objects::NamespaceObjectController::service_accounts()),
        Arc::new(pod_termination::PodTermination),
        Arc::new(clusterrole_aggregation::ClusterRoleAggregation),
        Arc::new(admission_policy_status::PolicyStatusController),
        Arc::new(volume_protection::PvcProtection),
        Arc::new(volume_protection::PvProtection),
    ];
    // Like kube-controller-manager's, the publisher runs only when there is a CA to publish.
    if let Some(ca) = &ctx.root_ca {
        optional.push(Arc::new(
            namespace_objects::NamespaceObjectController::root_ca(ca.as_str()),
        ));
    }
    if let Some(signer) = &ctx.token_signer {
        optional.push(Arc::new(service_account_tokens::ServiceAccountTokens::new(
            signer.clone(),
        )));
    }
    let mut tasks = Vec::new();
    for controller in optional {
        if !opts.controllers.enabled(controller.name()) {
            tracing::info!(controller = controller.name(), "disabled by --controllers");
            continue;
        }
        ctx.hooks.register(controller.hook());
        tasks.push(runtime::spawn(ctx.clone(), controller, opts.election).task);
    }
    if tokio::time::timeout(CRD_FIRST_PASS, crds.first_pass())
        .await
        .is_err()
    {
        tracing::warn!("the stored CRDs are not all served yet; going on in the background");
    }
    tasks.push(crds.task);
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_runs_every_controller_but_those_turned_off() {
        let s = ControllerSet::parse(["*", "-garbagecollector"]).unwrap();
        assert!(s.enabled(namespace::NAME));
        assert!(s.enabled(migration::NAME));
        assert!(!s.enabled(gc::NAME));
    }

    #[test]
    fn without_star_only_the_named_controllers_run() {
        let s = ControllerSet::parse(["namespace-controller"]).unwrap();
        assert!(s.enabled(namespace::NAME));
        assert!(!s.enabled(gc::NAME));
        assert!(!s.enabled(migration::NAME));
    }

    #[test]
    fn the_protection_controllers_are_named_as_kube_controller_manager_and_its_aliases() {
        let s =
            ControllerSet::parse(["*", "-pvc-protection-controller", "-pv-protection"]).unwrap();
        assert!(!s.enabled(volume_protection::PVC_NAME));
        assert!(!s.enabled(volume_protection::PV_NAME));
        let s = ControllerSet::parse(["persistentvolumeclaim-protection-controller"]).unwrap();
        assert!(s.enabled(volume_protection::PVC_NAME));
        assert!(!s.enabled(volume_protection::PV_NAME));
    }

    #[test]
    fn an_unknown_controller_is_refused_naming_the_known_ones() {
        let err = ControllerSet::parse(["*", "-replicaset"]).unwrap_err();
        assert_eq!(err.0, "replicaset");
        assert!(err.to_string().contains(gc::NAME), "{err}");
    }
}
