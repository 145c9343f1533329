//! `storagemigration.k8s.io/v1beta1` StorageVersionMigration (as current Kubernetes serves it):
//! cluster-scoped, `spec.resource {group, resource}`, `status.conditions` Running / Succeeded /
//! Failed. Stored as JSON like any built-in kind; [`super::controller`] acts on it.

use super::strategy::MigrationStrategy;
use crate::builtin::{EntrySpec, entry};
use crate::codec::JsonCodec;
use crate::registry::{ResourceEntry, Scope};
use crate::table::{Column, ColumnTable, name_column};
use serde_json::Value;
use std::sync::Arc;

/// The API group.
pub const GROUP: &str = "storagemigration.k8s.io";
/// The served version.
pub const VERSION: &str = "v1beta1";
/// The resource (plural).
pub const RESOURCE: &str = "storageversionmigrations";

const VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
const STATUS: &[(&str, &[&str])] = &[("status", &["get", "patch", "update"])];

/// The registry entry for StorageVersionMigration; keys live under `root`.
pub fn entries(root: &str) -> Vec<ResourceEntry> {
    let spec = EntrySpec {
        group: GROUP,
        version: VERSION,
        plural: RESOURCE,
        singular: "storageversionmigration",
        kind: "StorageVersionMigration",
        scope: Scope::Cluster,
        short_names: &[],
        categories: &[],
        verbs: VERBS,
        subresources: STATUS,
        strategy: Arc::new(MigrationStrategy),
        table: Arc::new(ColumnTable(vec![
            name_column(),
            Column {
                name: "Status",
                kind: "string",
                format: "",
                description: "The last condition that is true.",
                priority: 0,
                cell: |o| Value::from(terminal_or_running(o).unwrap_or_default()),
            },
        ])),
        storage_version: VERSION,
        group_priority: 901,
        version_priority: 0,
    };
    vec![entry(
        root,
        spec,
        Arc::new(JsonCodec::new(format!("{GROUP}/{VERSION}"))),
    )]
}

/// `Succeeded` or `Failed` when that condition is True, else `Running` when it is.
pub fn terminal_or_running(obj: &Value) -> Option<String> {
    let conds = obj["status"]["conditions"].as_array()?;
    let is_true = |t: &str| {
        conds
            .iter()
            .any(|c| c["type"] == t && c["status"] == "True")
    };
    ["Succeeded", "Failed", "Running"]
        .into_iter()
        .find(|t| is_true(t))
        .map(str::to_owned)
}

/// True once the migration has a terminal condition (Succeeded or Failed).
pub fn is_finished(obj: &Value) -> bool {
    matches!(
        terminal_or_running(obj).as_deref(),
        Some("Succeeded" | "Failed")
    )
}
