//! Builds the structural tree from the JSON form of a JSONSchemaProps (upstream
//! `NewStructural`): structural parts go to the tree, value validations to their own nodes.

use super::{
    AdditionalProperties, ForbiddenInNested, JsonType, NestedValueValidation, Pattern, Structural,
    ValidationRule, ValueValidation,
};
use regex::Regex;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Why a schema cannot become a structural tree.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// A JSON Schema keyword that CRD schemas do not support (`OpenAPIV3Schema 'id' is not supported`).
    #[error("OpenAPIV3Schema '{0}' is not supported")]
    Unsupported(&'static str),
    /// `items` given as an array of schemas.
    #[error("OpenAPIV3Schema 'items' must be a schema, but is an array")]
    ItemsArray,
    /// `x-kubernetes-preserve-unknown-fields: false`.
    #[error("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined")]
    PreserveUnknownFieldsFalse,
    /// A keyword has the wrong JSON type.
    #[error("OpenAPIV3Schema '{0}' has an invalid value")]
    Malformed(String),
    /// The schema is not a JSON object.
    #[error("OpenAPIV3Schema must be an object")]
    NotAnObject,
}

type Obj = Map<String, Value>;

fn as_obj(v: &Value) -> Result<&Obj, BuildError> {
    v.as_object().ok_or(BuildError::NotAnObject)
}

fn string(o: &Obj, key: &str) -> Result<String, BuildError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(BuildError::Malformed(key.into())),
    }
}

fn opt_string(o: &Obj, key: &str) -> Result<Option<String>, BuildError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(BuildError::Malformed(key.into())),
    }
}

fn boolean(o: &Obj, key: &str) -> Result<bool, BuildError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(BuildError::Malformed(key.into())),
    }
}

fn float(o: &Obj, key: &str) -> Result<Option<f64>, BuildError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_f64()
            .map(Some)
            .ok_or_else(|| BuildError::Malformed(key.into())),
        Some(_) => Err(BuildError::Malformed(key.into())),
    }
}

fn int(o: &Obj, key: &str) -> Result<Option<i64>, BuildError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| BuildError::Malformed(key.into())),
        Some(_) => Err(BuildError::Malformed(key.into())),
    }
}

fn strings(o: &Obj, key: &str) -> Result<Vec<String>, BuildError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| BuildError::Malformed(key.into()))
            })
            .collect(),
        Some(_) => Err(BuildError::Malformed(key.into())),
    }
}

fn non_empty(o: &Obj, key: &str) -> bool {
    match o.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::Object(m)) => !m.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

fn check_unsupported(o: &Obj) -> Result<(), BuildError> {
    for (key, name) in [
        ("id", "id"),
        ("$schema", "schema"),
        ("$ref", "$ref"),
        ("patternProperties", "patternProperties"),
        ("dependencies", "dependencies"),
        ("definitions", "definitions"),
    ] {
        if non_empty(o, key) {
            return Err(BuildError::Unsupported(name));
        }
    }
    if o.get("additionalItems").is_some_and(|v| !v.is_null()) {
        return Err(BuildError::Unsupported("additionalItems"));
    }
    Ok(())
}

fn preserve_unknown(o: &Obj) -> Result<bool, BuildError> {
    match o.get("x-kubernetes-preserve-unknown-fields") {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(true)) => Ok(true),
        Some(Value::Bool(false)) => Err(BuildError::PreserveUnknownFieldsFalse),
        Some(_) => Err(BuildError::Malformed(
            "x-kubernetes-preserve-unknown-fields".into(),
        )),
    }
}

fn rules(o: &Obj) -> Result<Vec<ValidationRule>, BuildError> {
    let Some(list) = o.get("x-kubernetes-validations").filter(|v| !v.is_null()) else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or_else(|| BuildError::Malformed("x-kubernetes-validations".into()))?;
    list.iter()
        .map(|r| {
            let r = r
                .as_object()
                .ok_or_else(|| BuildError::Malformed("x-kubernetes-validations".into()))?;
            Ok(ValidationRule {
                rule: string(r, "rule")?,
                message: string(r, "message")?,
                message_expression: string(r, "messageExpression")?,
                reason: opt_string(r, "reason")?,
                field_path: string(r, "fieldPath")?,
                optional_old_self: boolean(r, "optionalOldSelf")?,
            })
        })
        .collect()
}

fn single_items(o: &Obj) -> Result<Option<&Value>, BuildError> {
    match o.get("items") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(_)) => Err(BuildError::ItemsArray),
        Some(v) => Ok(Some(v)),
    }
}

fn value_validation(o: &Obj) -> Result<ValueValidation, BuildError> {
    let pattern = string(o, "pattern")?;
    let nested_list = |key: &str| -> Result<Vec<NestedValueValidation>, BuildError> {
        match o.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items.iter().map(nested).collect(),
            Some(_) => Err(BuildError::Malformed(key.into())),
        }
    };
    let format = string(o, "format")?;
    Ok(ValueValidation {
        validated_format: crate::validation::formats::normalized_supported(&format),
        format,
        maximum: float(o, "maximum")?,
        exclusive_maximum: boolean(o, "exclusiveMaximum")?,
        minimum: float(o, "minimum")?,
        exclusive_minimum: boolean(o, "exclusiveMinimum")?,
        max_length: int(o, "maxLength")?,
        min_length: int(o, "minLength")?,
        pattern: (!pattern.is_empty()).then(|| Pattern {
            regex: Regex::new(&pattern).map_err(|e| e.to_string()),
            source: pattern,
        }),
        max_items: int(o, "maxItems")?,
        min_items: int(o, "minItems")?,
        unique_items: boolean(o, "uniqueItems")?,
        multiple_of: float(o, "multipleOf")?,
        enum_values: match o.get("enum") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(values)) => values.clone(),
            Some(_) => return Err(BuildError::Malformed("enum".into())),
        },
        max_properties: int(o, "maxProperties")?,
        min_properties: int(o, "minProperties")?,
        required: strings(o, "required")?,
        all_of: nested_list("allOf")?,
        one_of: nested_list("oneOf")?,
        any_of: nested_list("anyOf")?,
        not: match o.get("not") {
            None | Some(Value::Null) => None,
            Some(v) => Some(Box::new(nested(v)?)),
        },
    })
}

fn forbidden(o: &Obj) -> Result<ForbiddenInNested, BuildError> {
    Ok(ForbiddenInNested {
        type_name: string(o, "type")?,
        default: o.get("default").is_some_and(|v| !v.is_null()),
        title: non_empty(o, "title"),
        description: non_empty(o, "description"),
        nullable: boolean(o, "nullable")?,
        preserve_unknown_fields: preserve_unknown(o)?,
        embedded_resource: boolean(o, "x-kubernetes-embedded-resource")?,
        int_or_string: boolean(o, "x-kubernetes-int-or-string")?,
        list_map_keys: non_empty(o, "x-kubernetes-list-map-keys"),
        list_type: o
            .get("x-kubernetes-list-type")
            .is_some_and(|v| !v.is_null()),
        map_type: o.get("x-kubernetes-map-type").is_some_and(|v| !v.is_null()),
        validations: non_empty(o, "x-kubernetes-validations"),
    })
}

/// Builds a schema found inside `allOf`/`anyOf`/`oneOf`/`not`.
fn nested(v: &Value) -> Result<NestedValueValidation, BuildError> {
    let o = as_obj(v)?;
    check_unsupported(o)?;
    let mut properties = BTreeMap::new();
    if let Some(props) = o.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            properties.insert(k.clone(), nested(p)?);
        }
    }
    let additional_properties = match o.get("additionalProperties") {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Bool(true)) => Some(Box::default()),
        Some(schema) => Some(Box::new(nested(schema)?)),
    };
    Ok(NestedValueValidation {
        value_validation: value_validation(o)?,
        items: single_items(o)?.map(nested).transpose()?.map(Box::new),
        properties,
        additional_properties,
        forbidden: forbidden(o)?,
    })
}

/// Builds a structural node (upstream `NewStructural`).
pub(super) fn structural(v: &Value) -> Result<Structural, BuildError> {
    let o = as_obj(v)?;
    check_unsupported(o)?;
    let type_name = string(o, "type")?;
    let mut properties = BTreeMap::new();
    if let Some(props) = o.get("properties").filter(|p| !p.is_null()) {
        let props = props
            .as_object()
            .ok_or_else(|| BuildError::Malformed("properties".into()))?;
        for (k, p) in props {
            properties.insert(k.clone(), structural(p)?);
        }
    }
    let additional_properties = match o.get("additionalProperties") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(AdditionalProperties::Bool(*b)),
        Some(schema) => Some(AdditionalProperties::Schema(Box::new(structural(schema)?))),
    };
    let vv = value_validation(o)?;
    let mut s = Structural {
        json_type: JsonType::parse(&type_name),
        type_name,
        nullable: boolean(o, "nullable")?,
        default: o.get("default").filter(|d| !d.is_null()).cloned(),
        description: string(o, "description")?,
        has_docs: non_empty(o, "title")
            || o.get("example").is_some_and(|e| !e.is_null())
            || non_empty(o, "externalDocs"),
        properties,
        additional_properties,
        items: single_items(o)?.map(structural).transpose()?.map(Box::new),
        preserve_unknown_fields: preserve_unknown(o)?,
        embedded_resource: boolean(o, "x-kubernetes-embedded-resource")?,
        int_or_string: boolean(o, "x-kubernetes-int-or-string")?,
        list_type: opt_string(o, "x-kubernetes-list-type")?,
        list_map_keys: strings(o, "x-kubernetes-list-map-keys")?,
        map_type: opt_string(o, "x-kubernetes-map-type")?,
        validations: rules(o)?,
        value_validation: (!vv.is_empty()).then(|| Box::new(vv)),
        ..Structural::default()
    };
    s.compute_flags();
    Ok(s)
}
