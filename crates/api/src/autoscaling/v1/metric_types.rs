//! autoscaling/v1 metric types. They are not fields of the v1 object: they exist only as
//! the JSON inside the `autoscaling.alpha.kubernetes.io/metrics` and `.../current-metrics`
//! annotations, in the shape autoscaling/v2beta1 had.

use super::types::CrossVersionObjectReference;
use crate::meta::LabelSelector;
use crate::resource::Quantity;
use crate::serde_util::null_default;
use serde::{Deserialize, Serialize};

/// `MetricSpec` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricSpec {
    /// The metric source type.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// An object metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMetricSource>,
    /// A pods metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<PodsMetricSource>,
    /// A resource metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceMetricSource>,
    /// A container resource metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<ContainerResourceMetricSource>,
    /// An external metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalMetricSource>,
}

/// `ObjectMetricSource` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricSource {
    /// The object described.
    #[serde(default, deserialize_with = "null_default")]
    pub target: CrossVersionObjectReference,
    /// The metric name.
    #[serde(default, deserialize_with = "null_default")]
    pub metric_name: String,
    /// The target value.
    #[serde(default, deserialize_with = "null_default")]
    pub target_value: Quantity,
    /// The metric selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// The target average value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
}

/// `PodsMetricSource` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricSource {
    /// The metric name.
    #[serde(default, deserialize_with = "null_default")]
    pub metric_name: String,
    /// The target average value.
    #[serde(default, deserialize_with = "null_default")]
    pub target_average_value: Quantity,
    /// The metric selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// `ResourceMetricSource` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricSource {
    /// The resource.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// The target utilization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_utilization: Option<i32>,
    /// The target average value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
}

/// `ContainerResourceMetricSource` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricSource {
    /// The resource.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// The target utilization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_utilization: Option<i32>,
    /// The target average value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
    /// The container.
    #[serde(default, deserialize_with = "null_default")]
    pub container: String,
}

/// `ExternalMetricSource` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricSource {
    /// The metric name.
    #[serde(default, deserialize_with = "null_default")]
    pub metric_name: String,
    /// The metric selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_selector: Option<LabelSelector>,
    /// The target value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_value: Option<Quantity>,
    /// The target average value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_average_value: Option<Quantity>,
}

/// `MetricStatus` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricStatus {
    /// The metric source type.
    #[serde(default, deserialize_with = "null_default")]
    pub r#type: String,
    /// An object metric reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectMetricStatus>,
    /// A pods metric reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<PodsMetricStatus>,
    /// A resource metric reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceMetricStatus>,
    /// A container resource metric reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_resource: Option<ContainerResourceMetricStatus>,
    /// An external metric reading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalMetricStatus>,
}

/// `ObjectMetricStatus` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMetricStatus {
    /// The object described.
    #[serde(default, deserialize_with = "null_default")]
    pub target: CrossVersionObjectReference,
    /// The metric name.
    #[serde(default, deserialize_with = "null_default")]
    pub metric_name: String,
    /// The current value.
    #[serde(default, deserialize_with = "null_default")]
    pub current_value: Quantity,
    /// The metric selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// The current average value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub average_value: Option<Quantity>,
}

/// `PodsMetricStatus` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodsMetricStatus {
    /// The metric name.
    #[serde(default, deserialize_with = "null_default")]
    pub metric_name: String,
    /// The current average value.
    #[serde(default, deserialize_with = "null_default")]
    pub current_average_value: Quantity,
    /// The metric selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// `ResourceMetricStatus` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMetricStatus {
    /// The resource.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// The current utilization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_average_utilization: Option<i32>,
    /// The current average value.
    #[serde(default, deserialize_with = "null_default")]
    pub current_average_value: Quantity,
}

/// `ContainerResourceMetricStatus` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerResourceMetricStatus {
    /// The resource.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// The current utilization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_average_utilization: Option<i32>,
    /// The current average value.
    #[serde(default, deserialize_with = "null_default")]
    pub current_average_value: Quantity,
    /// The container.
    #[serde(default, deserialize_with = "null_default")]
    pub container: String,
}

/// `ExternalMetricStatus` (v1 annotation form).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalMetricStatus {
    /// The metric name.
    #[serde(default, deserialize_with = "null_default")]
    pub metric_name: String,
    /// The metric selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_selector: Option<LabelSelector>,
    /// The current value.
    #[serde(default, deserialize_with = "null_default")]
    pub current_value: Quantity,
    /// The current average value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_average_value: Option<Quantity>,
}
