//! Admission webhooks end to end (issue 14): real HTTPS webhooks served by the test,
//! registered with Mutating- and ValidatingWebhookConfigurations on kapi-test's server and
//! reached by kube-rs writes: a mutating webhook's JSONPatch is stored, a validating
//! webhook's denial is the client's error with its message and code, nothing is stored;
//! failurePolicy Ignore and Fail on a dead webhook, a timeout, objectSelector, dryRun and
//! sideEffects.

mod e2e_admission_support;

use e2e_admission_support::{
    Webhooks, api_error, configmap, create_config, refused_configmap, register,
};
use k8s_openapi::api::core::v1::ConfigMap;
use kapi_test::TestServer;
use kube::api::{Api, PostParams};
use serde_json::json;

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
    let err = refused_configmap(&server, "bad", json!({"deny": "x"})).await;
    assert_eq!(err.code, 422);
    assert_eq!(
        err.message,
        "configmaps \"bad\" is forbidden: admission webhook \"deny.example.com\" denied the request: objects labelled deny are refused"
    );
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
    let dead = Webhooks::dead();
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
    let err = refused_configmap(&server, "b", json!({})).await;
    assert_eq!(err.code, 500);
    assert!(
        err.message.starts_with(
            "Internal error occurred: failed calling webhook \"fail.example.com\": failed to call webhook: Post \"https://127.0.0.1:1/x?timeout=1s\""
        ),
        "{}",
        err.message
    );
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
async fn a_webhook_with_side_effects_is_refused_at_registration() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    let config = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "effects"},
        "webhooks": [hooks.hook("effects.example.com", "/deny", json!({"sideEffects": "Unknown"}))]});
    let err = create_config(&server, "validatingwebhookconfigurations", &config)
        .await
        .unwrap_err();
    assert!(
        err.contains(r#"webhooks[0].sideEffects: Unsupported value: \"Unknown\": supported values: \"None\", \"NoneOnDryRun\""#),
        "{err}"
    );
}

#[tokio::test]
async fn a_dry_run_reaches_a_webhook_without_side_effects_and_stores_nothing() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook(
            "dry.example.com",
            "/deny",
            json!({"sideEffects": "NoneOnDryRun"}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let pp = PostParams {
        dry_run: true,
        ..Default::default()
    };
    cms.create(&pp, &configmap("a", json!({}))).await.unwrap();
    let reviews = hooks.received_on("/deny");
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0]["request"]["dryRun"], true);
    assert!(cms.get_opt("a").await.unwrap().is_none());
}
