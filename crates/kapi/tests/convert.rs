//! `kapi convert`, run as the built binary on real files: the output is what kube-apiserver
//! returns for an object created in its own version and read in the output version.

use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/convert_data")
        .join(name)
}

fn kapi_convert(file: &Path, output_version: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kapi"))
        .arg("convert")
        .arg("-f")
        .arg(file)
        .args(["--output-version", output_version])
        .args(extra)
        .output()
        .expect("kapi runs")
}

fn convert_json(file: &Path, output_version: &str) -> Value {
    let out = kapi_convert(file, output_version, &["-o", "json"]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

fn write_temp(name: &str, value: &Value) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, serde_json::to_vec(value).unwrap()).unwrap();
    path
}

fn golden(name: &str) -> Value {
    serde_json::from_slice(&std::fs::read(data(name)).unwrap()).unwrap()
}

#[test]
fn hpa_v1_converts_to_v2_with_kubernetes_defaults() {
    let out = convert_json(&data("hpa-v1.yaml"), "autoscaling/v2");
    assert_eq!(out["apiVersion"], "autoscaling/v2");
    assert_eq!(out["spec"]["minReplicas"], 1);
    assert_eq!(
        out["spec"]["metrics"],
        json!([{"type": "Resource", "resource": {"name": "cpu",
            "target": {"type": "Utilization", "averageUtilization": 60}}}])
    );
    assert_eq!(
        out["status"],
        json!({"currentMetrics": null, "desiredReplicas": 0})
    );
}

#[test]
fn hpa_v1_without_a_target_gets_cpu_at_eighty_percent() {
    let out = convert_json(&data("mixed.yaml"), "autoscaling/v2");
    let hpa = &out["items"][1];
    assert_eq!(
        hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
        80
    );
}

#[test]
fn kube_apiservers_v2_object_converts_to_its_v1_object() {
    assert_eq!(
        convert_json(&data("hpa-v2.json"), "autoscaling/v1"),
        golden("hpa-v1.json")
    );
}

#[test]
fn kube_apiservers_v1_object_converts_to_its_v2_object() {
    assert_eq!(
        convert_json(&data("hpa-v1.json"), "autoscaling/v2"),
        golden("hpa-v2.json")
    );
}

#[test]
fn hpa_v2_goes_to_v1_and_back_unchanged() {
    let v2 = convert_json(&data("hpa-v2.yaml"), "autoscaling/v2");
    let v1 = convert_json(&data("hpa-v2.yaml"), "autoscaling/v1");
    assert!(v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/metrics"].is_string());
    assert!(v1["metadata"]["annotations"]["autoscaling.alpha.kubernetes.io/behavior"].is_string());
    let back = convert_json(&write_temp("hpa-round-trip-v1.json", &v1), "autoscaling/v2");
    assert_eq!(back, v2);
}

#[test]
fn v2_defaults_fill_the_given_behavior() {
    let v2 = convert_json(&data("hpa-v2.yaml"), "autoscaling/v2");
    let behavior = &v2["spec"]["behavior"];
    assert_eq!(behavior["scaleDown"]["stabilizationWindowSeconds"], 120);
    assert_eq!(behavior["scaleDown"]["selectPolicy"], "Max");
    assert_eq!(
        behavior["scaleUp"]["policies"].as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
fn quantities_come_out_in_canonical_form() {
    let v2 = convert_json(&data("hpa-v2.yaml"), "autoscaling/v2");
    assert_eq!(
        v2["spec"]["metrics"][0]["resource"]["target"]["averageValue"],
        "512Mi"
    );
}

#[test]
fn multi_document_yaml_gives_a_yaml_stream_in_order() {
    let out = kapi_convert(&data("mixed.yaml"), "autoscaling/v2", &[]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let docs: Vec<&str> = text.split("---\n").collect();
    assert_eq!(docs.len(), 2, "{text}");
    assert!(docs[0].contains("kind: ConfigMap"));
    assert!(docs[1].contains("apiVersion: autoscaling/v2"));
}

#[test]
fn several_documents_as_json_give_a_v1_list() {
    let out = convert_json(&data("mixed.yaml"), "autoscaling/v2");
    assert_eq!(
        (out["apiVersion"].as_str(), out["kind"].as_str()),
        (Some("v1"), Some("List"))
    );
    assert_eq!(out["items"][0]["kind"], "ConfigMap");
    assert_eq!(out["items"][1]["kind"], "HorizontalPodAutoscaler");
}

#[test]
fn objects_of_other_groups_keep_their_version() {
    let out = convert_json(&data("mixed.yaml"), "autoscaling/v2");
    assert_eq!(out["items"][0]["apiVersion"], "v1");
}

#[test]
fn a_list_in_gives_a_list_out() {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
         "metadata": {"name": "a"}, "spec": {"maxReplicas": 2}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "b"}}
    ]});
    let out = convert_json(&write_temp("list-in.json", &list), "autoscaling/v1");
    assert_eq!(out["kind"], "List");
    assert_eq!(out["items"][0]["apiVersion"], "autoscaling/v1");
    assert_eq!(out["items"][1]["type"], "Opaque");
}

#[test]
fn input_is_read_from_stdin_with_dash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kapi"))
        .args([
            "convert",
            "-f",
            "-",
            "--output-version",
            "autoscaling/v2",
            "-o",
            "json",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let input = std::fs::read(data("hpa-v1.yaml")).unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["apiVersion"], "autoscaling/v2");
}

fn assert_fails_naming(out: &Output, needle: &str) {
    assert!(!out.status.success(), "expected failure");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(needle),
        "stderr {stderr:?} lacks {needle:?}"
    );
    assert!(out.stdout.is_empty(), "nothing is printed on failure");
}

#[test]
fn unknown_kind_names_its_document_and_fails() {
    let out = kapi_convert(&data("bad-second.yaml"), "v1", &[]);
    assert_fails_naming(
        &out,
        "document 2: no kind \"Gadget\" is registered for version \"v1\"",
    );
}

#[test]
fn unknown_output_version_fails() {
    let out = kapi_convert(&data("hpa-v1.yaml"), "autoscaling/v9", &[]);
    assert_fails_naming(&out, "document 1: autoscaling/v9 is not a known version");
}

#[test]
fn unparsable_document_is_named_and_fails() {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("unparsable.yaml");
    std::fs::write(&path, "apiVersion: v1\nkind: ConfigMap\n---\nmetadata: [\n").unwrap();
    let out = kapi_convert(&path, "v1", &[]);
    assert_fails_naming(&out, "document 2:");
}

#[test]
fn missing_kind_is_reported() {
    let path = write_temp(
        "no-kind.json",
        &json!({"apiVersion": "v1", "metadata": {"name": "x"}}),
    );
    let out = kapi_convert(&path, "v1", &[]);
    assert_fails_naming(&out, "document 1: Object 'Kind' is missing");
}
