//! `x-kubernetes-list-type: set|map` uniqueness (upstream `listtype.ValidateListSetsAndMaps`):
//! each first repeated item (or map key) is a `Duplicate value`.

use crate::field::{ErrorList, FieldError, FieldPath};
use crate::gojson;
use crate::structural::{AdditionalProperties, Structural};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Checks every list-type set/map list in `obj`.
pub fn validate_list_sets_and_maps(path: &FieldPath, s: &Structural, obj: &Value) -> ErrorList {
    let mut errs = ErrorList::new();
    if let Value::Object(map) = obj {
        walk_object(path, s, map, &mut errs);
    }
    errs
}

fn walk_object(path: &FieldPath, s: &Structural, map: &Map<String, Value>, errs: &mut ErrorList) {
    if let Some(AdditionalProperties::Schema(ap)) = &s.additional_properties {
        for (k, v) in map {
            walk(&path.key(k), ap, v, errs);
        }
    }
    for (k, v) in map {
        if let Some(sub) = s.properties.get(k) {
            walk(&path.child(k), sub, v, errs);
        }
    }
}

fn walk(path: &FieldPath, s: &Structural, v: &Value, errs: &mut ErrorList) {
    match v {
        Value::Array(items) => walk_array(path, s, items, errs),
        Value::Object(map) => walk_object(path, s, map, errs),
        _ => {}
    }
}

fn walk_array(path: &FieldPath, s: &Structural, items: &[Value], errs: &mut ErrorList) {
    match s.list_type.as_deref() {
        Some("set") => {
            for i in non_unique(items) {
                errs.push(FieldError::duplicate(&path.index(i), items[i].clone()));
            }
        }
        Some("map") => validate_list_map(path, s, items, errs),
        _ => {}
    }
    if let Some(item_schema) = s.items.as_deref() {
        for (i, item) in items.iter().enumerate() {
            walk(&path.index(i), item_schema, item, errs);
        }
    }
}

/// Indices of the second occurrence of each repeated value.
fn non_unique(items: &[Value]) -> Vec<usize> {
    if items.len() <= 1 {
        return Vec::new();
    }
    let mut seen: HashMap<String, u32> = HashMap::with_capacity(items.len());
    let mut out = Vec::new();
    for (i, x) in items.iter().enumerate() {
        let count = seen.entry(gojson::to_json(x)).or_insert(0);
        *count += 1;
        if *count == 2 {
            out.push(i);
        }
    }
    out
}

fn validate_list_map(path: &FieldPath, s: &Structural, items: &[Value], errs: &mut ErrorList) {
    if let Some((i, x)) = items
        .iter()
        .enumerate()
        .find(|(_, x)| !x.is_null() && !x.is_object())
    {
        errs.push(FieldError::invalid(
            &path.index(i),
            x.clone(),
            "must be an object for an array of list-type map",
        ));
        return;
    }
    let keys: Vec<Value> = items
        .iter()
        .map(|x| {
            let mut key = Map::new();
            if let Value::Object(m) = x {
                for k in &s.list_map_keys {
                    if let Some(v) = m.get(k) {
                        key.insert(k.clone(), v.clone());
                    }
                }
            }
            Value::Object(key)
        })
        .collect();
    for i in non_unique(&keys) {
        errs.push(FieldError::duplicate(&path.index(i), keys[i].clone()));
    }
}
