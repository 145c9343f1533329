//! Discovery documents: APIVersions, APIGroupList, APIGroup, APIResourceList, APIResource.

use crate::serde_helpers::null_as_default as nd;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use serde::{Deserialize, Serialize};

/// The versions of the legacy core API (`GET /api`).
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct APIVersions {
    /// Kind (`APIVersions`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    /// API version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    /// The versions (`["v1"]`).
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, repeated, tag = "1")]
    pub versions: Vec<String>,
    /// Server addresses per client CIDR (no omitempty in Go).
    #[serde(
        rename = "serverAddressByClientCIDRs",
        default,
        deserialize_with = "nd"
    )]
    #[prost(message, repeated, tag = "2")]
    pub server_address_by_client_cidrs: Vec<ServerAddressByClientCIDR>,
}

/// Where clients of a CIDR reach the server.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
pub struct ServerAddressByClientCIDR {
    /// The client CIDR.
    #[serde(rename = "clientCIDR", default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub client_cidr: String,
    /// The address (host:port) for those clients.
    #[serde(rename = "serverAddress", default, deserialize_with = "nd")]
    #[prost(string, required, tag = "2")]
    pub server_address: String,
}

/// The groups served (`GET /apis`).
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct APIGroupList {
    /// Kind (`APIGroupList`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    /// API version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    /// The groups.
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, repeated, tag = "1")]
    pub groups: Vec<APIGroup>,
}

/// One group and its versions (`GET /apis/GROUP`).
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct APIGroup {
    /// Kind (`APIGroup`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    /// API version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    /// Group name.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub name: String,
    /// Versions served.
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, repeated, tag = "2")]
    pub versions: Vec<GroupVersionForDiscovery>,
    /// The preferred version (always written: Go's omitempty does not omit structs).
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, required, tag = "3")]
    pub preferred_version: GroupVersionForDiscovery,
    /// Server addresses per client CIDR.
    #[serde(
        rename = "serverAddressByClientCIDRs",
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[prost(message, repeated, tag = "4")]
    pub server_address_by_client_cidrs: Vec<ServerAddressByClientCIDR>,
}

/// A group version as listed in discovery.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct GroupVersionForDiscovery {
    /// `group/version`.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub group_version: String,
    /// The version alone.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "2")]
    pub version: String,
}

/// The resources of one group version (`GET /apis/GROUP/VERSION`).
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct APIResourceList {
    /// Kind (`APIResourceList`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    /// API version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    /// The group version.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub group_version: String,
    /// The resources.
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, repeated, tag = "2")]
    pub resources: Vec<APIResource>,
}

/// One resource as listed in discovery.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct APIResource {
    /// Plural name (`configmaps`, `deployments/scale`).
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "1")]
    pub name: String,
    /// Singular name.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "6")]
    pub singular_name: String,
    /// True if namespaced.
    #[serde(default, deserialize_with = "nd")]
    #[prost(bool, required, tag = "2")]
    pub namespaced: bool,
    /// Group, when it differs from the list's (subresources).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "8")]
    pub group: String,
    /// Version, when it differs from the list's.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "9")]
    pub version: String,
    /// Kind.
    #[serde(default, deserialize_with = "nd")]
    #[prost(string, required, tag = "3")]
    pub kind: String,
    /// Verbs supported.
    #[serde(default, deserialize_with = "nd")]
    #[prost(message, required, tag = "4")]
    pub verbs: Verbs,
    /// Short names.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[prost(string, repeated, tag = "5")]
    pub short_names: Vec<String>,
    /// Categories (e.g. `all`).
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "Vec::is_empty"
    )]
    #[prost(string, repeated, tag = "7")]
    pub categories: Vec<String>,
    /// Hash of the storage version.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    #[prost(string, required, tag = "10")]
    pub storage_version_hash: String,
}

/// A list of verbs; JSON is a plain array, protobuf a message `{repeated string items = 1}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Verbs(pub Vec<String>);

impl prost::Message for Verbs {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        encoding::string::encode_repeated(1, &self.0, buf);
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        match tag {
            1 => encoding::string::merge_repeated(wt, &mut self.0, buf, ctx),
            _ => encoding::skip_field(wt, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        encoding::string::encoded_len_repeated(1, &self.0)
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

crate::impl_object!(APIVersions, no_meta, protobuf);
crate::impl_object!(APIGroupList, no_meta, protobuf);
crate::impl_object!(APIGroup, no_meta, protobuf);
crate::impl_object!(APIResourceList, no_meta, protobuf);
