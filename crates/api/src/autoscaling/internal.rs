//! The internal (hub) autoscaling version: every external version converts to and from it.
//!
//! Kubernetes' internal autoscaling types have the shape of autoscaling/v2 field for field,
//! so the hub reuses the v2 spec and status structs; it is a type of its own so that the
//! Scheme can tell it apart (`autoscaling/__internal`).

use super::v2::{HorizontalPodAutoscalerSpec, HorizontalPodAutoscalerStatus};
use crate::meta::ObjectMeta;
use crate::serde_util::null_default;
use serde::{Deserialize, Serialize};

/// The hub HorizontalPodAutoscaler.
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

/// The hub HorizontalPodAutoscalerList.
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
    pub metadata: crate::meta::ListMeta,
    /// The autoscalers.
    #[serde(default, deserialize_with = "null_default")]
    pub items: Vec<HorizontalPodAutoscaler>,
}
