//! The versioning codec: converts to the target version on encode and to the decode version
//! (usually the hub) with defaulting on decode (R3.5, R3.6); plus the two GVK-only wrappers
//! used without conversion (R3.4). The caller's object is never changed.

use super::{Decoder, Encoder, SharedDecoder, SharedEncoder};
use crate::runtime::{
    Decoded, Error, Object, Result, Scheme, Unknown, Unstructured, UnstructuredList,
};
use crate::schema::{GroupVersionKind, GroupVersioner};
use std::any::Any;
use std::sync::Arc;

/// A shared group versioner.
pub type SharedVersioner = Arc<dyn GroupVersioner>;

/// Encoder and decoder with version conversion through a Scheme.
#[derive(Clone)]
pub struct VersioningCodec {
    scheme: Arc<Scheme>,
    encoder: Option<SharedEncoder>,
    decoder: Option<SharedDecoder>,
    encode_version: Option<SharedVersioner>,
    decode_version: Option<SharedVersioner>,
    defaulting: bool,
}

impl std::fmt::Debug for VersioningCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VersioningCodec")
            .field("encode_version", &self.encode_version)
            .field("decode_version", &self.decode_version)
            .finish()
    }
}

fn is_unstructured(obj: &dyn Object) -> bool {
    obj.is::<Unstructured>() || obj.is::<UnstructuredList>()
}

fn same_type(a: &dyn Object, b: &dyn Object) -> bool {
    (a as &dyn Any).type_id() == (b as &dyn Any).type_id()
}

impl VersioningCodec {
    /// A codec; `None` versions mean "no conversion" on that side, `defaulting` applies the
    /// Scheme's defaulting functions on decode.
    pub fn new(
        scheme: Arc<Scheme>,
        encoder: Option<SharedEncoder>,
        decoder: Option<SharedDecoder>,
        encode_version: Option<SharedVersioner>,
        decode_version: Option<SharedVersioner>,
        defaulting: bool,
    ) -> Self {
        Self {
            scheme,
            encoder,
            decoder,
            encode_version,
            decode_version,
            defaulting,
        }
    }

    fn inner_encoder(&self) -> Result<&SharedEncoder> {
        self.encoder
            .as_ref()
            .ok_or_else(|| Error::Encode("this codec has no encoder".into()))
    }

    /// Encodes `obj` with its GVK set to `gvk`, copying only when the GVK differs.
    fn encode_with_gvk(
        &self,
        obj: &dyn Object,
        gvk: &GroupVersionKind,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let encoder = self.inner_encoder()?;
        if obj.api_version() == gvk.api_version() && obj.kind() == gvk.kind {
            return encoder.encode(obj, out);
        }
        let mut copy = obj.clone_object();
        copy.set_group_version_kind(gvk);
        encoder.encode(&*copy, out)
    }

    /// Unstructured objects whose version is empty or already the target pass untouched.
    fn unstructured_passes(&self, obj: &dyn Object) -> Result<bool> {
        let gvk = obj.group_version_kind();
        if gvk.version.is_empty() && obj.is::<Unstructured>() {
            return Ok(true);
        }
        let Some(target) = &self.encode_version else {
            return Ok(false);
        };
        match target.kind_for_group_version_kinds(std::slice::from_ref(&gvk)) {
            None => Err(Error::NotRegisteredGvkForTarget {
                gvk,
                target: target.identifier(),
                scheme: self.scheme.name().to_string(),
            }),
            Some(t) => Ok(t == gvk),
        }
    }

    fn finish_decode(
        &self,
        mut obj: Box<dyn Object>,
        gvk: GroupVersionKind,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        if self.defaulting {
            self.scheme.default(&mut *obj);
        }
        if let Some(into) = into {
            if same_type(&*obj, into) {
                return Ok(Decoded { object: obj, gvk });
            }
            let mut out = into.new_empty();
            self.scheme
                .convert(&*obj, &mut *out, self.decode_version.as_deref())?;
            return Ok(Decoded { object: out, gvk });
        }
        let object = match &self.decode_version {
            Some(v) => self.scheme.unsafe_convert_to_version(obj, &**v)?,
            None => obj,
        };
        Ok(Decoded { object, gvk })
    }
}

impl Encoder for VersioningCodec {
    fn encode(&self, obj: &dyn Object, out: &mut Vec<u8>) -> Result<()> {
        let encoder = self.inner_encoder()?;
        if obj.is::<Unknown>() {
            return encoder.encode(obj, out);
        }
        if is_unstructured(obj) && self.unstructured_passes(obj)? {
            return encoder.encode(obj, out);
        }
        let (kinds, unversioned) = self.scheme.object_kinds(obj)?;
        let Some(target) = self.encode_version.as_ref().filter(|_| !unversioned) else {
            return self.encode_with_gvk(obj, &kinds[0], out);
        };
        if let Some(gvk) = target.kind_for_group_version_kinds(&kinds)
            && kinds.contains(&gvk)
        {
            return self.encode_with_gvk(obj, &gvk, out);
        }
        let converted = self.scheme.convert_to_version(obj, &**target)?;
        encoder.encode(&*converted, out)
    }

    fn identifier(&self) -> String {
        let enc = self
            .encoder
            .as_ref()
            .map(|e| e.identifier())
            .unwrap_or_default();
        let v = self
            .encode_version
            .as_ref()
            .map(|v| v.identifier())
            .unwrap_or_default();
        format!(r#"{{"encodeGV":"{v}","encoder":{enc},"name":"versioning"}}"#)
    }
}

impl Decoder for VersioningCodec {
    fn decode(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        let decoder = self
            .decoder
            .as_ref()
            .ok_or_else(|| Error::Decode("this codec has no decoder".into()))?;
        // Decoding always makes a fresh object, so `into` itself is never touched (R3.5).
        let (decoded, strict) = match decoder.decode(data, defaults, into) {
            Ok(d) => (d, Vec::new()),
            Err(Error::StrictDecoding(e)) if e.decoded.is_some() => {
                let decoded = e
                    .decoded
                    .map(|d| *d)
                    .ok_or_else(|| Error::Decode("lost object".into()))?;
                (decoded, e.errors)
            }
            Err(e) => return Err(e),
        };
        if decoded.object.is::<Unknown>() {
            return Ok(decoded);
        }
        let result = self.finish_decode(decoded.object, decoded.gvk, into)?;
        if strict.is_empty() {
            Ok(result)
        } else {
            Err(Error::strict(strict, Some(result)))
        }
    }
}

/// Encodes with the GVK set to the target's pick among the object's kinds, no conversion;
/// unregistered objects are encoded as they are (R3.4).
#[derive(Clone)]
pub struct WithVersionEncoder {
    /// The wrapped encoder.
    pub encoder: SharedEncoder,
    /// The version to label objects with.
    pub version: SharedVersioner,
    /// The Scheme that knows the kinds.
    pub scheme: Arc<Scheme>,
}

impl Encoder for WithVersionEncoder {
    fn encode(&self, obj: &dyn Object, out: &mut Vec<u8>) -> Result<()> {
        let Ok((kinds, _)) = self.scheme.object_kinds(obj) else {
            return self.encoder.encode(obj, out);
        };
        let gvk = self
            .version
            .kind_for_group_version_kinds(&kinds)
            .unwrap_or_else(|| kinds[0].clone());
        if obj.group_version_kind() == gvk {
            return self.encoder.encode(obj, out);
        }
        let mut copy = obj.clone_object();
        copy.set_group_version_kind(&gvk);
        self.encoder.encode(&*copy, out)
    }

    fn identifier(&self) -> String {
        self.encoder.identifier()
    }
}

/// Decodes and clears the decoded object's GVK (R3.4).
#[derive(Clone)]
pub struct WithoutVersionDecoder {
    /// The wrapped decoder.
    pub decoder: SharedDecoder,
}

impl Decoder for WithoutVersionDecoder {
    fn decode(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        let mut decoded = self.decoder.decode(data, defaults, into)?;
        decoded
            .object
            .set_api_version_and_kind(String::new(), String::new());
        Ok(decoded)
    }
}
