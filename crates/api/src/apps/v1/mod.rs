//! apps/v1: Deployments, ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions. The types are generated (`types.rs`, see `docs/api.md`).

mod types;

pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// apps/v1's apiVersion.
pub const GROUP_VERSION: &str = "apps/v1";

/// Registers apps/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("apps", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
