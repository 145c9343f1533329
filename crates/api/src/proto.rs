//! Protobuf field codecs that reproduce the bytes Kubernetes' gogo-protobuf code writes.
//!
//! Go writes every non-pointer field (even when empty), pointer fields only when set,
//! and map entries with both key and value (even when empty). `proto_message!` builds a
//! `prost::Message` impl from a field list whose entries name one of the modules below.

use prost::DecodeError;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use std::collections::BTreeMap;

/// Implements `prost::Message` for a struct from `field: codec = tag` entries listed in
/// tag order (the order Go writes them). Fields not listed (TypeMeta) are not on the wire.
#[macro_export]
#[doc(hidden)]
macro_rules! proto_message {
    ($ty:ty { $($field:ident : $codec:ident = $tag:literal),* $(,)? }) => {
        impl ::prost::Message for $ty {
            fn encode_raw(&self, buf: &mut impl ::prost::bytes::BufMut) {
                $( $crate::proto::$codec::encode($tag, &self.$field, buf); )*
            }
            fn merge_field(
                &mut self,
                tag: u32,
                wire_type: ::prost::encoding::WireType,
                buf: &mut impl ::prost::bytes::Buf,
                ctx: ::prost::encoding::DecodeContext,
            ) -> ::core::result::Result<(), ::prost::DecodeError> {
                match tag {
                    $( $tag => $crate::proto::$codec::merge(wire_type, &mut self.$field, buf, ctx), )*
                    _ => ::prost::encoding::skip_field(wire_type, tag, buf, ctx),
                }
            }
            fn encoded_len(&self) -> usize {
                0 $( + $crate::proto::$codec::encoded_len($tag, &self.$field) )*
            }
            fn clear(&mut self) {
                *self = ::core::default::Default::default();
            }
        }
        impl ::kapi_machinery::serializer::proto_wire::StringMapFields for $ty {
            fn string_map_field(
                &mut self,
                tag: u32,
            ) -> ::core::option::Option<
                &mut ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
            > {
                match tag {
                    $( $tag => (&mut self.$field as &mut dyn ::core::any::Any).downcast_mut(), )*
                    _ => ::core::option::Option::None,
                }
            }
        }
    };
}

/// A non-pointer string: always written.
pub mod string {
    use super::*;
    /// Writes the field.
    pub fn encode(tag: u32, v: &String, buf: &mut impl BufMut) {
        encoding::string::encode(tag, v, buf);
    }
    /// Reads the field.
    pub fn merge(
        wt: WireType,
        v: &mut String,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::string::merge(wt, v, buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len(tag: u32, v: &String) -> usize {
        encoding::string::encoded_len(tag, v)
    }
}

/// A `*string`: written when set.
pub mod opt_string {
    use super::*;
    /// Writes the field.
    pub fn encode(tag: u32, v: &Option<String>, buf: &mut impl BufMut) {
        if let Some(v) = v {
            encoding::string::encode(tag, v, buf);
        }
    }
    /// Reads the field.
    pub fn merge(
        wt: WireType,
        v: &mut Option<String>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::string::merge(wt, v.get_or_insert_with(String::new), buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len(tag: u32, v: &Option<String>) -> usize {
        v.as_ref()
            .map_or(0, |v| encoding::string::encoded_len(tag, v))
    }
}

/// A `[]string`.
pub mod strings {
    use super::*;
    /// Writes the field.
    pub fn encode(tag: u32, v: &[String], buf: &mut impl BufMut) {
        encoding::string::encode_repeated(tag, v, buf);
    }
    /// Reads the field.
    pub fn merge(
        wt: WireType,
        v: &mut Vec<String>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::string::merge_repeated(wt, v, buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len(tag: u32, v: &[String]) -> usize {
        encoding::string::encoded_len_repeated(tag, v)
    }
}

/// A `[]byte`: Go writes it when non-nil; kapi writes it when non-empty.
pub mod bytes {
    use super::*;
    /// Writes the field.
    pub fn encode(tag: u32, v: &Vec<u8>, buf: &mut impl BufMut) {
        if !v.is_empty() {
            encoding::bytes::encode(tag, v, buf);
        }
    }
    /// Reads the field.
    pub fn merge(
        wt: WireType,
        v: &mut Vec<u8>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::bytes::merge(wt, v, buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len(tag: u32, v: &Vec<u8>) -> usize {
        if v.is_empty() {
            0
        } else {
            encoding::bytes::encoded_len(tag, v)
        }
    }
}

macro_rules! scalar_codecs {
    ($plain:ident, $opt:ident, $ty:ty, $enc:ident) => {
        /// A non-pointer scalar: always written.
        pub mod $plain {
            use super::*;
            /// Writes the field.
            pub fn encode(tag: u32, v: &$ty, buf: &mut impl BufMut) {
                encoding::$enc::encode(tag, v, buf);
            }
            /// Reads the field.
            pub fn merge(
                wt: WireType,
                v: &mut $ty,
                buf: &mut impl Buf,
                ctx: DecodeContext,
            ) -> Result<(), DecodeError> {
                encoding::$enc::merge(wt, v, buf, ctx)
            }
            /// Size of the field.
            pub fn encoded_len(tag: u32, v: &$ty) -> usize {
                encoding::$enc::encoded_len(tag, v)
            }
        }
        /// A pointer scalar: written when set.
        pub mod $opt {
            use super::*;
            /// Writes the field.
            pub fn encode(tag: u32, v: &Option<$ty>, buf: &mut impl BufMut) {
                if let Some(v) = v {
                    encoding::$enc::encode(tag, v, buf);
                }
            }
            /// Reads the field.
            pub fn merge(
                wt: WireType,
                v: &mut Option<$ty>,
                buf: &mut impl Buf,
                ctx: DecodeContext,
            ) -> Result<(), DecodeError> {
                encoding::$enc::merge(wt, v.get_or_insert_with(Default::default), buf, ctx)
            }
            /// Size of the field.
            pub fn encoded_len(tag: u32, v: &Option<$ty>) -> usize {
                v.as_ref()
                    .map_or(0, |v| encoding::$enc::encoded_len(tag, v))
            }
        }
    };
}

scalar_codecs!(int32, opt_int32, i32, int32);
scalar_codecs!(int64, opt_int64, i64, int64);
scalar_codecs!(boolean, opt_bool, bool, bool);
scalar_codecs!(double, opt_double, f64, double);

/// A non-pointer struct: always written, even when empty.
pub mod msg {
    use super::*;
    use prost::Message;
    /// Writes the field.
    pub fn encode<M: Message>(tag: u32, v: &M, buf: &mut impl BufMut) {
        encoding::message::encode(tag, v, buf);
    }
    /// Reads the field.
    pub fn merge<M: Message>(
        wt: WireType,
        v: &mut M,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::message::merge(wt, v, buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len<M: Message>(tag: u32, v: &M) -> usize {
        encoding::message::encoded_len(tag, v)
    }
}

/// A non-pointer struct with string maps (ObjectMeta, kinds): like [`msg`], but its
/// string maps are built in bulk while decoding.
pub mod msg_maps {
    pub use super::msg::{encode, encoded_len};
    use super::*;
    use kapi_machinery::serializer::proto_wire::{self, StringMapFields};
    /// Reads the field.
    pub fn merge<M: StringMapFields>(
        wt: WireType,
        v: &mut M,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        proto_wire::merge_message_with_maps(wt, v, buf, ctx)
    }
}

/// A pointer to a struct: written when set.
pub mod opt_msg {
    use super::*;
    use prost::Message;
    /// Writes the field.
    pub fn encode<M: Message>(tag: u32, v: &Option<M>, buf: &mut impl BufMut) {
        if let Some(v) = v {
            encoding::message::encode(tag, v, buf);
        }
    }
    /// Reads the field.
    pub fn merge<M: Message + Default>(
        wt: WireType,
        v: &mut Option<M>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::message::merge(wt, v.get_or_insert_with(M::default), buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len<M: Message>(tag: u32, v: &Option<M>) -> usize {
        v.as_ref()
            .map_or(0, |v| encoding::message::encoded_len(tag, v))
    }
}

/// A boxed pointer to a struct (recursive types): written when set.
pub mod opt_box {
    use super::*;
    use prost::Message;
    /// Writes the field.
    pub fn encode<M: Message>(tag: u32, v: &Option<Box<M>>, buf: &mut impl BufMut) {
        if let Some(v) = v {
            encoding::message::encode(tag, v.as_ref(), buf);
        }
    }
    /// Reads the field.
    pub fn merge<M: Message + Default>(
        wt: WireType,
        v: &mut Option<Box<M>>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::message::merge(wt, v.get_or_insert_with(Box::default).as_mut(), buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len<M: Message>(tag: u32, v: &Option<Box<M>>) -> usize {
        v.as_ref()
            .map_or(0, |v| encoding::message::encoded_len(tag, v.as_ref()))
    }
}

/// A slice of structs.
pub mod msgs {
    use super::*;
    use prost::Message;
    /// Writes the field.
    pub fn encode<M: Message>(tag: u32, v: &[M], buf: &mut impl BufMut) {
        encoding::message::encode_repeated(tag, v, buf);
    }
    /// Reads the field.
    pub fn merge<M: Message + Default>(
        wt: WireType,
        v: &mut Vec<M>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::message::merge_repeated(wt, v, buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len<M: Message>(tag: u32, v: &[M]) -> usize {
        encoding::message::encoded_len_repeated(tag, v)
    }
}

/// A slice of structs with string maps (list items): like [`msgs`], but each item's
/// string maps are built in bulk while decoding.
pub mod msgs_maps {
    pub use super::msgs::{encode, encoded_len};
    use super::*;
    use kapi_machinery::serializer::proto_wire::{self, StringMapFields};
    /// Reads the field.
    pub fn merge<M: StringMapFields + Default>(
        wt: WireType,
        v: &mut Vec<M>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        proto_wire::merge_repeated_with_maps(wt, v, buf, ctx)
    }
}

/// A slice of structs whose nil-ness is visible in JSON (no `omitempty`): `None` is nil.
pub mod opt_msgs {
    use super::*;
    use prost::Message;
    /// Writes the field.
    pub fn encode<M: Message>(tag: u32, v: &Option<Vec<M>>, buf: &mut impl BufMut) {
        if let Some(v) = v {
            encoding::message::encode_repeated(tag, v, buf);
        }
    }
    /// Reads the field.
    pub fn merge<M: Message + Default>(
        wt: WireType,
        v: &mut Option<Vec<M>>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::message::merge_repeated(wt, v.get_or_insert_with(Vec::new), buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len<M: Message>(tag: u32, v: &Option<Vec<M>>) -> usize {
        v.as_ref()
            .map_or(0, |v| encoding::message::encoded_len_repeated(tag, v))
    }
}

/// A value type of a Go map: how it is written inside a map entry.
pub trait MapValue: Default {
    /// Size of the value as field 2 of the entry.
    fn value_len(&self) -> usize;
    /// Writes the value as field 2 of the entry.
    fn encode_value(&self, buf: &mut impl BufMut);
    /// Reads the value.
    fn merge_value(
        &mut self,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError>;
}

impl MapValue for String {
    fn value_len(&self) -> usize {
        encoding::string::encoded_len(2, self)
    }
    fn encode_value(&self, buf: &mut impl BufMut) {
        encoding::string::encode(2, self, buf);
    }
    fn merge_value(
        &mut self,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::string::merge(wt, self, buf, ctx)
    }
}

impl MapValue for Vec<u8> {
    fn value_len(&self) -> usize {
        encoding::bytes::encoded_len(2, self)
    }
    fn encode_value(&self, buf: &mut impl BufMut) {
        encoding::bytes::encode(2, self, buf);
    }
    fn merge_value(
        &mut self,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::bytes::merge(wt, self, buf, ctx)
    }
}

/// A `map[string]V`: entries in key order, each with key and value even when empty.
pub mod map {
    use super::*;

    fn entry_len<V: MapValue>(k: &String, v: &V) -> usize {
        encoding::string::encoded_len(1, k) + v.value_len()
    }

    /// Writes the field.
    pub fn encode<V: MapValue>(tag: u32, m: &BTreeMap<String, V>, buf: &mut impl BufMut) {
        for (k, v) in m {
            encoding::encode_key(tag, WireType::LengthDelimited, buf);
            encoding::encode_varint(entry_len(k, v) as u64, buf);
            encoding::string::encode(1, k, buf);
            v.encode_value(buf);
        }
    }

    /// Reads one entry (missing key or value read as empty, as Go does).
    pub fn merge<V: MapValue>(
        wt: WireType,
        m: &mut BTreeMap<String, V>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::check_wire_type(WireType::LengthDelimited, wt)?;
        encoding::btree_map::merge(
            encoding::string::merge,
            |wt, v: &mut V, buf, ctx| v.merge_value(wt, buf, ctx),
            m,
            buf,
            ctx,
        )
    }

    /// Size of the field.
    pub fn encoded_len<V: MapValue>(tag: u32, m: &BTreeMap<String, V>) -> usize {
        m.iter()
            .map(|(k, v)| {
                let len = entry_len(k, v);
                encoding::key_len(tag) + encoding::encoded_len_varint(len as u64) + len
            })
            .sum()
    }
}

/// A `map[string]V` without `omitempty` (nil shows as `null`): `None` is nil.
pub mod opt_map {
    use super::*;
    /// Writes the field.
    pub fn encode<V: MapValue>(tag: u32, m: &Option<BTreeMap<String, V>>, buf: &mut impl BufMut) {
        if let Some(m) = m {
            super::map::encode(tag, m, buf);
        }
    }
    /// Reads one entry.
    pub fn merge<V: MapValue>(
        wt: WireType,
        m: &mut Option<BTreeMap<String, V>>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        super::map::merge(wt, m.get_or_insert_with(BTreeMap::new), buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len<V: MapValue>(tag: u32, m: &Option<BTreeMap<String, V>>) -> usize {
        m.as_ref().map_or(0, |m| super::map::encoded_len(tag, m))
    }
}

/// A `[]string` without `omitempty` (nil shows as `null`): `None` is nil.
pub mod opt_strings {
    use super::*;
    /// Writes the field.
    pub fn encode(tag: u32, v: &Option<Vec<String>>, buf: &mut impl BufMut) {
        if let Some(v) = v {
            encoding::string::encode_repeated(tag, v, buf);
        }
    }
    /// Reads the field.
    pub fn merge(
        wt: WireType,
        v: &mut Option<Vec<String>>,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        encoding::string::merge_repeated(wt, v.get_or_insert_with(Vec::new), buf, ctx)
    }
    /// Size of the field.
    pub fn encoded_len(tag: u32, v: &Option<Vec<String>>) -> usize {
        v.as_ref()
            .map_or(0, |v| encoding::string::encoded_len_repeated(tag, v))
    }
}

macro_rules! repeated_scalar_codecs {
    ($plain:ident, $opt:ident, $ty:ty, $enc:ident) => {
        /// A slice of scalars, one unpacked field per element (proto2, as gogo writes it).
        pub mod $plain {
            use super::*;
            /// Writes the field.
            pub fn encode(tag: u32, v: &[$ty], buf: &mut impl BufMut) {
                encoding::$enc::encode_repeated(tag, v, buf);
            }
            /// Reads the field (packed or not).
            pub fn merge(
                wt: WireType,
                v: &mut Vec<$ty>,
                buf: &mut impl Buf,
                ctx: DecodeContext,
            ) -> Result<(), DecodeError> {
                encoding::$enc::merge_repeated(wt, v, buf, ctx)
            }
            /// Size of the field.
            pub fn encoded_len(tag: u32, v: &[$ty]) -> usize {
                encoding::$enc::encoded_len_repeated(tag, v)
            }
        }
        /// A slice of scalars without `omitempty`: `None` is nil.
        pub mod $opt {
            use super::*;
            /// Writes the field.
            pub fn encode(tag: u32, v: &Option<Vec<$ty>>, buf: &mut impl BufMut) {
                if let Some(v) = v {
                    encoding::$enc::encode_repeated(tag, v, buf);
                }
            }
            /// Reads the field (packed or not).
            pub fn merge(
                wt: WireType,
                v: &mut Option<Vec<$ty>>,
                buf: &mut impl Buf,
                ctx: DecodeContext,
            ) -> Result<(), DecodeError> {
                encoding::$enc::merge_repeated(wt, v.get_or_insert_with(Vec::new), buf, ctx)
            }
            /// Size of the field.
            pub fn encoded_len(tag: u32, v: &Option<Vec<$ty>>) -> usize {
                v.as_ref()
                    .map_or(0, |v| encoding::$enc::encoded_len_repeated(tag, v))
            }
        }
    };
}

repeated_scalar_codecs!(ints32, opt_ints32, i32, int32);
repeated_scalar_codecs!(ints64, opt_ints64, i64, int64);
repeated_scalar_codecs!(bools, opt_bools, bool, bool);

/// An inline embed (`json:",inline"`): flattened into its parent in JSON, but a nested
/// message of its own on the protobuf wire (`Volume.volumeSource = 2`). Go writes it
/// always, even when empty.
pub mod inline {
    use super::*;

    /// Writes the key and length of the nested message; its fields follow.
    pub fn encode_header(tag: u32, len: usize, buf: &mut impl BufMut) {
        encoding::encode_key(tag, WireType::LengthDelimited, buf);
        encoding::encode_varint(len as u64, buf);
    }

    /// Size of the nested message with its key and length.
    pub fn encoded_len(tag: u32, len: usize) -> usize {
        encoding::key_len(tag) + encoding::encoded_len_varint(len as u64) + len
    }

    /// Reads the nested message, handing each of its fields to `field` with the parent.
    pub fn merge<T, B: Buf>(
        wt: WireType,
        parent: &mut T,
        buf: &mut B,
        ctx: DecodeContext,
        mut field: impl FnMut(&mut T, u32, WireType, &mut B, DecodeContext) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        encoding::check_wire_type(WireType::LengthDelimited, wt)?;
        encoding::merge_loop(parent, buf, ctx, |parent, buf, ctx| {
            let (tag, wt) = encoding::decode_key(buf)?;
            field(parent, tag, wt, buf, ctx)
        })
    }
}

/// Implements `prost::Message` for a named slice type that go-to-protobuf wraps in a
/// message (`type ExtraValue []string` → `message ExtraValue { repeated string items = 1; }`).
#[macro_export]
#[doc(hidden)]
macro_rules! proto_wrapper {
    ($ty:ident, $codec:ident) => {
        impl ::prost::Message for $ty {
            fn encode_raw(&self, buf: &mut impl ::prost::bytes::BufMut) {
                $crate::proto::$codec::encode(1, &self.0, buf);
            }
            fn merge_field(
                &mut self,
                tag: u32,
                wire_type: ::prost::encoding::WireType,
                buf: &mut impl ::prost::bytes::Buf,
                ctx: ::prost::encoding::DecodeContext,
            ) -> ::core::result::Result<(), ::prost::DecodeError> {
                match tag {
                    1 => $crate::proto::$codec::merge(wire_type, &mut self.0, buf, ctx),
                    _ => ::prost::encoding::skip_field(wire_type, tag, buf, ctx),
                }
            }
            fn encoded_len(&self) -> usize {
                $crate::proto::$codec::encoded_len(1, &self.0)
            }
            fn clear(&mut self) {
                self.0.clear();
            }
        }
    };
}

/// Makes a message type usable as a Go map's value (`map[string]ExtraValue`).
#[macro_export]
#[doc(hidden)]
macro_rules! map_value_message {
    ($ty:ty) => {
        impl $crate::proto::MapValue for $ty {
            fn value_len(&self) -> usize {
                ::prost::encoding::message::encoded_len(2, self)
            }
            fn encode_value(&self, buf: &mut impl ::prost::bytes::BufMut) {
                ::prost::encoding::message::encode(2, self, buf);
            }
            fn merge_value(
                &mut self,
                wt: ::prost::encoding::WireType,
                buf: &mut impl ::prost::bytes::Buf,
                ctx: ::prost::encoding::DecodeContext,
            ) -> ::core::result::Result<(), ::prost::DecodeError> {
                ::prost::encoding::message::merge(wt, self, buf, ctx)
            }
        }
    };
}

crate::map_value_message!(crate::resource::Quantity);
crate::map_value_message!(crate::meta::Time);
