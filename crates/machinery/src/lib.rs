//! Kubernetes-style API machinery: schema, runtime, conversion and serializers, with no I/O.
//!
//! Start with [`runtime::Scheme`] (the type registry), [`runtime::Object`] (what every
//! object implements; the [`impl_object!`] macro writes it for serde + prost structs) and
//! [`serializer::CodecFactory`] (JSON, YAML and protobuf codecs with version conversion).

pub mod meta;
pub mod runtime;
pub mod schema;
pub mod serde_helpers;
pub mod serializer;
