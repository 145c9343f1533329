//! The `Object` trait every API object implements, and `TypedObject` for serde/prost structs.
//!
//! `Object` is object-safe: the Scheme and the codecs work on `Box<dyn Object>`. Typed
//! structs implement the small `TypedObject` trait (usually through [`crate::impl_object!`])
//! and get `Object` from a blanket impl.

use super::error::{Error, Result};
use crate::meta::v1::{ListMeta, ObjectMeta};
use crate::schema::GroupVersionKind;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::any::Any;
use std::fmt::Debug;

/// Protobuf field number reserved for `apiVersion` in typed structs (never sent: the
/// protobuf serializer cuts it off, as Go's messages carry no TypeMeta).
pub const PROTO_TAG_API_VERSION: u32 = 536_870_910;
/// Protobuf field number reserved for `kind` in typed structs (see [`PROTO_TAG_API_VERSION`]).
pub const PROTO_TAG_KIND: u32 = 536_870_911;

/// An API object: type meta, cloning, downcasting and erased encode/decode.
pub trait Object: Any + Send + Sync + Debug {
    /// The `apiVersion` field.
    fn api_version(&self) -> &str;
    /// The `kind` field.
    fn kind(&self) -> &str;
    /// Sets `apiVersion` and `kind`.
    fn set_api_version_and_kind(&mut self, api_version: String, kind: String);
    /// The Rust type name, used in error messages.
    fn type_name(&self) -> &'static str;
    /// A deep copy.
    fn clone_object(&self) -> Box<dyn Object>;
    /// A fresh zero value of the same type.
    fn new_empty(&self) -> Box<dyn Object>;
    /// Appends the JSON form (Go's escaping; compact or two-space indented, no newline).
    fn encode_json(&self, out: &mut Vec<u8>, pretty: bool) -> Result<()>;
    /// The JSON form as a value (used for Unstructured and YAML).
    fn to_json_value(&self) -> Result<serde_json::Value>;
    /// Replaces `self` with `data` decoded as JSON; returns the strict problems found
    /// (always empty unless `strict`).
    fn decode_json(&mut self, data: &[u8], strict: bool) -> Result<Vec<String>>;
    /// Replaces `self` with the JSON value decoded.
    fn decode_json_value(&mut self, value: serde_json::Value) -> Result<()>;
    /// Appends the protobuf message (no envelope); `NotMarshalable` if there is none (R2.19).
    fn encode_protobuf(&self, out: &mut Vec<u8>) -> Result<()>;
    /// Replaces `self` with the protobuf message decoded (no envelope).
    fn decode_protobuf(&mut self, data: &[u8]) -> Result<()>;
    /// True when this type has a protobuf form.
    fn supports_protobuf(&self) -> bool;
    /// Replaces `self` with `other` if it is of the same type; gives `other` back otherwise.
    fn assign_from(&mut self, other: Box<dyn Object>) -> std::result::Result<(), Box<dyn Object>>;
    /// The object's metadata, if it has `ObjectMeta`.
    fn object_meta(&self) -> Option<&ObjectMeta> {
        None
    }
    /// The object's metadata, mutable.
    fn object_meta_mut(&mut self) -> Option<&mut ObjectMeta> {
        None
    }
    /// The list metadata, if this is a list.
    fn list_meta(&self) -> Option<&ListMeta> {
        None
    }
    /// The list metadata, mutable.
    fn list_meta_mut(&mut self) -> Option<&mut ListMeta> {
        None
    }

    /// The GVK from `apiVersion` and `kind` (empty group/version if apiVersion is malformed).
    fn group_version_kind(&self) -> GroupVersionKind {
        GroupVersionKind::from_api_version_and_kind(self.api_version(), self.kind())
    }
    /// Sets `apiVersion` and `kind` from a GVK (an empty GVK clears both).
    fn set_group_version_kind(&mut self, gvk: &GroupVersionKind) {
        if gvk.group.is_empty() && gvk.version.is_empty() {
            self.set_api_version_and_kind(String::new(), gvk.kind.clone());
        } else {
            self.set_api_version_and_kind(gvk.api_version(), gvk.kind.clone());
        }
    }
}

impl dyn Object {
    /// True if the object is a `T`.
    pub fn is<T: Object>(&self) -> bool {
        (self as &dyn Any).is::<T>()
    }
    /// Borrows the object as a `T`.
    pub fn downcast_ref<T: Object>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref::<T>()
    }
    /// Borrows the object mutably as a `T`.
    pub fn downcast_mut<T: Object>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut::<T>()
    }
}

impl Clone for Box<dyn Object> {
    fn clone(&self) -> Self {
        self.clone_object()
    }
}

/// Takes a boxed object as a `T`, or gives it back.
pub fn downcast<T: Object>(obj: Box<dyn Object>) -> std::result::Result<Box<T>, Box<dyn Object>> {
    if obj.is::<T>() {
        let raw = Box::into_raw(obj) as *mut T;
        // SAFETY: `is::<T>()` proved the concrete type behind the pointer is `T`, so the
        // data pointer of the fat pointer is a valid, uniquely owned `*mut T`.
        Ok(unsafe { Box::from_raw(raw) })
    } else {
        Err(obj)
    }
}

/// What a serde (and optionally prost) struct implements to become an [`Object`].
///
/// Use [`crate::impl_object!`] rather than writing this by hand.
pub trait TypedObject:
    Serialize + DeserializeOwned + Clone + Debug + Default + Send + Sync + 'static
{
    /// `(apiVersion, kind)`.
    fn type_meta(&self) -> (&str, &str);
    /// Sets `apiVersion` and `kind`.
    fn set_type_meta(&mut self, api_version: String, kind: String);
    /// `(apiVersion, kind)` as mutable `String`s, when the struct stores them so; lets
    /// [`Object::set_group_version_kind`] reuse their buffers. `None` by default.
    fn type_meta_mut(&mut self) -> Option<(&mut String, &mut String)> {
        None
    }
    /// The object's metadata, if any.
    fn object_meta(&self) -> Option<&ObjectMeta> {
        None
    }
    /// The object's metadata, mutable.
    fn object_meta_mut(&mut self) -> Option<&mut ObjectMeta> {
        None
    }
    /// The list metadata, if a list.
    fn list_meta(&self) -> Option<&ListMeta> {
        None
    }
    /// The list metadata, mutable.
    fn list_meta_mut(&mut self) -> Option<&mut ListMeta> {
        None
    }
    /// Appends the protobuf message; the default has none (R2.19).
    fn encode_protobuf(&self, _out: &mut Vec<u8>) -> Result<()> {
        Err(Error::NotMarshalable {
            type_name: std::any::type_name::<Self>().to_string(),
        })
    }
    /// Decodes the protobuf message; the default has none.
    fn decode_protobuf(_data: &[u8]) -> Result<Self> {
        Err(Error::Decode(format!(
            "object {} does not implement the protobuf unmarshalling interface",
            std::any::type_name::<Self>()
        )))
    }
    /// True when `encode_protobuf` is implemented.
    fn supports_protobuf() -> bool {
        false
    }
}

impl<T: TypedObject> Object for T {
    fn api_version(&self) -> &str {
        self.type_meta().0
    }
    fn kind(&self) -> &str {
        self.type_meta().1
    }
    fn set_api_version_and_kind(&mut self, api_version: String, kind: String) {
        self.set_type_meta(api_version, kind);
    }
    fn set_group_version_kind(&mut self, gvk: &GroupVersionKind) {
        match self.type_meta_mut() {
            Some((api_version, kind)) => write_type_meta(api_version, kind, gvk),
            None => self.set_type_meta(gvk.api_version(), gvk.kind.clone()),
        }
    }
    fn type_name(&self) -> &'static str {
        std::any::type_name::<T>()
    }
    fn clone_object(&self) -> Box<dyn Object> {
        Box::new(self.clone())
    }
    fn new_empty(&self) -> Box<dyn Object> {
        Box::new(T::default())
    }
    fn encode_json(&self, out: &mut Vec<u8>, pretty: bool) -> Result<()> {
        crate::serializer::json::write_json(self, out, pretty)
    }
    fn to_json_value(&self) -> Result<serde_json::Value> {
        serde_json::to_value(self).map_err(|e| Error::Encode(e.to_string()))
    }
    fn decode_json(&mut self, data: &[u8], strict: bool) -> Result<Vec<String>> {
        let (value, problems) = crate::serializer::json::decode_typed::<T>(data, strict)?;
        *self = value;
        Ok(problems)
    }
    fn decode_json_value(&mut self, value: serde_json::Value) -> Result<()> {
        // Raw JSON fields (RawExtension) cannot come from a Value; those go through text.
        let text = match serde_json::from_value::<T>(value.clone()) {
            Ok(v) => {
                *self = v;
                return Ok(());
            }
            Err(_) => serde_json::to_vec(&value).map_err(|e| Error::Decode(e.to_string()))?,
        };
        *self = crate::serializer::json::decode_typed::<T>(&text, false)?.0;
        Ok(())
    }
    fn encode_protobuf(&self, out: &mut Vec<u8>) -> Result<()> {
        TypedObject::encode_protobuf(self, out)
    }
    fn decode_protobuf(&mut self, data: &[u8]) -> Result<()> {
        *self = T::decode_protobuf(data)?;
        Ok(())
    }
    fn supports_protobuf(&self) -> bool {
        T::supports_protobuf()
    }
    fn assign_from(&mut self, other: Box<dyn Object>) -> std::result::Result<(), Box<dyn Object>> {
        *self = *downcast::<T>(other)?;
        Ok(())
    }
    fn object_meta(&self) -> Option<&ObjectMeta> {
        TypedObject::object_meta(self)
    }
    fn object_meta_mut(&mut self) -> Option<&mut ObjectMeta> {
        TypedObject::object_meta_mut(self)
    }
    fn list_meta(&self) -> Option<&ListMeta> {
        TypedObject::list_meta(self)
    }
    fn list_meta_mut(&mut self) -> Option<&mut ListMeta> {
        TypedObject::list_meta_mut(self)
    }
}

/// Overwrites `apiVersion` and `kind` with `gvk` in place (no allocation when the buffers
/// are large enough); an empty group and version leave `apiVersion` empty.
fn write_type_meta(api_version: &mut String, kind: &mut String, gvk: &GroupVersionKind) {
    api_version.clear();
    if !gvk.group.is_empty() {
        api_version.push_str(&gvk.group);
        api_version.push('/');
    }
    api_version.push_str(&gvk.version);
    kind.clear();
    kind.push_str(&gvk.kind);
}

/// Implements [`TypedObject`] for a struct with `api_version: String` and `kind: String`
/// fields.
///
/// Forms: `impl_object!(Type, META, PROTO)` where META is `object_meta` (a `metadata:
/// ObjectMeta` field), `list_meta` (a `metadata: ListMeta` field) or `no_meta`, and PROTO is
/// `protobuf` (the struct derives `prost::Message`, with `api_version`/`kind` tagged
/// 536870910/536870911) or `json_only`.
#[macro_export]
macro_rules! impl_object {
    ($t:ty, $meta:ident, protobuf) => {
        impl $crate::runtime::TypedObject for $t {
            $crate::impl_object!(@common $meta);
            fn encode_protobuf(&self, out: &mut Vec<u8>) -> $crate::runtime::Result<()> {
                $crate::serializer::protobuf::encode_typed_message(
                    self,
                    &self.api_version,
                    &self.kind,
                    out,
                );
                Ok(())
            }
            fn decode_protobuf(data: &[u8]) -> $crate::runtime::Result<Self> {
                $crate::serializer::protobuf::decode_typed_message::<Self>(data)
            }
            fn supports_protobuf() -> bool {
                true
            }
        }
    };
    ($t:ty, $meta:ident, json_only) => {
        impl $crate::runtime::TypedObject for $t {
            $crate::impl_object!(@common $meta);
        }
    };
    (@common $meta:ident) => {
        fn type_meta(&self) -> (&str, &str) {
            (&self.api_version, &self.kind)
        }
        fn set_type_meta(&mut self, api_version: String, kind: String) {
            self.api_version = api_version;
            self.kind = kind;
        }
        fn type_meta_mut(&mut self) -> Option<(&mut String, &mut String)> {
            Some((&mut self.api_version, &mut self.kind))
        }
        $crate::impl_object!(@meta $meta);
    };
    (@meta object_meta) => {
        fn object_meta(&self) -> Option<&$crate::meta::v1::ObjectMeta> {
            Some(&self.metadata)
        }
        fn object_meta_mut(&mut self) -> Option<&mut $crate::meta::v1::ObjectMeta> {
            Some(&mut self.metadata)
        }
    };
    (@meta list_meta) => {
        fn list_meta(&self) -> Option<&$crate::meta::v1::ListMeta> {
            Some(&self.metadata)
        }
        fn list_meta_mut(&mut self) -> Option<&mut $crate::meta::v1::ListMeta> {
            Some(&mut self.metadata)
        }
    };
    (@meta no_meta) => {};
}
