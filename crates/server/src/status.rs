//! Errors that reach a client: `metav1.Status` objects with kube-apiserver's reason, code,
//! details and wording (R8.25, R8.26; goldens `error-*.json`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

pub use kapi_registry::error::{StatusCause, StatusDetails, qualified_resource};

/// A Kubernetes API error, rendered as a `Status` object.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// HTTP status code (equals `code`).
    pub code: u16,
    /// `reason`, e.g. `NotFound`; empty for none.
    pub reason: &'static str,
    /// `message`.
    pub message: String,
    /// `details`, if any.
    pub details: Option<Box<StatusDetails>>,
    /// `metadata.continue`: the token to go on listing with after an expired continue
    /// token (R7.4); empty for none.
    pub list_continue: String,
}

/// One of metav1's `StatusReason`s (what another component may pass on); others are
/// dropped.
fn known_reason(reason: &str) -> &'static str {
    const KNOWN: [&str; 18] = [
        "Unauthorized",
        "Forbidden",
        "NotFound",
        "AlreadyExists",
        "Conflict",
        "Gone",
        "Invalid",
        "ServerTimeout",
        "Timeout",
        "TooManyRequests",
        "BadRequest",
        "MethodNotAllowed",
        "NotAcceptable",
        "RequestEntityTooLarge",
        "UnsupportedMediaType",
        "InternalError",
        "Expired",
        "ServiceUnavailable",
    ];
    KNOWN.iter().find(|k| **k == reason).copied().unwrap_or("")
}

fn named_details(group: &str, kind: &str, name: &str) -> Option<Box<StatusDetails>> {
    Some(Box::new(StatusDetails {
        name: name.to_owned(),
        group: group.to_owned(),
        kind: kind.to_owned(),
        ..StatusDetails::default()
    }))
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            reason,
            message: message.into(),
            details: None,
            list_continue: String::new(),
        }
    }

    /// 401 Unauthorized.
    pub fn unauthorized() -> Self {
        Self::new(401, "Unauthorized", "Unauthorized")
    }

    /// 403 Forbidden as `apierrors.NewForbidden` words it: `<resource>[.<group>] ["<name>"]
    /// is forbidden: <err>`, or `forbidden: <err>` without a resource.
    pub fn forbidden(group: &str, resource: &str, name: &str, err: &str) -> Self {
        let qualified = match (resource, group) {
            ("", _) => String::new(),
            (r, "") => r.to_owned(),
            (r, g) => format!("{r}.{g}"),
        };
        let message = match (qualified.as_str(), name) {
            ("", _) => format!("forbidden: {err}"),
            (q, "") => format!("{q} is forbidden: {err}"),
            (q, n) => format!("{q} {n:?} is forbidden: {err}"),
        };
        Self {
            details: named_details(group, resource, name),
            ..Self::new(403, "Forbidden", message)
        }
    }

    /// 400 BadRequest with the given message and no details.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    /// 405 MethodNotAllowed.
    pub fn method_not_allowed() -> Self {
        Self::not_served("the server does not allow this method on the requested resource")
    }

    /// 405 MethodNotAllowed with a message of its own: a part of the API kapi does not
    /// serve (a permanent answer, which clients do not retry as they retry a 503).
    pub fn not_served(message: impl Into<String>) -> Self {
        Self {
            details: Some(Box::default()),
            ..Self::new(405, "MethodNotAllowed", message)
        }
    }

    /// 406 NotAcceptable listing the representations on offer.
    pub fn not_acceptable(available: &[&str]) -> Self {
        let msg = format!(
            "406: Not Acceptable\n\nAvailable representations: {}",
            available.join(", ")
        );
        Self {
            details: Some(Box::default()),
            ..Self::new(406, "NotAcceptable", msg)
        }
    }

    /// 406 NotAcceptable with a custom message (transforms, R3.12).
    pub fn not_acceptable_msg(message: impl Into<String>) -> Self {
        Self {
            details: Some(Box::default()),
            ..Self::new(406, "NotAcceptable", message)
        }
    }

    /// 415 UnsupportedMediaType listing accepted types.
    pub fn unsupported_media_type(accepted: &[&str]) -> Self {
        let msg = format!(
            "the body of the request was in an unknown format - accepted media types include: {}",
            accepted.join(", ")
        );
        Self::new(415, "UnsupportedMediaType", msg)
    }

    /// 413 RequestEntityTooLarge.
    pub fn too_large(limit: usize) -> Self {
        let msg = format!("Request entity too large: limit is {limit}");
        Self::new(413, "RequestEntityTooLarge", msg)
    }

    /// 410 Expired (a resourceVersion older than the compacted history).
    pub fn expired(message: impl Into<String>) -> Self {
        Self::new(410, "Expired", message)
    }

    /// 500 InternalError: `Internal error occurred: <err>`.
    pub fn internal(err: impl std::fmt::Display) -> Self {
        let err = err.to_string();
        Self {
            details: Some(Box::new(StatusDetails {
                causes: vec![StatusCause {
                    reason: String::new(),
                    message: err.clone(),
                    field: String::new(),
                }],
                ..StatusDetails::default()
            })),
            ..Self::new(
                500,
                "InternalError",
                format!("Internal error occurred: {err}"),
            )
        }
    }

    /// The Status object as JSON, in the field order of Go's `metav1.Status`.
    pub fn to_json(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Meta<'a> {
            #[serde(rename = "continue", skip_serializing_if = "str::is_empty")]
            list_continue: &'a str,
        }
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            kind: &'static str,
            api_version: &'static str,
            metadata: Meta<'a>,
            status: &'static str,
            #[serde(skip_serializing_if = "str::is_empty")]
            message: &'a str,
            #[serde(skip_serializing_if = "str::is_empty")]
            reason: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            details: Option<&'a StatusDetails>,
            code: u16,
        }
        let wire = Wire {
            kind: "Status",
            api_version: "v1",
            metadata: Meta {
                list_continue: &self.list_continue,
            },
            status: "Failure",
            message: &self.message,
            reason: self.reason,
            details: self.details.as_deref(),
            code: self.code,
        };
        let mut out = serde_json::to_vec(&wire).unwrap_or_default();
        out.push(b'\n');
        out
    }

    /// The HTTP status code.
    pub fn status_code(&self) -> StatusCode {
        StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (self.status_code(), self.to_json()).into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if let Some(secs) = self.details.as_ref().and_then(|d| d.retry_after_seconds)
            && let Ok(v) = HeaderValue::from_str(&secs.to_string())
        {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
        resp
    }
}

impl From<kapi_registry::Error> for ApiError {
    /// The one place a registry error becomes a `Status`: kube-apiserver's code, reason,
    /// message and details for each kind of failure.
    fn from(e: kapi_registry::Error) -> Self {
        use kapi_registry::Error as E;
        let message = e.to_string();
        match e {
            E::NotFound {
                group,
                resource,
                name,
            } => Self {
                details: named_details(&group, &resource, &name),
                ..Self::new(404, "NotFound", message)
            },
            E::AlreadyExists {
                group,
                resource,
                name,
            } => Self {
                details: named_details(&group, &resource, &name),
                ..Self::new(409, "AlreadyExists", message)
            },
            E::Conflict {
                group,
                resource,
                name,
                ..
            } => Self {
                details: named_details(&group, &resource, &name),
                ..Self::new(409, "Conflict", message)
            },
            E::ApplyConflict {
                group,
                resource,
                name,
                causes,
                ..
            } => {
                let mut details = named_details(&group, &resource, &name).unwrap_or_default();
                details.causes = causes;
                Self {
                    details: Some(details),
                    ..Self::new(409, "Conflict", message)
                }
            }
            E::Invalid {
                group,
                kind,
                name,
                causes,
            } => {
                let mut details = named_details(&group, &kind, &name).unwrap_or_default();
                details.causes = causes;
                Self {
                    details: Some(details),
                    ..Self::new(422, "Invalid", message)
                }
            }
            E::Unprocessable(_) => Self::new(422, "Invalid", message),
            E::BadRequest(_) => Self::new(400, "BadRequest", message),
            E::Forbidden {
                group,
                resource,
                name,
                ..
            } => Self {
                details: named_details(&group, &resource, &name),
                ..Self::new(403, "Forbidden", message)
            },
            E::MethodNotAllowed => Self::method_not_allowed(),
            E::MethodNotSupported {
                group, resource, ..
            } => Self {
                details: named_details(&group, &resource, ""),
                ..Self::new(405, "MethodNotAllowed", message)
            },
            E::NotAcceptable(m) => Self::not_acceptable_msg(m),
            E::UnsupportedMediaType { .. } => Self::new(415, "UnsupportedMediaType", message),
            E::TooLarge(_) => Self::new(413, "RequestEntityTooLarge", message),
            E::Expired {
                message,
                continue_token,
            } => Self {
                list_continue: continue_token,
                ..Self::new(410, "Expired", message)
            },
            E::Timeout(_) => Self::new(504, "Timeout", message),
            E::ConversionFailed(_) | E::Unclassified(_) => Self::new(500, "", message),
            E::Status {
                code,
                reason,
                details,
                ..
            } => Self {
                details,
                ..Self::new(code, known_reason(&reason), message)
            },
            E::TooManyRequests {
                retry_after_seconds,
                causes,
                ..
            } => Self {
                details: Some(Box::new(StatusDetails {
                    causes,
                    retry_after_seconds: (retry_after_seconds > 0).then_some(retry_after_seconds),
                    ..StatusDetails::default()
                })),
                ..Self::new(429, "TooManyRequests", message)
            },
            E::Unavailable(_) => Self::new(503, "ServiceUnavailable", message),
            E::Internal(err) => Self::internal(err),
        }
    }
}
