//! A toolkit for writing Kubernetes CRD conversion and admission webhooks in Rust.
//!
//! Versions are Rust types that convert to and from a hub ([`Convertible`], [`Hub`]); they
//! are registered in a kapi-machinery Scheme ([`SchemeBuilder`]); a [`Converter`] answers
//! ConversionReview v1 and v1beta1 exactly as kube-apiserver checks them; with the default
//! `server` feature, [`service::router`] is the axum service and [`tls`] serves it over
//! HTTPS, and [`service::WebhookRouter`] serves conversion and admission ([`admission`]:
//! typed AdmissionReview requests in, a [`Verdict`] out) from one server; with `testing`,
//! [`testing`] proves every version round-trips through the hub.
//! Without default features only the wire types, the traits and the converter remain (no
//! HTTP dependencies), which is what a webhook *client* needs.
//!
//! See `docs/webhook.md` for a complete example.

pub mod admission;
#[cfg(feature = "server")]
pub mod cli;
pub mod converter;
pub mod convertible;
pub mod metadata;
pub mod review;
#[cfg(feature = "server")]
pub mod service;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "server")]
pub mod tls;

pub use admission::{AdmissionHandler, AdmissionRequest, AdmissionReview, Verdict};
pub use converter::{Converter, MalformedReview, ObjectError};
pub use convertible::{ConvertError, Convertible, Hub, SchemeBuilder, register_version};
pub use review::{ConversionRequest, ConversionResponse, ConversionReview, ReviewVersion};
