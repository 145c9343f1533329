//! The one registry of served resources (DESIGN.md "The registry entry"): built-in kinds and
//! custom resources are values of the same [`ResourceEntry`] type, looked up per request by
//! (group, version, resource). Entries are added and removed at run time by swapping in a
//! new immutable table; requests in flight keep the table they started with.

use crate::codec::ObjectCodec;
use crate::managed_fields::KindFields;
use crate::strategy::Strategy;
use crate::table::TableConvertor;
use arc_swap::ArcSwap;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// Whether objects live in a namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Objects live in a namespace.
    Namespaced,
    /// Objects are cluster-wide.
    Cluster,
}

/// The names of a resource, as discovery shows them.
#[derive(Debug, Clone, Default)]
pub struct ResourceNames {
    /// Plural resource name, e.g. `configmaps`.
    pub plural: String,
    /// Singular name, e.g. `configmap`.
    pub singular: String,
    /// Kind, e.g. `ConfigMap`.
    pub kind: String,
    /// List kind, e.g. `ConfigMapList`.
    pub list_kind: String,
    /// Short names, e.g. `cm`.
    pub short_names: Vec<String>,
    /// Categories, e.g. `all`.
    pub categories: Vec<String>,
}

/// A subresource served for an entry (`status`, `finalize`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subresource {
    /// Name, e.g. `status`.
    pub name: String,
    /// Discovery verbs.
    pub verbs: Vec<String>,
    /// The (group, version, kind) it answers with, when not the resource's own kind
    /// (`scale`: autoscaling/v1 Scale).
    pub response_kind: Option<(String, String, String)>,
}

/// Everything the generic handlers need to serve one (group, version, resource).
pub struct ResourceEntry {
    /// API group; empty for core.
    pub group: String,
    /// API version served by this entry.
    pub version: String,
    /// Names.
    pub names: ResourceNames,
    /// Scope.
    pub scope: Scope,
    /// Verbs served, in discovery order (sorted).
    pub verbs: Vec<String>,
    /// Served subresources.
    pub subresources: Vec<Subresource>,
    /// Storage key prefix without trailing slash, e.g. `/registry/configmaps`.
    pub storage_prefix: String,
    /// `storageVersionHash` for discovery.
    pub storage_version_hash: String,
    /// Bytes on disk <-> objects in this entry's version, and wire encodings.
    pub codec: Arc<dyn ObjectCodec>,
    /// Create/update/delete preparation and validation.
    pub strategy: Arc<dyn Strategy>,
    /// Table output (`as=Table`).
    pub table: Arc<dyn TableConvertor>,
    /// Whether a DELETE that removes an object answers the object as it was, as
    /// kube-apiserver's stores with `ReturnDeletedObject` do, instead of a Status.
    pub returns_deleted_object: bool,
    /// Order of this version within its group for discovery (lower first = preferred).
    pub version_priority: u32,
    /// Order of the group within `/apis` (lower first).
    pub group_priority: u32,
    /// The kind's schema and zero value for managedFields, filled on first write.
    pub kind_fields: OnceLock<KindFields>,
}

impl ResourceEntry {
    /// `group/version`, or `version` for core.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The kind's schema and zero value, as managedFields walk them.
    pub fn kind_fields(&self) -> &KindFields {
        self.kind_fields.get_or_init(|| KindFields::of(self))
    }

    /// True for namespaced resources.
    pub fn namespaced(&self) -> bool {
        self.scope == Scope::Namespaced
    }

    /// True when `verb` (e.g. `create`) is served.
    pub fn allows(&self, verb: &str) -> bool {
        self.verbs.iter().any(|v| v == verb)
    }

    /// The subresource named `name`, if served.
    pub fn subresource(&self, name: &str) -> Option<&Subresource> {
        self.subresources.iter().find(|s| s.name == name)
    }

    /// Storage key of one object (kube-apiserver layout).
    pub fn key(&self, namespace: Option<&str>, name: &str) -> String {
        match namespace {
            Some(ns) if self.namespaced() => format!("{}/{ns}/{name}", self.storage_prefix),
            _ => format!("{}/{name}", self.storage_prefix),
        }
    }

    /// Key prefix of a collection (all namespaces when `namespace` is `None`).
    pub fn collection_prefix(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.namespaced() => format!("{}/{ns}/", self.storage_prefix),
            _ => format!("{}/", self.storage_prefix),
        }
    }
}

/// Key of an entry: (group, version, resource).
pub type EntryKey = (String, String, String);

/// An immutable snapshot of all entries.
#[derive(Default, Clone)]
pub struct RegistryTable {
    entries: BTreeMap<EntryKey, Arc<ResourceEntry>>,
}

impl RegistryTable {
    /// The entry serving (group, version, resource).
    pub fn get(&self, group: &str, version: &str, resource: &str) -> Option<&Arc<ResourceEntry>> {
        self.entries
            .get(&(group.to_owned(), version.to_owned(), resource.to_owned()))
    }

    /// All entries.
    pub fn entries(&self) -> impl Iterator<Item = &Arc<ResourceEntry>> {
        self.entries.values()
    }

    /// Groups with their versions, each in discovery order (preferred version first).
    pub fn groups(&self) -> Vec<(String, Vec<String>)> {
        let mut groups: BTreeMap<(u32, String), BTreeMap<(u32, String), ()>> = BTreeMap::new();
        for e in self.entries.values() {
            groups
                .entry((e.group_priority, e.group.clone()))
                .or_default()
                .insert((e.version_priority, e.version.clone()), ());
        }
        groups
            .into_iter()
            .map(|((_, g), vs)| (g, vs.into_keys().map(|(_, v)| v).collect()))
            .collect()
    }

    /// Entries of one group version, sorted by resource name.
    pub fn group_version(&self, group: &str, version: &str) -> Vec<&Arc<ResourceEntry>> {
        self.entries
            .iter()
            .filter(|((g, v, _), _)| g == group && v == version)
            .map(|(_, e)| e)
            .collect()
    }

    /// Entries sharing the storage of `entry` (other versions of the same resource).
    pub fn same_storage(&self, prefix: &str) -> Vec<&Arc<ResourceEntry>> {
        self.entries
            .values()
            .filter(|e| e.storage_prefix == prefix)
            .collect()
    }
}

/// The live registry: a swappable [`RegistryTable`].
#[derive(Default)]
pub struct Registry {
    table: ArcSwap<RegistryTable>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current table; hold it for the whole request.
    pub fn snapshot(&self) -> Arc<RegistryTable> {
        self.table.load_full()
    }

    /// Adds or replaces entries, atomically.
    pub fn upsert(&self, entries: Vec<ResourceEntry>) {
        let entries: Vec<Arc<ResourceEntry>> = entries.into_iter().map(Arc::new).collect();
        self.table.rcu(|old| {
            let mut next = RegistryTable::clone(old);
            for e in &entries {
                let key = (e.group.clone(), e.version.clone(), e.names.plural.clone());
                next.entries.insert(key, e.clone());
            }
            next
        });
    }

    /// Replaces the entries of (group, resource) in every version by `entries`, atomically
    /// (a CRD change: versions no longer served disappear in the same swap).
    pub fn replace_resource(&self, group: &str, resource: &str, entries: Vec<ResourceEntry>) {
        let entries: Vec<Arc<ResourceEntry>> = entries.into_iter().map(Arc::new).collect();
        self.table.rcu(|old| {
            let mut next = RegistryTable::clone(old);
            next.entries
                .retain(|(g, _, r), _| !(g == group && r == resource));
            for e in &entries {
                let key = (e.group.clone(), e.version.clone(), e.names.plural.clone());
                next.entries.insert(key, e.clone());
            }
            next
        });
    }

    /// Removes the entries of (group, resource) in every version, atomically.
    pub fn remove_resource(&self, group: &str, resource: &str) {
        self.table.rcu(|old| {
            let mut next = RegistryTable::clone(old);
            next.entries
                .retain(|(g, _, r), _| !(g == group && r == resource));
            next
        });
    }
}

/// `storageVersionHash`: base64 of the first 8 bytes of SHA-256 of `group/version/kind` of
/// the storage version (matches kube-apiserver's discovery).
pub fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    use base64::Engine;
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("{group}/{version}/{kind}").as_bytes(),
    );
    base64::engine::general_purpose::STANDARD.encode(&digest.as_ref()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leases() -> Vec<ResourceEntry> {
        crate::builtin::json_entries("/registry")
            .into_iter()
            .filter(|e| e.names.plural == "leases")
            .collect()
    }

    #[test]
    fn upsert_and_remove_swap_tables_while_old_snapshots_stay_valid() {
        let registry = Registry::new();
        registry.upsert(leases());
        let before = registry.snapshot();
        registry.remove_resource("coordination.k8s.io", "leases");
        assert!(before.get("coordination.k8s.io", "v1", "leases").is_some());
        assert!(
            registry
                .snapshot()
                .get("coordination.k8s.io", "v1", "leases")
                .is_none()
        );
    }

    #[test]
    fn groups_list_preferred_version_first() {
        let registry = Registry::new();
        registry.upsert(crate::builtin::json_entries("/registry"));
        let groups = registry.snapshot().groups();
        assert_eq!(groups[0].0, "");
        assert!(groups.iter().any(|(g, _)| g == "coordination.k8s.io"));
    }

    #[test]
    fn keys_follow_kube_apiserver_layout() {
        let entries = leases();
        assert_eq!(
            entries[0].key(Some("ns"), "l"),
            "/registry/coordination.k8s.io/leases/ns/l"
        );
    }

    #[test]
    fn storage_version_hash_matches_kube_apiserver_for_configmaps() {
        assert_eq!(storage_version_hash("", "v1", "ConfigMap"), "qFsyl6wFWjQ=");
    }
}
