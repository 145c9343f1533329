//! coordination.k8s.io/v1: Lease and LeaseList.

mod register;

pub use register::{GROUP_VERSION, add_to_scheme};

use crate::meta::{ListMeta, MicroTime, ObjectMeta};
use crate::serde_util::null_default;
use serde::{Deserialize, Serialize};

/// A Lease: a lock with a holder and a duration (coordination/v1 `Lease`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
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
    /// The lease itself.
    #[serde(default, deserialize_with = "null_default")]
    pub spec: LeaseSpec,
}
crate::proto_message!(Lease {
    metadata: msg_maps = 1,
    spec: msg = 2
});

/// `LeaseSpec`: holder, duration and timestamps of a lease.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseSpec {
    /// Who holds the lease.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder_identity: Option<String>,
    /// How long candidates wait before taking it over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_duration_seconds: Option<i32>,
    /// When the current holder acquired it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acquire_time: Option<MicroTime>,
    /// When the holder last renewed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_time: Option<MicroTime>,
    /// How many times the holder changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_transitions: Option<i32>,
    /// Coordinated leader election strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// A better holder the current one should yield to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_holder: Option<String>,
}
crate::proto_message!(LeaseSpec {
    holder_identity: opt_string = 1,
    lease_duration_seconds: opt_int32 = 2,
    acquire_time: opt_msg = 3,
    renew_time: opt_msg = 4,
    lease_transitions: opt_int32 = 5,
    strategy: opt_string = 6,
    preferred_holder: opt_string = 7,
});

/// `LeaseList`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseList {
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
    /// The leases.
    #[serde(default, deserialize_with = "null_default")]
    pub items: Vec<Lease>,
}
crate::proto_message!(LeaseList {
    metadata: msg_maps = 1,
    items: msgs_maps = 2
});
