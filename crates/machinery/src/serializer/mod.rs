//! Serializers: JSON, YAML and protobuf with Kubernetes' decode rules, the recognizer, stream
//! framers, watch-event encoding, the versioning codec and the CodecFactory.
//!
//! Small traits, decorators around them (mirrors `k8s.io/apimachinery/pkg/runtime/serializer`).

mod codec_factory;
mod duplicates;
pub mod framer;
mod go_json;
pub mod json;
mod meta_find;
mod proto_entry;
mod proto_maps;
pub mod proto_wire;
pub mod protobuf;
pub mod recognizer;
pub mod streaming;
pub mod versioning;
pub mod watch;
pub mod yaml;
mod yaml_fast;

pub use codec_factory::{
    CodecFactory, SerializerInfo, StreamSerializerInfo, WithoutConversionCodecFactory,
};
pub use json::{JsonSerializer, SerializerOptions};
pub use protobuf::{ProtobufSerializer, RawProtobufSerializer};
pub use recognizer::RecognizingDecoder;
pub use versioning::{SharedVersioner, VersioningCodec, WithVersionEncoder, WithoutVersionDecoder};
pub use yaml::YamlSerializer;

use crate::runtime::{Decoded, Object, Result};
use crate::schema::GroupVersionKind;
use std::sync::Arc;

/// Writes objects as bytes (Go's `runtime.Encoder`).
pub trait Encoder: Send + Sync {
    /// Appends the encoded form of `obj` to `out`.
    fn encode(&self, obj: &dyn Object, out: &mut Vec<u8>) -> Result<()>;
    /// Identifies the encoder and its options (a cache key, R2.15).
    fn identifier(&self) -> String;

    /// Encodes into a fresh buffer.
    fn encode_to_vec(&self, obj: &dyn Object) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.encode(obj, &mut out)?;
        Ok(out)
    }
}

/// Reads objects from bytes (Go's `runtime.Decoder`).
///
/// `defaults` fills a missing group/version/kind; `into` is a type hint: the result is of
/// `into`'s type when it fits (it is never modified). A strict decoding error carries the
/// object decoded anyway (see [`crate::runtime::StrictDecodingError`]).
pub trait Decoder: Send + Sync {
    /// Decodes `data`.
    fn decode(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Result<Decoded>;
}

/// Both an encoder and a decoder.
pub trait Serializer: Encoder + Decoder {}
impl<T: Encoder + Decoder> Serializer for T {}

/// A shared encoder.
pub type SharedEncoder = Arc<dyn Encoder>;
/// A shared decoder.
pub type SharedDecoder = Arc<dyn Decoder>;
/// A shared serializer.
pub type SharedSerializer = Arc<dyn Serializer>;
