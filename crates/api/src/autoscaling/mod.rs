//! The autoscaling API group: HorizontalPodAutoscaler in v1 and v2, converted through an
//! internal hub version exactly as Kubernetes does, stored and preferred as v2.

pub mod annotations;
pub mod internal;
mod register;
pub mod v1;
pub mod v2;

pub use register::{GROUP_NAME, add_to_scheme};
