//! core/v1: the legacy group (`/api/v1`). The types are generated (`types.rs`, see
//! `docs/api.md`); defaults and field labels are in `register.rs`.

mod defaults;
mod register;
mod types;
mod volume_defaults;

pub use defaults::{
    set_defaults_container, set_defaults_endpoints, set_defaults_limit_range, set_defaults_node,
    set_defaults_pod, set_defaults_pod_spec, set_defaults_pod_template_spec,
    set_defaults_replication_controller, set_defaults_resource_list, set_defaults_resource_quota,
    set_defaults_service,
};
pub use register::{
    GROUP_VERSION, LABEL_METADATA_NAME, NAMESPACE_ACTIVE, SECRET_TYPE_OPAQUE, add_to_scheme,
    set_defaults_namespace, set_defaults_secret,
};
pub use types::*;
pub use volume_defaults::{
    set_defaults_persistent_volume_source, set_defaults_pv, set_defaults_pvc, set_defaults_pvc_spec,
};
