//! Networking rules: an Ingress names rules or a default backend, and each HTTP path has a
//! path type and, for `Exact` and `Prefix`, an absolute clean path (`ValidateIngressSpec`,
//! `validateHTTPIngressPath`); an IngressClass's controller and an EndpointSlice's address
//! type never change (`validateIngressClassSpecUpdate`, `ValidateEndpointSliceUpdate`).

use super::semantic::{get, immutable_field, is_empty};
use crate::error::StatusCause;
use crate::field;
use crate::meta;
use serde_json::Value;

const PATH_TYPES: [&str; 3] = ["Exact", "ImplementationSpecific", "Prefix"];
const INVALID_SEQUENCES: [&str; 5] = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES: [&str; 2] = ["/..", "/."];

/// The spec rules of `ValidateIngressSpec` kapi checks: rules or a default backend, and
/// every HTTP path of every rule.
pub fn validate_ingress(obj: &Value) -> Vec<StatusCause> {
    let null = Value::Null;
    let spec = obj.get("spec").unwrap_or(&null);
    let rules = get(spec, "rules");
    let mut causes = Vec::new();
    if is_empty(rules) && get(spec, "defaultBackend").is_none_or(Value::is_null) {
        causes.push(field::invalid(
            "spec",
            rules.unwrap_or(&null),
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    let rules = rules
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, rule) in rules.iter().enumerate() {
        let Some(http) = get(rule, "http").filter(|h| !h.is_null()) else {
            continue;
        };
        let at = format!("spec.rules[{i}].http");
        let paths = get(http, "paths")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        if paths.is_empty() {
            causes.push(field::required(&format!("{at}.paths"), ""));
        }
        for (j, path) in paths.iter().enumerate() {
            causes.extend(http_path(path, &format!("{at}.paths[{j}]")));
        }
    }
    causes
}

/// `validateHTTPIngressPath` without its backend checks.
fn http_path(path: &Value, at: &str) -> Vec<StatusCause> {
    let Some(path_type) = get(path, "pathType").filter(|t| !t.is_null()) else {
        return vec![field::required(
            &format!("{at}.pathType"),
            "pathType must be specified",
        )];
    };
    let text = get(path, "path")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let value = Value::from(text);
    let path_at = format!("{at}.path");
    let mut causes = Vec::new();
    match path_type.as_str().unwrap_or_default() {
        "Exact" | "Prefix" => {
            if !text.starts_with('/') {
                causes.push(field::invalid(&path_at, &value, "must be an absolute path"));
            }
            for seq in INVALID_SEQUENCES.iter().filter(|s| text.contains(**s)) {
                causes.push(field::invalid(
                    &path_at,
                    &value,
                    &format!("must not contain '{seq}'"),
                ));
            }
            for suffix in INVALID_SUFFIXES.iter().filter(|s| text.ends_with(**s)) {
                causes.push(field::invalid(
                    &path_at,
                    &value,
                    &format!("cannot end with '{suffix}'"),
                ));
            }
        }
        "ImplementationSpecific" => {
            if !text.is_empty() && !text.starts_with('/') {
                causes.push(field::invalid(&path_at, &value, "must be an absolute path"));
            }
        }
        _ => causes.push(field::not_supported(
            &format!("{at}.pathType"),
            path_type,
            &PATH_TYPES,
        )),
    }
    causes
}

/// An IngressClass's `spec.controller` is immutable.
pub fn validate_ingress_class_update(new: &Value, old: &Value) -> Option<StatusCause> {
    fn controller(o: &Value) -> Option<&Value> {
        meta::nested(o, &["spec", "controller"])
    }
    immutable_field("spec.controller", controller(new), controller(old))
}

/// An EndpointSlice's `addressType` is immutable.
pub fn validate_endpoint_slice_update(new: &Value, old: &Value) -> Option<StatusCause> {
    immutable_field(
        "addressType",
        get(new, "addressType"),
        get(old, "addressType"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ingress(path: Value) -> Value {
        json!({"spec": {"rules": [{"host": "a.example", "http": {"paths": [path]}}]}})
    }

    #[test]
    fn validate_http_ingress_path_wants_an_absolute_prefix() {
        let causes = validate_ingress(&ingress(json!({"path": "foo", "pathType": "Prefix"})));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.rules[0].http.paths[0].path");
        assert_eq!(
            causes[0].message,
            "Invalid value: \"foo\": must be an absolute path"
        );
        assert!(
            validate_ingress(&ingress(json!({"path": "/foo", "pathType": "Exact"}))).is_empty()
        );
    }

    #[test]
    fn validate_http_ingress_path_refuses_dot_segments() {
        let causes = validate_ingress(&ingress(json!({"path": "/a/../b", "pathType": "Prefix"})));
        assert_eq!(
            causes[0].message,
            "Invalid value: \"/a/../b\": must not contain '/../'"
        );
    }

    #[test]
    fn validate_http_ingress_path_requires_a_path_type() {
        let causes = validate_ingress(&ingress(json!({"path": "/"})));
        assert_eq!(causes[0].field, "spec.rules[0].http.paths[0].pathType");
        assert_eq!(
            causes[0].message,
            "Required value: pathType must be specified"
        );
    }

    #[test]
    fn validate_ingress_spec_wants_rules_or_a_default_backend() {
        let causes = validate_ingress(&json!({"spec": {}}));
        assert_eq!(
            causes[0].message,
            "Invalid value: null: either `defaultBackend` or `rules` must be specified"
        );
    }

    #[test]
    fn validate_endpoint_slice_update_keeps_the_address_type() {
        let cause = validate_endpoint_slice_update(
            &json!({"addressType": "IPv6"}),
            &json!({"addressType": "IPv4"}),
        );
        assert_eq!(
            cause.map(|c| (c.field, c.message)),
            Some((
                "addressType".into(),
                "Invalid value: \"IPv6\": field is immutable".into()
            ))
        );
    }
}
