//! autoscaling/v1 ⇄ hub conversion (pkg/apis/autoscaling/v1/conversion.go): v1 keeps the
//! CPU target in its own field and every other v2 field in annotations, so that
//! v2 → v1 → v2 gives back what went in.

use super::metric_conversion as metric;
use super::metric_types::{MetricSpec as V1MetricSpec, MetricStatus as V1MetricStatus};
use super::types::{
    HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec, HorizontalPodAutoscalerStatus,
};
use crate::autoscaling::annotations::{
    BEHAVIOR_SPECS_ANNOTATION, CONDITIONS_ANNOTATION, DEFAULT_CPU_UTILIZATION,
    METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, behavior_to_annotation,
    drop_round_trip_annotations, parse_behavior,
};
use crate::autoscaling::internal::HorizontalPodAutoscaler as Hub;
use crate::autoscaling::v2 as hub;

const RESOURCE: &str = "Resource";
const CPU: &str = "cpu";

fn is_cpu_resource(r#type: &str, name: Option<&str>) -> bool {
    r#type == RESOURCE && name == Some(CPU)
}

fn cpu_utilization_metric(percent: i32) -> hub::MetricSpec {
    hub::MetricSpec {
        r#type: RESOURCE.to_owned(),
        resource: Some(hub::ResourceMetricSource {
            name: CPU.to_owned(),
            target: hub::MetricTarget {
                r#type: "Utilization".to_owned(),
                average_utilization: Some(percent),
                ..Default::default()
            },
        }),
        ..Default::default()
    }
}

/// Converts a v1 object to the hub, unpacking the round-trip annotations.
pub fn to_hub(v1: HorizontalPodAutoscaler) -> Hub {
    let HorizontalPodAutoscaler {
        kind,
        api_version,
        mut metadata,
        spec,
        status,
    } = v1;
    let mut spec = spec_to_hub(spec);
    let mut status = status_to_hub(status);
    let annotations = &metadata.annotations;
    if let Some(other) = annotations
        .get(METRIC_SPECS_ANNOTATION)
        .and_then(|text| serde_json::from_str::<Vec<V1MetricSpec>>(text).ok())
    {
        // The v1 CPU target (if any) goes after the metrics from the annotation.
        let mut metrics: Vec<hub::MetricSpec> = other.iter().map(metric::spec_to_hub).collect();
        metrics.append(&mut spec.metrics);
        spec.metrics = metrics;
    }
    if let Some(behavior) = annotations
        .get(BEHAVIOR_SPECS_ANNOTATION)
        .and_then(|t| parse_behavior(t))
    {
        spec.behavior = Some(behavior);
    }
    if let Some(current) = annotations
        .get(METRIC_STATUSES_ANNOTATION)
        .and_then(|text| serde_json::from_str::<Vec<V1MetricStatus>>(text).ok())
    {
        status.current_metrics = Some(current.iter().map(metric::status_to_hub).collect());
    }
    // v1 once had an implicit CPU default in the controller; the conversion makes it explicit.
    if spec.metrics.is_empty() {
        spec.metrics = vec![cpu_utilization_metric(DEFAULT_CPU_UTILIZATION)];
    }
    if let Some(conditions) = annotations.get(CONDITIONS_ANNOTATION).and_then(|text| {
        serde_json::from_str::<Vec<hub::HorizontalPodAutoscalerCondition>>(text).ok()
    }) {
        status.conditions = conditions;
    }
    drop_round_trip_annotations(&mut metadata.annotations);
    Hub {
        kind,
        api_version,
        metadata,
        spec,
        status,
    }
}

fn spec_to_hub(s: HorizontalPodAutoscalerSpec) -> hub::HorizontalPodAutoscalerSpec {
    hub::HorizontalPodAutoscalerSpec {
        scale_target_ref: s.scale_target_ref,
        min_replicas: s.min_replicas,
        max_replicas: s.max_replicas,
        metrics: match s.target_cpu_utilization_percentage {
            Some(percent) => vec![cpu_utilization_metric(percent)],
            None => Vec::new(),
        },
        behavior: None,
    }
}

fn status_to_hub(s: HorizontalPodAutoscalerStatus) -> hub::HorizontalPodAutoscalerStatus {
    hub::HorizontalPodAutoscalerStatus {
        observed_generation: s.observed_generation,
        last_scale_time: s.last_scale_time,
        current_replicas: s.current_replicas,
        desired_replicas: s.desired_replicas,
        current_metrics: s.current_cpu_utilization_percentage.map(|percent| {
            vec![hub::MetricStatus {
                r#type: RESOURCE.to_owned(),
                resource: Some(hub::ResourceMetricStatus {
                    name: CPU.to_owned(),
                    current: hub::MetricValueStatus {
                        average_utilization: Some(percent),
                        ..Default::default()
                    },
                }),
                ..Default::default()
            }]
        }),
        conditions: Vec::new(),
    }
}

/// Converts a hub object to v1, packing what v1 cannot hold into annotations.
pub fn from_hub(hub: Hub) -> HorizontalPodAutoscaler {
    let Hub {
        kind,
        api_version,
        mut metadata,
        spec,
        status,
    } = hub;
    let other_metrics: Vec<V1MetricSpec> = spec
        .metrics
        .iter()
        .filter(|m| {
            let r = m.resource.as_ref();
            !(is_cpu_resource(&m.r#type, r.map(|r| r.name.as_str()))
                && r.is_some_and(|r| r.target.average_utilization.is_some()))
        })
        .map(metric::spec_from_hub)
        .collect();
    let current: Vec<V1MetricStatus> = status
        .current_metrics
        .iter()
        .flatten()
        .map(metric::status_from_hub)
        .collect();
    let a = &mut metadata.annotations;
    drop_round_trip_annotations(a);
    if !other_metrics.is_empty() {
        a.insert(METRIC_SPECS_ANNOTATION.to_owned(), to_json(&other_metrics));
    }
    if !current.is_empty() {
        a.insert(METRIC_STATUSES_ANNOTATION.to_owned(), to_json(&current));
    }
    if !status.conditions.is_empty() {
        a.insert(
            CONDITIONS_ANNOTATION.to_owned(),
            to_json(&status.conditions),
        );
    }
    if let Some(behavior) = &spec.behavior {
        a.insert(
            BEHAVIOR_SPECS_ANNOTATION.to_owned(),
            behavior_to_annotation(behavior),
        );
    }
    HorizontalPodAutoscaler {
        kind,
        api_version,
        metadata,
        spec: spec_from_hub(spec),
        status: status_from_hub(&status),
    }
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    // Plain data structs serialize into a String without error.
    serde_json::to_string(value).unwrap_or_default()
}

fn spec_from_hub(s: hub::HorizontalPodAutoscalerSpec) -> HorizontalPodAutoscalerSpec {
    // The first CPU resource metric decides; later ones are not looked at (as in Go).
    let target_cpu = s
        .metrics
        .iter()
        .find_map(|m| {
            m.resource
                .as_ref()
                .filter(|r| is_cpu_resource(&m.r#type, Some(r.name.as_str())))
        })
        .and_then(|r| r.target.average_utilization);
    HorizontalPodAutoscalerSpec {
        scale_target_ref: s.scale_target_ref,
        min_replicas: s.min_replicas,
        max_replicas: s.max_replicas,
        target_cpu_utilization_percentage: target_cpu,
    }
}

fn status_from_hub(s: &hub::HorizontalPodAutoscalerStatus) -> HorizontalPodAutoscalerStatus {
    // Every CPU utilization reading is looked at; the last one wins (as in Go).
    let current_cpu = s
        .current_metrics
        .iter()
        .flatten()
        .filter_map(|m| {
            m.resource
                .as_ref()
                .filter(|r| is_cpu_resource(&m.r#type, Some(r.name.as_str())))
                .and_then(|r| r.current.average_utilization)
        })
        .next_back();
    HorizontalPodAutoscalerStatus {
        observed_generation: s.observed_generation,
        last_scale_time: s.last_scale_time,
        current_replicas: s.current_replicas,
        desired_replicas: s.desired_replicas,
        current_cpu_utilization_percentage: current_cpu,
    }
}
