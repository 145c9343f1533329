//! core/v1: the legacy group (`/api/v1`). The types are generated (`types.rs`, see
//! `docs/api.md`); defaults and field labels are in `register.rs`.

mod register;
mod types;

pub use register::{
    GROUP_VERSION, LABEL_METADATA_NAME, NAMESPACE_ACTIVE, SECRET_TYPE_OPAQUE, add_to_scheme,
    set_defaults_namespace, set_defaults_secret,
};
pub use types::*;
