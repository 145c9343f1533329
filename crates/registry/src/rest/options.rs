//! Request options, parsed once (kube's `metav1` option kinds through its parameter codec):
//! CreateOptions / UpdateOptions / PatchOptions and ListOptions from query parameters,
//! DeleteOptions from a JSON, YAML or protobuf body or from the query. What does not parse
//! is a 400 (`strconv.ParseInt: parsing "x": invalid syntax`, as Go words it); values that
//! parse but are not allowed are upstream's 422 on the option kind
//! (`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: …`).

use crate::error::{Error, StatusCause};
use kapi_machinery::meta::v1::DeleteOptions as WireDeleteOptions;
use std::collections::BTreeMap;

/// Query parameters, first value of each key.
pub type Params = BTreeMap<String, String>;

/// `fieldValidation`: what a body's unknown and duplicate fields do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FieldValidation {
    /// Dropped silently.
    Ignore,
    /// Dropped, each reported in a `Warning` header (the default).
    #[default]
    Warn,
    /// The request fails with 400.
    Strict,
}

/// The verb whose options are parsed (names the option kind in errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteVerb {
    /// POST.
    Create,
    /// PUT.
    Update,
    /// PATCH.
    Patch,
}

impl WriteVerb {
    fn kind(self) -> &'static str {
        match self {
            Self::Create => "CreateOptions",
            Self::Update => "UpdateOptions",
            Self::Patch => "PatchOptions",
        }
    }
}

/// CreateOptions, UpdateOptions and PatchOptions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// `dryRun=All`: validate and answer, store nothing.
    pub dry_run: bool,
    /// `fieldManager`, when given.
    pub field_manager: Option<String>,
    /// `fieldValidation`.
    pub field_validation: FieldValidation,
    /// `force` (PATCH only; allowed for apply alone).
    pub force: Option<bool>,
}

/// `metav1` is the group of the option kinds.
const META_GROUP: &str = "meta.k8s.io";

fn option_invalid(kind: &str, causes: Vec<StatusCause>) -> Error {
    Error::invalid(META_GROUP, kind, "", causes)
}

fn not_supported(field: &str, value: String, supported: &[&str]) -> StatusCause {
    let supported: Vec<String> = supported.iter().map(|s| format!("\"{s}\"")).collect();
    StatusCause {
        reason: "FieldValueNotSupported".into(),
        message: format!(
            "Unsupported value: {value}: supported values: {}",
            supported.join(", ")
        ),
        field: field.into(),
    }
}

fn go_string_slice(values: &[String]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

/// `dryRun` values: only `All` (R-less: apimachinery's ValidateDryRun).
fn dry_run_cause(values: &[String]) -> Option<StatusCause> {
    (!values.iter().all(|v| v == "All"))
        .then(|| not_supported("dryRun", go_string_slice(values), &["All"]))
}

/// A boolean parameter as Go's `strconv.ParseBool` reads it.
fn parse_bool(key: &str, v: &str) -> Result<bool, Error> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        // A parameter given without a value (`?watch`) means true, as kube's codec reads it.
        "" => Ok(true),
        other => Err(Error::bad_request(format!(
            "strconv.ParseBool: parsing {other:?}: invalid syntax (parameter {key})"
        ))),
    }
}

/// An integer parameter as Go's `strconv.ParseInt` reads it.
fn parse_int(v: &str) -> Result<i64, Error> {
    v.parse::<i64>().map_err(|e| {
        let why = match e.kind() {
            std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                "value out of range"
            }
            _ => "invalid syntax",
        };
        Error::bad_request(format!("strconv.ParseInt: parsing {v:?}: {why}"))
    })
}

impl WriteOptions {
    /// Parses the query parameters of a create, update or patch.
    pub fn from_query(params: &Params, verb: WriteVerb) -> Result<Self, Error> {
        let mut causes = Vec::new();
        let dry_run: Vec<String> = params.get("dryRun").into_iter().cloned().collect();
        causes.extend(dry_run_cause(&dry_run));
        let field_validation = match params.get("fieldValidation").map(String::as_str) {
            None | Some("") | Some("Warn") => FieldValidation::Warn,
            Some("Ignore") => FieldValidation::Ignore,
            Some("Strict") => FieldValidation::Strict,
            Some(other) => {
                causes.push(not_supported(
                    "fieldValidation",
                    format!("{other:?}"),
                    &["", "Ignore", "Strict", "Warn"],
                ));
                FieldValidation::Warn
            }
        };
        let force = match params.get("force") {
            Some(v) if verb == WriteVerb::Patch => Some(parse_bool("force", v)?),
            _ => None,
        };
        let field_manager = params
            .get("fieldManager")
            .filter(|m| !m.is_empty())
            .cloned();
        if let Some(m) = &field_manager
            && m.chars().count() > 128
        {
            causes.push(StatusCause {
                reason: "FieldValueTooLong".into(),
                message: format!(
                    "Too long: may not be more than 128 bytes (value {:?})",
                    m.chars().take(16).collect::<String>()
                ),
                field: "fieldManager".into(),
            });
        }
        if !causes.is_empty() {
            return Err(option_invalid(verb.kind(), causes));
        }
        Ok(Self {
            dry_run: !dry_run.is_empty(),
            field_manager,
            field_validation,
            force,
        })
    }

    /// PatchOptions' rules that depend on the patch type: apply needs `fieldManager`
    /// (R8.19), other patches may not set `force` (422).
    pub fn validate_patch(&self, apply: bool) -> Result<(), Error> {
        let cause = if apply && self.field_manager.is_none() {
            StatusCause {
                reason: "FieldValueRequired".into(),
                message: "Required value: is required for apply patch".into(),
                field: "fieldManager".into(),
            }
        } else if !apply && self.force.is_some() {
            StatusCause {
                reason: "FieldValueForbidden".into(),
                message: "Forbidden: may not be specified for non-apply patch".into(),
                field: "force".into(),
            }
        } else {
            return Ok(());
        };
        Err(option_invalid("PatchOptions", vec![cause]))
    }

    /// Whether apply takes ownership of conflicting fields.
    pub fn forced(&self) -> bool {
        self.force == Some(true)
    }
}

/// How dependents are treated when their owner is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Dependents first, then the owner (`foregroundDeletion` finalizer).
    Foreground,
    /// The owner now, dependents by the garbage collector.
    Background,
    /// Dependents keep living, without the owner reference (`orphan` finalizer).
    Orphan,
}

/// DeleteOptions, as the REST store uses them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// `gracePeriodSeconds`.
    pub grace_period_seconds: Option<i64>,
    /// `preconditions.uid`.
    pub precondition_uid: Option<String>,
    /// `preconditions.resourceVersion`.
    pub precondition_resource_version: Option<String>,
    /// `propagationPolicy`.
    pub propagation: Option<Propagation>,
    /// `orphanDependents` (deprecated; exclusive with `propagationPolicy`).
    pub orphan_dependents: Option<bool>,
    /// `dryRun=All`.
    pub dry_run: bool,
}

/// How a DeleteOptions body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyEncoding {
    /// `application/json`.
    Json,
    /// `application/yaml`.
    Yaml,
    /// `application/vnd.kubernetes.protobuf`.
    Protobuf,
}

impl DeleteOptions {
    /// DeleteOptions of a DELETE: from the body when there is one (JSON, YAML or protobuf,
    /// as kube-apiserver decodes it into `metav1.DeleteOptions`), else from the query.
    pub fn parse(body: &[u8], encoding: BodyEncoding, params: &Params) -> Result<Self, Error> {
        let wire = if body.iter().all(u8::is_ascii_whitespace) {
            Self::wire_from_query(params)?
        } else {
            Self::wire_from_body(body, encoding)?
        };
        Self::from_wire(wire)
    }

    fn wire_from_body(body: &[u8], encoding: BodyEncoding) -> Result<WireDeleteOptions, Error> {
        let bad = |e: String| Error::bad_request(e);
        let wire: WireDeleteOptions = match encoding {
            BodyEncoding::Json => serde_json::from_slice(body).map_err(|e| bad(e.to_string()))?,
            BodyEncoding::Yaml => {
                let text = std::str::from_utf8(body).map_err(|e| bad(e.to_string()))?;
                serde_saphyr::from_str(text).map_err(|e| bad(e.to_string()))?
            }
            BodyEncoding::Protobuf => {
                let envelope = body
                    .strip_prefix(b"k8s\0".as_slice())
                    .ok_or_else(|| bad("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]".into()))?;
                let unknown = kapi_machinery::serializer::protobuf::read_unknown_message(envelope)
                    .map_err(|e| bad(e.to_string()))?;
                let kind = &unknown.kind;
                if !kind.is_empty() && kind != "DeleteOptions" {
                    return Err(bad(format!(
                        "decoded object cannot be converted to DeleteOptions ({kind})"
                    )));
                }
                kapi_machinery::serializer::protobuf::decode_typed_message(&unknown.raw)
                    .map_err(|e| bad(e.to_string()))?
            }
        };
        if !wire.kind.is_empty() && wire.kind != "DeleteOptions" {
            return Err(bad(format!(
                "decoded object cannot be converted to DeleteOptions ({})",
                wire.kind
            )));
        }
        Ok(wire)
    }

    fn wire_from_query(params: &Params) -> Result<WireDeleteOptions, Error> {
        let mut wire = WireDeleteOptions::default();
        if let Some(v) = params.get("gracePeriodSeconds") {
            wire.grace_period_seconds = Some(parse_int(v)?);
        }
        if let Some(v) = params.get("orphanDependents") {
            wire.orphan_dependents = Some(parse_bool("orphanDependents", v)?);
        }
        wire.propagation_policy = params.get("propagationPolicy").cloned();
        wire.dry_run = params.get("dryRun").into_iter().cloned().collect();
        Ok(wire)
    }

    fn from_wire(wire: WireDeleteOptions) -> Result<Self, Error> {
        let mut causes = Vec::new();
        if wire.orphan_dependents.is_some() && wire.propagation_policy.is_some() {
            causes.push(StatusCause {
                reason: "FieldValueInvalid".into(),
                message: format!(
                    "Invalid value: {:?}: orphanDependents and deletionPropagation cannot be both set",
                    wire.propagation_policy.as_deref().unwrap_or("")
                ),
                field: "propagationPolicy".into(),
            });
        }
        let propagation = match wire.propagation_policy.as_deref() {
            None => None,
            Some("Foreground") => Some(Propagation::Foreground),
            Some("Background") => Some(Propagation::Background),
            Some("Orphan") => Some(Propagation::Orphan),
            Some(other) => {
                causes.push(not_supported(
                    "propagationPolicy",
                    format!("{other:?}"),
                    &["Foreground", "Background", "Orphan", "nil"],
                ));
                None
            }
        };
        causes.extend(dry_run_cause(&wire.dry_run));
        if !causes.is_empty() {
            return Err(option_invalid("DeleteOptions", causes));
        }
        let preconditions = wire.preconditions.unwrap_or_default();
        Ok(Self {
            grace_period_seconds: wire.grace_period_seconds,
            precondition_uid: preconditions.uid,
            precondition_resource_version: preconditions.resource_version,
            propagation,
            orphan_dependents: wire.orphan_dependents,
            dry_run: !wire.dry_run.is_empty(),
        })
    }
}

/// ListOptions (also of a watch), from the query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListOptions {
    /// `labelSelector`.
    pub label_selector: String,
    /// `fieldSelector`.
    pub field_selector: String,
    /// `limit` (0: no limit).
    pub limit: i64,
    /// `continue`.
    pub continue_token: String,
    /// `resourceVersion`.
    pub resource_version: String,
    /// `resourceVersionMatch`.
    pub resource_version_match: Option<ResourceVersionMatch>,
    /// `timeoutSeconds`.
    pub timeout_seconds: Option<i64>,
    /// `watch`.
    pub watch: bool,
    /// `allowWatchBookmarks`.
    pub allow_watch_bookmarks: bool,
    /// `sendInitialEvents`.
    pub send_initial_events: Option<bool>,
}

/// `resourceVersionMatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceVersionMatch {
    /// `NotOlderThan`.
    NotOlderThan,
    /// `Exact`.
    Exact,
}

fn forbidden(field: &str, why: &str) -> StatusCause {
    StatusCause {
        reason: "FieldValueForbidden".into(),
        message: format!("Forbidden: {why}"),
        field: field.into(),
    }
}

impl ListOptions {
    /// Parses the query of a list or watch (`watch`: the request is a watch whatever its
    /// query says, e.g. under `/watch/`), with upstream's option validation
    /// (`ListOptions.meta.k8s.io "" is invalid: …`).
    pub fn from_query(params: &Params, watch: bool) -> Result<Self, Error> {
        let int = |k: &str| params.get(k).map(|v| parse_int(v)).transpose();
        let boolean = |k: &str| {
            params
                .get(k)
                .map(|v| parse_bool(k, v))
                .transpose()
                .map(|b| b.unwrap_or(false))
        };
        let send_initial_events = params
            .get("sendInitialEvents")
            .map(|v| parse_bool("sendInitialEvents", v))
            .transpose()?;
        let opts = Self {
            label_selector: params.get("labelSelector").cloned().unwrap_or_default(),
            field_selector: params.get("fieldSelector").cloned().unwrap_or_default(),
            limit: int("limit")?.unwrap_or(0),
            continue_token: params.get("continue").cloned().unwrap_or_default(),
            resource_version: params.get("resourceVersion").cloned().unwrap_or_default(),
            resource_version_match: None,
            timeout_seconds: int("timeoutSeconds")?,
            watch: boolean("watch")? || watch,
            allow_watch_bookmarks: boolean("allowWatchBookmarks")?,
            send_initial_events,
        };
        let mut causes = Vec::new();
        let rv_match = match params.get("resourceVersionMatch").map(String::as_str) {
            None | Some("") => None,
            Some("NotOlderThan") => Some(ResourceVersionMatch::NotOlderThan),
            Some("Exact") => Some(ResourceVersionMatch::Exact),
            Some(other) => {
                causes.push(not_supported(
                    "resourceVersionMatch",
                    format!("{other:?}"),
                    &["Exact", "NotOlderThan", ""],
                ));
                None
            }
        };
        const RVM: &str = "resourceVersionMatch";
        if opts.watch {
            if opts.send_initial_events.is_some()
                && rv_match != Some(ResourceVersionMatch::NotOlderThan)
            {
                causes.push(forbidden(
                    RVM,
                    "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
                ));
            }
            if rv_match.is_some() {
                if opts.send_initial_events.is_none() {
                    causes.push(forbidden(
                        RVM,
                        "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                    ));
                }
                if rv_match != Some(ResourceVersionMatch::NotOlderThan) {
                    causes.push(not_supported(RVM, "\"Exact\"".into(), &["NotOlderThan"]));
                }
            }
        } else {
            if rv_match.is_some() && opts.resource_version.is_empty() {
                causes.push(forbidden(
                    RVM,
                    "resourceVersionMatch is forbidden unless resourceVersion is provided",
                ));
            }
            if rv_match == Some(ResourceVersionMatch::Exact) && opts.resource_version == "0" {
                causes.push(forbidden(
                    RVM,
                    "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
                ));
            }
            if opts.send_initial_events.is_some() {
                causes.push(forbidden(
                    "sendInitialEvents",
                    "sendInitialEvents is forbidden for list",
                ));
            }
        }
        if rv_match.is_some() && !opts.continue_token.is_empty() {
            causes.push(forbidden(
                RVM,
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if !causes.is_empty() {
            return Err(option_invalid("ListOptions", causes));
        }
        Ok(Self {
            resource_version_match: rv_match,
            ..opts
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> Params {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_grace_period_that_is_not_a_number_is_a_bad_request() {
        let e = DeleteOptions::parse(
            b"",
            BodyEncoding::Json,
            &params(&[("gracePeriodSeconds", "soon")]),
        )
        .unwrap_err();
        assert_eq!(
            e,
            Error::bad_request("strconv.ParseInt: parsing \"soon\": invalid syntax")
        );
    }

    #[test]
    fn delete_options_decode_from_a_protobuf_body() {
        use prost::Message;
        let wire = WireDeleteOptions {
            grace_period_seconds: Some(5),
            propagation_policy: Some("Foreground".into()),
            preconditions: Some(kapi_machinery::meta::v1::Preconditions {
                uid: Some("u-1".into()),
                resource_version: None,
            }),
            ..Default::default()
        };
        let raw = wire.encode_to_vec();
        let mut body = b"k8s\0".to_vec();
        kapi_machinery::serializer::protobuf::write_unknown_message(
            "v1",
            "DeleteOptions",
            &raw,
            "",
            "",
            &mut body,
        );
        let opts = DeleteOptions::parse(&body, BodyEncoding::Protobuf, &Params::new()).unwrap();
        assert_eq!(opts.grace_period_seconds, Some(5));
        assert_eq!(opts.propagation, Some(Propagation::Foreground));
        assert_eq!(opts.precondition_uid.as_deref(), Some("u-1"));
    }

    #[test]
    fn an_unknown_propagation_policy_is_invalid() {
        let e = DeleteOptions::parse(
            br#"{"propagationPolicy":"Sideways"}"#,
            BodyEncoding::Json,
            &Params::new(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Sideways\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""
        );
    }

    #[test]
    fn a_dry_run_other_than_all_is_invalid() {
        let e = WriteOptions::from_query(&params(&[("dryRun", "Some")]), WriteVerb::Create)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Some\"}: supported values: \"All\""
        );
    }

    #[test]
    fn apply_without_a_field_manager_is_invalid() {
        let opts = WriteOptions::from_query(&Params::new(), WriteVerb::Patch).unwrap();
        let e = opts.validate_patch(true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
        );
    }

    #[test]
    fn a_limit_that_is_not_a_number_is_a_bad_request() {
        let e = ListOptions::from_query(&params(&[("limit", "ten")]), false).unwrap_err();
        assert!(matches!(e, Error::BadRequest(_)));
    }

    #[test]
    fn exact_match_needs_a_resource_version() {
        let e = ListOptions::from_query(&params(&[("resourceVersionMatch", "Exact")]), false)
            .unwrap_err();
        assert!(matches!(e, Error::Invalid { .. }));
    }
}
