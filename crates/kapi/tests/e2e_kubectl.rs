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
async fn kubectl_apply_creates_then_configures_then_applies_server_side() {
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
        kapi.kubectl_ok(&["apply", "--server-side", "-f", &ssa])
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
    let kapi = Kapi::start().await;
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
