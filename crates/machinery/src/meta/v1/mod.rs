//! `meta.k8s.io/v1`: ObjectMeta, ListMeta, Time, Status, WatchEvent, discovery documents,
//! Table, PartialObjectMetadata, request options, LabelSelector, Condition.
//!
//! Real structs with serde (Go's JSON field order and omitempty) and prost (go-to-protobuf
//! field numbers, Go's always-sent non-pointer fields).

mod discovery;
mod label_selector;
mod object_meta;
mod options;
mod status;
mod table;
mod time;
mod watch;

pub use discovery::{
    APIGroup, APIGroupList, APIResource, APIResourceList, APIVersions, GroupVersionForDiscovery,
    ServerAddressByClientCIDR, Verbs,
};
pub use label_selector::{
    Condition, FieldSelectorRequirement, LabelSelector, LabelSelectorRequirement,
};
pub use object_meta::{
    FieldsV1, ListMeta, ManagedFieldsEntry, ObjectMeta, OwnerReference, ShardInfo,
};
pub use options::{DeleteOptions, GetOptions, ListOptions, Preconditions, WriteOptions};
pub use status::{STATUS_FAILURE, STATUS_SUCCESS, Status, StatusCause, StatusDetails};
pub use table::{
    PartialObjectMetadata, PartialObjectMetadataList, Table, TableColumnDefinition, TableRow,
    TableRowCondition,
};
pub use time::{MicroTime, Time};
pub use watch::{
    ADDED, BOOKMARK, DELETED, ERROR, INITIAL_EVENTS_END_ANNOTATION, MODIFIED, RawExtension,
    WatchEvent,
};

use crate::runtime::{Result, Scheme};
use crate::schema::GroupVersion;

/// The group of the meta kinds.
pub const GROUP_NAME: &str = "meta.k8s.io";

/// `meta.k8s.io/v1`.
pub fn scheme_group_version() -> GroupVersion {
    GroupVersion::new(GROUP_NAME, "v1")
}

/// The version the unversioned kinds (Status, discovery documents) are written in: `v1`.
pub fn unversioned() -> GroupVersion {
    GroupVersion::new("", "v1")
}

/// Registers what every group version carries, as Go's `metav1.AddToGroupVersion`:
/// WatchEvent (R2.27), the option kinds, and the unversioned kinds in `v1`.
pub fn add_to_group_version(scheme: &mut Scheme, gv: &GroupVersion) -> Result<()> {
    scheme.add_known_type::<WatchEvent>(gv.with_kind("WatchEvent"))?;
    scheme.add_known_type::<ListOptions>(gv.with_kind("ListOptions"))?;
    scheme.add_known_type::<GetOptions>(gv.with_kind("GetOptions"))?;
    scheme.add_known_type::<DeleteOptions>(gv.with_kind("DeleteOptions"))?;
    scheme.add_known_type::<WriteOptions>(gv.with_kind("CreateOptions"))?;
    scheme.add_known_type::<WriteOptions>(gv.with_kind("UpdateOptions"))?;
    scheme.add_known_type::<WriteOptions>(gv.with_kind("PatchOptions"))?;
    let uv = unversioned();
    scheme.add_unversioned_type::<Status>(&uv, "Status")?;
    scheme.add_unversioned_type::<APIVersions>(&uv, "APIVersions")?;
    scheme.add_unversioned_type::<APIGroupList>(&uv, "APIGroupList")?;
    scheme.add_unversioned_type::<APIGroup>(&uv, "APIGroup")?;
    scheme.add_unversioned_type::<APIResourceList>(&uv, "APIResourceList")?;
    Ok(())
}

/// Registers `meta.k8s.io/v1`: Table, PartialObjectMetadata(List) and the common kinds.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = scheme_group_version();
    add_to_group_version(scheme, &gv)?;
    scheme.add_known_type::<Table>(gv.with_kind("Table"))?;
    scheme.add_known_type::<PartialObjectMetadata>(gv.with_kind("PartialObjectMetadata"))?;
    scheme
        .add_known_type::<PartialObjectMetadataList>(gv.with_kind("PartialObjectMetadataList"))?;
    Ok(())
}
