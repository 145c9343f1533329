//! `metadata` of a custom resource (root or embedded) reduced to what `metav1.ObjectMeta`
//! holds (R6.4, R6.6): unknown keys dropped and reported, values type-checked, times
//! normalized to UTC seconds, empty values removed as Go's `omitempty` does.

use crate::gojson;
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value};

/// A metadata value of the wrong type (Go's JSON unmarshal error).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct MetadataError {
    /// `json: cannot unmarshal …` text.
    pub message: String,
}

#[derive(Clone, Copy)]
enum Kind {
    Str,
    Int,
    Time,
    OptTime,
    OptInt,
    StrMap,
    StrList,
    OwnerRefs,
    ManagedFields,
}

const FIELDS: [(&str, Kind); 15] = [
    ("name", Kind::Str),
    ("generateName", Kind::Str),
    ("namespace", Kind::Str),
    ("selfLink", Kind::Str),
    ("uid", Kind::Str),
    ("resourceVersion", Kind::Str),
    ("generation", Kind::Int),
    ("creationTimestamp", Kind::Time),
    ("deletionTimestamp", Kind::OptTime),
    ("deletionGracePeriodSeconds", Kind::OptInt),
    ("labels", Kind::StrMap),
    ("annotations", Kind::StrMap),
    ("ownerReferences", Kind::OwnerRefs),
    ("finalizers", Kind::StrList),
    ("managedFields", Kind::ManagedFields),
];

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn mismatch(v: &Value, field: &str, want: &str) -> MetadataError {
    MetadataError {
        message: format!(
            "json: cannot unmarshal {} into Go struct field ObjectMeta.metadata.{field} of type {want}",
            go_type(v)
        ),
    }
}

fn parse_time(v: &Value, field: &str) -> Result<Option<Value>, MetadataError> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => DateTime::parse_from_rfc3339(s)
            .map(|t| {
                Some(Value::String(
                    t.with_timezone(&Utc)
                        .to_rfc3339_opts(SecondsFormat::Secs, true),
                ))
            })
            .map_err(|_| MetadataError {
                message: format!(
                    "parsing time {} as \"2006-01-02T15:04:05Z07:00\": cannot parse {} as \"2006\"",
                    gojson::quote(s),
                    gojson::quote(s)
                ),
            }),
        other => Err(mismatch(other, field, "string")),
    }
}

/// `labels`/`annotations` in place: null values become "", other non-strings fail.
fn coerce_string_map(v: &mut Value, field: &str) -> Result<bool, MetadataError> {
    match v {
        Value::Null => Ok(false),
        Value::Object(m) if m.is_empty() => Ok(false),
        Value::Object(m) => {
            for val in m.values_mut() {
                match val {
                    Value::String(_) => {}
                    Value::Null => *val = Value::String(String::new()),
                    other => return Err(mismatch(other, field, "string")),
                }
            }
            Ok(true)
        }
        other => Err(mismatch(other, field, "map[string]string")),
    }
}

fn coerce_string_list(v: &Value, field: &str) -> Result<Option<Value>, MetadataError> {
    match v {
        Value::Null => Ok(None),
        Value::Array(a) if a.is_empty() => Ok(None),
        Value::Array(a) => a
            .iter()
            .map(|i| match i {
                Value::String(_) => Ok(i.clone()),
                Value::Null => Ok(Value::String(String::new())),
                other => Err(mismatch(other, field, "string")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|a| Some(Value::Array(a))),
        other => Err(mismatch(other, field, "[]string")),
    }
}

/// Object fields of a struct inside metadata: `(name, kind, omitempty)`.
type StructFields = &'static [(&'static str, Kind, bool)];

const OWNER_REF: StructFields = &[
    ("apiVersion", Kind::Str, false),
    ("kind", Kind::Str, false),
    ("name", Kind::Str, false),
    ("uid", Kind::Str, false),
    ("controller", Kind::Str, true),
    ("blockOwnerDeletion", Kind::Str, true),
];

const MANAGED_FIELDS: StructFields = &[
    ("manager", Kind::Str, true),
    ("operation", Kind::Str, true),
    ("apiVersion", Kind::Str, true),
    ("time", Kind::OptTime, true),
    ("fieldsType", Kind::Str, true),
    ("fieldsV1", Kind::Str, true),
    ("subresource", Kind::Str, true),
];

fn coerce_struct_list(
    v: &Value,
    field: &str,
    fields: StructFields,
    path: &str,
    unknown: &mut Vec<String>,
) -> Result<Option<Value>, MetadataError> {
    let items = match v {
        Value::Null => return Ok(None),
        Value::Array(a) if a.is_empty() => return Ok(None),
        Value::Array(a) => a,
        other => return Err(mismatch(other, field, "array")),
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::Object(m) = item else {
            if item.is_null() {
                out.push(Value::Object(Map::new()));
                continue;
            }
            return Err(mismatch(item, field, "object"));
        };
        let mut entry = Map::new();
        for (k, val) in m {
            let Some((_, _, omitempty)) = fields.iter().find(|(n, _, _)| n == k) else {
                unknown.push(format!("{path}.{field}[{i}].{k}"));
                continue;
            };
            let keep = match (k.as_str(), val) {
                ("controller" | "blockOwnerDeletion" | "fieldsV1", Value::Null) => None,
                ("controller" | "blockOwnerDeletion", Value::Bool(_)) => Some(val.clone()),
                ("controller" | "blockOwnerDeletion", other) => {
                    return Err(mismatch(other, k, "bool"));
                }
                ("fieldsV1", Value::Object(_)) => Some(val.clone()),
                ("fieldsV1", other) => return Err(mismatch(other, k, "v1.FieldsV1")),
                ("time", _) => parse_time(val, k)?,
                (_, Value::String(s)) if s.is_empty() && *omitempty => None,
                (_, Value::String(_)) => Some(val.clone()),
                (_, Value::Null) => (!omitempty).then(|| Value::String(String::new())),
                (_, other) => return Err(mismatch(other, k, "string")),
            };
            if let Some(val) = keep {
                entry.insert(k.clone(), val);
            }
        }
        for (name, _, omitempty) in fields {
            if !omitempty && !entry.contains_key(*name) {
                entry.insert((*name).to_string(), Value::String(String::new()));
            }
        }
        out.push(Value::Object(entry));
    }
    Ok(Some(Value::Array(out)))
}

/// Coerces one known field in place; `Ok(false)` means Go's `omitempty` drops it.
fn coerce_field(
    kind: Kind,
    name: &str,
    v: &mut Value,
    path: &str,
    unknown: &mut Vec<String>,
) -> Result<bool, MetadataError> {
    let replaced = match kind {
        Kind::Str => {
            return match v {
                Value::Null => Ok(false),
                Value::String(s) => Ok(!s.is_empty()),
                other => Err(mismatch(other, name, "string")),
            };
        }
        Kind::Int | Kind::OptInt => {
            return match v {
                Value::Null => Ok(false),
                Value::Number(n) if n.as_i64() == Some(0) && matches!(kind, Kind::Int) => Ok(false),
                Value::Number(n) if n.is_i64() => Ok(true),
                other => Err(mismatch(other, name, "int64")),
            };
        }
        Kind::Time | Kind::OptTime => parse_time(v, name)?,
        Kind::StrMap => return coerce_string_map(v, name),
        Kind::StrList => coerce_string_list(v, name)?,
        Kind::OwnerRefs => coerce_struct_list(v, name, OWNER_REF, path, unknown)?,
        Kind::ManagedFields => coerce_struct_list(v, name, MANAGED_FIELDS, path, unknown)?,
    };
    match replaced {
        Some(new) => {
            *v = new;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// Rewrites `meta` (the value of a `metadata` key) into ObjectMeta's shape. `path` is the
/// metadata's own path (`metadata`, `spec.template.metadata`) for unknown-field reports.
/// With `drop_invalid`, malformed fields are dropped one by one instead of failing (storage
/// reads, R4.12). At the resource root Go keeps a zero `creationTimestamp` as `null`
/// (`is_root`); in embedded resources it is removed.
pub fn coerce_object_meta(
    meta: &mut Value,
    path: &str,
    is_root: bool,
    drop_invalid: bool,
    unknown: &mut Vec<String>,
) -> Result<(), MetadataError> {
    let Value::Object(map) = meta else {
        if meta.is_null() {
            *meta = Value::Object(Map::new());
            return Ok(());
        }
        let err = MetadataError {
            message: format!(
                "json: cannot unmarshal {} into Go value of type v1.ObjectMeta",
                go_type(meta)
            ),
        };
        if drop_invalid {
            *meta = Value::Object(Map::new());
            return Ok(());
        }
        return Err(err);
    };
    let mut first_err = None;
    map.retain(|k, v| {
        let Some((_, kind)) = FIELDS.iter().find(|(n, _)| n == k) else {
            unknown.push(format!("{path}.{k}"));
            return false;
        };
        match coerce_field(*kind, k, v, path, unknown) {
            Ok(keep) => keep,
            Err(_) if drop_invalid => false,
            Err(e) => {
                first_err.get_or_insert(e);
                true
            }
        }
    });
    if let Some(e) = first_err {
        return Err(e);
    }
    if is_root && !map.contains_key("creationTimestamp") {
        map.insert("creationTimestamp".into(), Value::Null);
    }
    Ok(())
}
