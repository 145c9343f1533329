//! The built-in resources as registry entries: every resource kube-apiserver 1.36.2 serves
//! by default (`resources.rs`, generated from its discovery), with the per-kind strategies
//! and tables kapi has. Data only; no handler knows them.

pub mod admission_config;
mod apps_update;
mod config;
mod csr;
mod deleted_object;
mod event;
mod fields;
mod internal_json;
mod job_update;
mod kind_rules;
mod networking;
mod pod_subresources;
mod pod_update;
mod printer_docs;
mod printers;
mod printers_apps;
mod printers_cluster;
mod rbac;
mod resource_table;
mod resources;
mod scheduling;
mod semantic;
mod service;
mod spec_diff;
mod storage;
pub mod storage_protection;
mod tables;
mod tolerations;
mod volume_status;
mod workload;

pub use config::{ConfigMapStrategy, SecretStrategy};
pub use event::EventStrategy;
pub use kind_rules::{KindRules, RuledStrategy};
pub use resource_table::{Resource, SubresourceSpec};
pub use resources::RESOURCES;
pub use service::{NetworkError, ServiceNetwork, ServiceStrategy};
pub use workload::{
    SelectorForm, Workload, WorkloadStrategy, label_selector_string, qos_class, selects,
};

use crate::codec::{JsonCodec, ObjectCodec};
use crate::entry::{ResourceEntry, ResourceNames, Scope, Subresource, storage_version_hash};
use crate::scheme_codec::SchemeCodec;
use crate::strategy::{GenericStrategy, NameRule, NamespaceStrategy, Strategy};
use crate::table::{ColumnTable, LazyTable, TableConvertor, default_table};
use kapi_machinery::schema::GroupVersion;
use kapi_machinery::serializer::CodecFactory;
use serde_json::json;
use std::sync::Arc;

/// What differs between built-in entries.
pub struct EntrySpec {
    /// Group.
    pub group: &'static str,
    /// Version.
    pub version: &'static str,
    /// Plural.
    pub plural: &'static str,
    /// Singular.
    pub singular: &'static str,
    /// Kind.
    pub kind: &'static str,
    /// Scope.
    pub scope: Scope,
    /// Short names.
    pub short_names: &'static [&'static str],
    /// Categories.
    pub categories: &'static [&'static str],
    /// Verbs, sorted.
    pub verbs: &'static [&'static str],
    /// Subresources with their verbs and response kinds.
    pub subresources: &'static [SubresourceSpec],
    /// Strategy.
    pub strategy: Arc<dyn Strategy>,
    /// Table.
    pub table: Arc<dyn TableConvertor>,
    /// Storage version (hash and codec).
    pub storage_version: &'static str,
    /// The group whose kind is stored, when not the resource's own (events.k8s.io/v1
    /// Events are stored as core/v1 Events, under core's key prefix).
    pub storage_group: Option<&'static str>,
    /// Order of the group in `/apis`.
    pub group_priority: u32,
    /// Order of the version in the group.
    pub version_priority: u32,
}

/// Builds a registry entry from a spec and a codec.
pub fn entry(root: &str, spec: EntrySpec, codec: Arc<dyn ObjectCodec>) -> ResourceEntry {
    let verbs: Vec<String> = spec.verbs.iter().map(|v| v.to_string()).collect();
    let storage_group = spec.storage_group.unwrap_or(spec.group);
    let prefix = if storage_group.is_empty() {
        format!("{root}/{}", spec.plural)
    } else {
        format!("{root}/{storage_group}/{}", spec.plural)
    };
    ResourceEntry {
        group: spec.group.into(),
        version: spec.version.into(),
        names: ResourceNames {
            plural: spec.plural.into(),
            singular: spec.singular.into(),
            kind: spec.kind.into(),
            list_kind: format!("{}List", spec.kind),
            short_names: spec.short_names.iter().map(|s| s.to_string()).collect(),
            categories: spec.categories.iter().map(|s| s.to_string()).collect(),
        },
        scope: spec.scope,
        verbs,
        subresources: spec
            .subresources
            .iter()
            .map(|s| Subresource {
                name: s.name.to_string(),
                verbs: s.verbs.iter().map(|v| v.to_string()).collect(),
                response_kind: (!s.kind.is_empty())
                    .then(|| (s.group.to_owned(), s.version.to_owned(), s.kind.to_owned())),
            })
            .collect(),
        storage_prefix: prefix,
        storage_version_hash: storage_version_hash(storage_group, spec.storage_version, spec.kind),
        codec,
        strategy: spec.strategy,
        table: spec.table,
        returns_deleted_object: deleted_object::returns_deleted_object(spec.group, spec.plural),
        version_priority: spec.version_priority,
        group_priority: spec.group_priority,
        kind_fields: Default::default(),
    }
}

/// Kinds whose spec changes bump `metadata.generation` (their registry strategies in
/// kube-apiserver set generation 1 on create and increment it on spec updates).
const TRACKS_GENERATION: &[(&str, &str)] = &[
    ("", "pods"),
    ("", "replicationcontrollers"),
    ("apps", "deployments"),
    ("apps", "replicasets"),
    ("apps", "statefulsets"),
    ("apps", "daemonsets"),
    ("batch", "jobs"),
    ("batch", "cronjobs"),
    ("policy", "poddisruptionbudgets"),
    ("networking.k8s.io", "networkpolicies"),
    ("networking.k8s.io", "ingresses"),
    (
        "admissionregistration.k8s.io",
        "mutatingwebhookconfigurations",
    ),
    (
        "admissionregistration.k8s.io",
        "validatingwebhookconfigurations",
    ),
    (
        "admissionregistration.k8s.io",
        "validatingadmissionpolicies",
    ),
    (
        "admissionregistration.k8s.io",
        "validatingadmissionpolicybindings",
    ),
    ("admissionregistration.k8s.io", "mutatingadmissionpolicies"),
    (
        "admissionregistration.k8s.io",
        "mutatingadmissionpolicybindings",
    ),
    ("flowcontrol.apiserver.k8s.io", "flowschemas"),
    (
        "flowcontrol.apiserver.k8s.io",
        "prioritylevelconfigurations",
    ),
    ("resource.k8s.io", "deviceclasses"),
    ("resource.k8s.io", "resourceslices"),
];

/// The name rule of a built-in kind (ValidateXName in kube's validation).
fn name_rule(group: &str, plural: &str) -> NameRule {
    match (group, plural) {
        ("", "services") => NameRule::Dns1035Label,
        ("rbac.authorization.k8s.io", _) => NameRule::PathSegment,
        _ => NameRule::Dns1123Subdomain,
    }
}

/// The deprecation notice upstream sends with every response of a deprecated kind.
fn deprecation(group: &str, plural: &str) -> Vec<&'static str> {
    match (group, plural) {
        ("", "componentstatuses") => vec!["v1 ComponentStatus is deprecated in v1.19+"],
        ("", "endpoints") => {
            vec!["v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"]
        }
        _ => Vec::new(),
    }
}

/// The printer of a kind whose columns upstream's `printers.go` defines (Pods, Deployments,
/// Services and the kinds of `tables.rs` are chosen in [`behaviour`]).
fn printer(group: &str, plural: &str) -> Option<fn() -> ColumnTable> {
    use printers_apps as a;
    use printers_cluster as c;
    let f: fn() -> ColumnTable = match (group, plural) {
        ("", "pods") => printers::pods,
        ("", "services") => printers::services,
        ("apps", "deployments") => printers::deployments,
        ("apps", "replicasets") => a::replicasets,
        ("apps", "statefulsets") => a::statefulsets,
        ("apps", "daemonsets") => a::daemonsets,
        ("apps", "controllerrevisions") => a::controllerrevisions,
        ("", "replicationcontrollers") => a::replicationcontrollers,
        ("", "podtemplates") => a::podtemplates,
        ("batch", "jobs") => a::jobs,
        ("batch", "cronjobs") => a::cronjobs,
        ("policy", "poddisruptionbudgets") => a::poddisruptionbudgets,
        ("", "serviceaccounts") => c::serviceaccounts,
        ("", "endpoints") => c::endpoints,
        ("", "nodes") => c::nodes,
        ("", "persistentvolumes") => c::persistentvolumes,
        ("", "persistentvolumeclaims") => c::persistentvolumeclaims,
        ("", "componentstatuses") => c::componentstatuses,
        ("", "resourcequotas") => c::resourcequotas,
        ("networking.k8s.io", "networkpolicies") => c::networkpolicies,
        ("networking.k8s.io", "ingresses") => c::ingresses,
        ("networking.k8s.io", "ingressclasses") => c::ingressclasses,
        ("networking.k8s.io", "servicecidrs") => c::servicecidrs,
        ("rbac.authorization.k8s.io", "rolebindings") => c::rolebindings,
        ("rbac.authorization.k8s.io", "clusterrolebindings") => c::clusterrolebindings,
        ("certificates.k8s.io", "certificatesigningrequests") => c::certificatesigningrequests,
        ("storage.k8s.io", "storageclasses") => c::storageclasses,
        ("storage.k8s.io", "volumeattributesclasses") => c::volumeattributesclasses,
        ("storage.k8s.io", "volumeattachments") => c::volumeattachments,
        ("storage.k8s.io", "csinodes") => c::csinodes,
        ("storage.k8s.io", "csidrivers") => c::csidrivers,
        ("storage.k8s.io", "csistoragecapacities") => c::csistoragecapacities,
        ("scheduling.k8s.io", "priorityclasses") => c::priorityclasses,
        ("node.k8s.io", "runtimeclasses") => c::runtimeclasses,
        ("discovery.k8s.io", "endpointslices") => c::endpointslices,
        ("admissionregistration.k8s.io", "mutatingwebhookconfigurations")
        | ("admissionregistration.k8s.io", "validatingwebhookconfigurations") => {
            c::webhookconfigurations
        }
        ("admissionregistration.k8s.io", "validatingadmissionpolicies") => {
            c::validatingadmissionpolicies
        }
        ("admissionregistration.k8s.io", "mutatingadmissionpolicies") => {
            c::mutatingadmissionpolicies
        }
        ("admissionregistration.k8s.io", "validatingadmissionpolicybindings")
        | ("admissionregistration.k8s.io", "mutatingadmissionpolicybindings") => {
            c::admissionpolicybindings
        }
        ("flowcontrol.apiserver.k8s.io", "flowschemas") => c::flowschemas,
        ("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations") => {
            c::prioritylevelconfigurations
        }
        _ => return None,
    };
    Some(f)
}

/// The table of a resource: its printer's, else kube's default (Name, Created At).
fn table_of(group: &str, plural: &str) -> Arc<dyn TableConvertor> {
    match printer(group, plural) {
        Some(build) => Arc::new(LazyTable::new(build)),
        None => Arc::new(default_table()),
    }
}

/// The strategy and table of one resource of the table, with its kind's validation rules
/// ([`KindRules`]) laid over the strategy.
fn behaviour(r: &Resource, opts: &BuiltinOptions) -> (Arc<dyn Strategy>, Arc<dyn TableConvertor>) {
    let (strategy, table) = base_behaviour(r, opts);
    match KindRules::of(r.group, r.plural) {
        Some(rules) => {
            let ruled = RuledStrategy {
                inner: strategy,
                rules,
            };
            (Arc::new(ruled), table)
        }
        None => (strategy, table),
    }
}

/// The strategy and table of one resource of the table, before [`KindRules`].
fn base_behaviour(
    r: &Resource,
    opts: &BuiltinOptions,
) -> (Arc<dyn Strategy>, Arc<dyn TableConvertor>) {
    let status = r.subresources.iter().any(|s| s.name == "status");
    let (field_paths, field_defaults) = fields::field_labels(r.group, r.plural);
    let generic = GenericStrategy {
        status,
        generation: TRACKS_GENERATION.contains(&(r.group, r.plural)),
        names: name_rule(r.group, r.plural),
        field_paths,
        field_defaults,
        warnings: deprecation(r.group, r.plural),
        ..GenericStrategy::default()
    };
    if let Some(workload) = Workload::of(r.group, r.plural) {
        let table = table_of(r.group, r.plural);
        return (Arc::new(WorkloadStrategy { generic, workload }), table);
    }
    if r.group == "admissionregistration.k8s.io"
        && let Some(kind) = admission_config::AdmissionKind::of(r.plural)
    {
        let strategy = admission_config::AdmissionConfigStrategy { generic, kind };
        return (Arc::new(strategy), table_of(r.group, r.plural));
    }
    match (r.group, r.plural) {
        ("", "namespaces") => (Arc::new(NamespaceStrategy), Arc::new(tables::namespaces())),
        ("", "configmaps") => (
            Arc::new(ConfigMapStrategy(generic)),
            Arc::new(tables::configmaps()),
        ),
        ("", "secrets") => (
            Arc::new(SecretStrategy(GenericStrategy {
                defaults: vec![("type", json!("Opaque"))],
                ..generic
            })),
            Arc::new(tables::secrets()),
        ),
        ("", "events") | ("events.k8s.io", "events") => (
            Arc::new(EventStrategy {
                generic,
                structured: !r.group.is_empty(),
            }),
            Arc::new(tables::events()),
        ),
        ("coordination.k8s.io", "leases") => (Arc::new(generic), Arc::new(tables::leases())),
        ("certificates.k8s.io", "certificatesigningrequests") => (
            Arc::new(csr::CsrStrategy(generic)),
            table_of(r.group, r.plural),
        ),
        ("autoscaling", "horizontalpodautoscalers") => (
            Arc::new(GenericStrategy {
                status: true,
                ..GenericStrategy::default()
            }),
            Arc::new(tables::hpas()),
        ),
        ("apiextensions.k8s.io", "customresourcedefinitions") => {
            (Arc::new(crate::crd::CrdStrategy), Arc::new(tables::crds()))
        }
        ("", "persistentvolumes") | ("", "persistentvolumeclaims") => {
            let volume = match r.plural {
                "persistentvolumes" => volume_status::Volume::Persistent,
                _ => volume_status::Volume::Claim,
            };
            let strategy = volume_status::VolumeStrategy { generic, volume };
            (Arc::new(strategy), table_of(r.group, r.plural))
        }
        ("", "services") => (
            Arc::new(ServiceStrategy {
                generic,
                network: opts.service_network.clone(),
            }),
            table_of(r.group, r.plural),
        ),
        _ => (Arc::new(generic), table_of(r.group, r.plural)),
    }
}

/// The storage version of a resource: the one version kapi serves (autoscaling stores v2;
/// events.k8s.io/v1 Events are core/v1 Events on disk).
fn storage_version(r: &Resource) -> &'static str {
    match r.group {
        "autoscaling" => "v2",
        "events.k8s.io" => "v1",
        _ => r.version,
    }
}

/// The group whose kind a resource is stored as, when not its own: upstream's cohabiting
/// resources (`AddCohabitatingResources(api.Resource("events"), events.Resource("events"))`).
fn storage_group(r: &Resource) -> Option<&'static str> {
    (r.group == "events.k8s.io" && r.plural == "events").then_some("")
}

/// What the built-in kinds are configured with (kube-apiserver's flags).
#[derive(Debug, Clone, Default)]
pub struct BuiltinOptions {
    /// Where Services take their cluster IPs and node ports.
    pub service_network: ServiceNetwork,
}

/// The specs of every built-in resource kapi serves (all of upstream's discovery), in
/// upstream's discovery order. (`bindings`, `componentstatuses`, the access reviews and
/// TokenReview are answered by handlers of kapi-server and store nothing.)
pub fn specs(opts: &BuiltinOptions) -> Vec<EntrySpec> {
    RESOURCES
        .iter()
        .map(|r| {
            let (strategy, table) = behaviour(r, opts);
            EntrySpec {
                group: r.group,
                version: r.version,
                plural: r.plural,
                singular: r.singular,
                kind: r.kind,
                scope: if r.namespaced {
                    Scope::Namespaced
                } else {
                    Scope::Cluster
                },
                short_names: r.short_names,
                categories: r.categories,
                verbs: r.verbs,
                subresources: r.subresources,
                strategy,
                table,
                storage_version: storage_version(r),
                storage_group: storage_group(r),
                group_priority: r.group_priority,
                version_priority: r.version_priority,
            }
        })
        .collect()
}

/// Every built-in entry with a JSON storage codec in its own version; keys live under
/// `root` (kube-apiserver's `--etcd-prefix`, `/registry`).
pub fn json_entries(root: &str) -> Vec<ResourceEntry> {
    specs(&BuiltinOptions::default())
        .into_iter()
        .map(|spec| {
            let api_version = if spec.group.is_empty() {
                spec.version.to_owned()
            } else {
                format!("{}/{}", spec.group, spec.version)
            };
            entry(root, spec, Arc::new(JsonCodec::new(api_version)))
        })
        .collect()
}

/// Every built-in entry with the Scheme's codec (typed, converting through the hub to the
/// storage version, protobuf where the kind has it); autoscaling/v1 serves
/// HorizontalPodAutoscalers stored as v2.
pub fn scheme_entries(root: &str, factory: &CodecFactory) -> Vec<ResourceEntry> {
    scheme_entries_with(root, factory, &BuiltinOptions::default())
}

/// [`scheme_entries`] with the given options (`--service-cluster-ip-range`, …).
pub fn scheme_entries_with(
    root: &str,
    factory: &CodecFactory,
    opts: &BuiltinOptions,
) -> Vec<ResourceEntry> {
    specs(opts)
        .into_iter()
        .map(|spec| {
            let codec = SchemeCodec::new(
                factory.clone(),
                GroupVersion::new(spec.group, spec.version),
                GroupVersion::new(
                    spec.storage_group.unwrap_or(spec.group),
                    spec.storage_version,
                ),
                spec.kind,
            );
            entry(root, spec, Arc::new(codec))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_printer_column_has_upstreams_description() {
        for r in RESOURCES {
            let Some(build) = printer(r.group, r.plural) else {
                continue;
            };
            for column in build().0 {
                // Upstream's RuntimeClass Handler looks its description up under a field
                // ObjectMeta lacks: empty there too.
                let known_empty = r.plural == "runtimeclasses" && column.name == "Handler";
                assert_eq!(
                    column.description.is_empty(),
                    known_empty,
                    "{}/{} column {}",
                    r.group,
                    r.plural,
                    column.name
                );
            }
        }
    }

    #[test]
    fn kinds_without_a_printer_get_kubes_default_table() {
        let names: Vec<&str> = table_of("rbac.authorization.k8s.io", "roles")
            .columns()
            .iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["Name", "Created At"]);
    }
}
