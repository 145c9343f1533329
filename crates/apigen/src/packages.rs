//! The Go packages the generator reads: where their vendored files are, their import
//! paths, and the Rust module each becomes.

/// One API package (a group version).
pub struct Package {
    /// Directory under the upstream root (`core/v1`).
    pub dir: &'static str,
    /// Go import path.
    pub import: &'static str,
    /// Rust module path inside kapi-api (`core::v1`).
    pub module: &'static str,
    /// API group ("" for core).
    pub group: &'static str,
    /// API version.
    pub version: &'static str,
}

const fn pkg(
    dir: &'static str,
    import: &'static str,
    module: &'static str,
    group: &'static str,
    version: &'static str,
) -> Package {
    Package {
        dir,
        import,
        module,
        group,
        version,
    }
}

/// Every generated package, in the order the registry lists groups.
pub const PACKAGES: &[Package] = &[
    pkg("core/v1", "k8s.io/api/core/v1", "core::v1", "", "v1"),
    pkg(
        "apiregistration/v1",
        "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
        "apiregistration::v1",
        "apiregistration.k8s.io",
        "v1",
    ),
    pkg("apps/v1", "k8s.io/api/apps/v1", "apps::v1", "apps", "v1"),
    pkg(
        "events/v1",
        "k8s.io/api/events/v1",
        "events::v1",
        "events.k8s.io",
        "v1",
    ),
    pkg(
        "authentication/v1",
        "k8s.io/api/authentication/v1",
        "authentication::v1",
        "authentication.k8s.io",
        "v1",
    ),
    pkg(
        "authorization/v1",
        "k8s.io/api/authorization/v1",
        "authorization::v1",
        "authorization.k8s.io",
        "v1",
    ),
    pkg(
        "batch/v1",
        "k8s.io/api/batch/v1",
        "batch::v1",
        "batch",
        "v1",
    ),
    pkg(
        "certificates/v1",
        "k8s.io/api/certificates/v1",
        "certificates::v1",
        "certificates.k8s.io",
        "v1",
    ),
    pkg(
        "networking/v1",
        "k8s.io/api/networking/v1",
        "networking::v1",
        "networking.k8s.io",
        "v1",
    ),
    pkg(
        "policy/v1",
        "k8s.io/api/policy/v1",
        "policy::v1",
        "policy",
        "v1",
    ),
    pkg(
        "rbac/v1",
        "k8s.io/api/rbac/v1",
        "rbac::v1",
        "rbac.authorization.k8s.io",
        "v1",
    ),
    pkg(
        "storage/v1",
        "k8s.io/api/storage/v1",
        "storage::v1",
        "storage.k8s.io",
        "v1",
    ),
    pkg(
        "admissionregistration/v1",
        "k8s.io/api/admissionregistration/v1",
        "admissionregistration::v1",
        "admissionregistration.k8s.io",
        "v1",
    ),
    pkg(
        "scheduling/v1",
        "k8s.io/api/scheduling/v1",
        "scheduling::v1",
        "scheduling.k8s.io",
        "v1",
    ),
    pkg(
        "coordination/v1",
        "k8s.io/api/coordination/v1",
        "coordination::v1",
        "coordination.k8s.io",
        "v1",
    ),
    pkg(
        "node/v1",
        "k8s.io/api/node/v1",
        "node::v1",
        "node.k8s.io",
        "v1",
    ),
    pkg(
        "discovery/v1",
        "k8s.io/api/discovery/v1",
        "discovery::v1",
        "discovery.k8s.io",
        "v1",
    ),
    pkg(
        "resource/v1",
        "k8s.io/api/resource/v1",
        "resource_api::v1",
        "resource.k8s.io",
        "v1",
    ),
    pkg(
        "flowcontrol/v1",
        "k8s.io/api/flowcontrol/v1",
        "flowcontrol::v1",
        "flowcontrol.apiserver.k8s.io",
        "v1",
    ),
];
