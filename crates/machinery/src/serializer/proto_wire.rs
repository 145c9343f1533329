//! Protobuf wire helpers that match Go's gogo-generated code byte for byte where prost
//! differs: map entries always carry key and value, even when empty.
//!
//! Use these in a hand-written `prost::Message` impl for structs with maps (ObjectMeta,
//! LabelSelector, ConfigMap data …).

use prost::bytes::{Buf, BufMut};
use prost::encoding::{
    self, DecodeContext, WireType, encode_key, encode_varint, encoded_len_varint,
};
use std::collections::BTreeMap;

use super::proto_entry::{peek_string_entry, take_str};

pub use super::proto_maps::{
    StringMapFields, decode_message_with_maps, merge_message_with_maps, merge_repeated_with_maps,
};

fn entry_len(key: &[u8], value: &[u8]) -> usize {
    1 + encoded_len_varint(key.len() as u64)
        + key.len()
        + 1
        + encoded_len_varint(value.len() as u64)
        + value.len()
}

fn encode_entry(tag: u32, key: &[u8], value: &[u8], buf: &mut impl BufMut) {
    encode_key(tag, WireType::LengthDelimited, buf);
    encode_varint(entry_len(key, value) as u64, buf);
    buf.put_u8(0x0a);
    encode_varint(key.len() as u64, buf);
    buf.put_slice(key);
    buf.put_u8(0x12);
    encode_varint(value.len() as u64, buf);
    buf.put_slice(value);
}

/// Encodes a `map<string,string>` field, keys sorted, key and value always present.
pub fn encode_string_map(tag: u32, map: &BTreeMap<String, String>, buf: &mut impl BufMut) {
    for (k, v) in map {
        encode_entry(tag, k.as_bytes(), v.as_bytes(), buf);
    }
}

/// Encoded length of [`encode_string_map`].
pub fn string_map_encoded_len(tag: u32, map: &BTreeMap<String, String>) -> usize {
    map.iter()
        .map(|(k, v)| {
            let l = entry_len(k.as_bytes(), v.as_bytes());
            encoding::key_len(tag) + encoded_len_varint(l as u64) + l
        })
        .sum()
}

/// Merges one entry of a `map<string,string>` field.
///
/// Fast path: when the whole entry lies in the buffer's first chunk and holds only a
/// UTF-8 key (field 1) and value (field 2), both are copied straight from the input into
/// exactly-sized strings. Anything else (split buffers, unknown fields, bad UTF-8, short
/// input) goes through prost's generic map merge, so errors are prost's own.
pub fn merge_string_map(
    map: &mut BTreeMap<String, String>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), prost::DecodeError> {
    if let Some((consumed, key, value)) = peek_string_entry(buf.chunk()) {
        let entry = (String::from(key), String::from(value));
        buf.advance(consumed);
        map.insert(entry.0, entry.1);
        return Ok(());
    }
    encoding::btree_map::merge(
        encoding::string::merge,
        encoding::string::merge,
        map,
        buf,
        ctx,
    )
}

/// Merges a `string` field, copying straight from the input when the string lies in the
/// buffer's first chunk and is valid UTF-8; otherwise prost's `string::merge` (and its
/// errors).
pub fn merge_string(
    wire_type: WireType,
    value: &mut String,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), prost::DecodeError> {
    if wire_type == WireType::LengthDelimited {
        let mut chunk = buf.chunk();
        let before = chunk.len();
        if let Some(s) = take_str(&mut chunk) {
            let consumed = before - chunk.len();
            value.clear();
            value.push_str(s);
            buf.advance(consumed);
            return Ok(());
        }
    }
    encoding::string::merge(wire_type, value, buf, ctx)
}

/// Encodes a `map<string,bytes>` field, keys sorted, key and value always present.
pub fn encode_bytes_map(tag: u32, map: &BTreeMap<String, Vec<u8>>, buf: &mut impl BufMut) {
    for (k, v) in map {
        encode_entry(tag, k.as_bytes(), v, buf);
    }
}

/// Encoded length of [`encode_bytes_map`].
pub fn bytes_map_encoded_len(tag: u32, map: &BTreeMap<String, Vec<u8>>) -> usize {
    map.iter()
        .map(|(k, v)| {
            let l = entry_len(k.as_bytes(), v);
            encoding::key_len(tag) + encoded_len_varint(l as u64) + l
        })
        .sum()
}

/// Merges one entry of a `map<string,bytes>` field.
pub fn merge_bytes_map(
    map: &mut BTreeMap<String, Vec<u8>>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), prost::DecodeError> {
    encoding::btree_map::merge(
        encoding::string::merge,
        encoding::bytes::merge,
        map,
        buf,
        ctx,
    )
}

/// A protobuf decode error with a message (prost keeps its constructor hidden; this is the
/// one place that calls it).
#[allow(deprecated)]
pub fn decode_error(msg: impl Into<std::borrow::Cow<'static, str>>) -> prost::DecodeError {
    prost::DecodeError::new(msg)
}

/// Checks the wire type of a length-delimited field (maps, strings, messages).
pub fn check_length_delimited(wire_type: WireType) -> Result<(), prost::DecodeError> {
    encoding::check_wire_type(WireType::LengthDelimited, wire_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_entry_with_empty_value_keeps_the_value_field() {
        let mut m = BTreeMap::new();
        m.insert("empty".to_string(), String::new());
        let mut buf = Vec::new();
        encode_string_map(2, &m, &mut buf);
        assert_eq!(buf, b"\x12\x09\x0a\x05empty\x12\x00");
        assert_eq!(string_map_encoded_len(2, &m), buf.len());
    }

    fn merge_entry(bytes: &[u8]) -> Result<BTreeMap<String, String>, prost::DecodeError> {
        let mut m = BTreeMap::new();
        let mut buf = bytes;
        merge_string_map(&mut m, &mut buf, DecodeContext::default())?;
        assert!(buf.is_empty(), "entry not fully consumed");
        Ok(m)
    }

    #[test]
    fn map_entry_decodes_key_and_value() {
        let m = merge_entry(b"\x08\x0a\x01k\x12\x03val").unwrap();
        assert_eq!(m["k"], "val");
    }

    #[test]
    fn map_entry_repeated_key_field_keeps_the_last() {
        let m = merge_entry(b"\x09\x0a\x01a\x0a\x01b\x12\x01v").unwrap();
        assert_eq!(m.keys().collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn map_entry_with_unknown_field_is_skipped_like_prost() {
        let m = merge_entry(b"\x08\x0a\x01k\x18\x07\x12\x01v").unwrap();
        assert_eq!(m["k"], "v");
    }

    #[test]
    fn map_entry_with_invalid_utf8_is_an_error() {
        let err = merge_entry(b"\x05\x0a\x01\xff\x12\x00").unwrap_err();
        assert!(err.to_string().contains("UTF-8"), "{err}");
    }

    #[test]
    fn map_entry_longer_than_the_input_is_an_error() {
        assert!(merge_entry(b"\x09\x0a\x01k").is_err());
    }

    #[test]
    fn map_entry_split_across_chunks_decodes() {
        let mut m = BTreeMap::new();
        let mut buf = (&b"\x08\x0a\x01k"[..]).chain(&b"\x12\x03val"[..]);
        merge_string_map(&mut m, &mut buf, DecodeContext::default()).unwrap();
        assert_eq!(m["k"], "val");
    }

    #[test]
    fn string_field_replaces_the_previous_value() {
        let mut s = String::from("old value");
        let mut buf = &b"\x03new"[..];
        merge_string(
            WireType::LengthDelimited,
            &mut s,
            &mut buf,
            DecodeContext::default(),
        )
        .unwrap();
        assert_eq!(s, "new");
        assert!(buf.is_empty());
    }

    #[test]
    fn string_field_with_invalid_utf8_is_an_error() {
        let mut s = String::new();
        let mut buf = &b"\x01\xff"[..];
        let err = merge_string(
            WireType::LengthDelimited,
            &mut s,
            &mut buf,
            DecodeContext::default(),
        );
        assert!(err.is_err());
    }
}
