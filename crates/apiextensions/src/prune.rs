//! Pruning of fields a structural schema does not name (R6.1–R6.3, upstream
//! `pruning.PruneWithOptions`), optionally recording their paths for fieldValidation.

use crate::structural::{AdditionalProperties, Structural};
use serde_json::Value;

const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

fn is_meta(k: &str) -> bool {
    META_FIELDS.contains(&k)
}

/// Collects the paths of pruned fields (`spec.foo`, `spec.list[0].bar`).
#[derive(Debug, Default)]
pub(crate) struct PathTracker {
    enabled: bool,
    path: String,
    pub(crate) unknown: Vec<String>,
}

impl PathTracker {
    pub(crate) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            ..Self::default()
        }
    }

    fn push_key(&mut self, k: &str) -> usize {
        let len = self.path.len();
        if self.enabled {
            if !self.path.is_empty() {
                self.path.push('.');
            }
            self.path.push_str(k);
        }
        len
    }

    fn push_index(&mut self, i: usize) -> usize {
        let len = self.path.len();
        if self.enabled {
            self.path.push('[');
            self.path.push_str(&i.to_string());
            self.path.push(']');
        }
        len
    }

    fn pop(&mut self, len: usize) {
        self.path.truncate(len);
    }

    fn at_root(&self) -> bool {
        self.path.is_empty()
    }

    fn record(&mut self, k: &str) {
        if self.enabled {
            let len = self.push_key(k);
            self.unknown.push(self.path.clone());
            self.pop(len);
        }
    }
}

/// Removes every field `schema` does not specify. At a resource root, `apiVersion`, `kind` and
/// `metadata` are kept (R6.1). Returns the pruned paths, sorted, when `track_unknown` is set.
pub fn prune(
    obj: &mut Value,
    schema: &Structural,
    is_resource_root: bool,
    track_unknown: bool,
) -> Vec<String> {
    let mut t = PathTracker::new(track_unknown);
    prune_tracked(obj, schema, is_resource_root, &mut t);
    t.unknown.sort();
    t.unknown
}

pub(crate) fn prune_tracked(
    obj: &mut Value,
    schema: &Structural,
    is_resource_root: bool,
    t: &mut PathTracker,
) {
    // The resource root is treated as an embedded resource (R6.1).
    prune_node(obj, Some(schema), is_resource_root, t);
}

fn additional(s: &Structural) -> Option<Option<&Structural>> {
    match &s.additional_properties {
        None => None,
        Some(AdditionalProperties::Bool(_)) => Some(None),
        Some(AdditionalProperties::Schema(schema)) => Some(Some(schema)),
    }
}

fn prune_node(x: &mut Value, s: Option<&Structural>, root: bool, t: &mut PathTracker) {
    if let Some(s) = s
        && s.preserve_unknown_fields
    {
        skip_prune(x, s, root, t);
        return;
    }
    match x {
        Value::Object(map) => {
            let Some(s) = s else {
                for k in map.keys() {
                    t.record(k);
                }
                map.clear();
                return;
            };
            let embedded = root || s.embedded_resource;
            map.retain(|k, v| {
                if embedded && is_meta(k) {
                    return true;
                }
                if let Some(prop) = s.properties.get(k) {
                    let len = t.push_key(k);
                    prune_node(v, Some(prop), false, t);
                    t.pop(len);
                    true
                } else if let Some(ap) = additional(s) {
                    let len = t.push_key(k);
                    prune_node(v, ap, false, t);
                    t.pop(len);
                    true
                } else {
                    if !is_meta(k) || !t.at_root() {
                        t.record(k);
                    }
                    false
                }
            });
        }
        Value::Array(items) => {
            let item_schema = s.and_then(|s| s.items.as_deref());
            for (i, v) in items.iter_mut().enumerate() {
                let len = t.push_index(i);
                prune_node(v, item_schema, false, t);
                t.pop(len);
            }
        }
        _ => {}
    }
}

fn skip_prune(x: &mut Value, s: &Structural, root: bool, t: &mut PathTracker) {
    match x {
        Value::Object(map) => {
            let embedded = root || s.embedded_resource;
            for (k, v) in map.iter_mut() {
                if embedded && is_meta(k) {
                    continue;
                }
                if let Some(prop) = s.properties.get(k) {
                    let len = t.push_key(k);
                    prune_node(v, Some(prop), false, t);
                    t.pop(len);
                } else if let Some(ap) = additional(s) {
                    let len = t.push_key(k);
                    prune_node(v, ap, false, t);
                    t.pop(len);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = s.items.as_deref() else {
                return;
            };
            for (i, v) in items.iter_mut().enumerate() {
                let len = t.push_index(i);
                skip_prune(v, item_schema, false, t);
                t.pop(len);
            }
        }
        _ => {}
    }
}
