//! The admission e2e tests' webhook server and helpers: a real HTTPS server of the test's
//! own with one path per behaviour (deny, label, slow, warn, record, and the broken answers
//! of the bad-input tests), and registration of webhook configurations and policies on a
//! kapi-test server.

#![allow(dead_code)]

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use base64::Engine;
use k8s_openapi::api::core::v1::ConfigMap;
use kapi_test::TestServer;
use kapi_testsupport::certs::{Certs, make_certs};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The requests a webhook server received: (path, AdmissionReview).
pub type Received = Arc<Mutex<Vec<(String, Value)>>>;

/// The test's webhook server.
pub struct Webhooks {
    /// `https://127.0.0.1:<port>`.
    pub url: String,
    /// Its certificate and CA.
    pub certs: Certs,
    /// Every review it received.
    pub received: Received,
}

/// An AdmissionReview answer of the request's version with `response` and its uid.
pub fn answer(review: &Value, response: Value) -> Json<Value> {
    let mut response = response;
    response["uid"] = review["request"]["uid"].clone();
    Json(
        json!({"apiVersion": review["apiVersion"].clone(), "kind": "AdmissionReview",
        "response": response}),
    )
}

fn patch_of(ops: Value) -> String {
    base64::engine::general_purpose::STANDARD.encode(ops.to_string())
}

/// A JSON patch adding `key: value` to the object's labels (creating the map if need be).
pub fn add_label(review: &Value, key: &str, value: &str) -> Value {
    if review["request"]["object"]["metadata"]["labels"].is_object() {
        json!([{"op": "add", "path": format!("/metadata/labels/{key}"), "value": value}])
    } else {
        json!([{"op": "add", "path": "/metadata/labels", "value": {key: value}}])
    }
}

fn patched(review: &Value, ops: Value) -> Json<Value> {
    answer(
        review,
        json!({"allowed": true, "patchType": "JSONPatch", "patch": patch_of(ops)}),
    )
}

async fn handle(
    State(received): State<Received>,
    path: axum::extract::OriginalUri,
    body: Bytes,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let review: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let path = path.path().to_owned();
    if let Ok(mut r) = received.lock() {
        r.push((path.clone(), review.clone()));
    }
    let obj = &review["request"]["object"];
    match path.as_str() {
        // Refuses objects labelled `deny` with 422 and a message.
        "/deny" if obj["metadata"]["labels"].get("deny").is_some() => answer(
            &review,
            json!({"allowed": false, "status": {"code": 422, "message": "objects labelled deny are refused"}}),
        )
        .into_response(),
        // Refuses to let go of objects labelled `keep` (a DELETE's object is its oldObject).
        "/keep" if review["request"]["oldObject"]["metadata"]["labels"].get("keep").is_some() => {
            answer(
                &review,
                json!({"allowed": false, "status": {"message": "objects labelled keep stay"}}),
            )
            .into_response()
        }
        // Adds the label `mutated: yes`.
        "/label" => patched(&review, add_label(&review, "mutated", "yes")).into_response(),
        // Answers after 3 s.
        "/slow" => {
            tokio::time::sleep(Duration::from_secs(3)).await;
            answer(&review, json!({"allowed": true})).into_response()
        }
        // Allows, with two warnings.
        "/warn" => answer(
            &review,
            json!({"allowed": true, "warnings": ["configmaps are watched by the test", "a second warning"]}),
        )
        .into_response(),
        // Labels `first-saw-second` with whether the `second` label was there.
        "/first" => {
            let saw = obj["metadata"]["labels"].get("second").is_some();
            patched(&review, add_label(&review, "first-saw-second", &saw.to_string())).into_response()
        }
        // Adds the label `mutated: yes` with no patchType (as a v1beta1 webhook may).
        "/label-untyped" => answer(
            &review,
            json!({"allowed": true, "patch": patch_of(add_label(&review, "mutated", "yes"))}),
        )
        .into_response(),
        // Adds the label `second: yes`.
        "/second" => patched(&review, add_label(&review, "second", "yes")).into_response(),
        // Caps `spec.replicas` at 2.
        "/cap-replicas" => patched(
            &review,
            json!([{"op": "replace", "path": "/spec/replicas", "value": 2}]),
        )
        .into_response(),
        // Answers with another uid.
        "/wrong-uid" => Json(json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "response": {"uid": "not-the-uid", "allowed": true}}))
        .into_response(),
        // Answers in an AdmissionReview version that does not exist.
        "/wrong-version" => {
            let mut a = answer(&review, json!({"allowed": true})).0;
            a["apiVersion"] = json!("admission.k8s.io/v9");
            Json(a).into_response()
        }
        // Answers an AdmissionReview without a response.
        "/absent" => Json(json!({"apiVersion": review["apiVersion"].clone(), "kind": "AdmissionReview"}))
            .into_response(),
        // Answers with a 10 MB body.
        "/huge" => {
            let mut a = answer(&review, json!({"allowed": true})).0;
            a["response"]["padding"] = json!("x".repeat(10 * 1024 * 1024));
            Json(a).into_response()
        }
        // Answers with something that is not JSON.
        "/garbage" => "this is not an AdmissionReview".into_response(),
        // Sets `spec.replicas` to a string (against a widget's schema).
        "/break-schema" => patched(
            &review,
            json!([{"op": "add", "path": "/spec/replicas", "value": "many"}]),
        )
        .into_response(),
        _ => answer(&review, json!({"allowed": true})).into_response(),
    }
}

impl Webhooks {
    /// Starts the server on a free loopback port.
    pub async fn start() -> Self {
        kapi_webhook::tls::install_crypto_provider();
        let certs = make_certs();
        let config = kapi_webhook::tls::server_config_from_pem(
            certs.cert_pem.as_bytes(),
            certs.key_pem.as_bytes(),
        )
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let received = Received::default();
        let router = axum::Router::new()
            .fallback(post(handle))
            .with_state(received.clone());
        tokio::spawn(kapi_webhook::tls::serve_tls(
            listener,
            config,
            router,
            std::future::pending(),
        ));
        Self {
            url: format!("https://127.0.0.1:{port}"),
            certs,
            received,
        }
    }

    /// A server address nothing listens on.
    pub fn dead() -> Self {
        Self {
            url: "https://127.0.0.1:1".into(),
            certs: make_certs(),
            received: Received::default(),
        }
    }

    /// A webhook on configmaps CREATE calling `path`, with `extra` fields.
    pub fn hook(&self, name: &str, path: &str, extra: Value) -> Value {
        let mut hook = json!({"name": name, "admissionReviewVersions": ["v1"],
            "sideEffects": "None", "timeoutSeconds": 1,
            "clientConfig": {"url": format!("{}{path}", self.url), "caBundle": self.certs.ca_bundle()},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"],
                "resources": ["configmaps"]}]});
        if let (Some(h), Some(e)) = (hook.as_object_mut(), extra.as_object()) {
            h.extend(e.clone());
        }
        hook
    }

    /// The reviews received on `path`.
    pub fn received_on(&self, path: &str) -> Vec<Value> {
        self.received
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| p == path)
            .map(|(_, r)| r.clone())
            .collect()
    }
}

/// `extra` for [`Webhooks::hook`]: rules on configmaps for `operations`.
pub fn on_configmaps(operations: &[&str]) -> Value {
    json!({"rules": [{"operations": operations, "apiGroups": [""], "apiVersions": ["v1"],
        "resources": ["configmaps"]}]})
}

/// POSTs `obj` to an admissionregistration.k8s.io/v1 collection; the error's text when
/// it is refused.
pub async fn create_config(
    server: &TestServer,
    plural: &str,
    obj: &Value,
) -> Result<Value, String> {
    let req = http::Request::post(format!("/apis/admissionregistration.k8s.io/v1/{plural}"))
        .header("content-type", "application/json")
        .body(obj.to_string().into_bytes())
        .unwrap();
    match server.client().request::<Value>(req).await {
        Ok(v) => Ok(v),
        Err(kube::Error::Api(s)) => Err(serde_json::to_string(&s).unwrap()),
        Err(e) => Err(e.to_string()),
    }
}

/// The admission configurations and policies are read from watch caches: a write made
/// right after registering one may not see it yet.
pub async fn settle() {
    tokio::time::sleep(Duration::from_millis(300)).await;
}

/// Registers a configuration of `kind` named after its first webhook, with `hooks`.
pub async fn register_all(server: &TestServer, kind: &str, hooks: Vec<Value>) {
    let plural = format!("{}s", kind.to_lowercase());
    let config = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
        "metadata": {"name": hooks[0]["name"].as_str().unwrap()}, "webhooks": hooks});
    create_config(server, &plural, &config).await.unwrap();
    settle().await;
}

/// Registers a configuration of `kind` with one webhook.
pub async fn register(server: &TestServer, kind: &str, hook: Value) {
    register_all(server, kind, vec![hook]).await;
}

/// A ConfigMap with `labels`.
pub fn configmap(name: &str, labels: Value) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap()
}

/// Creates the ConfigMap `name` (with `labels`) in `default`, which admission must refuse:
/// the refusal's Status, once it is checked that nothing was stored.
pub async fn refused_configmap(
    server: &TestServer,
    name: &str,
    labels: Value,
) -> kube::core::Status {
    let cms: kube::Api<ConfigMap> = kube::Api::namespaced(server.client(), "default");
    let err = cms
        .create(&kube::api::PostParams::default(), &configmap(name, labels))
        .await
        .expect_err("admission lets the write through");
    assert!(
        cms.get_opt(name).await.unwrap().is_none(),
        "{name} was stored"
    );
    api_error(err)
}

/// The Status of an API error.
pub fn api_error(e: kube::Error) -> kube::core::Status {
    match e {
        kube::Error::Api(s) => *s,
        other => panic!("not an API error: {other:?}"),
    }
}

/// Runs kubectl against the server off the runtime (the server runs on it);
/// (success, stdout, stderr).
pub async fn kubectl(
    server: &TestServer,
    args: &[&str],
    stdin: Option<&str>,
) -> (bool, String, String) {
    let kubeconfig = server.kubeconfig_path().to_owned();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let stdin = stdin.map(str::to_owned);
    tokio::task::spawn_blocking(move || run_kubectl(&kubeconfig, &args, stdin.as_deref()))
        .await
        .unwrap()
}

fn run_kubectl(
    kubeconfig: &std::path::Path,
    args: &[String],
    stdin: Option<&str>,
) -> (bool, String, String) {
    use std::io::Write;
    let mut cmd = std::process::Command::new("kubectl");
    cmd.arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("kubectl runs");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
