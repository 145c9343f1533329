//! rbac.authorization.k8s.io/v1: Roles, ClusterRoles and their bindings. The types are generated (`types.rs`, see `docs/api.md`).

mod defaults;
mod types;

pub use defaults::{set_defaults_cluster_role_binding, set_defaults_role_binding};
pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// rbac.authorization.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "rbac.authorization.k8s.io/v1";

/// Registers rbac.authorization.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("rbac.authorization.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<RoleBinding>(set_defaults_role_binding);
    scheme.add_type_defaulting_func::<RoleBindingList>(|l| {
        l.items.iter_mut().for_each(set_defaults_role_binding)
    });
    scheme.add_type_defaulting_func::<ClusterRoleBinding>(set_defaults_cluster_role_binding);
    scheme.add_type_defaulting_func::<ClusterRoleBindingList>(|l| {
        l.items
            .iter_mut()
            .for_each(set_defaults_cluster_role_binding)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
