//! The garbage collector's graph (kube-controller-manager's GC `uidToNode`): every object
//! seen, by uid, with its owner references, whether it is being deleted and with which
//! finalizers, and the reverse index owner → dependents. It is rebuilt from lists when the
//! collector starts and kept current from the watch caches' events.

use serde::Deserialize;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// A uid, shared by the node, the key map and the reverse index.
pub type Uid = Arc<str>;

/// The finalizer of a Foreground deletion.
pub const FOREGROUND: &str = "foregroundDeletion";
/// The finalizer of an Orphan deletion.
pub const ORPHAN: &str = "orphan";

/// One `metadata.ownerReferences` entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerRef {
    /// The owner's apiVersion.
    #[serde(default)]
    pub api_version: String,
    /// The owner's kind.
    #[serde(default)]
    pub kind: String,
    /// The owner's name.
    #[serde(default)]
    pub name: String,
    /// The owner's uid.
    #[serde(default)]
    pub uid: String,
    /// Whether the owner's Foreground deletion waits for this dependent.
    #[serde(default)]
    pub block_owner_deletion: Option<bool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: String,
    #[serde(default)]
    uid: String,
    #[serde(default)]
    deletion_timestamp: Option<String>,
    #[serde(default)]
    finalizers: Vec<String>,
    #[serde(default)]
    owner_references: Vec<OwnerRef>,
}

#[derive(Debug, Default, Deserialize)]
struct Stored {
    #[serde(default)]
    metadata: Meta,
}

/// An object as the collector sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Its storage key.
    pub key: Arc<[u8]>,
    /// The storage prefix of its resource (every version of a resource shares it; one copy
    /// for all the resource's nodes).
    pub prefix: Arc<str>,
    /// Its namespace ("" for cluster-scoped objects; one copy per namespace).
    pub namespace: Arc<str>,
    /// Its name.
    pub name: String,
    /// Its uid.
    pub uid: Uid,
    /// Its owners.
    pub owners: Vec<OwnerRef>,
    /// Whether it has a deletionTimestamp.
    pub deleting: bool,
    /// Its finalizers.
    pub finalizers: Vec<String>,
}

impl Node {
    /// The metadata of a stored object (read from its stored JSON), if it has a uid.
    fn parse_stored(bytes: &[u8]) -> Option<Meta> {
        let stored: Stored = serde_json::from_slice(bytes).ok()?;
        (!stored.metadata.uid.is_empty()).then_some(stored.metadata)
    }

    /// This node as `obj` (the same object read through the REST store) says it is now;
    /// None when `obj` is another object (another uid).
    pub fn refreshed(&self, obj: &serde_json::Value) -> Option<Node> {
        let m: Meta = serde_json::from_value(obj.get("metadata")?.clone()).ok()?;
        (*m.uid == *self.uid).then(|| Node {
            owners: m.owner_references,
            deleting: m.deletion_timestamp.is_some(),
            finalizers: m.finalizers,
            ..self.clone()
        })
    }

    fn from_meta(prefix: Arc<str>, key: Arc<[u8]>, namespace: Arc<str>, m: Meta) -> Node {
        Node {
            key,
            prefix,
            namespace,
            name: m.name,
            uid: Arc::from(m.uid),
            owners: m.owner_references,
            deleting: m.deletion_timestamp.is_some(),
            finalizers: m.finalizers,
        }
    }

    /// Whether it has `finalizer`.
    pub fn has_finalizer(&self, finalizer: &str) -> bool {
        self.finalizers.iter().any(|f| f == finalizer)
    }

    /// Being deleted in the Foreground: it waits for its blocking dependents.
    pub fn waits_for_dependents(&self) -> bool {
        self.deleting && self.has_finalizer(FOREGROUND)
    }

    /// Being deleted with Orphan: its dependents lose their references to it first.
    pub fn orphans_dependents(&self) -> bool {
        self.deleting && self.has_finalizer(ORPHAN)
    }
}

/// Every object seen, and who owns whom.
#[derive(Debug, Default)]
pub struct Graph {
    nodes: HashMap<Uid, Node>,
    /// storage key → uid of the object stored there.
    keys: HashMap<Arc<[u8]>, Uid>,
    /// owner uid → dependent uids (owners need not be in `nodes`).
    dependents: HashMap<Uid, BTreeSet<Uid>>,
    /// Storage prefixes and namespaces, one copy each.
    interned: HashSet<Arc<str>>,
}

impl Graph {
    fn intern(&mut self, s: &str) -> Arc<str> {
        if let Some(shared) = self.interned.get(s) {
            return shared.clone();
        }
        let shared: Arc<str> = Arc::from(s);
        self.interned.insert(shared.clone());
        shared
    }

    /// The node of a stored object under `prefix` at `key` (metadata read from its stored
    /// JSON), if it has a uid.
    pub fn node_from_stored(&mut self, prefix: &str, key: &[u8], bytes: &[u8]) -> Option<Node> {
        let m = Node::parse_stored(bytes)?;
        let prefix = self.intern(prefix);
        let namespace = self.intern(&m.namespace);
        Some(Node::from_meta(prefix, Arc::from(key), namespace, m))
    }

    /// The node of `uid`.
    pub fn get(&self, uid: &str) -> Option<&Node> {
        self.nodes.get(uid)
    }

    /// Objects in the graph.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The dependents of `uid`.
    pub fn dependents_of(&self, uid: &str) -> Vec<&Node> {
        self.dependents
            .get(uid)
            .into_iter()
            .flatten()
            .filter_map(|d| self.nodes.get(d))
            .collect()
    }

    /// The dependents of `uid` whose reference to it blocks its Foreground deletion: a
    /// dependent in another namespace than a namespaced owner's never does (its reference
    /// does not reach the owner; the collector deletes it as dangling).
    pub fn blocking_dependents_of(&self, uid: &str) -> Vec<&Node> {
        let owner_ns = self.nodes.get(uid).map(|n| n.namespace.clone());
        self.dependents_of(uid)
            .into_iter()
            .filter(|d| match &owner_ns {
                Some(ns) => ns.is_empty() || *ns == d.namespace,
                None => true,
            })
            .filter(|d| {
                d.owners
                    .iter()
                    .any(|o| o.uid == uid && o.block_owner_deletion == Some(true))
            })
            .collect()
    }

    /// The shared copy of an owner's uid: its node's, when the graph has it.
    fn owner_uid(&self, owner: &str) -> Uid {
        self.nodes
            .get_key_value(owner)
            .map_or_else(|| Arc::from(owner), |(k, _)| k.clone())
    }

    /// Whether the node of `uid` is being deleted in the Foreground.
    fn waits(&self, uid: &str) -> bool {
        self.nodes.get(uid).is_some_and(Node::waits_for_dependents)
    }

    /// Adds or replaces `node`; the uids to look at because of the change.
    pub fn upsert(&mut self, node: Node) -> Vec<String> {
        let uid = node.uid.clone();
        let mut work = Vec::new();
        // Another object at the same key (deleted and created again) is gone.
        if let Some(before) = self.keys.insert(node.key.clone(), uid.clone())
            && before != uid
        {
            work.extend(self.remove_uid(&before));
        }
        let old = self.nodes.insert(uid.clone(), node.clone());
        for o in old.iter().flat_map(|old| &old.owners) {
            if let Some(set) = self.dependents.get_mut(o.uid.as_str()) {
                set.remove(&uid);
            }
        }
        for o in &node.owners {
            let owner = self.owner_uid(&o.uid);
            self.dependents
                .entry(owner)
                .or_default()
                .insert(uid.clone());
        }
        // Its owners may be gone (a dangling reference), or it is being deleted itself.
        if !node.owners.is_empty() || node.waits_for_dependents() || node.orphans_dependents() {
            work.push(uid.to_string());
        }
        // An owner waiting for its dependents looks again when one of them changes.
        work.extend(
            node.owners
                .iter()
                .filter(|o| self.waits(&o.uid))
                .map(|o| o.uid.clone()),
        );
        // Dependents seen before their owner re-check it now that it is here.
        if old.is_none() {
            let seen_before = self.dependents.get(&uid).into_iter().flatten();
            work.extend(seen_before.map(|d| d.to_string()));
        }
        work
    }

    /// Removes the object stored at `key`; the uids to look at: its dependents (their
    /// owner is gone) and its owners that wait for their dependents.
    pub fn remove(&mut self, key: &[u8]) -> Vec<String> {
        match self.keys.remove(key) {
            Some(uid) => self.remove_uid(&uid),
            None => Vec::new(),
        }
    }

    fn remove_uid(&mut self, uid: &str) -> Vec<String> {
        let Some(node) = self.nodes.remove(uid) else {
            return Vec::new();
        };
        let mut work: Vec<String> = self
            .dependents
            .get(uid)
            .into_iter()
            .flatten()
            .map(|d| d.to_string())
            .collect();
        for o in &node.owners {
            if let Some(set) = self.dependents.get_mut(o.uid.as_str()) {
                set.remove(uid);
                if set.is_empty() {
                    self.dependents.remove(o.uid.as_str());
                }
            }
            if self.waits(&o.uid) {
                work.push(o.uid.clone());
            }
        }
        work
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(uid: &str, owners: &[(&str, bool)]) -> Node {
        Node {
            key: Arc::from(format!("/registry/configmaps/default/{uid}").into_bytes()),
            prefix: "/registry/configmaps".into(),
            namespace: "default".into(),
            name: uid.into(),
            uid: uid.into(),
            owners: owners
                .iter()
                .map(|(o, block)| OwnerRef {
                    api_version: "v1".into(),
                    kind: "ConfigMap".into(),
                    name: (*o).into(),
                    uid: (*o).into(),
                    block_owner_deletion: Some(*block),
                })
                .collect(),
            deleting: false,
            finalizers: Vec::new(),
        }
    }

    #[test]
    fn a_node_is_read_from_stored_json_metadata() {
        let bytes = br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","uid":"u1","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["orphan"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u0","blockOwnerDeletion":true}]}}"#;
        let n = Graph::default()
            .node_from_stored("/registry/configmaps/", b"/registry/configmaps/ns/c", bytes)
            .unwrap();
        assert_eq!((&*n.namespace, n.name.as_str()), ("ns", "c"));
        assert!(n.orphans_dependents());
        assert_eq!(n.owners[0].uid, "u0");
        assert_eq!(n.owners[0].block_owner_deletion, Some(true));
    }

    #[test]
    fn removing_an_owner_hands_its_dependents_to_the_collector() {
        let mut g = Graph::default();
        g.upsert(node("owner", &[]));
        g.upsert(node("a", &[("owner", false)]));
        g.upsert(node("b", &[("owner", true)]));
        assert_eq!(g.dependents_of("owner").len(), 2);
        assert_eq!(g.blocking_dependents_of("owner").len(), 1);
        let mut work = g.remove(b"/registry/configmaps/default/owner");
        work.sort();
        assert_eq!(work, vec!["a".to_owned(), "b".to_owned()]);
    }

    #[test]
    fn an_object_created_again_at_its_key_replaces_the_old_one() {
        let mut g = Graph::default();
        g.upsert(node("owner", &[]));
        g.upsert(node("a", &[("owner", false)]));
        let mut again = node("owner2", &[]);
        again.key = node("owner", &[]).key;
        let work = g.upsert(again);
        assert!(g.get("owner").is_none());
        assert_eq!(work, vec!["a".to_owned()]);
    }

    #[test]
    fn a_dependent_that_drops_its_owner_leaves_the_reverse_index() {
        let mut g = Graph::default();
        g.upsert(node("a", &[("owner", true)]));
        g.upsert(node("a", &[]));
        assert!(g.dependents_of("owner").is_empty());
    }
}
