//! The built-in Kubernetes kinds (k8s.io/api and pkg/apis in Go): every group version
//! kube-apiserver 1.36 serves, generated from upstream's definitions by `kapi-apigen`
//! (`docs/api.md`); autoscaling v1 and v2 HorizontalPodAutoscaler through an internal
//! hub version and apiextensions.k8s.io/v1 CustomResourceDefinition stay hand-written.
//! Each group registers itself into a machinery `Scheme`.
//!
//! Every struct serves both JSON (serde, Go's field order and `omitempty`) and protobuf
//! (`proto_message!`, go-to-protobuf field numbers and Go's bytes).
//!
//! ```
//! let mut scheme = kapi_machinery::runtime::Scheme::new("example");
//! kapi_api::add_to_scheme(&mut scheme).unwrap();
//! ```

pub mod admissionregistration;
pub mod apiextensions;
pub mod apiregistration;
pub mod apps;
pub mod authentication;
pub mod authorization;
pub mod autoscaling;
pub mod batch;
pub mod certificates;
pub mod coordination;
pub mod core;
pub mod discovery;
pub mod events;
pub mod fields;
pub mod flowcontrol;
pub mod intstr;
pub mod meta;
pub mod networking;
pub mod node;
mod object;
pub mod openapi;
pub mod openapi_models;
pub mod policy;
pub mod proto;
pub mod rbac;
pub mod resource;
pub mod resource_api;
pub mod scheduling;
pub mod serde_util;
pub mod storage;

use kapi_machinery::runtime::{Result, Scheme};

/// Registers every built-in group (and meta.k8s.io/v1) into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    kapi_machinery::meta::v1::add_to_scheme(scheme)?;
    core::v1::add_to_scheme(scheme)?;
    apiregistration::v1::add_to_scheme(scheme)?;
    apps::v1::add_to_scheme(scheme)?;
    events::v1::add_to_scheme(scheme)?;
    authentication::v1::add_to_scheme(scheme)?;
    authorization::v1::add_to_scheme(scheme)?;
    autoscaling::add_to_scheme(scheme)?;
    batch::v1::add_to_scheme(scheme)?;
    certificates::v1::add_to_scheme(scheme)?;
    networking::v1::add_to_scheme(scheme)?;
    policy::v1::add_to_scheme(scheme)?;
    rbac::v1::add_to_scheme(scheme)?;
    storage::v1::add_to_scheme(scheme)?;
    admissionregistration::v1::add_to_scheme(scheme)?;
    apiextensions::v1::add_to_scheme(scheme)?;
    scheduling::v1::add_to_scheme(scheme)?;
    coordination::v1::add_to_scheme(scheme)?;
    node::v1::add_to_scheme(scheme)?;
    discovery::v1::add_to_scheme(scheme)?;
    resource_api::v1::add_to_scheme(scheme)?;
    flowcontrol::v1::add_to_scheme(scheme)?;
    Ok(())
}

/// A new Scheme with every built-in kind registered.
pub fn new_scheme() -> Result<Scheme> {
    let mut scheme = Scheme::new("kapi");
    add_to_scheme(&mut scheme)?;
    Ok(scheme)
}
