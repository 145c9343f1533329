//! Group, version, kind and resource identifiers, and the rules to pick a target kind.
//!
//! Mirrors `k8s.io/apimachinery/pkg/runtime/schema` (R1.15, R1.20).

mod group_version;
mod group_versioner;

pub use group_version::{
    GroupKind, GroupResource, GroupVersion, GroupVersionKind, GroupVersionResource, ParseError,
};
pub use group_versioner::{
    DisabledGroupVersioner, GroupVersioner, GroupVersions, InternalGroupVersioner,
    MultiGroupVersioner,
};

/// The version name of a group's internal (hub) version (`__internal`).
pub const INTERNAL_VERSION: &str = "__internal";
