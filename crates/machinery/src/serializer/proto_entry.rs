//! Reading one protobuf map entry or length-prefixed string without decoding a message: the
//! fast paths `proto_wire` and `proto_maps` share.

use prost::encoding;

/// A length-prefixed UTF-8 string at the start of `input`, advancing past it; `None`
/// when the input is short or not UTF-8.
pub(crate) fn take_str<'a>(input: &mut &'a [u8]) -> Option<&'a str> {
    let len = usize::try_from(encoding::decode_varint(input).ok()?).ok()?;
    if len > input.len() {
        return None;
    }
    let (bytes, rest) = input.split_at(len);
    let s = utf8(bytes)?;
    *input = rest;
    Some(s)
}

/// `bytes` as UTF-8, checking the common all-ASCII case first (a faster scan for the
/// short strings of API objects).
fn utf8(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: every ASCII byte sequence is valid UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).ok()
}

/// Parses a simple map entry (length prefix, then only fields 1 and 2 as UTF-8 strings,
/// last occurrence wins like prost) from `chunk`: `(bytes consumed, key, value)`.
pub(crate) fn peek_string_entry(chunk: &[u8]) -> Option<(usize, &str, &str)> {
    let mut input = chunk;
    let len = usize::try_from(encoding::decode_varint(&mut input).ok()?).ok()?;
    if len > input.len() {
        return None;
    }
    let consumed = chunk.len() - input.len() + len;
    let mut entry = &input[..len];
    let (mut key, mut value) = ("", "");
    while let Some((&first, rest)) = entry.split_first() {
        entry = rest;
        match first {
            0x0a => key = take_str(&mut entry)?,
            0x12 => value = take_str(&mut entry)?,
            _ => return None,
        }
    }
    Some((consumed, key, value))
}
