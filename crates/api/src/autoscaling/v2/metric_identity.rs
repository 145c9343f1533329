//! What a metric is about, shared by the HPA's spec (`types`) and its status
//! (`metric_status`): the referenced object and the metric's name and selector.

use crate::meta::LabelSelector;
use crate::serde_util::null_default;
use serde::{Deserialize, Serialize};

/// `CrossVersionObjectReference`: the object to scale or to read a metric from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CrossVersionObjectReference {
    /// Kind of the referent.
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    /// Name of the referent.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// API version of the referent.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub api_version: String,
}
crate::proto_message!(CrossVersionObjectReference {
    kind: string = 1,
    name: string = 2,
    api_version: string = 3
});

/// `MetricIdentifier`: a metric name and selector.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetricIdentifier {
    /// The metric name.
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// Narrows the metric down.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}
crate::proto_message!(MetricIdentifier {
    name: string = 1,
    selector: opt_msg = 2
});
