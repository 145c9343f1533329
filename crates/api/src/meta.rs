//! The meta/v1 types the built-in kinds embed, from kapi-machinery.

pub use kapi_machinery::meta::v1::{
    Condition, DeleteOptions, FieldSelectorRequirement, LabelSelector, LabelSelectorRequirement,
    ListMeta, MicroTime, ObjectMeta, OwnerReference, RawExtension, Time,
};
