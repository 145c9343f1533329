//! Property-test helpers for authors: proptest strategies that generate objects from a CRD
//! version's `openAPIV3Schema`, and a check that every version round-trips through the hub
//! (A → B → A gives A back) for generated objects.
//!
//! The generator honours `type`, `properties`, `required`, `additionalProperties`, `items`,
//! `enum`, `minimum`/`maximum`, `minLength`/`maxLength`, `minItems`/`maxItems`,
//! `x-kubernetes-int-or-string` and `format: date-time`; it ignores `pattern`, CEL rules and
//! `nullable` (it never generates null).

use crate::converter::{Converter, ObjectError};
use kapi_machinery::schema::{GroupVersion, GroupVersionKind};
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde_json::{Map, Value, json};

const MAX_DEPTH: usize = 6;
const ALPHABET: &[char] = &['a', 'b', 'c', 'x', 'y', 'z', '0', '1', '9', '-', '.', ' '];
const TIMESTAMPS: &[&str] = &[
    "2026-11-29T12:55:12Z",
    "1970-01-01T00:00:00Z",
    "2030-06-15T08:30:00Z",
];

/// Values valid for `schema` (an openAPIV3Schema node), as JSON.
pub fn value_strategy(schema: &Value) -> BoxedStrategy<Value> {
    value_at(schema, 0)
}

/// Whole objects of `gvk` whose fields follow `schema` (the version's openAPIV3Schema),
/// with generated metadata (name, namespace when `namespaced`, uid, labels, annotations).
pub fn object_strategy(
    gvk: &GroupVersionKind,
    namespaced: bool,
    schema: &Value,
) -> BoxedStrategy<Value> {
    let body = value_at(schema, 0);
    let api_version = gvk.api_version();
    let kind = gvk.kind.clone();
    (body, metadata_strategy(namespaced))
        .prop_map(move |(body, metadata)| {
            let mut object = match body {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            object.insert("apiVersion".into(), Value::String(api_version.clone()));
            object.insert("kind".into(), Value::String(kind.clone()));
            object.insert("metadata".into(), metadata);
            Value::Object(object)
        })
        .boxed()
}

fn metadata_strategy(namespaced: bool) -> BoxedStrategy<Value> {
    let word = || vec(select(&['a', 'b', 'k', 'z', '1'][..]), 1..8).prop_map(String::from_iter);
    let labels = btree_map(word(), word(), 0..3);
    let annotations = btree_map(word(), any::<String>(), 0..2);
    (word(), any::<u64>(), labels, annotations)
        .prop_map(move |(name, uid, labels, annotations)| {
            let mut m = json!({
                "name": name,
                "uid": format!("00000000-0000-0000-0000-{:012x}", uid & 0xffff_ffff_ffff),
                "creationTimestamp": TIMESTAMPS[0],
                "generation": 1,
            });
            if namespaced {
                m["namespace"] = json!("default");
            }
            if !labels.is_empty() {
                m["labels"] = json!(labels);
            }
            if !annotations.is_empty() {
                m["annotations"] = json!(annotations);
            }
            m
        })
        .boxed()
}

fn value_at(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    if let Some(choices) = schema
        .get("enum")
        .and_then(Value::as_array)
        .filter(|c| !c.is_empty())
    {
        return select(choices.clone()).boxed();
    }
    if schema
        .get("x-kubernetes-int-or-string")
        .and_then(Value::as_bool)
        == Some(true)
    {
        return prop_oneof![integer(schema), string(schema)].boxed();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => object(schema, depth),
        Some("array") => array(schema, depth),
        Some("string") => string(schema),
        Some("integer") => integer(schema),
        Some("number") => number(schema),
        Some("boolean") => any::<bool>().prop_map(Value::Bool).boxed(),
        _ if schema.get("properties").is_some() => object(schema, depth),
        _ => Just(Value::Object(Map::new())).boxed(),
    }
}

fn object(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    if depth >= MAX_DEPTH {
        return Just(Value::Object(Map::new())).boxed();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut fields: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for (name, sub) in schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if depth == 0 && matches!(name.as_str(), "apiVersion" | "kind" | "metadata") {
            continue;
        }
        let name = name.clone();
        let value = value_at(sub, depth + 1);
        let field = if required.contains(&name.as_str()) {
            value.prop_map(move |v| Some((name.clone(), v))).boxed()
        } else {
            proptest::option::of(value.prop_map(move |v| (name.clone(), v))).boxed()
        };
        fields.push(field);
    }
    let extra = match schema.get("additionalProperties") {
        Some(sub @ Value::Object(_)) => {
            let word = vec(select(&['a', 'b', 'q'][..]), 1..6).prop_map(String::from_iter);
            btree_map(word, value_at(sub, depth + 1), 0..3).boxed()
        }
        _ => Just(Default::default()).boxed(),
    };
    (fields, extra)
        .prop_map(|(fields, extra)| {
            let mut m: Map<String, Value> = extra.into_iter().collect();
            m.extend(fields.into_iter().flatten());
            Value::Object(m)
        })
        .boxed()
}

fn array(schema: &Value, depth: usize) -> BoxedStrategy<Value> {
    let min = bound(schema, "minItems").unwrap_or(0) as usize;
    let max = bound(schema, "maxItems")
        .map_or(min + 3, |m| m as usize)
        .max(min);
    let items = schema.get("items").cloned().unwrap_or(Value::Null);
    vec(value_at(&items, depth + 1), min..=max)
        .prop_map(Value::Array)
        .boxed()
}

fn string(schema: &Value) -> BoxedStrategy<Value> {
    if schema.get("format").and_then(Value::as_str) == Some("date-time") {
        return select(TIMESTAMPS)
            .prop_map(|t| Value::String(t.to_owned()))
            .boxed();
    }
    let min = bound(schema, "minLength").unwrap_or(0) as usize;
    let max = bound(schema, "maxLength")
        .map_or(min + 12, |m| m as usize)
        .max(min);
    vec(select(ALPHABET), min..=max)
        .prop_map(|chars| Value::String(chars.into_iter().collect()))
        .boxed()
}

fn integer(schema: &Value) -> BoxedStrategy<Value> {
    let min = bound(schema, "minimum").unwrap_or(-1000);
    let max = bound(schema, "maximum")
        .unwrap_or(min.saturating_add(2000))
        .max(min);
    (min..=max).prop_map(|n| json!(n)).boxed()
}

fn number(schema: &Value) -> BoxedStrategy<Value> {
    integer(schema)
        .prop_map(|n| json!(n.as_i64().unwrap_or(0) as f64 / 4.0))
        .boxed()
}

fn bound(schema: &Value, key: &str) -> Option<i64> {
    let v = schema.get(key)?;
    v.as_i64().or_else(|| v.as_f64().map(|f| f as i64))
}

/// A version pair that does not survive A → B → A, with the paths that changed.
#[derive(Debug, thiserror::Error)]
pub enum RoundTripError {
    /// A conversion failed.
    #[error("converting {from} through {via}: {source}")]
    Conversion {
        /// The version the object started in.
        from: String,
        /// The version it was converted through.
        via: String,
        /// The failure.
        source: Box<ObjectError>,
    },
    /// The object came back different.
    #[error("{from} -> {via} -> {from} changed {paths:?}")]
    Lossy {
        /// The version the object started in.
        from: String,
        /// The version it was converted through.
        via: String,
        /// JSON paths whose values differ.
        paths: Vec<String>,
    },
    /// The CRD could not be read.
    #[error("CRD: {0}")]
    Crd(String),
    /// proptest found a failing case (the minimal one is shown).
    #[error("{0}")]
    Failed(String),
}

/// Converts `object` to `via` and back, and checks it comes back unchanged.
pub fn check_round_trip(
    converter: &Converter,
    object: &Value,
    via: &GroupVersion,
) -> Result<(), RoundTripError> {
    let from_str = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    let from = GroupVersion::parse(from_str).map_err(|e| RoundTripError::Crd(e.to_string()))?;
    let fail = |source| RoundTripError::Conversion {
        from: from_str.to_owned(),
        via: via.to_string(),
        source: Box::new(source),
    };
    let there = converter
        .convert_object(object.clone(), via)
        .map_err(fail)?;
    let back = converter.convert_object(there, &from).map_err(fail)?;
    let mut paths = Vec::new();
    diff("", object, &back, &mut paths);
    if paths.is_empty() {
        return Ok(());
    }
    Err(RoundTripError::Lossy {
        from: from_str.to_owned(),
        via: via.to_string(),
        paths,
    })
}

fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let (va, vb) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                if x.contains_key(k) != y.contains_key(k) {
                    out.push(format!("{path}.{k}"));
                } else {
                    diff(&format!("{path}.{k}"), va, vb, out);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                diff(&format!("{path}[{i}]"), va, vb, out);
            }
        }
        _ if a != b => out.push(if path.is_empty() {
            ".".into()
        } else {
            path.into()
        }),
        _ => {}
    }
}

/// Proves, for `cases` generated objects of every version of `crd` (a
/// CustomResourceDefinition as JSON), that converting to every other version and back
/// gives the object back. Call it from a `#[test]`.
pub fn check_crd_round_trips(
    converter: &Converter,
    crd: &Value,
    cases: u32,
) -> Result<(), RoundTripError> {
    let spec = crd
        .get("spec")
        .ok_or_else(|| RoundTripError::Crd("no spec".into()))?;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_owned();
    let group = text(spec.get("group"));
    let kind = text(spec.pointer("/names/kind"));
    let namespaced = text(spec.get("scope")) != "Cluster";
    let versions: Vec<(String, Value)> = spec
        .get("versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|v| {
            let schema = v
                .pointer("/schema/openAPIV3Schema")
                .cloned()
                .unwrap_or(Value::Null);
            (text(v.get("name")), schema)
        })
        .collect();
    if group.is_empty() || kind.is_empty() || versions.len() < 2 {
        return Err(RoundTripError::Crd(
            "need spec.group, spec.names.kind and two versions".into(),
        ));
    }
    for (from, schema) in &versions {
        let gvk = GroupVersion::new(group.clone(), from.clone()).with_kind(kind.clone());
        let strategy = object_strategy(&gvk, namespaced, schema);
        for (via, _) in versions.iter().filter(|(v, _)| v != from) {
            let via = GroupVersion::new(group.clone(), via.clone());
            run_cases(cases, &strategy, |object| {
                check_round_trip(converter, &object, &via)
            })?;
        }
    }
    Ok(())
}

fn run_cases(
    cases: u32,
    strategy: &BoxedStrategy<Value>,
    check: impl Fn(Value) -> Result<(), RoundTripError>,
) -> Result<(), RoundTripError> {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    runner
        .run(strategy, |object| {
            check(object).map_err(|e| TestCaseError::fail(e.to_string()))
        })
        .map_err(|e| match e {
            TestError::Fail(reason, input) => {
                RoundTripError::Failed(format!("{reason}\nminimal failing object: {input}"))
            }
            TestError::Abort(reason) => RoundTripError::Failed(reason.to_string()),
        })
}
