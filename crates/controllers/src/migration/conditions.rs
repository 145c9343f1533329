//! Conditions in the `metav1.Condition` shape (type, status, observedGeneration,
//! lastTransitionTime, reason, message) as StorageVersionMigration v1beta1 and the CRD's
//! `StorageMigrating` condition carry them, and the status write that sets them.

use kapi_registry::Error;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use serde_json::{Value, json};

/// One condition to set.
#[derive(Debug, Clone, Copy)]
pub struct Condition<'a> {
    /// `Running`, `Succeeded`, `Failed`, `StorageMigrating`, …
    pub kind: &'a str,
    /// `True` or `False`.
    pub status: &'a str,
    /// CamelCase reason.
    pub reason: &'a str,
    /// Human-readable message.
    pub message: &'a str,
}

/// Sets `cond` in `obj.status.conditions`, keeping lastTransitionTime when the status is
/// unchanged; observedGeneration is the object's generation.
pub fn set(obj: &mut Value, cond: Condition<'_>) {
    let generation = obj["metadata"]["generation"].as_i64().unwrap_or(0);
    let now = kapi_registry::meta::now_rfc3339();
    let mut conds: Vec<Value> = obj["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let since = conds
        .iter()
        .find(|c| c["type"] == cond.kind && c["status"] == cond.status)
        .map_or_else(|| json!(now), |c| c["lastTransitionTime"].clone());
    let fresh = json!({"type": cond.kind, "status": cond.status,
        "observedGeneration": generation, "lastTransitionTime": since,
        "reason": cond.reason, "message": cond.message});
    match conds.iter_mut().find(|c| c["type"] == cond.kind) {
        Some(c) => *c = fresh,
        None => conds.push(fresh),
    }
    if !obj["status"].is_object() {
        obj["status"] = json!({});
    }
    obj["status"]["conditions"] = Value::Array(conds);
}

/// The condition of `kind` in `obj.status.conditions`, if any.
pub fn get<'v>(obj: &'v Value, kind: &str) -> Option<&'v Value> {
    obj["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)
}

/// Writes `change` into the object's status through the `status` subresource (with the
/// resourceVersion read, retried on a lost race; a change that changes nothing writes
/// nothing). Nothing happens when the object is gone.
pub async fn update_status(
    rest: &RestStore<'_>,
    name: &str,
    change: impl Fn(&mut Value) + Send + Sync,
) -> Result<(), Error> {
    let w = WriteContext {
        subresource: Some("status".into()),
        manager: super::MANAGER.into(),
        ..WriteContext::default()
    };
    let mut info = UpdateFn::new(|current: Option<&Value>| {
        let mut obj = current.cloned().unwrap_or_default();
        change(&mut obj);
        Ok(obj)
    });
    match rest.update(&w, name, &mut info).await {
        Ok(_) | Err(Error::NotFound { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUNNING: Condition<'static> = Condition {
        kind: "Running",
        status: "True",
        reason: "MigrationRunning",
        message: "The migration is running",
    };

    #[test]
    fn set_adds_a_condition_with_the_generation_observed() {
        let mut obj = json!({"metadata": {"generation": 3}});
        set(&mut obj, RUNNING);
        let c = get(&obj, "Running").unwrap();
        assert_eq!(c["observedGeneration"], 3);
        assert_eq!(c["reason"], "MigrationRunning");
        assert!(c["lastTransitionTime"].is_string());
    }

    #[test]
    fn set_keeps_the_transition_time_when_the_status_is_unchanged() {
        let mut obj = json!({"status": {"conditions": [{"type": "Running", "status": "True",
            "lastTransitionTime": "2020-01-01T00:00:00Z"}]}});
        set(&mut obj, RUNNING);
        assert_eq!(
            get(&obj, "Running").unwrap()["lastTransitionTime"],
            "2020-01-01T00:00:00Z"
        );
        set(
            &mut obj,
            Condition {
                status: "False",
                ..RUNNING
            },
        );
        assert_ne!(
            get(&obj, "Running").unwrap()["lastTransitionTime"],
            "2020-01-01T00:00:00Z"
        );
        assert_eq!(obj["status"]["conditions"].as_array().unwrap().len(), 1);
    }
}
