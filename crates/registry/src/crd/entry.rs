//! Builds the registry entries of a CRD: one per served version, all sharing the storage
//! key prefix `<root>/<group>/<plural>`, the compiled schemas and the CRD's converter.

use super::codec::CrCodec;
use super::scale::ScaleSpec;
use super::strategy::CrStrategy;
use super::table::CrTable;
use super::version_priority;
use crate::entry::{ResourceEntry, ResourceNames, Scope, Subresource, storage_version_hash};
use kapi_api::apiextensions::v1::{CustomResourceDefinition, CustomResourceDefinitionVersion};
use kapi_apiextensions::{CustomResourceSchemas, PipelineError};
use std::sync::Arc;

/// Discovery order of CRD groups: after every built-in group.
const CRD_GROUP_PRIORITY: u32 = 1000;

/// Verbs of a custom resource, in kube-apiserver's discovery order (golden
/// `discovery-group-version.json`).
const VERBS: [&str; 8] = [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];

fn names(crd: &CustomResourceDefinition) -> ResourceNames {
    let accepted = &crd.status.accepted_names;
    let n = if accepted.plural.is_empty() {
        &crd.spec.names
    } else {
        accepted
    };
    ResourceNames {
        plural: n.plural.clone(),
        singular: if n.singular.is_empty() {
            n.kind.to_ascii_lowercase()
        } else {
            n.singular.clone()
        },
        kind: n.kind.clone(),
        list_kind: if n.list_kind.is_empty() {
            format!("{}List", n.kind)
        } else {
            n.list_kind.clone()
        },
        short_names: n.short_names.clone(),
        categories: n.categories.clone(),
    }
}

fn selectable(v: &CustomResourceDefinitionVersion) -> Vec<(String, Vec<String>)> {
    v.selectable_fields
        .iter()
        .map(|f| {
            let label = f.json_path.trim_start_matches('.').to_owned();
            let path = label.split('.').map(str::to_owned).collect();
            (label, path)
        })
        .collect()
}

fn deprecation(
    crd: &CustomResourceDefinition,
    v: &CustomResourceDefinitionVersion,
) -> Option<String> {
    v.deprecated.then(|| {
        v.deprecation_warning.clone().unwrap_or_else(|| {
            format!(
                "{}/{} {} is deprecated",
                crd.spec.group, v.name, crd.spec.names.kind
            )
        })
    })
}

fn openapi_schema(v: &CustomResourceDefinitionVersion) -> Option<serde_json::Value> {
    let schema = v.schema.as_ref()?.open_api_v3_schema.as_deref()?;
    serde_json::to_value(schema).ok()
}

/// The entries serving every `served` version of `crd`; keys live under `root`.
/// A webhook converter calls through `webhooks`.
pub fn entries_for_crd(
    root: &str,
    crd: &CustomResourceDefinition,
    webhooks: Arc<kapi_apiextensions::WebhookEnvironment>,
) -> Result<Vec<ResourceEntry>, PipelineError> {
    let schemas = Arc::new(CustomResourceSchemas::with_webhooks(crd, webhooks)?);
    let names = names(crd);
    let group = &crd.spec.group;
    let storage = schemas.storage_version().to_owned();
    let scope = if crd.spec.scope == "Cluster" {
        Scope::Cluster
    } else {
        Scope::Namespaced
    };
    let none_conversion = crd
        .spec
        .conversion
        .as_ref()
        .is_none_or(|c| c.strategy == "None");
    let served = crd.spec.versions.iter().filter(|v| v.served);
    Ok(served
        .map(|v| {
            let subs = v.subresources.as_ref();
            let status = subs.is_some_and(|s| s.status.is_some());
            let scale = subs.and_then(|s| s.scale.as_ref()).map(|s| ScaleSpec {
                spec_replicas: s.spec_replicas_path.clone(),
                status_replicas: s.status_replicas_path.clone(),
                label_selector: s.label_selector_path.clone(),
            });
            let verbs = || vec!["get".into(), "patch".into(), "update".into()];
            let mut subresources = Vec::new();
            for (name, on) in [("status", status), ("scale", scale.is_some())] {
                if on {
                    subresources.push(Subresource {
                        name: name.into(),
                        verbs: verbs(),
                        response_kind: (name == "scale")
                            .then(|| ("autoscaling".into(), "v1".into(), "Scale".into())),
                    });
                }
            }
            ResourceEntry {
                group: group.clone(),
                version: v.name.clone(),
                names: names.clone(),
                scope,
                verbs: VERBS.iter().map(|s| s.to_string()).collect(),
                subresources,
                storage_prefix: format!("{root}/{group}/{}", names.plural),
                storage_version_hash: storage_version_hash(group, &storage, &names.kind),
                codec: Arc::new(
                    CrCodec::new(schemas.clone(), group, &v.name, &names.kind)
                        .with_none_conversion(none_conversion)
                        .with_openapi_schema(openapi_schema(v)),
                ),
                strategy: Arc::new(CrStrategy {
                    schemas: schemas.clone(),
                    version: v.name.clone(),
                    status,
                    selectable: selectable(v),
                    warning: deprecation(crd, v),
                    scale,
                    terminating: crd.metadata.deletion_timestamp.is_some(),
                }),
                table: Arc::new(CrTable::new(&v.additional_printer_columns)),
                returns_deleted_object: false,
                version_priority: version_priority(&v.name),
                group_priority: CRD_GROUP_PRIORITY,
                kind_fields: Default::default(),
            }
        })
        .collect())
}
