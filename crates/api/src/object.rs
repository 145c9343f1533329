//! `impl_kind!`: makes a kind struct a machinery `TypedObject`. Unlike machinery's
//! `impl_object!`, the protobuf form comes from this crate's `proto_message!` impls, which
//! leave TypeMeta off the wire by construction.

/// Implements `kapi_machinery::runtime::TypedObject` for a struct with `api_version`,
/// `kind` and `metadata` fields. META: `object_meta` or `list_meta`; PROTO: `protobuf`
/// (the struct implements `prost::Message` through `proto_message!`) or `json_only`.
#[macro_export]
#[doc(hidden)]
macro_rules! impl_kind {
    ($t:ty, $meta:ident, protobuf) => {
        impl ::kapi_machinery::runtime::TypedObject for $t {
            $crate::impl_kind!(@common $meta);
            fn encode_protobuf(&self, out: &mut Vec<u8>) -> ::kapi_machinery::runtime::Result<()> {
                ::prost::Message::encode_raw(self, out);
                Ok(())
            }
            fn decode_protobuf(data: &[u8]) -> ::kapi_machinery::runtime::Result<Self> {
                ::kapi_machinery::serializer::proto_wire::decode_message_with_maps(data)
                    .map_err(|e| ::kapi_machinery::runtime::Error::Decode(e.to_string()))
            }
            fn supports_protobuf() -> bool {
                true
            }
        }
    };
    ($t:ty, $meta:ident, json_only) => {
        impl ::kapi_machinery::runtime::TypedObject for $t {
            $crate::impl_kind!(@common $meta);
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
        $crate::impl_kind!(@meta $meta);
    };
    (@meta object_meta) => {
        fn object_meta(&self) -> Option<&::kapi_machinery::meta::v1::ObjectMeta> {
            Some(&self.metadata)
        }
        fn object_meta_mut(&mut self) -> Option<&mut ::kapi_machinery::meta::v1::ObjectMeta> {
            Some(&mut self.metadata)
        }
    };
    (@meta list_meta) => {
        fn list_meta(&self) -> Option<&::kapi_machinery::meta::v1::ListMeta> {
            Some(&self.metadata)
        }
        fn list_meta_mut(&mut self) -> Option<&mut ::kapi_machinery::meta::v1::ListMeta> {
            Some(&mut self.metadata)
        }
    };
}
