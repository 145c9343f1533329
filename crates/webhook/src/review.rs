//! ConversionReview wire types (`apiextensions.k8s.io/v1` and `v1beta1`, the same shape),
//! shared by webhook servers (this crate) and clients (kapi's webhook converter). No I/O.

use kapi_machinery::meta::v1::Status;
use kapi_machinery::serde_helpers::null_as_default as nd;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The group of ConversionReview.
pub const REVIEW_GROUP: &str = "apiextensions.k8s.io";
/// The kind of ConversionReview.
pub const REVIEW_KIND: &str = "ConversionReview";
/// `status` of a successful conversion.
pub const STATUS_SUCCESS: &str = "Success";
/// `status` of a failed conversion.
pub const STATUS_FAILURE: &str = "Failure";

/// The two ConversionReview versions kube-apiserver speaks (R4.24).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReviewVersion {
    /// `apiextensions.k8s.io/v1`.
    V1,
    /// `apiextensions.k8s.io/v1beta1`.
    V1beta1,
}

impl ReviewVersion {
    /// The version's `apiVersion` string.
    pub fn api_version(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "apiextensions.k8s.io/v1",
            ReviewVersion::V1beta1 => "apiextensions.k8s.io/v1beta1",
        }
    }

    /// The bare version name as listed in `conversionReviewVersions`.
    pub fn name(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "v1",
            ReviewVersion::V1beta1 => "v1beta1",
        }
    }

    /// Recognizes a full `apiVersion` (`apiextensions.k8s.io/v1`).
    pub fn from_api_version(api_version: &str) -> Option<Self> {
        match api_version {
            "apiextensions.k8s.io/v1" => Some(ReviewVersion::V1),
            "apiextensions.k8s.io/v1beta1" => Some(ReviewVersion::V1beta1),
            _ => None,
        }
    }

    /// The first entry of a CRD's `conversionReviewVersions` that is spoken here (R4.24).
    pub fn negotiate<'a>(listed: impl IntoIterator<Item = &'a str>) -> Option<Self> {
        listed.into_iter().find_map(|v| match v {
            "v1" => Some(ReviewVersion::V1),
            "v1beta1" => Some(ReviewVersion::V1beta1),
            _ => None,
        })
    }
}

/// A ConversionReview: a request from kube-apiserver, or the webhook's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversionReview {
    /// `ConversionReview`.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    /// `apiextensions.k8s.io/v1` or `apiextensions.k8s.io/v1beta1`.
    #[serde(
        default,
        deserialize_with = "nd",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    /// What to convert (set by kube-apiserver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<ConversionRequest>,
    /// The conversion result (set by the webhook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<ConversionResponse>,
}

/// The request part of a ConversionReview.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConversionRequest {
    /// Identifies this call; the response must carry the same uid (R4.25).
    #[serde(default, deserialize_with = "nd")]
    pub uid: String,
    /// The `group/version` every object is to be converted to.
    #[serde(rename = "desiredAPIVersion", default, deserialize_with = "nd")]
    pub desired_api_version: String,
    /// The objects to convert, each a whole object (apiVersion, kind, metadata, …).
    #[serde(default, deserialize_with = "nd")]
    pub objects: Vec<Value>,
}

/// The response part of a ConversionReview.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversionResponse {
    /// The request's uid.
    #[serde(default, deserialize_with = "nd")]
    pub uid: String,
    /// The converted objects, in request order (`null` on failure, as Go writes a nil slice).
    #[serde(default, deserialize_with = "nd")]
    pub converted_objects: Option<Vec<Value>>,
    /// `status: Success`, or `Failure` with a `message`.
    #[serde(default, deserialize_with = "nd")]
    pub result: Status,
}

impl ConversionReview {
    /// A request review as kube-apiserver sends it, including the empty response stub (R4.24).
    pub fn new_request(
        version: ReviewVersion,
        uid: impl Into<String>,
        desired_api_version: impl Into<String>,
        objects: Vec<Value>,
    ) -> Self {
        ConversionReview {
            kind: REVIEW_KIND.to_owned(),
            api_version: version.api_version().to_owned(),
            request: Some(ConversionRequest {
                uid: uid.into(),
                desired_api_version: desired_api_version.into(),
                objects,
            }),
            response: Some(ConversionResponse::default()),
        }
    }

    /// A response review in `version` carrying `response`.
    pub fn new_response(version: ReviewVersion, response: ConversionResponse) -> Self {
        ConversionReview {
            kind: REVIEW_KIND.to_owned(),
            api_version: version.api_version().to_owned(),
            request: None,
            response: Some(response),
        }
    }
}

impl ConversionResponse {
    /// A successful response with the converted objects.
    pub fn success(uid: impl Into<String>, converted_objects: Vec<Value>) -> Self {
        ConversionResponse {
            uid: uid.into(),
            converted_objects: Some(converted_objects),
            result: Status {
                status: STATUS_SUCCESS.to_owned(),
                ..Status::default()
            },
        }
    }

    /// A failed response; kube-apiserver shows `message` to the client (R4.25).
    pub fn failure(uid: impl Into<String>, message: impl Into<String>) -> Self {
        ConversionResponse {
            uid: uid.into(),
            converted_objects: None,
            result: Status {
                status: STATUS_FAILURE.to_owned(),
                message: message.into(),
                ..Status::default()
            },
        }
    }

    /// True when `result.status` is `Success`.
    pub fn is_success(&self) -> bool {
        self.result.status == STATUS_SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiate_takes_the_first_spoken_version_in_crd_order() {
        assert_eq!(
            ReviewVersion::negotiate(["v2", "v1beta1", "v1"]),
            Some(ReviewVersion::V1beta1)
        );
        assert_eq!(ReviewVersion::negotiate(["v2"]), None);
    }

    #[test]
    fn request_stub_serializes_like_kube_apiserver() {
        let review = ConversionReview::new_request(ReviewVersion::V1, "u", "g/v", vec![]);
        let json = serde_json::to_value(&review).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "kind": "ConversionReview",
                "apiVersion": "apiextensions.k8s.io/v1",
                "request": {"uid": "u", "desiredAPIVersion": "g/v", "objects": []},
                "response": {"uid": "", "convertedObjects": null, "result": {"metadata": {}}}
            })
        );
    }
}
