//! node.k8s.io/v1: RuntimeClasses. The types are generated (`types.rs`, see `docs/api.md`).

mod types;

pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// node.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "node.k8s.io/v1";

/// Registers node.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("node.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
