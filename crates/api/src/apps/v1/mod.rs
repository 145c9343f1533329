//! apps/v1: Deployments, ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions. The types are generated (`types.rs`, see `docs/api.md`).

mod defaults;
mod types;

pub use defaults::{
    set_defaults_daemon_set, set_defaults_deployment, set_defaults_replica_set,
    set_defaults_stateful_set,
};
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
    scheme.add_type_defaulting_func::<Deployment>(set_defaults_deployment);
    scheme.add_type_defaulting_func::<DeploymentList>(|l| {
        l.items.iter_mut().for_each(set_defaults_deployment)
    });
    scheme.add_type_defaulting_func::<ReplicaSet>(set_defaults_replica_set);
    scheme.add_type_defaulting_func::<ReplicaSetList>(|l| {
        l.items.iter_mut().for_each(set_defaults_replica_set)
    });
    scheme.add_type_defaulting_func::<StatefulSet>(set_defaults_stateful_set);
    scheme.add_type_defaulting_func::<StatefulSetList>(|l| {
        l.items.iter_mut().for_each(set_defaults_stateful_set)
    });
    scheme.add_type_defaulting_func::<DaemonSet>(set_defaults_daemon_set);
    scheme.add_type_defaulting_func::<DaemonSetList>(|l| {
        l.items.iter_mut().for_each(set_defaults_daemon_set)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
