//! Upstream's `apiequality.Semantic.DeepEqual` over the JSON of a versioned object, and
//! `ValidateImmutableField` built on it: the comparisons every update rule makes.

use crate::error::StatusCause;
use crate::field;
use serde_json::{Map, Value};

/// Whether a value is what Go reads as a nil or empty list or map: absent, `null`, `[]`
/// or `{}`.
pub fn is_empty(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        Some(_) => false,
    }
}

/// `Semantic.DeepEqual` of two JSON values: absent, `null`, `[]` and `{}` are all equal, at
/// every depth; numbers compare by value. (Quantities arrive in Go's canonical form from the
/// typed codec, so equal amounts are equal strings.)
pub fn semantic_eq(a: Option<&Value>, b: Option<&Value>) -> bool {
    if is_empty(a) && is_empty(b) {
        return true;
    }
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => x
            .keys()
            .chain(y.keys())
            .all(|k| semantic_eq(x.get(k), y.get(k))),
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| semantic_eq(Some(p), Some(q)))
        }
        (Some(Value::Number(x)), Some(Value::Number(y))) => {
            x == y || x.as_f64().is_some_and(|f| y.as_f64() == Some(f))
        }
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// `ValidateImmutableField`: `<path>: Invalid value: <new>: field is immutable` when the
/// new value differs semantically from the old one (`null` when it was removed).
pub fn immutable_field(
    path: &str,
    new: Option<&Value>,
    old: Option<&Value>,
) -> Option<StatusCause> {
    (!semantic_eq(new, old))
        .then(|| field::invalid(path, new.unwrap_or(&Value::Null), "field is immutable"))
}

/// The value at `key` of an object (`None` for absent keys and non-objects).
pub fn get<'a>(obj: &'a Value, key: &str) -> Option<&'a Value> {
    obj.as_object().and_then(|m| m.get(key))
}

/// The array at `key` of an object; empty when absent or not an array.
pub fn items<'a>(obj: &'a Value, key: &str) -> &'a [Value] {
    get(obj, key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The string at `key` of an object; empty when absent or not a string.
pub fn text<'a>(obj: &'a Value, key: &str) -> &'a str {
    get(obj, key).and_then(Value::as_str).unwrap_or_default()
}

/// Sets `key` of an object to `value`, or removes it when `value` is `None` or `null`; a
/// `null` or absent object becomes `{}` first.
pub fn set(obj: &mut Value, key: &str, value: Option<&Value>) {
    if obj.is_null() {
        *obj = Value::Object(Map::new());
    }
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    match value.filter(|v| !v.is_null()) {
        Some(v) => {
            map.insert(key.to_owned(), v.clone());
        }
        None => {
            map.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_null_and_empty_lists_and_maps_are_semantically_equal() {
        let a = json!({"spec": {"tolerations": [], "nodeSelector": {}}});
        let b = json!({"spec": {"tolerations": null}});
        assert!(semantic_eq(Some(&a), Some(&b)));
        assert!(semantic_eq(None, Some(&json!([]))));
        assert!(!semantic_eq(Some(&json!({"a": 1})), Some(&json!({"a": 2}))));
    }

    #[test]
    fn an_empty_string_is_not_an_absent_one() {
        // A *string set to "" is not nil in Go.
        assert!(!semantic_eq(Some(&json!("")), None));
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(semantic_eq(Some(&json!(1)), Some(&json!(1.0))));
    }

    #[test]
    fn an_immutable_field_shows_the_new_value_or_null() {
        let cause = immutable_field("provisioner", Some(&json!("b")), Some(&json!("a")));
        assert_eq!(
            cause.map(|c| c.message),
            Some("Invalid value: \"b\": field is immutable".to_owned())
        );
        let removed = immutable_field("reclaimPolicy", None, Some(&json!("Retain")));
        assert_eq!(
            removed.map(|c| c.message),
            Some("Invalid value: null: field is immutable".to_owned())
        );
        assert!(immutable_field("x", Some(&json!([])), None).is_none());
    }
}
