//! The scale subresource's replicas paths, checked on every write of a custom resource
//! (upstream `customResourceValidator.ValidateScaleSpec/Status`).

use crate::field::{ErrorList, FieldError, FieldPath};
use crate::gojson;
use serde_json::Value;

fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float64",
        Value::Number(_) => "int64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
        Value::Null => "<nil>",
    }
}

fn lookup<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    path.trim_start_matches('.')
        .split('.')
        .try_fold(obj, |v, seg| v.get(seg))
}

/// Checks one replicas path (`.spec.replicas`): absent is fine, otherwise a non-negative int32.
pub fn validate_replicas_path(obj: &Value, json_path: &str) -> ErrorList {
    let at = FieldPath::new(json_path);
    let Some(v) = lookup(obj, json_path) else {
        return ErrorList::new();
    };
    match v.as_i64() {
        Some(n) if n < 0 => vec![FieldError::invalid(
            &at,
            Value::from(n),
            "should be a non-negative integer",
        )],
        Some(n) if n > i64::from(i32::MAX) => {
            vec![FieldError::invalid(
                &at,
                Value::from(n),
                "should be less than or equal to 2147483647",
            )]
        }
        Some(_) => ErrorList::new(),
        None => {
            let msg = format!(
                "{json_path} accessor error: {} is of the type {}, expected int64",
                render(v),
                go_type(v)
            );
            vec![FieldError::invalid(&at, Value::from(0), msg)]
        }
    }
}

fn render(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => gojson::render_interface(other),
    }
}
