//! Embedded resources (`x-kubernetes-embedded-resource`) below the root must carry a valid
//! apiVersion and kind (R6.4, upstream `objectmeta.Validate`).

use super::names::is_dns1035_label;
use crate::field::{ErrorList, FieldError, FieldPath};
use crate::structural::{AdditionalProperties, Structural};
use serde_json::{Map, Value};

/// Validates every embedded resource in `obj` (the resource root itself is not checked here).
pub fn validate_embedded_resources(path: &FieldPath, s: &Structural, obj: &Value) -> ErrorList {
    let mut errs = ErrorList::new();
    if s.contains_embedded_resource() {
        walk(path, s, obj, &mut errs, true);
    }
    errs
}

fn walk(path: &FieldPath, s: &Structural, x: &Value, errs: &mut ErrorList, root: bool) {
    match x {
        Value::Object(map) => {
            if s.embedded_resource && !root {
                check_resource(path, map, errs);
            }
            for (k, v) in map {
                if let Some(p) = s.properties.get(k) {
                    walk(&path.child(k), p, v, errs, false);
                } else if let Some(AdditionalProperties::Schema(ap)) = &s.additional_properties {
                    walk(&path.key(k), ap, v, errs, false);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.items.as_deref() {
                for (i, v) in items.iter().enumerate() {
                    walk(&path.index(i), item_schema, v, errs, false);
                }
            }
        }
        _ => {}
    }
}

fn check_resource(path: &FieldPath, map: &Map<String, Value>, errs: &mut ErrorList) {
    for key in ["apiVersion", "kind"] {
        if !map.contains_key(key) {
            errs.push(FieldError::required(&path.child(key), ""));
        }
    }
    if let Some(v) = map.get("apiVersion") {
        let at = path.child("apiVersion");
        match v {
            Value::String(s) if s.is_empty() => {
                errs.push(FieldError::invalid(&at, v.clone(), "must not be empty"))
            }
            Value::String(s) if s.matches('/').count() > 1 => errs.push(FieldError::invalid(
                &at,
                v.clone(),
                format!("unexpected GroupVersion string: {s}"),
            )),
            Value::String(_) => {}
            _ => errs.push(FieldError::invalid(&at, v.clone(), "must be a string")),
        }
    }
    if let Some(v) = map.get("kind") {
        let at = path.child("kind");
        match v {
            Value::String(s) if s.is_empty() => {
                errs.push(FieldError::invalid(&at, v.clone(), "must not be empty"))
            }
            Value::String(s) => {
                let problems = is_dns1035_label(&s.to_lowercase());
                if !problems.is_empty() {
                    let msg = format!(
                        "may have mixed case, but should otherwise match: {}",
                        problems.join(",")
                    );
                    errs.push(FieldError::invalid(&at, v.clone(), msg));
                }
            }
            _ => errs.push(FieldError::invalid(&at, v.clone(), "must be a string")),
        }
    }
}
