//! The strategy of StorageVersionMigration: a status subresource, `spec.resource.resource`
//! required, `spec.resource` immutable, and the status rules the controller relies on
//! (`status.resourceVersion` set once, at most one terminal condition, Running false once
//! terminal, a terminal condition never taken back) (R7.7).

use crate::error::StatusCause;
use crate::strategy::{CreateStrategy, DeleteStrategy, Strategy, UpdateStrategy};
use serde_json::Value;

/// Strategy of `storageversionmigrations.storagemigration.k8s.io`.
#[derive(Debug, Clone, Copy, Default)]
pub struct MigrationStrategy;

fn cause(reason: &str, field: &str, message: String) -> StatusCause {
    StatusCause {
        reason: reason.into(),
        message,
        field: field.into(),
    }
}

fn invalid(field: &str, value: &Value, problem: &str) -> StatusCause {
    cause(
        "FieldValueInvalid",
        field,
        format!("Invalid value: {value}: {problem}"),
    )
}

/// Whether condition `kind` is present with status True.
pub fn condition_true(obj: &Value, kind: &str) -> bool {
    obj["status"]["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == kind && c["status"] == "True")
    })
}

fn validate_status(new: &Value, old: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let conds = &new["status"]["conditions"];
    let (old_rv, new_rv) = (
        old["status"]["resourceVersion"].as_str().unwrap_or(""),
        new["status"]["resourceVersion"].as_str().unwrap_or(""),
    );
    if !new_rv.is_empty() && new_rv.parse::<u64>().is_err() {
        causes.push(invalid(
            "status.resourceVersion",
            &Value::from(new_rv),
            &format!("failed to parse resource version {new_rv:?}"),
        ));
    }
    if !old_rv.is_empty() && old_rv != new_rv {
        causes.push(invalid(
            "status.resourceVersion",
            &Value::from(new_rv),
            "cannot be updated",
        ));
    }
    let [ok, failed, running] = ["Succeeded", "Failed", "Running"].map(|k| condition_true(new, k));
    let rules = [
        (
            ok && failed,
            "Both success and failed conditions cannot be true at the same time",
        ),
        (
            ok && running,
            "Running condition cannot be true when success condition is true",
        ),
        (
            failed && running,
            "Running condition cannot be true when failed condition is true",
        ),
        (
            condition_true(old, "Succeeded") && !ok,
            "Success condition cannot be set to false once it is true",
        ),
        (
            condition_true(old, "Failed") && !failed,
            "Failed condition cannot be set to false once it is true",
        ),
    ];
    for (broken, message) in rules {
        if broken {
            causes.push(invalid("status.conditions", conds, message));
        }
    }
    causes
}

impl CreateStrategy for MigrationStrategy {
    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        let resource = obj["spec"]["resource"]["resource"].as_str().unwrap_or("");
        if resource.is_empty() {
            return vec![cause(
                "FieldValueRequired",
                "spec.resource.resource",
                "Required value: resource is required".into(),
            )];
        }
        Vec::new()
    }
}

impl UpdateStrategy for MigrationStrategy {
    fn validate_update(&self, new: &Value, old: &Value, sub: Option<&str>) -> Vec<StatusCause> {
        if sub == Some("status") {
            return validate_status(new, old);
        }
        let mut causes = self.validate(new);
        if new["spec"]["resource"] != old["spec"]["resource"] {
            causes.push(invalid(
                "spec.resource",
                &new["spec"]["resource"],
                "field is immutable",
            ));
        }
        causes
    }
}

impl DeleteStrategy for MigrationStrategy {}

impl Strategy for MigrationStrategy {
    fn has_status(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn svm(resource: Value, conditions: Value, rv: &str) -> Value {
        json!({"spec": {"resource": resource},
            "status": {"conditions": conditions, "resourceVersion": rv}})
    }

    fn widgets() -> Value {
        json!({"group": "example.com", "resource": "widgets"})
    }

    #[test]
    fn spec_resource_resource_is_required_r7_7() {
        let causes = MigrationStrategy.validate(&svm(json!({"group": "x"}), json!([]), ""));
        assert_eq!(causes[0].field, "spec.resource.resource");
        assert_eq!(causes[0].message, "Required value: resource is required");
    }

    #[test]
    fn spec_resource_is_immutable_r7_7() {
        let old = svm(widgets(), json!([]), "");
        let new = svm(
            json!({"group": "example.com", "resource": "gadgets"}),
            json!([]),
            "",
        );
        let causes = MigrationStrategy.validate_update(&new, &old, None);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "spec.resource");
        assert!(causes[0].message.ends_with("field is immutable"));
    }

    #[test]
    fn status_resource_version_cannot_change_once_set_r7_7() {
        let old = svm(widgets(), json!([]), "10");
        let new = svm(widgets(), json!([]), "11");
        let causes = MigrationStrategy.validate_update(&new, &old, Some("status"));
        assert_eq!(causes[0].field, "status.resourceVersion");
        assert!(causes[0].message.ends_with("cannot be updated"));
    }

    #[test]
    fn succeeded_and_running_cannot_both_be_true() {
        let old = svm(widgets(), json!([]), "");
        let both = json!([{"type": "Running", "status": "True"},
            {"type": "Succeeded", "status": "True"}]);
        let causes =
            MigrationStrategy.validate_update(&svm(widgets(), both, ""), &old, Some("status"));
        assert_eq!(causes.len(), 1);
        assert!(
            causes[0]
                .message
                .contains("Running condition cannot be true")
        );
    }

    #[test]
    fn a_failed_migration_cannot_be_reopened() {
        let old = svm(widgets(), json!([{"type": "Failed", "status": "True"}]), "");
        let reopened = svm(
            widgets(),
            json!([{"type": "Failed", "status": "False"}]),
            "",
        );
        let causes = MigrationStrategy.validate_update(&reopened, &old, Some("status"));
        assert_eq!(
            causes[0].message,
            format!(
                "Invalid value: {}: Failed condition cannot be set to false once it is true",
                reopened["status"]["conditions"]
            )
        );
    }
}
