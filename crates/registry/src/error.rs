//! The typed errors of the registry layer (kube's `apierrors`, as values): what went wrong,
//! with the names Kubernetes puts into a `Status`. The HTTP edge turns each into a `Status`
//! once (code, reason, message, details), with kube-apiserver's wording (R8.25, R8.26).

use serde::Serialize;

/// One cause of an error (`details.causes[]`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StatusCause {
    /// Machine-readable reason, e.g. `FieldValueInvalid`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Human-readable message.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// The field path, e.g. `metadata.name`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub field: String,
}

/// `details` of a Status.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct StatusDetails {
    /// Object name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// API group.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// Resource (or kind, for Invalid).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Object uid.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// Individual causes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub causes: Vec<StatusCause>,
    /// Seconds to wait before retrying.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u32>,
}

/// `<resource>.<group>`, or `<resource>` for the core group (as in Kubernetes messages).
pub fn qualified_resource(group: &str, resource: &str) -> String {
    if group.is_empty() {
        resource.to_owned()
    } else {
        format!("{resource}.{group}")
    }
}

/// What a registry operation can fail with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// The object does not exist (404 NotFound).
    #[error("{} \"{name}\" not found", qualified_resource(group, resource))]
    NotFound {
        /// API group.
        group: String,
        /// Resource (plural).
        resource: String,
        /// Object name.
        name: String,
    },
    /// The object exists already (409 AlreadyExists).
    #[error("{} \"{name}\" already exists", qualified_resource(group, resource))]
    AlreadyExists {
        /// API group.
        group: String,
        /// Resource (plural).
        resource: String,
        /// Object name.
        name: String,
    },
    /// A write lost against the stored state: a stale resourceVersion, a failed precondition
    /// (409 Conflict). Retried by the guaranteed-update loop when the request named no
    /// resourceVersion.
    #[error(
        "Operation cannot be fulfilled on {} \"{name}\": {message}",
        qualified_resource(group, resource)
    )]
    Conflict {
        /// API group.
        group: String,
        /// Resource (plural).
        resource: String,
        /// Object name.
        name: String,
        /// Why.
        message: String,
    },
    /// Server-side apply found fields owned by other managers (409 Conflict with causes);
    /// never retried.
    #[error("{message}")]
    ApplyConflict {
        /// API group.
        group: String,
        /// Resource (plural).
        resource: String,
        /// Object name.
        name: String,
        /// The whole message (`Apply failed with N conflicts: …`).
        message: String,
        /// One cause per conflicting field.
        causes: Vec<StatusCause>,
    },
    /// The object fails validation (422 Invalid with causes).
    #[error(
        "{} \"{name}\" is invalid: {}",
        qualified_resource(group, kind),
        joined_causes(causes)
    )]
    Invalid {
        /// API group.
        group: String,
        /// Kind.
        kind: String,
        /// Object name.
        name: String,
        /// Field causes.
        causes: Vec<StatusCause>,
    },
    /// 422 Invalid with a message and no details (a JSON patch that does not apply).
    #[error("{0}")]
    Unprocessable(String),
    /// The request is malformed (400 BadRequest).
    #[error("{0}")]
    BadRequest(String),
    /// The request is refused (403 Forbidden).
    #[error(
        "{} \"{name}\" is forbidden: {message}",
        qualified_resource(group, resource)
    )]
    Forbidden {
        /// API group.
        group: String,
        /// Resource (plural).
        resource: String,
        /// Object name.
        name: String,
        /// Why.
        message: String,
    },
    /// The verb is not served (405 MethodNotAllowed).
    #[error("the server does not allow this method on the requested resource")]
    MethodNotAllowed,
    /// The verb is not allowed on this resource right now (405 MethodNotAllowed with the
    /// resource in details, e.g. a create while the CRD is terminating).
    #[error("{message}")]
    MethodNotSupported {
        /// API group.
        group: String,
        /// Resource (plural).
        resource: String,
        /// Why.
        message: String,
    },
    /// No representation the client accepts (406 NotAcceptable).
    #[error("{0}")]
    NotAcceptable(String),
    /// The body's media type is not accepted (415 UnsupportedMediaType).
    #[error("the body of the request was in an unknown format - accepted media types include: {}", accepted.join(", "))]
    UnsupportedMediaType {
        /// Media types accepted.
        accepted: Vec<String>,
    },
    /// The body is over the limit (413 RequestEntityTooLarge).
    #[error("Request entity too large: limit is {0}")]
    TooLarge(usize),
    /// A resourceVersion or continue token older than the history (410 Expired).
    #[error("{message}")]
    Expired {
        /// Message.
        message: String,
        /// `metadata.continue` of the Status: a token to go on listing with (R7.4).
        continue_token: String,
    },
    /// The server did not finish in time, or a resourceVersion is in the future (504).
    #[error("{0}")]
    Timeout(String),
    /// A conversion webhook failed: 500 with its words and no reason (Appendix B.1 of
    /// docs/apiextensions.md).
    #[error("{0}")]
    ConversionFailed(String),
    /// What upstream returns as a plain Go error: 500 with its words and no reason (an
    /// applied configuration that cannot be typed).
    #[error("{0}")]
    Unclassified(String),
    /// The request must wait (429 TooManyRequests): an eviction a disruption budget
    /// refuses, with its causes and when to retry.
    #[error("{message}")]
    TooManyRequests {
        /// Why.
        message: String,
        /// Seconds to wait before retrying (0: none given).
        retry_after_seconds: u32,
        /// Individual causes.
        causes: Vec<StatusCause>,
    },
    /// A Status another component chose (an admission webhook's denial): its code, reason
    /// and message as they are.
    #[error("{message}")]
    Status {
        /// HTTP code.
        code: u16,
        /// Reason (may be empty).
        reason: String,
        /// Message.
        message: String,
        /// Details (the object refused, causes).
        details: Option<Box<StatusDetails>>,
    },
    /// The store or a dependency is unreachable (503 ServiceUnavailable).
    #[error("{0}")]
    Unavailable(String),
    /// Anything else (500 InternalError).
    #[error("Internal error occurred: {0}")]
    Internal(String),
}

/// The causes as `ToAggregate` joins them: `field: message` each, a repeated one only once
/// (the causes themselves keep every repeat).
fn joined_causes(causes: &[StatusCause]) -> String {
    let mut joined: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for c in causes {
        let text = format!("{}: {}", c.field, c.message);
        if seen.insert(text.clone()) {
            joined.push(text);
        }
    }
    if joined.len() == 1 {
        joined.concat()
    } else {
        format!("[{}]", joined.join(", "))
    }
}

/// The registry's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// NotFound of `name` of `resource` in `group`.
    pub fn not_found(group: &str, resource: &str, name: &str) -> Self {
        Self::NotFound {
            group: group.into(),
            resource: resource.into(),
            name: name.into(),
        }
    }

    /// AlreadyExists.
    pub fn already_exists(group: &str, resource: &str, name: &str) -> Self {
        Self::AlreadyExists {
            group: group.into(),
            resource: resource.into(),
            name: name.into(),
        }
    }

    /// Conflict with the given cause text.
    pub fn conflict(group: &str, resource: &str, name: &str, err: &str) -> Self {
        Self::Conflict {
            group: group.into(),
            resource: resource.into(),
            name: name.into(),
            message: err.into(),
        }
    }

    /// Conflict for a stale resourceVersion (R8.13).
    pub fn conflict_modified(group: &str, resource: &str, name: &str) -> Self {
        Self::conflict(
            group,
            resource,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// Invalid with field causes.
    pub fn invalid(group: &str, kind: &str, name: &str, causes: Vec<StatusCause>) -> Self {
        Self::Invalid {
            group: group.into(),
            kind: kind.into(),
            name: name.into(),
            causes,
        }
    }

    /// BadRequest with the given message.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::BadRequest(message.into())
    }

    /// Forbidden: `<resource>.<group> "<name>" is forbidden: <err>`.
    pub fn forbidden(group: &str, resource: &str, name: &str, err: &str) -> Self {
        Self::Forbidden {
            group: group.into(),
            resource: resource.into(),
            name: name.into(),
            message: err.into(),
        }
    }

    /// NotAcceptable listing the representations on offer.
    pub fn not_acceptable(available: &[&str]) -> Self {
        Self::NotAcceptable(format!(
            "406: Not Acceptable\n\nAvailable representations: {}",
            available.join(", ")
        ))
    }

    /// UnsupportedMediaType listing accepted types.
    pub fn unsupported_media_type(accepted: &[&str]) -> Self {
        Self::UnsupportedMediaType {
            accepted: accepted.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Expired (a resourceVersion older than the compacted history).
    pub fn expired(message: impl Into<String>) -> Self {
        Self::Expired {
            message: message.into(),
            continue_token: String::new(),
        }
    }

    /// InternalError wrapping `err`.
    pub fn internal(err: impl std::fmt::Display) -> Self {
        Self::Internal(err.to_string())
    }

    /// ServiceUnavailable.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::Unavailable(message.into())
    }

    /// Whether this is a lost compare-and-swap (retried by the guaranteed-update loop).
    pub fn is_conflict(&self) -> bool {
        matches!(self, Self::Conflict { .. })
    }

    /// Whether this is a NotFound.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }
}

impl From<kapi_storage::StoreError> for Error {
    /// A store error with no object to name (ranges, watches, revisions).
    fn from(e: kapi_storage::StoreError) -> Self {
        store_error(e, "", "", "")
    }
}

/// Maps a store error for the object `name` of `resource` in `group`.
pub fn store_error(e: kapi_storage::StoreError, group: &str, resource: &str, name: &str) -> Error {
    use kapi_storage::StoreError;
    match e {
        StoreError::NotFound { .. } => Error::not_found(group, resource, name),
        StoreError::AlreadyExists { .. } => Error::already_exists(group, resource, name),
        StoreError::Conflict { .. } => Error::conflict_modified(group, resource, name),
        StoreError::Compacted {
            requested,
            compacted,
        } => Error::expired(format!(
            "too old resource version: {requested} ({compacted})"
        )),
        StoreError::FutureRevision { requested, current } => Error::Timeout(format!(
            "Too large resource version: {requested}, current: {current}"
        )),
        StoreError::Unavailable(m) => Error::Unavailable(m),
        other => Error::internal(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_joins_several_causes_in_brackets() {
        let cause = |f: &str| StatusCause {
            reason: "FieldValueRequired".into(),
            message: "Required value".into(),
            field: f.into(),
        };
        let e = Error::invalid("", "ConfigMap", "a", vec![cause("x"), cause("y")]);
        assert_eq!(
            e.to_string(),
            "ConfigMap \"a\" is invalid: [x: Required value, y: Required value]"
        );
    }

    #[test]
    fn invalid_shows_a_repeated_cause_once_in_the_message() {
        let cause = |f: &str| StatusCause {
            reason: "FieldValueRequired".into(),
            message: "Required value".into(),
            field: f.into(),
        };
        let e = Error::invalid("", "Pod", "p", vec![cause("x"), cause("y"), cause("x")]);
        assert_eq!(
            e.to_string(),
            "Pod \"p\" is invalid: [x: Required value, y: Required value]"
        );
        let one = Error::invalid("", "Pod", "p", vec![cause("x"), cause("x")]);
        assert_eq!(one.to_string(), "Pod \"p\" is invalid: x: Required value");
    }

    #[test]
    fn not_found_names_the_qualified_resource() {
        let e = Error::not_found("apps", "deployments", "web");
        assert_eq!(e.to_string(), "deployments.apps \"web\" not found");
        assert!(e.is_not_found());
    }

    #[test]
    fn a_missing_key_is_the_objects_not_found() {
        let e = store_error(
            kapi_storage::StoreError::NotFound { key: b"k".to_vec() },
            "",
            "configmaps",
            "a",
        );
        assert_eq!(e, Error::not_found("", "configmaps", "a"));
    }
}
