//! node.k8s.io/v1: RuntimeClasses. The types are generated (`types.rs`, see `docs/api.md`);
//! a RuntimeClass's overhead is rounded up to milli-units.

mod types;

pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// node.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "node.k8s.io/v1";

/// The generated defaulter of a RuntimeClass: its pod overhead rounded up to milli-units
/// (core/v1's `SetDefaults_ResourceList`).
pub fn set_defaults_runtime_class(r: &mut RuntimeClass) {
    if let Some(o) = &mut r.overhead {
        crate::core::v1::set_defaults_resource_list(&mut o.pod_fixed);
    }
}

/// Registers node.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("node.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<RuntimeClass>(set_defaults_runtime_class);
    scheme.add_type_defaulting_func::<RuntimeClassList>(|l| {
        l.items.iter_mut().for_each(set_defaults_runtime_class)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
