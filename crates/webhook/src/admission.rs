//! Admission webhooks: the AdmissionReview wire types (`admission.k8s.io/v1` and
//! `v1beta1`, the same shape), a handler trait — the typed request in, a [`Verdict`]
//! (allowed, denied with a code and message, a patch, warnings) out — and
//! [`review_json`], which answers a review as kube-apiserver checks answers: in the
//! request's own version, with its uid, a patch only from a mutating handler and always as
//! a base64 JSONPatch with `patchType`.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A group, version and kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupVersionKind {
    /// API group (empty for the core group).
    #[serde(default)]
    pub group: String,
    /// Version.
    #[serde(default)]
    pub version: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
}

/// A group, version and resource.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupVersionResource {
    /// API group (empty for the core group).
    #[serde(default)]
    pub group: String,
    /// Version.
    #[serde(default)]
    pub version: String,
    /// Resource (plural).
    #[serde(default)]
    pub resource: String,
}

/// Who made the request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserInfo {
    /// User name.
    #[serde(default)]
    pub username: String,
    /// User uid.
    #[serde(default)]
    pub uid: String,
    /// Groups.
    #[serde(default)]
    pub groups: Vec<String>,
    /// Extra attributes.
    #[serde(default)]
    pub extra: BTreeMap<String, Vec<String>>,
}

/// The request of an AdmissionReview.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionRequest {
    /// Identifies this call; the response must repeat it.
    pub uid: String,
    /// The kind of `object` (the version the webhook registered for).
    #[serde(default)]
    pub kind: GroupVersionKind,
    /// The resource written, in that version.
    #[serde(default)]
    pub resource: GroupVersionResource,
    /// The subresource written (`status`, `scale`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_resource: Option<String>,
    /// The kind as the client sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_kind: Option<GroupVersionKind>,
    /// The resource as the client named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_resource: Option<GroupVersionResource>,
    /// The subresource as the client named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_sub_resource: Option<String>,
    /// The object's name (empty on a create with `generateName`).
    #[serde(default)]
    pub name: String,
    /// The namespace (absent for cluster-scoped objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: String,
    /// Who asked.
    #[serde(default)]
    pub user_info: UserInfo,
    /// The object to be written (absent on DELETE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    /// The stored object (on UPDATE and DELETE).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_object: Option<Value>,
    /// Whether nothing will be stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    /// The operation's options (CreateOptions, UpdateOptions, DeleteOptions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Value>,
}

impl AdmissionRequest {
    /// The object as `T` (`None` when absent; an error when it is not a `T`).
    pub fn object_as<T: DeserializeOwned>(&self) -> Result<Option<T>, serde_json::Error> {
        self.object.clone().map(serde_json::from_value).transpose()
    }

    /// The stored object as `T`.
    pub fn old_object_as<T: DeserializeOwned>(&self) -> Result<Option<T>, serde_json::Error> {
        self.old_object
            .clone()
            .map(serde_json::from_value)
            .transpose()
    }
}

/// The `status` of a denial (a metav1.Status's fields that admission uses).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DenialStatus {
    /// HTTP code (403 when 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub code: u16,
    /// Why, for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// Why, for machines (`Forbidden`, `Invalid`…).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

fn is_zero(n: &u16) -> bool {
    *n == 0
}

/// The response of an AdmissionReview.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionResponse {
    /// The request's uid.
    pub uid: String,
    /// Whether the write may go on.
    pub allowed: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<DenialStatus>,
    /// A base64 JSONPatch (mutating webhooks only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// `JSONPatch` when there is a patch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_type: Option<String>,
    /// Warnings for the client (`Warning` headers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Audit annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub audit_annotations: BTreeMap<String, String>,
}

/// An AdmissionReview (request from the API server, response from the webhook).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionReview {
    /// `admission.k8s.io/v1` or `admission.k8s.io/v1beta1`.
    pub api_version: String,
    /// `AdmissionReview`.
    pub kind: String,
    /// The request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<AdmissionRequest>,
    /// The response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<AdmissionResponse>,
}

/// What a handler decides.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    allowed: bool,
    status: Option<DenialStatus>,
    patch: Vec<Value>,
    warnings: Vec<String>,
}

impl Verdict {
    /// The write may go on unchanged.
    pub fn allow() -> Self {
        Self {
            allowed: true,
            ..Self::default()
        }
    }

    /// The write is refused (403) with `message`.
    pub fn deny(message: impl Into<String>) -> Self {
        Self::deny_with(403, "", message)
    }

    /// The write is refused with `code`, `reason` and `message`.
    pub fn deny_with(code: u16, reason: &str, message: impl Into<String>) -> Self {
        Self {
            allowed: false,
            status: Some(DenialStatus {
                code,
                message: message.into(),
                reason: reason.to_owned(),
            }),
            ..Self::default()
        }
    }

    /// The write may go on as `modified` (the JSONPatch from `original` is computed).
    pub fn patched(original: &Value, modified: &Value) -> Self {
        let ops = json_patch::diff(original, modified);
        let patch = serde_json::to_value(&ops)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default();
        Self {
            allowed: true,
            patch,
            ..Self::default()
        }
    }

    /// Adds JSON patch operations (`{"op": "add", "path": …, "value": …}`).
    pub fn with_patch(mut self, ops: impl IntoIterator<Item = Value>) -> Self {
        self.patch.extend(ops);
        self
    }

    /// Adds a warning for the client.
    pub fn with_warning(mut self, warning: impl Into<String>) -> Self {
        self.warnings.push(warning.into());
        self
    }

    /// Whether the write may go on.
    pub fn is_allowed(&self) -> bool {
        self.allowed
    }

    /// The patch operations.
    pub fn patch(&self) -> &[Value] {
        &self.patch
    }

    /// The response for the request `uid`; a validating webhook's never carries a patch.
    fn into_response(self, uid: String, mutating: bool) -> AdmissionResponse {
        let patch = (mutating && self.allowed && !self.patch.is_empty())
            .then(|| STANDARD.encode(Value::Array(self.patch).to_string()));
        AdmissionResponse {
            uid,
            allowed: self.allowed,
            status: self.status,
            patch_type: patch.as_ref().map(|_| "JSONPatch".to_owned()),
            patch,
            warnings: self.warnings,
            audit_annotations: BTreeMap::new(),
        }
    }
}

/// An admission handler: the request in, the verdict out.
pub trait AdmissionHandler: Send + Sync + 'static {
    /// Judges one request.
    fn admit(&self, request: &AdmissionRequest) -> Verdict;
}

impl<F> AdmissionHandler for F
where
    F: Fn(&AdmissionRequest) -> Verdict + Send + Sync + 'static,
{
    fn admit(&self, request: &AdmissionRequest) -> Verdict {
        self(request)
    }
}

/// Why a body is not an AdmissionReview request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed AdmissionReview: {0}")]
pub struct MalformedAdmissionReview(pub String);

/// Answers one AdmissionReview (JSON) with `handler`, in the review's own version;
/// `mutating` says whether a patch may be sent.
pub fn review_json(
    handler: &dyn AdmissionHandler,
    body: &[u8],
    mutating: bool,
) -> Result<Vec<u8>, MalformedAdmissionReview> {
    let review: AdmissionReview =
        serde_json::from_slice(body).map_err(|e| MalformedAdmissionReview(e.to_string()))?;
    if !matches!(
        review.api_version.as_str(),
        "admission.k8s.io/v1" | "admission.k8s.io/v1beta1"
    ) || review.kind != "AdmissionReview"
    {
        return Err(MalformedAdmissionReview(format!(
            "expected admission.k8s.io/v1 or v1beta1 AdmissionReview, got {} {}",
            review.api_version, review.kind
        )));
    }
    let request = review
        .request
        .ok_or_else(|| MalformedAdmissionReview("request is missing".to_owned()))?;
    let verdict = handler.admit(&request);
    let answer = AdmissionReview {
        api_version: review.api_version,
        kind: "AdmissionReview".to_owned(),
        request: None,
        response: Some(verdict.into_response(request.uid, mutating)),
    };
    serde_json::to_vec(&answer).map_err(|e| MalformedAdmissionReview(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn review(object: Value) -> Vec<u8> {
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "u-1", "operation": "CREATE",
                "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
                "resource": {"group": "", "version": "v1", "resource": "configmaps"},
                "object": object}})
        .to_string()
        .into_bytes()
    }

    fn answer(bytes: &[u8]) -> Value {
        serde_json::from_slice(bytes).unwrap()
    }

    #[test]
    fn a_denial_answers_with_the_uid_code_and_message() {
        let deny = |_: &AdmissionRequest| Verdict::deny_with(422, "Invalid", "no");
        let out = answer(&review_json(&deny, &review(json!({})), false).unwrap());
        assert_eq!(
            out,
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                "response": {"uid": "u-1", "allowed": false,
                    "status": {"code": 422, "message": "no", "reason": "Invalid"}}})
        );
    }

    #[test]
    fn a_mutating_handlers_change_is_a_base64_json_patch() {
        let label = |r: &AdmissionRequest| {
            let original = r.object.clone().unwrap_or_default();
            let mut modified = original.clone();
            modified["metadata"]["labels"] = json!({"a": "b"});
            Verdict::patched(&original, &modified)
        };
        let out = answer(&review_json(&label, &review(json!({"metadata": {}})), true).unwrap());
        let response = &out["response"];
        assert_eq!(response["patchType"], "JSONPatch");
        let patch: Value = serde_json::from_slice(
            &STANDARD
                .decode(response["patch"].as_str().unwrap())
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            patch,
            json!([{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}])
        );
    }

    #[test]
    fn a_validating_handler_never_sends_a_patch() {
        let label = |_: &AdmissionRequest| {
            Verdict::allow().with_patch([json!({"op": "add", "path": "/x", "value": 1})])
        };
        let out = answer(&review_json(&label, &review(json!({})), false).unwrap());
        assert!(out["response"].get("patch").is_none());
        assert!(out["response"].get("patchType").is_none());
    }

    #[test]
    fn a_body_that_is_not_a_review_is_malformed() {
        let allow = |_: &AdmissionRequest| Verdict::allow();
        assert!(review_json(&allow, b"{}", true).is_err());
        let no_request = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"});
        assert_eq!(
            review_json(&allow, no_request.to_string().as_bytes(), true).unwrap_err(),
            MalformedAdmissionReview("request is missing".into())
        );
    }

    #[test]
    fn the_answer_is_in_the_requests_review_version() {
        let allow = |_: &AdmissionRequest| Verdict::allow().with_warning("careful");
        let mut body: Value = serde_json::from_slice(&review(json!({}))).unwrap();
        body["apiVersion"] = json!("admission.k8s.io/v1beta1");
        let out = answer(&review_json(&allow, body.to_string().as_bytes(), false).unwrap());
        assert_eq!(out["apiVersion"], "admission.k8s.io/v1beta1");
        assert_eq!(out["response"]["warnings"], json!(["careful"]));
    }
}
