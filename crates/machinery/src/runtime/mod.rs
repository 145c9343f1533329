//! The runtime layer: the `Object` trait, the `Scheme` registry, `Unknown`, `Unstructured`
//! and the errors (mirrors `k8s.io/apimachinery/pkg/runtime`).

mod error;
mod fast_hash;
mod object;
mod scheme;
mod scheme_convert;
mod scheme_versions;
mod unknown;
mod unstructured;

pub use error::{Decoded, Error, Result, StrictDecodingError};
pub use object::{Object, PROTO_TAG_API_VERSION, PROTO_TAG_KIND, TypedObject, downcast};
pub use scheme::{Scheme, default_meta_field_selector};
pub use unknown::{CONTENT_TYPE_JSON, CONTENT_TYPE_PROTOBUF, CONTENT_TYPE_YAML, Unknown};
pub use unstructured::{Unstructured, UnstructuredList};
