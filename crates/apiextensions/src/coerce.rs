//! The schema coercer a custom resource passes through on request decode and on storage read
//! (R4.8 steps 2–5, R4.12 step 2; upstream `unstructuredSchemaCoercer.apply`): root metadata to
//! ObjectMeta, pruning, non-nullable nulls, embedded resources' metadata.

use crate::defaulting::prune_non_nullable_nulls_without_defaults;
use crate::field::{FieldError, FieldPath};
use crate::objectmeta::{MetadataError, coerce_object_meta};
use crate::prune::{PathTracker, prune_tracked};
use crate::structural::{AdditionalProperties, Structural};
use serde_json::Value;

/// How to coerce.
#[derive(Clone, Copy, Debug, Default)]
pub struct CoerceOptions {
    /// Drop malformed metadata fields instead of failing (storage reads).
    pub drop_invalid_metadata: bool,
    /// Report pruned and unknown metadata paths (fieldValidation Warn/Strict).
    pub return_unknown_field_paths: bool,
    /// Turn a missing or zero `metadata.generation` into 1 (storage reads).
    pub repair_generation: bool,
    /// The CRD's legacy `spec.preserveUnknownFields: true`: no pruning (R6.8).
    pub preserve_unknown_fields: bool,
}

impl CoerceOptions {
    /// Options for a request body: errors are fatal, unknown fields reported when `strict_or_warn`.
    pub fn for_request(strict_or_warn: bool) -> Self {
        Self {
            return_unknown_field_paths: strict_or_warn,
            ..Self::default()
        }
    }

    /// Options for an object read from storage (R4.12).
    pub fn for_storage() -> Self {
        Self {
            drop_invalid_metadata: true,
            repair_generation: true,
            ..Self::default()
        }
    }
}

/// Why an object cannot be coerced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CoerceError {
    /// `kind` or `apiVersion` at the root is not a string.
    #[error(".{field} accessor error: {value} is of the type {go_type}, expected string")]
    NotAString {
        /// `kind` or `apiVersion`.
        field: &'static str,
        /// The value as Go prints it.
        value: String,
        /// Go's type name.
        go_type: &'static str,
    },
    /// Root metadata of the wrong shape (a request answers 400).
    #[error(transparent)]
    Metadata(#[from] MetadataError),
    /// An embedded resource is malformed (a request answers 422 with this cause).
    #[error("{0}")]
    Invalid(FieldError),
}

fn go_type_name(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
        _ => "<nil>",
    }
}

fn check_string(obj: &Value, field: &'static str) -> Result<(), CoerceError> {
    match obj.get(field) {
        None | Some(Value::String(_)) => Ok(()),
        Some(v) => Err(CoerceError::NotAString {
            field,
            value: crate::gojson::render_interface(v),
            go_type: go_type_name(v),
        }),
    }
}

/// Coerces a custom resource in place with its version's schema and returns the unknown field
/// paths (sorted; empty unless `return_unknown_field_paths`). The caller has checked that the
/// object's group and kind are the CRD's.
pub fn coerce_custom_resource(
    obj: &mut Value,
    schema: &Structural,
    opts: &CoerceOptions,
) -> Result<Vec<String>, CoerceError> {
    check_string(obj, "kind")?;
    check_string(obj, "apiVersion")?;
    let mut unknown = Vec::new();
    let mut meta = obj.get_mut("metadata").map(Value::take);
    if let Some(m) = meta.as_mut() {
        coerce_object_meta(
            m,
            "metadata",
            true,
            opts.drop_invalid_metadata,
            &mut unknown,
        )?;
    }
    if !opts.preserve_unknown_fields {
        let mut t = PathTracker::new(opts.return_unknown_field_paths);
        prune_tracked(obj, schema, true, &mut t);
        unknown.append(&mut t.unknown);
        prune_non_nullable_nulls_without_defaults(obj, Some(schema));
    }
    if schema.contains_embedded_resource() {
        coerce_embedded(obj, schema, &FieldPath::root(), opts, &mut unknown, true)?;
    }
    if let Some(mut m) = meta {
        if opts.repair_generation
            && let Value::Object(map) = &mut m
            && map.get("generation").and_then(Value::as_i64).unwrap_or(0) == 0
        {
            map.insert("generation".into(), Value::from(1));
        }
        if let Value::Object(root) = obj {
            root.insert("metadata".into(), m);
        }
    }
    if !opts.return_unknown_field_paths {
        unknown.clear();
    }
    unknown.sort();
    Ok(unknown)
}

fn coerce_embedded_meta(
    map: &mut serde_json::Map<String, Value>,
    path: &FieldPath,
    opts: &CoerceOptions,
    unknown: &mut Vec<String>,
) -> Result<(), CoerceError> {
    for key in ["apiVersion", "kind"] {
        if map.get(key).is_some_and(|v| !v.is_string()) {
            if opts.drop_invalid_metadata {
                map.remove(key);
            } else {
                let v = map.get(key).cloned().unwrap_or(Value::Null);
                return Err(CoerceError::Invalid(FieldError::invalid(
                    &path.child(key),
                    v,
                    "must be a string",
                )));
            }
        }
    }
    if let Some(meta) = map.get_mut("metadata") {
        let original = meta.clone();
        let meta_path = path.child("metadata");
        match coerce_object_meta(
            meta,
            meta_path.as_str(),
            false,
            opts.drop_invalid_metadata,
            unknown,
        ) {
            Ok(()) => {}
            Err(e) => {
                return Err(CoerceError::Invalid(FieldError::invalid(
                    &meta_path, original, e.message,
                )));
            }
        }
    }
    Ok(())
}

/// Coerces `metadata` of every embedded resource below the root (upstream `objectmeta.Coerce`
/// with `isResourceRoot=false`).
fn coerce_embedded(
    x: &mut Value,
    s: &Structural,
    path: &FieldPath,
    opts: &CoerceOptions,
    unknown: &mut Vec<String>,
    at_root: bool,
) -> Result<(), CoerceError> {
    match x {
        Value::Object(map) => {
            if s.embedded_resource && !at_root {
                coerce_embedded_meta(map, path, opts, unknown)?;
            }
            for (k, v) in map.iter_mut() {
                if at_root && k == "metadata" {
                    continue;
                }
                if let Some(prop) = s.properties.get(k) {
                    coerce_embedded(v, prop, &path.child(k), opts, unknown, false)?;
                } else if let Some(AdditionalProperties::Schema(ap)) = &s.additional_properties {
                    coerce_embedded(v, ap, &path.key(k), opts, unknown, false)?;
                }
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = s.items.as_deref() else {
                return Ok(());
            };
            for (i, v) in items.iter_mut().enumerate() {
                coerce_embedded(v, item_schema, &path.index(i), opts, unknown, false)?;
            }
        }
        _ => {}
    }
    Ok(())
}
