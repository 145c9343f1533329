//! The Kubernetes REST API over HTTPS, generic over a resource registry.
//!
//! [`Server::bind`] bootstraps the data dir (CA, serving certificate, admin token,
//! kubeconfig), binds the port, and [`Server::run`] serves until shutdown.

pub mod authn;
mod files;
pub mod health;
pub mod listener;
pub mod metrics;
pub mod pki;
mod server;
pub mod status;
pub mod tls;

pub use server::{Server, ServerError, ServerOptions};
pub use status::ApiError;
pub mod request_info;
