//! A PriorityClass's value and preemption policy never change (kube's
//! `ValidatePriorityClassUpdate`).

use super::semantic::{get, immutable_field, semantic_eq};
use crate::error::StatusCause;
use crate::field;
use serde_json::Value;

/// `ValidatePriorityClassUpdate`: `value` Forbidden (with upstream's trailing period),
/// `preemptionPolicy` immutable.
pub fn validate_priority_class_update(new: &Value, old: &Value) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    if !semantic_eq(get(new, "value"), get(old, "value")) {
        causes.push(field::forbidden(
            "value",
            "may not be changed in an update.",
        ));
    }
    causes.extend(immutable_field(
        "preemptionPolicy",
        get(new, "preemptionPolicy"),
        get(old, "preemptionPolicy"),
    ));
    causes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validate_priority_class_update_forbids_a_new_value_and_policy() {
        let old = json!({"value": 10, "preemptionPolicy": "PreemptLowerPriority"});
        let new = json!({"value": 20, "preemptionPolicy": "Never"});
        let causes = validate_priority_class_update(&new, &old);
        let got: Vec<(&str, &str)> = causes
            .iter()
            .map(|c| (c.field.as_str(), c.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("value", "Forbidden: may not be changed in an update."),
                (
                    "preemptionPolicy",
                    "Invalid value: \"Never\": field is immutable"
                ),
            ]
        );
    }
}
