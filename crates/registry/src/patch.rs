//! Patches as kube-apiserver applies them: JSON patch (RFC 6902, at most 10 000
//! operations), merge patch (RFC 7386), strategic merge patch ([`crate::strategic`]) and the
//! merge step of server-side apply ([`crate::managed_fields`]). Pure functions over JSON.

use crate::error::Error;
use serde_json::Value;

/// The patch types kube-apiserver accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    /// `application/json-patch+json`.
    Json,
    /// `application/merge-patch+json`.
    Merge,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/apply-patch+yaml`.
    Apply,
}

/// The patch media types, in kube-apiserver's order.
pub const PATCH_MEDIA_TYPES: [&str; 4] = [
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/apply-patch+yaml",
    "application/strategic-merge-patch+json",
];

impl PatchType {
    /// The patch type of a Content-Type (parameters ignored); 415 for anything else, and for
    /// a strategic merge patch when the kind has none (custom resources, R8.18).
    pub fn from_content_type(content_type: &str, strategic_ok: bool) -> Result<Self, Error> {
        let ct = content_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match ct.as_str() {
            "application/json-patch+json" => Ok(Self::Json),
            "application/merge-patch+json" => Ok(Self::Merge),
            "application/strategic-merge-patch+json" if strategic_ok => Ok(Self::Strategic),
            "application/strategic-merge-patch+json" => {
                Err(Error::unsupported_media_type(&PATCH_MEDIA_TYPES[..3]))
            }
            "application/apply-patch+yaml" => Ok(Self::Apply),
            _ if strategic_ok => Err(Error::unsupported_media_type(&PATCH_MEDIA_TYPES)),
            _ => Err(Error::unsupported_media_type(&PATCH_MEDIA_TYPES[..3])),
        }
    }
}

/// Parses a patch body (YAML for apply, JSON otherwise); 400 when it does not parse.
pub fn parse_patch(kind: PatchType, bytes: &[u8]) -> Result<Value, Error> {
    let bad = |e: String| Error::bad_request(format!("error decoding patch: {e}"));
    match kind {
        PatchType::Apply => {
            let text = std::str::from_utf8(bytes).map_err(|e| bad(e.to_string()))?;
            serde_saphyr::from_str(text).map_err(|e| bad(e.to_string()))
        }
        _ => serde_json::from_slice(bytes).map_err(|e| bad(e.to_string())),
    }
}

/// Applies a parsed patch to `current` (apply: the merge step only; ownership is
/// [`crate::managed_fields::apply`]'s).
pub fn apply_patch(kind: PatchType, patch: &Value, current: &Value) -> Result<Value, Error> {
    let mut doc = current.clone();
    match kind {
        PatchType::Json => {
            let ops: json_patch::Patch = serde_json::from_value(patch.clone())
                .map_err(|e| Error::bad_request(format!("error decoding patch: {e}")))?;
            if ops.0.len() > 10_000 {
                return Err(Error::bad_request(
                    "The allowed maximum operations in a JSON patch is 10000, got more",
                ));
            }
            json_patch::patch(&mut doc, &ops).map_err(|e| Error::Unprocessable(e.to_string()))?;
        }
        PatchType::Merge => json_patch::merge(&mut doc, patch),
        PatchType::Strategic => {
            let meta = crate::patch_meta::PatchMeta::of_kind(
                crate::meta::top_str(current, "apiVersion"),
                crate::meta::top_str(current, "kind"),
            );
            crate::strategic::apply_with(&mut doc, patch, "", &meta)
        }
        PatchType::Apply => crate::managed_fields::apply_merge(&mut doc, patch),
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strategic_merge_patch_is_unsupported_where_the_kind_has_none() {
        let e = PatchType::from_content_type("application/strategic-merge-patch+json", false)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
        );
    }

    #[test]
    fn a_json_patch_that_does_not_apply_is_unprocessable() {
        let patch = json!([{"op": "remove", "path": "/data/missing"}]);
        let e = apply_patch(PatchType::Json, &patch, &json!({"data": {}})).unwrap_err();
        assert!(matches!(e, Error::Unprocessable(_)));
    }
}
