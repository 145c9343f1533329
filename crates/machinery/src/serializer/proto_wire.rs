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
pub fn merge_string_map(
    map: &mut BTreeMap<String, String>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), prost::DecodeError> {
    encoding::btree_map::merge(
        encoding::string::merge,
        encoding::string::merge,
        map,
        buf,
        ctx,
    )
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
}
