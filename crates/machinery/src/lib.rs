//! Kubernetes-style API machinery: schema, runtime, conversion and serializers, with no I/O.
//!
//! Start with [`runtime::Scheme`] (the type registry), [`runtime::Object`] (what every
//! object implements; the [`impl_object!`] macro writes it for serde + prost structs) and
//! [`serializer::CodecFactory`] (JSON, YAML and protobuf codecs with version conversion).
//!
//! ```
//! use std::sync::Arc;
//! use kapi_machinery::meta::v1::{self, Status};
//! use kapi_machinery::runtime::Scheme;
//! use kapi_machinery::serializer::{CodecFactory, Decoder, Encoder};
//!
//! let mut scheme = Scheme::new("example");
//! v1::add_to_scheme(&mut scheme).unwrap();
//! let codecs = CodecFactory::new(Arc::new(scheme));
//!
//! // Any supported format in, the registered Rust type out.
//! let data = br#"{"kind":"Status","apiVersion":"v1","status":"Failure","code":404}"#;
//! let decoded = codecs.universal_deserializer().decode(data, None, None).unwrap();
//! let status = decoded.object.downcast_ref::<Status>().unwrap();
//! assert_eq!(status.code, 404);
//!
//! // Out again as protobuf, with the `k8s\0` envelope.
//! let pb = &codecs.supported_media_types()[2].serializer;
//! assert!(pb.encode_to_vec(status).unwrap().starts_with(b"k8s\0"));
//! ```

pub mod meta;
pub mod runtime;
pub mod schema;
pub mod serde_helpers;
pub mod serializer;
