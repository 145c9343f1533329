//! autoscaling/v2 defaults (pkg/apis/autoscaling/v2/defaults.go): one replica minimum,
//! CPU at 80 % when no metric is named, and every unset field of a given behavior filled.

use super::types::{
    HorizontalPodAutoscaler, HpaScalingPolicy, HpaScalingRules, MetricSpec, MetricTarget,
    ResourceMetricSource,
};
use crate::autoscaling::annotations::DEFAULT_CPU_UTILIZATION;

/// The default `selectPolicy`.
pub const MAX_CHANGE_POLICY_SELECT: &str = "Max";

/// Applies the v2 defaults.
pub fn set_defaults(hpa: &mut HorizontalPodAutoscaler) {
    let spec = &mut hpa.spec;
    spec.min_replicas.get_or_insert(1);
    if spec.metrics.is_empty() {
        spec.metrics = vec![MetricSpec {
            r#type: "Resource".to_owned(),
            resource: Some(ResourceMetricSource {
                name: "cpu".to_owned(),
                target: MetricTarget {
                    r#type: "Utilization".to_owned(),
                    average_utilization: Some(DEFAULT_CPU_UTILIZATION),
                    ..Default::default()
                },
            }),
            ..Default::default()
        }];
    }
    if let Some(behavior) = &mut spec.behavior {
        behavior.scale_up = Some(fill_rules(
            behavior.scale_up.take(),
            default_scale_up_rules(),
        ));
        behavior.scale_down = Some(fill_rules(
            behavior.scale_down.take(),
            default_scale_down_rules(),
        ));
    }
}

fn policy(r#type: &str, value: i32) -> HpaScalingPolicy {
    HpaScalingPolicy {
        r#type: r#type.to_owned(),
        value,
        period_seconds: 15,
    }
}

/// The scale-up rules Kubernetes fills in (`GenerateHPAScaleUpRules(nil)`).
pub fn default_scale_up_rules() -> HpaScalingRules {
    HpaScalingRules {
        stabilization_window_seconds: Some(0),
        select_policy: Some(MAX_CHANGE_POLICY_SELECT.to_owned()),
        policies: vec![policy("Pods", 4), policy("Percent", 100)],
        tolerance: None,
    }
}

/// The scale-down rules Kubernetes fills in (`GenerateHPAScaleDownRules(nil)`); the
/// stabilization window stays unset because the controller's flag decides it.
pub fn default_scale_down_rules() -> HpaScalingRules {
    HpaScalingRules {
        stabilization_window_seconds: None,
        select_policy: Some(MAX_CHANGE_POLICY_SELECT.to_owned()),
        policies: vec![policy("Percent", 100)],
        tolerance: None,
    }
}

/// Keeps every field `given` sets and takes the rest from `defaults` (`copyHPAScalingRules`).
fn fill_rules(given: Option<HpaScalingRules>, mut defaults: HpaScalingRules) -> HpaScalingRules {
    let Some(given) = given else { return defaults };
    if given.select_policy.is_some() {
        defaults.select_policy = given.select_policy;
    }
    if given.stabilization_window_seconds.is_some() {
        defaults.stabilization_window_seconds = given.stabilization_window_seconds;
    }
    if !given.policies.is_empty() {
        defaults.policies = given.policies;
    }
    if given.tolerance.is_some() {
        defaults.tolerance = given.tolerance;
    }
    defaults
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autoscaling::v2::HorizontalPodAutoscalerBehavior;

    #[test]
    fn min_replicas_defaults_to_one() {
        let mut hpa = HorizontalPodAutoscaler::default();
        set_defaults(&mut hpa);
        assert_eq!(hpa.spec.min_replicas, Some(1));
    }

    #[test]
    fn no_metrics_means_cpu_at_eighty_percent() {
        let mut hpa = HorizontalPodAutoscaler::default();
        set_defaults(&mut hpa);
        let resource = hpa.spec.metrics[0].resource.as_ref().unwrap();
        assert_eq!(resource.name, "cpu");
        assert_eq!(
            resource.target.average_utilization,
            Some(DEFAULT_CPU_UTILIZATION)
        );
    }

    #[test]
    fn absent_behavior_stays_absent() {
        let mut hpa = HorizontalPodAutoscaler::default();
        set_defaults(&mut hpa);
        assert_eq!(hpa.spec.behavior, None);
    }

    #[test]
    fn given_behavior_gets_both_directions_filled() {
        let mut hpa = HorizontalPodAutoscaler::default();
        hpa.spec.behavior = Some(HorizontalPodAutoscalerBehavior {
            scale_up: None,
            scale_down: Some(HpaScalingRules {
                stabilization_window_seconds: Some(120),
                ..Default::default()
            }),
        });
        set_defaults(&mut hpa);
        let behavior = hpa.spec.behavior.unwrap();
        assert_eq!(behavior.scale_up, Some(default_scale_up_rules()));
        let down = behavior.scale_down.unwrap();
        assert_eq!(down.stabilization_window_seconds, Some(120));
        assert_eq!(down.policies, default_scale_down_rules().policies);
        assert_eq!(down.select_policy.as_deref(), Some("Max"));
    }
}
