//! kube-apiserver's checks of a webhook's answer, in its order and words: the review
//! (R4.25), the object count and each converted object (R4.26), then the metadata restored
//! from the original with only labels and annotations taken from the answer (R4.27).

use super::error::{FailureReason, WebhookError, gvk_string};
use kapi_webhook::metadata::restore_metadata;
use kapi_webhook::{ConversionReview, ReviewVersion};
use serde_json::{Map, Value};

const FIND_KIND: &str = "struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }";

/// Go's name for a JSON value's type, as `encoding/json` prints it.
fn go_json_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Array(_) => "array",
        Value::Bool(_) => "bool",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

/// Go's `%T` of a value decoded into `interface{}`.
fn go_type(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "string",
        Value::Number(_) => "float64",
        Value::Array(_) => "[]interface {}",
        Value::Bool(_) => "bool",
        Value::Object(_) => "map[string]interface {}",
        Value::Null => "<nil>",
    }
}

/// The serializer's first step: `couldn't get version/kind; json parse error: …`.
fn parse_body(body: &[u8]) -> Result<Value, String> {
    let prefix = "couldn't get version/kind; json parse error";
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        let first = body.iter().find(|b| !b.is_ascii_whitespace());
        let go = match first {
            None => "unexpected end of JSON input".to_owned(),
            Some(c)
                if !matches!(
                    c,
                    b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
                ) =>
            {
                format!(
                    "invalid character '{}' looking for beginning of value",
                    *c as char
                )
            }
            Some(_) => e.to_string(),
        };
        format!("{prefix}: {go}")
    })?;
    if !matches!(value, Value::Object(_) | Value::Null) {
        return Err(format!(
            "{prefix}: json: cannot unmarshal {} into Go value of type {FIND_KIND}",
            go_json_type(&value)
        ));
    }
    Ok(value)
}

/// Decodes and checks the review; returns its converted objects (R4.25).
pub(crate) fn converted_objects(
    body: &[u8],
    version: ReviewVersion,
    uid: &str,
    gvk: &str,
) -> Result<Vec<Value>, WebhookError> {
    let malformed =
        |cause: String| WebhookError::failed(FailureReason::MalformedResponse, gvk, cause);
    let value = parse_body(body).map_err(malformed)?;
    let review: ConversionReview =
        serde_json::from_value(value).map_err(|e| malformed(e.to_string()))?;
    if version == ReviewVersion::V1 {
        let want = gvk_string(version.api_version(), "ConversionReview");
        let got = gvk_string(&review.api_version, &review.kind);
        if got != want {
            return Err(malformed(format!(
                "expected webhook response of {want}, got {got}"
            )));
        }
    }
    let response = review
        .response
        .ok_or_else(|| malformed("no response provided".into()))?;
    if version == ReviewVersion::V1 && response.uid != uid {
        return Err(malformed(format!(
            "expected response.uid={uid:?}, got {:?}",
            response.uid
        )));
    }
    if !response.is_success() {
        let message = if response.result.message.is_empty() {
            format!(
                "response.result.status was '{}', not 'Success'",
                response.result.status
            )
        } else {
            response.result.message
        };
        return Err(malformed(message));
    }
    Ok(response.converted_objects.unwrap_or_default())
}

/// How upstream words a bad object: a single object, or a list item (R4.26).
#[derive(Clone, Copy)]
pub(crate) enum Wording {
    /// One object was converted (`returned invalid object…`).
    Single,
    /// A list was converted (`returned invalid converted object at index N…`).
    List,
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    path.iter()
        .try_fold(v, |v, k| v.get(k))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// Checks one converted object against its original and restores the metadata (R4.26,
/// R4.27). `index` is the position among the objects sent.
pub(crate) fn check_object(
    original: &Value,
    mut converted: Value,
    target: &str,
    gvk: &str,
    wording: Wording,
    index: usize,
) -> Result<Value, WebhookError> {
    let invalid = |cause: String| {
        let message = match wording {
            Wording::Single => {
                format!("conversion webhook for {gvk} returned invalid object at index 0: {cause}")
            }
            // Upstream increments its index before these checks, so they name index + 1.
            Wording::List => format!(
                "conversion webhook for {gvk} returned invalid converted object at index {}: {cause}",
                index + 1
            ),
        };
        WebhookError::new(FailureReason::InvalidConvertedObject, message)
    };
    if !converted.is_object() {
        return Err(WebhookError::new(
            FailureReason::InvalidConvertedObject,
            format!(
                "conversion webhook for {gvk} returned invalid converted object at index {index}: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                go_json_type(&converted)
            ),
        ));
    }
    let got_gv = str_at(&converted, &["apiVersion"]);
    if got_gv != target {
        return Err(invalid(format!(
            "invalid groupVersion (expected {target}, received {got_gv})"
        )));
    }
    let (want_kind, got_kind) = (str_at(original, &["kind"]), str_at(&converted, &["kind"]));
    if want_kind != got_kind {
        return Err(invalid(format!(
            "invalid kind (expected {want_kind}, received {got_kind})"
        )));
    }
    validate_converted(original, &converted).map_err(|cause| {
        let message = match wording {
            Wording::Single => format!("conversion webhook for {gvk} returned invalid object: {cause}"),
            Wording::List => format!(
                "conversion webhook for {gvk} returned invalid converted object at index {}: {cause}",
                index + 1
            ),
        };
        WebhookError::new(FailureReason::InvalidConvertedObject, message)
    })?;
    let metadata = restore(original, &converted).map_err(|cause| {
        let message = match wording {
            Wording::Single => format!("conversion webhook for {gvk} returned invalid metadata: {cause}"),
            Wording::List => format!(
                "conversion webhook for {gvk} returned invalid metadata in object at index {}: {cause}",
                index + 1
            ),
        };
        WebhookError::new(FailureReason::InvalidConvertedObject, message)
    })?;
    if let Value::Object(map) = &mut converted {
        map.insert("metadata".into(), Value::Object(metadata));
    }
    Ok(converted)
}

/// `validateConvertedObject`: the same kind, name, namespace and UID.
fn validate_converted(original: &Value, converted: &Value) -> Result<(), String> {
    for (field, path) in [
        ("kind", &["kind"][..]),
        ("name", &["metadata", "name"][..]),
        ("namespace", &["metadata", "namespace"][..]),
        ("UID", &["metadata", "uid"][..]),
    ] {
        let (a, b) = (str_at(original, path), str_at(converted, path));
        if a != b {
            return Err(format!("must have the same {field}: {a} != {b}"));
        }
    }
    Ok(())
}

/// `restoreObjectMeta`: the original metadata, with labels and annotations from the answer.
fn restore(original: &Value, converted: &Value) -> Result<Map<String, Value>, String> {
    let answer = match converted.get("metadata") {
        None => return Err("missing metadata in converted object".into()),
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(format!(
                "invalid metadata of type {} in converted object",
                go_type(other)
            ));
        }
    };
    for field in ["labels", "annotations"] {
        match answer.get(field) {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                if let Some((k, v)) = m.iter().find(|(_, v)| !v.is_string()) {
                    return Err(format!(
                        "metadata.{field}[{k}] must be a string, but is {} in converted object",
                        go_type(v)
                    ));
                }
            }
            Some(other) => {
                return Err(format!(
                    "invalid metadata.{field} of type {} in converted object",
                    go_type(other)
                ));
            }
        }
    }
    let original = original
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    restore_metadata(original, Some(answer)).map_err(|e| e.to_string())
}
