//! How and when admission webhooks are called, end to end (issue 14): mutating webhooks
//! registered for DELETE are called with the object going as oldObject and may refuse, but
//! not patch.

mod e2e_admission_support;

use e2e_admission_support::{Webhooks, api_error, configmap, on_configmaps, register};
use k8s_openapi::api::core::v1::ConfigMap;
use kapi_test::TestServer;
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::{Value, json};

/// A server with ConfigMap `name` (labelled `labels`) in `default`, and its API.
async fn with_configmap(name: &str, labels: Value) -> (TestServer, Api<ConfigMap>) {
    let server = TestServer::start().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(&PostParams::default(), &configmap(name, labels))
        .await
        .unwrap();
    (server, cms)
}

#[tokio::test]
async fn a_mutating_webhook_registered_for_delete_is_called_and_can_refuse() {
    let hooks = Webhooks::start().await;
    let (server, cms) = with_configmap("kept", json!({"keep": "yes"})).await;
    cms.create(&PostParams::default(), &configmap("gone", json!({})))
        .await
        .unwrap();
    register(
        &server,
        "MutatingWebhookConfiguration",
        hooks.hook("keep.example.com", "/keep", on_configmaps(&["DELETE"])),
    )
    .await;
    let err = api_error(
        cms.delete("kept", &DeleteParams::default())
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, 403);
    assert_eq!(
        err.message,
        "configmaps \"kept\" is forbidden: admission webhook \"keep.example.com\" denied the request: objects labelled keep stay"
    );
    assert!(cms.get_opt("kept").await.unwrap().is_some());
    cms.delete("gone", &DeleteParams::default()).await.unwrap();
    assert!(cms.get_opt("gone").await.unwrap().is_none());
    let reviews = hooks.received_on("/keep");
    assert_eq!(reviews.len(), 2);
    let request = &reviews[1]["request"];
    assert_eq!(request["operation"], "DELETE");
    assert_eq!(request["name"], "gone");
    assert_eq!(request["object"], Value::Null);
    assert_eq!(request["oldObject"]["metadata"]["name"], "gone");
    assert_eq!(request["options"]["kind"], "DeleteOptions");
}

#[tokio::test]
async fn a_patch_on_delete_refuses_it_as_upstream_does() {
    let hooks = Webhooks::start().await;
    let (server, cms) = with_configmap("d", json!({})).await;
    register(
        &server,
        "MutatingWebhookConfiguration",
        hooks.hook("label.example.com", "/label", on_configmaps(&["DELETE"])),
    )
    .await;
    let err = api_error(cms.delete("d", &DeleteParams::default()).await.unwrap_err());
    assert_eq!(err.code, 500);
    assert_eq!(
        err.message,
        "Internal error occurred: admission webhook \"label.example.com\" attempted to modify the object, which is not supported for this operation"
    );
    assert!(cms.get_opt("d").await.unwrap().is_some());
}
