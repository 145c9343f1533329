//! `metadata.managedFields`: which manager set which fields (FieldsV1), maintained on every
//! write, and server-side apply's ownership rules: conflicts with other managers (409,
//! R8.19), `force`, and removal of fields a manager stops applying.

use crate::error::{Error, StatusCause};
use crate::meta;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// A field path: object keys from the root.
type Path = Vec<String>;

/// Metadata fields the server owns; never tracked.
const UNTRACKED_META: [&str; 9] = [
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
];

/// Leaf paths of an object (objects recurse; arrays and scalars are leaves).
pub fn leaves(obj: &Value) -> BTreeSet<Path> {
    let mut out = BTreeSet::new();
    if let Some(map) = obj.as_object() {
        for (k, v) in map {
            if k == "apiVersion" || k == "kind" {
                continue;
            }
            if k == "metadata" {
                let Some(m) = v.as_object() else { continue };
                for (mk, mv) in m
                    .iter()
                    .filter(|(mk, _)| !UNTRACKED_META.contains(&mk.as_str()))
                {
                    walk(mv, vec!["metadata".into(), mk.clone()], &mut out);
                }
                continue;
            }
            walk(v, vec![k.clone()], &mut out);
        }
    }
    out
}

fn walk(v: &Value, path: Path, out: &mut BTreeSet<Path>) {
    match v.as_object() {
        Some(m) if !m.is_empty() => {
            for (k, child) in m {
                let mut p = path.clone();
                p.push(k.clone());
                walk(child, p, out);
            }
        }
        _ => {
            out.insert(path);
        }
    }
}

fn value_at<'a>(obj: &'a Value, path: &Path) -> Option<&'a Value> {
    path.iter().try_fold(obj, |v, k| v.get(k))
}

fn remove_at(obj: &mut Value, path: &Path) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let parent = parents.iter().try_fold(&mut *obj, |v, k| v.get_mut(k));
    if let Some(map) = parent.and_then(Value::as_object_mut) {
        map.remove(last);
    }
}

/// FieldsV1 of a set of paths (`f:` keys; `.` marks nested maps, except the top-level
/// structs metadata, spec and status).
pub fn to_fields_v1(paths: &BTreeSet<Path>) -> Value {
    let mut root = Map::new();
    for path in paths {
        let mut node = &mut root;
        for (depth, key) in path.iter().enumerate() {
            let entry = node
                .entry(format!("f:{key}"))
                .or_insert_with(|| Value::Object(Map::new()));
            let Some(next) = entry.as_object_mut() else {
                break;
            };
            let struct_root = depth == 0 && matches!(key.as_str(), "metadata" | "spec" | "status");
            if depth + 1 < path.len() && !struct_root {
                next.insert(".".into(), json!({}));
            }
            node = next;
        }
    }
    Value::Object(root)
}

/// The paths recorded in a FieldsV1 value.
pub fn from_fields_v1(v: &Value) -> BTreeSet<Path> {
    fn go(v: &Value, path: Path, out: &mut BTreeSet<Path>) {
        let children: Vec<(&String, &Value)> = v
            .as_object()
            .map(|m| m.iter().filter(|(k, _)| k.starts_with("f:")).collect())
            .unwrap_or_default();
        if children.is_empty() {
            if !path.is_empty() {
                out.insert(path);
            }
            return;
        }
        for (k, child) in children {
            let mut p = path.clone();
            p.push(k[2..].to_owned());
            go(child, p, out);
        }
    }
    let mut out = BTreeSet::new();
    go(v, Vec::new(), &mut out);
    out
}

/// One managedFields entry.
#[derive(Debug, Clone)]
struct Entry {
    manager: String,
    operation: String,
    api_version: String,
    subresource: String,
    fields: BTreeSet<Path>,
}

fn entries(obj: &Value) -> Vec<Entry> {
    meta::meta(obj)
        .and_then(|m| m.get("managedFields"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|e| Entry {
                    manager: meta::top_str(e, "manager").to_owned(),
                    operation: meta::top_str(e, "operation").to_owned(),
                    api_version: meta::top_str(e, "apiVersion").to_owned(),
                    subresource: meta::top_str(e, "subresource").to_owned(),
                    fields: e.get("fieldsV1").map(from_fields_v1).unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The time of an identical entry already on the object: an entry whose manager, operation,
/// apiVersion, subresource and fields did not change keeps its time, so a no-op write stays
/// a no-op (as kube-apiserver).
fn unchanged_time(previous: &[Value], entry: &Value) -> Option<Value> {
    let same = |p: &Value| {
        [
            "manager",
            "operation",
            "apiVersion",
            "subresource",
            "fieldsV1",
        ]
        .iter()
        .all(|k| p.get(*k) == entry.get(*k))
    };
    previous
        .iter()
        .find(|p| same(p))
        .and_then(|p| p.get("time").cloned())
}

fn store_entries(obj: &mut Value, list: Vec<Entry>) {
    let now = meta::now_rfc3339();
    let previous: Vec<Value> = meta::meta(obj)
        .and_then(|m| m.get("managedFields"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let values: Vec<Value> = list
        .into_iter()
        .filter(|e| !e.fields.is_empty())
        .map(|e| {
            let mut v = json!({
                "manager": e.manager,
                "operation": e.operation,
                "apiVersion": e.api_version,
                "time": now,
                "fieldsType": "FieldsV1",
                "fieldsV1": to_fields_v1(&e.fields),
            });
            if !e.subresource.is_empty() {
                v["subresource"] = json!(e.subresource);
            }
            if let Some(t) = unchanged_time(&previous, &v) {
                v["time"] = t;
            }
            v
        })
        .collect();
    let value = (!values.is_empty()).then_some(Value::Array(values));
    meta::set_meta(obj, "managedFields", value);
}

/// Who writes: manager name, apiVersion and subresource of the request.
pub struct Writer<'a> {
    /// `fieldManager`, or the User-Agent's product name.
    pub manager: &'a str,
    /// apiVersion of the request.
    pub api_version: &'a str,
    /// `status` for status writes, else empty.
    pub subresource: &'a str,
}

/// The manager of a request: `fieldManager`, else the User-Agent up to its first `/`.
pub fn manager_name(field_manager: Option<&str>, user_agent: Option<&str>) -> String {
    field_manager
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .or_else(|| {
            user_agent
                .and_then(|ua| ua.split('/').next())
                .map(str::to_owned)
        })
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Records an Update operation: the writer owns what it changed; removed fields are
/// forgotten by everyone. `old` is `None` on create.
pub fn record_update(new: &mut Value, old: Option<&Value>, w: &Writer) {
    if meta::meta(new)
        .and_then(|m| m.get("managedFields"))
        .is_none()
        && let Some(prev) = old
            .and_then(|o| meta::meta(o))
            .and_then(|m| m.get("managedFields"))
    {
        meta::set_meta(new, "managedFields", Some(prev.clone()));
    }
    let new_leaves = leaves(new);
    let old_leaves = old.map(leaves).unwrap_or_default();
    let changed: BTreeSet<Path> = new_leaves
        .iter()
        .filter(|p| old.is_none_or(|o| value_at(o, p) != value_at(new, p)))
        .cloned()
        .collect();
    let removed: BTreeSet<Path> = old_leaves.difference(&new_leaves).cloned().collect();
    let mut list = entries(new);
    for e in &mut list {
        e.fields.retain(|p| !removed.contains(p));
    }
    let mine = list.iter().position(|e| {
        e.manager == w.manager
            && e.operation == "Update"
            && e.api_version == w.api_version
            && e.subresource == w.subresource
    });
    for (i, e) in list.iter_mut().enumerate() {
        if Some(i) != mine {
            e.fields.retain(|p| !changed.contains(p));
        }
    }
    match mine {
        Some(i) => list[i].fields.extend(changed),
        None => list.push(Entry {
            manager: w.manager.to_owned(),
            operation: "Update".into(),
            api_version: w.api_version.to_owned(),
            subresource: w.subresource.to_owned(),
            fields: changed,
        }),
    }
    store_entries(new, list);
}

fn dotted(p: &Path) -> String {
    p.iter().map(|k| format!(".{k}")).collect()
}

fn conflict_error(
    group: &str,
    resource: &str,
    name: &str,
    conflicts: &[(String, String, Path)],
) -> Error {
    let n = conflicts.len();
    let message = if n == 1 {
        let (m, av, p) = &conflicts[0];
        format!(
            "Apply failed with 1 conflict: conflict with \"{m}\" using {av}: {}",
            dotted(p)
        )
    } else {
        let mut text = format!("Apply failed with {n} conflicts:");
        let mut managers: Vec<(&String, &String)> =
            conflicts.iter().map(|(m, av, _)| (m, av)).collect();
        managers.dedup();
        for (m, av) in managers {
            text.push_str(&format!(" conflicts with \"{m}\" using {av}:"));
            for (_, _, p) in conflicts.iter().filter(|(cm, _, _)| cm == m) {
                text.push_str(&format!("\n- {}", dotted(p)));
            }
        }
        text
    };
    let causes = conflicts
        .iter()
        .map(|(m, av, p)| StatusCause {
            reason: "FieldManagerConflict".into(),
            message: format!("conflict with \"{m}\" using {av}"),
            field: dotted(p),
        })
        .collect();
    Error::ApplyConflict {
        group: group.to_owned(),
        resource: resource.to_owned(),
        name: name.to_owned(),
        message,
        causes,
    }
}

/// Server-side apply of `applied` onto `current` by the writer: conflicts unless `force`,
/// ownership of the applied fields, removal of fields this manager no longer applies and
/// nobody else owns. Returns the new object (managedFields updated).
pub fn apply(
    current: &Value,
    applied: &Value,
    w: &Writer,
    force: bool,
    target: (&str, &str, &str),
) -> Result<Value, Error> {
    let applied_leaves = leaves(applied);
    let mut list = entries(current);
    let mut conflicts = Vec::new();
    for e in list
        .iter()
        .filter(|e| !(e.manager == w.manager && e.operation == "Apply"))
    {
        for p in applied_leaves.intersection(&e.fields) {
            if value_at(current, p).is_some() && value_at(current, p) != value_at(applied, p) {
                conflicts.push((e.manager.clone(), e.api_version.clone(), p.clone()));
            }
        }
    }
    if !conflicts.is_empty() && !force {
        return Err(conflict_error(target.0, target.1, target.2, &conflicts));
    }
    let previous: BTreeSet<Path> = list
        .iter()
        .filter(|e| e.manager == w.manager && e.operation == "Apply")
        .flat_map(|e| e.fields.iter().cloned())
        .collect();
    let mut obj = current.clone();
    apply_merge(&mut obj, applied);
    for p in previous.difference(&applied_leaves) {
        let owned_elsewhere = list
            .iter()
            .any(|e| !(e.manager == w.manager && e.operation == "Apply") && e.fields.contains(p));
        if !owned_elsewhere {
            remove_at(&mut obj, p);
        }
    }
    let changed: BTreeSet<Path> = conflicts.into_iter().map(|(_, _, p)| p).collect();
    list.retain(|e| !(e.manager == w.manager && e.operation == "Apply"));
    for e in &mut list {
        e.fields.retain(|p| !changed.contains(p));
    }
    list.push(Entry {
        manager: w.manager.to_owned(),
        operation: "Apply".into(),
        api_version: w.api_version.to_owned(),
        subresource: w.subresource.to_owned(),
        fields: applied_leaves,
    });
    store_entries(&mut obj, list);
    Ok(obj)
}

/// Merges without deleting: apply's "set what is given" for fields not owned elsewhere.
pub fn apply_merge(target: &mut Value, applied: &Value) {
    match (target.as_object_mut(), applied.as_object()) {
        (Some(t), Some(a)) => {
            for (k, v) in a {
                match t.get_mut(k) {
                    Some(existing) if existing.is_object() && v.is_object() => {
                        apply_merge(existing, v)
                    }
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        _ => *target = applied.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_v1_of_a_configmap_matches_kube_apiserver() {
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cfg", "labels": {"app": "web"}},
            "data": {"a": "1"}});
        let v = to_fields_v1(&leaves(&cm));
        assert_eq!(
            v,
            json!({"f:data": {".": {}, "f:a": {}}, "f:metadata": {"f:labels": {".": {}, "f:app": {}}}})
        );
        assert_eq!(from_fields_v1(&v), leaves(&cm));
    }

    #[test]
    fn apply_conflicts_with_another_managers_field() {
        let mut cm = json!({"metadata": {"name": "c"}, "data": {"a": "1"}});
        let w = Writer {
            manager: "kubectl-create",
            api_version: "v1",
            subresource: "",
        };
        record_update(&mut cm, None, &w);
        let applied = json!({"metadata": {"name": "c"}, "data": {"a": "2"}});
        let w2 = Writer {
            manager: "ssa",
            api_version: "v1",
            subresource: "",
        };
        let err = apply(&cm, &applied, &w2, false, ("", "configmaps", "c")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Apply failed with 1 conflict: conflict with \"kubectl-create\" using v1: .data.a"
        );
        let forced = apply(&cm, &applied, &w2, true, ("", "configmaps", "c")).unwrap();
        assert_eq!(forced["data"]["a"], "2");
    }

    #[test]
    fn apply_removes_fields_the_manager_stopped_applying() {
        let w = Writer {
            manager: "ssa",
            api_version: "v1",
            subresource: "",
        };
        let first = json!({"metadata": {"name": "c"}, "data": {"a": "1", "b": "2"}});
        let obj = apply(
            &json!({"metadata": {"name": "c"}}),
            &first,
            &w,
            false,
            ("", "configmaps", "c"),
        )
        .unwrap();
        let second = json!({"metadata": {"name": "c"}, "data": {"a": "1"}});
        let obj = apply(&obj, &second, &w, false, ("", "configmaps", "c")).unwrap();
        assert_eq!(obj["data"], json!({"a": "1"}));
    }
}
