//! An object's values walked with its schema ([`crate::field_schema`]), as
//! structured-merge-diff walks typed values: the fields an applied configuration sets
//! ([`to_field_set`]), what changed between two objects ([`compare`]), apply's merge of a
//! configuration into the live object ([`merge`]) and removal of a path ([`remove`]).

use crate::field_path::{FieldSet, Path, PathElement};
use crate::field_schema::{ListType, Node, Shape};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// An applied configuration that cannot be typed (upstream answers these with 500 and
/// its words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct TypeError {
    /// Where, in upstream's notation (`.spec.containers`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// How a value is walked: a leaf (compared and owned whole) or granular.
enum Walk<'s> {
    Leaf,
    Fields(Node<'s>, bool),
    Items(Node<'s>, ListType),
}

fn walk_of<'s>(node: &Node<'s>, v: &Value) -> Walk<'s> {
    match (node.shape(), v) {
        (Shape::Struct { atomic: false }, Value::Object(_)) => Walk::Fields(*node, true),
        (Shape::Map { atomic: false }, Value::Object(_)) => Walk::Fields(*node, false),
        (Shape::Deduced, Value::Object(_)) => Walk::Fields(Node::deduced(), false),
        (Shape::List(t), Value::Array(_)) if t != ListType::Atomic => Walk::Items(node.items(), t),
        _ => Walk::Leaf,
    }
}

/// The element naming `item` of a list of type `t` (item schema `elem`).
fn element(t: &ListType, elem: &Node, item: &Value) -> Result<PathElement, String> {
    match t {
        ListType::Atomic => Err("atomic list items have no identity".into()),
        ListType::Set => match item {
            Value::Object(_) | Value::Array(_) => {
                Err(format!("expected a scalar set member, got {item}"))
            }
            v => Ok(PathElement::value(v)),
        },
        ListType::Map(keys) => {
            let mut fields = Vec::with_capacity(keys.len());
            for k in keys {
                let v = item.get(k).filter(|v| !v.is_null());
                match v.or_else(|| elem.default_of(k)) {
                    Some(v) => fields.push((k.clone(), v)),
                    None => {
                        return Err(format!(
                            "associative list with keys has an element that omits key field {} (and doesn't have default value)",
                            Value::from(k.as_str())
                        ));
                    }
                }
            }
            if fields.is_empty() {
                return Err(
                    "associative list without keys has an element that's a map type".into(),
                );
            }
            Ok(PathElement::key(fields))
        }
    }
}

/// Each item of a list with its element; `Err` on an item without identity or a
/// duplicate (the error names the item).
fn elements<'v>(
    t: &ListType,
    elem: &Node,
    items: &'v [Value],
) -> Result<Vec<(PathElement, &'v Value)>, String> {
    let mut seen = HashSet::with_capacity(items.len());
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let pe = element(t, elem, item).map_err(|e| format!("element {i}: {e}"))?;
        if !seen.insert(pe.clone()) {
            return Err(format!("duplicate entries for key {pe}"));
        }
        out.push((pe, item));
    }
    Ok(out)
}

fn err(path: &Path, message: String) -> TypeError {
    TypeError {
        path: crate::field_path::display(path),
        message,
    }
}

/// The fields an applied configuration sets: every scalar and atomic value, every list
/// item, and objects that are empty or null or sit under a map key.
pub fn to_field_set(obj: &Value, node: &Node) -> Result<FieldSet, TypeError> {
    let mut out = FieldSet::new();
    let mut path = Path::new();
    field_set_of(obj, node, &mut path, &mut out)?;
    Ok(out)
}

fn field_set_of(
    v: &Value,
    node: &Node,
    path: &mut Path,
    out: &mut FieldSet,
) -> Result<(), TypeError> {
    match walk_of(node, v) {
        Walk::Leaf => {
            if !path.is_empty() {
                out.insert(path.clone());
            }
        }
        Walk::Fields(node, is_struct) => {
            for (k, child) in v.as_object().into_iter().flatten() {
                path.push(PathElement::Field(k.clone()));
                field_set_of(child, &node.field(k), path, out)?;
                let empty = child.is_null() || child.as_object().is_some_and(Map::is_empty);
                if empty || !is_struct || !node.declares(k) {
                    out.insert(path.clone());
                }
                path.pop();
            }
        }
        Walk::Items(elem, t) => {
            let items = v.as_array().map(Vec::as_slice).unwrap_or_default();
            for (pe, item) in elements(&t, &elem, items).map_err(|e| err(path, e))? {
                path.push(pe);
                field_set_of(item, &elem, path, out)?;
                out.insert(path.clone());
                path.pop();
            }
        }
    }
    Ok(())
}

/// What changed from one object to another: paths added, whose value changed, removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Present only in the new object (objects and list items included).
    pub added: FieldSet,
    /// Leaves present in both with different values.
    pub modified: FieldSet,
    /// Present only in the old object.
    pub removed: FieldSet,
}

/// Compares `old` with `new`. A `null` is a value (a Go nil slice or map), not an absence.
/// Lists whose items cannot be told apart (a missing key, a duplicate) compare as one value.
pub fn compare(old: &Value, new: &Value, node: &Node) -> Comparison {
    let mut c = Comparison::default();
    compare_at(Some(old), Some(new), node, &mut Path::new(), &mut c);
    c
}

fn both<'v>(old: Option<&'v Value>, new: Option<&'v Value>) -> impl Iterator<Item = &'v Value> {
    [old, new].into_iter().flatten()
}

fn compare_at(
    old: Option<&Value>,
    new: Option<&Value>,
    node: &Node,
    path: &mut Path,
    c: &mut Comparison,
) {
    let Some(shown) = both(new, old).find(|v| !v.is_null()).or(new).or(old) else {
        return;
    };
    let walk = match walk_of(node, shown) {
        // A value whose JSON type changed is compared whole.
        Walk::Fields(..) if both(old, new).any(|v| !v.is_object() && !v.is_null()) => Walk::Leaf,
        Walk::Items(..) if both(old, new).any(|v| !v.is_array() && !v.is_null()) => Walk::Leaf,
        w => w,
    };
    match walk {
        Walk::Leaf => {
            if path.is_empty() {
                return;
            }
            match (old, new) {
                (None, Some(_)) => c.added.insert(path.clone()),
                (Some(_), None) => c.removed.insert(path.clone()),
                (Some(a), Some(b)) if a != b => c.modified.insert(path.clone()),
                _ => false,
            };
            return;
        }
        Walk::Fields(node, _) => {
            let empty = Map::new();
            let o = old.and_then(Value::as_object).unwrap_or(&empty);
            let n = new.and_then(Value::as_object).unwrap_or(&empty);
            for k in o.keys().chain(n.keys().filter(|k| !o.contains_key(*k))) {
                path.push(PathElement::Field(k.clone()));
                compare_at(o.get(k), n.get(k), &node.field(k), path, c);
                path.pop();
            }
        }
        Walk::Items(elem, t) => {
            let no_items: &[Value] = &[];
            let o = old
                .and_then(Value::as_array)
                .map_or(no_items, Vec::as_slice);
            let n = new
                .and_then(Value::as_array)
                .map_or(no_items, Vec::as_slice);
            match (elements(&t, &elem, o), elements(&t, &elem, n)) {
                (Ok(o), Ok(n)) => {
                    for (pe, item) in &o {
                        let other = n.iter().find(|(p, _)| p == pe).map(|(_, v)| *v);
                        path.push(pe.clone());
                        compare_at(Some(item), other, &elem, path, c);
                        path.pop();
                    }
                    for (pe, item) in n.iter().filter(|(p, _)| !o.iter().any(|(q, _)| q == p)) {
                        path.push(pe.clone());
                        compare_at(None, Some(item), &elem, path, c);
                        path.pop();
                    }
                }
                _ => {
                    if !path.is_empty() && old != new {
                        match (old, new) {
                            (None, _) => c.added.insert(path.clone()),
                            (_, None) => c.removed.insert(path.clone()),
                            _ => c.modified.insert(path.clone()),
                        };
                    }
                    return;
                }
            }
        }
    }
    if !path.is_empty() {
        match (old, new) {
            (None, Some(_)) => c.added.insert(path.clone()),
            (Some(_), None) => c.removed.insert(path.clone()),
            _ => false,
        };
    }
}

/// Apply's merge: the configuration's values win, objects merge field by field, keyed
/// lists and sets merge item by item (the live order kept, new items placed after the
/// configuration item before them), atomic values are replaced.
pub fn merge(live: &Value, config: &Value, node: &Node) -> Value {
    match walk_of(node, config) {
        Walk::Fields(node, _) => {
            let Some(l) = live.as_object() else {
                return config.clone();
            };
            let mut out = l.clone();
            for (k, cv) in config.as_object().into_iter().flatten() {
                let merged = match l.get(k) {
                    Some(lv) => merge(lv, cv, &node.field(k)),
                    None => cv.clone(),
                };
                out.insert(k.clone(), merged);
            }
            Value::Object(out)
        }
        Walk::Items(elem, t) => {
            let (Some(l), Some(r)) = (live.as_array(), config.as_array()) else {
                return config.clone();
            };
            match (elements(&t, &elem, l), elements(&t, &elem, r)) {
                (Ok(l), Ok(r)) => Value::Array(merge_items(&l, &r, &elem)),
                _ => config.clone(),
            }
        }
        Walk::Leaf => config.clone(),
    }
}

fn merge_items(
    lhs: &[(PathElement, &Value)],
    rhs: &[(PathElement, &Value)],
    elem: &Node,
) -> Vec<Value> {
    let in_rhs = |pe: &PathElement| rhs.iter().find(|(p, _)| p == pe).map(|(_, v)| *v);
    let in_lhs = |pe: &PathElement| lhs.iter().find(|(p, _)| p == pe).map(|(_, v)| *v);
    let mut out = Vec::with_capacity(lhs.len().max(rhs.len()));
    let mut done: HashSet<&PathElement> = HashSet::new();
    let (mut i, mut j) = (0, 0);
    while i < lhs.len() || j < rhs.len() {
        if i < lhs.len() && done.contains(&lhs[i].0) {
            i += 1;
            continue;
        }
        if j < rhs.len() && done.contains(&rhs[j].0) {
            j += 1;
            continue;
        }
        let take_lhs = match (lhs.get(i), rhs.get(j)) {
            (Some((lp, _)), Some((rp, _))) => lp != rp && in_rhs(lp).is_none(),
            (Some(_), None) => true,
            _ => false,
        };
        if take_lhs {
            let (lp, lv) = &lhs[i];
            out.push((*lv).clone());
            done.insert(lp);
            i += 1;
        } else {
            let (rp, rv) = &rhs[j];
            out.push(match in_lhs(rp) {
                Some(lv) => merge(lv, rv, elem),
                None => (*rv).clone(),
            });
            done.insert(rp);
            j += 1;
        }
    }
    out
}

/// Removes the value at `path` (a field, or a list item by key, value or index); a path
/// that is not there changes nothing.
pub fn remove(obj: &mut Value, path: &[PathElement]) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut cur = obj;
    for pe in parents {
        let next = match (pe, cur) {
            (PathElement::Field(k), Value::Object(m)) => m.get_mut(k),
            (pe, Value::Array(items)) => items
                .iter_mut()
                .enumerate()
                .find(|(i, item)| pe.names_item(*i, item))
                .map(|(_, item)| item),
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return,
        }
    }
    match (last, cur) {
        (PathElement::Field(k), Value::Object(m)) => {
            m.remove(k);
        }
        (pe, Value::Array(items)) => {
            if let Some(i) = items
                .iter()
                .enumerate()
                .position(|(i, item)| pe.names_item(i, item))
            {
                items.remove(i);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field_path::{display, fields};
    use serde_json::json;

    fn deployment() -> Node<'static> {
        Node::builtin("apps", "v1", "Deployment").unwrap()
    }

    fn container(name: &str) -> PathElement {
        PathElement::key(vec![("name".into(), &json!(name))])
    }

    #[test]
    fn an_applied_deployment_owns_containers_by_name_r8_19() {
        let cfg = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "app", "image": "nginx",
                    "ports": [{"containerPort": 80}]}]}}}});
        let set = to_field_set(&cfg, &deployment()).unwrap();
        let shown: Vec<String> = set.iter().map(|p| display(p)).collect();
        assert_eq!(
            shown,
            vec![
                ".apiVersion",
                ".kind",
                ".spec.template.metadata.labels.app",
                ".spec.template.spec.containers[name=\"app\"]",
                ".spec.template.spec.containers[name=\"app\"].image",
                ".spec.template.spec.containers[name=\"app\"].name",
                ".spec.template.spec.containers[name=\"app\"].ports[containerPort=80,protocol=\"TCP\"]",
                ".spec.template.spec.containers[name=\"app\"].ports[containerPort=80,protocol=\"TCP\"].containerPort",
            ]
        );
    }

    #[test]
    fn a_list_item_without_its_key_cannot_be_applied() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"items": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["id"],
                "items": {"type": "object", "properties": {"id": {"type": "string"},
                    "v": {"type": "string"}}}}}}}});
        let cfg = json!({"spec": {"items": [{"v": "x"}]}});
        let e = to_field_set(&cfg, &Node::custom(&schema)).unwrap_err();
        assert_eq!(
            e.to_string(),
            ".spec.items: element 0: associative list with keys has an element that omits key field \"id\" (and doesn't have default value)"
        );
    }

    #[test]
    fn a_missing_key_with_a_schema_default_takes_the_default() {
        // Container.name defaults to "" in the models, as upstream's do; validation then
        // rejects the empty name.
        let cfg = json!({"spec": {"template": {"spec": {"containers": [{"image": "nginx"}]}}}});
        let set = to_field_set(&cfg, &deployment()).unwrap();
        let mut p = fields(&["spec", "template", "spec", "containers"]);
        p.push(container(""));
        assert!(set.contains(&p));
    }

    #[test]
    fn duplicate_keys_cannot_be_applied() {
        let cfg =
            json!({"spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "a"}]}}}});
        let e = to_field_set(&cfg, &deployment()).unwrap_err();
        assert_eq!(e.message, "duplicate entries for key [name=\"a\"]");
    }

    #[test]
    fn merge_keeps_live_containers_and_merges_the_applied_one_by_name() {
        let live = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "image": "one", "imagePullPolicy": "Always"},
            {"name": "b", "image": "two"}]}}}});
        let cfg = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "b", "image": "three"}, {"name": "c", "image": "four"}]}}}});
        let out = merge(&live, &cfg, &deployment());
        assert_eq!(
            out["spec"]["template"]["spec"]["containers"],
            json!([{"name": "a", "image": "one", "imagePullPolicy": "Always"},
                {"name": "b", "image": "three"}, {"name": "c", "image": "four"}])
        );
    }

    #[test]
    fn compare_reports_a_new_container_and_a_changed_image() {
        let old = json!({"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "one"}]}}}});
        let new = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "image": "two"}, {"name": "b", "image": "x"}]}}}});
        let c = compare(&old, &new, &deployment());
        let mut a = fields(&["spec", "template", "spec", "containers"]);
        a.push(container("a"));
        a.push(PathElement::Field("image".into()));
        assert_eq!(c.modified, [a].into_iter().collect());
        let b: Vec<String> = c.added.iter().map(|p| display(p)).collect();
        assert_eq!(
            b,
            vec![
                ".spec.template.spec.containers[name=\"b\"]",
                ".spec.template.spec.containers[name=\"b\"].image",
                ".spec.template.spec.containers[name=\"b\"].name",
            ]
        );
        assert!(c.removed.is_empty());
    }

    #[test]
    fn a_null_list_is_a_value_so_only_its_new_items_are_added() {
        let old = json!({"spec": {"template": {"spec": {"containers": null}}}});
        let new = json!({"spec": {"template": {"spec": {"containers": [{"name": "a"}]}}}});
        let c = compare(&old, &new, &deployment());
        let shown: Vec<String> = c.added.iter().map(|p| display(p)).collect();
        assert_eq!(
            shown,
            vec![
                ".spec.template.spec.containers[name=\"a\"]",
                ".spec.template.spec.containers[name=\"a\"].name",
            ]
        );
        assert!(c.modified.is_empty());
    }

    #[test]
    fn remove_takes_a_list_item_by_key() {
        let mut obj =
            json!({"spec": {"template": {"spec": {"containers": [{"name": "a"}, {"name": "b"}]}}}});
        let mut p = fields(&["spec", "template", "spec", "containers"]);
        p.push(container("a"));
        remove(&mut obj, &p);
        assert_eq!(
            obj["spec"]["template"]["spec"]["containers"],
            json!([{"name": "b"}])
        );
    }
}
