//! The rules format's JSON Schema (`docs/conversion-rules.schema.json`) says what the parser
//! takes: the example's rules and every step kind validate; what the parser refuses does not.

use kapi_conversion::Rules;
use serde_json::{Value, json};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("docs/conversion-rules.schema.json")).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn every_step_kind_fits_the_schema_and_parses() {
    let rules = json!({"hub": "v2", "versions": {"v1": [
        {"rename": {"from": "spec.label", "to": "spec.displayName"}},
        {"rename": {"from": "spec.ports[].portName", "to": "spec.ports[].name"}},
        {"preserve": "spec.priority"},
        {"default": {"field": "spec.priority", "value": 0}},
        {"compute": {"toHub": {"spec.tag": "self.spec.image.split(':')[1]"},
                      "fromHub": {"spec.image": "self.spec.repository + ':' + self.spec.tag"}}}
    ]}});
    assert!(validator().is_valid(&rules));
    Rules::parse(&rules.to_string()).unwrap();
}

#[test]
fn the_examples_rules_fit_the_schema() {
    let text =
        std::fs::read_to_string(root().join("examples/declarative-conversion/crd.yaml")).unwrap();
    let crd: Value = serde_saphyr::from_str(&text).unwrap();
    let rules_text = crd["metadata"]["annotations"][kapi_conversion::RULES_ANNOTATION]
        .as_str()
        .unwrap();
    let rules: Value = serde_saphyr::from_str(rules_text).unwrap();
    assert!(validator().is_valid(&rules));
}

#[test]
fn what_the_parser_refuses_the_schema_refuses() {
    for bad in [
        json!({"versions": {}}),
        json!({"hub": "v2", "versions": {"v1": [{"copy": "spec.a"}]}}),
        json!({"hub": "v2", "versions": {"v1": [{"rename": {"from": "spec.a"}}]}}),
        json!({"hub": "v2", "versions": {"v1": [{"preserve": "spec.x[0]"}]}}),
    ] {
        assert!(!validator().is_valid(&bad), "{bad}");
        assert!(Rules::parse(&bad.to_string()).is_err(), "{bad}");
    }
}
