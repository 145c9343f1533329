//! The metadata rules kube-apiserver enforces on a webhook's answer (R4.26, R4.27), kept for
//! the author: the original metadata is restored, only labels and annotations are taken from
//! the conversion, and those are validated as kube-apiserver would validate them.

use serde_json::{Map, Value};

/// kube-apiserver's limit on the total size of an object's annotations (keys + values).
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;
const QUALIFIED_NAME_MAX: usize = 63;
const LABEL_VALUE_MAX: usize = 63;
const DNS1123_SUBDOMAIN_MAX: usize = 253;

/// Labels or annotations that kube-apiserver would refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// A label key or value, or an annotation key, is not valid.
    #[error("metadata.{field}: Invalid value: {value:?}: {reason}")]
    Invalid {
        /// `labels` or `annotations`.
        field: &'static str,
        /// The offending key or value.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// Annotations are larger than [`TOTAL_ANNOTATION_SIZE_LIMIT`].
    #[error("metadata.annotations: Too long: must have at most {limit} bytes")]
    AnnotationsTooLarge {
        /// The limit in bytes.
        limit: usize,
    },
}

/// The metadata to answer with: `original`, with `labels` and `annotations` replaced by the
/// converted object's (removed when the conversion has none), validated when they changed.
pub fn restore_metadata(
    mut original: Map<String, Value>,
    converted: Option<&Map<String, Value>>,
) -> Result<Map<String, Value>, MetadataError> {
    for field in ["labels", "annotations"] {
        let new = converted
            .and_then(|m| m.get(field))
            .filter(|v| v.as_object().is_some_and(|o| !o.is_empty()));
        if new == original.get(field) {
            continue;
        }
        match new {
            Some(value) => {
                validate_string_map(field, value)?;
                original.insert(field.to_owned(), value.clone());
            }
            None => {
                original.remove(field);
            }
        }
    }
    Ok(original)
}

fn validate_string_map(field: &'static str, value: &Value) -> Result<(), MetadataError> {
    let Some(map) = value.as_object() else {
        return Ok(());
    };
    let mut total = 0;
    for (key, v) in map {
        let Some(v) = v.as_str() else {
            return Err(invalid(field, key, "must be a string"));
        };
        if field == "labels" {
            check_qualified_name(field, key)?;
            check_label_value(key, v)?;
        } else {
            check_qualified_name(field, &key.to_lowercase())?;
            total += key.len() + v.len();
        }
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        return Err(MetadataError::AnnotationsTooLarge {
            limit: TOTAL_ANNOTATION_SIZE_LIMIT,
        });
    }
    Ok(())
}

fn invalid(field: &'static str, value: &str, reason: &str) -> MetadataError {
    MetadataError::Invalid {
        field,
        value: value.to_owned(),
        reason: reason.to_owned(),
    }
}

/// `prefix/name` or `name`, as apimachinery's `IsQualifiedName`.
fn check_qualified_name(field: &'static str, key: &str) -> Result<(), MetadataError> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(prefix) = prefix
        && !is_dns1123_subdomain(prefix)
    {
        return Err(invalid(
            field,
            key,
            "prefix part must be a lowercase RFC 1123 subdomain",
        ));
    }
    if name.is_empty() || name.len() > QUALIFIED_NAME_MAX || !is_name_part(name) {
        return Err(invalid(
            field,
            key,
            "name part must consist of at most 63 alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ));
    }
    Ok(())
}

fn check_label_value(key: &str, value: &str) -> Result<(), MetadataError> {
    if value.is_empty() || (value.len() <= LABEL_VALUE_MAX && is_name_part(value)) {
        return Ok(());
    }
    Err(invalid(
        "labels",
        &format!("{key}={value}"),
        "a label value must be empty or at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character",
    ))
}

fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_alphanumeric();
    b.first().is_some_and(edge)
        && b.last().is_some_and(edge)
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= DNS1123_SUBDOMAIN_MAX
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
            b.first().is_some_and(edge)
                && b.last().is_some_and(edge)
                && b.iter()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn restore_keeps_original_fields_and_takes_labels_from_conversion() {
        let original = map(json!({"name": "a", "uid": "1", "labels": {"x": "1"}}));
        let converted = map(json!({"name": "b", "uid": "2", "labels": {"y": "2"}}));
        let out = restore_metadata(original, Some(&converted)).unwrap();
        assert_eq!(
            Value::Object(out),
            json!({"name": "a", "uid": "1", "labels": {"y": "2"}})
        );
    }

    #[test]
    fn restore_removes_annotations_the_conversion_dropped() {
        let original = map(json!({"name": "a", "annotations": {"k": "v"}}));
        let out = restore_metadata(original, Some(&Map::new())).unwrap();
        assert_eq!(Value::Object(out), json!({"name": "a"}));
    }

    #[test]
    fn restore_refuses_an_invalid_label_value() {
        let original = map(json!({"name": "a"}));
        let converted = map(json!({"labels": {"k": "not a label"}}));
        let err = restore_metadata(original, Some(&converted)).unwrap_err();
        assert!(err.to_string().contains("metadata.labels"), "{err}");
    }

    #[test]
    fn restore_refuses_a_label_key_with_an_uppercase_prefix() {
        let converted = map(json!({"labels": {"Example.com/k": "v"}}));
        assert!(restore_metadata(Map::new(), Some(&converted)).is_err());
    }

    #[test]
    fn restore_refuses_annotations_over_the_size_limit() {
        let big = "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT);
        let converted = map(json!({"annotations": {"k": big}}));
        let err = restore_metadata(Map::new(), Some(&converted)).unwrap_err();
        assert!(matches!(err, MetadataError::AnnotationsTooLarge { .. }));
    }

    #[test]
    fn restore_leaves_unchanged_invalid_labels_alone() {
        let original = map(json!({"labels": {"k": "already bad"}}));
        let converted = original.clone();
        assert!(restore_metadata(original, Some(&converted)).is_ok());
    }
}
