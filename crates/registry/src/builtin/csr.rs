//! CertificateSigningRequests' `approval` and `status` as upstream's strategies write them:
//! `approval` takes only `status.conditions` (times filled in), `status` keeps the Approved
//! and Denied conditions the approver set; conditions are validated as
//! `ValidateCertificateSigningRequest{Approval,Status}Update` does.

use crate::error::StatusCause;
use crate::field;
use crate::meta;
use crate::strategy::{
    CreateStrategy, DeleteStrategy, GenericStrategy, NameRule, Strategy, UpdateStrategy,
};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Condition types only an approver sets, and only to `True`.
const APPROVAL_TYPES: [&str; 2] = ["Approved", "Denied"];

/// The CSR strategy: the generic rules plus the conditions' rules.
#[derive(Debug, Clone)]
pub struct CsrStrategy(pub GenericStrategy);

fn conditions(obj: &Value) -> Vec<Value> {
    meta::nested(obj, &["status", "conditions"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn ctype(c: &Value) -> &str {
    c.get("type").and_then(Value::as_str).unwrap_or("")
}

fn cstatus(c: &Value) -> &str {
    c.get("status").and_then(Value::as_str).unwrap_or("")
}

fn set_conditions(obj: &mut Value, list: Vec<Value>) {
    let Some(map) = obj.as_object_mut() else {
        return;
    };
    let status = map
        .entry("status")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(s) = status.as_object_mut() {
        s.insert("conditions".into(), Value::Array(list));
    }
}

/// The new conditions with `lastUpdateTime` filled, and `lastTransitionTime` taken from an
/// old condition of the same type and status, else now.
fn with_times(new: Vec<Value>, old: &[Value]) -> Vec<Value> {
    let now = Value::from(meta::now_rfc3339());
    new.into_iter()
        .map(|mut c| {
            let before = old
                .iter()
                .find(|o| ctype(o) == ctype(&c) && cstatus(o) == cstatus(&c))
                .and_then(|o| o.get("lastTransitionTime"))
                .cloned();
            if let Some(map) = c.as_object_mut() {
                if map.get("lastUpdateTime").is_none_or(Value::is_null) {
                    map.insert("lastUpdateTime".into(), now.clone());
                }
                if map.get("lastTransitionTime").is_none_or(Value::is_null) {
                    map.insert(
                        "lastTransitionTime".into(),
                        before.unwrap_or_else(|| now.clone()),
                    );
                }
            }
            c
        })
        .collect()
}

/// Condition rules shared by every CSR write.
fn validate_conditions(new: &Value, old: Option<&Value>) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let list = conditions(new);
    let mut seen = HashSet::new();
    let had_both = old.is_some_and(|o| {
        let c = conditions(o);
        APPROVAL_TYPES
            .iter()
            .all(|t| c.iter().any(|x| ctype(x) == *t))
    });
    let mut approval_seen: Option<&str> = None;
    for (i, c) in list.iter().enumerate() {
        let path = format!("status.conditions[{i}]");
        let t = ctype(c);
        if t.is_empty() {
            causes.push(field::required(&format!("{path}.type"), ""));
        } else if !seen.insert(t) {
            causes.push(field::duplicate(&format!("{path}.type"), &Value::from(t)));
        }
        let s = cstatus(c);
        let allowed: &[&str] = if matches!(t, "Approved" | "Denied" | "Failed") {
            &["True"]
        } else {
            &["False", "True", "Unknown"]
        };
        if s.is_empty() {
            causes.push(field::required(&format!("{path}.status"), ""));
        } else if !allowed.contains(&s) {
            causes.push(field::not_supported(
                &format!("{path}.status"),
                &Value::from(s),
                allowed,
            ));
        }
        if APPROVAL_TYPES.contains(&t) {
            match approval_seen {
                Some(other) if other != t && !had_both => causes.push(field::invalid(
                    &format!("{path}.type"),
                    &Value::from(t),
                    "Approved and Denied conditions are mutually exclusive",
                )),
                _ => approval_seen = Some(t),
            }
        }
    }
    if let Some(o) = old {
        let before = conditions(o);
        for t in ["Approved", "Denied", "Failed"] {
            let count = |l: &[Value]| l.iter().filter(|c| ctype(c) == t).count();
            if count(&list) < count(&before) {
                causes.push(field::forbidden(
                    "status.conditions",
                    &format!(
                        "updates may not remove a condition of type {}",
                        Value::from(t)
                    ),
                ));
            }
        }
    }
    causes
}

impl CreateStrategy for CsrStrategy {
    fn name_rule(&self) -> NameRule {
        self.0.name_rule()
    }

    fn prepare_for_create(&self, obj: &mut Value) {
        self.0.prepare_for_create(obj);
        set_conditions(obj, Vec::new());
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        self.0.validate(obj)
    }
}

impl UpdateStrategy for CsrStrategy {
    fn writes_subresource(&self, sub: &str) -> bool {
        sub == "approval"
    }

    fn prepare_subresource_update(&self, sub: &str, new: &mut Value, old: &Value) -> bool {
        if sub != "approval" {
            return false;
        }
        let list = with_times(conditions(new), &conditions(old));
        let mut merged = old.clone();
        set_conditions(&mut merged, list);
        *new = merged;
        true
    }

    fn prepare_for_update(&self, new: &mut Value, old: &Value, sub: Option<&str>) {
        if sub != Some("status") {
            return;
        }
        // A signer's status write keeps the approver's conditions as they were.
        let before = conditions(old);
        let mut list: Vec<Value> = conditions(new)
            .into_iter()
            .filter(|c| !APPROVAL_TYPES.contains(&ctype(c)))
            .collect();
        list.extend(
            before
                .iter()
                .filter(|c| APPROVAL_TYPES.contains(&ctype(c)))
                .cloned(),
        );
        let list = with_times(list, &before);
        set_conditions(new, list);
    }

    fn validate_update(&self, new: &Value, old: &Value, _sub: Option<&str>) -> Vec<StatusCause> {
        let mut causes = self.0.validate(new);
        causes.extend(validate_conditions(new, Some(old)));
        causes
    }
}

impl DeleteStrategy for CsrStrategy {}

impl Strategy for CsrStrategy {
    fn has_status(&self) -> bool {
        self.0.has_status()
    }

    fn tracks_generation(&self) -> bool {
        self.0.tracks_generation()
    }

    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.0.field_labels(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn csr(conditions: Value) -> Value {
        json!({"metadata": {"name": "c"}, "spec": {"signerName": "example.com/x"},
            "status": {"conditions": conditions}})
    }

    fn strategy() -> CsrStrategy {
        CsrStrategy(GenericStrategy {
            status: true,
            ..GenericStrategy::default()
        })
    }

    #[test]
    fn approval_takes_only_the_conditions_and_stamps_their_times() {
        let old = csr(json!([]));
        let mut new = csr(json!([{"type": "Approved", "status": "True", "reason": "ok"}]));
        new["spec"]["signerName"] = json!("changed");
        assert!(strategy().prepare_subresource_update("approval", &mut new, &old));
        assert_eq!(new["spec"]["signerName"], "example.com/x");
        let c = &new["status"]["conditions"][0];
        assert!(c["lastUpdateTime"].is_string() && c["lastTransitionTime"].is_string());
        assert!(
            strategy()
                .validate_update(&new, &old, Some("approval"))
                .is_empty()
        );
    }

    #[test]
    fn approved_and_denied_together_are_invalid() {
        let new = csr(json!([{"type": "Approved", "status": "True"},
            {"type": "Denied", "status": "True"}]));
        let causes = strategy().validate_update(&new, &csr(json!([])), Some("approval"));
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].field, "status.conditions[1].type");
        assert_eq!(
            causes[0].message,
            "Invalid value: \"Denied\": Approved and Denied conditions are mutually exclusive"
        );
    }

    #[test]
    fn an_approval_may_not_be_removed() {
        let old = csr(json!([{"type": "Approved", "status": "True"}]));
        let causes = strategy().validate_update(&csr(json!([])), &old, Some("approval"));
        assert_eq!(
            causes[0].message,
            "Forbidden: updates may not remove a condition of type \"Approved\""
        );
    }

    #[test]
    fn approved_must_be_true() {
        let new = csr(json!([{"type": "Approved", "status": "False"}]));
        let causes = strategy().validate_update(&new, &csr(json!([])), Some("approval"));
        assert_eq!(
            causes[0].message,
            "Unsupported value: \"False\": supported values: \"True\""
        );
    }

    #[test]
    fn a_status_write_keeps_the_approvers_conditions() {
        let old = csr(
            json!([{"type": "Approved", "status": "True", "lastUpdateTime": "t",
            "lastTransitionTime": "t"}]),
        );
        let mut new = csr(json!([{"type": "Failed", "status": "True"}]));
        strategy().prepare_for_update(&mut new, &old, Some("status"));
        let types: Vec<&str> = new["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["type"].as_str().unwrap())
            .collect();
        assert_eq!(types, ["Failed", "Approved"]);
    }
}
