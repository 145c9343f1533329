//! The `autoscaling.alpha.kubernetes.io/*` annotations that carry v2-only data through
//! autoscaling/v1 (pkg/apis/autoscaling/annotations.go, helpers.go).
//!
//! The behavior annotation holds Go's *internal* type marshalled without JSON tags, so its
//! keys are Go field names (`ScaleUp`, `StabilizationWindowSeconds`, …); Go reads them
//! back case-insensitively, and so does [`parse_behavior`].

use super::v2::{HorizontalPodAutoscalerBehavior, HpaScalingPolicy, HpaScalingRules};
use crate::resource::Quantity;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Bound;

/// Non-CPU metric specs of a v1 object.
pub const METRIC_SPECS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/metrics";
/// Metric statuses of a v1 object.
pub const METRIC_STATUSES_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/current-metrics";
/// Conditions of a v1 object.
pub const CONDITIONS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/conditions";
/// Scaling behavior of a v1 object.
pub const BEHAVIOR_SPECS_ANNOTATION: &str = "autoscaling.alpha.kubernetes.io/behavior";
/// Scale-down tolerance (written by autoscaling/v2beta2 only).
pub const TOLERANCE_SCALE_DOWN_ANNOTATION: &str =
    "autoscaling.alpha.kubernetes.io/scale-down-tolerance";
/// Scale-up tolerance (written by autoscaling/v2beta2 only).
pub const TOLERANCE_SCALE_UP_ANNOTATION: &str =
    "autoscaling.alpha.kubernetes.io/scale-up-tolerance";
/// The CPU utilization target when an autoscaler names no metric.
pub const DEFAULT_CPU_UTILIZATION: i32 = 80;

const ROUND_TRIP_ANNOTATIONS: [&str; 6] = [
    METRIC_SPECS_ANNOTATION,
    BEHAVIOR_SPECS_ANNOTATION,
    METRIC_STATUSES_ANNOTATION,
    CONDITIONS_ANNOTATION,
    TOLERANCE_SCALE_DOWN_ANNOTATION,
    TOLERANCE_SCALE_UP_ANNOTATION,
];

/// Removes every annotation used to carry fields across versions
/// (`DropRoundTripHorizontalPodAutoscalerAnnotations`).
pub fn drop_round_trip_annotations(annotations: &mut BTreeMap<String, String>) {
    // All of them share this prefix; most objects have none, so look once before removing.
    let prefix = "autoscaling.alpha.kubernetes.io/";
    let from = (Bound::Included(prefix), Bound::Unbounded);
    let mut candidates = annotations.range::<str, _>(from);
    if !candidates
        .next()
        .is_some_and(|(k, _)| k.starts_with(prefix))
    {
        return;
    }
    for key in ROUND_TRIP_ANNOTATIONS {
        annotations.remove(key);
    }
}

// Go writes these keys in PascalCase; reading is exact first (fast) and falls back to
// Go's case-insensitive matching (`canonical_keys`) when a key differs.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct BehaviorJson {
    #[serde(default)]
    scale_up: Option<RulesJson>,
    #[serde(default)]
    scale_down: Option<RulesJson>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct RulesJson {
    #[serde(default)]
    stabilization_window_seconds: Option<i32>,
    #[serde(default)]
    select_policy: Option<String>,
    #[serde(default)]
    policies: Option<Vec<PolicyJson>>,
    #[serde(default)]
    tolerance: Option<Quantity>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", deny_unknown_fields)]
struct PolicyJson {
    #[serde(default)]
    r#type: Option<String>,
    #[serde(default)]
    value: Option<i32>,
    #[serde(default)]
    period_seconds: Option<i32>,
}

const BEHAVIOR_KEYS: [&str; 9] = [
    "ScaleUp",
    "ScaleDown",
    "StabilizationWindowSeconds",
    "SelectPolicy",
    "Policies",
    "Tolerance",
    "Type",
    "Value",
    "PeriodSeconds",
];

fn rules_to_json(r: &HpaScalingRules) -> RulesJson {
    RulesJson {
        stabilization_window_seconds: r.stabilization_window_seconds,
        select_policy: r.select_policy.clone(),
        policies: (!r.policies.is_empty()).then(|| {
            r.policies
                .iter()
                .map(|p| PolicyJson {
                    r#type: Some(p.r#type.clone()),
                    value: Some(p.value),
                    period_seconds: Some(p.period_seconds),
                })
                .collect()
        }),
        tolerance: r.tolerance.clone(),
    }
}

fn rules_from_json(r: RulesJson) -> HpaScalingRules {
    HpaScalingRules {
        stabilization_window_seconds: r.stabilization_window_seconds,
        select_policy: r.select_policy,
        policies: r
            .policies
            .unwrap_or_default()
            .into_iter()
            .map(|p| HpaScalingPolicy {
                r#type: p.r#type.unwrap_or_default(),
                value: p.value.unwrap_or_default(),
                period_seconds: p.period_seconds.unwrap_or_default(),
            })
            .collect(),
        tolerance: r.tolerance,
    }
}

/// The behavior annotation's text for `behavior`, byte for byte what Go writes.
pub fn behavior_to_annotation(behavior: &HorizontalPodAutoscalerBehavior) -> String {
    let json = BehaviorJson {
        scale_up: behavior.scale_up.as_ref().map(rules_to_json),
        scale_down: behavior.scale_down.as_ref().map(rules_to_json),
    };
    // Serializing plain structs of strings and integers into a String cannot fail.
    serde_json::to_string(&json).unwrap_or_default()
}

/// Reads the behavior annotation; `None` when malformed or empty (Go then ignores it).
pub fn parse_behavior(text: &str) -> Option<HorizontalPodAutoscalerBehavior> {
    let json: BehaviorJson = serde_json::from_str(text).ok().or_else(|| {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        serde_json::from_value(canonical_keys(value)).ok()
    })?;
    let behavior = HorizontalPodAutoscalerBehavior {
        scale_up: json.scale_up.map(rules_from_json),
        scale_down: json.scale_down.map(rules_from_json),
    };
    (behavior.scale_up.is_some() || behavior.scale_down.is_some()).then_some(behavior)
}

/// Go's `encoding/json` matches field names case-insensitively and ignores unknown ones:
/// rename keys to Go's spelling and drop the rest.
fn canonical_keys(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.into_iter()
                .filter_map(|(k, v)| {
                    let known = BEHAVIOR_KEYS
                        .iter()
                        .find(|name| name.eq_ignore_ascii_case(&k))?;
                    Some(((*known).to_owned(), canonical_keys(v)))
                })
                .collect(),
        ),
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.into_iter().map(canonical_keys).collect())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN_BEHAVIOR: &str = r#"{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null},"ScaleDown":{"StabilizationWindowSeconds":120,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}],"Tolerance":null}}"#;

    #[test]
    fn behavior_annotation_is_rewritten_byte_for_byte() {
        let behavior = parse_behavior(GOLDEN_BEHAVIOR).unwrap();
        assert_eq!(behavior_to_annotation(&behavior), GOLDEN_BEHAVIOR);
    }

    #[test]
    fn behavior_annotation_keys_match_case_insensitively() {
        let behavior = parse_behavior(r#"{"scaleUp":{"selectPolicy":"Min"}}"#).unwrap();
        let up = behavior.scale_up.unwrap();
        assert_eq!(up.select_policy.as_deref(), Some("Min"));
    }

    #[test]
    fn unknown_keys_in_behavior_annotation_are_ignored() {
        let behavior = parse_behavior(r#"{"ScaleUp":{"SelectPolicy":"Min","Extra":1}}"#).unwrap();
        assert_eq!(
            behavior.scale_up.unwrap().select_policy.as_deref(),
            Some("Min")
        );
    }

    #[test]
    fn empty_or_malformed_behavior_annotation_is_ignored() {
        assert_eq!(parse_behavior("{}"), None);
        assert_eq!(parse_behavior("abc"), None);
        assert_eq!(parse_behavior(""), None);
    }

    #[test]
    fn missing_scale_down_is_written_as_null() {
        let behavior = HorizontalPodAutoscalerBehavior {
            scale_up: Some(HpaScalingRules::default()),
            scale_down: None,
        };
        assert_eq!(
            behavior_to_annotation(&behavior),
            r#"{"ScaleUp":{"StabilizationWindowSeconds":null,"SelectPolicy":null,"Policies":null,"Tolerance":null},"ScaleDown":null}"#
        );
    }

    #[test]
    fn dropping_round_trip_annotations_keeps_the_others() {
        let mut a = BTreeMap::from([
            (METRIC_SPECS_ANNOTATION.to_string(), "[]".to_string()),
            (BEHAVIOR_SPECS_ANNOTATION.to_string(), "{}".to_string()),
            ("note".to_string(), "kept".to_string()),
        ]);
        drop_round_trip_annotations(&mut a);
        assert_eq!(a.keys().collect::<Vec<_>>(), ["note"]);
    }
}
