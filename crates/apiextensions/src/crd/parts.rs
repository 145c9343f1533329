//! Validation of the smaller parts of a CRD: names, scope, deprecation warnings,
//! subresources, printer columns, conversion and API approval (R5.2–R5.7, R5.14–R5.16,
//! R5.24, R5.25).

use super::Options;
use crate::field::{ErrorList, FieldError, FieldPath};
use crate::validation::names::{is_dns1035_label, is_dns1123_subdomain};
use kapi_api::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceSubresources,
    ServiceReference,
};
use serde_json::Value;

fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

/// A required enum-like string (upstream `validateEnumStrings`).
pub(crate) fn validate_enum(path: &FieldPath, value: &str, accepted: &[&str]) -> ErrorList {
    if value.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    if accepted.contains(&value) {
        return ErrorList::new();
    }
    let supported: Vec<String> = accepted.iter().map(|a| a.to_string()).collect();
    vec![FieldError::not_supported(path, s(value), &supported)]
}

/// Names that are required in `spec.names` (not in `status.acceptedNames`).
pub(crate) fn validate_required_names(
    n: &CustomResourceDefinitionNames,
    path: &FieldPath,
) -> ErrorList {
    [
        ("plural", &n.plural),
        ("singular", &n.singular),
        ("kind", &n.kind),
        ("listKind", &n.list_kind),
    ]
    .into_iter()
    .filter(|(_, v)| v.is_empty())
    .map(|(k, _)| FieldError::required(&path.child(k), ""))
    .collect()
}

fn dns1035(path: &FieldPath, value: &str, mixed_case: bool) -> Option<FieldError> {
    let checked = if mixed_case {
        value.to_lowercase()
    } else {
        value.to_string()
    };
    let problems = is_dns1035_label(&checked);
    if value.is_empty() || problems.is_empty() {
        return None;
    }
    let detail = if mixed_case {
        format!(
            "may have mixed case, but should otherwise match: {}",
            problems.join(",")
        )
    } else {
        problems.join(",")
    };
    Some(FieldError::invalid(path, s(value), detail))
}

/// `ValidateCustomResourceDefinitionNames` (R5.4).
pub(crate) fn validate_names(n: &CustomResourceDefinitionNames, path: &FieldPath) -> ErrorList {
    let mut errs: ErrorList = [
        dns1035(&path.child("plural"), &n.plural, false),
        dns1035(&path.child("singular"), &n.singular, false),
        dns1035(&path.child("kind"), &n.kind, true),
        dns1035(&path.child("listKind"), &n.list_kind, true),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (i, short) in n.short_names.iter().enumerate() {
        let problems = is_dns1035_label(short);
        if !problems.is_empty() {
            errs.push(FieldError::invalid(
                &path.child("shortNames").index(i),
                s(short),
                problems.join(","),
            ));
        }
    }
    if !n.kind.is_empty() && n.kind == n.list_kind {
        errs.push(FieldError::invalid(
            &path.child("listKind"),
            s(&n.list_kind),
            "kind and listKind may not be the same",
        ));
    }
    for (i, c) in n.categories.iter().enumerate() {
        let problems = is_dns1035_label(c);
        if !problems.is_empty() {
            errs.push(FieldError::invalid(
                &path.child("categories").index(i),
                s(c),
                problems.join(","),
            ));
        }
    }
    errs
}

/// `deprecationWarning` rules (R5.7).
pub(crate) fn validate_deprecation_warning(
    v: &CustomResourceDefinitionVersion,
    path: &FieldPath,
) -> ErrorList {
    let Some(w) = &v.deprecation_warning else {
        return ErrorList::new();
    };
    let at = path.child("deprecationWarning");
    let mut problems = Vec::new();
    if !v.deprecated {
        problems.push("can only be set for deprecated versions".to_string());
    } else {
        if w.len() > 256 {
            problems.push("must be <= 256 characters long".to_string());
        }
        if w.is_empty() {
            problems.push("must not be an empty string".to_string());
        }
        if let Some((i, _)) = w.char_indices().find(|(_, c)| c.is_control()) {
            problems.push(format!(
                "must only contain printable UTF-8 characters; control character found at index {i}"
            ));
        }
    }
    problems
        .into_iter()
        .map(|p| FieldError::invalid(&at, s(w), p))
        .collect()
}

fn validate_simple_json_path(p: &str, path: &FieldPath) -> ErrorList {
    if p.is_empty() {
        vec![FieldError::invalid(path, s(p), "must not be empty")]
    } else if !p.starts_with('.') {
        vec![FieldError::invalid(
            path,
            s(p),
            "must be a simple json path starting with .",
        )]
    } else {
        ErrorList::new()
    }
}

fn scale_path(p: &str, prefixes: &[&str], path: &FieldPath, detail: &str, errs: &mut ErrorList) {
    let before = errs.len();
    errs.extend(validate_simple_json_path(p, path));
    if errs.len() == before && !prefixes.iter().any(|pre| p.starts_with(pre)) {
        errs.push(FieldError::invalid(path, s(p), detail));
    }
}

/// `ValidateCustomResourceDefinitionSubresources` (R5.24).
pub(crate) fn validate_subresources(
    sub: Option<&CustomResourceSubresources>,
    path: &FieldPath,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(scale) = sub.and_then(|s| s.scale.as_ref()) else {
        return errs;
    };
    let spec_at = path.child("scale.specReplicasPath");
    if scale.spec_replicas_path.is_empty() {
        errs.push(FieldError::required(&spec_at, ""));
    } else {
        scale_path(
            &scale.spec_replicas_path,
            &[".spec."],
            &spec_at,
            "should be a json path under .spec",
            &mut errs,
        );
    }
    let status_at = path.child("scale.statusReplicasPath");
    if scale.status_replicas_path.is_empty() {
        errs.push(FieldError::required(&status_at, ""));
    } else {
        scale_path(
            &scale.status_replicas_path,
            &[".status."],
            &status_at,
            "should be a json path under .status",
            &mut errs,
        );
    }
    if let Some(sel) = scale
        .label_selector_path
        .as_deref()
        .filter(|p| !p.is_empty())
    {
        let at = path.child("scale.labelSelectorPath");
        scale_path(
            sel,
            &[".spec.", ".status."],
            &at,
            "should be a json path under either .spec or .status",
            &mut errs,
        );
    }
    errs
}

const COLUMN_TYPES: [&str; 5] = ["boolean", "date", "integer", "number", "string"];
const COLUMN_FORMATS: [&str; 8] = [
    "byte",
    "date",
    "date-time",
    "double",
    "float",
    "int32",
    "int64",
    "password",
];

/// `ValidateCustomResourceColumnDefinition` (R5.25).
pub(crate) fn validate_column(c: &CustomResourceColumnDefinition, path: &FieldPath) -> ErrorList {
    let mut errs = ErrorList::new();
    if c.name.is_empty() {
        errs.push(FieldError::required(&path.child("name"), ""));
    }
    let types = format!("must be one of {}", COLUMN_TYPES.join(","));
    if c.r#type.is_empty() {
        errs.push(FieldError::required(&path.child("type"), types));
    } else if !COLUMN_TYPES.contains(&c.r#type.as_str()) {
        errs.push(FieldError::invalid(
            &path.child("type"),
            s(&c.r#type),
            types,
        ));
    }
    if !c.format.is_empty() && !COLUMN_FORMATS.contains(&c.format.as_str()) {
        errs.push(FieldError::invalid(
            &path.child("format"),
            s(&c.format),
            format!("must be one of {}", COLUMN_FORMATS.join(",")),
        ));
    }
    if c.json_path.is_empty() {
        errs.push(FieldError::required(&path.child("JSONPath"), ""));
    } else {
        errs.extend(validate_simple_json_path(
            &c.json_path,
            &path.child("JSONPath"),
        ));
    }
    errs
}

fn validate_review_versions(
    versions: &[String],
    require_recognized: bool,
    path: &FieldPath,
) -> ErrorList {
    if versions.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    let mut errs = ErrorList::new();
    for (i, v) in versions.iter().enumerate() {
        if versions[..i].contains(v) {
            errs.push(FieldError::invalid(
                &path.index(i),
                s(v),
                "duplicate version",
            ));
            continue;
        }
        for p in is_dns1035_label(v) {
            errs.push(FieldError::invalid(&path.index(i), s(v), p));
        }
    }
    if require_recognized && !versions.iter().any(|v| v == "v1" || v == "v1beta1") {
        errs.push(FieldError::invalid(
            path,
            Value::from(versions.to_vec()),
            "must include at least one of v1, v1beta1",
        ));
    }
    errs
}

fn validate_webhook_url(u: &str, path: &FieldPath) -> ErrorList {
    let bad = |d: &str| vec![FieldError::invalid(path, s(u), d)];
    let Some((scheme, rest)) = u.split_once("://") else {
        return bad("host must be specified");
    };
    if scheme != "https" {
        return bad("'https' is the only allowed URL scheme");
    }
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    if host.is_empty() {
        return bad("host must be specified");
    }
    if host.contains('@') {
        return bad("user information is not permitted in the URL");
    }
    if u.contains('#') {
        return bad("fragments are not permitted in the URL");
    }
    if u.contains('?') {
        return bad("query parameters are not permitted in the URL");
    }
    ErrorList::new()
}

fn validate_webhook_service(svc: &ServiceReference, path: &FieldPath) -> ErrorList {
    let mut errs = ErrorList::new();
    if svc.name.is_empty() {
        errs.push(FieldError::required(
            &path.child("name"),
            "service name is required",
        ));
    }
    if svc.namespace.is_empty() {
        errs.push(FieldError::required(
            &path.child("namespace"),
            "service namespace is required",
        ));
    }
    if let Some(port) = svc.port
        && !(1..=65535).contains(&port)
    {
        errs.push(FieldError::invalid(
            &path.child("port"),
            Value::from(port),
            "port is not valid: must be between 1 and 65535, inclusive",
        ));
    }
    if let Some(p) = svc.path.as_deref().filter(|p| !p.is_empty()) {
        let at = path.child("path");
        if !p.starts_with('/') {
            errs.push(FieldError::invalid(&at, s(p), "must start with a '/'"));
        } else if p != "/" {
            let trimmed = p.trim_start_matches('/').trim_end_matches('/');
            for (i, seg) in trimmed.split('/').enumerate() {
                if seg.is_empty() {
                    errs.push(FieldError::invalid(
                        &at,
                        s(p),
                        format!("segment[{i}] may not be empty"),
                    ));
                } else if !is_dns1123_subdomain(seg).is_empty() {
                    errs.push(FieldError::invalid(
                        &at,
                        s(p),
                        format!("segment[{i}]: {}", is_dns1123_subdomain(seg).join(", ")),
                    ));
                }
            }
        }
    }
    errs
}

/// `spec.conversion` (R5.14–R5.16).
pub(crate) fn validate_conversion(
    spec: &CustomResourceDefinitionSpec,
    opts: Options,
    path: &FieldPath,
) -> ErrorList {
    let mut errs = ErrorList::new();
    let Some(c) = &spec.conversion else {
        return errs;
    };
    let cpath = path.child("conversion");
    if c.strategy != "None" && spec.preserve_unknown_fields {
        errs.push(FieldError::invalid(
            &cpath.child("strategy"),
            s(&c.strategy),
            "must be None if spec.preserveUnknownFields is true",
        ));
    }
    errs.extend(validate_enum(
        &cpath.child("strategy"),
        &c.strategy,
        &["None", "Webhook"],
    ));
    let client_config = c.webhook.as_ref().and_then(|w| w.client_config.as_ref());
    let review_versions: &[String] = c
        .webhook
        .as_ref()
        .map_or(&[], |w| &w.conversion_review_versions);
    let cc_path = cpath.child("webhookClientConfig");
    if c.strategy == "Webhook" {
        match client_config {
            None => errs.push(FieldError::required(
                &cc_path,
                "required when strategy is set to Webhook",
            )),
            Some(cc) => match (&cc.url, &cc.service) {
                (Some(u), None) => errs.extend(validate_webhook_url(u, &cc_path.child("url"))),
                (None, Some(svc)) => {
                    errs.extend(validate_webhook_service(svc, &cc_path.child("service")))
                }
                _ => errs.push(FieldError::required(
                    &cc_path,
                    "exactly one of url or service is required",
                )),
            },
        }
        errs.extend(validate_review_versions(
            review_versions,
            opts.require_recognized_conversion_review_version,
            &cpath.child("conversionReviewVersions"),
        ));
    } else {
        if client_config.is_some() {
            errs.push(FieldError::forbidden(
                &cc_path,
                "should not be set when strategy is not set to Webhook",
            ));
        }
        if !review_versions.is_empty() {
            errs.push(FieldError::forbidden(
                &cpath.child("conversionReviewVersions"),
                "should not be set when strategy is not set to Webhook",
            ));
        }
    }
    errs
}

const APPROVAL: &str = "api-approved.kubernetes.io";

#[derive(PartialEq)]
enum Approval {
    Missing,
    Bypassed,
    Approved,
    Invalid,
}

fn approval_state(crd: &CustomResourceDefinition) -> (Approval, String) {
    let a = crd
        .metadata
        .annotations
        .get(APPROVAL)
        .map(String::as_str)
        .unwrap_or("");
    let url_like = a
        .split_once("://")
        .is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty());
    if a.is_empty() {
        (
            Approval::Missing,
            format!(
                "protected groups must have approval annotation \"{APPROVAL}\", see https://github.com/kubernetes/enhancements/pull/1111"
            ),
        )
    } else if a.starts_with("unapproved") {
        (Approval::Bypassed, String::new())
    } else if url_like {
        (Approval::Approved, String::new())
    } else {
        (
            Approval::Invalid,
            format!(
                "protected groups must have approval annotation \"{APPROVAL}\" with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111"
            ),
        )
    }
}

/// Protected groups (`*.k8s.io`, `*.kubernetes.io`) need the approval annotation (R5.2).
pub(crate) fn validate_api_approval(
    crd: &CustomResourceDefinition,
    old: Option<&CustomResourceDefinition>,
) -> ErrorList {
    let g = &crd.spec.group;
    let protected = g == "k8s.io"
        || g.ends_with(".k8s.io")
        || g == "kubernetes.io"
        || g.ends_with(".kubernetes.io");
    if !protected {
        return ErrorList::new();
    }
    let (state, reason) = approval_state(crd);
    if old.is_some_and(|o| approval_state(o).0 == state) {
        return ErrorList::new();
    }
    let at = FieldPath::new("metadata")
        .child("annotations")
        .key(APPROVAL);
    let value = crd
        .metadata
        .annotations
        .get(APPROVAL)
        .cloned()
        .unwrap_or_default();
    match state {
        Approval::Missing => vec![FieldError::required(&at, reason)],
        Approval::Invalid => vec![FieldError::invalid(&at, Value::String(value), reason)],
        Approval::Approved | Approval::Bypassed => ErrorList::new(),
    }
}
