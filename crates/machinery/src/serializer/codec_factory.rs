//! CodecFactory: the supported media types with their serializers, and codecs that convert
//! between versions (R3.1–R3.4).

use super::framer::Framing;
use super::json::{JsonSerializer, SerializerOptions};
use super::protobuf::{ProtobufSerializer, RawProtobufSerializer};
use super::recognizer::RecognizingDecoder;
use super::versioning::{
    SharedVersioner, VersioningCodec, WithVersionEncoder, WithoutVersionDecoder,
};
use super::yaml::YamlSerializer;
use super::{SharedDecoder, SharedEncoder, SharedSerializer};
use crate::runtime::{CONTENT_TYPE_JSON, CONTENT_TYPE_PROTOBUF, CONTENT_TYPE_YAML, Scheme};
use crate::schema::{DisabledGroupVersioner, GroupVersion, GroupVersions, InternalGroupVersioner};
use std::sync::Arc;

/// The stream form of a media type (watch).
#[derive(Clone)]
pub struct StreamSerializerInfo {
    /// True for text formats.
    pub encodes_as_text: bool,
    /// Serializer of the WatchEvent.
    pub serializer: SharedSerializer,
    /// How frames are delimited.
    pub framing: Framing,
}

/// One supported media type and its serializers.
#[derive(Clone)]
pub struct SerializerInfo {
    /// `type/subtype`, e.g. `application/json`.
    pub media_type: &'static str,
    /// `application`.
    pub media_type_type: &'static str,
    /// `json`, `yaml` or `vnd.kubernetes.protobuf`.
    pub media_type_subtype: &'static str,
    /// True for text formats.
    pub encodes_as_text: bool,
    /// The serializer.
    pub serializer: SharedSerializer,
    /// Indented variant, if any.
    pub pretty_serializer: Option<SharedSerializer>,
    /// Variant that reports unknown and duplicate fields.
    pub strict_serializer: Option<SharedSerializer>,
    /// Watch stream variant, if any.
    pub stream_serializer: Option<StreamSerializerInfo>,
}

/// Serializers for every supported media type, and versioning codecs over them.
#[derive(Clone)]
pub struct CodecFactory {
    scheme: Arc<Scheme>,
    serializers: Vec<SerializerInfo>,
    universal: Arc<RecognizingDecoder>,
}

fn json_info(scheme: &Arc<Scheme>) -> SerializerInfo {
    let plain = SerializerOptions {
        pretty: false,
        strict: false,
    };
    let json: SharedSerializer = Arc::new(JsonSerializer::new(scheme.clone(), plain));
    SerializerInfo {
        media_type: CONTENT_TYPE_JSON,
        media_type_type: "application",
        media_type_subtype: "json",
        encodes_as_text: true,
        serializer: json.clone(),
        pretty_serializer: Some(Arc::new(JsonSerializer::new(
            scheme.clone(),
            SerializerOptions {
                pretty: true,
                strict: false,
            },
        ))),
        strict_serializer: Some(Arc::new(JsonSerializer::new(
            scheme.clone(),
            SerializerOptions {
                pretty: false,
                strict: true,
            },
        ))),
        stream_serializer: Some(StreamSerializerInfo {
            encodes_as_text: true,
            serializer: json,
            framing: Framing::Json,
        }),
    }
}

fn yaml_info(scheme: &Arc<Scheme>) -> SerializerInfo {
    SerializerInfo {
        media_type: CONTENT_TYPE_YAML,
        media_type_type: "application",
        media_type_subtype: "yaml",
        encodes_as_text: true,
        serializer: Arc::new(YamlSerializer::new(scheme.clone(), false)),
        pretty_serializer: None,
        strict_serializer: Some(Arc::new(YamlSerializer::new(scheme.clone(), true))),
        stream_serializer: None,
    }
}

fn protobuf_info(scheme: &Arc<Scheme>) -> SerializerInfo {
    let pb: SharedSerializer = Arc::new(ProtobufSerializer::new(scheme.clone()));
    SerializerInfo {
        media_type: CONTENT_TYPE_PROTOBUF,
        media_type_type: "application",
        media_type_subtype: "vnd.kubernetes.protobuf",
        encodes_as_text: false,
        serializer: pb.clone(),
        pretty_serializer: None,
        strict_serializer: Some(pb),
        stream_serializer: Some(StreamSerializerInfo {
            encodes_as_text: false,
            serializer: Arc::new(RawProtobufSerializer::new(scheme.clone())),
            framing: Framing::LengthDelimited,
        }),
    }
}

impl CodecFactory {
    /// JSON, YAML and protobuf over `scheme`, in that order (R3.1).
    pub fn new(scheme: Arc<Scheme>) -> Self {
        let serializers = vec![
            json_info(&scheme),
            yaml_info(&scheme),
            protobuf_info(&scheme),
        ];
        let json: SharedDecoder = serializers[0].serializer.clone();
        let yaml: SharedDecoder = serializers[1].serializer.clone();
        let pb: SharedDecoder = serializers[2].serializer.clone();
        let universal = Arc::new(RecognizingDecoder::new(vec![
            (
                json,
                Some(|d: &[u8]| (JsonSerializer::recognizes_data(d), false)),
            ),
            (yaml, Some(|_: &[u8]| (false, true))),
            (
                pb,
                Some(|d: &[u8]| (ProtobufSerializer::recognizes_data(d), false)),
            ),
        ]));
        Self {
            scheme,
            serializers,
            universal,
        }
    }

    /// The Scheme.
    pub fn scheme(&self) -> &Arc<Scheme> {
        &self.scheme
    }

    /// The supported media types, JSON first (R3.1).
    pub fn supported_media_types(&self) -> &[SerializerInfo] {
        &self.serializers
    }

    /// The serializer info of a bare media type (`application/json`).
    pub fn serializer_for_media_type(&self, media_type: &str) -> Option<&SerializerInfo> {
        self.serializers.iter().find(|s| s.media_type == media_type)
    }

    /// Decodes any supported format; no conversion, no defaulting (R3.2).
    pub fn universal_deserializer(&self) -> SharedDecoder {
        self.universal.clone()
    }

    /// Decodes any format and converts to `versions` (the internal version when empty),
    /// with defaulting (R3.2).
    pub fn universal_decoder(&self, versions: &[GroupVersion]) -> VersioningCodec {
        let target: SharedVersioner = if versions.is_empty() {
            Arc::new(InternalGroupVersioner)
        } else {
            Arc::new(GroupVersions(versions.to_vec()))
        };
        VersioningCodec::new(
            self.scheme.clone(),
            None,
            Some(self.universal.clone()),
            None,
            Some(target),
            true,
        )
    }

    /// Encodes JSON in `versions`, decodes anything to the internal version (R3.2).
    pub fn legacy_codec(&self, versions: &[GroupVersion]) -> VersioningCodec {
        let json: SharedEncoder = self.serializers[0].serializer.clone();
        let encode: SharedVersioner = Arc::new(GroupVersions(versions.to_vec()));
        VersioningCodec::new(
            self.scheme.clone(),
            Some(json),
            Some(self.universal.clone()),
            Some(encode),
            Some(Arc::new(InternalGroupVersioner)),
            true,
        )
    }

    /// A codec converting to `encode` on write and `decode` on read; `None` means disabled
    /// for encode and internal for decode (R3.3).
    pub fn codec_for_versions(
        &self,
        encoder: Option<SharedEncoder>,
        decoder: Option<SharedDecoder>,
        encode: Option<SharedVersioner>,
        decode: Option<SharedVersioner>,
    ) -> VersioningCodec {
        let encode = encode.unwrap_or_else(|| Arc::new(DisabledGroupVersioner));
        let decode = decode.unwrap_or_else(|| Arc::new(InternalGroupVersioner));
        VersioningCodec::new(
            self.scheme.clone(),
            encoder,
            decoder,
            Some(encode),
            Some(decode),
            true,
        )
    }

    /// An encoder converting to `version` (R3.3).
    pub fn encoder_for_version(
        &self,
        encoder: SharedEncoder,
        version: SharedVersioner,
    ) -> VersioningCodec {
        self.codec_for_versions(Some(encoder), None, Some(version), None)
    }

    /// A decoder converting to `version`, with defaulting (R3.3).
    pub fn decoder_to_version(
        &self,
        decoder: SharedDecoder,
        version: SharedVersioner,
    ) -> VersioningCodec {
        self.codec_for_versions(None, Some(decoder), None, Some(version))
    }

    /// The same serializers, with codecs that only set or clear the GVK (R3.4).
    pub fn without_conversion(&self) -> WithoutConversionCodecFactory {
        WithoutConversionCodecFactory {
            factory: self.clone(),
        }
    }
}

/// A CodecFactory whose codecs never convert (R3.4).
#[derive(Clone)]
pub struct WithoutConversionCodecFactory {
    factory: CodecFactory,
}

impl WithoutConversionCodecFactory {
    /// The supported media types.
    pub fn supported_media_types(&self) -> &[SerializerInfo] {
        self.factory.supported_media_types()
    }

    /// Sets the GVK the version picks, then encodes.
    pub fn encoder_for_version(
        &self,
        encoder: SharedEncoder,
        version: SharedVersioner,
    ) -> WithVersionEncoder {
        WithVersionEncoder {
            encoder,
            version,
            scheme: self.factory.scheme.clone(),
        }
    }

    /// Decodes and clears the GVK.
    pub fn decoder_to_version(&self, decoder: SharedDecoder) -> WithoutVersionDecoder {
        WithoutVersionDecoder { decoder }
    }
}
