//! apiextensions.k8s.io/v1: CustomResourceDefinition (+List), JSON only.
//!
//! The protobuf form of `JSONSchemaProps` (raw JSON bytes inside messages, either-or
//! wrappers) is not written: kube-apiserver stores CRDs as protobuf, but every client
//! reads and writes them as JSON, and kapi serves them as JSON.

mod register;
mod schema;
mod types;

pub use register::{GROUP_VERSION, add_to_scheme, set_defaults};
pub use schema::*;
pub use types::*;
