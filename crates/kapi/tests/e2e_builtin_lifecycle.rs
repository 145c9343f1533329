//! The common workload, networking, RBAC and storage kinds through their whole life with
//! the `kube` crate (issue 13): create, get, update, merge patch, watch and delete, each
//! kind against a real kapi over HTTPS. The watch, opened before the create, must report
//! ADDED, two MODIFIED and DELETED for the object, in that order — and for claims and
//! volumes a third MODIFIED (the delete marks them; their protection controller then takes
//! StorageObjectInUseProtection's finalizer away), as on a cluster.

mod e2e_support;

use e2e_support::Kapi;
use futures::{StreamExt, TryStreamExt};
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams,
    PostParams, WatchEvent, WatchParams,
};
use serde_json::{Value, json};
use std::time::Duration;

/// One kind to take through its life: its resource and the object to create.
struct Kind {
    api_version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    body: Value,
}

fn kind(api_version: &'static str, kind: &'static str, plural: &'static str, body: Value) -> Kind {
    Kind {
        api_version,
        kind,
        plural,
        namespaced: true,
        body,
    }
}

fn cluster(
    api_version: &'static str,
    kind: &'static str,
    plural: &'static str,
    body: Value,
) -> Kind {
    Kind {
        namespaced: false,
        ..self::kind(api_version, kind, plural, body)
    }
}

fn pod_template(app: &str) -> Value {
    json!({"metadata": {"labels": {"app": app}},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}})
}

fn api(client: &kube::Client, k: &Kind) -> Api<DynamicObject> {
    let (group, version) = match k.api_version.split_once('/') {
        Some((g, v)) => (g, v),
        None => ("", k.api_version),
    };
    let gvk = GroupVersionKind::gvk(group, version, k.kind);
    let ar = ApiResource::from_gvk_with_plural(&gvk, k.plural);
    if k.namespaced {
        Api::namespaced_with(client.clone(), "default", &ar)
    } else {
        Api::all_with(client.clone(), &ar)
    }
}

/// Claims and volumes, which StorageObjectInUseProtection gives a finalizer.
fn protected(k: &Kind) -> bool {
    k.api_version == "v1" && matches!(k.plural, "persistentvolumeclaims" | "persistentvolumes")
}

fn step_label(o: &DynamicObject) -> Option<&str> {
    o.metadata
        .labels
        .as_ref()
        .and_then(|l| l.get("step"))
        .map(String::as_str)
}

/// Creates, reads, updates, patches and deletes the kind's object while a watch records
/// what it sees; returns the watch's event types for the object.
async fn live_through(client: &kube::Client, k: &Kind) -> Vec<String> {
    let api = api(client, k);
    let name = k.body["metadata"]["name"].as_str().unwrap().to_owned();
    let rv = api
        .list_metadata(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let watched = name.clone();
    let stream = api
        .watch(&WatchParams::default().timeout(30), &rv)
        .await
        .unwrap();
    let watcher = tokio::spawn(async move {
        let mut seen = Vec::new();
        let mut stream = stream.boxed();
        while let Some(event) = stream.try_next().await.unwrap() {
            let (kind, obj) = match event {
                WatchEvent::Added(o) => ("ADDED", o),
                WatchEvent::Modified(o) => ("MODIFIED", o),
                WatchEvent::Deleted(o) => ("DELETED", o),
                _ => continue,
            };
            if obj.metadata.name.as_deref() != Some(watched.as_str()) {
                continue;
            }
            seen.push(kind.to_owned());
            if kind == "DELETED" {
                break;
            }
        }
        seen
    });

    let mut body = k.body.clone();
    body["apiVersion"] = json!(k.api_version);
    body["kind"] = json!(k.kind);
    let obj: DynamicObject = serde_json::from_value(body).unwrap();
    let created = api.create(&PostParams::default(), &obj).await.unwrap();
    assert!(created.metadata.uid.is_some(), "{}: no uid", k.kind);

    let mut got = api.get(&name).await.unwrap();
    assert_eq!(got.metadata.uid, created.metadata.uid, "{}", k.kind);
    got.metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert("step".into(), "replaced".into());
    let replaced = api
        .replace(&name, &PostParams::default(), &got)
        .await
        .unwrap();
    assert_eq!(step_label(&replaced), Some("replaced"), "{}", k.kind);

    let patch = json!({"metadata": {"labels": {"step": "patched"}}});
    let patched = api
        .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert_eq!(step_label(&patched), Some("patched"), "{}", k.kind);
    assert_eq!(
        step_label(&api.get(&name).await.unwrap()),
        Some("patched"),
        "{}",
        k.kind
    );

    api.delete(&name, &DeleteParams::default()).await.unwrap();
    if protected(k) {
        // Held by its protection finalizer until the controller removes it.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while api.get_opt(&name).await.unwrap().is_some() {
            assert!(
                std::time::Instant::now() < deadline,
                "{} never went",
                k.kind
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let gone = api.get_opt(&name).await.unwrap();
    assert!(gone.is_none(), "{} still there after delete", k.kind);
    tokio::time::timeout(Duration::from_secs(10), watcher)
        .await
        .unwrap_or_else(|_| panic!("{}: the watch saw no DELETED", k.kind))
        .unwrap()
}

async fn assert_whole_lives(kinds: Vec<Kind>) {
    let kapi = Kapi::start().await;
    let client = kapi.client().await;
    for k in &kinds {
        let seen = live_through(&client, k).await;
        let expected: &[&str] = if protected(k) {
            &["ADDED", "MODIFIED", "MODIFIED", "MODIFIED", "DELETED"]
        } else {
            &["ADDED", "MODIFIED", "MODIFIED", "DELETED"]
        };
        assert_eq!(seen, expected, "{}", k.kind);
    }
}

#[tokio::test]
async fn workload_kinds_live_through_create_update_patch_watch_and_delete() {
    assert_whole_lives(vec![
        kind(
            "apps/v1",
            "StatefulSet",
            "statefulsets",
            json!({"metadata": {"name": "db"},
            "spec": {"serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                "template": pod_template("db")}}),
        ),
        kind(
            "apps/v1",
            "DaemonSet",
            "daemonsets",
            json!({"metadata": {"name": "agent"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                "template": pod_template("agent")}}),
        ),
        kind(
            "apps/v1",
            "ReplicaSet",
            "replicasets",
            json!({"metadata": {"name": "rs"},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "rs"}},
                "template": pod_template("rs")}}),
        ),
        kind(
            "batch/v1",
            "CronJob",
            "cronjobs",
            json!({"metadata": {"name": "nightly"},
            "spec": {"schedule": "0 3 * * *", "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "OnFailure",
                "containers": [{"name": "c", "image": "busybox"}]}}}}}}),
        ),
        kind(
            "v1",
            "Pod",
            "pods",
            json!({"metadata": {"name": "solo"},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}),
        ),
    ])
    .await;
}

#[tokio::test]
async fn networking_kinds_live_through_create_update_patch_watch_and_delete() {
    assert_whole_lives(vec![
        kind(
            "v1",
            "Service",
            "services",
            json!({"metadata": {"name": "web"},
            "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}),
        ),
        kind(
            "networking.k8s.io/v1",
            "NetworkPolicy",
            "networkpolicies",
            json!({
            "metadata": {"name": "deny-all"},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"]}}),
        ),
        kind(
            "networking.k8s.io/v1",
            "Ingress",
            "ingresses",
            json!({"metadata": {"name": "web"},
            "spec": {"rules": [{"host": "web.example", "http": {"paths": [{"path": "/",
                "pathType": "Prefix",
                "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}}),
        ),
        cluster(
            "networking.k8s.io/v1",
            "IngressClass",
            "ingressclasses",
            json!({
            "metadata": {"name": "nginx"}, "spec": {"controller": "example.com/ingress"}}),
        ),
        kind(
            "discovery.k8s.io/v1",
            "EndpointSlice",
            "endpointslices",
            json!({
            "metadata": {"name": "web-1"}, "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.0.0.5"]}], "ports": [{"port": 8080}]}),
        ),
    ])
    .await;
}

#[tokio::test]
async fn rbac_kinds_live_through_create_update_patch_watch_and_delete() {
    let rules = json!([{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]);
    assert_whole_lives(vec![
        kind("rbac.authorization.k8s.io/v1", "Role", "roles",
            json!({"metadata": {"name": "reader"}, "rules": rules})),
        kind("rbac.authorization.k8s.io/v1", "RoleBinding", "rolebindings", json!({
            "metadata": {"name": "reader"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "default"}]})),
        cluster("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles",
            json!({"metadata": {"name": "op-reader"}, "rules": rules})),
        cluster("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "clusterrolebindings", json!({
            "metadata": {"name": "op-reader"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                "name": "op-reader"},
            "subjects": [{"kind": "Group", "name": "ops", "apiGroup": "rbac.authorization.k8s.io"}]})),
        kind("v1", "ServiceAccount", "serviceaccounts", json!({"metadata": {"name": "op"}})),
    ])
    .await;
}

#[tokio::test]
async fn storage_kinds_live_through_create_update_patch_watch_and_delete() {
    assert_whole_lives(vec![
        cluster(
            "storage.k8s.io/v1",
            "StorageClass",
            "storageclasses",
            json!({
            "metadata": {"name": "fast"}, "provisioner": "example.com/disk",
            "volumeBindingMode": "WaitForFirstConsumer"}),
        ),
        kind(
            "v1",
            "PersistentVolumeClaim",
            "persistentvolumeclaims",
            json!({
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "fast",
                "resources": {"requests": {"storage": "1Gi"}}}}),
        ),
        cluster(
            "v1",
            "PersistentVolume",
            "persistentvolumes",
            json!({
            "metadata": {"name": "pv-1"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/data/pv-1"}}}),
        ),
        cluster(
            "storage.k8s.io/v1",
            "CSIDriver",
            "csidrivers",
            json!({
            "metadata": {"name": "disk.example.com"}, "spec": {"attachRequired": false}}),
        ),
        cluster(
            "storage.k8s.io/v1",
            "VolumeAttachment",
            "volumeattachments",
            json!({
            "metadata": {"name": "va-1"},
            "spec": {"attacher": "disk.example.com", "nodeName": "n1",
                "source": {"persistentVolumeName": "pv-1"}}}),
        ),
    ])
    .await;
}

/// A Deployment `web` applied with kubectl.
fn apply_deployment(kapi: &Kapi) {
    let d = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
            "template": pod_template("web")}});
    let path = kapi.dir.path().join("web.json");
    std::fs::write(&path, d.to_string()).unwrap();
    kapi.kubectl_ok(&["apply", "-f", path.to_str().unwrap()]);
}

#[tokio::test]
async fn kubectl_describe_shows_a_deployments_selector_strategy_and_template() {
    let kapi = Kapi::start().await;
    apply_deployment(&kapi);
    let out = kapi.kubectl_ok(&["describe", "deployment", "web"]);
    for want in [
        "Selector:               app=web",
        "StrategyType:           RollingUpdate",
        "RollingUpdateStrategy:  25% max unavailable, 25% max surge",
        "Image:         nginx:1.27",
    ] {
        assert!(out.contains(want), "{want:?} missing from:\n{out}");
    }
}

#[tokio::test]
async fn kubectl_edit_changes_a_deployments_image_and_its_generation() {
    let kapi = Kapi::start().await;
    apply_deployment(&kapi);
    kapi.kubectl_edit(
        &["deployment", "web"],
        "s/image: nginx:1.27/image: nginx:1.28/",
    );
    let d: Value =
        serde_json::from_str(&kapi.kubectl_ok(&["get", "deployment", "web", "-o", "json"]))
            .unwrap();
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.28"
    );
    assert_eq!(d["metadata"]["generation"], 2);
}

#[tokio::test]
async fn kubectl_explain_walks_a_deployments_pod_template() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&["explain", "deployment.spec.template.spec.containers.image"]);
    assert!(out.contains("KIND:       Deployment"), "{out}");
    assert!(out.contains("FIELD: image <string>"), "{out}");
    assert!(out.contains("Container image name."), "{out}");
}
