//! The policy API group.

pub mod v1;
