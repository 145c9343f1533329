//! Defaulting from a structural schema (R6.9, upstream `defaulting.Default`) and removal of
//! non-nullable nulls that have no default (R6.7, `PruneNonNullableNullsWithoutDefaults`).

use crate::structural::{AdditionalProperties, Structural};
use serde_json::Value;

fn is_non_nullable_null(x: &Value, s: Option<&Structural>) -> bool {
    x.is_null() && s.is_some_and(|s| !s.nullable)
}

fn additional_schema(s: &Structural) -> Option<&Structural> {
    match &s.additional_properties {
        Some(AdditionalProperties::Schema(schema)) => Some(schema),
        _ => None,
    }
}

/// Applies the schema's defaults to `x`: an absent key, or a non-nullable `null`, gets a copy
/// of its property's default; then every key is defaulted recursively, including
/// `additionalProperties` values and array items (R6.9).
pub fn apply_defaults(x: &mut Value, s: &Structural) {
    if !s.defaults_below {
        return;
    }
    match x {
        Value::Object(map) => {
            for (k, prop) in &s.properties {
                let Some(default) = &prop.default else {
                    continue;
                };
                match map.get_mut(k) {
                    None => {
                        map.insert(k.clone(), default.clone());
                    }
                    Some(v) if is_non_nullable_null(v, Some(prop)) => *v = default.clone(),
                    Some(_) => {}
                }
            }
            let ap = additional_schema(s);
            let has_ap = s.additional_properties.is_some();
            for (k, v) in map.iter_mut() {
                if let Some(prop) = s.properties.get(k) {
                    apply_defaults(v, prop);
                } else if has_ap && let Some(ap) = ap {
                    if is_non_nullable_null(v, Some(ap))
                        && let Some(d) = &ap.default
                    {
                        *v = d.clone();
                    }
                    apply_defaults(v, ap);
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = s.items.as_deref() else {
                return;
            };
            for v in items.iter_mut() {
                if is_non_nullable_null(v, Some(item_schema))
                    && let Some(d) = &item_schema.default
                {
                    *v = d.clone();
                }
                apply_defaults(v, item_schema);
            }
        }
        _ => {}
    }
}

fn schema_for_field<'a>(field: &str, s: Option<&'a Structural>) -> Option<&'a Structural> {
    let s = s?;
    s.properties.get(field).or_else(|| additional_schema(s))
}

/// Removes `null` values whose schema is neither nullable nor defaulted (R6.7).
pub fn prune_non_nullable_nulls_without_defaults(x: &mut Value, s: Option<&Structural>) {
    match x {
        Value::Object(map) => map.retain(|k, v| {
            let schema = schema_for_field(k, s);
            if v.is_null() && schema.is_some_and(|sc| !sc.nullable && sc.default.is_none()) {
                return false;
            }
            prune_non_nullable_nulls_without_defaults(v, schema);
            true
        }),
        Value::Array(items) => {
            let schema = s.and_then(|s| s.items.as_deref());
            for v in items.iter_mut() {
                prune_non_nullable_nulls_without_defaults(v, schema);
            }
        }
        _ => {}
    }
}
