//! Updates kube-apiserver 1.36 refuses, refused the same way over real HTTPS (issue 13):
//! a Pod's spec beyond images, deadlines, tolerations and gates; a StatefulSet's spec
//! beyond its mutable fields; a Job's template unless suspended; a claim's spec; a
//! binding's roleRef; a storage class's provisioner; and the create rules of Roles,
//! Ingresses (paths, backends, hosts) and tolerations. Each refusal is a 422 with upstream's causes and message, and leaves the
//! stored object as it was.

mod e2e_support;

use e2e_support::Kapi;
use serde_json::{Value, json};

const PODS: &str = "/api/v1/namespaces/default/pods";
const JOBS: &str = "/apis/batch/v1/namespaces/default/jobs";
const STATEFULSETS: &str = "/apis/apps/v1/namespaces/default/statefulsets";
const CLAIMS: &str = "/api/v1/namespaces/default/persistentvolumeclaims";
const MERGE: &str = "application/merge-patch+json";
const JSON: &str = "application/json";

const POD_UPDATE_TEXT: &str = "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

async fn send(kapi: &Kapi, method: &str, path: &str, ct: &str, body: &Value) -> (u16, Value) {
    kapi.send(method, path, ct, body).await
}

async fn get(kapi: &Kapi, path: &str) -> Value {
    let (s, v) = send(kapi, "GET", path, JSON, &Value::Null).await;
    assert_eq!(s, 200, "{v}");
    v
}

async fn create(kapi: &Kapi, collection: &str, body: Value) -> Value {
    let (s, v) = send(kapi, "POST", collection, JSON, &body).await;
    assert_eq!(s, 201, "{v}");
    v
}

/// A merge patch of `path` that must be refused: the Status, with the object unchanged.
async fn refused_patch(kapi: &Kapi, path: &str, patch: Value) -> Value {
    let before = get(kapi, path).await;
    let (s, status) = send(kapi, "PATCH", path, MERGE, &patch).await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(status["reason"], "Invalid", "{status}");
    assert_eq!(get(kapi, path).await, before);
    status
}

async fn patched(kapi: &Kapi, path: &str, patch: Value) -> Value {
    let (s, v) = send(kapi, "PATCH", path, MERGE, &patch).await;
    assert_eq!(s, 200, "{v}");
    v
}

async fn pod(kapi: &Kapi, name: &str, spec: Value) -> String {
    let mut s = json!({"containers": [{"name": "app", "image": "nginx"}]});
    if let (Some(base), Some(extra)) = (s.as_object_mut(), spec.as_object()) {
        base.extend(extra.clone());
    }
    create(
        kapi,
        PODS,
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": s}),
    )
    .await;
    format!("{PODS}/{name}")
}

fn cause(status: &Value, i: usize) -> (&str, &str, &str) {
    let c = &status["details"]["causes"][i];
    (
        c["reason"].as_str().unwrap_or_default(),
        c["field"].as_str().unwrap_or_default(),
        c["message"].as_str().unwrap_or_default(),
    )
}

#[tokio::test]
async fn kubectl_apply_of_a_pod_with_another_container_is_refused_as_kube_does() {
    let kapi = Kapi::start().await;
    let file = kapi.kubeconfig().with_file_name("pod.json");
    let manifest = |containers: Value| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"},
            "spec": {"containers": containers}})
    };
    let one = json!([{"name": "app", "image": "nginx"}]);
    std::fs::write(&file, manifest(one).to_string()).unwrap();
    kapi.kubectl_ok(&["apply", "-f", file.to_str().unwrap()]);
    let two = json!([{"name": "app", "image": "nginx"}, {"name": "side", "image": "busybox"}]);
    std::fs::write(&file, manifest(two).to_string()).unwrap();
    let out = kapi.kubectl(&["apply", "-f", file.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("The Pod \"web\" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers"),
        "{err}"
    );
    let p = get(&kapi, &format!("{PODS}/web")).await;
    assert_eq!(p["spec"]["containers"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_pods_image_may_change_but_no_other_spec_field() {
    let kapi = Kapi::start().await;
    let path = pod(&kapi, "p", json!({})).await;
    // As `kubectl set image` does: a strategic merge patch keeps the container's other
    // fields (a merge patch would replace the list and re-default its imagePullPolicy).
    let image = json!({"spec": {"containers": [{"name": "app", "image": "nginx:2"}]}});
    let (s, p) = send(
        &kapi,
        "PATCH",
        &path,
        "application/strategic-merge-patch+json",
        &image,
    )
    .await;
    assert_eq!(s, 200, "{p}");
    assert_eq!(p["spec"]["containers"][0]["image"], "nginx:2");
    let status = refused_patch(&kapi, &path, json!({"spec": {"hostname": "other"}})).await;
    let (reason, field, message) = cause(&status, 0);
    assert_eq!((reason, field), ("FieldValueForbidden", "spec"));
    let (text, diff) = message.split_once('\n').unwrap();
    assert_eq!(text, POD_UPDATE_TEXT);
    assert!(diff.starts_with("@@ -"), "{diff}");
    assert!(diff.contains("+ \"hostname\": \"other\",\n"), "{diff}");
    let top = status["message"].as_str().unwrap();
    assert!(
        top.starts_with(&format!(
            "Pod \"p\" is invalid: spec: {POD_UPDATE_TEXT}\n@@"
        )),
        "{top}"
    );
}

#[tokio::test]
async fn a_pods_active_deadline_may_go_down_not_up() {
    let kapi = Kapi::start().await;
    let path = pod(&kapi, "p", json!({"activeDeadlineSeconds": 30})).await;
    patched(&kapi, &path, json!({"spec": {"activeDeadlineSeconds": 20}})).await;
    let status = refused_patch(&kapi, &path, json!({"spec": {"activeDeadlineSeconds": 60}})).await;
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueInvalid",
            "spec.activeDeadlineSeconds",
            "Invalid value: 60: must be less than or equal to previous value"
        )
    );
    assert_eq!(status["details"]["causes"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn a_pod_may_add_tolerations_but_not_change_one() {
    let kapi = Kapi::start().await;
    let t = json!({"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"});
    let path = pod(&kapi, "p", json!({"tolerations": [t]})).await;
    let added = json!({"key": "other", "operator": "Exists"});
    patched(&kapi, &path, json!({"spec": {"tolerations": [t, added]}})).await;
    let changed = json!({"key": "k", "operator": "Equal", "value": "w", "effect": "NoSchedule"});
    let status = refused_patch(
        &kapi,
        &path,
        json!({"spec": {"tolerations": [changed, added]}}),
    )
    .await;
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueForbidden",
            "spec.tolerations",
            "Forbidden: existing toleration can not be modified except its tolerationSeconds"
        )
    );
}

#[tokio::test]
async fn a_gated_pod_may_drop_gates_and_add_node_selectors_only() {
    let kapi = Kapi::start().await;
    let path = pod(
        &kapi,
        "p",
        json!({"schedulingGates": [{"name": "a"}], "nodeSelector": {"disk": "ssd"}}),
    )
    .await;
    let status = refused_patch(
        &kapi,
        &path,
        json!({"spec": {"schedulingGates": [{"name": "a"}, {"name": "b"}]}}),
    )
    .await;
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueForbidden",
            "spec.schedulingGates[1].name",
            "Forbidden: only deletion is allowed, but found new scheduling gate 'b'"
        )
    );
    let status = refused_patch(
        &kapi,
        &path,
        json!({"spec": {"nodeSelector": {"disk": "hdd"}}}),
    )
    .await;
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueInvalid",
            "spec.nodeSelector",
            "Invalid value: {\"disk\":\"hdd\"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)"
        )
    );
    patched(
        &kapi,
        &path,
        json!({"spec": {"nodeSelector": {"zone": "a"}}}),
    )
    .await;
    let p = patched(&kapi, &path, json!({"spec": {"schedulingGates": null}})).await;
    assert_eq!(
        p["spec"]["nodeSelector"],
        json!({"disk": "ssd", "zone": "a"})
    );
    assert!(p["spec"].get("schedulingGates").is_none(), "{p}");
}

fn statefulset() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db"},
        "spec": {"serviceName": "db", "replicas": 1, "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "db", "image": "postgres"}]}}}})
}

#[tokio::test]
async fn a_statefulsets_selector_change_is_the_spec_forbidden_not_a_selector_error() {
    let kapi = Kapi::start().await;
    create(&kapi, STATEFULSETS, statefulset()).await;
    let path = format!("{STATEFULSETS}/db");
    patched(
        &kapi,
        &path,
        json!({"spec": {"replicas": 3, "minReadySeconds": 5}}),
    )
    .await;
    let status = refused_patch(
        &kapi,
        &path,
        json!({"spec": {"selector": {"matchLabels": {"app": "db", "tier": "x"}},
            "template": {"metadata": {"labels": {"app": "db", "tier": "x"}}}}}),
    )
    .await;
    let text = "Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
    assert_eq!(
        status["details"]["causes"],
        json!([{"reason": "FieldValueForbidden", "field": "spec", "message": text}])
    );
    assert_eq!(
        status["message"],
        format!("StatefulSet.apps \"db\" is invalid: spec: {text}")
    );
}

fn job(name: &str, suspend: bool) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
        "spec": {"suspend": suspend, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "work", "image": "busybox"}]}}}})
}

#[tokio::test]
async fn a_running_jobs_template_and_completions_are_immutable() {
    let kapi = Kapi::start().await;
    create(&kapi, JOBS, job("run", false)).await;
    let path = format!("{JOBS}/run");
    let status = refused_patch(
        &kapi,
        &path,
        json!({"spec": {"template": {"spec": {"nodeSelector": {"disk": "ssd"}}}}}),
    )
    .await;
    let (reason, field, message) = cause(&status, 0);
    assert_eq!((reason, field), ("FieldValueInvalid", "spec.template"));
    assert!(
        message.starts_with("Invalid value: {") && message.ends_with("}: field is immutable"),
        "{message}"
    );
    let status = refused_patch(&kapi, &path, json!({"spec": {"completions": 3}})).await;
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueInvalid",
            "spec.completions",
            "Invalid value: 3: field is immutable"
        )
    );
}

#[tokio::test]
async fn a_suspended_job_may_change_its_scheduling_directives_and_resources() {
    let kapi = Kapi::start().await;
    create(&kapi, JOBS, job("held", true)).await;
    let path = format!("{JOBS}/held");
    let j = patched(
        &kapi,
        &path,
        json!({"spec": {"template": {"metadata": {"labels": {"queue": "a"}},
            "spec": {"nodeSelector": {"disk": "ssd"},
                "tolerations": [{"key": "gpu", "operator": "Exists"}],
                "containers": [{"name": "work", "image": "busybox",
                    "resources": {"requests": {"cpu": "2"}}}]}}}}),
    )
    .await;
    assert_eq!(
        j["spec"]["template"]["spec"]["nodeSelector"],
        json!({"disk": "ssd"})
    );
    assert_eq!(
        j["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"],
        "2"
    );
    let status = refused_patch(
        &kapi,
        &path,
        json!({"spec": {"template": {"spec": {"containers": [{"name": "work", "image": "alpine"}]}}}}),
    )
    .await;
    assert_eq!(cause(&status, 0).1, "spec.template");
}

fn claim() -> Value {
    json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
}

#[tokio::test]
async fn a_claims_spec_is_immutable_with_kubes_text_and_a_diff() {
    let kapi = Kapi::start().await;
    create(&kapi, CLAIMS, claim()).await;
    let path = format!("{CLAIMS}/data");
    patched(&kapi, &path, json!({"metadata": {"labels": {"a": "b"}}})).await;
    let status = refused_patch(
        &kapi,
        &path,
        json!({"spec": {"accessModes": ["ReadWriteMany"]}}),
    )
    .await;
    let (reason, field, message) = cause(&status, 0);
    assert_eq!((reason, field), ("FieldValueForbidden", "spec"));
    let (text, diff) = message.split_once('\n').unwrap();
    assert_eq!(
        text,
        "Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"
    );
    assert!(
        diff.contains("-  \"ReadWriteOnce\"\n+  \"ReadWriteMany\"\n"),
        "{diff}"
    );
}

#[tokio::test]
async fn a_bound_claim_may_grow_and_not_shrink_to_its_capacity() {
    let kapi = Kapi::start().await;
    create(&kapi, CLAIMS, claim()).await;
    let path = format!("{CLAIMS}/data");
    let status = json!({"status": {"phase": "Bound", "capacity": {"storage": "1Gi"}}});
    patched(&kapi, &format!("{path}/status"), status).await;
    let c = patched(
        &kapi,
        &path,
        json!({"spec": {"resources": {"requests": {"storage": "2Gi"}}}}),
    )
    .await;
    assert_eq!(c["spec"]["resources"]["requests"]["storage"], "2Gi");
    let status = refused_patch(
        &kapi,
        &path,
        json!({"spec": {"resources": {"requests": {"storage": "1024Mi"}}}}),
    )
    .await;
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueForbidden",
            "spec.resources.requests.storage",
            "Forbidden: field can not be less than status.capacity"
        )
    );
}

#[tokio::test]
async fn a_role_bindings_role_ref_cannot_change() {
    let kapi = Kapi::start().await;
    let collection = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";
    create(
        &kapi,
        collection,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "rb"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]}),
    )
    .await;
    let path = format!("{collection}/rb");
    let status = refused_patch(&kapi, &path, json!({"roleRef": {"name": "edit"}})).await;
    let message = "Invalid value: {\"APIGroup\":\"rbac.authorization.k8s.io\",\"Kind\":\"ClusterRole\",\"Name\":\"edit\"}: cannot change roleRef";
    assert_eq!(
        status["details"]["causes"],
        json!([{"reason": "FieldValueInvalid", "field": "roleRef", "message": message}])
    );
    assert_eq!(
        status["message"],
        format!("RoleBinding.rbac.authorization.k8s.io \"rb\" is invalid: roleRef: {message}")
    );
    let rb = patched(&kapi, &path, json!({"subjects": [{"kind": "Group", "name": "ops", "apiGroup": "rbac.authorization.k8s.io"}]})).await;
    assert_eq!(rb["subjects"][0]["name"], "ops");
}

#[tokio::test]
async fn a_storage_class_keeps_its_provisioner_and_reclaim_policy() {
    let kapi = Kapi::start().await;
    let collection = "/apis/storage.k8s.io/v1/storageclasses";
    create(
        &kapi,
        collection,
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "fast"},
            "provisioner": "example.com/disk", "reclaimPolicy": "Delete"}),
    )
    .await;
    let path = format!("{collection}/fast");
    patched(&kapi, &path, json!({"allowVolumeExpansion": true})).await;
    let status = refused_patch(
        &kapi,
        &path,
        json!({"provisioner": "example.com/other", "reclaimPolicy": "Retain"}),
    )
    .await;
    assert_eq!(
        status["details"]["causes"],
        json!([
            {"reason": "FieldValueInvalid", "field": "provisioner", "message": "Invalid value: \"example.com/other\": field is immutable"},
            {"reason": "FieldValueInvalid", "field": "reclaimPolicy", "message": "Invalid value: \"Retain\": field is immutable"}
        ])
    );
}

#[tokio::test]
async fn a_role_rule_without_verbs_and_a_relative_ingress_path_are_refused_on_create() {
    let kapi = Kapi::start().await;
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": []}]});
    let (s, status) = send(
        &kapi,
        "POST",
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
        JSON,
        &role,
    )
    .await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        status["message"],
        "Role.rbac.authorization.k8s.io \"r\" is invalid: rules[0].verbs: Required value: verbs must contain at least one value"
    );
    let ingress = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web"},
        "spec": {"rules": [{"http": {"paths": [{"path": "foo", "pathType": "Prefix",
            "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}});
    let (s, status) = send(
        &kapi,
        "POST",
        "/apis/networking.k8s.io/v1/namespaces/default/ingresses",
        JSON,
        &ingress,
    )
    .await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueInvalid",
            "spec.rules[0].http.paths[0].path",
            "Invalid value: \"foo\": must be an absolute path"
        )
    );
}

/// What controllers and `kubectl label` do to a Pod, a StatefulSet and a Job — labels,
/// a finalizer added and removed, the same spec sent again — passes every update rule.
#[tokio::test]
async fn metadata_only_updates_of_pods_statefulsets_and_jobs_pass() {
    let kapi = Kapi::start().await;
    let pod_path = pod(&kapi, "p", json!({})).await;
    create(&kapi, STATEFULSETS, statefulset()).await;
    create(&kapi, JOBS, job("j", false)).await;
    for path in [pod_path, format!("{STATEFULSETS}/db"), format!("{JOBS}/j")] {
        let labelled = patched(&kapi, &path, json!({"metadata": {"labels": {"team": "a"}}})).await;
        assert_eq!(labelled["metadata"]["labels"]["team"], "a", "{path}");
        patched(
            &kapi,
            &path,
            json!({"metadata": {"finalizers": ["example.com/hold"]}}),
        )
        .await;
        let released = patched(&kapi, &path, json!({"metadata": {"finalizers": null}})).await;
        assert!(released["metadata"].get("finalizers").is_none(), "{path}");
        let current = get(&kapi, &path).await;
        let (s, again) = send(&kapi, "PUT", &path, JSON, &current).await;
        assert_eq!(s, 200, "{path}: {again}");
    }
}

/// A Pod whose updates could never pass is refused on create (`validateContainersOnlyForPod`,
/// `ValidatePodSpec`): a container without an image, a negative `activeDeadlineSeconds`.
#[tokio::test]
async fn a_pod_without_an_image_or_with_a_negative_deadline_is_refused_on_create() {
    let kapi = Kapi::start().await;
    let body = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app"}], "activeDeadlineSeconds": -5}});
    let (s, status) = send(&kapi, "POST", PODS, JSON, &body).await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(cause(&status, 0).0, "FieldValueRequired");
    assert_eq!(cause(&status, 0).1, "spec.containers[0].image");
    assert_eq!(cause(&status, 1).1, "spec.activeDeadlineSeconds");
    let (s, _) = send(&kapi, "GET", &format!("{PODS}/p"), JSON, &Value::Null).await;
    assert_eq!(s, 404);
}

/// `ValidateTolerations` on create: a bad toleration of a Pod or of a Deployment's
/// template is a 422 with upstream's causes, and nothing is stored.
#[tokio::test]
async fn a_bad_toleration_is_refused_on_create_and_nothing_is_stored() {
    let kapi = Kapi::start().await;
    let body = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}], "tolerations": [
            {"key": "k", "operator": "Exists", "value": "v"},
            {"operator": "Equal", "effect": "NoSchedule", "tolerationSeconds": 5}]}});
    let (s, status) = send(&kapi, "POST", PODS, JSON, &body).await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueInvalid",
            "spec.tolerations[0].operator",
            "Invalid value: \"v\": value must be empty when `operator` is 'Exists'"
        )
    );
    assert_eq!(
        cause(&status, 1),
        (
            "FieldValueInvalid",
            "spec.tolerations[1].operator",
            "Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\""
        )
    );
    assert_eq!(
        cause(&status, 2),
        (
            "FieldValueInvalid",
            "spec.tolerations[1].effect",
            "Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set"
        )
    );
    assert_eq!(
        status["details"]["causes"].as_array().map(Vec::len),
        Some(3)
    );
    let (s, _) = send(&kapi, "GET", &format!("{PODS}/p"), JSON, &Value::Null).await;
    assert_eq!(s, 404);

    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx"}],
                "tolerations": [{"key": "k", "operator": "Gt", "value": "5"}]}}}});
    let deployments = "/apis/apps/v1/namespaces/default/deployments";
    let (s, status) = send(&kapi, "POST", deployments, JSON, &deployment).await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        status["message"],
        "Deployment.apps \"web\" is invalid: spec.template.spec.tolerations[0].operator: Unsupported value: \"Gt\": supported values: \"Equal\", \"Exists\""
    );
    let (s, _) = send(
        &kapi,
        "GET",
        &format!("{deployments}/web"),
        JSON,
        &Value::Null,
    )
    .await;
    assert_eq!(s, 404);
}

/// On a Pod's update a bad added toleration is reported twice, as `ValidatePodUpdate`
/// (the new spec's validation, then `validateOnlyAddedTolerations`) does; the Status
/// message names it once.
#[tokio::test]
async fn a_bad_added_toleration_is_refused_on_update() {
    let kapi = Kapi::start().await;
    let t = json!({"key": "k", "operator": "Exists", "effect": "NoSchedule"});
    let path = pod(&kapi, "p", json!({"tolerations": [t]})).await;
    let bad = json!({"key": "k2", "operator": "Exists", "effect": "Sometimes"});
    let status = refused_patch(&kapi, &path, json!({"spec": {"tolerations": [t, bad]}})).await;
    let expected = (
        "FieldValueNotSupported",
        "spec.tolerations[1].effect",
        "Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
    );
    assert_eq!(cause(&status, 0), expected);
    assert_eq!(cause(&status, 1), expected);
    assert_eq!(
        status["message"],
        format!("Pod \"p\" is invalid: {}: {}", expected.1, expected.2)
    );
}

/// `validateIngressBackend` and the rules' hosts: a backend without a port, a resource
/// and a service together, an IP address as a host — a 422, nothing stored.
#[tokio::test]
async fn a_bad_ingress_backend_or_host_is_refused() {
    let kapi = Kapi::start().await;
    let ingresses = "/apis/networking.k8s.io/v1/namespaces/default/ingresses";
    let ingress = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web"},
        "spec": {"defaultBackend": {"service": {"name": "web"}},
            "rules": [{"host": "10.0.0.1", "http": {"paths": [{"path": "/", "pathType": "Prefix",
                "backend": {"service": {"name": "web", "port": {"number": 80}},
                    "resource": {"kind": "Bucket", "name": "b"}}}]}}]}});
    let (s, status) = send(&kapi, "POST", ingresses, JSON, &ingress).await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        cause(&status, 0),
        (
            "FieldValueRequired",
            "spec.defaultBackend",
            "Required value: port name or number is required"
        )
    );
    assert_eq!(
        cause(&status, 1),
        (
            "FieldValueInvalid",
            "spec.rules[0].host",
            "Invalid value: \"10.0.0.1\": must be a DNS name, not an IP address"
        )
    );
    assert_eq!(
        cause(&status, 2),
        (
            "FieldValueInvalid",
            "spec.rules[0].http.paths[0].backend",
            "Invalid value: \"\": cannot set both resource and service backends"
        )
    );
    let (s, _) = send(
        &kapi,
        "GET",
        &format!("{ingresses}/web"),
        JSON,
        &Value::Null,
    )
    .await;
    assert_eq!(s, 404);
}
