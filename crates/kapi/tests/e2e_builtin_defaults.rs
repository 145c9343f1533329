//! kube-apiserver 1.36's defaults for the networking, discovery, RBAC, storage, scheduling
//! and flow-control kinds (pkg/apis/<group>/v1/defaults.go), the phases volumes and claims
//! start with (their registry strategies), and what a DELETE answers: the deleted object for
//! the resources whose store sets `ReturnDeletedObject` (Services, claims, volumes, storage
//! classes, Pods, …), a Status for the others, and core/v1's quantities rounded up to
//! milli-units (issue 13). Over HTTPS with raw JSON and with kubectl.

mod e2e_support;

use e2e_support::{Kapi, json, send_json};
use serde_json::{Value, json};

const NS: &str = "/api/v1/namespaces/default";
const NETWORKING: &str = "/apis/networking.k8s.io/v1";
const RBAC: &str = "/apis/rbac.authorization.k8s.io/v1";
const STORAGE: &str = "/apis/storage.k8s.io/v1";
const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// POSTs `body` to `path`; asserts 201 and answers the created object.
async fn create(kapi: &Kapi, path: &str, body: Value) -> Value {
    let (status, obj) = send_json(&kapi.client().await, "POST", path, &body).await;
    assert_eq!(status, 201, "POST {path}: {obj}");
    obj
}

/// GETs `path`; asserts 200.
async fn get(kapi: &Kapi, path: &str) -> Value {
    let (status, obj) = send_json(&kapi.client().await, "GET", path, &Value::Null).await;
    assert_eq!(status, 200, "GET {path}: {obj}");
    obj
}

/// DELETEs `path`: (status, answer).
async fn delete(kapi: &Kapi, path: &str) -> (u16, Value) {
    send_json(&kapi.client().await, "DELETE", path, &Value::Null).await
}

fn is_rfc3339_seconds(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|t| t.len() == 20 && t.as_bytes()[10] == b'T' && t.ends_with('Z'))
}

#[tokio::test]
async fn network_policies_get_policy_types_and_tcp_ports() {
    let kapi = Kapi::start().await;
    let path = format!("{NETWORKING}/namespaces/default/networkpolicies");
    let ingress_only = create(
        &kapi,
        &path,
        json!({
            "metadata": {"name": "web"},
            "spec": {"podSelector": {"matchLabels": {"app": "web"}},
                "ingress": [{"ports": [{"port": 8080}]}]}
        }),
    )
    .await;
    assert_eq!(ingress_only["spec"]["policyTypes"], json!(["Ingress"]));
    assert_eq!(
        ingress_only["spec"]["ingress"][0]["ports"],
        json!([{"port": 8080, "protocol": "TCP"}])
    );
    let both = create(&kapi, &path, json!({
        "metadata": {"name": "out"},
        "spec": {"podSelector": {}, "egress": [{"ports": [{"port": 53, "protocol": "UDP"}, {"port": 443}]}]}
    }))
    .await;
    assert_eq!(both["spec"]["policyTypes"], json!(["Ingress", "Egress"]));
    let protocols: Vec<&Value> = both["spec"]["egress"][0]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["protocol"])
        .collect();
    assert_eq!(protocols, [&json!("UDP"), &json!("TCP")]);
}

#[tokio::test]
async fn ingress_class_parameters_are_cluster_scoped_by_default() {
    let kapi = Kapi::start().await;
    let class = create(
        &kapi,
        &format!("{NETWORKING}/ingressclasses"),
        json!({
            "metadata": {"name": "nginx"},
            "spec": {"controller": "example.com/nginx",
                "parameters": {"apiGroup": "k8s.example.com", "kind": "Params", "name": "lb"}}
        }),
    )
    .await;
    assert_eq!(class["spec"]["parameters"]["scope"], "Cluster");
    let plain = create(
        &kapi,
        &format!("{NETWORKING}/ingressclasses"),
        json!({
            "metadata": {"name": "plain"}, "spec": {"controller": "example.com/plain"}
        }),
    )
    .await;
    assert_eq!(plain["spec"], json!({"controller": "example.com/plain"}));
}

#[tokio::test]
async fn endpoint_slice_ports_get_an_empty_name_and_tcp() {
    let kapi = Kapi::start().await;
    let slice = create(
        &kapi,
        "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
        json!({
            "metadata": {"name": "web-1"},
            "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.0.0.5"]}],
            "ports": [{"port": 8080}, {"name": "dns", "port": 53, "protocol": "UDP"}]
        }),
    )
    .await;
    assert_eq!(
        slice["ports"],
        json!([{"name": "", "protocol": "TCP", "port": 8080},
            {"name": "dns", "protocol": "UDP", "port": 53}])
    );
}

#[tokio::test]
async fn bindings_get_the_rbac_group_for_their_role_and_user_and_group_subjects() {
    let kapi = Kapi::start().await;
    let subjects = json!([
        {"kind": "User", "name": "alice"},
        {"kind": "Group", "name": "ops"},
        {"kind": "ServiceAccount", "name": "default", "namespace": "default"}
    ]);
    let want = json!([
        {"kind": "User", "apiGroup": RBAC_GROUP, "name": "alice"},
        {"kind": "Group", "apiGroup": RBAC_GROUP, "name": "ops"},
        {"kind": "ServiceAccount", "name": "default", "namespace": "default"}
    ]);
    let rb = create(
        &kapi,
        &format!("{RBAC}/namespaces/default/rolebindings"),
        json!({
            "metadata": {"name": "reader"},
            "roleRef": {"kind": "Role", "name": "reader"},
            "subjects": subjects
        }),
    )
    .await;
    assert_eq!(rb["roleRef"]["apiGroup"], RBAC_GROUP);
    assert_eq!(rb["subjects"], want);
    let crb = create(
        &kapi,
        &format!("{RBAC}/clusterrolebindings"),
        json!({
            "metadata": {"name": "reader"},
            "roleRef": {"apiGroup": "", "kind": "ClusterRole", "name": "view"},
            "subjects": subjects
        }),
    )
    .await;
    assert_eq!(crb["roleRef"]["apiGroup"], RBAC_GROUP);
    assert_eq!(crb["subjects"], want);
}

#[tokio::test]
async fn storage_classes_and_csi_drivers_get_kube_apiservers_defaults() {
    let kapi = Kapi::start().await;
    let class = create(
        &kapi,
        &format!("{STORAGE}/storageclasses"),
        json!({
            "metadata": {"name": "fast"}, "provisioner": "example.com/disk"
        }),
    )
    .await;
    assert_eq!(class["reclaimPolicy"], "Delete");
    assert_eq!(class["volumeBindingMode"], "Immediate");
    assert!(class.get("allowVolumeExpansion").is_none(), "{class}");
    let driver = create(
        &kapi,
        &format!("{STORAGE}/csidrivers"),
        json!({
            "metadata": {"name": "disk.example.com"}, "spec": {}
        }),
    )
    .await;
    assert_eq!(
        driver["spec"],
        json!({"attachRequired": true, "podInfoOnMount": false,
            "volumeLifecycleModes": ["Persistent"], "storageCapacity": false,
            "fsGroupPolicy": "ReadWriteOnceWithFSType", "requiresRepublish": false,
            "seLinuxMount": false})
    );
}

#[tokio::test]
async fn priority_classes_and_flow_schemas_get_kube_apiservers_defaults() {
    let kapi = Kapi::start().await;
    let class = create(
        &kapi,
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        json!({
            "metadata": {"name": "high"}, "value": 1000
        }),
    )
    .await;
    assert_eq!(class["preemptionPolicy"], "PreemptLowerPriority");
    let schema = create(
        &kapi,
        "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
        json!({
            "metadata": {"name": "mine"},
            "spec": {"priorityLevelConfiguration": {"name": "global-default"}}
        }),
    )
    .await;
    assert_eq!(schema["spec"]["matchingPrecedence"], 1000);
}

#[tokio::test]
async fn a_new_volume_is_pending_retained_and_a_filesystem() {
    let kapi = Kapi::start().await;
    let pv = create(
        &kapi,
        "/api/v1/persistentvolumes",
        json!({
            "metadata": {"name": "pv-1"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/data/pv-1"}},
            "status": {"phase": "Bound"}
        }),
    )
    .await;
    assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    assert_eq!(pv["spec"]["volumeMode"], "Filesystem");
    assert_eq!(
        pv["spec"]["hostPath"],
        json!({"path": "/data/pv-1", "type": ""})
    );
    assert_eq!(pv["status"]["phase"], "Pending");
    assert!(
        is_rfc3339_seconds(&pv["status"]["lastPhaseTransitionTime"]),
        "{pv}"
    );
    assert_eq!(
        get(&kapi, "/api/v1/persistentvolumes/pv-1").await["status"],
        pv["status"]
    );
}

#[tokio::test]
async fn a_volumes_phase_change_through_status_is_timed() {
    let kapi = Kapi::start().await;
    create(
        &kapi,
        "/api/v1/persistentvolumes",
        json!({
            "metadata": {"name": "pv-1"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/data/pv-1"}}
        }),
    )
    .await;
    let client = kapi.client().await;
    let status = "/api/v1/persistentvolumes/pv-1/status";
    let mut req = e2e_support::json_request(
        "PATCH",
        status,
        &json!({"status": {"lastPhaseTransitionTime": "2020-01-01T00:00:00Z"}}),
    );
    req.headers_mut().insert(
        "content-type",
        "application/merge-patch+json".parse().unwrap(),
    );
    let (code, _, body) = e2e_support::send_raw(&client, req).await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&body));
    assert_eq!(
        json(&body)["status"]["lastPhaseTransitionTime"],
        "2020-01-01T00:00:00Z"
    );
    let mut req =
        e2e_support::json_request("PATCH", status, &json!({"status": {"phase": "Available"}}));
    req.headers_mut().insert(
        "content-type",
        "application/merge-patch+json".parse().unwrap(),
    );
    let (code, _, body) = e2e_support::send_raw(&client, req).await;
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&body));
    let pv = json(&body);
    assert_eq!(pv["status"]["phase"], "Available");
    let time = &pv["status"]["lastPhaseTransitionTime"];
    assert!(
        is_rfc3339_seconds(time) && time != "2020-01-01T00:00:00Z",
        "{pv}"
    );
}

#[tokio::test]
async fn a_new_claim_is_pending_and_a_filesystem() {
    let kapi = Kapi::start().await;
    let pvc = create(
        &kapi,
        &format!("{NS}/persistentvolumeclaims"),
        json!({
            "metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}}},
            "status": {"phase": "Bound"}
        }),
    )
    .await;
    assert_eq!(pvc["spec"]["volumeMode"], "Filesystem");
    assert_eq!(pvc["status"], json!({"phase": "Pending"}));
    let got = get(&kapi, &format!("{NS}/persistentvolumeclaims/data")).await;
    assert_eq!(got["status"], json!({"phase": "Pending"}));
}

#[tokio::test]
async fn kubectl_creates_volumes_claims_and_bindings_with_their_defaults() {
    let kapi = Kapi::start().await;
    let path = kapi.dir.path().join("kinds.yaml");
    std::fs::write(
        &path,
        r#"apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /data/pv-1}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reader, namespace: default}
roleRef: {kind: Role, name: reader}
subjects: [{kind: User, name: alice}]
"#,
    )
    .unwrap();
    kapi.kubectl_ok(&["create", "-f", path.to_str().unwrap()]);
    let get = |args: &[&str]| {
        json(
            kapi.kubectl_ok(&[&["get"], args, &["-o", "json"]].concat())
                .as_bytes(),
        )
    };
    let pv = get(&["pv", "pv-1"]);
    assert_eq!(pv["status"]["phase"], "Pending");
    assert_eq!(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
    let pvc = get(&["pvc", "data"]);
    assert_eq!(pvc["status"]["phase"], "Pending");
    assert_eq!(pvc["spec"]["volumeMode"], "Filesystem");
    let rb = get(&["rolebinding", "reader"]);
    assert_eq!(rb["roleRef"]["apiGroup"], RBAC_GROUP);
    assert_eq!(rb["subjects"][0]["apiGroup"], RBAC_GROUP);
}

#[tokio::test]
async fn deleting_a_service_a_claim_or_a_storage_class_answers_the_deleted_object() {
    let kapi = Kapi::start().await;
    create(
        &kapi,
        &format!("{NS}/services"),
        json!({
            "metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}
        }),
    )
    .await;
    create(&kapi, &format!("{NS}/persistentvolumeclaims"), json!({
        "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    }))
    .await;
    create(
        &kapi,
        &format!("{STORAGE}/storageclasses"),
        json!({
            "metadata": {"name": "fast"}, "provisioner": "example.com/disk"
        }),
    )
    .await;
    for (path, kind, name) in [
        (format!("{NS}/services/web"), "Service", "web"),
        (
            format!("{NS}/persistentvolumeclaims/data"),
            "PersistentVolumeClaim",
            "data",
        ),
        (
            format!("{STORAGE}/storageclasses/fast"),
            "StorageClass",
            "fast",
        ),
    ] {
        let (status, deleted) = delete(&kapi, &path).await;
        assert_eq!(status, 200, "{deleted}");
        assert_eq!(deleted["kind"], kind, "{deleted}");
        assert_eq!(deleted["metadata"]["name"], name);
        // A claim is held by StorageObjectInUseProtection's finalizer until its protection
        // controller sees no Pod uses it (milliseconds), as on a cluster.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let (gone, _) = send_json(&kapi.client().await, "GET", &path, &Value::Null).await;
            if gone == 404 {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{path}: {gone}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    let (_, deleted) = delete(&kapi, &format!("{NS}/services/web")).await;
    assert_eq!(deleted["reason"], "NotFound");
}

#[tokio::test]
async fn the_deleted_object_carries_the_revision_of_its_deletion() {
    let kapi = Kapi::start().await;
    let svc = create(
        &kapi,
        &format!("{NS}/services"),
        json!({
            "metadata": {"name": "web"}, "spec": {"ports": [{"port": 80}]}
        }),
    )
    .await;
    let (_, deleted) = delete(&kapi, &format!("{NS}/services/web")).await;
    let rv = |o: &Value| {
        o["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    assert!(rv(&deleted) > rv(&svc), "{deleted}");
    assert_eq!(deleted["metadata"]["uid"], svc["metadata"]["uid"]);
    assert_eq!(deleted["spec"]["clusterIP"], svc["spec"]["clusterIP"]);
}

#[tokio::test]
async fn deleting_a_config_map_still_answers_a_status() {
    let kapi = Kapi::start().await;
    let cm = create(
        &kapi,
        &format!("{NS}/configmaps"),
        json!({
            "metadata": {"name": "settings"}, "data": {"a": "1"}
        }),
    )
    .await;
    let (status, answer) = delete(&kapi, &format!("{NS}/configmaps/settings")).await;
    assert_eq!(status, 200);
    assert_eq!(
        answer,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
            "details": {"name": "settings", "kind": "configmaps", "uid": cm["metadata"]["uid"]}})
    );
}

#[tokio::test]
async fn a_claim_kept_by_a_finalizer_is_answered_as_it_now_is() {
    let kapi = Kapi::start().await;
    create(&kapi, &format!("{NS}/persistentvolumeclaims"), json!({
        "metadata": {"name": "data", "finalizers": ["example.com/keep"]},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    }))
    .await;
    let (status, answer) = delete(&kapi, &format!("{NS}/persistentvolumeclaims/data")).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["kind"], "PersistentVolumeClaim");
    assert!(
        is_rfc3339_seconds(&answer["metadata"]["deletionTimestamp"]),
        "{answer}"
    );
}

#[tokio::test]
async fn kubectl_deletes_a_service_and_a_storage_class() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "service", "clusterip", "web", "--tcp=80:8080"]);
    kapi.kubectl_ok(&["create", "configmap", "settings", "--from-literal=a=1"]);
    let path = kapi.dir.path().join("class.yaml");
    std::fs::write(
        &path,
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: example.com/disk\n",
    )
    .unwrap();
    kapi.kubectl_ok(&["create", "-f", path.to_str().unwrap()]);
    let out = kapi.kubectl_ok(&[
        "delete",
        "service/web",
        "configmap/settings",
        "storageclass/fast",
    ]);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "service \"web\" deleted",
            "configmap \"settings\" deleted",
            "storageclass.storage.k8s.io \"fast\" deleted"
        ],
        "{out}"
    );
}

/// core/v1's `SetDefaults_ResourceList`: a Pod's container limits and requests (the ones
/// copied from limits too) and a claim's request read back rounded up to milli-units.
#[tokio::test]
async fn resource_quantities_are_rounded_up_to_milli_units() {
    let kapi = Kapi::start().await;
    let pod = create(
        &kapi,
        &format!("{NS}/pods"),
        json!({"metadata": {"name": "p"}, "spec": {"containers": [{"name": "app", "image": "nginx",
            "resources": {"limits": {"cpu": "100n", "memory": "1Gi"}, "requests": {"memory": "1500u"}}}]}}),
    )
    .await;
    let resources = &pod["spec"]["containers"][0]["resources"];
    assert_eq!(resources["limits"], json!({"cpu": "1m", "memory": "1Gi"}));
    assert_eq!(resources["requests"], json!({"cpu": "1m", "memory": "2m"}));
    let read = get(&kapi, &format!("{NS}/pods/p")).await;
    assert_eq!(read["spec"]["containers"][0]["resources"], *resources);
    let claim = create(
        &kapi,
        &format!("{NS}/persistentvolumeclaims"),
        json!({"metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "0.0000001"}}}}),
    )
    .await;
    assert_eq!(claim["spec"]["resources"]["requests"]["storage"], "1m");
}
