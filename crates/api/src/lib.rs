//! The built-in Kubernetes kinds (k8s.io/api and pkg/apis in Go): core/v1 Namespace,
//! ConfigMap, Secret and Event; coordination.k8s.io/v1 Lease; autoscaling v1 and v2
//! HorizontalPodAutoscaler through an internal hub version; apiextensions.k8s.io/v1
//! CustomResourceDefinition. Each group registers itself into a machinery `Scheme`.
//!
//! Every struct serves both JSON (serde, Go's field order and `omitempty`) and protobuf
//! (`proto_message!`, go-to-protobuf field numbers and Go's bytes).
//!
//! ```
//! let mut scheme = kapi_machinery::runtime::Scheme::new("example");
//! kapi_api::add_to_scheme(&mut scheme).unwrap();
//! ```

pub mod apiextensions;
pub mod autoscaling;
pub mod coordination;
pub mod core;
pub mod fields;
pub mod meta;
mod object;
pub mod proto;
pub mod resource;
pub mod serde_util;

use kapi_machinery::runtime::{Result, Scheme};

/// Registers every built-in group (and meta.k8s.io/v1) into `scheme`.
pub fn add_to_scheme(scheme: &mut Scheme) -> Result<()> {
    kapi_machinery::meta::v1::add_to_scheme(scheme)?;
    core::v1::add_to_scheme(scheme)?;
    coordination::v1::add_to_scheme(scheme)?;
    autoscaling::add_to_scheme(scheme)?;
    apiextensions::v1::add_to_scheme(scheme)?;
    Ok(())
}

/// A new Scheme with every built-in kind registered.
pub fn new_scheme() -> Result<Scheme> {
    let mut scheme = Scheme::new("kapi");
    add_to_scheme(&mut scheme)?;
    Ok(scheme)
}
