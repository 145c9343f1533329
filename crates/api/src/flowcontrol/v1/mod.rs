//! flowcontrol.apiserver.k8s.io/v1: API priority and fairness: FlowSchemas and PriorityLevelConfigurations. The types are generated (`types.rs`, see `docs/api.md`).

mod defaults;
mod types;

pub use defaults::{set_defaults_flow_schema, set_defaults_priority_level_configuration};
pub use types::*;

use kapi_machinery::runtime::{Result, Scheme};
use kapi_machinery::schema::GroupVersion;

/// flowcontrol.apiserver.k8s.io/v1's apiVersion.
pub const GROUP_VERSION: &str = "flowcontrol.apiserver.k8s.io/v1";

/// Registers flowcontrol.apiserver.k8s.io/v1 into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    let gv = GroupVersion::new("flowcontrol.apiserver.k8s.io", "v1");
    types::add_kinds(scheme, &gv)?;
    kapi_machinery::meta::v1::add_to_group_version(scheme, &gv)?;
    scheme.add_type_defaulting_func::<FlowSchema>(set_defaults_flow_schema);
    scheme.add_type_defaulting_func::<FlowSchemaList>(|l| {
        l.items.iter_mut().for_each(set_defaults_flow_schema)
    });
    scheme.add_type_defaulting_func::<PriorityLevelConfiguration>(
        set_defaults_priority_level_configuration,
    );
    scheme.add_type_defaulting_func::<PriorityLevelConfigurationList>(|l| {
        l.items
            .iter_mut()
            .for_each(set_defaults_priority_level_configuration)
    });
    scheme.set_version_priority(&[gv])?;
    Ok(())
}
