//! events.k8s.io/v1: the structured Event. The types are generated (`types.rs`, see `docs/api.md`);
//! the conversion to and from core/v1's Event, which stores both, is `conversion.rs`.

mod conversion;
mod types;

pub use conversion::{from_core, to_core};

pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// events.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "events.k8s.io/v1";

/// Registers events.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("events.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    // One resource with core/v1 Events: stored as core/v1, converted directly.
    scheme.add_conversion_func(|e: Event| Ok(to_core(e)));
    scheme.add_conversion_func(|e: crate::core::v1::Event| Ok(from_core(e)));
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
