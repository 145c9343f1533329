//! scheduling.k8s.io/v1: PriorityClasses. The types are generated (`types.rs`, see `docs/api.md`).

mod defaults;
mod types;

pub use defaults::set_defaults_priority_class;
pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// scheduling.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "scheduling.k8s.io/v1";

/// Registers scheduling.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("scheduling.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<PriorityClass>(set_defaults_priority_class);
    scheme.add_type_defaulting_func::<PriorityClassList>(|l| {
        l.items.iter_mut().for_each(set_defaults_priority_class)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
