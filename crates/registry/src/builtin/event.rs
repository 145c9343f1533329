//! Events, served as core/v1 and as events.k8s.io/v1 over one storage (`/registry/events`,
//! stored as core/v1, as kube-apiserver stores them). kube's `ValidateEventCreate` and
//! `ValidateEventUpdate`: every Event passes the legacy rules (its namespace agrees with
//! the object it is about; a new-style Event, one with `eventTime`, names its reporting
//! controller and instance, action and reason); one written through events.k8s.io/v1 is
//! also held to the strict rules (`eventTime` required, `type` Normal or Warning, the
//! deprecated fields unset, a series of at least 2, and on update most fields immutable).
//! Field paths are upstream's, named after the internal type (`message`, `involvedObject`)
//! whichever version the request used.

use crate::error::StatusCause;
use crate::field;
use crate::meta;
use crate::strategy::{
    CreateStrategy, DeleteStrategy, GenericStrategy, NameRule, Strategy, UpdateStrategy,
};
use serde_json::{Value, json};

/// The longest reportingInstance, action and reason (`ReportingInstanceLengthLimit`, …).
const SHORT_LIMIT: usize = 128;
/// The longest message (note) (`NoteLengthLimit`).
const NOTE_LIMIT: usize = 1024;

/// The fields of the internal Event whose JSON names differ between core/v1 and
/// events.k8s.io/v1: (internal path name, core/v1 name, events.k8s.io/v1 name).
const RENAMED: &[(&str, &str, &str)] = &[
    ("involvedObject", "involvedObject", "regarding"),
    ("message", "message", "note"),
    (
        "reportingController",
        "reportingComponent",
        "reportingController",
    ),
    ("source", "source", "deprecatedSource"),
    (
        "firstTimestamp",
        "firstTimestamp",
        "deprecatedFirstTimestamp",
    ),
    ("lastTimestamp", "lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "count", "deprecatedCount"),
];

/// The fields an update through events.k8s.io/v1 may not change, by internal name.
const IMMUTABLE: &[&str] = &[
    "involvedObject",
    "reason",
    "message",
    "source",
    "firstTimestamp",
    "lastTimestamp",
    "count",
    "type",
    "eventTime",
    "action",
    "related",
    "reportingController",
    "reportingInstance",
];

/// The strategy of Events; `structured` for events.k8s.io/v1.
#[derive(Debug, Clone)]
pub struct EventStrategy {
    /// Names, field labels.
    pub generic: GenericStrategy,
    /// Whether requests use events.k8s.io/v1 (the strict rules apply).
    pub structured: bool,
}

/// An Event read by its internal field names, in whichever version it came.
struct View<'a> {
    obj: &'a Value,
    structured: bool,
}

impl<'a> View<'a> {
    fn get(&self, internal: &str) -> Option<&'a Value> {
        let name = RENAMED
            .iter()
            .find(|(i, _, _)| *i == internal)
            .map(|(_, core, structured)| if self.structured { *structured } else { *core })
            .unwrap_or(internal);
        self.obj.get(name).filter(|v| !v.is_null())
    }

    fn str(&self, internal: &str) -> &'a str {
        self.get(internal).and_then(Value::as_str).unwrap_or("")
    }

    /// Whether a time field holds a time (Go's zero time is absent or null).
    fn time_set(&self, internal: &str) -> bool {
        !self.str(internal).is_empty()
    }

    fn namespace(&self) -> &'a str {
        meta::meta_str(self.obj, "namespace")
    }

    fn involved_namespace(&self) -> &'a str {
        self.get("involvedObject")
            .and_then(|o| o.get("namespace"))
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

fn too_long(path: &str, limit: usize) -> StatusCause {
    field::invalid(
        path,
        &json!(""),
        &format!("can have at most {limit} characters"),
    )
}

/// `legacyValidateEvent`: what every Event must satisfy.
fn legacy(ev: &View) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    let (ns, involved) = (ev.namespace(), ev.involved_namespace());
    let mismatch = || {
        field::invalid(
            "involvedObject.namespace",
            &json!(involved),
            "does not match event.namespace",
        )
    };
    if !ev.time_set("eventTime") {
        let agrees = if involved.is_empty() {
            ns.is_empty() || ns == "default"
        } else {
            ns == involved
        };
        if !agrees {
            causes.push(mismatch());
        }
        return causes;
    }
    if involved.is_empty() && ns != "default" && ns != "kube-system" {
        causes.push(mismatch());
    }
    let controller = ev.str("reportingController");
    if controller.is_empty() {
        causes.push(field::required("reportingController", ""));
    }
    for problem in crate::strategy::qualified_name_problems(controller) {
        causes.push(field::invalid(
            "reportingController",
            &json!(controller),
            &problem,
        ));
    }
    for (name, limit) in [
        ("reportingInstance", SHORT_LIMIT),
        ("action", SHORT_LIMIT),
        ("reason", SHORT_LIMIT),
    ] {
        let value = ev.str(name);
        if value.is_empty() {
            causes.push(field::required(name, ""));
        }
        if value.len() > limit {
            causes.push(too_long(name, limit));
        }
    }
    if ev.str("message").len() > NOTE_LIMIT {
        causes.push(too_long("message", NOTE_LIMIT));
    }
    causes
}

/// `validateV1EventSeries`.
fn series(ev: &View) -> Vec<StatusCause> {
    let mut causes = Vec::new();
    if let Some(series) = ev.get("series") {
        if series.get("count").and_then(Value::as_i64).unwrap_or(0) < 2 {
            causes.push(field::invalid(
                "series.count",
                &json!(""),
                "should be at least 2",
            ));
        }
        let observed = series.get("lastObservedTime").and_then(Value::as_str);
        if observed.is_none_or(str::is_empty) {
            causes.push(field::required("series.lastObservedTime", ""));
        }
    }
    causes
}

/// The strict rules of a create through events.k8s.io/v1.
fn strict_create(ev: &View) -> Vec<StatusCause> {
    let mut causes = series(ev);
    if !ev.time_set("eventTime") {
        causes.push(field::required("eventTime", ""));
    }
    let ty = ev.str("type");
    if ty != "Normal" && ty != "Warning" {
        causes.push(field::invalid(
            "type",
            &json!(""),
            &format!("has invalid value: {ty}"),
        ));
    }
    for name in ["firstTimestamp", "lastTimestamp"] {
        if ev.time_set(name) {
            causes.push(field::invalid(name, &json!(""), "needs to be unset"));
        }
    }
    if ev.get("count").and_then(Value::as_i64).unwrap_or(0) != 0 {
        causes.push(field::invalid("count", &json!(""), "needs to be unset"));
    }
    let source = ev.get("source");
    let part = |k: &str| {
        source
            .and_then(|s| s.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    if !part("component").is_empty() || !part("host").is_empty() {
        causes.push(field::invalid("source", &json!(""), "needs to be unset"));
    }
    causes
}

impl EventStrategy {
    fn view<'a>(&self, obj: &'a Value) -> View<'a> {
        View {
            obj,
            structured: self.structured,
        }
    }
}

impl CreateStrategy for EventStrategy {
    fn name_rule(&self) -> NameRule {
        self.generic.name_rule()
    }

    fn validate(&self, obj: &Value) -> Vec<StatusCause> {
        let ev = self.view(obj);
        let mut causes = legacy(&ev);
        if self.structured {
            causes.extend(strict_create(&ev));
        }
        causes
    }
}

impl UpdateStrategy for EventStrategy {
    fn validate_update(&self, new: &Value, old: &Value, _sub: Option<&str>) -> Vec<StatusCause> {
        let (ev, was) = (self.view(new), self.view(old));
        let mut causes = legacy(&ev);
        if !self.structured {
            return causes;
        }
        if ev.get("series") != was.get("series") {
            causes.extend(series(&ev));
        }
        for name in IMMUTABLE {
            let value = ev.get(name);
            if value != was.get(name) {
                causes.push(field::invalid(
                    name,
                    value.unwrap_or(&Value::Null),
                    "field is immutable",
                ));
            }
        }
        causes
    }

    fn allow_unconditional_update(&self) -> bool {
        true
    }
}

impl DeleteStrategy for EventStrategy {}

impl Strategy for EventStrategy {
    fn field_labels(&self, obj: &Value) -> Vec<(String, String)> {
        self.generic.field_labels(obj)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strategy(structured: bool) -> EventStrategy {
        EventStrategy {
            generic: GenericStrategy::default(),
            structured,
        }
    }

    fn structured_event() -> Value {
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "e", "namespace": "team"},
            "eventTime": "2026-12-02T10:00:00.000000Z",
            "reportingController": "example.com/operator", "reportingInstance": "op-0",
            "action": "Reconcile", "reason": "Synced", "type": "Normal",
            "regarding": {"kind": "Widget", "namespace": "team", "name": "w"},
            "note": "synced"})
    }

    fn fields(causes: &[StatusCause]) -> Vec<&str> {
        causes.iter().map(|c| c.field.as_str()).collect()
    }

    #[test]
    fn a_complete_structured_event_is_valid() {
        assert_eq!(strategy(true).validate(&structured_event()), vec![]);
    }

    #[test]
    fn a_structured_event_needs_event_time_and_a_known_type() {
        let mut ev = structured_event();
        ev.as_object_mut().unwrap().remove("eventTime");
        ev["type"] = json!("Odd");
        let causes = strategy(true).validate(&ev);
        assert_eq!(fields(&causes), vec!["eventTime", "type"]);
        assert_eq!(
            causes[1].message,
            "Invalid value: \"\": has invalid value: Odd"
        );
    }

    #[test]
    fn a_new_style_event_names_its_reporter_action_and_reason() {
        let mut ev = structured_event();
        for k in [
            "reportingController",
            "reportingInstance",
            "action",
            "reason",
        ] {
            ev.as_object_mut().unwrap().remove(k);
        }
        let causes = strategy(true).validate(&ev);
        // An empty controller is also not a qualified name (twice, as upstream says it).
        assert_eq!(
            fields(&causes),
            vec![
                "reportingController",
                "reportingController",
                "reportingController",
                "reportingInstance",
                "action",
                "reason"
            ]
        );
        assert_eq!(causes[0].message, "Required value");
        assert_eq!(
            causes[1].message,
            "Invalid value: \"\": name part must be non-empty"
        );
    }

    #[test]
    fn a_core_event_about_another_namespace_is_refused() {
        let ev = json!({"metadata": {"name": "e", "namespace": "team"},
            "involvedObject": {"kind": "Pod", "namespace": "other", "name": "p"},
            "reason": "Started", "message": "m"});
        let causes = strategy(false).validate(&ev);
        assert_eq!(fields(&causes), vec!["involvedObject.namespace"]);
        assert_eq!(
            causes[0].message,
            "Invalid value: \"other\": does not match event.namespace"
        );
    }

    #[test]
    fn a_legacy_core_event_needs_no_reporter() {
        let ev = json!({"metadata": {"name": "e", "namespace": "team"},
            "involvedObject": {"kind": "Pod", "namespace": "team", "name": "p"},
            "reason": "Started", "message": "m", "type": "Normal", "count": 3});
        assert_eq!(strategy(false).validate(&ev), vec![]);
    }

    #[test]
    fn a_structured_update_may_not_change_the_note() {
        let old = structured_event();
        let mut new = old.clone();
        new["note"] = json!("changed");
        let causes = strategy(true).validate_update(&new, &old, None);
        assert_eq!(fields(&causes), vec!["message"]);
        assert!(causes[0].message.ends_with("field is immutable"));
    }

    #[test]
    fn a_series_needs_two_occurrences() {
        let mut ev = structured_event();
        ev["series"] = json!({"count": 1});
        let causes = strategy(true).validate(&ev);
        assert_eq!(
            fields(&causes),
            vec!["series.count", "series.lastObservedTime"]
        );
    }
}
