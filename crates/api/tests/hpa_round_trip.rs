//! Property: any autoscaling/v2 object Kubernetes can hold survives v2 → v1 → v2, also
//! when the v1 form goes through its JSON encoding in between.
//!
//! The generator stays in the space a v2 object occupies after defaulting and storage, as
//! Kubernetes' own round-trip fuzzer does: at least one metric, the CPU utilization target
//! (if any) last, quantities in canonical form, and every metric field v1 always writes set.

use kapi_api::autoscaling::{v1, v2};
use kapi_api::meta::{LabelSelector, ObjectMeta, Time};
use kapi_api::resource::Quantity;
use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,8}"
}

fn quantity() -> impl Strategy<Value = Quantity> {
    (
        1u32..100_000,
        prop::sample::select(vec!["", "m", "k", "Mi", "Gi", "e3"]),
    )
        .prop_map(|(n, suffix)| Quantity::parse(&format!("{n}{suffix}")).unwrap())
}

fn selector() -> impl Strategy<Value = Option<LabelSelector>> {
    option::of(
        btree_map(name(), name(), 1..3).prop_map(|match_labels| LabelSelector {
            match_labels,
            ..Default::default()
        }),
    )
}

fn reference() -> impl Strategy<Value = v2::CrossVersionObjectReference> {
    (name(), name(), prop::sample::select(vec!["", "apps/v1"])).prop_map(
        |(kind, name, api_version)| v2::CrossVersionObjectReference {
            kind,
            name,
            api_version: api_version.into(),
        },
    )
}

fn identifier() -> impl Strategy<Value = v2::MetricIdentifier> {
    (name(), selector()).prop_map(|(name, selector)| v2::MetricIdentifier { name, selector })
}

/// A resource target as v1 can express it: utilization (and maybe an average) or an average.
fn resource_target() -> impl Strategy<Value = v2::MetricTarget> {
    (option::of(1i32..200), option::of(quantity())).prop_map(|(util, avg)| match util {
        Some(u) => v2::MetricTarget {
            r#type: "Utilization".into(),
            average_utilization: Some(u),
            average_value: avg,
            value: None,
        },
        None => v2::MetricTarget {
            r#type: "AverageValue".into(),
            average_value: Some(avg.unwrap_or_default()),
            ..Default::default()
        },
    })
}

fn non_cpu_metric() -> impl Strategy<Value = v2::MetricSpec> {
    prop_oneof![
        (
            reference(),
            identifier(),
            quantity(),
            option::of(quantity())
        )
            .prop_map(|(obj, metric, value, avg)| v2::MetricSpec {
                r#type: "Object".into(),
                object: Some(v2::ObjectMetricSource {
                    described_object: obj,
                    target: v2::MetricTarget {
                        r#type: if avg.is_some() {
                            "AverageValue"
                        } else {
                            "Value"
                        }
                        .into(),
                        value: Some(value),
                        average_value: avg,
                        average_utilization: None,
                    },
                    metric,
                }),
                ..Default::default()
            }),
        (identifier(), quantity()).prop_map(|(metric, avg)| v2::MetricSpec {
            r#type: "Pods".into(),
            pods: Some(v2::PodsMetricSource {
                metric,
                target: v2::MetricTarget {
                    r#type: "AverageValue".into(),
                    average_value: Some(avg),
                    ..Default::default()
                },
            }),
            ..Default::default()
        }),
        resource_target().prop_map(|target| v2::MetricSpec {
            r#type: "Resource".into(),
            resource: Some(v2::ResourceMetricSource {
                name: "memory".into(),
                target
            }),
            ..Default::default()
        }),
        (resource_target(), name()).prop_map(|(target, container)| v2::MetricSpec {
            r#type: "ContainerResource".into(),
            container_resource: Some(v2::ContainerResourceMetricSource {
                name: "cpu".into(),
                target,
                container
            }),
            ..Default::default()
        }),
        (identifier(), option::of(quantity()), option::of(quantity())).prop_map(
            |(metric, value, avg)| v2::MetricSpec {
                r#type: "External".into(),
                external: Some(v2::ExternalMetricSource {
                    metric,
                    target: v2::MetricTarget {
                        r#type: if value.is_none() {
                            "AverageValue"
                        } else {
                            "Value"
                        }
                        .into(),
                        value,
                        average_value: avg,
                        average_utilization: None,
                    },
                }),
                ..Default::default()
            }
        ),
    ]
}

fn cpu_metric() -> impl Strategy<Value = v2::MetricSpec> {
    (1i32..200).prop_map(|u| v2::MetricSpec {
        r#type: "Resource".into(),
        resource: Some(v2::ResourceMetricSource {
            name: "cpu".into(),
            target: v2::MetricTarget {
                r#type: "Utilization".into(),
                average_utilization: Some(u),
                ..Default::default()
            },
        }),
        ..Default::default()
    })
}

fn metrics() -> impl Strategy<Value = Vec<v2::MetricSpec>> {
    (vec(non_cpu_metric(), 0..4), option::of(cpu_metric())).prop_filter_map(
        "at least one metric",
        |(mut others, cpu)| {
            others.extend(cpu);
            (!others.is_empty()).then_some(others)
        },
    )
}

fn rules() -> impl Strategy<Value = v2::HpaScalingRules> {
    let policy = (
        prop::sample::select(vec!["Pods", "Percent"]),
        1i32..100,
        1i32..1800,
    )
        .prop_map(|(t, value, period_seconds)| v2::HpaScalingPolicy {
            r#type: t.into(),
            value,
            period_seconds,
        });
    (
        option::of(0i32..3600),
        option::of(prop::sample::select(vec!["Max", "Min", "Disabled"])),
        vec(policy, 0..3),
        option::of(quantity()),
    )
        .prop_map(
            |(window, select, policies, tolerance)| v2::HpaScalingRules {
                stabilization_window_seconds: window,
                select_policy: select.map(String::from),
                policies,
                tolerance,
            },
        )
}

fn behavior() -> impl Strategy<Value = Option<v2::HorizontalPodAutoscalerBehavior>> {
    option::of((option::of(rules()), option::of(rules()))).prop_map(|b| {
        b.and_then(|(scale_up, scale_down)| {
            (scale_up.is_some() || scale_down.is_some()).then_some(
                v2::HorizontalPodAutoscalerBehavior {
                    scale_up,
                    scale_down,
                },
            )
        })
    })
}

fn time() -> impl Strategy<Value = Time> {
    (0i64..2_000_000_000).prop_map(|secs| {
        let text = format!("\"{}\"", chrono_free_rfc3339(secs));
        serde_json::from_str(&text).unwrap()
    })
}

/// RFC 3339 in UTC for `secs` since the epoch (civil-from-days, no date crate needed).
fn chrono_free_rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn value_status() -> impl Strategy<Value = v2::MetricValueStatus> {
    (quantity(), option::of(1i32..200)).prop_map(|(avg, util)| v2::MetricValueStatus {
        value: None,
        average_value: Some(avg),
        average_utilization: util,
    })
}

fn metric_status() -> impl Strategy<Value = v2::MetricStatus> {
    prop_oneof![
        (value_status(), prop::sample::select(vec!["cpu", "memory"])).prop_map(|(current, n)| {
            v2::MetricStatus {
                r#type: "Resource".into(),
                resource: Some(v2::ResourceMetricStatus {
                    name: n.into(),
                    current,
                }),
                ..Default::default()
            }
        }),
        (identifier(), quantity()).prop_map(|(metric, avg)| v2::MetricStatus {
            r#type: "Pods".into(),
            pods: Some(v2::PodsMetricStatus {
                metric,
                current: v2::MetricValueStatus {
                    average_value: Some(avg),
                    ..Default::default()
                },
            }),
            ..Default::default()
        }),
        (
            identifier(),
            quantity(),
            option::of(quantity()),
            reference()
        )
            .prop_map(|(metric, value, avg, obj)| v2::MetricStatus {
                r#type: "Object".into(),
                object: Some(v2::ObjectMetricStatus {
                    metric,
                    current: v2::MetricValueStatus {
                        value: Some(value),
                        average_value: avg,
                        average_utilization: None
                    },
                    described_object: obj,
                }),
                ..Default::default()
            }),
        (identifier(), quantity(), option::of(quantity())).prop_map(|(metric, value, avg)| {
            v2::MetricStatus {
                r#type: "External".into(),
                external: Some(v2::ExternalMetricStatus {
                    metric,
                    current: v2::MetricValueStatus {
                        value: Some(value),
                        average_value: avg,
                        average_utilization: None,
                    },
                }),
                ..Default::default()
            }
        }),
    ]
}

fn condition() -> impl Strategy<Value = v2::HorizontalPodAutoscalerCondition> {
    (
        name(),
        prop::sample::select(vec!["True", "False", "Unknown"]),
        time(),
        name(),
        ".{0,20}",
        option::of(0i64..100),
    )
        .prop_map(|(t, status, last, reason, message, generation)| {
            v2::HorizontalPodAutoscalerCondition {
                r#type: t,
                status: status.into(),
                last_transition_time: last,
                reason,
                message,
                observed_generation: generation,
            }
        })
}

fn status() -> impl Strategy<Value = v2::HorizontalPodAutoscalerStatus> {
    (
        option::of(0i64..100),
        option::of(time()),
        0i32..100,
        0i32..100,
        option::of(vec(metric_status(), 1..4)),
        vec(condition(), 0..3),
    )
        .prop_map(
            |(
                observed_generation,
                last_scale_time,
                current_replicas,
                desired_replicas,
                current_metrics,
                conditions,
            )| {
                v2::HorizontalPodAutoscalerStatus {
                    observed_generation,
                    last_scale_time,
                    current_replicas,
                    desired_replicas,
                    current_metrics,
                    conditions,
                }
            },
        )
}

fn hpa() -> impl Strategy<Value = v2::HorizontalPodAutoscaler> {
    let spec = (
        reference(),
        option::of(1i32..10),
        1i32..100,
        metrics(),
        behavior(),
    )
        .prop_map(
            |(scale_target_ref, min_replicas, max_replicas, metrics, behavior)| {
                v2::HorizontalPodAutoscalerSpec {
                    scale_target_ref,
                    min_replicas,
                    max_replicas,
                    metrics,
                    behavior,
                }
            },
        );
    (name(), btree_map(name(), ".{0,10}", 0..3), spec, status()).prop_map(
        |(name, annotations, spec, status)| v2::HorizontalPodAutoscaler {
            kind: "HorizontalPodAutoscaler".into(),
            api_version: "autoscaling/v2".into(),
            metadata: ObjectMeta {
                name,
                annotations,
                ..Default::default()
            },
            spec,
            status,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn v2_survives_a_trip_through_v1(original in hpa()) {
        let v1 = v1::from_hub(v2::to_hub(original.clone()));
        let back = v2::from_hub(v1::to_hub(v1));
        prop_assert_eq!(back, original);
    }

    #[test]
    fn v2_survives_a_trip_through_v1_json(original in hpa()) {
        let v1 = v1::from_hub(v2::to_hub(original.clone()));
        let text = serde_json::to_string(&v1).unwrap();
        let v1: v1::HorizontalPodAutoscaler = serde_json::from_str(&text).unwrap();
        let back = v2::from_hub(v1::to_hub(v1));
        prop_assert_eq!(back, original);
    }
}
