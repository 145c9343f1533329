//! Bulk decoding of `map<string,string>` fields: the entries of a message's string maps are
//! collected while the message is read and each map is built once at the end, from input
//! that is (as Go and kapi write it) already sorted. Inserting entry by entry into a
//! `BTreeMap` compares every new key with the keys before it; building from sorted input
//! does not. Re-exported through `proto_wire`.

use super::proto_entry::peek_string_entry;
use prost::DecodeError;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use std::collections::BTreeMap;
use std::fmt;

/// A message with `map<string,string>` fields that the `*_with_maps` functions fill in bulk.
pub trait StringMapFields: prost::Message {
    /// The `map<string,string>` field with this tag, if the tag is one.
    fn string_map_field(&mut self, tag: u32) -> Option<&mut BTreeMap<String, String>>;
}

/// Entries read so far, per map tag, in input order.
type Pending = Vec<(u32, Vec<(String, String)>)>;

/// Wraps a message while it is merged: simple entries of its string maps are set aside
/// (copied straight from the input) instead of inserted; everything else goes to the
/// message's own `merge_field`.
struct MapCollector<'a, M> {
    msg: &'a mut M,
    pending: Pending,
}

impl<M: StringMapFields> MapCollector<'_, M> {
    fn bucket(&mut self, tag: u32) -> &mut Vec<(String, String)> {
        let at = match self.pending.iter().position(|(t, _)| *t == tag) {
            Some(at) => at,
            None => {
                self.pending.push((tag, Vec::with_capacity(16)));
                self.pending.len() - 1
            }
        };
        &mut self.pending[at].1
    }

    /// Moves the pending entries of `tag` into the message's map (later entries win).
    fn flush_tag(&mut self, tag: u32) {
        if let Some(at) = self.pending.iter().position(|(t, _)| *t == tag) {
            let (_, entries) = self.pending.swap_remove(at);
            fill(self.msg.string_map_field(tag), entries);
        }
    }

    /// Moves every pending entry into the message's maps.
    fn flush(&mut self) {
        for (tag, entries) in std::mem::take(&mut self.pending) {
            fill(self.msg.string_map_field(tag), entries);
        }
    }
}

/// Adds `entries` (in input order; a later duplicate key wins) to `map`.
fn fill(map: Option<&mut BTreeMap<String, String>>, entries: Vec<(String, String)>) {
    let Some(map) = map else { return };
    if map.is_empty() {
        // Stable sort (linear on sorted input), then the last of equal keys is kept.
        *map = entries.into_iter().collect();
    } else {
        map.extend(entries);
    }
}

impl<M: fmt::Debug> fmt::Debug for MapCollector<'_, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.msg.fmt(f)
    }
}

impl<M: StringMapFields> prost::Message for MapCollector<'_, M> {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        self.msg.encode_raw(buf);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        if wire_type == WireType::LengthDelimited && self.msg.string_map_field(tag).is_some() {
            if let Some((consumed, key, value)) = peek_string_entry(buf.chunk()) {
                let entry = (String::from(key), String::from(value));
                buf.advance(consumed);
                self.bucket(tag).push(entry);
                return Ok(());
            }
            // The slow path inserts directly: what was set aside comes first.
            self.flush_tag(tag);
        }
        self.msg.merge_field(tag, wire_type, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.msg.encoded_len()
    }

    fn clear(&mut self) {
        self.pending.clear();
        self.msg.clear();
    }
}

/// Merges a length-delimited message field into `msg`, building its string maps in bulk.
pub fn merge_message_with_maps<M: StringMapFields>(
    wire_type: WireType,
    msg: &mut M,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    let mut collector = MapCollector {
        msg,
        pending: Vec::new(),
    };
    encoding::message::merge(wire_type, &mut collector, buf, ctx)?;
    collector.flush();
    Ok(())
}

/// Merges one element of a repeated message field, building its string maps in bulk.
pub fn merge_repeated_with_maps<M: StringMapFields + Default>(
    wire_type: WireType,
    msgs: &mut Vec<M>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    let mut msg = M::default();
    merge_message_with_maps(wire_type, &mut msg, buf, ctx)?;
    msgs.push(msg);
    Ok(())
}

/// Decodes a whole message (no length prefix), building its string maps in bulk.
pub fn decode_message_with_maps<M: StringMapFields + Default>(
    data: &[u8],
) -> Result<M, DecodeError> {
    let mut msg = M::default();
    let mut collector = MapCollector {
        msg: &mut msg,
        pending: Vec::new(),
    };
    prost::Message::merge(&mut collector, data)?;
    collector.flush();
    Ok(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::v1::ObjectMeta;

    /// An ObjectMeta label entry (field 11) `key=value`.
    fn label(key: &str, value: &str) -> Vec<u8> {
        let mut entry = vec![0x0a, key.len() as u8];
        entry.extend_from_slice(key.as_bytes());
        entry.extend_from_slice(&[0x12, value.len() as u8]);
        entry.extend_from_slice(value.as_bytes());
        let mut out = vec![0x5a, entry.len() as u8];
        out.extend(entry);
        out
    }

    fn labels(meta: &ObjectMeta) -> Vec<(&str, &str)> {
        meta.labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect()
    }

    #[test]
    fn unsorted_entries_build_a_sorted_map() {
        let data = [label("b", "2"), label("a", "1"), label("c", "3")].concat();
        let meta: ObjectMeta = decode_message_with_maps(&data).unwrap();
        assert_eq!(labels(&meta), [("a", "1"), ("b", "2"), ("c", "3")]);
    }

    #[test]
    fn repeated_key_keeps_the_last_value() {
        let data = [label("a", "first"), label("b", "x"), label("a", "last")].concat();
        let meta: ObjectMeta = decode_message_with_maps(&data).unwrap();
        assert_eq!(labels(&meta), [("a", "last"), ("b", "x")]);
    }

    #[test]
    fn entry_on_the_slow_path_still_wins_over_earlier_ones() {
        // The second entry carries an unknown field (3), so prost's generic merge reads it.
        let mut odd = vec![0x5a, 0x0a, 0x0a, 0x01, b'a', 0x18, 0x07, 0x12, 0x03];
        odd.extend_from_slice(b"new");
        let data = [label("a", "old"), odd].concat();
        let meta: ObjectMeta = decode_message_with_maps(&data).unwrap();
        assert_eq!(labels(&meta), [("a", "new")]);
    }

    #[test]
    fn field_merged_twice_extends_the_map() {
        // A message field that appears twice merges into the same ObjectMeta.
        let mut meta = ObjectMeta::default();
        for entry in [label("b", "2"), label("a", "1")] {
            let mut framed = vec![entry.len() as u8];
            framed.extend(entry);
            let mut buf = &framed[..];
            merge_message_with_maps(
                WireType::LengthDelimited,
                &mut meta,
                &mut buf,
                DecodeContext::default(),
            )
            .unwrap();
        }
        assert_eq!(labels(&meta), [("a", "1"), ("b", "2")]);
    }

    #[test]
    fn invalid_utf8_in_an_entry_is_an_error() {
        let data = [0x5a, 0x05, 0x0a, 0x01, 0xff, 0x12, 0x00];
        assert!(decode_message_with_maps::<ObjectMeta>(&data).is_err());
    }
}
