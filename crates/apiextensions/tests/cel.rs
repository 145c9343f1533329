//! CEL `x-kubernetes-validations` (R5.23, R6.19).

use kapi_apiextensions::cel::CelValidator;
use kapi_apiextensions::{CustomResourceValidator, Structural};
use serde_json::{Value, json};

fn spec_schema(spec: Value) -> Structural {
    Structural::from_json(&json!({"type": "object", "properties": {"spec": spec}})).unwrap()
}

fn errors(spec: Value, obj: Value, old: Option<Value>) -> Vec<String> {
    let v = CelValidator::new(&spec_schema(spec));
    v.validate(
        &json!({"spec": obj}),
        old.map(|o| json!({"spec": o})).as_ref(),
    )
    .iter()
    .map(ToString::to_string)
    .collect()
}

fn rule(r: Value) -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string"}, "replicas": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}, "x-kubernetes-validations": [r]})
}

#[test]
fn cel_rule_without_message_reports_failed_rule_r6_19() {
    let errs = errors(
        rule(json!({"rule": "self.replicas < 5"})),
        json!({"replicas": 7}),
        None,
    );
    assert_eq!(
        errs,
        ["spec: Invalid value: failed rule: self.replicas < 5"]
    );
}

#[test]
fn cel_message_expression_replaces_message_r6_19() {
    let r = json!({"rule": "self.replicas < 5", "message": "static", "messageExpression": "'too many: ' + string(self.replicas)"});
    assert_eq!(
        errors(rule(r), json!({"replicas": 7}), None),
        ["spec: Invalid value: too many: 7"]
    );
}

#[test]
fn cel_field_path_and_reason_shape_the_error_r6_19() {
    let r = json!({"rule": "self.replicas < 5", "message": "lower it", "fieldPath": ".replicas", "reason": "FieldValueForbidden"});
    assert_eq!(
        errors(rule(r), json!({"replicas": 7}), None),
        ["spec.replicas: Forbidden: lower it"]
    );
}

#[test]
fn cel_rule_on_scalar_shows_the_value_r6_19() {
    let spec = json!({"type": "object", "properties": {"n": {"type": "integer", "x-kubernetes-validations": [{"rule": "self % 2 == 0", "message": "must be even"}]}}});
    assert_eq!(
        errors(spec, json!({"n": 3}), None),
        ["spec.n: Invalid value: 3: must be even"]
    );
}

#[test]
fn cel_transition_rule_runs_only_on_update_r5_23() {
    let r = json!({"rule": "self.name == oldSelf.name", "message": "name is immutable"});
    assert!(
        errors(rule(r.clone()), json!({"name": "b"}), None).is_empty(),
        "create skips oldSelf rules"
    );
    assert_eq!(
        errors(rule(r), json!({"name": "b"}), Some(json!({"name": "a"}))),
        ["spec: Invalid value: name is immutable"]
    );
}

#[test]
fn cel_kubernetes_string_list_and_regex_libraries_work_r6_19() {
    let r = json!({"rule": "self.name.lowerAscii().startsWith('ab') && self.tags.isSorted() && self.name.matches('^[a-z]+$') && self.name.find('[0-9]+') == ''"});
    assert!(
        errors(
            rule(r.clone()),
            json!({"name": "abc", "tags": ["a", "b"]}),
            None
        )
        .is_empty()
    );
    assert_eq!(
        errors(rule(r), json!({"name": "abc", "tags": ["b", "a"]}), None).len(),
        1
    );
}

#[test]
fn cel_quantity_and_url_libraries_work_r6_19() {
    let spec = json!({"type": "object", "properties": {"mem": {"type": "string"}, "u": {"type": "string"}},
        "x-kubernetes-validations": [{"rule": "quantity(self.mem).compareTo(quantity('1Gi')) <= 0 && url(self.u).getScheme() == 'https'"}]});
    assert!(
        errors(
            spec.clone(),
            json!({"mem": "512Mi", "u": "https://example.com"}),
            None
        )
        .is_empty()
    );
    assert_eq!(
        errors(
            spec,
            json!({"mem": "2Gi", "u": "https://example.com"}),
            None
        )
        .len(),
        1
    );
}

#[test]
fn cel_dashed_property_names_are_escaped_r6_19() {
    let spec = json!({"type": "object", "properties": {"max-size": {"type": "integer"}}, "x-kubernetes-validations": [{"rule": "self.max__dash__size > 0"}]});
    assert!(errors(spec.clone(), json!({"max-size": 1}), None).is_empty());
    assert_eq!(
        errors(spec, json!({"max-size": 0}), None),
        ["spec: Invalid value: failed rule: self.max__dash__size > 0"]
    );
}

#[test]
fn cel_evaluation_error_is_reported_with_the_rule_r6_19() {
    let errs = errors(
        rule(json!({"rule": "self.missing == 1"})),
        json!({"name": "a"}),
        None,
    );
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].starts_with("spec: Invalid value: \"object\": ")
            && errs[0].ends_with("evaluating rule: self.missing == 1"),
        "{}",
        errs[0]
    );
}

#[test]
fn cel_does_not_run_when_blocking_errors_exist_r6_19() {
    let s = spec_schema(
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "x-kubernetes-validations": [{"rule": "false"}]}),
    );
    let errs: Vec<String> = CustomResourceValidator::new(&s, None)
        .validate(&json!({"spec": {"n": "x"}}), None)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        errs.last().unwrap(),
        "<nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"
    );
}

#[test]
fn cel_root_sees_only_name_and_generate_name_of_metadata_r6_19() {
    let s = Structural::from_json(&json!({"type": "object", "x-kubernetes-validations": [{"rule": "self.metadata.name == 'a' && !has(self.metadata.labels)"}]})).unwrap();
    let errs = CelValidator::new(&s).validate(
        &json!({"metadata": {"name": "a", "labels": {"x": "y"}}}),
        None,
    );
    assert!(errs.is_empty(), "{errs:?}");
}

#[test]
fn cel_validator_can_be_shared_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CustomResourceValidator>();
}

#[test]
fn cel_rules_reading_fields_and_the_whole_self_on_one_node_both_see_everything_r6_19() {
    let spec = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "x-kubernetes-validations": [{"rule": "self.a > 0"}, {"rule": "size(self) == 2"}]});
    assert!(errors(spec.clone(), json!({"a": 1, "b": 2}), None).is_empty());
    assert_eq!(
        errors(spec, json!({"a": 1}), None),
        ["spec: Invalid value: failed rule: size(self) == 2"]
    );
}

#[test]
fn cel_optional_old_self_rule_runs_on_create_with_no_old_value_r5_23() {
    let spec = |r: &str| rule(json!({"rule": r, "optionalOldSelf": true, "message": "m"}));
    assert_eq!(
        errors(spec("oldSelf.hasValue()"), json!({"name": "a"}), None),
        ["spec: Invalid value: m"],
        "ran on create"
    );
    let keep = "!oldSelf.hasValue() || self.name == oldSelf.value().name";
    assert!(errors(spec(keep), json!({"name": "a"}), None).is_empty());
    assert_eq!(
        errors(spec(keep), json!({"name": "b"}), Some(json!({"name": "a"}))),
        ["spec: Invalid value: m"]
    );
}
