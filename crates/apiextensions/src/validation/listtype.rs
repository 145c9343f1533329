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
    if let Value::Object(map) = obj
        && s.list_semantics_here_or_below
    {
        let mut buf = path.as_str().to_string();
        walk_object(&mut buf, s, map, &mut errs);
    }
    errs
}

fn with_segment(buf: &mut String, seg: Segment<'_>, f: impl FnOnce(&mut String)) {
    let len = buf.len();
    match seg {
        Segment::Key(k) => {
            buf.push('[');
            buf.push_str(k);
            buf.push(']');
        }
        Segment::Child(k) => {
            if !buf.is_empty() {
                buf.push('.');
            }
            buf.push_str(k);
        }
        Segment::Index(i) => {
            buf.push('[');
            buf.push_str(&i.to_string());
            buf.push(']');
        }
    }
    f(buf);
    buf.truncate(len);
}

enum Segment<'a> {
    Key(&'a str),
    Child(&'a str),
    Index(usize),
}

fn walk_object(buf: &mut String, s: &Structural, map: &Map<String, Value>, errs: &mut ErrorList) {
    if let Some(AdditionalProperties::Schema(ap)) = &s.additional_properties
        && ap.list_semantics_here_or_below
    {
        for (k, v) in map {
            with_segment(buf, Segment::Key(k), |b| walk(b, ap, v, errs));
        }
    }
    for (k, v) in map {
        if let Some(sub) = s
            .properties
            .get(k)
            .filter(|p| p.list_semantics_here_or_below)
        {
            with_segment(buf, Segment::Child(k), |b| walk(b, sub, v, errs));
        }
    }
}

fn walk(buf: &mut String, s: &Structural, v: &Value, errs: &mut ErrorList) {
    match v {
        Value::Array(items) => walk_array(buf, s, items, errs),
        Value::Object(map) => walk_object(buf, s, map, errs),
        _ => {}
    }
}

fn walk_array(buf: &mut String, s: &Structural, items: &[Value], errs: &mut ErrorList) {
    let path = FieldPath::new(buf);
    match s.list_type.as_deref() {
        Some("set") => {
            for i in non_unique(items) {
                errs.push(FieldError::duplicate(&path.index(i), items[i].clone()));
            }
        }
        Some("map") => validate_list_map(&path, s, items, errs),
        _ => {}
    }
    if let Some(item_schema) = s
        .items
        .as_deref()
        .filter(|i| i.list_semantics_here_or_below)
    {
        for (i, item) in items.iter().enumerate() {
            with_segment(buf, Segment::Index(i), |b| walk(b, item_schema, item, errs));
        }
    }
}

/// Indices of the second occurrence of each repeated value.
fn non_unique(items: &[Value]) -> Vec<usize> {
    if items.len() <= 1 {
        return Vec::new();
    }
    if items.len() <= 16 {
        // Small lists: compare directly, no serialization.
        return (0..items.len())
            .filter(|&i| items[..i].iter().filter(|x| **x == items[i]).count() == 1)
            .collect();
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
