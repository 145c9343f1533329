//! `kapi convert --crd`, run as the built binary: custom resources converted offline through
//! their CRD's conversion strategy — None, or the real example webhook (`widget-webhook`)
//! over HTTPS — as kube-apiserver reads them (R4.12), and `--round-trip` finding lossy
//! conversions.

use kapi_testsupport::widget_webhook::{WidgetWebhook, webhook_url_conversion, widget_crd};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Command, Output};

fn write_temp(dir: &tempfile::TempDir, name: &str, value: &Value) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, serde_json::to_vec(value).unwrap()).unwrap();
    path
}

/// Runs `kapi convert --crd CRD -f OBJECTS ARGS…`.
fn kapi_convert(crd: &Value, objects: &Value, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let crd_file = write_temp(&dir, "crd.json", crd);
    let objects_file = write_temp(&dir, "objects.json", objects);
    Command::new(env!("CARGO_BIN_EXE_kapi"))
        .arg("convert")
        .arg("--crd")
        .arg(&crd_file)
        .arg("-f")
        .arg(&objects_file)
        .args(args)
        .output()
        .expect("kapi runs")
}

fn to_v1beta1_json(crd: &Value, objects: &Value, extra: &[&str]) -> Value {
    let mut args = vec![
        "--output-version",
        "golden.example.com/v1beta1",
        "-o",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = kapi_convert(crd, objects, &args);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn widget_v1alpha1(name: &str, label: &str) -> Value {
    json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
            "labels": {"app": "w"}},
        "spec": {"label": label}})
}

fn none_crd() -> Value {
    widget_crd(json!({"strategy": "None"}))
}

#[test]
fn none_strategy_changes_api_version_defaults_in_own_version_and_prunes_to_target() {
    let out = to_v1beta1_json(&none_crd(), &widget_v1alpha1("w1", "blue"), &[]);
    assert_eq!(out["apiVersion"], "golden.example.com/v1beta1");
    assert_eq!(out["metadata"]["uid"], "uid-w1");
    assert_eq!(out["spec"], json!({"replicas": 1}));
}

#[test]
fn webhook_at_url_converts_label_to_display_name() {
    let webhook = WidgetWebhook::start();
    let crd = widget_crd(webhook_url_conversion(&webhook.url, &webhook.ca_bundle()));
    let out = to_v1beta1_json(&crd, &widget_v1alpha1("w1", "blue"), &[]);
    assert_eq!(out["apiVersion"], "golden.example.com/v1beta1");
    assert_eq!(out["spec"], json!({"displayName": "blue", "replicas": 1}));
    assert_eq!(out["metadata"]["labels"], json!({"app": "w"}));
}

#[test]
fn webhook_service_is_reached_through_the_service_resolver_flag() {
    let webhook = WidgetWebhook::start();
    let crd = widget_crd(json!({"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"caBundle": webhook.ca_bundle(), "service":
            {"namespace": "webhooks", "name": "widgets", "path": "/convert", "port": 443}}}}));
    let resolver = format!("webhooks/widgets=127.0.0.1:{}", webhook.port);
    let out = to_v1beta1_json(
        &crd,
        &widget_v1alpha1("w1", "green"),
        &["--service-resolver", &resolver],
    );
    assert_eq!(out["spec"]["displayName"], "green");
}

#[test]
fn a_list_in_is_converted_and_printed_as_a_list() {
    let webhook = WidgetWebhook::start();
    let crd = widget_crd(webhook_url_conversion(&webhook.url, &webhook.ca_bundle()));
    let list = json!({"apiVersion": "v1", "kind": "List", "items":
        [widget_v1alpha1("a", "one"), widget_v1alpha1("b", "two")]});
    let out = to_v1beta1_json(&crd, &list, &[]);
    assert_eq!(out["kind"], "List");
    let names: Vec<&Value> = out["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["spec"]["displayName"])
        .collect();
    assert_eq!(names, [&json!("one"), &json!("two")]);
}

#[test]
fn webhook_down_fails_with_kube_apiserver_wording() {
    let mut webhook = WidgetWebhook::start();
    let crd = widget_crd(webhook_url_conversion(&webhook.url, &webhook.ca_bundle()));
    webhook.kill();
    let out = kapi_convert(
        &crd,
        &widget_v1alpha1("w1", "blue"),
        &["--output-version", "golden.example.com/v1beta1"],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "conversion webhook for golden.example.com/v1alpha1, Kind=Widget failed: Post \""
        ),
        "stderr: {stderr}"
    );
}

#[test]
fn an_object_of_another_kind_is_rejected() {
    let mut obj = widget_v1alpha1("w1", "blue");
    obj["kind"] = json!("Gadget");
    let out = kapi_convert(
        &none_crd(),
        &obj,
        &["--output-version", "golden.example.com/v1beta1"],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "object 1: golden.example.com/v1alpha1, Kind=Gadget is not a custom resource of widgets.golden.example.com"
        )
    );
}

#[test]
fn an_output_version_the_crd_lacks_is_rejected() {
    let out = kapi_convert(
        &none_crd(),
        &widget_v1alpha1("w1", "blue"),
        &["--output-version", "golden.example.com/v2"],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--output-version \"golden.example.com/v2\"")
    );
}

#[test]
fn round_trip_through_the_webhook_keeps_every_field() {
    let webhook = WidgetWebhook::start();
    let crd = widget_crd(webhook_url_conversion(&webhook.url, &webhook.ca_bundle()));
    let out = kapi_convert(&crd, &widget_v1alpha1("w1", "blue"), &["--round-trip"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "stdout: {stdout}");
    assert_eq!(
        stdout,
        "every field of 1 object(s) survives a round trip between v1alpha1, v1beta1\n"
    );
}

#[test]
fn round_trip_reports_a_field_only_v1alpha1_has_lost_through_v1beta1() {
    let out = kapi_convert(
        &none_crd(),
        &widget_v1alpha1("w1", "blue"),
        &["--round-trip"],
    );
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "object 1 (default/w1): v1alpha1 -> v1beta1 -> v1alpha1: .spec.label lost (was \"blue\")\n"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("do not survive a round trip"));
}

#[test]
fn yaml_output_is_the_default_and_one_document_per_object() {
    let dir = tempfile::tempdir().unwrap();
    let crd_file = write_temp(&dir, "crd.json", &none_crd());
    let doc = |name: &str| {
        format!(
            "apiVersion: golden.example.com/v1alpha1\nkind: Widget\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n  label: x\n"
        )
    };
    let text = format!("{}---\n{}", doc("a"), doc("b"));
    let objects_file = dir.path().join("objects.yaml");
    std::fs::write(&objects_file, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kapi"))
        .arg("convert")
        .arg("--crd")
        .arg(&crd_file)
        .arg("-f")
        .arg(&objects_file)
        .args(["--output-version", "v1beta1"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let docs: Vec<&str> = stdout.split("---\n").collect();
    assert_eq!(docs.len(), 2, "{stdout}");
    assert!(
        docs[0].contains("apiVersion: golden.example.com/v1beta1"),
        "{stdout}"
    );
    assert!(docs[1].contains("name: b"), "{stdout}");
}

/// The CRD of `examples/declarative-conversion/` (rules in its annotation) as JSON.
fn rules_crd(rules: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/declarative-conversion/crd.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let mut crd: Value = kapi_machinery::serializer::yaml::yaml_to_value(text.as_bytes()).unwrap();
    crd["metadata"]["annotations"]["conversion.kapi.dev/rules"] = json!(rules);
    crd
}

const RENAME_RULES: &str = "hub: v1beta1\nversions:\n  v1alpha1:\n    - rename: {from: spec.label, to: spec.displayName}\n";

#[test]
fn declarative_rules_convert_offline_without_a_webhook() {
    let objects = widget_v1alpha1("w", "shown");
    let out = to_v1beta1_json(&rules_crd(RENAME_RULES), &objects, &[]);
    assert_eq!(out["spec"]["displayName"], "shown");
    assert!(out["spec"].get("label").is_none());
}

#[test]
fn round_trip_names_the_field_rules_without_a_rename_lose() {
    let rules = "hub: v1beta1\nversions:\n  v1alpha1: []\n";
    let out = kapi_convert(
        &rules_crd(rules),
        &widget_v1alpha1("w", "lost"),
        &["--round-trip"],
    );
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("spec.label"), "{report}");
}

#[test]
fn round_trip_of_the_example_rules_loses_nothing() {
    let out = kapi_convert(
        &rules_crd(RENAME_RULES),
        &widget_v1alpha1("w", "kept"),
        &["--round-trip"],
    );
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn round_trip_of_generated_objects_names_the_missing_step() {
    let rules = "hub: v1beta1\nversions:\n  v1alpha1: []\n";
    let out = kapi_convert(
        &rules_crd(rules),
        &widget_v1alpha1("w", "lost"),
        &["--round-trip", "--generated", "5"],
    );
    assert_eq!(out.status.code(), Some(1));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("no step of v1alpha1 carries spec.label to the hub v1beta1"),
        "{report}"
    );
    assert!(
        report.contains("no step of v1alpha1 keeps the hub's spec.displayName"),
        "{report}"
    );
}

#[test]
fn round_trip_of_generated_objects_through_the_example_rules_loses_nothing() {
    let out = kapi_convert(
        &rules_crd(RENAME_RULES),
        &widget_v1alpha1("w", "kept"),
        &["--round-trip", "--generated", "50"],
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("every field of 101 object(s) survives"),
        "{report}"
    );
}
