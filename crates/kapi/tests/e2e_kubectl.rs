//! kubectl 1.32 against a real `kapi serve`: the first milestone (`get ns`), discovery,
//! create / apply (client- and server-side) / get in every output / delete.

mod e2e_support;

use e2e_support::{Kapi, json};
use std::io::Write;

fn manifest(kapi: &Kapi, name: &str, text: &str) -> String {
    let path = kapi.dir.path().join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    path.display().to_string()
}

const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm1\n  labels: {app: web}\ndata:\n  a: \"1\"\n";

#[tokio::test]
async fn kubectl_get_ns_lists_the_four_system_namespaces() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&["get", "ns"]);
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(ns) && l.contains("Active")),
            "{out}"
        );
    }
}

#[tokio::test]
async fn kubectl_api_resources_shows_every_builtin_resource() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&["api-resources", "--no-headers"]);
    for (name, short) in [
        ("configmaps", "cm"),
        ("namespaces", "ns"),
        ("horizontalpodautoscalers", "hpa"),
        ("customresourcedefinitions", "crd,crds"),
    ] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(name) && l.contains(short)),
            "{name}: {out}"
        );
    }
    assert!(out.lines().any(|l| l.starts_with("leases")), "{out}");
}

#[tokio::test]
async fn kubectl_create_get_json_and_delete_configmap() {
    let kapi = Kapi::start().await;
    let file = manifest(&kapi, "cm.yaml", CM);
    assert!(
        kapi.kubectl_ok(&["create", "-f", &file])
            .contains("configmap/cm1 created")
    );
    let obj = json(
        kapi.kubectl_ok(&["get", "cm", "cm1", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(obj["data"]["a"], "1");
    assert_eq!(obj["metadata"]["namespace"], "default");
    assert!(!obj["metadata"]["uid"].as_str().unwrap().is_empty());
    assert!(
        kapi.kubectl_ok(&["delete", "-f", &file])
            .contains("deleted")
    );
    let out = kapi.kubectl(&["get", "cm", "cm1"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("configmaps \"cm1\" not found"));
}

#[tokio::test]
async fn kubectl_get_prints_table_wide_and_yaml() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "-f", &manifest(&kapi, "cm.yaml", CM)]);
    let table = kapi.kubectl_ok(&["get", "cm"]);
    assert!(table.starts_with("NAME"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().take(2).eq(["cm1", "1"])),
        "{table}"
    );
    assert!(
        kapi.kubectl_ok(&["get", "cm", "-o", "wide"])
            .contains("cm1")
    );
    let yaml = kapi.kubectl_ok(&["get", "cm", "cm1", "-o", "yaml"]);
    assert!(
        yaml.contains("name: cm1") && yaml.contains("a: \"1\""),
        "{yaml}"
    );
}

#[tokio::test]
async fn kubectl_apply_creates_then_configures_then_takes_over_server_side() {
    let kapi = Kapi::start().await;
    let file = manifest(&kapi, "cm.yaml", CM);
    assert!(kapi.kubectl_ok(&["apply", "-f", &file]).contains("created"));
    let changed = manifest(&kapi, "cm2.yaml", &CM.replace("\"1\"", "\"2\""));
    assert!(
        kapi.kubectl_ok(&["apply", "-f", &changed])
            .contains("configured")
    );
    let obj = json(
        kapi.kubectl_ok(&["get", "cm", "cm1", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(obj["data"]["a"], "2");
    let ssa = manifest(&kapi, "cm3.yaml", &CM.replace("\"1\"", "\"3\""));
    assert!(
        kapi.kubectl_ok(&["apply", "--server-side", "--force-conflicts", "-f", &ssa])
            .contains("serverside-applied")
    );
    let obj = json(
        kapi.kubectl_ok(&["get", "cm", "cm1", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(obj["data"]["a"], "3");
}

#[tokio::test]
async fn kubectl_get_with_label_selector_filters() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "-f", &manifest(&kapi, "cm.yaml", CM)]);
    let other = CM.replace("cm1", "cm2").replace("app: web", "app: db");
    kapi.kubectl_ok(&["create", "-f", &manifest(&kapi, "cm2.yaml", &other)]);
    let out = kapi.kubectl_ok(&["get", "cm", "-l", "app=db", "-o", "name"]);
    assert_eq!(out.trim(), "configmap/cm2");
}

#[tokio::test]
async fn deleting_a_namespace_deletes_its_content_then_itself() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "doomed"]);
    let file = manifest(&kapi, "cm.yaml", CM);
    kapi.kubectl_ok(&["create", "-n", "doomed", "-f", &file]);
    kapi.kubectl_ok(&[
        "delete",
        "namespace",
        "doomed",
        "--wait=true",
        "--timeout=20s",
    ]);
    let out = kapi.kubectl(&["get", "ns", "doomed"]);
    assert!(!out.status.success());
    let out = kapi.kubectl_ok(&["get", "cm", "-A", "-o", "name"]);
    assert!(!out.contains("cm1"), "{out}");
}

#[tokio::test]
async fn create_in_a_missing_namespace_is_404_and_stores_nothing() {
    let kapi = Kapi::start_without_root_ca().await;
    let out = kapi.kubectl(&[
        "create",
        "-n",
        "nope",
        "-f",
        &manifest(&kapi, "cm.yaml", CM),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("namespaces \"nope\" not found"));
    assert!(
        kapi.kubectl_ok(&["get", "cm", "-A", "-o", "name"])
            .trim()
            .is_empty()
    );
}

#[tokio::test]
async fn server_side_apply_conflicts_with_another_manager_until_forced() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "-f", &manifest(&kapi, "cm.yaml", CM)]);
    let changed = manifest(&kapi, "cm2.yaml", &CM.replace("\"1\"", "\"2\""));
    let out = kapi.kubectl(&["apply", "--server-side", "-f", &changed]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("conflict with \"kubectl-create\" using v1: .data.a"),
        "{err}"
    );
    kapi.kubectl_ok(&[
        "apply",
        "--server-side",
        "--force-conflicts",
        "-f",
        &changed,
    ]);
    let obj = json(
        kapi.kubectl_ok(&["get", "cm", "cm1", "-o", "json", "--show-managed-fields"])
            .as_bytes(),
    );
    assert_eq!(obj["data"]["a"], "2");
    let managers: Vec<&str> = obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].as_str().unwrap())
        .collect();
    assert!(managers.contains(&"kubectl"), "{managers:?}");
}

#[tokio::test]
async fn kubectl_patch_merge_and_json_patch() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "-f", &manifest(&kapi, "cm.yaml", CM)]);
    kapi.kubectl_ok(&["patch", "cm", "cm1", "-p", r#"{"data":{"b":"x"}}"#]);
    kapi.kubectl_ok(&[
        "patch",
        "cm",
        "cm1",
        "--type=merge",
        "-p",
        r#"{"data":{"a":null}}"#,
    ]);
    kapi.kubectl_ok(&[
        "patch",
        "cm",
        "cm1",
        "--type=json",
        "-p",
        r#"[{"op":"add","path":"/data/c","value":"y"}]"#,
    ]);
    let obj = json(
        kapi.kubectl_ok(&["get", "cm", "cm1", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(obj["data"], serde_json::json!({"b": "x", "c": "y"}));
}

#[tokio::test]
async fn kubectl_edit_with_kube_editor_updates_the_object() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "-f", &manifest(&kapi, "cm.yaml", CM)]);
    kapi.kubectl_edit(&["cm", "cm1"], r#"s/a: "1"/a: edited/"#);
    let obj = json(
        kapi.kubectl_ok(&["get", "cm", "cm1", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(obj["data"]["a"], "edited");
}

#[tokio::test]
async fn kubectl_diff_shows_the_change_and_wait_sees_the_delete() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["apply", "-f", &manifest(&kapi, "cm.yaml", CM)]);
    let changed = manifest(&kapi, "cm2.yaml", &CM.replace("\"1\"", "\"5\""));
    let out = kapi.kubectl(&["diff", "-f", &changed]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("+  a: \"5\""));
    let mut wait = std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kapi.kubeconfig())
        .arg("--cache-dir")
        .arg(kapi.kubectl_cache_dir())
        .args(["wait", "--for=delete", "cm/cm1", "--timeout=20s"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    kapi.kubectl_ok(&["delete", "cm", "cm1"]);
    assert!(wait.wait().unwrap().success());
}

#[tokio::test]
async fn kubectl_explain_finds_the_kind() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&["explain", "configmap"]);
    assert!(out.contains("KIND:       ConfigMap"), "{out}");
}

#[tokio::test]
async fn client_side_apply_merges_finalizers_strategically() {
    let kapi = Kapi::start().await;
    let with = |fs: &str| {
        CM.replace(
            "  labels: {app: web}\n",
            &format!("  labels: {{app: web}}\n  finalizers: [{fs}]\n"),
        )
    };
    kapi.kubectl_ok(&[
        "apply",
        "-f",
        &manifest(&kapi, "a.yaml", &with("example.com/a")),
    ]);
    kapi.kubectl_ok(&[
        "apply",
        "-f",
        &manifest(&kapi, "ab.yaml", &with("example.com/a, example.com/b")),
    ]);
    let finalizers = |kapi: &Kapi| {
        json(
            kapi.kubectl_ok(&["get", "cm", "cm1", "-o", "json"])
                .as_bytes(),
        )["metadata"]["finalizers"]
            .clone()
    };
    assert_eq!(
        finalizers(&kapi),
        serde_json::json!(["example.com/a", "example.com/b"])
    );
    kapi.kubectl_ok(&[
        "apply",
        "-f",
        &manifest(&kapi, "b.yaml", &with("example.com/b")),
    ]);
    assert_eq!(finalizers(&kapi), serde_json::json!(["example.com/b"]));
}

#[tokio::test]
async fn system_namespaces_may_not_be_deleted() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl(&["delete", "namespace", "default"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("namespaces \"default\" is forbidden: this namespace may not be deleted"),
        "{err}"
    );
    kapi.kubectl_ok(&["get", "namespace", "default"]);
}
