//! Test fixtures: a ConfigMap-shaped kind (the real one lives in kapi-api) and a small
//! two-version kind with an internal hub, registered in a Scheme.
#![allow(dead_code)]

use kapi_machinery::meta::v1::{ListMeta, ObjectMeta};
use kapi_machinery::runtime::{Error, PROTO_TAG_API_VERSION, PROTO_TAG_KIND, Result, Scheme};
use kapi_machinery::schema::{GroupVersion, INTERNAL_VERSION};
use kapi_machinery::serde_helpers::null_as_default as nd;
use kapi_machinery::serializer::proto_wire;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

pub const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/golden");

pub fn golden(name: &str) -> Vec<u8> {
    std::fs::read(format!("{GOLDEN}/{name}")).unwrap()
}

/// ConfigMap as in k8s.io/api core/v1 (fixture; field order and tags as Go's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigMap {
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    #[serde(default, deserialize_with = "nd")]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immutable: Option<bool>,
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub data: BTreeMap<String, String>,
    #[serde(
        default,
        with = "kapi_machinery::serde_helpers::base64_map",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub binary_data: BTreeMap<String, Vec<u8>>,
}

impl prost::Message for ConfigMap {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        encoding::message::encode(1, &self.metadata, buf);
        proto_wire::encode_string_map(2, &self.data, buf);
        proto_wire::encode_bytes_map(3, &self.binary_data, buf);
        if let Some(b) = &self.immutable {
            encoding::bool::encode(4, b, buf);
        }
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> std::result::Result<(), prost::DecodeError> {
        match tag {
            1 => proto_wire::merge_message_with_maps(wt, &mut self.metadata, buf, ctx),
            2 => {
                proto_wire::check_length_delimited(wt)?;
                proto_wire::merge_string_map(&mut self.data, buf, ctx)
            }
            3 => {
                proto_wire::check_length_delimited(wt)?;
                proto_wire::merge_bytes_map(&mut self.binary_data, buf, ctx)
            }
            4 => encoding::bool::merge(wt, self.immutable.get_or_insert(false), buf, ctx),
            _ => encoding::skip_field(wt, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        encoding::message::encoded_len(1, &self.metadata)
            + proto_wire::string_map_encoded_len(2, &self.data)
            + proto_wire::bytes_map_encoded_len(3, &self.binary_data)
            + self
                .immutable
                .as_ref()
                .map_or(0, |b| encoding::bool::encoded_len(4, b))
    }
    fn clear(&mut self) {
        *self = ConfigMap::default();
    }
}

impl proto_wire::StringMapFields for ConfigMap {
    fn string_map_field(&mut self, tag: u32) -> Option<&mut BTreeMap<String, String>> {
        (tag == 2).then_some(&mut self.data)
    }
}

impl kapi_machinery::runtime::TypedObject for ConfigMap {
    fn type_meta(&self) -> (&str, &str) {
        (&self.api_version, &self.kind)
    }
    fn set_type_meta(&mut self, api_version: String, kind: String) {
        self.api_version = api_version;
        self.kind = kind;
    }
    fn object_meta(&self) -> Option<&ObjectMeta> {
        Some(&self.metadata)
    }
    fn object_meta_mut(&mut self) -> Option<&mut ObjectMeta> {
        Some(&mut self.metadata)
    }
    fn encode_protobuf(&self, out: &mut Vec<u8>) -> Result<()> {
        prost::Message::encode_raw(self, out);
        Ok(())
    }
    fn decode_protobuf(data: &[u8]) -> Result<Self> {
        proto_wire::decode_message_with_maps(data).map_err(|e| Error::Decode(e.to_string()))
    }
    fn supports_protobuf() -> bool {
        true
    }
}

/// ConfigMapList (fixture); items are decoded with their string maps built in bulk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigMapList {
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    #[serde(default, deserialize_with = "nd")]
    pub metadata: ListMeta,
    #[serde(default, deserialize_with = "nd")]
    pub items: Vec<ConfigMap>,
}

impl prost::Message for ConfigMapList {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        encoding::message::encode(1, &self.metadata, buf);
        encoding::message::encode_repeated(2, &self.items, buf);
        if !self.api_version.is_empty() {
            encoding::string::encode(PROTO_TAG_API_VERSION, &self.api_version, buf);
        }
        if !self.kind.is_empty() {
            encoding::string::encode(PROTO_TAG_KIND, &self.kind, buf);
        }
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> std::result::Result<(), prost::DecodeError> {
        match tag {
            1 => encoding::message::merge(wt, &mut self.metadata, buf, ctx),
            2 => proto_wire::merge_repeated_with_maps(wt, &mut self.items, buf, ctx),
            PROTO_TAG_API_VERSION => encoding::string::merge(wt, &mut self.api_version, buf, ctx),
            PROTO_TAG_KIND => encoding::string::merge(wt, &mut self.kind, buf, ctx),
            _ => encoding::skip_field(wt, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        let type_meta = |tag, s: &String| {
            if s.is_empty() {
                0
            } else {
                encoding::string::encoded_len(tag, s)
            }
        };
        encoding::message::encoded_len(1, &self.metadata)
            + encoding::message::encoded_len_repeated(2, &self.items)
            + type_meta(PROTO_TAG_API_VERSION, &self.api_version)
            + type_meta(PROTO_TAG_KIND, &self.kind)
    }
    fn clear(&mut self) {
        *self = ConfigMapList::default();
    }
}
kapi_machinery::impl_object!(ConfigMapList, list_meta, protobuf);

/// Widget v1: `size` is a string.
#[derive(Clone, PartialEq, Serialize, Deserialize, prost::Message)]
#[serde(rename_all = "camelCase")]
pub struct WidgetV1 {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[prost(string, tag = "536870911")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[prost(string, tag = "536870910")]
    pub api_version: String,
    #[serde(default)]
    #[prost(message, required, tag = "1")]
    pub metadata: ObjectMeta,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[prost(string, required, tag = "2")]
    pub size: String,
}
kapi_machinery::impl_object!(WidgetV1, object_meta, protobuf);

/// Widget v2: `replicas` is a number; `mode` is defaulted to "auto".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WidgetV2 {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub replicas: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub mode: String,
}
kapi_machinery::impl_object!(WidgetV2, object_meta, json_only);

/// The hub.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Widget {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        rename = "apiVersion"
    )]
    pub api_version: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub replicas: i64,
    #[serde(default)]
    pub mode: String,
}
kapi_machinery::impl_object!(Widget, object_meta, json_only);

pub fn widgets_v1() -> GroupVersion {
    GroupVersion::new("example.com", "v1")
}
pub fn widgets_v2() -> GroupVersion {
    GroupVersion::new("example.com", "v2")
}
pub fn widgets_hub() -> GroupVersion {
    GroupVersion::new("example.com", INTERNAL_VERSION)
}

pub fn add_widgets(scheme: &mut Scheme) -> Result<()> {
    scheme.add_known_type::<WidgetV1>(widgets_v1().with_kind("Widget"))?;
    scheme.add_known_type::<WidgetV2>(widgets_v2().with_kind("Widget"))?;
    scheme.add_known_type::<Widget>(widgets_hub().with_kind("Widget"))?;
    scheme.add_conversion_func(|a: WidgetV1| {
        let replicas = a
            .size
            .parse()
            .map_err(|_| Error::Conversion(format!("bad size {:?}", a.size)))?;
        Ok(Widget {
            metadata: a.metadata,
            replicas,
            ..Widget::default()
        })
    });
    scheme.add_conversion_func(|h: Widget| {
        Ok(WidgetV1 {
            metadata: h.metadata,
            size: h.replicas.to_string(),
            ..WidgetV1::default()
        })
    });
    scheme.add_conversion_func(|a: WidgetV2| {
        Ok(Widget {
            metadata: a.metadata,
            replicas: a.replicas,
            mode: a.mode,
            ..Widget::default()
        })
    });
    scheme.add_conversion_func(|h: Widget| {
        Ok(WidgetV2 {
            metadata: h.metadata,
            replicas: h.replicas,
            mode: h.mode,
            ..WidgetV2::default()
        })
    });
    scheme.add_type_defaulting_func(|w: &mut WidgetV2| {
        if w.mode.is_empty() {
            w.mode = "auto".into();
        }
    });
    scheme.set_version_priority(&[widgets_v2(), widgets_v1()])?;
    Ok(())
}

pub fn core_v1() -> GroupVersion {
    GroupVersion::new("", "v1")
}

/// A scheme with meta/v1, the ConfigMap fixture in core v1 and the widgets.
pub fn scheme() -> Arc<Scheme> {
    let mut s = Scheme::new("test");
    kapi_machinery::meta::v1::add_to_scheme(&mut s).unwrap();
    kapi_machinery::meta::v1::add_to_group_version(&mut s, &core_v1()).unwrap();
    s.add_known_type::<ConfigMap>(core_v1().with_kind("ConfigMap"))
        .unwrap();
    s.add_known_type::<ConfigMapList>(core_v1().with_kind("ConfigMapList"))
        .unwrap();
    add_widgets(&mut s).unwrap();
    Arc::new(s)
}
