//! Services as kube-apiserver keeps them (issue 13): cluster IPs from
//! `--service-cluster-ip-range`, each held by an IPAddress object; node ports from
//! `--service-node-port-range`; the `kubernetes` Service on the range's first address;
//! and kube's Service validation (a duplicate port is a 422, nothing stored). Also the
//! ConfigMap and Secret rules and the pod field selectors, driven by kubectl and raw HTTPS.

mod e2e_support;

use e2e_support::{Kapi, json};
use kapi_testsupport::etcd::EtcdProcess;
use serde_json::{Value, json};
use std::net::Ipv4Addr;

async fn send(kapi: &Kapi, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
    let req = http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(body.map(|b| b.to_string().into_bytes()).unwrap_or_default())
        .unwrap();
    let (code, _, bytes) = kapi.raw(req).await;
    (code, json(&bytes))
}

const SERVICES: &str = "/api/v1/namespaces/default/services";

fn service(name: &str, spec: Value) -> Value {
    let mut spec = spec;
    if spec.get("ports").is_none() {
        spec["ports"] = json!([{"name": "http", "port": 80, "targetPort": 8080}]);
    }
    json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": name, "namespace": "default"}, "spec": spec})
}

fn ip(svc: &Value) -> Ipv4Addr {
    svc["spec"]["clusterIP"].as_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_service_gets_a_cluster_ip_held_by_an_ipaddress_until_it_is_deleted() {
    let kapi = Kapi::start().await;
    let (code, svc) = send(&kapi, "POST", SERVICES, Some(&service("web", json!({})))).await;
    assert_eq!(code, 201, "{svc}");
    let addr = ip(&svc);
    // The dynamic band of 10.0.0.0/24: above the 16 addresses kept for chosen ones.
    assert!((17..=254).contains(&addr.octets()[3]) && addr.octets()[..3] == [10, 0, 0]);
    assert_eq!(svc["spec"]["clusterIPs"], json!([addr.to_string()]));
    assert_eq!(svc["spec"]["ipFamilies"], json!(["IPv4"]));
    assert_eq!(svc["spec"]["ipFamilyPolicy"], "SingleStack");
    let path = format!("/apis/networking.k8s.io/v1/ipaddresses/{addr}");
    let (code, held) = send(&kapi, "GET", &path, None).await;
    assert_eq!(code, 200, "{held}");
    assert_eq!(
        held["spec"]["parentRef"],
        // `group` is omitempty upstream: the core group leaves it out.
        json!({"resource": "services", "namespace": "default", "name": "web"})
    );
    assert_eq!(
        held["metadata"]["labels"]["ipaddress.kubernetes.io/managed-by"],
        "ipallocator.k8s.io"
    );
    let (code, _) = send(&kapi, "DELETE", &format!("{SERVICES}/web"), None).await;
    assert_eq!(code, 200);
    let (code, _) = send(&kapi, "GET", &path, None).await;
    assert_eq!(code, 404, "the address is given back with the Service");
}

#[tokio::test]
async fn the_kubernetes_service_holds_the_first_address_of_the_range() {
    let kapi = Kapi::start().await;
    let svc: Value =
        serde_json::from_str(&kapi.kubectl_ok(&["get", "service", "kubernetes", "-o", "json"]))
            .unwrap();
    assert_eq!(svc["spec"]["clusterIP"], "10.0.0.1");
    assert_eq!(svc["spec"]["ports"][0]["name"], "https");
    assert_eq!(svc["spec"]["ports"][0]["port"], 443);
    assert_eq!(svc["metadata"]["labels"]["component"], "apiserver");
    let port: u16 = kapi.url.rsplit(':').next().unwrap().parse().unwrap();
    assert_eq!(svc["spec"]["ports"][0]["targetPort"], port);
    let ep: Value =
        serde_json::from_str(&kapi.kubectl_ok(&["get", "endpoints", "kubernetes", "-o", "json"]))
            .unwrap();
    assert_eq!(ep["subsets"][0]["addresses"][0]["ip"], "127.0.0.1");
    assert_eq!(ep["subsets"][0]["ports"][0]["port"], port);
    let cidr: Value = serde_json::from_str(&kapi.kubectl_ok(&[
        "get",
        "servicecidrs",
        "kubernetes",
        "-o",
        "json",
    ]))
    .unwrap();
    assert_eq!(cidr["spec"]["cidrs"], json!(["10.0.0.0/24"]));
    assert_eq!(cidr["status"]["conditions"][0]["type"], "Ready");
}

#[tokio::test]
async fn the_service_cluster_ip_range_flag_moves_every_address() {
    let kapi = Kapi::start_with(&["--service-cluster-ip-range", "10.96.0.0/16"]).await;
    let out = kapi.kubectl_ok(&[
        "get",
        "service",
        "kubernetes",
        "-o",
        "jsonpath={.spec.clusterIP}",
    ]);
    assert_eq!(out.trim(), "10.96.0.1");
    let (_, svc) = send(&kapi, "POST", SERVICES, Some(&service("web", json!({})))).await;
    assert_eq!(ip(&svc).octets()[..2], [10, 96], "{svc}");
}

#[tokio::test]
async fn a_chosen_cluster_ip_that_is_taken_or_outside_the_range_is_refused() {
    let kapi = Kapi::start().await;
    let taken = service("taken", json!({"clusterIP": "10.0.0.1"}));
    let (code, status) = send(&kapi, "POST", SERVICES, Some(&taken)).await;
    assert_eq!(code, 422, "{status}");
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(
        status["details"]["causes"][0]["message"],
        "Invalid value: [\"10.0.0.1\"]: failed to allocate IP 10.0.0.1: provided IP is already allocated"
    );
    let outside = service("outside", json!({"clusterIP": "192.168.0.9"}));
    let (code, status) = send(&kapi, "POST", SERVICES, Some(&outside)).await;
    assert_eq!(code, 422);
    let message = status["details"]["causes"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("The range of valid IPs is 10.0.0.0/24"),
        "{message}"
    );
    for name in ["taken", "outside"] {
        let (code, _) = send(&kapi, "GET", &format!("{SERVICES}/{name}"), None).await;
        assert_eq!(code, 404);
    }
    let free = service("chosen", json!({"clusterIP": "10.0.0.5"}));
    let (code, svc) = send(&kapi, "POST", SERVICES, Some(&free)).await;
    assert_eq!((code, ip(&svc)), (201, Ipv4Addr::new(10, 0, 0, 5)));
}

#[tokio::test]
async fn a_node_port_is_allocated_kept_across_updates_and_never_shared() {
    let kapi = Kapi::start().await;
    let np = service("np", json!({"type": "NodePort"}));
    let (code, svc) = send(&kapi, "POST", SERVICES, Some(&np)).await;
    assert_eq!(code, 201, "{svc}");
    let port = svc["spec"]["ports"][0]["nodePort"].as_i64().unwrap();
    assert!((30000..=32767).contains(&port));
    // A PUT that leaves nodePort and clusterIP out keeps both (what kubectl apply sends).
    let mut again = np.clone();
    again["metadata"]["labels"] = json!({"changed": "yes"});
    let (code, updated) = send(&kapi, "PUT", &format!("{SERVICES}/np"), Some(&again)).await;
    assert_eq!(code, 200, "{updated}");
    assert_eq!(updated["spec"]["ports"][0]["nodePort"], port);
    assert_eq!(updated["spec"]["clusterIP"], svc["spec"]["clusterIP"]);
    let mut clash = service("clash", json!({"type": "NodePort"}));
    clash["spec"]["ports"][0]["nodePort"] = json!(port);
    let (code, status) = send(&kapi, "POST", SERVICES, Some(&clash)).await;
    assert_eq!(code, 422, "{status}");
    assert_eq!(
        status["details"]["causes"][0]["field"],
        "spec.ports[0].nodePort"
    );
    assert_eq!(
        status["details"]["causes"][0]["message"],
        format!("Invalid value: {port}: provided port is already allocated")
    );
    // Going back to ClusterIP gives the port back; the other Service can take it now.
    let mut cluster_ip = updated.clone();
    cluster_ip["spec"]["type"] = json!("ClusterIP");
    cluster_ip["spec"]["ports"][0]
        .as_object_mut()
        .unwrap()
        .remove("nodePort");
    cluster_ip["spec"]
        .as_object_mut()
        .unwrap()
        .remove("externalTrafficPolicy");
    let (code, body) = send(&kapi, "PUT", &format!("{SERVICES}/np"), Some(&cluster_ip)).await;
    assert_eq!(code, 200, "{body}");
    let (code, body) = send(&kapi, "POST", SERVICES, Some(&clash)).await;
    assert_eq!(code, 201, "{body}");
}

#[tokio::test]
async fn a_service_with_a_duplicate_port_is_refused_and_not_stored() {
    let kapi = Kapi::start().await;
    let dup = service(
        "dup",
        json!({"ports": [{"name": "a", "port": 80}, {"name": "b", "port": 80}]}),
    );
    let (code, status) = send(&kapi, "POST", SERVICES, Some(&dup)).await;
    assert_eq!(code, 422, "{status}");
    let cause = &status["details"]["causes"][0];
    assert_eq!(cause["reason"], "FieldValueDuplicate");
    assert_eq!(cause["field"], "spec.ports[1]");
    assert!(
        cause["message"]
            .as_str()
            .unwrap()
            .starts_with("Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\""),
        "{cause}"
    );
    let (code, _) = send(&kapi, "GET", &format!("{SERVICES}/dup"), None).await;
    assert_eq!(code, 404);
    // Its address was given back: only the kubernetes Service's is held.
    let (_, list) = send(&kapi, "GET", "/apis/networking.k8s.io/v1/ipaddresses", None).await;
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["10.0.0.1"]);
}

#[tokio::test]
async fn a_cluster_ip_cannot_change_once_set() {
    let kapi = Kapi::start().await;
    let (_, svc) = send(&kapi, "POST", SERVICES, Some(&service("web", json!({})))).await;
    let mut moved = svc.clone();
    moved["spec"]["clusterIP"] = json!("10.0.0.9");
    moved["spec"]["clusterIPs"] = json!(["10.0.0.9"]);
    let (code, status) = send(&kapi, "PUT", &format!("{SERVICES}/web"), Some(&moved)).await;
    assert_eq!(code, 422, "{status}");
    assert_eq!(
        status["details"]["causes"][0]["field"],
        "spec.clusterIPs[0]"
    );
    let (_, now) = send(&kapi, "GET", &format!("{SERVICES}/web"), None).await;
    assert_eq!(now["spec"]["clusterIP"], svc["spec"]["clusterIP"]);
}

#[tokio::test]
async fn cluster_ips_are_allocated_on_etcd_too() {
    let etcd = EtcdProcess::start().await;
    let kapi = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    let (code, a) = send(&kapi, "POST", SERVICES, Some(&service("a", json!({})))).await;
    assert_eq!(code, 201, "{a}");
    let (_, b) = send(&kapi, "POST", SERVICES, Some(&service("b", json!({})))).await;
    assert_ne!(ip(&a), ip(&b));
    let taken = service("c", json!({"clusterIP": ip(&a).to_string()}));
    let (code, _) = send(&kapi, "POST", SERVICES, Some(&taken)).await;
    assert_eq!(code, 422);
}

#[tokio::test]
async fn a_secrets_string_data_is_stored_as_base64_data() {
    let kapi = Kapi::start().await;
    let secret = json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "s", "namespace": "default"},
        "stringData": {"password": "hunter2"}});
    let (code, stored) = send(
        &kapi,
        "POST",
        "/api/v1/namespaces/default/secrets",
        Some(&secret),
    )
    .await;
    assert_eq!(code, 201, "{stored}");
    assert_eq!(stored["data"]["password"], "aHVudGVyMg==");
    assert!(stored.get("stringData").is_none());
    assert_eq!(stored["type"], "Opaque");
}

#[tokio::test]
async fn an_immutable_config_map_refuses_a_data_change() {
    let kapi = Kapi::start().await;
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "frozen", "namespace": "default"},
        "immutable": true, "data": {"k": "v"}});
    let path = "/api/v1/namespaces/default/configmaps";
    let (code, _) = send(&kapi, "POST", path, Some(&cm)).await;
    assert_eq!(code, 201);
    let out = kapi.kubectl(&[
        "patch",
        "configmap",
        "frozen",
        "-p",
        r#"{"data":{"k":"w"}}"#,
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("data: Forbidden: field is immutable when `immutable` is set"),
        "{err}"
    );
    let (_, now) = send(&kapi, "GET", &format!("{path}/frozen"), None).await;
    assert_eq!(now["data"], json!({"k": "v"}));
}

#[tokio::test]
async fn pods_are_selected_by_node_name_and_an_unknown_field_label_is_a_400() {
    let kapi = Kapi::start().await;
    let path = "/api/v1/namespaces/default/pods";
    for (name, node) in [("a", "n1"), ("b", "n2")] {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]}});
        let (code, body) = send(&kapi, "POST", path, Some(&pod)).await;
        assert_eq!(code, 201, "{body}");
    }
    let out = kapi.kubectl_ok(&[
        "get",
        "pods",
        "--field-selector",
        "spec.nodeName=n2,status.phase=Pending",
        "-o",
        "name",
    ]);
    assert_eq!(out.trim(), "pod/b");
    let (code, status) = send(
        &kapi,
        "GET",
        &format!("{path}?fieldSelector=spec.foo%3Dx"),
        None,
    )
    .await;
    assert_eq!(code, 400);
    assert_eq!(status["message"], "field label not supported: spec.foo");
}
