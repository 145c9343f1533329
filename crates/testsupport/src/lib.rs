//! Test support shared by kapi's crates (a dev-dependency only): real `etcd` processes on free
//! loopback ports, rcgen certificates, the example Widget conversion webhook, golden files.
//!
//! Everything here is for tests: it panics instead of returning errors.

pub mod certs;
pub mod envtest;
pub mod etcd;
pub mod golden;
pub mod net;
pub mod widget_webhook;
