//! Converts the objects of a ConversionReview — through a Scheme of Convertible versions,
//! or by declarative rules (kapi-conversion, the same rules kapi applies in-process) — and
//! builds the answer kube-apiserver accepts (R4.25–R4.27). No I/O; the HTTP service wraps it.

use crate::metadata::{MetadataError, restore_metadata};
use crate::review::{ConversionResponse, ConversionReview, REVIEW_KIND, ReviewVersion};
use kapi_machinery::runtime::{self, Scheme};
use kapi_machinery::schema::{GroupVersion, GroupVersionKind};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Why one object could not be converted (the review then answers `Failure`).
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    /// The object is not a JSON object.
    #[error("object is not a JSON object")]
    NotAnObject,
    /// The object has no `apiVersion` or `kind`.
    #[error("object has no apiVersion or kind")]
    MissingTypeMeta,
    /// Decoding, the author's conversion, or the Scheme failed.
    #[error("{0}")]
    Scheme(#[from] runtime::Error),
    /// The conversion set labels or annotations kube-apiserver would refuse.
    #[error("{0}")]
    Metadata(#[from] MetadataError),
    /// A declarative rule failed on the object.
    #[error("{0}")]
    Rules(#[from] kapi_conversion::ConvertError),
}

/// Why a request body is not a ConversionReview at all (the service answers 400).
#[derive(Debug, thiserror::Error)]
pub enum MalformedReview {
    /// The body is not JSON of the ConversionReview shape.
    #[error("request body is not a ConversionReview: {0}")]
    Json(#[from] serde_json::Error),
    /// apiVersion/kind are not `apiextensions.k8s.io/v1|v1beta1, ConversionReview`.
    #[error(
        "expected apiVersion apiextensions.k8s.io/v1 or apiextensions.k8s.io/v1beta1 and kind ConversionReview, got apiVersion {api_version:?} and kind {kind:?}"
    )]
    WrongType {
        /// The apiVersion sent.
        api_version: String,
        /// The kind sent.
        kind: String,
    },
    /// The review has no `request`.
    #[error("ConversionReview has no request")]
    MissingRequest,
}

/// How objects are converted.
#[derive(Clone)]
enum Strategy {
    /// Through the typed versions of a Scheme.
    Scheme(Arc<Scheme>),
    /// By declarative rules.
    Rules(Arc<kapi_conversion::Rules>),
}

/// Converts objects between the versions registered in a Scheme, or by declarative rules.
#[derive(Clone)]
pub struct Converter {
    strategy: Strategy,
}

impl Converter {
    /// A converter over `scheme` (built with [`crate::SchemeBuilder`] or
    /// [`crate::register_version`]).
    pub fn new(scheme: impl Into<Arc<Scheme>>) -> Self {
        Converter {
            strategy: Strategy::Scheme(scheme.into()),
        }
    }

    /// A converter by declarative rules (a CRD's `conversion.kapi.dev/rules`): the webhook
    /// that does on any cluster what kapi does in-process.
    pub fn from_rules(rules: kapi_conversion::Rules) -> Self {
        Converter {
            strategy: Strategy::Rules(Arc::new(rules)),
        }
    }

    /// The Scheme conversions go through (`None` for a rules converter).
    pub fn scheme(&self) -> Option<&Scheme> {
        match &self.strategy {
            Strategy::Scheme(s) => Some(s),
            Strategy::Rules(_) => None,
        }
    }

    /// Converts by the rules, keeping all metadata but labels and annotations (R4.27).
    fn convert_by_rules(
        rules: &kapi_conversion::Rules,
        object: Value,
        desired: &GroupVersion,
    ) -> Result<Value, ObjectError> {
        let kind = match object.get("kind").and_then(Value::as_str) {
            Some(k) if !k.is_empty() => k.to_owned(),
            _ => return Err(ObjectError::MissingTypeMeta),
        };
        let converted = rules.convert(&object, &desired.version)?;
        let Value::Object(mut out) = converted else {
            return Err(ObjectError::NotAnObject);
        };
        let original_meta = match object.get("metadata") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        let metadata = restore_metadata(
            original_meta,
            out.get("metadata").and_then(Value::as_object),
        )?;
        out.insert("apiVersion".into(), Value::String(desired.api_version()));
        out.insert("kind".into(), Value::String(kind));
        out.insert("metadata".into(), Value::Object(metadata));
        Ok(Value::Object(out))
    }

    /// Converts one object to `desired`: typed decode (metadata without `managedFields`), the
    /// author's conversion through the hub, then the original metadata restored except labels
    /// and annotations (R4.27), apiVersion set to `desired` and kind kept (R4.26).
    pub fn convert_object(
        &self,
        object: Value,
        desired: &GroupVersion,
    ) -> Result<Value, ObjectError> {
        let scheme = match &self.strategy {
            Strategy::Scheme(s) => s,
            Strategy::Rules(rules) => return Self::convert_by_rules(rules, object, desired),
        };
        let Value::Object(mut map) = object else {
            return Err(ObjectError::NotAnObject);
        };
        let original_meta = match map.remove("metadata") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        map.insert(
            "metadata".into(),
            Value::Object(visible_metadata(&original_meta)),
        );
        let gvk = GroupVersionKind::from_api_version_and_kind(
            str_field(&map, "apiVersion"),
            str_field(&map, "kind"),
        );
        if gvk.kind.is_empty() || gvk.version.is_empty() {
            return Err(ObjectError::MissingTypeMeta);
        }
        // Unstructured → typed through the Scheme's factory, moving the map in;
        // `Scheme::from_unstructured` would copy the object twice.
        let mut typed = scheme.new_object(&gvk)?;
        typed.decode_json_value(Value::Object(map))?;
        typed.set_group_version_kind(&gvk);
        let converted = scheme.unsafe_convert_to_version(typed, desired)?;
        let mut out = match converted.to_json_value()? {
            Value::Object(m) => m,
            _ => return Err(ObjectError::NotAnObject),
        };
        let metadata = restore_metadata(
            original_meta,
            out.get("metadata").and_then(Value::as_object),
        )?;
        out.insert("apiVersion".into(), Value::String(desired.api_version()));
        out.insert("kind".into(), Value::String(gvk.kind));
        out.insert("metadata".into(), Value::Object(metadata));
        Ok(Value::Object(out))
    }

    /// Answers a review in its own version: every object converted in order with the
    /// request's uid, or `Failure` naming the first object that failed. Only a review that
    /// is not a ConversionReview request is an error.
    pub fn review(&self, review: ConversionReview) -> Result<ConversionReview, MalformedReview> {
        let version = review_version(&review)?;
        let request = review.request.ok_or(MalformedReview::MissingRequest)?;
        let uid = request.uid;
        let response = match parse_desired(&request.desired_api_version) {
            Err(message) => ConversionResponse::failure(uid, message),
            Ok(desired) => self.convert_all(uid, request.objects, &desired),
        };
        if !response.is_success() {
            tracing::warn!(message = %response.result.message, "conversion failed");
        }
        Ok(ConversionReview::new_response(version, response))
    }

    /// [`Converter::review`] from and to JSON bytes.
    pub fn review_json(&self, body: &[u8]) -> Result<Vec<u8>, MalformedReview> {
        let review: ConversionReview = serde_json::from_slice(body)?;
        let answer = self.review(review)?;
        Ok(serde_json::to_vec(&answer)?)
    }

    fn convert_all(
        &self,
        uid: String,
        objects: Vec<Value>,
        desired: &GroupVersion,
    ) -> ConversionResponse {
        tracing::debug!(%uid, desired = %desired, count = objects.len(), "converting");
        let mut converted = Vec::with_capacity(objects.len());
        for (index, object) in objects.into_iter().enumerate() {
            let what = describe(&object);
            match self.convert_object(object, desired) {
                Ok(o) => converted.push(o),
                Err(e) => {
                    let message = format!("converting object {index} ({what}) to {desired}: {e}");
                    return ConversionResponse::failure(uid, message);
                }
            }
        }
        ConversionResponse::success(uid, converted)
    }
}

fn review_version(review: &ConversionReview) -> Result<ReviewVersion, MalformedReview> {
    let version = ReviewVersion::from_api_version(&review.api_version);
    match version {
        Some(v) if review.kind == REVIEW_KIND => Ok(v),
        _ => Err(MalformedReview::WrongType {
            api_version: review.api_version.clone(),
            kind: review.kind.clone(),
        }),
    }
}

fn parse_desired(desired: &str) -> Result<GroupVersion, String> {
    match GroupVersion::parse(desired) {
        Ok(gv) if !gv.version.is_empty() => Ok(gv),
        _ => Err(format!("invalid desiredAPIVersion {desired:?}")),
    }
}

/// The metadata the author's conversion sees: all of it but `managedFields`, which are
/// large, never the conversion's business, and restored from the input anyway.
fn visible_metadata(original: &Map<String, Value>) -> Map<String, Value> {
    original
        .iter()
        .filter(|(k, _)| k.as_str() != "managedFields")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn str_field<'a>(map: &'a Map<String, Value>, key: &str) -> &'a str {
    map.get(key).and_then(Value::as_str).unwrap_or("")
}

/// `apiVersion Kind namespace/name` of an object, for error messages.
fn describe(object: &Value) -> String {
    let field = |path: &[&str]| {
        let mut v = object;
        for p in path {
            v = v.get(p).unwrap_or(&Value::Null);
        }
        v.as_str().unwrap_or("").to_owned()
    };
    let ns = field(&["metadata", "namespace"]);
    let name = field(&["metadata", "name"]);
    let object_name = if ns.is_empty() {
        name
    } else {
        format!("{ns}/{name}")
    };
    format!(
        "{} {} {object_name}",
        field(&["apiVersion"]),
        field(&["kind"])
    )
}
