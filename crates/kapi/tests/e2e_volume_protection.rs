//! StorageObjectInUseProtection end to end: a new claim gets `kubernetes.io/pvc-protection`
//! and a new volume `kubernetes.io/pv-protection` (admission); a claim deleted while a
//! scheduled Pod uses it stays Terminating until the Pod is deleted, and a volume deleted
//! while Bound until it is not (kube-controller-manager's protection controllers, which
//! envtest lacks: there such a claim stays Terminating forever); with
//! `--disable-admission-plugins=StorageObjectInUseProtection` no finalizer is added, and the
//! claim controller gives one to a claim created so, as upstream's does.

mod e2e_support;

use e2e_support::Kapi;
use k8s_openapi::api::core::v1::{PersistentVolume, PersistentVolumeClaim, Pod};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;
use std::time::{Duration, Instant};

const PVC_FINALIZER: &str = "kubernetes.io/pvc-protection";
const PV_FINALIZER: &str = "kubernetes.io/pv-protection";

fn claim(name: &str) -> PersistentVolumeClaim {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }))
    .unwrap()
}

fn volume(name: &str) -> PersistentVolume {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "hostPath": {"path": "/tmp/data"}},
    }))
    .unwrap()
}

/// A Pod on node `node-1` mounting the claim `claim_name`.
fn pod_using(name: &str, claim_name: &str) -> Pod {
    serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "nodeName": "node-1",
            "containers": [{"name": "app", "image": "busybox",
                "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}],
        },
    }))
    .unwrap()
}

fn finalizers<K: kube::Resource>(obj: &K) -> Vec<String> {
    obj.meta().finalizers.clone().unwrap_or_default()
}

async fn wait_gone<K>(api: &Api<K>, name: &str)
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let deadline = Instant::now() + Duration::from_secs(20);
    while api.get_opt(name).await.unwrap().is_some() {
        assert!(Instant::now() < deadline, "{name} was never deleted");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Checks for a while that `name` stays, being deleted, with `finalizer`.
async fn stays_terminating<K>(api: &Api<K>, name: &str, finalizer: &str)
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    for _ in 0..10 {
        let obj = api.get(name).await.unwrap();
        assert!(obj.meta().deletion_timestamp.is_some(), "{obj:?}");
        assert_eq!(finalizers(&obj), [finalizer], "{obj:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_claim_used_by_a_running_pod_stays_terminating_until_the_pod_is_deleted() {
    let kapi = Kapi::start().await;
    let client = kapi.client().await;
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");

    let created = claims
        .create(&PostParams::default(), &claim("data"))
        .await
        .unwrap();
    assert_eq!(finalizers(&created), [PVC_FINALIZER]);
    pods.create(&PostParams::default(), &pod_using("app", "data"))
        .await
        .unwrap();
    pods.patch_status(
        "app",
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"phase": "Running"}})),
    )
    .await
    .unwrap();

    kapi.kubectl_ok(&["delete", "pvc", "data", "--wait=false"]);
    stays_terminating(&claims, "data", PVC_FINALIZER).await;
    let table = kapi.kubectl_ok(&["get", "pvc", "data"]);
    assert!(table.contains("Terminating"), "{table}");

    pods.delete("app", &DeleteParams::default().grace_period(0))
        .await
        .unwrap();
    wait_gone(&claims, "data").await;
}

#[tokio::test]
async fn a_claim_no_scheduled_pod_uses_goes_when_deleted() {
    let kapi = Kapi::start().await;
    let client = kapi.client().await;
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client, "default");
    claims
        .create(&PostParams::default(), &claim("free"))
        .await
        .unwrap();
    // A Pod that names the claim but is on no node does not hold it (the scheduler and the
    // kubelet refuse a claim being deleted), as upstream's controller judges.
    let mut pending = pod_using("pending", "free");
    if let Some(spec) = pending.spec.as_mut() {
        spec.node_name = None;
    }
    pods.create(&PostParams::default(), &pending).await.unwrap();
    claims
        .delete("free", &DeleteParams::default())
        .await
        .unwrap();
    wait_gone(&claims, "free").await;
}

#[tokio::test]
async fn a_volume_is_protected_while_bound_and_goes_once_deleted() {
    let kapi = Kapi::start().await;
    let volumes: Api<PersistentVolume> = Api::all(kapi.client().await);

    let created = volumes
        .create(&PostParams::default(), &volume("pv-bound"))
        .await
        .unwrap();
    assert_eq!(finalizers(&created), [PV_FINALIZER]);
    volumes
        .patch_status(
            "pv-bound",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Bound"}})),
        )
        .await
        .unwrap();
    volumes
        .delete("pv-bound", &DeleteParams::default())
        .await
        .unwrap();
    stays_terminating(&volumes, "pv-bound", PV_FINALIZER).await;
    volumes
        .patch_status(
            "pv-bound",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Released"}})),
        )
        .await
        .unwrap();
    wait_gone(&volumes, "pv-bound").await;

    let free = volumes
        .create(&PostParams::default(), &volume("pv-free"))
        .await
        .unwrap();
    assert_eq!(finalizers(&free), [PV_FINALIZER]);
    volumes
        .delete("pv-free", &DeleteParams::default())
        .await
        .unwrap();
    wait_gone(&volumes, "pv-free").await;
}

#[tokio::test]
async fn with_the_plugin_disabled_no_finalizer_is_added() {
    let kapi = Kapi::start_with(&[
        "--disable-admission-plugins=StorageObjectInUseProtection,ServiceAccount",
        "--controllers=*,-pvc-protection-controller,-pv-protection-controller",
    ])
    .await;
    let client = kapi.client().await;
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(client.clone(), "default");
    let volumes: Api<PersistentVolume> = Api::all(client);
    let created = claims
        .create(&PostParams::default(), &claim("data"))
        .await
        .unwrap();
    assert!(finalizers(&created).is_empty(), "{created:?}");
    let pv = volumes
        .create(&PostParams::default(), &volume("pv"))
        .await
        .unwrap();
    assert!(finalizers(&pv).is_empty(), "{pv:?}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(finalizers(&claims.get("data").await.unwrap()).is_empty());
    claims
        .delete("data", &DeleteParams::default())
        .await
        .unwrap();
    assert!(claims.get_opt("data").await.unwrap().is_none());
    let log = kapi.log();
    assert!(
        log.lines().any(|l| l.contains("WARN")
            && l.contains("--disable-admission-plugins=ServiceAccount")
            && l.contains("ignored")),
        "{log}"
    );
}

#[tokio::test]
async fn a_claim_created_without_the_plugin_gets_the_finalizer_from_the_controller() {
    let kapi =
        Kapi::start_with(&["--disable-admission-plugins=StorageObjectInUseProtection"]).await;
    let claims: Api<PersistentVolumeClaim> = Api::namespaced(kapi.client().await, "default");
    let created = claims
        .create(&PostParams::default(), &claim("old"))
        .await
        .unwrap();
    assert!(finalizers(&created).is_empty(), "{created:?}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let protected = loop {
        let now = claims.get("old").await.unwrap();
        if finalizers(&now) == [PVC_FINALIZER] {
            break now;
        }
        assert!(Instant::now() < deadline, "never protected: {now:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let managers: Vec<String> = protected
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| m.manager)
        .collect();
    assert!(
        managers.iter().any(|m| m == "kube-controller-manager"),
        "{managers:?}"
    );
}

#[test]
fn a_plugin_name_kube_apiserver_does_not_know_stops_kapi_with_upstreams_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kapi"))
        .args(["serve", "--secure-port", "0", "--data-dir"])
        .arg(dir.path())
        .arg("--disable-admission-plugins=ServiceAccount,StorageObjectInUseProtecton")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("kapi kept running with a misspelt admission plugin");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!status.success());
    assert!(
        stderr.contains(
            r#"disable-admission-plugins plugin \"StorageObjectInUseProtecton\" is unknown"#
        ) || stderr.contains(
            r#"disable-admission-plugins plugin "StorageObjectInUseProtecton" is unknown"#
        ),
        "{stderr}"
    );
    assert!(
        !dir.path().join("kubeconfig").exists(),
        "kapi must not have served"
    );
}
