//! autoscaling/v1 Scale: the `/scale` subresource of scalable resources (and of custom
//! resources with a scale subresource, R8.17).

use crate::meta::ObjectMeta;
use crate::serde_util::{is_zero_i32, null_default};
use serde::{Deserialize, Serialize};

/// A Scale: desired and observed replicas of a scalable resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scale {
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
    /// The scaled object's metadata.
    #[serde(default, deserialize_with = "null_default")]
    pub metadata: ObjectMeta,
    /// Desired replicas.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: ScaleSpec,
    /// Observed replicas and selector.
    #[serde(default, deserialize_with = "null_default")]
    pub status: ScaleStatus,
}
crate::proto_message!(Scale {
    metadata: msg_maps = 1,
    spec: msg = 2,
    status: msg = 3
});

/// `ScaleSpec`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleSpec {
    /// Desired replicas.
    #[serde(
        default,
        skip_serializing_if = "is_zero_i32",
        deserialize_with = "null_default"
    )]
    pub replicas: i32,
}
crate::proto_message!(ScaleSpec {
    replicas: int32 = 1
});

/// `ScaleStatus`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleStatus {
    /// Observed replicas (always written).
    #[serde(default, deserialize_with = "null_default")]
    pub replicas: i32,
    /// Label selector of the pods, in string form.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub selector: String,
}
crate::proto_message!(ScaleStatus {
    replicas: int32 = 1,
    selector: string = 2
});
