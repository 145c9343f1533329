//! OpenAPI v3 value validation as kube-openapi's SchemaValidator does it for custom resources,
//! with its errors already converted to field errors (R6.18, upstream
//! `kubeOpenAPIResultToFieldErrors`): same checks, same order, same words.

use super::formats;
use crate::field::{ErrorList, FieldError, FieldPath};
use crate::gojson;
use crate::structural::{AdditionalProperties, NestedValueValidation, Structural, ValueValidation};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What the type validator checks.
pub(crate) enum TypeCheck<'a> {
    /// No `type`: anything goes.
    Any,
    /// One type name.
    One(&'a str),
    /// `x-kubernetes-int-or-string`: `integer,string`.
    IntOrString,
}

/// A schema the validator can walk: a structural node or a junctor's nested schema.
pub(crate) trait SchemaNode: Sized {
    fn type_check(&self) -> TypeCheck<'_>;
    fn nullable(&self) -> bool;
    fn value_validation(&self) -> Option<&ValueValidation>;
    fn properties(&self) -> &BTreeMap<String, Self>;
    fn additional(&self) -> Option<&Self>;
    fn items(&self) -> Option<&Self>;
}

impl SchemaNode for Structural {
    fn type_check(&self) -> TypeCheck<'_> {
        if self.int_or_string {
            TypeCheck::IntOrString
        } else if self.type_name.is_empty() {
            TypeCheck::Any
        } else {
            TypeCheck::One(&self.type_name)
        }
    }
    fn nullable(&self) -> bool {
        self.nullable
    }
    fn value_validation(&self) -> Option<&ValueValidation> {
        self.value_validation.as_deref()
    }
    fn properties(&self) -> &BTreeMap<String, Self> {
        &self.properties
    }
    fn additional(&self) -> Option<&Self> {
        match &self.additional_properties {
            Some(AdditionalProperties::Schema(s)) => Some(s),
            _ => None,
        }
    }
    fn items(&self) -> Option<&Self> {
        self.items.as_deref()
    }
}

impl SchemaNode for NestedValueValidation {
    fn type_check(&self) -> TypeCheck<'_> {
        TypeCheck::Any
    }
    fn nullable(&self) -> bool {
        false
    }
    fn value_validation(&self) -> Option<&ValueValidation> {
        Some(&self.value_validation)
    }
    fn properties(&self) -> &BTreeMap<String, Self> {
        &self.properties
    }
    fn additional(&self) -> Option<&Self> {
        self.additional_properties.as_deref()
    }
    fn items(&self) -> Option<&Self> {
        self.items.as_deref()
    }
}

/// The JSON type name kube-openapi detects for a value.
pub(crate) fn data_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Go's `%v` of a schema bound: integral bounds print as integers.
fn bound(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e18 {
        format!("{}", f as i64)
    } else {
        gojson::float_v(f)
    }
}

/// Field path of a kube-openapi error name (`spec.replicas`; a leading `.` is dropped).
fn err_path(name: &str) -> FieldPath {
    FieldPath::new(name.strip_prefix('.').unwrap_or(name))
}

/// Validates `value` against `schema`; `name` is the dotted path (`spec.replicas`).
pub(crate) fn validate_node<S: SchemaNode>(
    value: &Value,
    s: &S,
    name: &mut String,
    errs: &mut ErrorList,
) {
    if value.is_null() {
        type_check(value, s, name, errs);
        if let Some(vv) = s.value_validation() {
            check_enum(value, vv, name, errs);
        }
        return;
    }
    type_check(value, s, name, errs);
    let vv = s.value_validation();
    if let Some(vv) = vv {
        junctors(value, vv, name, errs);
    }
    match value {
        Value::String(text) => {
            if let Some(vv) = vv {
                check_string(text, vv, name, errs);
                if !vv.validated_format.is_empty()
                    && !formats::check_normalized_format(&vv.validated_format, text)
                {
                    let msg = format!(
                        "{name} in body must be of type {}: {}",
                        vv.format,
                        gojson::quote(text)
                    );
                    errs.push(FieldError::type_invalid(
                        &err_path(name),
                        value.clone(),
                        msg,
                    ));
                }
            }
        }
        Value::Number(_) => {
            if let Some(vv) = vv {
                check_number(value, vv, name, errs);
            }
        }
        Value::Array(items) => check_array(items, s, vv, name, errs),
        _ => {}
    }
    if let Some(vv) = vv {
        check_enum(value, vv, name, errs);
    }
    if let Value::Object(map) = value {
        check_object(map, s, vv, name, errs);
    }
}

fn type_check<S: SchemaNode>(value: &Value, s: &S, name: &str, errs: &mut ErrorList) {
    let actual = data_type(value);
    let expected = match s.type_check() {
        TypeCheck::Any => return,
        TypeCheck::One(t) => t,
        TypeCheck::IntOrString => "integer,string",
    };
    if value.is_null() && s.nullable() {
        return;
    }
    let contains = |t: &str| expected.split(',').any(|e| e == t);
    let float_int = actual == "number"
        && contains("integer")
        && value.as_f64().is_some_and(|f| f.fract() == 0.0);
    let int_float = actual == "integer" && contains("number");
    if contains(actual) || float_int || int_float {
        return;
    }
    let msg = format!(
        "{name} in body must be of type {expected}: {}",
        gojson::quote(actual)
    );
    errs.push(FieldError::type_invalid(
        &err_path(name),
        Value::String(actual.to_string()),
        msg,
    ));
}

fn check_string(text: &str, vv: &ValueValidation, name: &str, errs: &mut ErrorList) {
    let chars = text.chars().count() as i64;
    if let Some(max) = vv.max_length
        && chars > max
    {
        errs.push(FieldError::too_long(&err_path(name), max));
    }
    if let Some(min) = vv.min_length
        && chars < min
    {
        let msg = format!("{name} in body should be at least {min} chars long");
        errs.push(FieldError::invalid(
            &err_path(name),
            Value::String(text.into()),
            msg,
        ));
    }
    if let Some(p) = &vv.pattern
        && let Ok(re) = &p.regex
        && !re.is_match(text)
    {
        let msg = format!("{name} in body should match '{}'", p.source);
        errs.push(FieldError::invalid(
            &err_path(name),
            Value::String(text.into()),
            msg,
        ));
    }
}

fn check_number(value: &Value, vv: &ValueValidation, name: &str, errs: &mut ErrorList) {
    let Some(f) = value.as_f64() else { return };
    if let Some(m) = vv.multiple_of
        && m > 0.0
    {
        let q = f / m;
        if q.fract() != 0.0 {
            let msg = format!("{name} in body should be a multiple of {}", bound(m));
            errs.push(FieldError::invalid(&err_path(name), value.clone(), msg));
        }
    }
    if let Some(max) = vv.maximum {
        let bad = if vv.exclusive_maximum {
            f >= max
        } else {
            f > max
        };
        if bad {
            let how = if vv.exclusive_maximum {
                "less than"
            } else {
                "less than or equal to"
            };
            let msg = format!("{name} in body should be {how} {}", bound(max));
            errs.push(FieldError::invalid(&err_path(name), value.clone(), msg));
        }
    }
    if let Some(min) = vv.minimum {
        let bad = if vv.exclusive_minimum {
            f <= min
        } else {
            f < min
        };
        if bad {
            let how = if vv.exclusive_minimum {
                "greater than"
            } else {
                "greater than or equal to"
            };
            let msg = format!("{name} in body should be {how} {}", bound(min));
            errs.push(FieldError::invalid(&err_path(name), value.clone(), msg));
        }
    }
}

fn check_array<S: SchemaNode>(
    items: &[Value],
    s: &S,
    vv: Option<&ValueValidation>,
    name: &mut String,
    errs: &mut ErrorList,
) {
    if let Some(item_schema) = s.items() {
        for (i, item) in items.iter().enumerate() {
            let len = name.len();
            name.push('[');
            name.push_str(&i.to_string());
            name.push(']');
            validate_node(item, item_schema, name, errs);
            name.truncate(len);
        }
    }
    let Some(vv) = vv else { return };
    let size = items.len() as i64;
    if let Some(min) = vv.min_items
        && size < min
    {
        let msg = format!("{name} in body should have at least {min} items");
        errs.push(FieldError::invalid(&err_path(name), Value::from(size), msg));
    }
    if let Some(max) = vv.max_items
        && size > max
    {
        errs.push(FieldError::too_many(&err_path(name), size, max));
    }
    if vv.unique_items && has_duplicates(items) {
        let msg = format!("{name} in body shouldn't contain duplicates");
        errs.push(FieldError::invalid(
            &err_path(name),
            Value::String(String::new()),
            msg,
        ));
    }
}

fn has_duplicates(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .any(|(i, a)| items[..i].iter().any(|b| json_equal(a, b)))
}

/// Equality as Go compares decoded JSON, with numbers compared by value.
pub(crate) fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn check_enum(value: &Value, vv: &ValueValidation, name: &str, errs: &mut ErrorList) {
    if vv.enum_values.is_empty() || vv.enum_values.iter().any(|e| json_equal(e, value)) {
        return;
    }
    let supported: Vec<String> = vv
        .enum_values
        .iter()
        .map(|e| match e {
            Value::String(s) => s.clone(),
            other => gojson::to_json(other),
        })
        .collect();
    errs.push(FieldError::not_supported(
        &err_path(name),
        value.clone(),
        &supported,
    ));
}

fn child_name(name: &str, key: &str) -> String {
    if name.is_empty() {
        key.to_string()
    } else {
        format!("{name}.{key}")
    }
}

fn check_object<S: SchemaNode>(
    map: &Map<String, Value>,
    s: &S,
    vv: Option<&ValueValidation>,
    name: &mut String,
    errs: &mut ErrorList,
) {
    let count = map.len() as i64;
    if let Some(vv) = vv {
        if let Some(min) = vv.min_properties
            && count < min
        {
            let msg = format!("{name} in body should have at least {min} properties");
            errs.push(FieldError::invalid(
                &err_path(name),
                Value::from(count),
                msg,
            ));
            return;
        }
        if let Some(max) = vv.max_properties
            && count > max
        {
            errs.push(FieldError::too_many(&err_path(name), count, max));
            return;
        }
    }
    let props = s.properties();
    if let Some(ap) = s.additional() {
        for (k, v) in map.iter().filter(|(k, _)| !props.contains_key(*k)) {
            let mut child = format!("{name}.{k}");
            validate_node(v, ap, &mut child, errs);
        }
    }
    for (k, p) in props {
        if let Some(v) = map.get(k) {
            let len = name.len();
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(k);
            validate_node(v, p, name, errs);
            name.truncate(len);
        }
    }
    if let Some(vv) = vv {
        for k in vv.required.iter().filter(|k| !map.contains_key(*k)) {
            errs.push(FieldError::required(&err_path(&child_name(name, k)), ""));
        }
    }
}

/// Runs a nested schema and tells whether it matched.
fn run_nested(value: &Value, n: &NestedValueValidation, name: &str) -> ErrorList {
    let mut errs = ErrorList::new();
    let mut name = name.to_string();
    validate_node(value, n, &mut name, &mut errs);
    errs
}

fn composite(msg: String) -> FieldError {
    FieldError::invalid(&FieldPath::root(), Value::String(String::new()), msg)
}

fn junctors(value: &Value, vv: &ValueValidation, name: &str, errs: &mut ErrorList) {
    if !vv.any_of.is_empty() {
        let results: Vec<ErrorList> = vv
            .any_of
            .iter()
            .map(|n| run_nested(value, n, name))
            .collect();
        if !results.iter().any(Vec::is_empty) {
            errs.push(composite(format!(
                "{} must validate at least one schema (anyOf)",
                gojson::quote(name)
            )));
            if let Some(best) = results.into_iter().min_by_key(Vec::len) {
                errs.extend(best);
            }
        }
    }
    if !vv.one_of.is_empty() {
        let results: Vec<ErrorList> = vv
            .one_of
            .iter()
            .map(|n| run_nested(value, n, name))
            .collect();
        let valid = results.iter().filter(|r| r.is_empty()).count();
        if valid != 1 {
            let extra = if valid == 0 {
                "Found none valid".to_string()
            } else {
                format!("Found {valid} valid alternatives")
            };
            errs.push(composite(format!(
                "{} must validate one and only one schema (oneOf). {extra}",
                gojson::quote(name)
            )));
            if valid == 0
                && let Some(best) = results.into_iter().min_by_key(Vec::len)
            {
                errs.extend(best);
            }
        }
    }
    if !vv.all_of.is_empty() {
        let mut validated = 0;
        for n in &vv.all_of {
            let r = run_nested(value, n, name);
            if r.is_empty() {
                validated += 1;
            }
            errs.extend(r);
        }
        if validated != vv.all_of.len() {
            let extra = if validated == 0 {
                ". None validated"
            } else {
                ""
            };
            errs.push(composite(format!(
                "{} must validate all the schemas (allOf){extra}",
                gojson::quote(name)
            )));
        }
    }
    if let Some(not) = &vv.not
        && run_nested(value, not, name).is_empty()
    {
        errs.push(composite(format!(
            "{} must not validate the schema (not)",
            gojson::quote(name)
        )));
    }
}
