//! The Widget's admission webhooks, registered for v1beta1 (kube-apiserver converts a
//! v1alpha1 write to v1beta1 for them, `matchPolicy: Equivalent`): `/mutate` defaults
//! `spec.replicas` to 1, `/validate` refuses more than 5 replicas (stricter than the
//! schema's 10) and warns about a Widget without a display name.

use crate::widget::v1beta1::Widget;
use kapi_webhook::{AdmissionRequest, Verdict};
use serde_json::json;

/// Most replicas a Widget may ask for.
pub const MAX_REPLICAS: i64 = 5;

/// The typed Widget of a request, or the denial saying why there is none.
fn widget(request: &AdmissionRequest) -> Result<Widget, Verdict> {
    match request.object_as::<Widget>() {
        Ok(Some(w)) => Ok(w),
        Ok(None) => Err(Verdict::deny_with(
            400,
            "BadRequest",
            "the request has no object",
        )),
        Err(e) => Err(Verdict::deny_with(
            400,
            "BadRequest",
            format!("not a v1beta1 Widget: {e}"),
        )),
    }
}

/// Defaults `spec.replicas` to 1.
pub fn mutate(request: &AdmissionRequest) -> Verdict {
    let typed = match widget(request) {
        Ok(w) => w,
        Err(denied) => return denied,
    };
    if typed.spec.as_ref().and_then(|s| s.replicas).is_some() {
        return Verdict::allow();
    }
    // The change is made on the object as sent, so that nothing else of it changes.
    let original = request.object.clone().unwrap_or_default();
    let mut modified = original.clone();
    if !modified["spec"].is_object() {
        modified["spec"] = json!({});
    }
    modified["spec"]["replicas"] = json!(1);
    Verdict::patched(&original, &modified)
}

/// Refuses more than [`MAX_REPLICAS`]; warns when there is no display name.
pub fn validate(request: &AdmissionRequest) -> Verdict {
    let typed = match widget(request) {
        Ok(w) => w,
        Err(denied) => return denied,
    };
    let spec = typed.spec.unwrap_or_default();
    let replicas = spec.replicas.unwrap_or(0);
    if replicas > MAX_REPLICAS {
        // 403 Forbidden (a 422 Invalid without causes reads badly in kubectl).
        return Verdict::deny(format!(
            "spec.replicas: must be at most {MAX_REPLICAS}, got {replicas}"
        ));
    }
    let verdict = Verdict::allow();
    match spec.display_name.as_deref() {
        Some(name) if !name.is_empty() => verdict,
        _ => verdict.with_warning(format!("Widget {:?} has no display name", request.name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(spec: serde_json::Value) -> AdmissionRequest {
        AdmissionRequest {
            uid: "u".into(),
            operation: "CREATE".into(),
            name: "w".into(),
            object: Some(
                json!({"apiVersion": "golden.example.com/v1beta1", "kind": "Widget",
                "metadata": {"name": "w"}, "spec": spec}),
            ),
            ..AdmissionRequest::default()
        }
    }

    #[test]
    fn a_widget_without_replicas_gets_one() {
        let v = mutate(&request(json!({"displayName": "x"})));
        assert_eq!(
            v.patch(),
            [json!({"op": "add", "path": "/spec/replicas", "value": 1})]
        );
    }

    #[test]
    fn a_widget_with_replicas_is_left_alone() {
        assert!(mutate(&request(json!({"replicas": 3}))).patch().is_empty());
    }

    #[test]
    fn more_than_five_replicas_are_refused() {
        let v = validate(&request(json!({"replicas": 6, "displayName": "x"})));
        assert!(!v.is_allowed());
    }

    #[test]
    fn a_widget_without_display_name_is_admitted_with_a_warning() {
        let v = validate(&request(json!({"replicas": 1})));
        assert!(v.is_allowed());
        assert_eq!(
            v,
            Verdict::allow().with_warning("Widget \"w\" has no display name")
        );
    }
}
