//! resource.k8s.io/v1: dynamic resource allocation: DeviceClasses, ResourceClaims, ResourceSlices. The types are generated (`types.rs`, see `docs/api.md`).

mod types;

pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// resource.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "resource.k8s.io/v1";

/// Registers resource.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("resource.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
