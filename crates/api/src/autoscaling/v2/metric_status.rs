//! autoscaling/v2 metric readings (`MetricStatus` and its sources).

use super::metric_identity::{CrossVersionObjectReference, MetricIdentifier};
use crate::resource::Quantity;
use crate::serde_util::null_default;
use serde::{Deserialize, Serialize};

/// `MetricStatus`: the last reading of one metric.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricStatus {
    /// The metric source type.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// Reading of an object metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMetricStatus>,
    /// Reading of a pods metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<PodsMetricStatus>,
    /// Reading of a resource metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceMetricStatus>,
    /// Reading of a container resource metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<ContainerResourceMetricStatus>,
    /// Reading of an external metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalMetricStatus>,
}
crate::proto_message!(MetricStatus {
    r#type: string = 1,
    object: opt_msg = 2,
    pods: opt_msg = 3,
    resource: opt_msg = 4,
    external: opt_msg = 5,
    container_resource: opt_msg = 7,
});

/// `ObjectMetricStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricStatus {
    /// The metric.
    #[serde(default, deserialize_with = "null_default")]
    pub metric: MetricIdentifier,
    /// The reading.
    #[serde(default, deserialize_with = "null_default")]
    pub current: MetricValueStatus,
    /// The object described.
    #[serde(default, deserialize_with = "null_default")]
    pub described_object: CrossVersionObjectReference,
}
crate::proto_message!(ObjectMetricStatus {
    metric: msg = 1,
    current: msg = 2,
    described_object: msg = 3
});

/// `PodsMetricStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricStatus {
    /// The metric.
    #[serde(default, deserialize_with = "null_default")]
    pub metric: MetricIdentifier,
    /// The reading.
    #[serde(default, deserialize_with = "null_default")]
    pub current: MetricValueStatus,
}
crate::proto_message!(PodsMetricStatus {
    metric: msg = 1,
    current: msg = 2
});

/// `ResourceMetricStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricStatus {
    /// The resource.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// The reading.
    #[serde(default, deserialize_with = "null_default")]
    pub current: MetricValueStatus,
}
crate::proto_message!(ResourceMetricStatus {
    name: string = 1,
    current: msg = 2
});

/// `ContainerResourceMetricStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricStatus {
    /// The resource.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// The reading.
    #[serde(default, deserialize_with = "null_default")]
    pub current: MetricValueStatus,
    /// The container.
    #[serde(default, deserialize_with = "null_default")]
    pub container: String,
}
crate::proto_message!(ContainerResourceMetricStatus {
    name: string = 1,
    current: msg = 2,
    container: string = 3
});

/// `ExternalMetricStatus`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricStatus {
    /// The metric.
    #[serde(default, deserialize_with = "null_default")]
    pub metric: MetricIdentifier,
    /// The reading.
    #[serde(default, deserialize_with = "null_default")]
    pub current: MetricValueStatus,
}
crate::proto_message!(ExternalMetricStatus {
    metric: msg = 1,
    current: msg = 2
});

/// `MetricValueStatus`: a reading as value, average or utilization.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricValueStatus {
    /// The value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Quantity>,
    /// The average per pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
    /// The utilization in percent of requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_utilization: Option<i32>,
}
crate::proto_message!(MetricValueStatus {
    value: opt_msg = 1,
    average_value: opt_msg = 2,
    average_utilization: opt_int32 = 3,
});
