//! Field errors as kube's `field.Error` words them (`k8s.io/apimachinery/pkg/util/validation/field`):
//! one constructor per error type, each giving the `StatusCause` of a 422 with upstream's
//! reason and message. A bad value is shown as Go shows it: strings quoted, numbers and
//! booleans bare.

use crate::error::StatusCause;
use serde_json::Value;

/// A bad value as `field.Error` renders it: `"text"` for strings, `80` for numbers.
pub fn render(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::String(s) => Value::String(s.clone()).to_string(),
        other => other.to_string(),
    }
}

/// `field.Required`: `Required value` (with the detail after a colon when there is one).
pub fn required(path: &str, detail: &str) -> StatusCause {
    let message = if detail.is_empty() {
        "Required value".to_owned()
    } else {
        format!("Required value: {detail}")
    };
    cause("FieldValueRequired", message, path)
}

/// `field.Invalid`: `Invalid value: <value>: <detail>`.
pub fn invalid(path: &str, value: &Value, detail: &str) -> StatusCause {
    cause(
        "FieldValueInvalid",
        format!("Invalid value: {}: {detail}", render(value)),
        path,
    )
}

/// `field.Forbidden`: `Forbidden: <detail>`.
pub fn forbidden(path: &str, detail: &str) -> StatusCause {
    cause("FieldValueForbidden", format!("Forbidden: {detail}"), path)
}

/// `field.Duplicate`: `Duplicate value: <value>`.
pub fn duplicate(path: &str, value: &Value) -> StatusCause {
    cause(
        "FieldValueDuplicate",
        format!("Duplicate value: {}", render(value)),
        path,
    )
}

/// `field.Duplicate` of a Go struct, which upstream prints with `%#v` (`go_value` is that).
pub fn duplicate_go(path: &str, go_value: &str) -> StatusCause {
    cause(
        "FieldValueDuplicate",
        format!("Duplicate value: {go_value}"),
        path,
    )
}

/// `field.NotSupported`: `Unsupported value: <value>: supported values: "a", "b"`.
pub fn not_supported(path: &str, value: &Value, supported: &[&str]) -> StatusCause {
    let list = supported
        .iter()
        .map(|s| Value::String((*s).to_owned()).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    cause(
        "FieldValueNotSupported",
        format!(
            "Unsupported value: {}: supported values: {list}",
            render(value)
        ),
        path,
    )
}

/// `field.TooLong` of a size in bytes: `Too long: may not be more than <max> bytes`.
pub fn too_long_bytes(path: &str, max: usize) -> StatusCause {
    cause(
        "FieldValueTooLong",
        format!("Too long: may not be more than {max} bytes"),
        path,
    )
}

fn cause(reason: &str, message: String, field: &str) -> StatusCause {
    StatusCause {
        reason: reason.into(),
        message,
        field: field.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_are_quoted_and_numbers_bare() {
        assert_eq!(
            invalid(
                "spec.ports[0].port",
                &json!(0),
                "must be between 1 and 65535, inclusive"
            )
            .message,
            "Invalid value: 0: must be between 1 and 65535, inclusive"
        );
        assert_eq!(
            not_supported("spec.type", &json!("Bad"), &["ClusterIP", "NodePort"]).message,
            "Unsupported value: \"Bad\": supported values: \"ClusterIP\", \"NodePort\""
        );
    }
}
