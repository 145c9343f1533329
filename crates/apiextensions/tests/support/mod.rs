//! Golden kube-apiserver responses (`testdata/golden/` at the repository root), and helpers to compare with them.
#![allow(dead_code)]

use kapi_apiextensions::{FieldError, Structural, field};
use serde_json::{Value, json};

pub use kapi_testsupport::golden::golden;

/// The golden Widget CRD (`crd-create.json`).
pub fn widget_crd() -> Value {
    golden("crd-create.json")
}

/// The structural schema of a version of the golden Widget CRD.
pub fn widget_schema(version: &str) -> Structural {
    let crd = widget_crd();
    let v = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == version)
        .unwrap();
    Structural::from_json(&v["schema"]["openAPIV3Schema"]).unwrap()
}

/// The `details.causes` a 422 carries for these errors.
pub fn causes(errs: &[FieldError]) -> Value {
    Value::Array(
        errs.iter()
            .map(|e| json!({"field": e.field_text(), "message": e.body(), "reason": e.error_type.reason()}))
            .collect(),
    )
}

/// Compares errors with a golden 422 Status: causes and message.
pub fn assert_matches_golden_422(
    errs: &[FieldError],
    golden_name: &str,
    kind: &str,
    group: &str,
    name: &str,
) {
    let g = golden(golden_name);
    assert_eq!(
        causes(errs),
        g["details"]["causes"],
        "causes of {golden_name}"
    );
    assert_eq!(
        field::invalid_message(kind, group, name, errs),
        g["message"].as_str().unwrap(),
        "message of {golden_name}"
    );
}
