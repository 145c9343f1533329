//! Networking rules: an Ingress as `ValidateIngressSpec` checks it — rules or a default
//! backend; each backend (`validateIngressBackend`: a service with a DNS-1035 name and a
//! port name or number, or a resource reference, never both); each rule's host (a DNS-1123
//! subdomain, or a wildcard one, not an IP address); each HTTP path's type and, for `Exact`
//! and `Prefix`, an absolute clean path (`validateHTTPIngressPath`); the TLS hosts and secret
//! names; the class name. An IngressClass's controller and an EndpointSlice's address type
//! never change (`validateIngressClassSpecUpdate`, `ValidateEndpointSliceUpdate`).

use super::semantic::{get, immutable_field, is_empty, items, text};
use super::service::port_name_problems;
use crate::error::StatusCause;
use crate::field;
use crate::meta;
use kapi_apiextensions::validation::names::{is_dns1035_label, is_dns1123_subdomain};
use serde_json::{Value, json};

const PATH_TYPES: [&str; 3] = ["Exact", "ImplementationSpecific", "Prefix"];
const INVALID_SEQUENCES: [&str; 5] = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES: [&str; 2] = ["/..", "/."];
const WILDCARD_MSG: &str = "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/// `get` of a field that is present and not `null` (a Go pointer that is set).
fn present<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    get(v, key).filter(|x| !x.is_null())
}

/// One `Invalid` cause per problem, as upstream's `for _, msg := range …` loops add them.
fn invalid_each(causes: &mut Vec<StatusCause>, at: &str, value: &str, problems: Vec<String>) {
    for p in problems {
        causes.push(field::invalid(at, &json!(value), &p));
    }
}

/// `validation.IsWildcardDNS1123Subdomain`: `*.` and a DNS-1123 subdomain, at most 253
/// characters in all.
fn wildcard_subdomain_problems(host: &str) -> Vec<String> {
    let mut out = Vec::new();
    if host.len() > 253 {
        out.push("must be no more than 253 characters".to_owned());
    }
    let label = |l: &str| {
        !l.is_empty()
            && l.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let valid = host
        .strip_prefix("*.")
        .is_some_and(|rest| rest.split('.').all(label));
    if !valid {
        out.push(WILDCARD_MSG.to_owned());
    }
    out
}

/// Whether `s` is an IP address as `netutils.ParseIPSloppy` reads one: IPv6, or IPv4 whose
/// four decimal parts may have leading zeros.
fn is_ip_sloppy(s: &str) -> bool {
    if s.contains(':') {
        return s.parse::<std::net::Ipv6Addr>().is_ok();
    }
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.trim_start_matches('0').len() <= 3
                && p.parse::<u64>().is_ok_and(|n| n <= 255)
        })
}

/// A host of a rule or of a TLS entry: a wildcard subdomain if it has a `*`, else a
/// DNS-1123 subdomain. Returns whether it is a wildcard host.
fn host_problems(causes: &mut Vec<StatusCause>, at: &str, host: &str) -> bool {
    if host.contains('*') {
        invalid_each(causes, at, host, wildcard_subdomain_problems(host));
        true
    } else {
        invalid_each(causes, at, host, is_dns1123_subdomain(host));
        false
    }
}

/// `IsPathSegmentName`: not `.` or `..`, no `/` or `%`.
fn path_segment_problems(name: &str) -> Vec<String> {
    if name == "." || name == ".." {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(**c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// `validateIngressTypedLocalObjectReference` of a resource backend.
fn resource_reference(r: &Value, at: &str, causes: &mut Vec<StatusCause>) {
    if let Some(group) = present(r, "apiGroup") {
        let group = group.as_str().unwrap_or_default();
        invalid_each(
            causes,
            &format!("{at}.apiGroup"),
            group,
            is_dns1123_subdomain(group),
        );
    }
    for key in ["kind", "name"] {
        let value = text(r, key);
        let path = format!("{at}.{key}");
        if value.is_empty() {
            causes.push(field::required(&path, ""));
        } else {
            invalid_each(causes, &path, value, path_segment_problems(value));
        }
    }
}

/// `validateIngressBackend`: exactly one of a service and a resource; a service has a
/// DNS-1035 name and either a port name or a port number.
fn backend(b: &Value, at: &str) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let none = json!("");
    match (present(b, "resource"), present(b, "service")) {
        (Some(_), Some(_)) => causes.push(field::invalid(
            at,
            &none,
            "cannot set both resource and service backends",
        )),
        (Some(r), None) => resource_reference(r, &format!("{at}.resource"), &mut causes),
        (None, Some(svc)) => {
            let name = text(svc, "name");
            let name_at = format!("{at}.service.name");
            if name.is_empty() {
                causes.push(field::required(&name_at, ""));
            } else {
                invalid_each(&mut causes, &name_at, name, is_dns1035_label(name));
            }
            let port = get(svc, "port").unwrap_or(&Value::Null);
            let port_name = text(port, "name");
            let number = get(port, "number").and_then(Value::as_i64).unwrap_or(0);
            match (!port_name.is_empty(), number != 0) {
                (true, true) => causes.push(field::invalid(
                    at,
                    &none,
                    "cannot set both port name & port number",
                )),
                (true, false) => {
                    for p in port_name_problems(port_name) {
                        let path = format!("{at}.service.port.name");
                        causes.push(field::invalid(&path, &json!(port_name), p));
                    }
                }
                (false, true) => {
                    if !(1..=65535).contains(&number) {
                        causes.push(field::invalid(
                            &format!("{at}.service.port.number"),
                            &json!(number),
                            "must be between 1 and 65535, inclusive",
                        ));
                    }
                }
                (false, false) => {
                    causes.push(field::required(at, "port name or number is required"))
                }
            }
        }
        (None, None) => causes.push(field::invalid(
            at,
            &none,
            "resource or service backend is required",
        )),
    }
    causes
}

/// `ValidateIngressSpec` as kapi checks it: rules or a default backend, the default
/// backend, every rule's host and HTTP paths with their backends, the TLS entries and the
/// class name (in upstream's order).
pub fn validate_ingress(obj: &Value) -> Vec<StatusCause> {
    let null = Value::Null;
    let spec = obj.get("spec").unwrap_or(&null);
    let rules = get(spec, "rules");
    let mut causes = Vec::new();
    let default_backend = present(spec, "defaultBackend");
    if is_empty(rules) && default_backend.is_none() {
        causes.push(field::invalid(
            "spec",
            rules.unwrap_or(&null),
            "either `defaultBackend` or `rules` must be specified",
        ));
    }
    if let Some(b) = default_backend {
        causes.extend(backend(b, "spec.defaultBackend"));
    }
    for (i, rule) in items(spec, "rules").iter().enumerate() {
        let host = text(rule, "host");
        if !host.is_empty() {
            let at = format!("spec.rules[{i}].host");
            if is_ip_sloppy(host) {
                causes.push(field::invalid(
                    &at,
                    &json!(host),
                    "must be a DNS name, not an IP address",
                ));
            }
            host_problems(&mut causes, &at, host);
        }
        let Some(http) = present(rule, "http") else {
            continue;
        };
        let at = format!("spec.rules[{i}].http");
        let paths = items(http, "paths");
        if paths.is_empty() {
            causes.push(field::required(&format!("{at}.paths"), ""));
        }
        for (j, path) in paths.iter().enumerate() {
            causes.extend(http_path(path, &format!("{at}.paths[{j}]")));
        }
    }
    for (t, tls) in items(spec, "tls").iter().enumerate() {
        for (i, host) in items(tls, "hosts").iter().enumerate() {
            let host = host.as_str().unwrap_or_default();
            host_problems(&mut causes, &format!("spec.tls[{t}].hosts[{i}]"), host);
        }
        let secret = text(tls, "secretName");
        if !secret.is_empty() {
            let at = format!("spec.tls[{t}].secretName");
            invalid_each(&mut causes, &at, secret, is_dns1123_subdomain(secret));
        }
    }
    if let Some(class) = present(spec, "ingressClassName") {
        let class = class.as_str().unwrap_or_default();
        let at = "spec.ingressClassName";
        invalid_each(&mut causes, at, class, is_dns1123_subdomain(class));
    }
    causes
}

/// `validateHTTPIngressPath`: its type, its path, then its backend.
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
    let null = Value::Null;
    causes.extend(backend(
        get(path, "backend").unwrap_or(&null),
        &format!("{at}.backend"),
    ));
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

    fn ingress(mut path: Value) -> Value {
        path["backend"] = json!({"service": {"name": "web", "port": {"number": 80}}});
        json!({"spec": {"rules": [{"host": "a.example", "http": {"paths": [path]}}]}})
    }

    fn causes(obj: Value) -> Vec<(String, String, String)> {
        validate_ingress(&obj)
            .into_iter()
            .map(|c| (c.reason, c.field, c.message))
            .collect()
    }

    fn cause(reason: &str, field: &str, message: &str) -> (String, String, String) {
        (reason.into(), field.into(), message.into())
    }

    fn with_default_backend(b: Value) -> Value {
        json!({"spec": {"defaultBackend": b}})
    }

    #[test]
    fn validate_ingress_backend_wants_a_service_or_a_resource() {
        assert_eq!(
            causes(with_default_backend(json!({}))),
            [cause(
                "FieldValueInvalid",
                "spec.defaultBackend",
                "Invalid value: \"\": resource or service backend is required"
            )]
        );
        let both = json!({"service": {"name": "web", "port": {"number": 80}},
            "resource": {"kind": "Bucket", "name": "b"}});
        assert_eq!(
            causes(with_default_backend(both)),
            [cause(
                "FieldValueInvalid",
                "spec.defaultBackend",
                "Invalid value: \"\": cannot set both resource and service backends"
            )]
        );
    }

    #[test]
    fn validate_ingress_backend_checks_the_service_name_and_port() {
        let b = json!({"service": {"name": "1web", "port": {"name": "http", "number": 80}}});
        let got = causes(with_default_backend(b));
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1, "spec.defaultBackend.service.name");
        assert!(
            got[0]
                .2
                .starts_with("Invalid value: \"1web\": a DNS-1035 label must consist")
        );
        assert_eq!(
            got[1],
            cause(
                "FieldValueInvalid",
                "spec.defaultBackend",
                "Invalid value: \"\": cannot set both port name & port number"
            )
        );
        let b = json!({"service": {"port": {"number": 70000}}});
        assert_eq!(
            causes(with_default_backend(b)),
            [
                cause(
                    "FieldValueRequired",
                    "spec.defaultBackend.service.name",
                    "Required value"
                ),
                cause(
                    "FieldValueInvalid",
                    "spec.defaultBackend.service.port.number",
                    "Invalid value: 70000: must be between 1 and 65535, inclusive"
                )
            ]
        );
        let b = json!({"service": {"name": "web"}});
        assert_eq!(
            causes(with_default_backend(b)),
            [cause(
                "FieldValueRequired",
                "spec.defaultBackend",
                "Required value: port name or number is required"
            )]
        );
        let b = json!({"service": {"name": "web", "port": {"name": "HTTP"}}});
        assert_eq!(
            causes(with_default_backend(b))[0].1,
            "spec.defaultBackend.service.port.name"
        );
    }

    #[test]
    fn validate_ingress_backend_checks_a_resource_reference() {
        let b = json!({"resource": {"apiGroup": "Example.com", "name": "a/b"}});
        let got = causes(with_default_backend(b));
        assert_eq!(
            got.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(),
            [
                "spec.defaultBackend.resource.apiGroup",
                "spec.defaultBackend.resource.kind",
                "spec.defaultBackend.resource.name"
            ]
        );
        assert_eq!(got[1].2, "Required value");
        assert_eq!(got[2].2, "Invalid value: \"a/b\": may not contain '/'");
    }

    #[test]
    fn an_http_path_without_a_backend_is_invalid() {
        let obj = json!({"spec": {"rules": [{"http": {"paths": [{"path": "/", "pathType": "Prefix"}]}}]}});
        assert_eq!(
            causes(obj),
            [cause(
                "FieldValueInvalid",
                "spec.rules[0].http.paths[0].backend",
                "Invalid value: \"\": resource or service backend is required"
            )]
        );
    }

    #[test]
    fn validate_ingress_rules_host_is_a_dns_name_not_an_ip() {
        let rule = |host: &str| {
            let mut obj = ingress(json!({"path": "/", "pathType": "Prefix"}));
            obj["spec"]["rules"][0]["host"] = json!(host);
            causes(obj)
        };
        assert_eq!(
            rule("10.0.0.1"),
            [cause(
                "FieldValueInvalid",
                "spec.rules[0].host",
                "Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address"
            )]
        );
        let got = rule("Foo.example");
        assert_eq!(got.len(), 1);
        assert!(got[0].2.contains("a lowercase RFC 1123 subdomain"));
        assert_eq!(rule("*.example.com"), []);
        let got = rule("*.*.example.com");
        assert_eq!(got.len(), 1);
        assert!(got[0].2.starts_with(
            "Invalid value: \"*.*.example.com\": a wildcard DNS-1123 subdomain must start with '*.'"
        ));
        assert!(got[0].2.ends_with("(e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
        assert_eq!(rule("::1").len(), 2);
    }

    #[test]
    fn validate_ingress_tls_checks_hosts_and_secret_names() {
        let obj = json!({"spec": {
            "defaultBackend": {"service": {"name": "web", "port": {"number": 80}}},
            "tls": [{"hosts": ["a.example", "*.b.example", "c_d"], "secretName": "Bad"}],
            "ingressClassName": "nginx"}});
        let got = causes(obj);
        assert_eq!(
            got.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(),
            ["spec.tls[0].hosts[2]", "spec.tls[0].secretName"]
        );
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
