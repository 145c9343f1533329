//! Registration of coordination.k8s.io/v1.

use super::{Lease, LeaseList};
use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// coordination.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "coordination.k8s.io/v1";

crate::impl_kind!(Lease, object_meta, protobuf);
crate::impl_kind!(LeaseList, list_meta, protobuf);

/// Registers coordination.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("coordination.k8s.io", "v1");
    scheme.add_known_type::<Lease>(gv.with_kind("Lease"))?;
    scheme.add_known_type::<LeaseList>(gv.with_kind("LeaseList"))?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
