//! The subresources that write part of a Pod or a CSR (issue 13), driven as their users
//! drive them: a scheduler's Binding (both URL forms), `kubectl debug`'s ephemeral
//! containers, an in-place resize, `kubectl certificate approve`/`deny`; each refusal
//! answers upstream's Status and leaves the object as it was.

mod e2e_support;

use e2e_support::Kapi;
use serde_json::{Value, json};

const PODS: &str = "/api/v1/namespaces/default/pods";

async fn send(kapi: &Kapi, method: &str, path: &str, ct: &str, body: &Value) -> (u16, Value) {
    kapi.send(method, path, ct, body).await
}

async fn get(kapi: &Kapi, path: &str) -> Value {
    let (s, v) = send(kapi, "GET", path, "application/json", &Value::Null).await;
    assert_eq!(s, 200, "{v}");
    v
}

async fn pod(kapi: &Kapi, name: &str) -> Value {
    let body = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "nginx",
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}});
    let (s, v) = send(kapi, "POST", PODS, "application/json", &body).await;
    assert_eq!(s, 201, "{v}");
    v
}

fn binding(pod: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Binding",
        "metadata": {"name": pod, "annotations": {"scheduler": "test"}},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node}})
}

#[tokio::test]
async fn a_binding_assigns_the_pod_to_its_node_and_marks_it_scheduled() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let (s, status) = send(
        &kapi,
        "POST",
        &format!("{PODS}/p/binding"),
        "application/json",
        &binding("p", "node-1"),
    )
    .await;
    assert_eq!(s, 201, "{status}");
    assert_eq!(status["kind"], "Status");
    assert_eq!(status["status"], "Success");
    let p = get(&kapi, &format!("{PODS}/p")).await;
    assert_eq!(p["spec"]["nodeName"], "node-1");
    assert_eq!(p["metadata"]["annotations"]["scheduler"], "test");
    let scheduled = p["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "PodScheduled")
        .expect("a PodScheduled condition");
    assert_eq!(scheduled["status"], "True");
    // kubectl's field selector finds it on its node.
    let out = kapi.kubectl_ok(&[
        "get",
        "pods",
        "--field-selector=spec.nodeName=node-1",
        "-o",
        "name",
    ]);
    assert_eq!(out.trim(), "pod/p");
}

#[tokio::test]
async fn the_bindings_collection_binds_the_pod_its_binding_names() {
    let kapi = Kapi::start().await;
    pod(&kapi, "q").await;
    let (s, status) = send(
        &kapi,
        "POST",
        "/api/v1/namespaces/default/bindings",
        "application/json",
        &binding("q", "node-2"),
    )
    .await;
    assert_eq!(s, 201, "{status}");
    assert_eq!(
        get(&kapi, &format!("{PODS}/q")).await["spec"]["nodeName"],
        "node-2"
    );
}

#[tokio::test]
async fn binding_a_bound_pod_again_is_a_conflict_and_changes_nothing() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let path = format!("{PODS}/p/binding");
    send(
        &kapi,
        "POST",
        &path,
        "application/json",
        &binding("p", "node-1"),
    )
    .await;
    let before = get(&kapi, &format!("{PODS}/p")).await;
    let (s, status) = send(
        &kapi,
        "POST",
        &path,
        "application/json",
        &binding("p", "node-2"),
    )
    .await;
    assert_eq!(s, 409, "{status}");
    assert_eq!(status["reason"], "Conflict");
    assert_eq!(
        status["message"],
        "Operation cannot be fulfilled on pods/binding \"p\": pod p is already assigned to node \"node-1\""
    );
    assert_eq!(get(&kapi, &format!("{PODS}/p")).await, before);
}

#[tokio::test]
async fn a_binding_whose_name_differs_from_the_url_is_a_bad_request() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let (s, status) = send(
        &kapi,
        "POST",
        &format!("{PODS}/p/binding"),
        "application/json",
        &binding("other", "node-1"),
    )
    .await;
    assert_eq!(s, 400, "{status}");
    assert_eq!(
        status["message"],
        "name in URL does not match name in Binding object"
    );
}

#[tokio::test]
async fn a_binding_without_a_target_node_is_refused_and_the_pod_stays_unbound() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let mut b = binding("p", "");
    b["target"]["name"] = json!("");
    let (s, status) = send(
        &kapi,
        "POST",
        &format!("{PODS}/p/binding"),
        "application/json",
        &b,
    )
    .await;
    assert_eq!(s, 500, "{status}");
    assert_eq!(status["message"], "target.name: Required value");
    assert_eq!(
        get(&kapi, &format!("{PODS}/p")).await["spec"].get("nodeName"),
        None
    );
}

#[tokio::test]
async fn kubectl_debug_adds_an_ephemeral_container_and_nothing_else() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    kapi.kubectl_ok(&["debug", "p", "--image=busybox", "-c", "dbg", "--target=app"]);
    let p = get(&kapi, &format!("{PODS}/p")).await;
    let eph = &p["spec"]["ephemeralContainers"];
    assert_eq!(eph[0]["name"], "dbg");
    assert_eq!(eph[0]["image"], "busybox");
    assert_eq!(eph[0]["targetContainerName"], "app");
    assert_eq!(p["spec"]["containers"][0]["image"], "nginx");
}

#[tokio::test]
async fn an_ephemeral_container_may_not_be_removed() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let path = format!("{PODS}/p/ephemeralcontainers");
    let add = json!({"spec": {"ephemeralContainers": [{"name": "dbg", "image": "busybox"}]}});
    let (s, v) = send(
        &kapi,
        "PATCH",
        &path,
        "application/strategic-merge-patch+json",
        &add,
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let before = get(&kapi, &format!("{PODS}/p")).await;
    let remove = json!({"spec": {"ephemeralContainers": null}});
    let (s, status) = send(
        &kapi,
        "PATCH",
        &path,
        "application/merge-patch+json",
        &remove,
    )
    .await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        status["details"]["causes"][0]["message"],
        "Forbidden: existing ephemeral containers \"dbg\" may not be removed\n"
    );
    assert_eq!(get(&kapi, &format!("{PODS}/p")).await, before);
}

#[tokio::test]
async fn ephemeral_containers_may_not_have_ports() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let add = json!({"spec": {"ephemeralContainers": [{"name": "dbg", "image": "busybox",
        "ports": [{"containerPort": 80}]}]}});
    let (s, status) = send(
        &kapi,
        "PATCH",
        &format!("{PODS}/p/ephemeralcontainers"),
        "application/strategic-merge-patch+json",
        &add,
    )
    .await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        status["details"]["causes"][0],
        json!({"reason": "FieldValueForbidden",
            "message": "Forbidden: cannot be set for an Ephemeral Container",
            "field": "spec.ephemeralContainers[0].ports"})
    );
}

#[tokio::test]
async fn a_resize_changes_only_the_containers_resources() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let patch = json!({"spec": {"containers": [{"name": "app", "image": "ignored",
        "resources": {"requests": {"cpu": "200m", "memory": "64Mi"}}}]}});
    let (s, p) = send(
        &kapi,
        "PATCH",
        &format!("{PODS}/p/resize"),
        "application/strategic-merge-patch+json",
        &patch,
    )
    .await;
    assert_eq!(s, 200, "{p}");
    let c = &p["spec"]["containers"][0];
    assert_eq!(c["resources"]["requests"]["cpu"], "200m");
    assert_eq!(c["image"], "nginx");
}

#[tokio::test]
async fn a_resize_that_would_change_the_qos_class_is_refused() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let before = get(&kapi, &format!("{PODS}/p")).await;
    // Limits equal to the requests would make the Pod Guaranteed.
    let patch = json!({"spec": {"containers": [{"name": "app",
        "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}}]}});
    let (s, status) = send(
        &kapi,
        "PATCH",
        &format!("{PODS}/p/resize"),
        "application/strategic-merge-patch+json",
        &patch,
    )
    .await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        status["details"]["causes"][0]["message"],
        "Invalid value: \"Burstable\": Pod QOS Class may not change as a result of resizing"
    );
    assert_eq!(get(&kapi, &format!("{PODS}/p")).await, before);
}

fn csr(kapi: &Kapi, name: &str) {
    let body = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {"request": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
            "signerName": "example.com/signer", "usages": ["client auth"]}});
    let file = kapi.kubeconfig().with_file_name(format!("{name}.json"));
    std::fs::write(&file, body.to_string()).unwrap();
    kapi.kubectl_ok(&["create", "-f", file.to_str().unwrap()]);
}

#[tokio::test]
async fn a_csr_names_its_requester_whatever_its_body_claims() {
    let kapi = Kapi::start().await;
    let body = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
        "metadata": {"name": "forged"},
        "spec": {"request": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
            "signerName": "example.com/signer", "usages": ["client auth"],
            "username": "system:node:victim", "groups": ["system:nodes"]}});
    let (status, c) = send(
        &kapi,
        "POST",
        "/apis/certificates.k8s.io/v1/certificatesigningrequests",
        "application/json",
        &body,
    )
    .await;
    assert_eq!(status, 201, "{c}");
    assert_eq!(c["spec"]["username"], "admin");
    assert_eq!(
        c["spec"]["groups"],
        json!(["system:masters", "system:authenticated"])
    );
}

#[tokio::test]
async fn kubectl_certificate_approve_sets_the_approved_condition() {
    let kapi = Kapi::start().await;
    csr(&kapi, "c1");
    kapi.kubectl_ok(&["certificate", "approve", "c1"]);
    let c = get(
        &kapi,
        "/apis/certificates.k8s.io/v1/certificatesigningrequests/c1",
    )
    .await;
    let cond = &c["status"]["conditions"][0];
    assert_eq!(cond["type"], "Approved");
    assert_eq!(cond["status"], "True");
    assert!(cond["lastUpdateTime"].is_string(), "{c}");
}

#[tokio::test]
async fn an_approved_csr_cannot_also_be_denied() {
    let kapi = Kapi::start().await;
    csr(&kapi, "c1");
    kapi.kubectl_ok(&["certificate", "approve", "c1"]);
    let path = "/apis/certificates.k8s.io/v1/certificatesigningrequests/c1";
    let mut c = get(&kapi, path).await;
    let before = c.clone();
    c["status"]["conditions"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "Denied", "status": "True", "reason": "no"}));
    let (s, status) = send(
        &kapi,
        "PUT",
        &format!("{path}/approval"),
        "application/json",
        &c,
    )
    .await;
    assert_eq!(s, 422, "{status}");
    assert_eq!(
        status["details"]["causes"][0],
        json!({"reason": "FieldValueInvalid", "field": "status.conditions[1].type",
            "message": "Invalid value: \"Denied\": Approved and Denied conditions are mutually exclusive"})
    );
    assert_eq!(get(&kapi, path).await, before);
}

const PDBS: &str = "/apis/policy/v1/namespaces/default/poddisruptionbudgets";

/// A Running, Ready Pod labelled app=web.
async fn running_pod(kapi: &Kapi, name: &str) {
    let body = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]}});
    let (s, v) = send(kapi, "POST", PODS, "application/json", &body).await;
    assert_eq!(s, 201, "{v}");
    let status = json!({"status": {"phase": "Running",
        "conditions": [{"type": "Ready", "status": "True"}]}});
    let (s, v) = send(
        kapi,
        "PATCH",
        &format!("{PODS}/{name}/status"),
        "application/merge-patch+json",
        &status,
    )
    .await;
    assert_eq!(s, 200, "{v}");
}

/// A budget over app=web whose status (as a disruption controller would write it) allows
/// `allowed` disruptions.
async fn budget(kapi: &Kapi, allowed: i64) {
    let body = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "web"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}});
    let (s, v) = send(kapi, "POST", PDBS, "application/json", &body).await;
    assert_eq!(s, 201, "{v}");
    let status = json!({"status": {"observedGeneration": 1, "disruptionsAllowed": allowed,
        "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}});
    let (s, v) = send(
        kapi,
        "PATCH",
        &format!("{PDBS}/web/status"),
        "application/merge-patch+json",
        &status,
    )
    .await;
    assert_eq!(s, 200, "{v}");
}

fn eviction(name: &str) -> Value {
    json!({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}})
}

/// POSTs an Eviction of the Pod `name`.
async fn evict(kapi: &Kapi, name: &str) -> (u16, Value) {
    send(
        kapi,
        "POST",
        &format!("{PODS}/{name}/eviction"),
        "application/json",
        &eviction(name),
    )
    .await
}

#[tokio::test]
async fn an_eviction_a_budget_allows_deletes_the_pod_and_takes_a_disruption() {
    let kapi = Kapi::start().await;
    running_pod(&kapi, "p").await;
    budget(&kapi, 1).await;
    let (s, status) = evict(&kapi, "p").await;
    assert_eq!(s, 201, "{status}");
    assert_eq!(status["status"], "Success");
    let (s, _) = send(&kapi, "GET", &format!("{PODS}/p"), "", &Value::Null).await;
    assert_eq!(s, 404);
    let pdb = get(&kapi, &format!("{PDBS}/web")).await;
    assert_eq!(pdb["status"]["disruptionsAllowed"], 0);
    assert!(pdb["status"]["disruptedPods"]["p"].is_string(), "{pdb}");
}

#[tokio::test]
async fn an_eviction_a_budget_refuses_is_429_and_keeps_the_pod() {
    let kapi = Kapi::start().await;
    running_pod(&kapi, "p").await;
    budget(&kapi, 0).await;
    let (s, status) = evict(&kapi, "p").await;
    assert_eq!(s, 429, "{status}");
    assert_eq!(status["reason"], "TooManyRequests");
    assert_eq!(
        status["message"],
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert_eq!(
        status["details"]["causes"][0],
        json!({"reason": "DisruptionBudget",
            "message": "The disruption budget web needs 1 healthy pods and has 1 currently"})
    );
    assert_eq!(
        get(&kapi, &format!("{PODS}/p")).await["metadata"]["name"],
        "p"
    );
}

#[tokio::test]
async fn kubectl_drain_evicts_the_pods_bound_to_a_node() {
    let kapi = Kapi::start().await;
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}});
    let (s, v) = send(&kapi, "POST", "/api/v1/nodes", "application/json", &node).await;
    assert_eq!(s, 201, "{v}");
    running_pod(&kapi, "p").await;
    let (s, v) = send(
        &kapi,
        "POST",
        &format!("{PODS}/p/binding"),
        "application/json",
        &binding("p", "n1"),
    )
    .await;
    assert_eq!(s, 201, "{v}");
    // A bound Pod keeps its grace period; kubectl waits for it to end.
    kapi.kubectl_ok(&[
        "drain",
        "n1",
        "--force",
        "--grace-period=1",
        "--timeout=20s",
    ]);
    let (s, _) = send(&kapi, "GET", &format!("{PODS}/p"), "", &Value::Null).await;
    assert_eq!(s, 404);
    let n = get(&kapi, "/api/v1/nodes/n1").await;
    assert_eq!(n["spec"]["unschedulable"], true);
}

/// A Pod bound to node `n1`.
async fn bound_pod(kapi: &Kapi, name: &str) {
    pod(kapi, name).await;
    let (s, v) = send(
        kapi,
        "POST",
        &format!("{PODS}/{name}/binding"),
        "application/json",
        &binding(name, "n1"),
    )
    .await;
    assert_eq!(s, 201, "{v}");
}

async fn delete_with_grace(kapi: &Kapi, name: &str, grace: i64) -> (u16, Value) {
    send(
        kapi,
        "DELETE",
        &format!("{PODS}/{name}"),
        "application/json",
        &json!({"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": grace}),
    )
    .await
}

/// Polls the Pod until it is gone (true) or `secs` pass (false).
async fn gone_within(kapi: &Kapi, name: &str, secs: u64) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        let (s, _) = send(kapi, "GET", &format!("{PODS}/{name}"), "", &Value::Null).await;
        if s == 404 {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn a_bound_pod_stays_terminating_until_its_grace_period_ends() {
    let kapi = Kapi::start().await;
    bound_pod(&kapi, "p").await;
    let (s, deleting) = delete_with_grace(&kapi, "p", 2).await;
    assert_eq!(s, 200, "{deleting}");
    assert_eq!(deleting["metadata"]["deletionGracePeriodSeconds"], 2);
    assert!(deleting["metadata"]["deletionTimestamp"].is_string());
    let still = get(&kapi, &format!("{PODS}/p")).await;
    assert_eq!(
        still["metadata"]["deletionTimestamp"],
        deleting["metadata"]["deletionTimestamp"]
    );
    // The pod-termination controller deletes it when the grace period ends, as a kubelet
    // would once the containers stopped.
    assert!(gone_within(&kapi, "p", 15).await, "{}", kapi.log());
}

#[tokio::test]
async fn a_pod_no_node_runs_is_deleted_at_once_whatever_grace_is_asked() {
    let kapi = Kapi::start().await;
    pod(&kapi, "p").await;
    let (s, v) = delete_with_grace(&kapi, "p", 30).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = send(&kapi, "GET", &format!("{PODS}/p"), "", &Value::Null).await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn deleting_again_with_zero_grace_ends_a_pending_grace_period_at_once() {
    let kapi = Kapi::start().await;
    bound_pod(&kapi, "p").await;
    let (s, v) = delete_with_grace(&kapi, "p", 300).await;
    assert_eq!(s, 200, "{v}");
    // A longer period changes nothing; a shorter one brings the deletion forward.
    let (_, same) = delete_with_grace(&kapi, "p", 600).await;
    assert_eq!(same["metadata"]["deletionGracePeriodSeconds"], 300);
    let (_, shorter) = delete_with_grace(&kapi, "p", 100).await;
    assert_eq!(shorter["metadata"]["deletionGracePeriodSeconds"], 100);
    let at = |v: &Value| {
        chrono::DateTime::parse_from_rfc3339(v["metadata"]["deletionTimestamp"].as_str().unwrap())
            .unwrap()
    };
    assert_eq!((at(&same) - at(&shorter)).num_seconds(), 200);
    let (s, v) = delete_with_grace(&kapi, "p", 0).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = send(&kapi, "GET", &format!("{PODS}/p"), "", &Value::Null).await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn kubectl_delete_of_a_bound_pod_returns_once_its_grace_period_ended() {
    let kapi = Kapi::start().await;
    bound_pod(&kapi, "p").await;
    let out = kapi.kubectl_ok(&["delete", "pod", "p", "--grace-period=1", "--timeout=20s"]);
    assert!(out.contains("pod \"p\" deleted"), "{out}");
    let (s, _) = send(&kapi, "GET", &format!("{PODS}/p"), "", &Value::Null).await;
    assert_eq!(s, 404);
}
