//! Strategic merge patch for built-in kinds: merge-patch semantics, plus lists merged by
//! their patch strategy (primitive sets like `metadata.finalizers`, lists keyed by a merge
//! key like `containers[name]` or `status.conditions[type]`) as the kind's OpenAPI model
//! declares it ([`PatchMeta`]), and the directives `$patch`, `$setElementOrder/…`,
//! `$deleteFromPrimitiveList/…` and `$retainKeys`. Kinds without a generated model (the
//! CRD) fall back to a table of the common paths.

use crate::patch_meta::{ListStrategy, PatchMeta};
use serde_json::{Map, Value};

/// Patch strategies of the common lists (by dotted path), for kinds without a model.
pub fn builtin_list_merge(path: &str) -> Option<ListStrategy> {
    match path {
        "metadata.finalizers" => Some(ListStrategy::Primitive),
        "metadata.ownerReferences" => Some(ListStrategy::Key("uid".into())),
        "status.conditions" => Some(ListStrategy::Key("type".into())),
        _ => None,
    }
}

/// How the list `field` at `path` merges: from the model when there is one.
fn list_strategy(meta: &PatchMeta, path: &str, field: &str) -> Option<ListStrategy> {
    if meta.known() {
        meta.list_strategy(field)
    } else {
        builtin_list_merge(&join(path, field))
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn strip(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| !k.starts_with('$'))
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(strip).collect()),
        other => other.clone(),
    }
}

/// Applies `patch` to `doc` at `path`, with the common paths' strategies only.
pub fn apply(doc: &mut Value, patch: &Value, path: &str) {
    apply_with(doc, patch, path, &PatchMeta::default());
}

/// Applies `patch` to an object of the kind whose model `meta` is.
pub fn apply_with(doc: &mut Value, patch: &Value, path: &str, meta: &PatchMeta) {
    let Some(pmap) = patch.as_object() else {
        *doc = strip(patch);
        return;
    };
    if !doc.is_object() {
        *doc = Value::Object(Map::new());
    }
    for (k, pv) in pmap.iter().filter(|(k, _)| !k.starts_with('$')) {
        let child = join(path, k);
        let Some(map) = doc.as_object_mut() else {
            return;
        };
        if pv.is_null() {
            map.remove(k);
            continue;
        }
        let directive = pv.get("$patch").and_then(Value::as_str);
        match (directive, map.get_mut(k)) {
            (Some("delete"), _) => {
                map.remove(k);
            }
            (Some("replace"), _) => {
                map.insert(k.clone(), strip(pv));
            }
            (_, Some(existing)) if existing.is_object() && pv.is_object() => {
                apply_with(existing, pv, &child, &meta.field(k))
            }
            (_, Some(Value::Array(existing))) if pv.is_array() => {
                match list_strategy(meta, path, k) {
                    Some(how) => merge_list(
                        existing,
                        pv.as_array().map_or(&[][..], |a| a),
                        &how,
                        &meta.items(k),
                    ),
                    None => *existing = strip(pv).as_array().cloned().unwrap_or_default(),
                }
            }
            _ => {
                map.insert(k.clone(), strip(pv));
            }
        }
    }
    apply_directives(doc, pmap, path, meta);
}

fn merge_list(existing: &mut Vec<Value>, patch: &[Value], how: &ListStrategy, items: &PatchMeta) {
    match how {
        ListStrategy::Primitive => {
            for v in patch {
                if !existing.contains(v) {
                    existing.push(v.clone());
                }
            }
        }
        ListStrategy::Key(key) => {
            for item in patch {
                let id = item.get(key.as_str());
                let pos = existing
                    .iter()
                    .position(|e| e.get(key.as_str()) == id && id.is_some());
                match (item.get("$patch").and_then(Value::as_str), pos) {
                    (Some("delete"), Some(i)) => {
                        existing.remove(i);
                    }
                    (Some("delete"), None) => {}
                    (_, Some(i)) => apply_with(&mut existing[i], item, "", items),
                    (_, None) => existing.push(strip(item)),
                }
            }
        }
    }
}

fn apply_directives(doc: &mut Value, pmap: &Map<String, Value>, path: &str, meta: &PatchMeta) {
    let Some(map) = doc.as_object_mut() else {
        return;
    };
    for (k, v) in pmap {
        if let Some(field) = k.strip_prefix("$deleteFromPrimitiveList/")
            && let (Some(Value::Array(list)), Some(remove)) = (map.get_mut(field), v.as_array())
        {
            list.retain(|x| !remove.contains(x));
        }
    }
    for (k, v) in pmap {
        if let Some(field) = k.strip_prefix("$setElementOrder/")
            && let (Some(Value::Array(list)), Some(order)) = (map.get_mut(field), v.as_array())
        {
            let key = match list_strategy(meta, path, field) {
                Some(ListStrategy::Key(key)) => Some(key),
                _ => None,
            };
            let key = key.as_deref();
            let rank = |x: &Value| {
                let id = key.map_or(Some(x), |k| x.get(k));
                order
                    .iter()
                    .position(|o| Some(key.map_or(o, |k| o.get(k).unwrap_or(o))) == id)
                    .unwrap_or(usize::MAX)
            };
            list.sort_by_key(rank);
        }
    }
    if let Some(Value::Array(keep)) = pmap.get("$retainKeys") {
        map.retain(|k, _| keep.iter().any(|x| x.as_str() == Some(k)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finalizers_merge_as_a_set_in_the_given_order() {
        let mut doc = json!({"metadata": {"finalizers": ["a"]}});
        let patch =
            json!({"metadata": {"$setElementOrder/finalizers": ["a", "b"], "finalizers": ["b"]}});
        apply(&mut doc, &patch, "");
        assert_eq!(doc["metadata"]["finalizers"], json!(["a", "b"]));
    }

    #[test]
    fn delete_from_primitive_list_removes_values() {
        let mut doc = json!({"metadata": {"finalizers": ["a", "b"]}});
        let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}});
        apply(&mut doc, &patch, "");
        assert_eq!(doc["metadata"]["finalizers"], json!(["b"]));
    }

    #[test]
    fn conditions_merge_by_type() {
        let mut doc = json!({"status": {"conditions": [{"type": "A", "status": "False"}, {"type": "B", "status": "True"}]}});
        let patch = json!({"status": {"conditions": [{"type": "A", "status": "True"}, {"type": "B", "$patch": "delete"}]}});
        apply(&mut doc, &patch, "");
        assert_eq!(
            doc["status"]["conditions"],
            json!([{"type": "A", "status": "True"}])
        );
    }

    #[test]
    fn other_lists_are_replaced_and_null_deletes() {
        let mut doc = json!({"spec": {"metrics": [1, 2], "x": 1}});
        apply(&mut doc, &json!({"spec": {"metrics": [3], "x": null}}), "");
        assert_eq!(doc, json!({"spec": {"metrics": [3]}}));
    }
}
