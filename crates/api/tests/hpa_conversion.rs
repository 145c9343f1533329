//! autoscaling v1 ⇄ v2 conversion through the hub, checked against what kube-apiserver
//! returned for the same object in both versions.

mod support;

use kapi_api::autoscaling::annotations::{
    BEHAVIOR_SPECS_ANNOTATION, CONDITIONS_ANNOTATION, METRIC_SPECS_ANNOTATION,
    METRIC_STATUSES_ANNOTATION,
};
use kapi_api::autoscaling::{v1, v2};
use prost::Message;
use support::{golden_json, golden_raw};

fn golden_v1() -> v1::HorizontalPodAutoscaler {
    serde_json::from_value(golden_json("hpa-v1.json")).unwrap()
}

fn golden_v2() -> v2::HorizontalPodAutoscaler {
    serde_json::from_value(golden_json("hpa-v2.json")).unwrap()
}

fn v2_to_v1(hpa: v2::HorizontalPodAutoscaler) -> v1::HorizontalPodAutoscaler {
    let mut out = v1::from_hub(v2::to_hub(hpa));
    out.api_version = "autoscaling/v1".into();
    out
}

fn v1_to_v2(hpa: v1::HorizontalPodAutoscaler) -> v2::HorizontalPodAutoscaler {
    let mut out = v2::from_hub(v1::to_hub(hpa));
    out.api_version = "autoscaling/v2".into();
    out
}

#[test]
fn v2_golden_converts_to_the_v1_golden() {
    assert_eq!(v2_to_v1(golden_v2()), golden_v1());
}

#[test]
fn v1_golden_converts_to_the_v2_golden() {
    assert_eq!(v1_to_v2(golden_v1()), golden_v2());
}

#[test]
fn v2_protobuf_converts_to_the_v1_protobuf_bytes() {
    let v2 = v2::HorizontalPodAutoscaler::decode(golden_raw("hpa-v2.pb").as_slice()).unwrap();
    let v1 = v1::from_hub(v2::to_hub(v2));
    assert_eq!(v1.encode_to_vec(), golden_raw("hpa-v1.pb"));
}

#[test]
fn v1_without_target_converts_to_cpu_at_eighty_percent() {
    let v2 = v1_to_v2(v1::HorizontalPodAutoscaler::default());
    let resource = v2.spec.metrics[0].resource.as_ref().unwrap();
    assert_eq!(
        (resource.name.as_str(), resource.target.average_utilization),
        ("cpu", Some(80))
    );
}

fn memory_metric() -> v2::MetricSpec {
    serde_json::from_value(serde_json::json!({
        "type": "Resource",
        "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "512Mi"}}
    }))
    .unwrap()
}

#[test]
fn non_cpu_metrics_travel_in_the_metrics_annotation() {
    let mut hpa = golden_v2();
    hpa.spec.metrics.insert(0, memory_metric());
    let v1 = v2_to_v1(hpa);
    let text = &v1.metadata.annotations[METRIC_SPECS_ANNOTATION];
    assert_eq!(
        text,
        r#"[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"512Mi"}}]"#
    );
    assert_eq!(v1.spec.target_cpu_utilization_percentage, Some(60));
}

#[test]
fn v1_annotations_are_removed_once_unpacked() {
    let mut hpa = golden_v2();
    hpa.spec.metrics.insert(0, memory_metric());
    let v2 = v1_to_v2(v2_to_v1(hpa.clone()));
    assert!(v2.metadata.annotations.is_empty());
    assert_eq!(v2.spec.metrics, hpa.spec.metrics);
}

#[test]
fn status_metrics_and_conditions_travel_in_annotations() {
    let mut hpa = golden_v2();
    hpa.status = serde_json::from_value(serde_json::json!({
        "currentReplicas": 3,
        "desiredReplicas": 4,
        "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu",
            "current": {"averageValue": "250m", "averageUtilization": 70}}}],
        "conditions": [{"type": "AbleToScale", "status": "True",
            "lastTransitionTime": "2026-11-29T12:54:04Z", "reason": "ReadyForNewScale"}]
    }))
    .unwrap();
    let v1 = v2_to_v1(hpa.clone());
    assert_eq!(v1.status.current_cpu_utilization_percentage, Some(70));
    assert!(
        v1.metadata
            .annotations
            .contains_key(METRIC_STATUSES_ANNOTATION)
    );
    assert!(v1.metadata.annotations.contains_key(CONDITIONS_ANNOTATION));
    assert_eq!(v1_to_v2(v1).status, hpa.status);
}

#[test]
fn v2_drops_round_trip_annotations_it_receives() {
    let mut hpa = golden_v2();
    hpa.metadata
        .annotations
        .insert(BEHAVIOR_SPECS_ANNOTATION.into(), "{}".into());
    hpa.metadata
        .annotations
        .insert("note".into(), "kept".into());
    let out = v2::from_hub(v2::to_hub(hpa));
    assert_eq!(
        out.metadata.annotations.keys().collect::<Vec<_>>(),
        ["note"]
    );
}

#[test]
fn malformed_annotations_are_ignored() {
    let mut v1 = golden_v1();
    v1.metadata
        .annotations
        .insert(METRIC_SPECS_ANNOTATION.into(), "not json".into());
    v1.metadata
        .annotations
        .insert(BEHAVIOR_SPECS_ANNOTATION.into(), "[".into());
    let v2 = v1_to_v2(v1);
    assert_eq!(v2.spec.metrics.len(), 1);
    assert_eq!(v2.spec.behavior, None);
    assert!(v2.metadata.annotations.is_empty());
}
