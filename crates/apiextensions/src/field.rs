//! Field errors as k8s.io/apimachinery's `field.Error`: a type, a dotted field path, the bad
//! value and a detail, rendered with exactly the words kube-apiserver uses.

use crate::gojson;
use serde_json::Value;
use std::fmt;

/// A field path such as `spec.versions[0].name` or `metadata.labels[app]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FieldPath(String);

impl FieldPath {
    /// The empty (root) path.
    pub fn root() -> Self {
        Self(String::new())
    }

    /// A path starting at `name`.
    pub fn new(name: &str) -> Self {
        Self(name.to_string())
    }

    /// `path.name` (or `name` at the root).
    pub fn child(&self, name: &str) -> Self {
        if self.0.is_empty() {
            Self(name.to_string())
        } else {
            Self(format!("{}.{}", self.0, name))
        }
    }

    /// `path[i]`.
    pub fn index(&self, i: usize) -> Self {
        Self(format!("{}[{}]", self.0, i))
    }

    /// `path[key]` (map keys, as Go's `Path.Key`).
    pub fn key(&self, key: &str) -> Self {
        Self(format!("{}[{}]", self.0, key))
    }

    /// Whether this is the root path.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The path as text (`<nil>` is used only when rendering an error at the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The kind of a field error; `reason()` is the StatusCause type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorType {
    /// `FieldValueNotFound`.
    NotFound,
    /// `FieldValueRequired`.
    Required,
    /// `FieldValueDuplicate`.
    Duplicate,
    /// `FieldValueInvalid`.
    Invalid,
    /// `FieldValueNotSupported`.
    NotSupported,
    /// `FieldValueForbidden`.
    Forbidden,
    /// `FieldValueTooLong`.
    TooLong,
    /// `FieldValueTooMany`.
    TooMany,
    /// `InternalError`.
    Internal,
    /// `FieldValueTypeInvalid`.
    TypeInvalid,
}

impl ErrorType {
    /// The cause reason (`FieldValueInvalid`, …).
    pub fn reason(self) -> &'static str {
        match self {
            Self::NotFound => "FieldValueNotFound",
            Self::Required => "FieldValueRequired",
            Self::Duplicate => "FieldValueDuplicate",
            Self::Invalid => "FieldValueInvalid",
            Self::NotSupported => "FieldValueNotSupported",
            Self::Forbidden => "FieldValueForbidden",
            Self::TooLong => "FieldValueTooLong",
            Self::TooMany => "FieldValueTooMany",
            Self::Internal => "InternalError",
            Self::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// The words that start the message (`Invalid value`, `Required value`, …).
    pub fn words(self) -> &'static str {
        match self {
            Self::NotFound => "Not found",
            Self::Required => "Required value",
            Self::Duplicate => "Duplicate value",
            Self::Invalid | Self::TypeInvalid => "Invalid value",
            Self::NotSupported => "Unsupported value",
            Self::Forbidden => "Forbidden",
            Self::TooLong => "Too long",
            Self::TooMany => "Too many",
            Self::Internal => "Internal error",
        }
    }

    /// Parses a cause reason as used in a CEL rule's `reason`.
    pub fn from_reason(reason: &str) -> Option<Self> {
        [
            Self::NotFound,
            Self::Required,
            Self::Duplicate,
            Self::Invalid,
            Self::NotSupported,
            Self::Forbidden,
            Self::TooLong,
            Self::TooMany,
            Self::Internal,
            Self::TypeInvalid,
        ]
        .into_iter()
        .find(|t| t.reason() == reason)
    }
}

/// The offending value of a field error.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// Not shown (Go's `omitValue`).
    Omit,
    /// A JSON value, shown as Go shows an `interface{}` (strings quoted, numbers bare, the rest as JSON).
    Json(Value),
    /// Text already rendered (e.g. a Go struct dump).
    Rendered(String),
}

/// One field error (Go's `*field.Error`).
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// What is wrong.
    pub error_type: ErrorType,
    /// Where.
    pub field: FieldPath,
    /// The value, when shown.
    pub bad_value: BadValue,
    /// Extra words after the value.
    pub detail: String,
}

/// A list of field errors, in the order they were found.
pub type ErrorList = Vec<FieldError>;

impl FieldError {
    fn new(
        error_type: ErrorType,
        field: &FieldPath,
        bad_value: BadValue,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            error_type,
            field: field.clone(),
            bad_value,
            detail: detail.into(),
        }
    }

    /// `Invalid value: <v>: <detail>`.
    pub fn invalid(field: &FieldPath, value: Value, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, field, BadValue::Json(value), detail)
    }

    /// `Invalid value` with a pre-rendered value.
    pub fn invalid_rendered(field: &FieldPath, value: String, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, field, BadValue::Rendered(value), detail)
    }

    /// `Invalid value: <detail>` without the value.
    pub fn invalid_omitted(field: &FieldPath, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, field, BadValue::Omit, detail)
    }

    /// `Invalid value: <v>: <detail>` for a type mismatch.
    pub fn type_invalid(field: &FieldPath, value: Value, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::TypeInvalid, field, BadValue::Json(value), detail)
    }

    /// `Required value[: <detail>]`.
    pub fn required(field: &FieldPath, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Required, field, BadValue::Omit, detail)
    }

    /// `Forbidden[: <detail>]`.
    pub fn forbidden(field: &FieldPath, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Forbidden, field, BadValue::Omit, detail)
    }

    /// `Duplicate value: <v>`.
    pub fn duplicate(field: &FieldPath, value: Value) -> Self {
        Self::new(ErrorType::Duplicate, field, BadValue::Json(value), "")
    }

    /// `Unsupported value: <v>: supported values: "a", "b"`.
    pub fn not_supported(field: &FieldPath, value: Value, supported: &[String]) -> Self {
        let detail = if supported.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = supported.iter().map(|s| gojson::quote(s)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(
            ErrorType::NotSupported,
            field,
            BadValue::Json(value),
            detail,
        )
    }

    /// `Too long: may not be more than <n> bytes`.
    pub fn too_long(field: &FieldPath, max: i64) -> Self {
        let detail = if max >= 0 {
            format!(
                "may not be more than {max} {}",
                if max == 1 { "byte" } else { "bytes" }
            )
        } else {
            "value is too long".to_string()
        };
        Self::new(ErrorType::TooLong, field, BadValue::Omit, detail)
    }

    /// `Too many: <actual>: must have at most <max> items`.
    pub fn too_many(field: &FieldPath, actual: i64, max: i64) -> Self {
        let detail = if max >= 0 {
            format!(
                "must have at most {max} {}",
                if max == 1 { "item" } else { "items" }
            )
        } else {
            "has too many items".to_string()
        };
        let value = if actual >= 0 {
            BadValue::Json(Value::from(actual))
        } else {
            BadValue::Omit
        };
        Self::new(ErrorType::TooMany, field, value, detail)
    }

    /// `Internal error: <detail>`.
    pub fn internal(field: &FieldPath, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Internal, field, BadValue::Omit, detail)
    }

    /// The message without the field (Go's `ErrorBody`), as a StatusCause's `message`.
    pub fn body(&self) -> String {
        let mut s = match self.error_type {
            ErrorType::Required
            | ErrorType::Forbidden
            | ErrorType::TooLong
            | ErrorType::Internal => self.error_type.words().to_string(),
            _ => match &self.bad_value {
                BadValue::Omit => self.error_type.words().to_string(),
                BadValue::Json(v) => format!(
                    "{}: {}",
                    self.error_type.words(),
                    gojson::render_interface(v)
                ),
                BadValue::Rendered(r) => format!("{}: {}", self.error_type.words(), r),
            },
        };
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }

    /// The cause's `field`: the path, or `<nil>` at the root (as Go prints a nil path).
    pub fn field_text(&self) -> &str {
        if self.field.is_root() {
            "<nil>"
        } else {
            self.field.as_str()
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field_text(), self.body())
    }
}

impl std::error::Error for FieldError {}

/// Joins errors as Go's aggregate does: one error bare, several in `[a, b]`.
pub fn aggregate_message(errors: &[FieldError]) -> String {
    match errors {
        [one] => one.to_string(),
        many => {
            let parts: Vec<String> = many.iter().map(ToString::to_string).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// The 422 message: `<Kind>.<group> "<name>" is invalid: <errors>`.
pub fn invalid_message(kind: &str, group: &str, name: &str, errors: &[FieldError]) -> String {
    let qualified = if group.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}.{group}")
    };
    format!(
        "{qualified} {} is invalid: {}",
        gojson::quote(name),
        aggregate_message(errors)
    )
}
