//! The built-in resources as registry entries: namespaces, configmaps, secrets, events
//! (core/v1), leases (coordination.k8s.io/v1), horizontalpodautoscalers (autoscaling/v2),
//! customresourcedefinitions (apiextensions.k8s.io/v1). Data only; no handler knows them.

mod tables;
use crate::codec::{JsonCodec, ObjectCodec};
use crate::entry::{ResourceEntry, ResourceNames, Scope, Subresource, storage_version_hash};
use crate::scheme_codec::SchemeCodec;
use crate::strategy::{GenericStrategy, NamespaceStrategy, Strategy};
use crate::table::TableConvertor;
use kapi_machinery::schema::GroupVersion;
use kapi_machinery::serializer::CodecFactory;
use serde_json::json;
use std::sync::Arc;

const ALL_VERBS: [&str; 8] = [
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

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
    /// Subresources with their verbs.
    pub subresources: &'static [(&'static str, &'static [&'static str])],
    /// Strategy.
    pub strategy: Arc<dyn Strategy>,
    /// Table.
    pub table: Arc<dyn TableConvertor>,
    /// Storage version (hash and codec).
    pub storage_version: &'static str,
    /// Order of the group in `/apis`.
    pub group_priority: u32,
    /// Order of the version in the group.
    pub version_priority: u32,
}

/// Builds a registry entry from a spec and a codec.
pub fn entry(root: &str, spec: EntrySpec, codec: Arc<dyn ObjectCodec>) -> ResourceEntry {
    let verbs: Vec<String> = spec.verbs.iter().map(|v| v.to_string()).collect();
    let prefix = if spec.group.is_empty() {
        format!("{root}/{}", spec.plural)
    } else {
        format!("{root}/{}/{}", spec.group, spec.plural)
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
            .map(|(name, verbs)| Subresource {
                name: name.to_string(),
                verbs: verbs.iter().map(|v| v.to_string()).collect(),
            })
            .collect(),
        storage_prefix: prefix,
        storage_version_hash: storage_version_hash(spec.group, spec.storage_version, spec.kind),
        codec,
        strategy: spec.strategy,
        table: spec.table,
        version_priority: spec.version_priority,
        group_priority: spec.group_priority,
    }
}

const STATUS: &[(&str, &[&str])] = &[("status", &["get", "patch", "update"])];

/// The specs of every built-in resource.
pub fn specs() -> Vec<EntrySpec> {
    let generic = |s: GenericStrategy| -> Arc<dyn Strategy> { Arc::new(s) };
    let core = |plural, singular, kind, short, strategy, table| EntrySpec {
        group: "",
        version: "v1",
        plural,
        singular,
        kind,
        scope: Scope::Namespaced,
        short_names: short,
        categories: &[],
        verbs: &ALL_VERBS,
        subresources: &[],
        strategy,
        table,
        storage_version: "v1",
        group_priority: 0,
        version_priority: 0,
    };
    let with_type = GenericStrategy {
        defaults: vec![("type", json!("Opaque"))],
        field_paths: vec![("type", vec!["type"])],
        ..GenericStrategy::default()
    };
    let event_fields = GenericStrategy {
        field_paths: vec![
            ("involvedObject.kind", vec!["involvedObject", "kind"]),
            (
                "involvedObject.namespace",
                vec!["involvedObject", "namespace"],
            ),
            ("involvedObject.name", vec!["involvedObject", "name"]),
            ("involvedObject.uid", vec!["involvedObject", "uid"]),
            (
                "involvedObject.apiVersion",
                vec!["involvedObject", "apiVersion"],
            ),
            (
                "involvedObject.resourceVersion",
                vec!["involvedObject", "resourceVersion"],
            ),
            (
                "involvedObject.fieldPath",
                vec!["involvedObject", "fieldPath"],
            ),
            ("reason", vec!["reason"]),
            ("reportingComponent", vec!["reportingComponent"]),
            ("source", vec!["source", "component"]),
            ("type", vec!["type"]),
        ],
        ..GenericStrategy::default()
    };
    vec![
        EntrySpec {
            scope: Scope::Cluster,
            verbs: &[
                "create", "delete", "get", "list", "patch", "update", "watch",
            ],
            subresources: &[
                ("finalize", &["update"]),
                ("status", &["get", "patch", "update"]),
            ],
            ..core(
                "namespaces",
                "namespace",
                "Namespace",
                &["ns"],
                Arc::new(NamespaceStrategy),
                Arc::new(tables::namespaces()),
            )
        },
        core(
            "configmaps",
            "configmap",
            "ConfigMap",
            &["cm"],
            generic(GenericStrategy::default()),
            Arc::new(tables::configmaps()),
        ),
        core(
            "secrets",
            "secret",
            "Secret",
            &[],
            generic(with_type),
            Arc::new(tables::secrets()),
        ),
        core(
            "events",
            "event",
            "Event",
            &["ev"],
            generic(event_fields),
            Arc::new(tables::events()),
        ),
        EntrySpec {
            group: "coordination.k8s.io",
            group_priority: 30,
            ..core(
                "leases",
                "lease",
                "Lease",
                &[],
                generic(GenericStrategy::default()),
                Arc::new(tables::leases()),
            )
        },
        EntrySpec {
            group: "autoscaling",
            version: "v2",
            storage_version: "v2",
            categories: &["all"],
            subresources: STATUS,
            group_priority: 10,
            ..core(
                "horizontalpodautoscalers",
                "horizontalpodautoscaler",
                "HorizontalPodAutoscaler",
                &["hpa"],
                generic(GenericStrategy {
                    status: true,
                    ..GenericStrategy::default()
                }),
                Arc::new(tables::hpas()),
            )
        },
        EntrySpec {
            group: "apiextensions.k8s.io",
            scope: Scope::Cluster,
            categories: &["api-extensions"],
            subresources: STATUS,
            group_priority: 20,
            ..core(
                "customresourcedefinitions",
                "customresourcedefinition",
                "CustomResourceDefinition",
                &["crd", "crds"],
                Arc::new(crate::crd::CrdStrategy),
                Arc::new(tables::crds()),
            )
        },
    ]
}

/// Every built-in entry with a JSON storage codec in its own version; keys live under
/// `root` (kube-apiserver's `--etcd-prefix`, `/registry`).
pub fn json_entries(root: &str) -> Vec<ResourceEntry> {
    specs()
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
/// storage version, protobuf where the kind has it), plus autoscaling/v1, which serves
/// HorizontalPodAutoscalers stored as v2.
pub fn scheme_entries(root: &str, factory: &CodecFactory) -> Vec<ResourceEntry> {
    let mut specs = specs();
    if let Some(hpa) = specs
        .iter()
        .find(|s| s.plural == "horizontalpodautoscalers")
    {
        let v1 = EntrySpec {
            version: "v1",
            version_priority: 1,
            strategy: hpa.strategy.clone(),
            table: hpa.table.clone(),
            ..*hpa
        };
        specs.push(v1);
    }
    specs
        .into_iter()
        .map(|spec| {
            let codec = SchemeCodec::new(
                factory.clone(),
                GroupVersion::new(spec.group, spec.version),
                GroupVersion::new(spec.group, spec.storage_version),
                spec.kind,
            );
            entry(root, spec, Arc::new(codec))
        })
        .collect()
}
