//! Admission webhooks end to end (issue 14, first step): real HTTPS webhooks served by the
//! test, registered with Mutating- and ValidatingWebhookConfigurations on kapi-test's
//! server and reached by kube-rs writes: a mutating webhook's JSONPatch is stored, a
//! validating webhook's denial is the client's error with its message and code, nothing is
//! stored; failurePolicy Ignore and Fail on a dead webhook, a timeout, objectSelector, and
//! dryRun against a webhook with side effects.

use axum::Json;
use axum::body::Bytes;
use axum::routing::post;
use base64::Engine;
use k8s_openapi::api::core::v1::ConfigMap;
use kapi_test::TestServer;
use kapi_testsupport::certs::{Certs, make_certs};
use kube::api::{Api, PostParams};
use serde_json::{Value, json};
use std::time::Duration;

/// The test's webhook server: `/deny` refuses objects labelled `deny` (422, a message),
/// `/label` adds the label `mutated: "yes"`, `/slow` answers after 3 s.
struct Webhooks {
    url: String,
    certs: Certs,
}

fn answer(review: &Value, response: Value) -> Json<Value> {
    let mut response = response;
    response["uid"] = review["request"]["uid"].clone();
    Json(
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "response": response}),
    )
}

async fn deny(body: Bytes) -> Json<Value> {
    let review: Value = serde_json::from_slice(&body).unwrap();
    let obj = &review["request"]["object"];
    if obj["metadata"]["labels"].get("deny").is_some() {
        return answer(
            &review,
            json!({"allowed": false, "status": {"code": 422, "message": "objects labelled deny are refused"}}),
        );
    }
    answer(&review, json!({"allowed": true}))
}

async fn label(body: Bytes) -> Json<Value> {
    let review: Value = serde_json::from_slice(&body).unwrap();
    let has_labels = review["request"]["object"]["metadata"]["labels"].is_object();
    let patch = if has_labels {
        json!([{"op": "add", "path": "/metadata/labels/mutated", "value": "yes"}])
    } else {
        json!([{"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}}])
    };
    let patch = base64::engine::general_purpose::STANDARD.encode(patch.to_string());
    answer(
        &review,
        json!({"allowed": true, "patchType": "JSONPatch", "patch": patch}),
    )
}

async fn slow(body: Bytes) -> Json<Value> {
    tokio::time::sleep(Duration::from_secs(3)).await;
    let review: Value = serde_json::from_slice(&body).unwrap();
    answer(&review, json!({"allowed": true}))
}

impl Webhooks {
    async fn start() -> Self {
        kapi_webhook::tls::install_crypto_provider();
        let certs = make_certs();
        let config = kapi_webhook::tls::server_config_from_pem(
            certs.cert_pem.as_bytes(),
            certs.key_pem.as_bytes(),
        )
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let router = axum::Router::new()
            .route("/deny", post(deny))
            .route("/label", post(label))
            .route("/slow", post(slow));
        tokio::spawn(kapi_webhook::tls::serve_tls(
            listener,
            config,
            router,
            std::future::pending(),
        ));
        Self {
            url: format!("https://127.0.0.1:{port}"),
            certs,
        }
    }

    /// A webhook on configmaps CREATE calling `path`.
    fn hook(&self, name: &str, path: &str, extra: Value) -> Value {
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
}

/// Registers a configuration of `kind` with one webhook, then waits until a probe write
/// shows it took effect (the configurations are read from a watch cache).
async fn register(server: &TestServer, kind: &str, hook: Value) {
    let plural = format!("{}s", kind.to_lowercase());
    let config = json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
        "metadata": {"name": hook["name"].as_str().unwrap()}, "webhooks": [hook]});
    let req = http::Request::post(format!("/apis/admissionregistration.k8s.io/v1/{plural}"))
        .header("content-type", "application/json")
        .body(config.to_string().into_bytes())
        .unwrap();
    server.client().request_text(req).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
}

fn configmap(name: &str, labels: Value) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}})).unwrap()
}

fn api_error(e: kube::Error) -> kube::core::Status {
    match e {
        kube::Error::Api(s) => *s,
        other => panic!("not an API error: {other:?}"),
    }
}

#[tokio::test]
async fn a_validating_webhooks_denial_is_the_clients_error_and_nothing_is_stored() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook("deny.example.com", "/deny", json!({})),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(&PostParams::default(), &configmap("fine", json!({})))
        .await
        .unwrap();
    let err = api_error(
        cms.create(
            &PostParams::default(),
            &configmap("bad", json!({"deny": "x"})),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(err.code, 422);
    assert_eq!(
        err.message,
        "admission webhook \"deny.example.com\" denied the request: objects labelled deny are refused"
    );
    assert!(cms.get_opt("bad").await.unwrap().is_none());
}

#[tokio::test]
async fn a_mutating_webhooks_patch_is_stored() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "MutatingWebhookConfiguration",
        hooks.hook("label.example.com", "/label", json!({})),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let created = cms
        .create(&PostParams::default(), &configmap("m", json!({"app": "a"})))
        .await
        .unwrap();
    let labels = created.metadata.labels.unwrap();
    assert_eq!(labels["mutated"], "yes");
    assert_eq!(labels["app"], "a");
}

#[tokio::test]
async fn a_dead_webhook_fails_closed_unless_its_policy_is_ignore() {
    let server = TestServer::start().await.unwrap();
    let dead = Webhooks {
        url: "https://127.0.0.1:1".into(),
        certs: make_certs(),
    };
    register(
        &server,
        "ValidatingWebhookConfiguration",
        dead.hook(
            "ignore.example.com",
            "/x",
            json!({"failurePolicy": "Ignore"}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(&PostParams::default(), &configmap("a", json!({})))
        .await
        .unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        dead.hook("fail.example.com", "/x", json!({"failurePolicy": "Fail"})),
    )
    .await;
    let err = api_error(
        cms.create(&PostParams::default(), &configmap("b", json!({})))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, 500);
    assert!(
        err.message.starts_with(
            "Internal error occurred: failed calling webhook \"fail.example.com\": failed to call webhook: Post \"https://127.0.0.1:1/x?timeout=1s\""
        ),
        "{}",
        err.message
    );
    assert!(cms.get_opt("b").await.unwrap().is_none());
}

#[tokio::test]
async fn a_webhook_slower_than_its_timeout_fails_the_request() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook("slow.example.com", "/slow", json!({})),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let err = api_error(
        cms.create(&PostParams::default(), &configmap("a", json!({})))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, 500);
    assert!(err.message.contains("slow.example.com"), "{}", err.message);
}

#[tokio::test]
async fn an_object_selector_that_does_not_select_skips_the_webhook() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook(
            "deny.example.com",
            "/deny",
            json!({"objectSelector": {"matchLabels": {"checked": "true"}}}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(
        &PostParams::default(),
        &configmap("skipped", json!({"deny": "x"})),
    )
    .await
    .unwrap();
    let err = cms
        .create(
            &PostParams::default(),
            &configmap("checked", json!({"deny": "x", "checked": "true"})),
        )
        .await
        .unwrap_err();
    assert_eq!(api_error(err).code, 422);
}

#[tokio::test]
async fn a_dry_run_is_refused_by_a_webhook_with_side_effects() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook(
            "effects.example.com",
            "/deny",
            json!({"sideEffects": "Unknown"}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let pp = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let err = api_error(
        cms.create(&pp, &configmap("a", json!({})))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, 400);
    assert_eq!(
        err.message,
        "admission webhook \"effects.example.com\" does not support dry run"
    );
    // Without dryRun the same webhook is called.
    cms.create(&PostParams::default(), &configmap("a", json!({})))
        .await
        .unwrap();
}
