//! Server-side apply by list-map key (issue 13): managers own list items by key
//! (`k:{"name":"app"}`), appliers merge their items into what others applied, conflict only
//! on the fields whose value they would change (R8.19), and drop the items they stop
//! applying; `kubectl apply` records the managedFields kube-apiserver 1.36 records; custom
//! resources with `x-kubernetes-list-type: map` behave the same.

mod e2e_support;

use e2e_support::{Kapi, json};
use kapi_testsupport::golden::golden;
use serde_json::{Value, json};
use std::time::Duration;

const DEPLOYMENTS: &str = "/apis/apps/v1/namespaces/default/deployments";

fn request(method: &str, path: &str, content_type: &str, body: &Value) -> http::Request<Vec<u8>> {
    http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .header("accept", "application/json")
        .body(body.to_string().into_bytes())
        .unwrap()
}

/// PATCH with `application/apply-patch+yaml` (JSON is YAML) as `manager`.
async fn apply(kapi: &Kapi, path: &str, manager: &str, force: bool, body: &Value) -> (u16, Value) {
    let uri = format!("{path}?fieldManager={manager}&force={force}");
    let (status, _, bytes) = kapi
        .raw(request("PATCH", &uri, "application/apply-patch+yaml", body))
        .await;
    (status, json(&bytes))
}

async fn get(kapi: &Kapi, path: &str) -> Value {
    let (status, _, bytes) = kapi
        .raw(request("GET", path, "application/json", &Value::Null))
        .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    json(&bytes)
}

fn deployment(containers: Value) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": containers}}}})
}

fn container_names(obj: &Value) -> Vec<String> {
    obj["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The fieldsV1 of `manager`'s entry.
fn fields_of<'a>(obj: &'a Value, manager: &str) -> &'a Value {
    obj["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["manager"] == manager)
        .map(|e| &e["fieldsV1"])
        .unwrap_or_else(|| panic!("no entry of {manager}: {obj}"))
}

/// Creates the object a golden was made from with client-side `kubectl apply`, as the golden
/// was, and returns (golden, created object with managedFields).
fn client_side_apply_of_golden(kapi: &Kapi, name: &str, kind: &str) -> (Value, Value) {
    let golden = golden(&format!("{name}.json"));
    let mut input: Value = serde_json::from_str(
        golden["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    input["metadata"]["namespace"] = json!("default");
    let path = kapi.kubeconfig().with_file_name(format!("{name}.json"));
    std::fs::write(&path, input.to_string()).unwrap();
    kapi.kubectl_ok(&["apply", "-f", path.to_str().unwrap()]);
    let obj_name = input["metadata"]["name"].as_str().unwrap();
    let got = json(
        kapi.kubectl_ok(&["get", kind, obj_name, "-o", "json", "--show-managed-fields"])
            .as_bytes(),
    );
    (golden, got)
}

#[tokio::test]
async fn kubectl_apply_of_a_deployment_records_kube_apiservers_managed_fields() {
    let kapi = Kapi::start().await;
    let (golden, got) = client_side_apply_of_golden(&kapi, "deployment", "deployment");
    let want = fields_of(&golden, "kubectl-client-side-apply");
    assert_eq!(fields_of(&got, "kubectl-client-side-apply"), want);
}

#[tokio::test]
async fn kubectl_apply_of_a_service_records_kube_apiservers_managed_fields() {
    let kapi = Kapi::start().await;
    let (golden, got) = client_side_apply_of_golden(&kapi, "service", "service");
    let want = fields_of(&golden, "kubectl-client-side-apply");
    assert_eq!(fields_of(&got, "kubectl-client-side-apply"), want);
}

#[tokio::test]
async fn two_appliers_each_own_their_container_by_name_r8_19() {
    let kapi = Kapi::start().await;
    let path = format!("{DEPLOYMENTS}/web");
    let first = deployment(json!([{"name": "app", "image": "nginx:1.27"}]));
    let (s, _) = apply(&kapi, &path, "first", false, &first).await;
    assert_eq!(s, 201);
    let second = deployment(json!([{"name": "sidecar", "image": "envoy:1"}]));
    let (s, obj) = apply(&kapi, &path, "second", false, &second).await;
    assert_eq!(s, 200, "{obj}");
    assert_eq!(container_names(&obj), ["app", "sidecar"]);
    let containers = &fields_of(&obj, "second")["f:spec"]["f:template"]["f:spec"]["f:containers"];
    assert_eq!(
        containers,
        &json!({"k:{\"name\":\"sidecar\"}": {".": {}, "f:image": {}, "f:name": {}}})
    );
}

#[tokio::test]
async fn changing_another_appliers_image_conflicts_on_that_field_and_stores_nothing_r8_19() {
    let kapi = Kapi::start().await;
    let path = format!("{DEPLOYMENTS}/web");
    let first = deployment(json!([{"name": "app", "image": "nginx:1.27"}]));
    apply(&kapi, &path, "first", false, &first).await;
    let before = get(&kapi, &path).await;
    let second = deployment(json!([{"name": "app", "image": "nginx:1.28"}]));
    let (s, status) = apply(&kapi, &path, "second", false, &second).await;
    assert_eq!(s, 409, "{status}");
    assert_eq!(status["reason"], "Conflict");
    assert_eq!(
        status["message"],
        "Apply failed with 1 conflict: conflict with \"first\": .spec.template.spec.containers[name=\"app\"].image"
    );
    assert_eq!(
        status["details"]["causes"],
        json!([{"reason": "FieldManagerConflict", "message": "conflict with \"first\"",
            "field": ".spec.template.spec.containers[name=\"app\"].image"}])
    );
    assert_eq!(get(&kapi, &path).await, before);
    // Forced, the second applier takes the image; the first keeps the rest of the item.
    let (s, obj) = apply(&kapi, &path, "second", true, &second).await;
    assert_eq!(s, 200, "{obj}");
    let first_item = &fields_of(&obj, "first")["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"app\"}"];
    assert_eq!(first_item, &json!({".": {}, "f:name": {}}));
}

#[tokio::test]
async fn an_applier_that_stops_applying_a_container_removes_it() {
    let kapi = Kapi::start().await;
    let path = format!("{DEPLOYMENTS}/web");
    let both =
        deployment(json!([{"name": "app", "image": "a:1"}, {"name": "log", "image": "b:1"}]));
    apply(&kapi, &path, "me", false, &both).await;
    let one = deployment(json!([{"name": "app", "image": "a:1"}]));
    let (s, obj) = apply(&kapi, &path, "me", false, &one).await;
    assert_eq!(s, 200, "{obj}");
    assert_eq!(container_names(&obj), ["app"]);
}

#[tokio::test]
async fn reapplying_keeps_an_env_var_another_client_added_to_the_container() {
    let kapi = Kapi::start().await;
    let path = format!("{DEPLOYMENTS}/web");
    let d = deployment(json!([{"name": "app", "image": "a:1"}]));
    apply(&kapi, &path, "me", false, &d).await;
    // Another client changes the env of the container with a strategic merge patch.
    kapi.kubectl_ok(&[
        "patch",
        "deployment",
        "web",
        "-p",
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"A","value":"1"}]}]}}}}"#,
    ]);
    // Re-applying the same configuration keeps the env the patcher owns.
    let (s, obj) = apply(&kapi, &path, "me", false, &d).await;
    assert_eq!(s, 200, "{obj}");
    assert_eq!(
        obj["spec"]["template"]["spec"]["containers"][0]["env"],
        json!([{"name": "A", "value": "1"}])
    );
    let patcher = &fields_of(&obj, "kubectl-patch")["f:spec"]["f:template"]["f:spec"]["f:containers"]
        ["k:{\"name\":\"app\"}"];
    assert_eq!(
        patcher["f:env"],
        json!({".": {}, "k:{\"name\":\"A\"}": {".": {}, "f:name": {}, "f:value": {}}})
    );
}

#[tokio::test]
async fn kubectl_server_side_apply_reports_a_conflict_by_key() {
    let kapi = Kapi::start().await;
    let d = |image: &str| {
        let mut v = deployment(json!([{"name": "app", "image": image,
            "ports": [{"containerPort": 80}]}]));
        v["metadata"]["namespace"] = json!("default");
        v
    };
    let file = kapi.kubeconfig().with_file_name("d.json");
    std::fs::write(&file, d("a:1").to_string()).unwrap();
    let f = file.to_str().unwrap();
    kapi.kubectl_ok(&["apply", "--server-side", "--field-manager=team-a", "-f", f]);
    std::fs::write(&file, d("a:2").to_string()).unwrap();
    let out = kapi.kubectl(&["apply", "--server-side", "--field-manager=team-b", "-f", f]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "conflict with \"team-a\": .spec.template.spec.containers[name=\"app\"].image"
        ),
        "{err}"
    );
    let obj = json(
        kapi.kubectl_ok(&[
            "get",
            "deploy",
            "web",
            "-o",
            "json",
            "--show-managed-fields",
        ])
        .as_bytes(),
    );
    let ports = &fields_of(&obj, "team-a")["f:spec"]["f:template"]["f:spec"]["f:containers"]["k:{\"name\":\"app\"}"]
        ["f:ports"];
    assert_eq!(
        ports,
        &json!({"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}})
    );
}

const GADGETS: &str = "/apis/example.com/v1/namespaces/default/gadgets";

/// kapi with a Gadget CRD whose `spec.slots` is a list map keyed by `id`, and `spec.tags`
/// a set.
async fn gadget_kapi() -> Kapi {
    let kapi = Kapi::start().await;
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "slots": {"type": "array", "x-kubernetes-list-type": "map",
                            "x-kubernetes-list-map-keys": ["id"],
                            "items": {"type": "object", "required": ["id"], "properties": {
                                "id": {"type": "string"}, "size": {"type": "integer"}}}},
                        "tags": {"type": "array", "x-kubernetes-list-type": "set",
                            "items": {"type": "string"}}}}}}}}]}});
    let file = kapi.kubeconfig().with_file_name("gadget-crd.json");
    std::fs::write(&file, crd.to_string()).unwrap();
    kapi.kubectl_ok(&["apply", "-f", file.to_str().unwrap()]);
    for _ in 0..100 {
        let (s, _, _) = kapi
            .raw(request("GET", GADGETS, "application/json", &Value::Null))
            .await;
        if s == 200 {
            return kapi;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("gadgets never served");
}

fn gadget(slots: Value, tags: Value) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g"},
        "spec": {"slots": slots, "tags": tags}})
}

#[tokio::test]
async fn custom_resource_list_maps_merge_by_key_and_sets_by_value() {
    let kapi = gadget_kapi().await;
    let path = format!("{GADGETS}/g");
    let a = gadget(json!([{"id": "x", "size": 1}]), json!(["red"]));
    let (s, obj) = apply(&kapi, &path, "a", false, &a).await;
    assert_eq!(s, 201, "{obj}");
    let b = gadget(json!([{"id": "y", "size": 2}]), json!(["blue"]));
    let (s, obj) = apply(&kapi, &path, "b", false, &b).await;
    assert_eq!(s, 200, "{obj}");
    assert_eq!(
        obj["spec"]["slots"],
        json!([{"id": "x", "size": 1}, {"id": "y", "size": 2}])
    );
    assert_eq!(obj["spec"]["tags"], json!(["red", "blue"]));
    assert_eq!(
        fields_of(&obj, "b")["f:spec"],
        json!({"f:slots": {"k:{\"id\":\"y\"}": {".": {}, "f:id": {}, "f:size": {}}},
            "f:tags": {"v:\"blue\"": {}}})
    );
    let conflicting = gadget(json!([{"id": "x", "size": 5}]), json!([]));
    let (s, status) = apply(&kapi, &path, "b", false, &conflicting).await;
    assert_eq!(s, 409, "{status}");
    assert_eq!(
        status["details"]["causes"][0]["field"],
        ".spec.slots[id=\"x\"].size"
    );
}

#[tokio::test]
async fn an_applied_list_map_item_without_its_key_is_refused_and_nothing_is_stored() {
    let kapi = gadget_kapi().await;
    let path = format!("{GADGETS}/g");
    let (s, status) = apply(
        &kapi,
        &path,
        "a",
        false,
        &gadget(json!([{"size": 1}]), json!([])),
    )
    .await;
    assert_eq!(s, 500, "{status}");
    assert_eq!(status["reason"], Value::Null);
    assert_eq!(
        status["message"],
        "failed to create typed patch object (default/g; example.com/v1, Kind=Gadget): .spec.slots: element 0: associative list with keys has an element that omits key field \"id\" (and doesn't have default value)"
    );
    let (s, _, _) = kapi
        .raw(request("GET", &path, "application/json", &Value::Null))
        .await;
    assert_eq!(s, 404);
}
