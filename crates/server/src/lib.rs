//! The Kubernetes REST API over HTTPS, generic over a resource registry.
//!
//! [`Server::bind`] bootstraps the data dir (CA, serving certificate, admin token,
//! kubeconfig), binds the port, and [`Server::run`] serves until shutdown. Requests under
//! `/api` and `/apis` are resolved per request against a [`registry::Registry`] of
//! [`registry::ResourceEntry`] values (built-ins from [`builtin`], custom resources added at
//! run time) and served by generic handlers.

pub mod admission;
pub mod api;
pub mod authn;
pub mod authz;
pub mod bootstrap;
pub mod discovery;
pub mod error_negotiation;
pub mod files;
pub mod handlers;
pub mod health;
pub mod impersonation;
pub mod listener;
pub mod metrics;
pub mod metrics_endpoint;
pub mod namespace_lifecycle;
pub mod negotiate;
pub mod oidc;
pub mod openapi;
mod openapi_cache;
mod openapi_schema_builders;
pub mod openapi_schemas;
mod openapi_schemas_core;
mod openapi_schemas_hpa;
mod openapi_schemas_meta;
pub mod openapi_v2;
pub mod openapi_v2_proto;
pub mod pki;
pub mod rbac_bootstrap;
pub mod request_info;
pub mod respond;
mod server;
pub mod service_accounts;
pub mod state;
pub mod status;
pub mod storage_versions;
pub mod tls;
pub mod token_file;

pub use server::{BoxError, Server, ServerError, ServerOptions};
pub use status::ApiError;
