//! autoscaling/v1 HorizontalPodAutoscaler: CPU utilization only; everything else of v2
//! travels in `autoscaling.alpha.kubernetes.io/*` annotations (see `annotations.rs`).

use crate::meta::{ListMeta, ObjectMeta, Time};
use crate::serde_util::null_default;
use serde::{Deserialize, Serialize};

pub use crate::autoscaling::v2::CrossVersionObjectReference;

/// A HorizontalPodAutoscaler in autoscaling/v1.
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

/// `HorizontalPodAutoscalerSpec` in autoscaling/v1.
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
    /// Target average CPU utilization in percent of requests.
    #[serde(
        rename = "targetCPUUtilizationPercentage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub target_cpu_utilization_percentage: Option<i32>,
}
crate::proto_message!(HorizontalPodAutoscalerSpec {
    scale_target_ref: msg = 1,
    min_replicas: opt_int32 = 2,
    max_replicas: int32 = 3,
    target_cpu_utilization_percentage: opt_int32 = 4,
});

/// `HorizontalPodAutoscalerStatus` in autoscaling/v1.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HorizontalPodAutoscalerStatus {
    /// The generation last acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// When the autoscaler last scaled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_scale_time: Option<Time>,
    /// Current replica count (always written in v1).
    #[serde(default, deserialize_with = "null_default")]
    pub current_replicas: i32,
    /// Desired replica count.
    #[serde(default, deserialize_with = "null_default")]
    pub desired_replicas: i32,
    /// Current average CPU utilization in percent of requests.
    #[serde(
        rename = "currentCPUUtilizationPercentage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub current_cpu_utilization_percentage: Option<i32>,
}
crate::proto_message!(HorizontalPodAutoscalerStatus {
    observed_generation: opt_int64 = 1,
    last_scale_time: opt_msg = 2,
    current_replicas: int32 = 3,
    desired_replicas: int32 = 4,
    current_cpu_utilization_percentage: opt_int32 = 5,
});

/// `HorizontalPodAutoscalerList` in autoscaling/v1.
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
