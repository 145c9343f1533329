//! The protobuf serializer: `k8s\0` + a `runtime.Unknown` envelope around the object's own
//! message (R2.16–R2.20), wire-compatible with Kubernetes.

use super::{Decoder, Encoder};
use crate::runtime::{CONTENT_TYPE_PROTOBUF, Decoded, Error, Object, Result, Scheme, Unknown};
use crate::runtime::{PROTO_TAG_API_VERSION, PROTO_TAG_KIND};
use crate::schema::GroupVersionKind;
use prost::encoding::{self, DecodeContext, WireType, decode_key, decode_varint, encode_varint};
use std::sync::Arc;

/// The magic prefix of Kubernetes protobuf data.
pub const PREFIX: [u8; 4] = [0x6b, 0x38, 0x73, 0x00];

/// Room left for a length varint before the body is known (max varint of a usize).
const LEN_ROOM: usize = 10;

/// Appends `msg` without the two TypeMeta fields typed structs carry under the reserved tags
/// (they sort last, so they are cut off the end).
pub fn encode_typed_message<M: prost::Message>(
    msg: &M,
    api_version: &str,
    kind: &str,
    out: &mut Vec<u8>,
) {
    out.reserve(msg.encoded_len());
    msg.encode_raw(out);
    let mut cut = 0;
    if !api_version.is_empty() {
        cut += encoding::string::encoded_len(PROTO_TAG_API_VERSION, &api_version.to_string());
    }
    if !kind.is_empty() {
        cut += encoding::string::encoded_len(PROTO_TAG_KIND, &kind.to_string());
    }
    out.truncate(out.len() - cut);
}

/// Decodes a typed struct's message.
pub fn decode_typed_message<M: prost::Message + Default>(data: &[u8]) -> Result<M> {
    M::decode(data).map_err(|e| Error::Decode(e.to_string()))
}

fn put_bytes_field(tag: u8, bytes: &[u8], out: &mut Vec<u8>) {
    out.push(tag);
    encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

fn type_meta_len(api_version: &str, kind: &str) -> usize {
    let f = |s: &str| 1 + encoding::encoded_len_varint(s.len() as u64) + s.len();
    f(api_version) + f(kind)
}

fn put_type_meta(api_version: &str, kind: &str, out: &mut Vec<u8>) {
    out.push(0x0a);
    encode_varint(type_meta_len(api_version, kind) as u64, out);
    put_bytes_field(0x0a, api_version.as_bytes(), out);
    put_bytes_field(0x12, kind.as_bytes(), out);
}

/// Appends a `runtime.Unknown` message; every field is written, even empty (R2.16).
pub fn write_unknown_message(
    api_version: &str,
    kind: &str,
    raw: &[u8],
    content_encoding: &str,
    content_type: &str,
    out: &mut Vec<u8>,
) {
    put_type_meta(api_version, kind, out);
    put_bytes_field(0x12, raw, out);
    put_bytes_field(0x1a, content_encoding.as_bytes(), out);
    put_bytes_field(0x22, content_type.as_bytes(), out);
}

fn read_len_delimited<'a>(buf: &mut &'a [u8]) -> Result<&'a [u8]> {
    let len = decode_varint(buf).map_err(|e| Error::Decode(e.to_string()))?;
    let len = usize::try_from(len).map_err(|_| Error::Decode("length overflows".into()))?;
    if len > buf.len() {
        return Err(Error::Decode(format!(
            "unexpected EOF: field length {len} exceeds the {} bytes left",
            buf.len()
        )));
    }
    let (field, rest) = buf.split_at(len);
    *buf = rest;
    Ok(field)
}

fn to_str(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| Error::Decode(format!("invalid UTF-8 string: {e}")))
}

/// The fields of a `runtime.Unknown` message, borrowed from the input.
#[derive(Debug, Default)]
struct UnknownParts<'a> {
    api_version: &'a str,
    kind: &'a str,
    raw: &'a [u8],
    content_encoding: &'a str,
    content_type: &'a str,
}

impl UnknownParts<'_> {
    fn to_unknown(&self) -> Unknown {
        Unknown {
            api_version: self.api_version.to_string(),
            kind: self.kind.to_string(),
            raw: self.raw.to_vec(),
            content_encoding: self.content_encoding.to_string(),
            content_type: self.content_type.to_string(),
        }
    }

    fn type_meta_text(&self) -> String {
        format!(
            "runtime.TypeMeta{{APIVersion:{:?}, Kind:{:?}}}",
            self.api_version, self.kind
        )
    }
}

fn skip(tag: u32, wt: WireType, buf: &mut &[u8]) -> Result<()> {
    encoding::skip_field(wt, tag, buf, DecodeContext::default())
        .map_err(|e| Error::Decode(e.to_string()))
}

fn read_type_meta<'a>(mut buf: &'a [u8], parts: &mut UnknownParts<'a>) -> Result<()> {
    while !buf.is_empty() {
        let (tag, wt) = decode_key(&mut buf).map_err(|e| Error::Decode(e.to_string()))?;
        match (tag, wt) {
            (1, WireType::LengthDelimited) => {
                parts.api_version = to_str(read_len_delimited(&mut buf)?)?
            }
            (2, WireType::LengthDelimited) => parts.kind = to_str(read_len_delimited(&mut buf)?)?,
            _ => skip(tag, wt, &mut buf)?,
        }
    }
    Ok(())
}

fn read_unknown_parts(mut buf: &[u8]) -> Result<UnknownParts<'_>> {
    let mut parts = UnknownParts::default();
    while !buf.is_empty() {
        let (tag, wt) = decode_key(&mut buf).map_err(|e| Error::Decode(e.to_string()))?;
        match (tag, wt) {
            (1, WireType::LengthDelimited) => {
                read_type_meta(read_len_delimited(&mut buf)?, &mut parts)?
            }
            (2, WireType::LengthDelimited) => parts.raw = read_len_delimited(&mut buf)?,
            (3, WireType::LengthDelimited) => {
                parts.content_encoding = to_str(read_len_delimited(&mut buf)?)?
            }
            (4, WireType::LengthDelimited) => {
                parts.content_type = to_str(read_len_delimited(&mut buf)?)?
            }
            _ => skip(tag, wt, &mut buf)?,
        }
    }
    Ok(parts)
}

/// Reads a `runtime.Unknown` message (the envelope without the prefix).
pub fn read_unknown_message(buf: &[u8]) -> Result<Unknown> {
    read_unknown_parts(buf).map(|p| p.to_unknown())
}

/// Appends the envelope around `obj` without an intermediate buffer: the body is written
/// after room for its length, then moved back over the unused room.
fn encode_envelope(obj: &dyn Object, out: &mut Vec<u8>) -> Result<()> {
    out.extend_from_slice(&PREFIX);
    put_type_meta(obj.api_version(), obj.kind(), out);
    out.push(0x12);
    let len_at = out.len();
    out.resize(len_at + LEN_ROOM, 0);
    obj.encode_protobuf(out)?;
    let body_len = out.len() - len_at - LEN_ROOM;
    let mut len_bytes = Vec::with_capacity(LEN_ROOM);
    encode_varint(body_len as u64, &mut len_bytes);
    let shift = LEN_ROOM - len_bytes.len();
    out[len_at..len_at + len_bytes.len()].copy_from_slice(&len_bytes);
    out.copy_within(len_at + LEN_ROOM.., len_at + len_bytes.len());
    out.truncate(out.len() - shift);
    out.extend_from_slice(&[0x1a, 0x00, 0x22, 0x00]);
    Ok(())
}

/// Go's `copyKindDefaults` (R2.18).
fn copy_kind_defaults(dst: &mut GroupVersionKind, src: &GroupVersionKind) {
    if dst.kind.is_empty() {
        dst.kind = src.kind.clone();
    }
    if dst.version.is_empty() && !src.version.is_empty() {
        dst.group = src.group.clone();
        dst.version = src.version.clone();
    }
}

/// Protobuf serializer with the `k8s\0` envelope.
#[derive(Debug, Clone)]
pub struct ProtobufSerializer {
    scheme: Arc<Scheme>,
}

impl ProtobufSerializer {
    /// A protobuf serializer creating objects through `scheme`.
    pub fn new(scheme: Arc<Scheme>) -> Self {
        Self { scheme }
    }

    /// True when the data starts with the `k8s\0` prefix (R2.19).
    pub fn recognizes_data(data: &[u8]) -> bool {
        data.starts_with(&PREFIX)
    }
}

impl Encoder for ProtobufSerializer {
    fn encode(&self, obj: &dyn Object, out: &mut Vec<u8>) -> Result<()> {
        if let Some(unknown) = obj.downcast_ref::<Unknown>() {
            out.extend_from_slice(&PREFIX);
            return unknown.encode_protobuf(out);
        }
        if !obj.supports_protobuf() {
            return Err(Error::NotMarshalable {
                type_name: obj.type_name().to_string(),
            });
        }
        encode_envelope(obj, out)
    }

    fn identifier(&self) -> String {
        "protobuf".to_string()
    }
}

impl Decoder for ProtobufSerializer {
    fn decode(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        if data.is_empty() {
            return Err(Error::Decode("empty data".into()));
        }
        let Some(body) = data.strip_prefix(&PREFIX[..]) else {
            return Err(Error::Decode(
                "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]"
                    .into(),
            ));
        };
        if body.is_empty() {
            return Err(Error::Decode("empty body".into()));
        }
        let parts = read_unknown_parts(body)?;
        let mut actual = GroupVersionKind::from_api_version_and_kind(parts.api_version, parts.kind);
        if let Some(d) = defaults {
            copy_kind_defaults(&mut actual, d);
        }
        self.decode_parts(&parts, actual, into)
    }
}

impl ProtobufSerializer {
    fn decode_parts(
        &self,
        parts: &UnknownParts<'_>,
        mut actual: GroupVersionKind,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        let mut into_kinds = Vec::new();
        if let Some(into) = into {
            if into.is::<Unknown>() {
                let mut unknown = parts.to_unknown();
                if Self::recognizes_data(&unknown.raw) {
                    unknown.content_type = CONTENT_TYPE_PROTOBUF.into();
                }
                return Ok(Decoded {
                    object: Box::new(unknown),
                    gvk: actual,
                });
            }
            match self.scheme.object_kinds(into) {
                Err(e) if e.is_not_registered() => {
                    let mut obj = into.new_empty();
                    obj.decode_protobuf(parts.raw)?;
                    return Ok(Decoded {
                        object: obj,
                        gvk: actual,
                    });
                }
                Err(e) => return Err(e),
                Ok((kinds, _)) => {
                    copy_kind_defaults(&mut actual, &kinds[0]);
                    if actual.group.is_empty() {
                        actual.group = kinds[0].group.clone();
                    }
                    into_kinds = kinds;
                }
            }
        }
        if actual.kind.is_empty() {
            return Err(Error::MissingKind {
                data: parts.type_meta_text(),
            });
        }
        if actual.version.is_empty() {
            return Err(Error::MissingVersion {
                data: parts.type_meta_text(),
            });
        }
        let mut obj = match into {
            Some(into) if into_kinds.contains(&actual) => into.new_empty(),
            _ => self.scheme.new_object(&actual)?,
        };
        if !obj.supports_protobuf() {
            return Err(Error::NotMarshalable {
                type_name: obj.type_name().to_string(),
            });
        }
        obj.decode_protobuf(parts.raw)?;
        obj.set_group_version_kind(&actual);
        Ok(Decoded {
            object: obj,
            gvk: actual,
        })
    }
}

/// Protobuf without prefix and envelope, for watch streams; decoding needs `into` (R2.20).
#[derive(Debug, Clone)]
pub struct RawProtobufSerializer {
    scheme: Arc<Scheme>,
}

impl RawProtobufSerializer {
    /// A raw protobuf serializer over `scheme`.
    pub fn new(scheme: Arc<Scheme>) -> Self {
        Self { scheme }
    }
}

impl Encoder for RawProtobufSerializer {
    fn encode(&self, obj: &dyn Object, out: &mut Vec<u8>) -> Result<()> {
        obj.encode_protobuf(out)
    }

    fn identifier(&self) -> String {
        "raw-protobuf".to_string()
    }
}

impl Decoder for RawProtobufSerializer {
    fn decode(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        let into = into.ok_or_else(|| {
            Error::Decode("this serializer requires an object to decode into".into())
        })?;
        let mut actual = defaults.cloned().unwrap_or_default();
        if let Ok((kinds, _)) = self.scheme.object_kinds(into) {
            copy_kind_defaults(&mut actual, &kinds[0]);
        }
        let mut obj = into.new_empty();
        obj.decode_protobuf(data)?;
        if !actual.kind.is_empty() {
            obj.set_group_version_kind(&actual);
        }
        Ok(Decoded {
            object: obj,
            gvk: actual,
        })
    }
}
