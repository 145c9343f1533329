//! resource.k8s.io/v1: dynamic resource allocation: DeviceClasses, ResourceClaims, ResourceSlices. The types are generated (`types.rs`, see `docs/api.md`).

mod defaults;
mod types;

pub use defaults::{
    set_defaults_resource_claim, set_defaults_resource_claim_template, set_defaults_resource_slice,
};
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
    scheme.add_type_defaulting_func::<ResourceClaim>(set_defaults_resource_claim);
    scheme.add_type_defaulting_func::<ResourceClaimList>(|l| {
        l.items.iter_mut().for_each(set_defaults_resource_claim)
    });
    scheme.add_type_defaulting_func::<ResourceClaimTemplate>(set_defaults_resource_claim_template);
    scheme.add_type_defaulting_func::<ResourceClaimTemplateList>(|l| {
        l.items
            .iter_mut()
            .for_each(set_defaults_resource_claim_template)
    });
    scheme.add_type_defaulting_func::<ResourceSlice>(set_defaults_resource_slice);
    scheme.add_type_defaulting_func::<ResourceSliceList>(|l| {
        l.items.iter_mut().for_each(set_defaults_resource_slice)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
