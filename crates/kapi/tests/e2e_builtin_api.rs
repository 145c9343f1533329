//! The whole built-in API of Kubernetes 1.36 (issue 13) end to end: discovery equals
//! kube-apiserver 1.36.2's for every resource kapi serves, kubectl and the `kube` crate
//! create, read and scale the kinds an operator's reconciler makes, protobuf bodies are
//! the generated kinds', and updates that kube refuses are refused.

mod e2e_support;

use e2e_support::{Kapi, json};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::Role;
use kapi_testsupport::golden::golden;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

fn get(path: &str, accept: &str) -> http::Request<Vec<u8>> {
    http::Request::get(path)
        .header("accept", accept)
        .body(Vec::new())
        .unwrap()
}

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// (group, version, resource JSON) of every resource of an aggregated document.
fn resources(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for item in doc["items"].as_array().unwrap() {
        let group = item["metadata"]["name"].as_str().unwrap_or("").to_owned();
        for v in item["versions"].as_array().unwrap() {
            for r in v["resources"].as_array().unwrap() {
                out.push((
                    group.clone(),
                    v["version"].as_str().unwrap().to_owned(),
                    r.clone(),
                ));
            }
        }
    }
    out
}

/// Writes `docs` as one v1 List that kubectl applies item by item.
fn write_manifest(kapi: &Kapi, name: &str, docs: &[Value]) -> String {
    let path = kapi.kubeconfig().with_file_name(name);
    let list = json!({"apiVersion": "v1", "kind": "List", "items": docs});
    std::fs::write(&path, list.to_string()).unwrap();
    path.to_str().unwrap().to_owned()
}

fn deployment(name: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}}})
}

#[tokio::test]
async fn aggregated_discovery_is_kube_apiservers_for_every_served_resource() {
    let kapi = Kapi::start().await;
    let golden = golden("discovery-1.36.json");
    for root in ["/api", "/apis"] {
        let (status, _, body) = kapi.raw(get(root, AGGREGATED)).await;
        assert_eq!(status, 200);
        let served = resources(&json(&body));
        let want = resources(&golden[root]);
        for (g, v, r) in &want {
            let name = r["resource"].as_str().unwrap();
            let got = served
                .iter()
                .find(|(sg, sv, sr)| sg == g && sv == v && sr["resource"] == name)
                .unwrap_or_else(|| panic!("{g}/{v} {name} is not served"));
            assert_eq!(&got.2, r, "{g}/{v} {name}");
        }
        // Upstream's groups in upstream's order; kapi's own extras (kapi.dev,
        // storagemigration.k8s.io) come after them.
        let order = |list: &[(String, String, Value)]| {
            let mut groups: Vec<String> = Vec::new();
            for (g, v, _) in list {
                let gv = format!("{g}/{v}");
                if !groups.contains(&gv) {
                    groups.push(gv);
                }
            }
            groups
        };
        let want_order = order(&want);
        let got_order: Vec<String> = order(&served)
            .into_iter()
            .filter(|gv| want_order.contains(gv))
            .collect();
        assert_eq!(got_order, want_order, "{root}: group order");
    }
}

#[tokio::test]
async fn kubectl_api_resources_lists_every_served_builtin() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&["api-resources", "-o", "name"]);
    let names: Vec<&str> = out.lines().collect();
    for want in [
        "pods",
        "services",
        "serviceaccounts",
        "deployments.apps",
        "statefulsets.apps",
        "jobs.batch",
        "cronjobs.batch",
        "roles.rbac.authorization.k8s.io",
        "clusterrolebindings.rbac.authorization.k8s.io",
        "ingresses.networking.k8s.io",
        "poddisruptionbudgets.policy",
        "validatingwebhookconfigurations.admissionregistration.k8s.io",
        "mutatingadmissionpolicies.admissionregistration.k8s.io",
        "endpointslices.discovery.k8s.io",
        "flowschemas.flowcontrol.apiserver.k8s.io",
        "resourceclaims.resource.k8s.io",
        "storageclasses.storage.k8s.io",
        "priorityclasses.scheduling.k8s.io",
        "runtimeclasses.node.k8s.io",
        "certificatesigningrequests.certificates.k8s.io",
        "apiservices.apiregistration.k8s.io",
    ] {
        assert!(names.contains(&want), "{want} missing from:\n{out}");
    }
    let wide = kapi.kubectl_ok(&["api-resources", "--api-group=apps"]);
    let deploy = wide.lines().find(|l| l.starts_with("deployments")).unwrap();
    let cols: Vec<&str> = deploy.split_whitespace().collect();
    assert_eq!(
        cols,
        ["deployments", "deploy", "apps/v1", "true", "Deployment"]
    );
}

#[tokio::test]
async fn kubectl_applies_the_kinds_an_operator_creates() {
    let kapi = Kapi::start().await;
    let manifest = write_manifest(
        &kapi,
        "operator.json",
        &[
            deployment("web"),
            json!({"apiVersion": "v1", "kind": "Service",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": 8080}]}}),
            json!({"apiVersion": "v1", "kind": "ServiceAccount",
                "metadata": {"name": "op", "namespace": "default"}}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "op", "namespace": "default"},
                "rules": [{"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list"]}]}),
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"name": "op", "namespace": "default"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "op"},
                "subjects": [{"kind": "ServiceAccount", "name": "op", "namespace": "default"}]}),
            json!({"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": "once", "namespace": "default"},
                "spec": {"template": {"spec": {"restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox"}]}}}}),
            json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"rules": [{"host": "web.example", "http": {"paths": [{"path": "/",
                    "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}}),
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": "web", "namespace": "default"},
                "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}),
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": {"name": "high"}, "value": 1000}),
        ],
    );
    let out = kapi.kubectl_ok(&["apply", "-f", &manifest]);
    assert!(out.contains("deployment.apps/web created"), "{out}");
    assert!(
        out.contains("rolebinding.rbac.authorization.k8s.io/op created"),
        "{out}"
    );
    let d = json(
        kapi.kubectl_ok(&["get", "deployment", "web", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(d["metadata"]["generation"], 1);
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["image"],
        "nginx:1.27"
    );
    let svc = json(
        kapi.kubectl_ok(&["get", "service", "web", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(svc["spec"]["ports"][0]["targetPort"], 8080);
    assert!(svc["metadata"].get("generation").is_none());
    let names = kapi.kubectl_ok(&[
        "get",
        "serviceaccounts,roles,rolebindings,jobs,ingresses,poddisruptionbudgets",
        "-o",
        "name",
    ]);
    for want in [
        "serviceaccount/op",
        "role.rbac.authorization.k8s.io/op",
        "rolebinding.rbac.authorization.k8s.io/op",
        "job.batch/once",
        "ingress.networking.k8s.io/web",
        "poddisruptionbudget.policy/web",
    ] {
        assert!(names.contains(want), "{want} missing from:\n{names}");
    }
    kapi.kubectl_ok(&["get", "priorityclass", "high"]);
    // A second apply changes nothing.
    let again = kapi.kubectl_ok(&["apply", "-f", &manifest]);
    assert!(again.contains("deployment.apps/web unchanged"), "{again}");
}

#[tokio::test]
async fn kube_rs_typed_clients_create_and_read_builtin_kinds() {
    let kapi = Kapi::start().await;
    let client = kapi.client().await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let d: Deployment = serde_json::from_value(deployment("api")).unwrap();
    let created = deployments
        .create(&PostParams::default(), &d)
        .await
        .unwrap();
    assert!(created.metadata.uid.is_some());
    let got = deployments.get("api").await.unwrap();
    assert_eq!(got.spec.unwrap().replicas, Some(2));
    let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
    let sa: ServiceAccount = serde_json::from_value(json!({"metadata": {"name": "bot"}})).unwrap();
    sas.create(&PostParams::default(), &sa).await.unwrap();
    let names: Vec<String> = sas
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|sa| sa.metadata.name)
        .collect();
    assert!(names.contains(&"bot".to_owned()), "{names:?}");
    // RBAC names may hold colons (path-segment names, not DNS subdomains).
    let roles: Api<Role> = Api::namespaced(client, "default");
    let role: Role = serde_json::from_value(json!({"metadata": {"name": "system:op"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]}))
    .unwrap();
    roles.create(&PostParams::default(), &role).await.unwrap();
}

#[tokio::test]
async fn the_scale_subresource_reads_and_writes_a_deployments_replicas() {
    let kapi = Kapi::start().await;
    let manifest = write_manifest(&kapi, "web.json", &[deployment("web")]);
    kapi.kubectl_ok(&["apply", "-f", &manifest]);
    kapi.kubectl_ok(&["scale", "deployment", "web", "--replicas=5"]);
    let d = json(
        kapi.kubectl_ok(&["get", "deployment", "web", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(d["spec"]["replicas"], 5);
    let client = kapi.client().await;
    let deployments: Api<Deployment> = Api::namespaced(client, "default");
    let scale = deployments.get_scale("web").await.unwrap();
    assert_eq!(scale.spec.unwrap().replicas, Some(5));
    assert_eq!(scale.status.unwrap().selector.as_deref(), Some("app=web"));
    let patched = deployments
        .patch_scale(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.spec.unwrap().replicas, Some(1));
}

#[tokio::test]
async fn a_deployments_selector_is_immutable() {
    let kapi = Kapi::start().await;
    let manifest = write_manifest(&kapi, "web.json", &[deployment("web")]);
    kapi.kubectl_ok(&["apply", "-f", &manifest]);
    let out = kapi.kubectl(&[
        "patch",
        "deployment",
        "web",
        "--type=merge",
        "-p",
        r#"{"spec":{"selector":{"matchLabels":{"app":"other"}},"template":{"metadata":{"labels":{"app":"other"}}}}}"#,
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("spec.selector: Invalid value"), "{err}");
    assert!(err.contains("field is immutable"), "{err}");
    let d = json(
        kapi.kubectl_ok(&["get", "deployment", "web", "-o", "json"])
            .as_bytes(),
    );
    assert_eq!(d["spec"]["selector"]["matchLabels"]["app"], "web");
}

#[tokio::test]
async fn protobuf_reads_of_a_deployment_are_the_generated_kinds_bytes() {
    let kapi = Kapi::start().await;
    let manifest = write_manifest(&kapi, "web.json", &[deployment("web")]);
    kapi.kubectl_ok(&["apply", "-f", &manifest]);
    let path = "/apis/apps/v1/namespaces/default/deployments/web";
    let (status, headers, body) = kapi
        .raw(get(path, "application/vnd.kubernetes.protobuf"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["content-type"],
        "application/vnd.kubernetes.protobuf"
    );
    assert_eq!(&body[..4], b"k8s\0");
    let unknown = kapi_machinery::serializer::protobuf::read_unknown_message(&body[4..]).unwrap();
    let d =
        <kapi_api::apps::v1::Deployment as prost::Message>::decode(unknown.raw.as_slice()).unwrap();
    assert_eq!(d.spec.replicas, Some(2));
    assert_eq!(
        d.spec.template.spec.containers.as_ref().unwrap()[0].image,
        "nginx:1.27"
    );
    let (_, _, body) = kapi.raw(get(path, "application/json")).await;
    let from_json = json(&body);
    assert_eq!(
        from_json["metadata"]["uid"].as_str(),
        Some(d.metadata.uid.as_str())
    );
}

#[tokio::test]
async fn subresources_kapi_cannot_serve_answer_method_not_allowed() {
    let kapi = Kapi::start().await;
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "busybox"}]}});
    let manifest = write_manifest(&kapi, "pod.json", &[pod]);
    kapi.kubectl_ok(&["apply", "-f", &manifest]);
    let (status, _, body) = kapi
        .raw(get(
            "/api/v1/namespaces/default/pods/p/log",
            "application/json",
        ))
        .await;
    assert_eq!(status, 405);
    let s = json(&body);
    assert_eq!(s["reason"], "MethodNotAllowed");
    assert!(s["message"].as_str().unwrap().contains("pods/log"), "{s}");
}

/// The object a golden was created from (its `last-applied-configuration`), created on
/// kapi in namespace default and read back.
fn create_from_golden(kapi: &Kapi, name: &str, kind_path: &str) -> (Value, Value) {
    let golden = golden(&format!("{name}.json"));
    let input: Value = serde_json::from_str(
        golden["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let mut input = input;
    input["metadata"]["namespace"] = json!("default");
    let path = write_manifest(kapi, &format!("{name}-input.json"), &[input.clone()]);
    kapi.kubectl_ok(&["apply", "-f", &path]);
    let obj_name = input["metadata"]["name"].as_str().unwrap();
    let got = json(
        kapi.kubectl_ok(&["get", kind_path, obj_name, "-o", "json"])
            .as_bytes(),
    );
    (golden, got)
}

#[tokio::test]
async fn a_deployment_reads_back_with_kube_apiservers_defaults() {
    let kapi = Kapi::start().await;
    let (golden, got) = create_from_golden(&kapi, "deployment", "deployment");
    assert_eq!(got["spec"], golden["spec"]);
    assert_eq!(got["status"], json!({}));
}

#[tokio::test]
async fn a_job_reads_back_with_its_generated_selector_and_defaults() {
    let kapi = Kapi::start().await;
    let (golden, got) = create_from_golden(&kapi, "job", "job");
    let text = golden["spec"].to_string().replace(
        golden["metadata"]["uid"].as_str().unwrap(),
        got["metadata"]["uid"].as_str().unwrap(),
    );
    let want: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(got["spec"], want);
}

#[tokio::test]
async fn a_pod_reads_back_pending_with_its_defaults() {
    let kapi = Kapi::start().await;
    let (golden, got) = create_from_golden(&kapi, "pod", "pod");
    let spec = &got["spec"];
    let want = &golden["spec"];
    // What admission plugins add upstream (service account token volume, default
    // tolerations, priority) is left out: kapi has no admission yet.
    for field in [
        "restartPolicy",
        "terminationGracePeriodSeconds",
        "dnsPolicy",
        "securityContext",
        "schedulerName",
        "enableServiceLinks",
    ] {
        assert_eq!(spec[field], want[field], "spec.{field}");
    }
    let mut want_container = want["containers"][0].clone();
    want_container
        .as_object_mut()
        .unwrap()
        .remove("volumeMounts");
    assert_eq!(spec["containers"][0], want_container);
    assert_eq!(got["status"]["phase"], "Pending");
    assert_eq!(got["status"]["qosClass"], golden["status"]["qosClass"]);
}

#[tokio::test]
async fn a_service_reads_back_with_its_defaults() {
    let kapi = Kapi::start().await;
    let (golden, got) = create_from_golden(&kapi, "service", "service");
    for field in [
        "ports",
        "selector",
        "type",
        "sessionAffinity",
        "internalTrafficPolicy",
    ] {
        assert_eq!(got["spec"][field], golden["spec"][field], "spec.{field}");
    }
    assert_eq!(got["status"], golden["status"]);
}

#[tokio::test]
async fn kubectl_apply_of_a_changed_image_merges_containers_by_name() {
    let kapi = Kapi::start().await;
    let mut d = deployment("web");
    d["spec"]["template"]["spec"]["containers"][0]["env"] = json!([{"name": "A", "value": "1"}]);
    let path = write_manifest(&kapi, "web.json", &[d.clone()]);
    kapi.kubectl_ok(&["apply", "-f", &path]);
    // A controller adds a sidecar's env var; the user's next apply changes the image.
    kapi.kubectl_ok(&[
        "patch",
        "deployment",
        "web",
        "--type=strategic",
        "-p",
        r#"{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"B","value":"2"}]}]}}}}"#,
    ]);
    d["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.28");
    let path = write_manifest(&kapi, "web.json", &[d]);
    kapi.kubectl_ok(&["apply", "-f", &path]);
    let got = json(
        kapi.kubectl_ok(&["get", "deployment", "web", "-o", "json"])
            .as_bytes(),
    );
    let c = &got["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["image"], "nginx:1.28");
    assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
    let env: Vec<&str> = c["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(env, ["A", "B"], "env merged by name: {c}");
}

/// The Table of one object as kubectl asks for it.
async fn table_of(kapi: &Kapi, path: &str) -> Value {
    let accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
    let (status, _, body) = kapi.raw(get(path, accept)).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    json(&body)
}

async fn assert_table_matches_golden(
    kind_path: &str,
    golden_name: &str,
    path: &str,
    skip: &[&str],
) {
    let kapi = Kapi::start().await;
    create_from_golden(&kapi, golden_name, kind_path);
    let want = golden(&format!("{golden_name}-table.json"));
    let got = table_of(&kapi, path).await;
    assert_eq!(got["columnDefinitions"], want["columnDefinitions"]);
    let names: Vec<&str> = want["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    // The golden object's row (default also holds the `kubernetes` Service).
    let wanted = &want["rows"][0];
    let row = got["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["cells"][0] == wanted["cells"][0])
        .expect("the golden object's row");
    for (i, name) in names.iter().enumerate() {
        if *name == "Age" || skip.contains(name) {
            continue;
        }
        assert_eq!(row["cells"][i], wanted["cells"][i], "cell {name}");
    }
}

#[tokio::test]
async fn kubectl_get_pods_columns_are_kube_apiservers() {
    assert_table_matches_golden("pod", "pod", "/api/v1/namespaces/default/pods", &[]).await;
}

#[tokio::test]
async fn kubectl_get_deployments_columns_are_kube_apiservers() {
    assert_table_matches_golden(
        "deployment",
        "deployment",
        "/apis/apps/v1/namespaces/default/deployments",
        &[],
    )
    .await;
}

#[tokio::test]
async fn kubectl_get_services_columns_are_kube_apiservers() {
    // Cluster IPs are drawn at random, there as here.
    assert_table_matches_golden(
        "service",
        "service",
        "/api/v1/namespaces/default/services",
        &["Cluster-IP"],
    )
    .await;
}

#[tokio::test]
async fn a_deployment_whose_selector_misses_its_template_is_refused_and_not_stored() {
    let kapi = Kapi::start().await;
    let mut d = deployment("web");
    d["spec"]["template"]["metadata"]["labels"] = json!({"app": "other"});
    let path = write_manifest(&kapi, "bad.json", &[d]);
    let out = kapi.kubectl(&["apply", "-f", &path]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is invalid"), "{err}");
    assert!(
        err.contains("spec.template.metadata.labels: Invalid value"),
        "{err}"
    );
    assert!(
        err.contains("`selector` does not match template `labels`"),
        "{err}"
    );
    assert!(!kapi.kubectl(&["get", "deployment", "web"]).status.success());
}

#[tokio::test]
async fn a_pod_without_containers_is_refused_with_a_required_cause() {
    let kapi = Kapi::start().await;
    let client = kapi.client().await;
    let pods: Api<k8s_openapi::api::core::v1::Pod> = Api::namespaced(client, "default");
    let pod: k8s_openapi::api::core::v1::Pod =
        serde_json::from_value(json!({"metadata": {"name": "empty"}, "spec": {"containers": []}}))
            .unwrap();
    let err = pods.create(&PostParams::default(), &pod).await.unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("not an API error: {err}")
    };
    assert_eq!(status.code, 422);
    assert_eq!(status.reason, "Invalid");
    assert!(
        status.message.contains("spec.containers: Required value"),
        "{}",
        status.message
    );
    assert!(pods.get_opt("empty").await.unwrap().is_none());
}

#[tokio::test]
async fn kubectl_get_componentstatuses_reports_the_controllers_the_store_and_no_scheduler() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl(&["get", "componentstatuses", "-o", "json"]);
    assert!(out.status.success(), "{:?}", out);
    // Upstream's deprecation notice comes with every response.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("v1 ComponentStatus is deprecated in v1.19+"),
        "{err}"
    );
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let conditions: Vec<(String, Value)> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["metadata"]["name"].as_str().unwrap().to_owned(),
                i["conditions"][0].clone(),
            )
        })
        .collect();
    let names: Vec<&str> = conditions.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["controller-manager", "scheduler", "etcd-0"]);
    let healthy = json!({"type": "Healthy", "status": "True", "message": "ok"});
    assert_eq!(conditions[0].1, healthy);
    assert_eq!(conditions[1].1["status"], "False");
    assert!(
        conditions[1].1["message"]
            .as_str()
            .unwrap()
            .contains("no scheduler"),
        "{}",
        conditions[1].1
    );
    assert_eq!(conditions[2].1, healthy);
}

#[tokio::test]
async fn an_unknown_component_is_upstreams_500_component_not_found() {
    let kapi = Kapi::start().await;
    let (status, _, body) = kapi
        .raw(get("/api/v1/componentstatuses/kubelet", "application/json"))
        .await;
    assert_eq!(status, 500);
    let s = json(&body);
    assert_eq!(s["message"], "Component not found: kubelet");
    assert_eq!(s["reason"], Value::Null);
}

#[tokio::test]
async fn componentstatuses_filter_by_name_and_labels_as_upstreams_default_predicate() {
    let kapi = Kapi::start().await;
    let names = |body: &[u8]| -> Vec<String> {
        json(body)["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["metadata"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let (status, _, body) = kapi
        .raw(get(
            "/api/v1/componentstatuses?fieldSelector=metadata.name%3Detcd-0",
            "application/json",
        ))
        .await;
    assert_eq!(status, 200);
    assert_eq!(names(&body), ["etcd-0"]);
    // Components carry no labels: any label requirement filters every one out.
    let (status, _, body) = kapi
        .raw(get(
            "/api/v1/componentstatuses?labelSelector=tier",
            "application/json",
        ))
        .await;
    assert_eq!(status, 200);
    assert!(names(&body).is_empty());
}

fn column_names(table: &Value) -> Vec<&str> {
    table["columnDefinitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_completed_jobs_row_shows_complete_and_its_completions() {
    let kapi = Kapi::start().await;
    let job = json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi"},
        "spec": {"template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "pi", "image": "perl"}]}}}});
    let path = write_manifest(&kapi, "job.json", &[job]);
    kapi.kubectl_ok(&["apply", "-f", &path]);
    let status = r#"{"status": {"succeeded": 1, "startTime": "2026-01-01T00:00:00Z",
        "completionTime": "2026-01-01T00:00:42Z",
        "conditions": [{"type": "SuccessCriteriaMet", "status": "True"},
                       {"type": "Complete", "status": "True"}]}}"#;
    kapi.kubectl_ok(&[
        "patch",
        "job",
        "pi",
        "--subresource=status",
        "--type=merge",
        "-p",
        status,
    ]);
    let table = table_of(&kapi, "/apis/batch/v1/namespaces/default/jobs").await;
    assert_eq!(
        column_names(&table),
        [
            "Name",
            "Status",
            "Completions",
            "Duration",
            "Age",
            "Containers",
            "Images",
            "Selector"
        ]
    );
    let cells = &table["rows"][0]["cells"];
    assert_eq!(cells[1], "Complete");
    assert_eq!(cells[2], "1/1");
    assert_eq!(cells[3], "42s");
    assert_eq!(cells[5], "pi");
    assert!(
        cells[7]
            .as_str()
            .unwrap()
            .contains("batch.kubernetes.io/controller-uid=")
    );
}

#[tokio::test]
async fn kubectl_get_prints_each_kinds_own_columns() {
    let kapi = Kapi::start().await;
    let rb = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "ci-edit", "namespace": "default"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"},
        "subjects": [{"kind": "ServiceAccount", "name": "ci", "namespace": "default"}]});
    let path = write_manifest(&kapi, "rb.json", &[rb, deployment("web")]);
    kapi.kubectl_ok(&["apply", "-f", &path]);
    let out = kapi.kubectl_ok(&["get", "rolebindings,serviceaccounts,deploy", "-o", "wide"]);
    let lines: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let row = |first: &str| {
        lines
            .iter()
            .find(|l| l.first() == Some(&first))
            .unwrap_or_else(|| panic!("no {first} in\n{out}"))
            .clone()
    };
    assert_eq!(
        row("rolebinding.rbac.authorization.k8s.io/ci-edit")[1],
        "ClusterRole/edit"
    );
    assert_eq!(
        row("rolebinding.rbac.authorization.k8s.io/ci-edit").last(),
        Some(&"default/ci")
    );
    assert_eq!(row("serviceaccount/default")[1], "0");
    assert!(
        out.contains("ROLE") && out.contains("SERVICEACCOUNTS"),
        "{out}"
    );
    assert!(out.contains("UP-TO-DATE"), "{out}");
}

#[tokio::test]
async fn roles_keep_kubes_default_name_and_created_at_table() {
    let kapi = Kapi::start().await;
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "reader", "namespace": "default"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]});
    let path = write_manifest(&kapi, "role.json", &[role]);
    kapi.kubectl_ok(&["apply", "-f", &path]);
    let table = table_of(
        &kapi,
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
    )
    .await;
    assert_eq!(column_names(&table), ["Name", "Created At"]);
}

#[tokio::test]
async fn kubectl_get_componentstatuses_prints_status_message_and_error() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&["get", "componentstatuses"]);
    let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "STATUS", "MESSAGE", "ERROR"]);
    let etcd = out.lines().find(|l| l.starts_with("etcd-0")).unwrap();
    assert_eq!(
        etcd.split_whitespace().collect::<Vec<_>>(),
        ["etcd-0", "Healthy", "ok"]
    );
}

/// What `kubectl api-resources -o wide` prints against kube-apiserver 1.36.2: kubectl run
/// against a plain-HTTP stand-in that answers `/api` and `/apis` with the aggregated
/// discovery kube-apiserver served (`discovery-1.36.json`), so kubectl's own printing makes
/// the expected text.
async fn kubectl_api_resources_of_kube_apiserver(dir: &std::path::Path) -> String {
    use axum::routing::get as route_get;
    let doc = golden("discovery-1.36.json");
    let answer = |body: String| {
        move || async move {
            (
                [(http::header::CONTENT_TYPE, AGGREGATED)],
                body.clone().into_bytes(),
            )
        }
    };
    let app = axum::Router::new()
        .route("/api", route_get(answer(doc["/api"].to_string())))
        .route("/apis", route_get(answer(doc["/apis"].to_string())));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let cache = dir.join("stand-in-cache");
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("kubectl")
            .env("KUBECONFIG", "/nonexistent")
            .args(["--server", &format!("http://{addr}"), "--cache-dir"])
            .arg(&cache)
            .args(["api-resources", "-o", "wide"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    server.abort();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `kubectl api-resources -o wide` prints on kapi, line for line, what it prints on
/// kube-apiserver 1.36.2 — names, short names, versions, scope, kinds, verbs, categories —
/// once kapi's own groups (kapi.dev, storagemigration.k8s.io) are left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_api_resources_prints_what_it_prints_on_kube_apiserver() {
    let kapi = Kapi::start().await;
    let want = kubectl_api_resources_of_kube_apiserver(kapi.dir.path()).await;
    let got = kapi.kubectl_ok(&["api-resources", "-o", "wide"]);
    let upstream_versions: Vec<String> = want
        .lines()
        .skip(1)
        .filter_map(|l| {
            l.split_whitespace()
                .find(|w| w.contains("/v") || *w == "v1")
        })
        .map(str::to_owned)
        .collect();
    let kept: Vec<&str> = got
        .lines()
        .enumerate()
        .filter(|(i, l)| {
            *i == 0
                || l.split_whitespace()
                    .any(|w| upstream_versions.iter().any(|v| v == w))
        })
        .map(|(_, l)| l)
        .collect();
    let want: Vec<&str> = want.lines().collect();
    assert!(
        want.len() > 67,
        "the stand-in's resources and the header:\n{want:?}"
    );
    assert_eq!(
        kept.len(),
        want.len(),
        "kapi:\n{got}\nkube:\n{}",
        want.join("\n")
    );
    for (g, w) in kept.iter().zip(&want) {
        // Column widths follow the longest cell, which kapi's extra groups may widen.
        assert_eq!(
            g.split_whitespace().collect::<Vec<_>>(),
            w.split_whitespace().collect::<Vec<_>>(),
        );
    }
}
