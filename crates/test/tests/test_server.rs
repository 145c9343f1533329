//! The in-process test server: it answers as admin once `start` returns, installs CRDs
//! from files before handing out the client, reaches a conversion webhook that the test
//! serves itself through the CRD's `service` reference, runs on etcd, runs side by side with
//! others, and stops.

use axum::Json;
use axum::body::Bytes;
use axum::routing::post;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kapi_test::TestServer;
use kapi_testsupport::certs::{Certs, make_certs};
use kapi_testsupport::widget_webhook::widget_crd;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

fn configmap(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {"k": "v"}})).unwrap()
}

#[tokio::test]
async fn a_started_server_answers_as_admin_at_once() {
    let server = TestServer::start().await.unwrap();
    let namespaces: Api<Namespace> = Api::all(server.client());
    assert!(namespaces.get("default").await.is_ok());
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(&PostParams::default(), &configmap("a"))
        .await
        .unwrap();
    assert!(server.url().starts_with("https://127.0.0.1:"));
    assert!(server.kubeconfig_path().exists());
    server.stop().await;
}

#[tokio::test]
async fn two_servers_run_side_by_side_with_their_own_stores() {
    let (a, b) = tokio::join!(TestServer::start(), TestServer::start());
    let (a, b) = (a.unwrap(), b.unwrap());
    let in_a: Api<ConfigMap> = Api::namespaced(a.client(), "default");
    let in_b: Api<ConfigMap> = Api::namespaced(b.client(), "default");
    in_a.create(&PostParams::default(), &configmap("only-in-a"))
        .await
        .unwrap();
    assert!(in_b.get("only-in-a").await.is_err());
    assert_ne!(a.url(), b.url());
}

#[tokio::test]
async fn a_stopped_server_no_longer_answers() {
    let server = TestServer::start().await.unwrap();
    let client = server.client();
    server.stop().await;
    let namespaces: Api<Namespace> = Api::all(client);
    assert!(namespaces.get("default").await.is_err());
}

/// Serves `router` over HTTPS on a free loopback port with a certificate for
/// `widgets.webhooks.svc` (and localhost); its address and the certificates.
async fn serve_webhook(router: axum::Router) -> (std::net::SocketAddr, Certs) {
    kapi_webhook::tls::install_crypto_provider();
    let certs = make_certs();
    let config = kapi_webhook::tls::server_config_from_pem(
        certs.cert_pem.as_bytes(),
        certs.key_pem.as_bytes(),
    )
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(kapi_webhook::tls::serve_tls(
        listener,
        config,
        router,
        std::future::pending(),
    ));
    (addr, certs)
}

/// Widget conversion as the example webhook does it: v1alpha1 `spec.label` is v1beta1
/// `spec.displayName`.
async fn convert(body: Bytes) -> Json<Value> {
    let review: Value = serde_json::from_slice(&body).unwrap();
    let request = &review["request"];
    let desired = request["desiredAPIVersion"].as_str().unwrap().to_owned();
    let (from, to) = if desired.ends_with("v1beta1") {
        ("label", "displayName")
    } else {
        ("displayName", "label")
    };
    let converted: Vec<Value> = request["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let mut o = o.clone();
            o["apiVersion"] = json!(desired);
            if let Some(spec) = o["spec"].as_object_mut()
                && let Some(v) = spec.remove(from)
            {
                spec.insert(to.to_owned(), v);
            }
            o
        })
        .collect();
    Json(
        json!({"apiVersion": review["apiVersion"], "kind": "ConversionReview",
        "response": {"uid": request["uid"], "result": {"status": "Success"},
            "convertedObjects": converted}}),
    )
}

#[tokio::test]
async fn a_crd_file_is_served_and_its_webhook_in_this_process_reached_by_service() {
    // The conversion webhook, served by this test over HTTPS.
    let (addr, certs) = serve_webhook(axum::Router::new().route("/convert", post(convert))).await;
    // The CRD manifest names the webhook as a Service, as an operator's manifests do.
    let mut crd = widget_crd(json!({"strategy": "Webhook", "webhook": {
        "conversionReviewVersions": ["v1"],
        "clientConfig": {"caBundle": certs.ca_bundle(),
            "service": {"namespace": "webhooks", "name": "widgets", "path": "/convert"}}}}));
    crd["metadata"] = json!({"name": "widgets.golden.example.com"});
    crd.as_object_mut().unwrap().remove("status");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("crds.yaml");
    std::fs::write(&file, format!("# the CRDs\n---\n{crd}\n")).unwrap();
    let server = TestServer::builder()
        .crd_file(&file)
        .webhook_service("webhooks", "widgets", addr)
        .start()
        .await
        .unwrap();
    let alpha = kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
        "golden.example.com",
        "v1alpha1",
        "Widget",
    ));
    let beta = kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
        "golden.example.com",
        "v1beta1",
        "Widget",
    ));
    let widgets: Api<kube::api::DynamicObject> =
        Api::namespaced_with(server.client(), "default", &alpha);
    let w: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": "w1"}, "spec": {"label": "hello"}}))
    .unwrap();
    widgets.create(&PostParams::default(), &w).await.unwrap();
    let as_beta: Api<kube::api::DynamicObject> =
        Api::namespaced_with(server.client(), "default", &beta);
    let got = as_beta.get("w1").await.unwrap();
    assert_eq!(got.data["spec"]["displayName"], "hello");
}

/// A validating admission webhook: refuses ConfigMaps with a `forbidden` key.
async fn validate(body: Bytes) -> Json<Value> {
    let review: Value = serde_json::from_slice(&body).unwrap();
    let request = &review["request"];
    let forbidden = request["object"]["data"].get("forbidden").is_some();
    let mut response = json!({"uid": request["uid"], "allowed": !forbidden});
    if forbidden {
        response["status"] = json!({"code": 403, "message": "the key forbidden is not allowed"});
    }
    Json(
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "response": response}),
    )
}

#[tokio::test]
async fn an_admission_webhook_in_this_process_is_reached_by_service() {
    let (addr, certs) = serve_webhook(axum::Router::new().route("/validate", post(validate))).await;
    let server = TestServer::builder()
        .webhook_service("webhooks", "widgets", addr)
        .start()
        .await
        .unwrap();
    let hook = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "guard"},
        "webhooks": [{"name": "guard.example.com", "sideEffects": "None",
            "admissionReviewVersions": ["v1"], "failurePolicy": "Fail",
            "clientConfig": {"caBundle": certs.ca_bundle(),
                "service": {"namespace": "webhooks", "name": "widgets", "path": "/validate"}},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                "resources": ["configmaps"]}]}]});
    let req = http::Request::post(
        "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
    )
    .header("content-type", "application/json")
    .body(hook.to_string().into_bytes())
    .unwrap();
    server.client().request_text(req).await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let mut refused = configmap("refused");
    refused.data = Some([("forbidden".to_owned(), "x".to_owned())].into());
    let err = cms
        .create(&PostParams::default(), &refused)
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("not an API error: {err}")
    };
    assert_eq!(status.code, 403, "{}", status.message);
    assert!(
        status.message.contains("the key forbidden is not allowed"),
        "{}",
        status.message
    );
    assert!(cms.get_opt("refused").await.unwrap().is_none());
    cms.create(&PostParams::default(), &configmap("allowed"))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_server_on_etcd_keeps_its_objects_there() {
    let etcd = kapi_testsupport::etcd::EtcdProcess::start().await;
    let server = TestServer::builder()
        .etcd(&[etcd.client_url.as_str()])
        .start()
        .await
        .unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(&PostParams::default(), &configmap("in-etcd"))
        .await
        .unwrap();
    let mut client = etcd_client::Client::connect([etcd.client_url.as_str()], None)
        .await
        .unwrap();
    let kv = client
        .get("/registry/configmaps/default/in-etcd", None)
        .await
        .unwrap();
    assert_eq!(kv.kvs().len(), 1);
}

#[tokio::test]
async fn an_unknown_controller_name_is_an_error() {
    let err = TestServer::builder()
        .controllers(&["*", "-no-such-controller"])
        .start()
        .await
        .err()
        .unwrap();
    assert!(err.to_string().contains("no-such-controller"), "{err}");
}
