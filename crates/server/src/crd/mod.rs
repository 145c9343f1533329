//! The CRD controller: registry entries follow the CRDs in storage. The entries themselves
//! (codec, strategy, table of each served version) are built by `kapi_registry::crd`.

pub mod controller;

pub use controller::start_crd_controller;
