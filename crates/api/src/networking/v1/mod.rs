//! networking.k8s.io/v1: Ingresses, IngressClasses, NetworkPolicies, IPAddresses and ServiceCIDRs. The types are generated (`types.rs`, see `docs/api.md`).

mod defaults;
mod types;

pub use defaults::{set_defaults_ingress_class, set_defaults_network_policy};
pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// networking.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "networking.k8s.io/v1";

/// Registers networking.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("networking.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<NetworkPolicy>(set_defaults_network_policy);
    scheme.add_type_defaulting_func::<NetworkPolicyList>(|l| {
        l.items.iter_mut().for_each(set_defaults_network_policy)
    });
    scheme.add_type_defaulting_func::<IngressClass>(set_defaults_ingress_class);
    scheme.add_type_defaulting_func::<IngressClassList>(|l| {
        l.items.iter_mut().for_each(set_defaults_ingress_class)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
