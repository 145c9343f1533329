//! autoscaling/v2 HorizontalPodAutoscaler types (k8s.io/api autoscaling/v2).
//!
//! The internal hub version reuses the spec and status types: Kubernetes' internal
//! autoscaling types have exactly this shape.

use super::metric_identity::{CrossVersionObjectReference, MetricIdentifier};
use super::metric_status::MetricStatus;
use crate::meta::{ListMeta, ObjectMeta, Time};
use crate::resource::Quantity;
use crate::serde_util::{is_zero_i32, null_default};
use serde::{Deserialize, Serialize};

/// A HorizontalPodAutoscaler in autoscaling/v2.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscaler {
    /// TypeMeta `kind`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub kind: String,
    /// TypeMeta `apiVersion`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub api_version: String,
    /// Standard object metadata.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// What to scale and how.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: HorizontalPodAutoscalerSpec,
    /// What the autoscaler last observed.
    #[serde(default, deserialize_with = "null_default")]
    pub status: HorizontalPodAutoscalerStatus,
}
crate::proto_message!(HorizontalPodAutoscaler {
    metadata: msg_maps = 1,
    spec: msg = 2,
    status: msg = 3
});

/// `HorizontalPodAutoscalerSpec`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerSpec {
    /// The scaled resource.
    #[serde(default, deserialize_with = "null_default")]
    pub scale_target_ref: CrossVersionObjectReference,
    /// Lower replica limit (defaults to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    /// Upper replica limit.
    #[serde(default, deserialize_with = "null_default")]
    pub max_replicas: i32,
    /// The metrics that drive the replica count.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub metrics: Vec<MetricSpec>,
    /// Scale-up and scale-down behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behavior: Option<HorizontalPodAutoscalerBehavior>,
}
crate::proto_message!(HorizontalPodAutoscalerSpec {
    scale_target_ref: msg = 1,
    min_replicas: opt_int32 = 2,
    max_replicas: int32 = 3,
    metrics: msgs = 4,
    behavior: opt_msg = 5,
});

/// `MetricSpec`: one metric source (exactly one member matches `type`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricSpec {
    /// `Object`, `Pods`, `Resource`, `ContainerResource` or `External`.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// A metric of another object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMetricSource>,
    /// A per-pod metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<PodsMetricSource>,
    /// A resource metric (CPU, memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceMetricSource>,
    /// A resource metric of one container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<ContainerResourceMetricSource>,
    /// A metric from outside the cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalMetricSource>,
}
crate::proto_message!(MetricSpec {
    r#type: string = 1,
    object: opt_msg = 2,
    pods: opt_msg = 3,
    resource: opt_msg = 4,
    external: opt_msg = 5,
    container_resource: opt_msg = 7,
});

/// `HorizontalPodAutoscalerBehavior`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerBehavior {
    /// Rules for scaling up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_up: Option<HpaScalingRules>,
    /// Rules for scaling down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_down: Option<HpaScalingRules>,
}
crate::proto_message!(HorizontalPodAutoscalerBehavior {
    scale_up: opt_msg = 1,
    scale_down: opt_msg = 2
});

/// `HPAScalingRules`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaScalingRules {
    /// Seconds of past recommendations to consider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stabilization_window_seconds: Option<i32>,
    /// `Max`, `Min` or `Disabled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub select_policy: Option<String>,
    /// The allowed changes.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub policies: Vec<HpaScalingPolicy>,
    /// Tolerance around the target before scaling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<Quantity>,
}
crate::proto_message!(HpaScalingRules {
    select_policy: opt_string = 1,
    policies: msgs = 2,
    stabilization_window_seconds: opt_int32 = 3,
    tolerance: opt_msg = 4,
});

/// `HPAScalingPolicy`: one allowed change per period.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HpaScalingPolicy {
    /// `Pods` or `Percent`.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// The amount of change.
    #[serde(default, deserialize_with = "null_default")]
    pub value: i32,
    /// The period the policy holds for.
    #[serde(default, deserialize_with = "null_default")]
    pub period_seconds: i32,
}
crate::proto_message!(HpaScalingPolicy {
    r#type: string = 1,
    value: int32 = 2,
    period_seconds: int32 = 3
});

/// `ObjectMetricSource`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricSource {
    /// The object the metric describes.
    #[serde(default, deserialize_with = "null_default")]
    pub described_object: CrossVersionObjectReference,
    /// The target value.
    #[serde(default, deserialize_with = "null_default")]
    pub target: MetricTarget,
    /// The metric.
    #[serde(default, deserialize_with = "null_default")]
    pub metric: MetricIdentifier,
}
crate::proto_message!(ObjectMetricSource {
    described_object: msg = 1,
    target: msg = 2,
    metric: msg = 3
});

/// `PodsMetricSource`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricSource {
    /// The metric.
    #[serde(default, deserialize_with = "null_default")]
    pub metric: MetricIdentifier,
    /// The target value.
    #[serde(default, deserialize_with = "null_default")]
    pub target: MetricTarget,
}
crate::proto_message!(PodsMetricSource {
    metric: msg = 1,
    target: msg = 2
});

/// `ResourceMetricSource`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricSource {
    /// The resource (`cpu`, `memory`).
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// The target value.
    #[serde(default, deserialize_with = "null_default")]
    pub target: MetricTarget,
}
crate::proto_message!(ResourceMetricSource {
    name: string = 1,
    target: msg = 2
});

/// `ContainerResourceMetricSource`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricSource {
    /// The resource.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// The target value.
    #[serde(default, deserialize_with = "null_default")]
    pub target: MetricTarget,
    /// The container.
    #[serde(default, deserialize_with = "null_default")]
    pub container: String,
}
crate::proto_message!(ContainerResourceMetricSource {
    name: string = 1,
    target: msg = 2,
    container: string = 3
});

/// `ExternalMetricSource`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricSource {
    /// The metric.
    #[serde(default, deserialize_with = "null_default")]
    pub metric: MetricIdentifier,
    /// The target value.
    #[serde(default, deserialize_with = "null_default")]
    pub target: MetricTarget,
}
crate::proto_message!(ExternalMetricSource {
    metric: msg = 1,
    target: msg = 2
});

/// `MetricTarget`: the target of a metric (one of value, average, utilization).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricTarget {
    /// `Utilization`, `Value` or `AverageValue`.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// Target value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    /// Target average per pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    /// Target utilization in percent of requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}
crate::proto_message!(MetricTarget {
    r#type: string = 1,
    value: opt_msg = 2,
    average_value: opt_msg = 3,
    average_utilization: opt_int32 = 4,
});

/// `HorizontalPodAutoscalerStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerStatus {
    /// The generation last acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// When the autoscaler last scaled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_scale_time: Option<Time>,
    /// Current replica count.
    #[serde(
        default,
        skip_serializing_if = "is_zero_i32",
        deserialize_with = "null_default"
    )]
    pub current_replicas: i32,
    /// Desired replica count.
    #[serde(default, deserialize_with = "null_default")]
    pub desired_replicas: i32,
    /// Last metric readings; `None` is Go's nil (JSON `null`, no `omitempty`).
    #[serde(default)]
    pub current_metrics: Option<Vec<MetricStatus>>,
    /// Conditions.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub conditions: Vec<HorizontalPodAutoscalerCondition>,
}
crate::proto_message!(HorizontalPodAutoscalerStatus {
    observed_generation: opt_int64 = 1,
    last_scale_time: opt_msg = 2,
    current_replicas: int32 = 3,
    desired_replicas: int32 = 4,
    current_metrics: opt_msgs = 5,
    conditions: msgs = 6,
});

/// `HorizontalPodAutoscalerCondition`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerCondition {
    /// Condition type.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default, deserialize_with = "null_default")]
    pub status: String,
    /// When the status last changed.
    #[serde(default, deserialize_with = "null_default")]
    pub last_transition_time: Time,
    /// Machine-readable reason.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub reason: String,
    /// Human-readable message.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub message: String,
    /// The generation the condition was set for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}
crate::proto_message!(HorizontalPodAutoscalerCondition {
    r#type: string = 1,
    status: string = 2,
    last_transition_time: msg = 3,
    reason: string = 4,
    message: string = 5,
    observed_generation: opt_int64 = 6,
});

/// `HorizontalPodAutoscalerList` in autoscaling/v2.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerList {
    /// TypeMeta `kind`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub kind: String,
    /// TypeMeta `apiVersion`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub api_version: String,
    /// Standard list metadata.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ListMeta,
    /// The autoscalers.
    #[serde(default, deserialize_with = "null_default")]
    pub items: Vec<HorizontalPodAutoscaler>,
}
crate::proto_message!(HorizontalPodAutoscalerList {
    metadata: msg_maps = 1,
    items: msgs_maps = 2
});
