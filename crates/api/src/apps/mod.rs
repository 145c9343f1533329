//! The apps API group.

pub mod v1;
