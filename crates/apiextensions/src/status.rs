//! Field errors as the client sees them: a 422 `Status` with causes (R6.18, R5.x), and the
//! `unknown field` texts of fieldValidation Warn/Strict (R6.12–R6.14).

use crate::field::{FieldError, invalid_message};
use kapi_machinery::meta::v1::{STATUS_FAILURE, Status, StatusCause, StatusDetails};

/// The 422 Invalid `Status` kube-apiserver answers for `errs` on object `name` of `kind.group`.
pub fn invalid_status(kind: &str, group: &str, name: &str, errs: &[FieldError]) -> Status {
    let causes = errs
        .iter()
        .map(|e| StatusCause {
            reason: e.error_type.reason().to_string(),
            message: e.body(),
            field: e.field_text().to_string(),
        })
        .collect();
    Status {
        kind: "Status".into(),
        api_version: "v1".into(),
        status: STATUS_FAILURE.into(),
        message: invalid_message(kind, group, name, errs),
        reason: "Invalid".into(),
        details: Some(StatusDetails {
            name: name.into(),
            group: group.into(),
            kind: kind.into(),
            causes,
            ..StatusDetails::default()
        }),
        code: 422,
        ..Status::default()
    }
}

/// `unknown field "<path>"` for each pruned path, as Warn sends in `Warning` headers and
/// Strict lists in its 400 message.
pub fn unknown_field_messages(paths: &[String]) -> Vec<String> {
    paths
        .iter()
        .map(|p| format!("unknown field {}", crate::gojson::quote(p)))
        .collect()
}
