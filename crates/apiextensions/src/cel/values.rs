//! JSON values to CEL values, typed by the structural schema as Kubernetes does
//! (`UnstructuredToVal`): escaped property names, `number` as double, `date-time` as
//! timestamp, `duration` as duration, `byte` as bytes, root metadata reduced to name and
//! generateName.

use crate::structural::{AdditionalProperties, Structural};
use base64::Engine;
use kube_cel::cel::Value as CelValue;
use kube_cel::cel::objects::{Key, Map as CelMap};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

const RESERVED: [&str; 20] = [
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
];

/// Kubernetes' CEL property-name escaping (`foo-bar` → `foo__dash__bar`); `None` when the
/// name cannot be accessed from CEL at all.
pub fn escape_property_name(name: &str) -> Option<String> {
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '-' | '/'));
    if !first_ok
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'))
    {
        return None;
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("__") {
            out.push_str("__underscores__");
            rest = r;
            continue;
        }
        let c = rest.chars().next().unwrap_or('_');
        match c {
            '.' => out.push_str("__dot__"),
            '-' => out.push_str("__dash__"),
            '/' => out.push_str("__slash__"),
            c => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

/// Parses a Go duration (`1h30m`, `-1.5s`, `300ms`).
pub fn parse_go_duration(s: &str) -> Option<chrono::Duration> {
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(chrono::Duration::zero());
    }
    if rest.is_empty() {
        return None;
    }
    let mut total_ns: f64 = 0.0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_len == 0 {
            return None;
        }
        let n: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total_ns += n * scale;
    }
    let ns = if neg { -total_ns } else { total_ns };
    Some(chrono::Duration::nanoseconds(ns as i64))
}

fn string_value(s: &str, schema: Option<&Structural>) -> CelValue {
    let format = schema
        .and_then(|s| s.value_validation.as_deref())
        .map(|v| v.format.as_str())
        .unwrap_or("");
    match format {
        "date-time" | "datetime" => {
            if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
                return CelValue::Timestamp(t);
            }
        }
        "duration" => {
            if let Some(d) = parse_go_duration(s) {
                return CelValue::Duration(d);
            }
        }
        "byte" => {
            if let Ok(b) = base64::engine::general_purpose::STANDARD.decode(s) {
                return CelValue::Bytes(Arc::new(b));
            }
        }
        _ => {}
    }
    CelValue::String(Arc::new(s.to_string()))
}

fn number_value(n: &serde_json::Number, schema: Option<&Structural>) -> CelValue {
    let is_number_type = schema.is_some_and(|s| s.type_name == "number");
    match (n.as_i64(), n.as_u64()) {
        (Some(i), _) if !is_number_type => CelValue::Int(i),
        (None, Some(u)) if !is_number_type => CelValue::UInt(u),
        _ => CelValue::Float(n.as_f64().unwrap_or(0.0)),
    }
}

/// Converts `v` with its schema; `is_root` limits `metadata` to name and generateName.
pub fn to_cel(v: &Value, schema: Option<&Structural>, is_root: bool) -> CelValue {
    to_cel_projected(v, schema, is_root, None)
}

/// Like [`to_cel`], keeping only the top-level (escaped) keys in `only` when given.
pub fn to_cel_projected(
    v: &Value,
    schema: Option<&Structural>,
    is_root: bool,
    only: Option<&BTreeSet<String>>,
) -> CelValue {
    match v {
        Value::Null => CelValue::Null,
        Value::Bool(b) => CelValue::Bool(*b),
        Value::Number(n) => number_value(n, schema),
        Value::String(s) => string_value(s, schema),
        Value::Array(items) => {
            let item_schema = schema.and_then(|s| s.items.as_deref());
            CelValue::List(Arc::new(
                items
                    .iter()
                    .map(|i| to_cel(i, item_schema, false))
                    .collect(),
            ))
        }
        Value::Object(map) => {
            let mut out: HashMap<Key, CelValue> = HashMap::with_capacity(map.len());
            let additional = schema.and_then(|s| match &s.additional_properties {
                Some(AdditionalProperties::Schema(ap)) => Some(ap.as_ref()),
                _ => None,
            });
            let is_map = schema
                .is_some_and(|s| s.additional_properties.is_some() && s.properties.is_empty());
            for (k, val) in map {
                if is_root && k == "metadata" {
                    if only.is_none_or(|o| o.contains("metadata")) {
                        out.insert(Key::String(Arc::new(k.clone())), root_metadata(val));
                    }
                    continue;
                }
                let prop = schema.and_then(|s| s.properties.get(k));
                let key = if is_map || schema.is_none() {
                    k.clone()
                } else if prop.is_some() || schema.is_some_and(|s| s.preserve_unknown_fields) {
                    match escape_property_name(k) {
                        Some(e) => e,
                        None => continue,
                    }
                } else {
                    k.clone()
                };
                if only.is_some_and(|o| !o.contains(&key)) {
                    continue;
                }
                out.insert(
                    Key::String(Arc::new(key)),
                    to_cel(val, prop.or(additional), false),
                );
            }
            CelValue::Map(CelMap { map: Arc::new(out) })
        }
    }
}

fn root_metadata(meta: &Value) -> CelValue {
    let mut out: HashMap<Key, CelValue> = HashMap::new();
    if let Value::Object(m) = meta {
        for k in ["name", "generateName"] {
            if let Some(Value::String(s)) = m.get(k) {
                out.insert(
                    Key::String(Arc::new(k.to_string())),
                    CelValue::String(Arc::new(s.clone())),
                );
            }
        }
    }
    CelValue::Map(CelMap { map: Arc::new(out) })
}
