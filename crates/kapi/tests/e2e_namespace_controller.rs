//! The namespace controller on the controller runtime (issue 12): a deleted namespace is
//! emptied through the REST layer (finalizers honoured), says what remains in upstream's
//! deletion conditions (issue 16), and is removed once empty; a namespace left Terminating by
//! a restart is finished by the next start.

mod e2e_support;

use e2e_support::{Kapi, json};
use kapi_storage::{EmbeddedConfig, StoreConfig, open_store};
use std::time::{Duration, Instant};

async fn status_of(kapi: &Kapi, path: &str) -> (u16, serde_json::Value) {
    let (status, _, body) = kapi
        .raw(http::Request::get(path).body(Vec::new()).unwrap())
        .await;
    (status, json(&body))
}

async fn wait_gone(kapi: &Kapi, path: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while status_of(kapi, path).await.0 != 404 {
        assert!(Instant::now() < deadline, "{path} was never deleted");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn create_cm(kapi: &Kapi, ns: &str, name: &str, finalizer: Option<&str>) {
    let finalizers = finalizer.map_or(String::new(), |f| format!("\n  finalizers: [\"{f}\"]"));
    let manifest = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {ns}{finalizers}\n"
    );
    let path = kapi.kubectl_cache_dir().join(format!("{name}.yaml"));
    std::fs::write(&path, manifest).unwrap();
    kapi.kubectl_ok(&["apply", "-f", path.to_str().unwrap()]);
}

#[tokio::test]
async fn a_namespace_stays_terminating_until_its_content_finalizers_are_gone() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "t"]);
    create_cm(&kapi, "t", "held", Some("example.com/hold"));
    create_cm(&kapi, "t", "free", None);
    kapi.kubectl_ok(&["delete", "namespace", "t", "--wait=false"]);
    wait_gone(&kapi, "/api/v1/namespaces/t/configmaps/free").await;
    let (status, ns) = status_of(&kapi, "/api/v1/namespaces/t").await;
    assert_eq!(status, 200);
    assert_eq!(ns["status"]["phase"], "Terminating");
    let (_, held) = status_of(&kapi, "/api/v1/namespaces/t/configmaps/held").await;
    assert!(held["metadata"]["deletionTimestamp"].is_string(), "{held}");
    kapi.kubectl_ok(&[
        "patch",
        "configmap",
        "held",
        "-n",
        "t",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
    wait_gone(&kapi, "/api/v1/namespaces/t").await;
}

#[tokio::test]
async fn a_terminating_namespace_says_what_content_and_finalizers_remain() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "t"]);
    create_cm(&kapi, "t", "held", Some("example.com/hold"));
    kapi.kubectl_ok(&["delete", "namespace", "t", "--wait=false"]);
    let condition = |ns: &serde_json::Value, kind: &str| {
        ns["status"]["conditions"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["type"] == kind).cloned())
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    let ns = loop {
        let (_, ns) = status_of(&kapi, "/api/v1/namespaces/t").await;
        if condition(&ns, "NamespaceFinalizersRemaining").is_some() {
            break ns;
        }
        assert!(Instant::now() < deadline, "no deletion conditions: {ns}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let remaining = condition(&ns, "NamespaceContentRemaining").unwrap();
    assert_eq!(remaining["status"], "True");
    assert_eq!(remaining["reason"], "SomeResourcesRemain");
    assert_eq!(
        remaining["message"],
        "Some resources are remaining: configmaps. has 1 resource instances"
    );
    let held = condition(&ns, "NamespaceFinalizersRemaining").unwrap();
    assert_eq!(held["reason"], "SomeFinalizersRemain");
    assert_eq!(
        held["message"],
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances"
    );
    let failure = condition(&ns, "NamespaceDeletionContentFailure").unwrap();
    assert_eq!(
        (&failure["status"], &failure["reason"]),
        (&"False".into(), &"ContentDeleted".into())
    );
    // kubectl shows them as kube-apiserver's namespaces do.
    let described = kapi.kubectl_ok(&["describe", "namespace", "t"]);
    assert!(
        described.contains("NamespaceContentRemaining"),
        "{described}"
    );
}

#[tokio::test]
async fn a_namespace_left_terminating_across_a_restart_finishes() {
    let kapi = Kapi::start_process().await;
    kapi.kubectl_ok(&["create", "namespace", "t"]);
    create_cm(&kapi, "t", "a", None);
    let dir = kapi.crash();
    // The state a restart interrupts: the namespace marked Terminating, its content still
    // there, and nobody left running to finish it.
    {
        let store = open_store(StoreConfig::Embedded(EmbeddedConfig::new(dir.path())))
            .await
            .unwrap();
        let key = b"/registry/namespaces/t";
        let kv = store.get(key, None).await.unwrap().unwrap();
        let mut ns: serde_json::Value = serde_json::from_slice(&kv.value).unwrap();
        ns["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z".into();
        ns["status"]["phase"] = "Terminating".into();
        store
            .update(key, serde_json::to_vec(&ns).unwrap(), kv.mod_revision)
            .await
            .unwrap();
    }
    let kapi = Kapi::start_in(dir, &[]).await;
    wait_gone(&kapi, "/api/v1/namespaces/t").await;
    let (status, _) = status_of(&kapi, "/api/v1/namespaces/t/configmaps/a").await;
    assert_eq!(status, 404);
}

/// Polls kubectl until `args` succeeds (the controllers work in the background).
fn kubectl_eventually(kapi: &Kapi, args: &[&str]) -> String {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = kapi.kubectl(args);
        if out.status.success() {
            return String::from_utf8_lossy(&out.stdout).into_owned();
        }
        assert!(
            Instant::now() < deadline,
            "kubectl {args:?} never succeeded"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test]
async fn a_new_namespace_gets_a_default_service_account_as_on_a_cluster() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "team-a"]);
    let name = kubectl_eventually(
        &kapi,
        &["get", "sa", "default", "-n", "team-a", "-o", "name"],
    );
    assert_eq!(name.trim(), "serviceaccount/default");
}

#[tokio::test]
async fn every_namespace_holds_the_ca_that_verifies_kapi_in_kube_root_ca_crt() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "team-b"]);
    let ca = kubectl_eventually(
        &kapi,
        &[
            "get",
            "configmap",
            "kube-root-ca.crt",
            "-n",
            "team-b",
            "-o",
            "jsonpath={.data.ca\\.crt}",
        ],
    );
    let served = std::fs::read_to_string(kapi.kubeconfig().with_file_name("ca.crt")).unwrap();
    assert_eq!(ca, served);
}
