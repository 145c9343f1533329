//! The garbage collector end to end (issue 16): ownerReferences made by the test (between
//! ConfigMaps, a custom resource and ConfigMaps, and a Deployment → ReplicaSet → Pods chain
//! as the controllers would make it), deleted with kubectl's
//! `--cascade=background|foreground|orphan` and with the `kube` crate's DeleteParams, and a
//! cascade left undone by a kapi running without the collector
//! (`--controllers=*,-garbage-collector-controller`) or killed with SIGKILL mid-way (some
//! dependents gone, not all; Background and Foreground) finished by the next start.

mod e2e_support;

mod e2e_crd_support;

use e2e_support::Kapi;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Creates the ConfigMap `name` with owner references to `owners` (kubectl apply).
fn create_cm(kapi: &Kapi, name: &str, owners: &[(&Value, bool)], finalizers: &[&str]) -> Value {
    let refs: Vec<Value> = owners
        .iter()
        .map(|(o, block)| {
            let api_version = o.get("apiVersion").cloned().unwrap_or(json!("v1"));
            let kind = o.get("kind").cloned().unwrap_or(json!("ConfigMap"));
            json!({"apiVersion": api_version, "kind": kind, "name": o["metadata"]["name"],
                "uid": o["metadata"]["uid"], "blockOwnerDeletion": block})
        })
        .collect();
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default", "ownerReferences": refs,
            "finalizers": finalizers}});
    let path = kapi.kubeconfig().with_file_name(format!("{name}.json"));
    std::fs::write(&path, cm.to_string()).unwrap();
    kapi.kubectl_ok(&["apply", "-f", path.to_str().unwrap()]);
    get_cm(kapi, name).expect("created")
}

fn get_cm(kapi: &Kapi, name: &str) -> Option<Value> {
    let out = kapi.kubectl(&["get", "configmap", name, "-o", "json"]);
    out.status
        .success()
        .then(|| serde_json::from_slice(&out.stdout).unwrap())
}

async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn kubectl_delete_cascades_in_the_background_by_default() {
    let kapi = Kapi::start().await;
    let owner = create_cm(&kapi, "owner", &[], &[]);
    create_cm(&kapi, "a", &[(&owner, false)], &[]);
    create_cm(&kapi, "b", &[(&owner, true)], &[]);
    kapi.kubectl_ok(&["delete", "configmap", "owner"]);
    wait_until("the dependents to go", || {
        get_cm(&kapi, "a").is_none() && get_cm(&kapi, "b").is_none()
    })
    .await;
}

#[tokio::test]
async fn a_foreground_owner_waits_for_a_dependent_with_a_finalizer() {
    let kapi = Kapi::start().await;
    let owner = create_cm(&kapi, "owner", &[], &[]);
    create_cm(&kapi, "held", &[(&owner, true)], &["example.com/hold"]);
    kapi.kubectl_ok(&[
        "delete",
        "configmap",
        "owner",
        "--cascade=foreground",
        "--wait=false",
    ]);
    wait_until("the dependent to be deleting", || {
        get_cm(&kapi, "held").is_some_and(|h| h["metadata"]["deletionTimestamp"].is_string())
    })
    .await;
    let waiting = get_cm(&kapi, "owner").expect("the owner waits for its dependent");
    assert_eq!(
        waiting["metadata"]["finalizers"],
        json!(["foregroundDeletion"])
    );
    assert!(waiting["metadata"]["deletionTimestamp"].is_string());
    kapi.kubectl_ok(&[
        "patch",
        "configmap",
        "held",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
    wait_until("owner and dependent to go", || {
        get_cm(&kapi, "owner").is_none() && get_cm(&kapi, "held").is_none()
    })
    .await;
}

#[tokio::test]
async fn an_orphaning_delete_through_kube_rs_keeps_the_dependents() {
    let kapi = Kapi::start().await;
    let owner = create_cm(&kapi, "owner", &[], &[]);
    create_cm(&kapi, "a", &[(&owner, true)], &[]);
    let cms: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(kapi.client().await, "default");
    cms.delete("owner", &DeleteParams::orphan()).await.unwrap();
    wait_until("the owner to go", || get_cm(&kapi, "owner").is_none()).await;
    let a = cms.get("a").await.unwrap();
    assert_eq!(a.metadata.owner_references, None, "{a:?}");
    // A foreground delete through kube-rs goes through the same collector.
    let mut parent = k8s_openapi::api::core::v1::ConfigMap::default();
    parent.metadata.name = Some("parent".into());
    let parent = cms.create(&PostParams::default(), &parent).await.unwrap();
    let mut parent_json = serde_json::to_value(&parent).unwrap();
    parent_json["apiVersion"] = json!("v1");
    parent_json["kind"] = json!("ConfigMap");
    create_cm(&kapi, "child", &[(&parent_json, true)], &[]);
    cms.delete("parent", &DeleteParams::foreground())
        .await
        .unwrap();
    wait_until("parent and child to go", || {
        get_cm(&kapi, "parent").is_none() && get_cm(&kapi, "child").is_none()
    })
    .await;
}

#[tokio::test]
async fn a_delete_collection_of_owners_feeds_the_collector() {
    let kapi = Kapi::start().await;
    let owners: Vec<Value> = ["o1", "o2"]
        .iter()
        .map(|name| {
            let obj = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
                "name": name, "namespace": "default", "labels": {"owner": "yes"}}});
            let path = kapi.kubeconfig().with_file_name(format!("{name}.json"));
            std::fs::write(&path, obj.to_string()).unwrap();
            kapi.kubectl_ok(&["apply", "-f", path.to_str().unwrap()]);
            get_cm(&kapi, name).unwrap()
        })
        .collect();
    create_cm(&kapi, "of-o1", &[(&owners[0], false)], &[]);
    create_cm(&kapi, "of-o2", &[(&owners[1], true)], &[]);
    let cms: Api<ConfigMap> = Api::namespaced(kapi.client().await, "default");
    cms.delete_collection(
        &DeleteParams::default(),
        &ListParams::default().labels("owner=yes"),
    )
    .await
    .unwrap();
    wait_until("the owners' dependents to be collected", || {
        get_cm(&kapi, "of-o1").is_none() && get_cm(&kapi, "of-o2").is_none()
    })
    .await;
}

#[tokio::test]
async fn a_cascade_left_by_a_kapi_without_the_collector_finishes_on_the_next_start() {
    let kapi = Kapi::start_with(&["--controllers=*,-garbage-collector-controller"]).await;
    let owner = create_cm(&kapi, "owner", &[], &[]);
    create_cm(&kapi, "a", &[(&owner, false)], &[]);
    kapi.kubectl_ok(&["delete", "configmap", "owner"]);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(get_cm(&kapi, "a").is_some(), "nobody collects it yet");
    let dir = kapi.crash();
    let kapi = Kapi::start_in(dir, &[]).await;
    wait_until("the dependent to be collected", || {
        get_cm(&kapi, "a").is_none()
    })
    .await;
}

#[tokio::test]
async fn an_unknown_controller_name_stops_kapi_serve_with_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kapi"))
        .args([
            "serve",
            "--secure-port",
            "0",
            "--controllers",
            "*,-replicaset",
        ])
        .arg("--data-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("\"replicaset\" is not a known controller"),
        "{err}"
    );
    assert!(err.contains("garbage-collector-controller"), "{err}");
}

/// Dependents in a cascade: enough that a cascade takes long enough to be interrupted.
const CASCADE: usize = 1000;

/// The owner `owner` and [`CASCADE`] ConfigMaps it owns (labelled `cascade=yes`, blocking
/// its Foreground deletion), created in one List.
fn cascade(kapi: &Kapi) {
    let owner = create_cm(kapi, "owner", &[], &[]);
    let items: Vec<Value> = (0..CASCADE)
        .map(|i| {
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": format!("d{i}"), "namespace": "default",
                    "labels": {"cascade": "yes"},
                    "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap",
                        "name": "owner", "uid": owner["metadata"]["uid"],
                        "blockOwnerDeletion": true}]}})
        })
        .collect();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    let path = kapi.kubeconfig().with_file_name("dependents.json");
    std::fs::write(&path, list.to_string()).unwrap();
    kapi.kubectl_ok(&["create", "-f", path.to_str().unwrap()]);
}

/// How many of the cascade's dependents are left.
async fn dependents_left(cms: &Api<ConfigMap>) -> usize {
    let selected = ListParams::default().labels("cascade=yes");
    cms.list_metadata(&selected).await.unwrap().items.len()
}

/// Deletes the cascade's owner with `policy`, kills kapi with SIGKILL once part (not all)
/// of the dependents are gone, restarts it on the same data and waits for the rest.
async fn kill_mid_cascade_and_restart(policy: DeleteParams) {
    let kapi = Kapi::start_process().await;
    cascade(&kapi);
    let cms: Api<ConfigMap> = Api::namespaced(kapi.client().await, "default");
    cms.delete("owner", &policy).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let left = loop {
        let left = dependents_left(&cms).await;
        if left < CASCADE {
            break left;
        }
        assert!(Instant::now() < deadline, "the cascade never started");
    };
    let dir = kapi.crash();
    assert!(left > 0, "the cascade ended before kapi could be killed");
    let kapi = Kapi::start_in(dir, &[]).await;
    let cms: Api<ConfigMap> = Api::namespaced(kapi.client().await, "default");
    let deadline = Instant::now() + Duration::from_secs(60);
    while dependents_left(&cms).await > 0 || cms.get_opt("owner").await.unwrap().is_some() {
        assert!(
            Instant::now() < deadline,
            "the cascade did not finish after the restart"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_background_cascade_killed_mid_way_finishes_after_the_restart() {
    kill_mid_cascade_and_restart(DeleteParams::background()).await;
}

#[tokio::test]
async fn a_foreground_cascade_killed_mid_way_finishes_after_the_restart() {
    kill_mid_cascade_and_restart(DeleteParams::foreground()).await;
}

#[tokio::test]
async fn deleting_a_custom_resource_collects_the_configmaps_it_owns() {
    let kapi = e2e_crd_support::widget_kapi().await;
    let w = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{}}"#;
    let (status, _, body) = kapi
        .raw(e2e_crd_support::send(
            "POST",
            e2e_crd_support::V1A1,
            "application/json",
            w,
        ))
        .await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
    let widget = e2e_support::json(&body);
    create_cm(&kapi, "owned", &[(&widget, true)], &[]);
    let owned = get_cm(&kapi, "owned").unwrap();
    assert_eq!(owned["metadata"]["ownerReferences"][0]["kind"], "Widget");
    kapi.kubectl_ok(&["delete", "widget", "w"]);
    wait_until("the widget's ConfigMap to be collected", || {
        get_cm(&kapi, "owned").is_none()
    })
    .await;
}

/// Applies `obj` (JSON) with kubectl and reads it back.
fn apply(kapi: &Kapi, kind: &str, obj: Value) -> Value {
    let name = obj["metadata"]["name"].as_str().unwrap().to_owned();
    let path = kapi
        .kubeconfig()
        .with_file_name(format!("{kind}-{name}.json"));
    std::fs::write(&path, obj.to_string()).unwrap();
    kapi.kubectl_ok(&["apply", "-f", path.to_str().unwrap()]);
    get(kapi, kind, &name).expect("created")
}

fn get(kapi: &Kapi, kind: &str, name: &str) -> Option<Value> {
    let out = kapi.kubectl(&["get", kind, name, "-o", "json"]);
    out.status
        .success()
        .then(|| serde_json::from_slice(&out.stdout).unwrap())
}

/// The controller reference to `owner` a Deployment or ReplicaSet controller would write.
fn controller_ref(owner: &Value) -> Value {
    json!([{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
        "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
        "controller": true, "blockOwnerDeletion": true}])
}

/// A Deployment `web`, its ReplicaSet `web-1` and two Pods of it (`web-1-a` holding a
/// finalizer when `hold`), linked by owner references as the controllers make them.
fn deployment_chain(kapi: &Kapi, hold: bool) {
    let labels = json!({"app": "web"});
    let template = json!({"metadata": {"labels": labels},
        "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}});
    let d = apply(
        kapi,
        "deployment",
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"selector": {"matchLabels": labels}, "template": template}}),
    );
    let rs = apply(
        kapi,
        "replicaset",
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-1", "namespace": "default",
                "ownerReferences": controller_ref(&d)},
            "spec": {"selector": {"matchLabels": labels}, "template": template}}),
    );
    for (pod, finalizers) in [("web-1-a", hold), ("web-1-b", false)] {
        let finalizers = if finalizers {
            json!(["example.com/hold"])
        } else {
            json!([])
        };
        apply(
            kapi,
            "pod",
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": pod, "namespace": "default", "labels": labels,
                    "ownerReferences": controller_ref(&rs), "finalizers": finalizers},
                "spec": template["spec"]}),
        );
    }
}

fn chain_left(kapi: &Kapi) -> Vec<&'static str> {
    [
        ("deployment", "web"),
        ("replicaset", "web-1"),
        ("pod", "web-1-a"),
        ("pod", "web-1-b"),
    ]
    .into_iter()
    .filter(|(kind, name)| get(kapi, kind, name).is_some())
    .map(|(_, name)| name)
    .collect()
}

#[tokio::test]
async fn a_deployment_deleted_in_the_background_takes_its_replicaset_and_pods() {
    let kapi = Kapi::start().await;
    deployment_chain(&kapi, false);
    kapi.kubectl_ok(&["delete", "deployment", "web"]);
    wait_until("the whole chain to go", || chain_left(&kapi).is_empty()).await;
}

#[tokio::test]
async fn a_deployment_deleted_in_the_foreground_goes_after_its_replicaset_and_pods() {
    let kapi = Kapi::start().await;
    deployment_chain(&kapi, true);
    kapi.kubectl_ok(&[
        "delete",
        "deployment",
        "web",
        "--cascade=foreground",
        "--wait=false",
    ]);
    // The held Pod keeps its ReplicaSet, which keeps the Deployment; the other Pod goes.
    wait_until("all but the held pod's owners to go", || {
        chain_left(&kapi) == ["web", "web-1", "web-1-a"]
    })
    .await;
    for (kind, name) in [("deployment", "web"), ("replicaset", "web-1")] {
        let waiting = get(&kapi, kind, name).unwrap();
        assert_eq!(
            waiting["metadata"]["finalizers"],
            json!(["foregroundDeletion"]),
            "{kind}"
        );
    }
    kapi.kubectl_ok(&[
        "patch",
        "pod",
        "web-1-a",
        "--type=merge",
        "-p",
        r#"{"metadata":{"finalizers":null}}"#,
    ]);
    wait_until("the whole chain to go", || chain_left(&kapi).is_empty()).await;
}

#[tokio::test]
async fn an_orphaned_deployments_replicaset_keeps_its_pods_and_loses_its_owner() {
    let kapi = Kapi::start().await;
    deployment_chain(&kapi, false);
    kapi.kubectl_ok(&["delete", "deployment", "web", "--cascade=orphan"]);
    wait_until("the deployment to go", || {
        get(&kapi, "deployment", "web").is_none()
    })
    .await;
    let rs = get(&kapi, "replicaset", "web-1").expect("the ReplicaSet stays");
    assert!(rs["metadata"].get("ownerReferences").is_none(), "{rs}");
    let pod = get(&kapi, "pod", "web-1-b").expect("its Pods stay");
    assert_eq!(pod["metadata"]["ownerReferences"][0]["name"], "web-1");
}

/// What is left of the chain, read through the `kube` crate.
async fn chain_left_kube(client: &kube::Client) -> Vec<&'static str> {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let replicasets: Api<ReplicaSet> = Api::namespaced(client.clone(), "default");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let mut left = Vec::new();
    if deployments.get_opt("web").await.unwrap().is_some() {
        left.push("web");
    }
    if replicasets.get_opt("web-1").await.unwrap().is_some() {
        left.push("web-1");
    }
    for pod in ["web-1-a", "web-1-b"] {
        if pods.get_opt(pod).await.unwrap().is_some() {
            left.push(pod);
        }
    }
    left
}

async fn wait_for_chain(client: &kube::Client, what: &str, expected: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while chain_left_kube(client).await != expected {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_deployment_deleted_in_the_background_through_kube_rs_takes_its_chain() {
    let kapi = Kapi::start().await;
    deployment_chain(&kapi, false);
    let client = kapi.client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .delete("web", &DeleteParams::background())
        .await
        .unwrap();
    wait_for_chain(&client, "the whole chain to go", &[]).await;
}

#[tokio::test]
async fn a_deployment_deleted_in_the_foreground_through_kube_rs_waits_for_a_held_pod() {
    let kapi = Kapi::start().await;
    deployment_chain(&kapi, true);
    let client = kapi.client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let waiting = deployments
        .delete("web", &DeleteParams::foreground())
        .await
        .unwrap()
        .left()
        .expect("a Foreground delete answers the object, waiting");
    assert_eq!(
        waiting.metadata.finalizers,
        Some(vec!["foregroundDeletion".to_owned()])
    );
    wait_for_chain(
        &client,
        "all but the held pod and its owners to go",
        &["web", "web-1", "web-1-a"],
    )
    .await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    pods.patch(
        "web-1-a",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    wait_for_chain(&client, "the whole chain to go", &[]).await;
}

#[tokio::test]
async fn a_deployment_orphaned_through_kube_rs_leaves_its_replicaset_without_owner() {
    let kapi = Kapi::start().await;
    deployment_chain(&kapi, false);
    let client = kapi.client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    deployments
        .delete("web", &DeleteParams::orphan())
        .await
        .unwrap();
    wait_for_chain(
        &client,
        "the deployment alone to go",
        &["web-1", "web-1-a", "web-1-b"],
    )
    .await;
    let replicasets: Api<ReplicaSet> = Api::namespaced(client.clone(), "default");
    let rs = replicasets.get("web-1").await.unwrap();
    assert_eq!(rs.metadata.owner_references, None);
    let pods: Api<Pod> = Api::namespaced(client, "default");
    let pod = pods.get("web-1-b").await.unwrap();
    let owners = pod.metadata.owner_references.unwrap_or_default();
    assert_eq!(owners.len(), 1);
    assert_eq!(owners[0].name, "web-1");
}
