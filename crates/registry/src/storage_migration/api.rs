//! `storagemigration.k8s.io` StorageVersionMigration as current Kubernetes serves it: `v1`
//! (preferred, introduced in 1.37) and `v1beta1` (1.35), the same schema in both (R7.7):
//! cluster-scoped, `spec.resource {group, resource}`, `status.conditions` Running / Succeeded /
//! Failed, `status.resourceVersion`. Stored as JSON at `v1` like any built-in kind;
//! kapi-controllers' migration controller acts on it.

use super::strategy::MigrationStrategy;
use crate::builtin::{EntrySpec, SubresourceSpec, entry};
use crate::codec::ObjectCodec;
use crate::entry::{ResourceEntry, Scope};
use crate::error::Error;
use crate::table::{Column, ColumnTable, name_column};
use serde_json::Value;
use std::sync::Arc;

/// The API group.
pub const GROUP: &str = "storagemigration.k8s.io";
/// The preferred and storage version.
pub const VERSION: &str = "v1";
/// The versions served, preferred first.
pub const VERSIONS: [&str; 2] = ["v1", "v1beta1"];
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
const STATUS: &[SubresourceSpec] = &[SubresourceSpec::own("status", &["get", "patch", "update"])];

/// Serves stored JSON in one version and stores in another: the versions share one schema,
/// so converting is setting `apiVersion`.
struct SameSchemaCodec {
    served: String,
    stored: String,
}

#[async_trait::async_trait]
impl ObjectCodec for SameSchemaCodec {
    async fn decode_stored(&self, bytes: &[u8]) -> Result<Value, Error> {
        let mut obj: Value = serde_json::from_slice(bytes)
            .map_err(|e| Error::internal(format!("decoding stored object: {e}")))?;
        if let Some(map) = obj.as_object_mut() {
            map.insert("apiVersion".into(), Value::String(self.served.clone()));
        }
        Ok(obj)
    }

    async fn encode_for_storage(&self, obj: &Value) -> Result<Vec<u8>, Error> {
        let mut stored = obj.clone();
        if let Some(map) = stored.as_object_mut() {
            map.insert("apiVersion".into(), Value::String(self.stored.clone()));
        }
        serde_json::to_vec(&stored).map_err(Error::internal)
    }

    fn is_stored_current(&self, bytes: &[u8]) -> bool {
        super::accounting::stored_api_version(bytes) == Some(self.stored.as_str())
    }
}

/// The registry entries for StorageVersionMigration, one per served version; keys live
/// under `root`.
pub fn entries(root: &str) -> Vec<ResourceEntry> {
    VERSIONS
        .iter()
        .zip(0..)
        .map(|(version, priority)| {
            let spec = EntrySpec {
                group: GROUP,
                version,
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
                storage_group: None,
                group_priority: 901,
                version_priority: priority,
            };
            let codec = SameSchemaCodec {
                served: format!("{GROUP}/{version}"),
                stored: format!("{GROUP}/{VERSION}"),
            };
            entry(root, spec, Arc::new(codec))
        })
        .collect()
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
