//! What an admission webhook answers, checked as upstream's `VerifyAdmissionResponse` and
//! dispatchers check it, in their words: the AdmissionReview version sent, the response's
//! presence, uid and kind (v1 only), the patch and its type.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

/// `admission.k8s.io/v1`.
pub const V1: &str = "admission.k8s.io/v1";
/// `admission.k8s.io/v1beta1`.
pub const V1BETA1: &str = "admission.k8s.io/v1beta1";

/// The AdmissionReview version a webhook is sent: the first of its
/// `admissionReviewVersions` that kapi speaks (upstream's `CreateAdmissionObjects`).
pub fn review_version(versions: &[String]) -> Result<&'static str, String> {
    versions
        .iter()
        .find_map(|v| match v.as_str() {
            "v1" => Some(V1),
            "v1beta1" => Some(V1BETA1),
            _ => None,
        })
        .ok_or_else(|| {
            "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)".to_owned()
        })
}

/// A group/version/kind as Go's `schema.GroupVersionKind.String()` prints it.
fn gvk_string(api_version: &str, kind: &str) -> String {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    format!("{group}/{version}, Kind={kind}")
}

/// The `response` of a webhook's AdmissionReview `answer` to a review of `version` with
/// `uid`, once checked, its `patch` and `patchType` as upstream keeps them: v1 answers are
/// checked for their uid, kind and patch fields; v1beta1 answers are not (their patch is a
/// JSONPatch whatever its type, and a validating webhook's patch is dropped). The error is
/// upstream's reason, to follow `received invalid webhook response: `.
pub fn verify(answer: &Value, uid: &str, version: &str, mutating: bool) -> Result<Value, String> {
    let mut response = answer
        .get("response")
        .filter(|r| r.is_object())
        .cloned()
        .ok_or_else(|| "webhook response was absent".to_owned())?;
    let patch = response["patch"]
        .as_str()
        .filter(|p| !p.is_empty())
        .map(str::to_owned);
    let patch_type = response.get("patchType").filter(|t| !t.is_null()).cloned();
    if version == V1 {
        let got = response["uid"].as_str().unwrap_or("");
        if got != uid {
            return Err(format!("expected response.uid={uid:?}, got {got:?}"));
        }
        let (api_version, kind) = (
            answer["apiVersion"].as_str().unwrap_or(""),
            answer["kind"].as_str().unwrap_or(""),
        );
        if api_version != V1 || kind != "AdmissionReview" {
            return Err(format!(
                "expected webhook response of {}, got {}",
                gvk_string(V1, "AdmissionReview"),
                gvk_string(api_version, kind)
            ));
        }
        match (mutating, &patch, &patch_type) {
            (true, Some(_), None) => {
                return Err("webhook returned response.patch but not response.patchType".into());
            }
            (true, None, Some(_)) => {
                return Err("webhook returned response.patchType but not response.patch".into());
            }
            (true, Some(_), Some(t)) if t.as_str().is_none_or(str::is_empty) => {
                let t = t.as_str().unwrap_or("");
                return Err(format!(
                    "webhook returned invalid response.patchType of {t:?}"
                ));
            }
            (false, Some(_), _) => {
                return Err("validating webhook may not return response.patch".into());
            }
            (false, None, Some(_)) => {
                return Err("validating webhook may not return response.patchType".into());
            }
            _ => {}
        }
    }
    if let Some(m) = response.as_object_mut() {
        match (mutating, version == V1BETA1, patch.is_some()) {
            (true, true, true) => {
                m.insert("patchType".into(), "JSONPatch".into());
            }
            (true, _, false) | (false, _, _) => {
                m.remove("patch");
                m.remove("patchType");
            }
            _ => {}
        }
    }
    Ok(response)
}

/// A webhook's `patch` (base64 of a JSON patch), or why it cannot be decoded (upstream's
/// `received undecodable patch in webhook response: …`).
pub fn decode_patch(patch: &str) -> Result<json_patch::Patch, String> {
    let undecodable = |e: String| format!("received undecodable patch in webhook response: {e}");
    let bytes = STANDARD
        .decode(patch)
        .map_err(|e| undecodable(e.to_string()))?;
    serde_json::from_slice(&bytes).map_err(|e| undecodable(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v1(response: Value) -> Value {
        json!({"apiVersion": V1, "kind": "AdmissionReview", "response": response})
    }

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_first_known_review_version_listed_is_sent() {
        assert_eq!(review_version(&strings(&["v1beta1", "v1"])), Ok(V1BETA1));
        assert_eq!(review_version(&strings(&["v2", "v1", "v1beta1"])), Ok(V1));
        assert!(
            review_version(&strings(&["v2"]))
                .unwrap_err()
                .ends_with("webhook does not accept known AdmissionReview versions (v1, v1beta1)")
        );
    }

    #[test]
    fn an_answer_without_a_response_is_absent() {
        let answer = json!({"apiVersion": V1, "kind": "AdmissionReview"});
        assert_eq!(
            verify(&answer, "u", V1, false).unwrap_err(),
            "webhook response was absent"
        );
        let beta = json!({"apiVersion": V1BETA1, "kind": "AdmissionReview"});
        assert_eq!(
            verify(&beta, "u", V1BETA1, true).unwrap_err(),
            "webhook response was absent"
        );
    }

    #[test]
    fn a_v1_answer_needs_the_requests_uid_then_its_kind() {
        let wrong_uid = v1(json!({"uid": "other", "allowed": true}));
        assert_eq!(
            verify(&wrong_uid, "u", V1, false).unwrap_err(),
            "expected response.uid=\"u\", got \"other\""
        );
        let mut beta = v1(json!({"uid": "u", "allowed": true}));
        beta["apiVersion"] = json!(V1BETA1);
        assert_eq!(
            verify(&beta, "u", V1, false).unwrap_err(),
            "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview"
        );
        let mut core = v1(json!({"uid": "u", "allowed": true}));
        core["apiVersion"] = json!("v1");
        assert!(
            verify(&core, "u", V1, false)
                .unwrap_err()
                .ends_with("got /v1, Kind=AdmissionReview")
        );
    }

    #[test]
    fn a_v1_mutating_answer_needs_patch_and_patch_type_together() {
        let check = |response: Value| verify(&v1(response), "u", V1, true).unwrap_err();
        assert_eq!(
            check(json!({"uid": "u", "allowed": true, "patch": "W10="})),
            "webhook returned response.patch but not response.patchType"
        );
        assert_eq!(
            check(json!({"uid": "u", "allowed": true, "patchType": "JSONPatch"})),
            "webhook returned response.patchType but not response.patch"
        );
        assert_eq!(
            check(json!({"uid": "u", "allowed": true, "patch": "W10=", "patchType": ""})),
            "webhook returned invalid response.patchType of \"\""
        );
    }

    #[test]
    fn a_v1_validating_answer_may_not_patch() {
        let check = |response: Value| verify(&v1(response), "u", V1, false).unwrap_err();
        assert_eq!(
            check(json!({"uid": "u", "allowed": true, "patch": "W10=", "patchType": "JSONPatch"})),
            "validating webhook may not return response.patch"
        );
        assert_eq!(
            check(json!({"uid": "u", "allowed": true, "patchType": "JSONPatch"})),
            "validating webhook may not return response.patchType"
        );
    }

    #[test]
    fn a_v1beta1_answer_is_not_checked_for_uid_kind_or_patch_type() {
        let answer = json!({"apiVersion": "admission.k8s.io/v9", "kind": "Other",
            "response": {"uid": "other", "allowed": true, "patch": "W10="}});
        let mutating = verify(&answer, "u", V1BETA1, true).unwrap();
        assert_eq!(mutating["patchType"], "JSONPatch");
        let validating = verify(&answer, "u", V1BETA1, false).unwrap();
        assert_eq!(validating.get("patch"), None);
        assert_eq!(validating["allowed"], true);
    }

    #[test]
    fn a_patch_that_is_not_a_json_patch_is_undecodable() {
        assert!(decode_patch("W10=").unwrap().0.is_empty());
        assert!(
            decode_patch("e30=")
                .unwrap_err()
                .starts_with("received undecodable patch in webhook response: ")
        );
    }
}
