//! How and when admission webhooks are called, end to end (issue 14): mutating webhooks
//! registered for DELETE are called with the object going as oldObject and may refuse, but
//! not patch; dryRun reaches side-effect-free webhooks and stores nothing; a timeout under
//! failurePolicy Ignore; namespaceSelector; the AdmissionReview version a webhook lists first.

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

fn dry_run() -> PostParams {
    PostParams {
        dry_run: true,
        ..Default::default()
    }
}

#[tokio::test]
async fn a_dry_run_calls_a_side_effect_free_webhook_which_sees_dry_run() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook(
            "none.example.com",
            "/record",
            json!({"sideEffects": "None"}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(&dry_run(), &configmap("a", json!({})))
        .await
        .unwrap();
    let reviews = hooks.received_on("/record");
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0]["request"]["dryRun"], true);
    assert!(cms.get_opt("a").await.unwrap().is_none());
}

#[tokio::test]
async fn a_mutating_webhooks_patch_under_dry_run_is_answered_and_not_stored() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "MutatingWebhookConfiguration",
        hooks.hook("label.example.com", "/label", json!({})),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let answered = cms
        .create(&dry_run(), &configmap("m", json!({})))
        .await
        .unwrap();
    assert_eq!(answered.metadata.labels.unwrap()["mutated"], "yes");
    assert_eq!(hooks.received_on("/label")[0]["request"]["dryRun"], true);
    assert!(cms.get_opt("m").await.unwrap().is_none());
}

#[tokio::test]
async fn a_timeout_under_failure_policy_ignore_lets_the_write_through() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook(
            "slow.example.com",
            "/slow",
            json!({"failurePolicy": "Ignore", "timeoutSeconds": 1}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let started = std::time::Instant::now();
    cms.create(&PostParams::default(), &configmap("kept", json!({})))
        .await
        .unwrap();
    assert!(started.elapsed() < std::time::Duration::from_millis(2900));
    assert_eq!(hooks.received_on("/slow").len(), 1);
    assert!(cms.get_opt("kept").await.unwrap().is_some());
}

#[tokio::test]
async fn a_namespace_selector_that_does_not_select_skips_the_webhook() {
    use k8s_openapi::api::core::v1::Namespace;
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    let namespaces: Api<Namespace> = Api::all(server.client());
    let checked: Namespace = serde_json::from_value(
        json!({"metadata": {"name": "checked", "labels": {"checked": "true"}}}),
    )
    .unwrap();
    namespaces
        .create(&PostParams::default(), &checked)
        .await
        .unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook(
            "deny.example.com",
            "/deny",
            json!({"namespaceSelector": {"matchLabels": {"checked": "true"}}}),
        ),
    )
    .await;
    let in_default: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    in_default
        .create(
            &PostParams::default(),
            &configmap("skipped", json!({"deny": "x"})),
        )
        .await
        .unwrap();
    assert!(hooks.received_on("/deny").is_empty());
    let in_checked: Api<ConfigMap> = Api::namespaced(server.client(), "checked");
    let err = api_error(
        in_checked
            .create(
                &PostParams::default(),
                &configmap("refused", json!({"deny": "x"})),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, 422);
    assert!(in_checked.get_opt("refused").await.unwrap().is_none());
}

#[tokio::test]
async fn a_webhook_listing_v1beta1_first_gets_a_v1beta1_review_and_its_untyped_patch_applies() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "MutatingWebhookConfiguration",
        hooks.hook(
            "beta.example.com",
            "/label-untyped",
            json!({"admissionReviewVersions": ["v1beta1", "v1"]}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let created = cms
        .create(&PostParams::default(), &configmap("beta", json!({})))
        .await
        .unwrap();
    assert_eq!(created.metadata.labels.unwrap()["mutated"], "yes");
    let reviews = hooks.received_on("/label-untyped");
    assert_eq!(reviews.len(), 1);
    assert_eq!(reviews[0]["apiVersion"], "admission.k8s.io/v1beta1");
    assert_eq!(reviews[0]["request"]["operation"], "CREATE");
}

#[tokio::test]
async fn a_v1_answer_with_a_patch_but_no_patch_type_refuses_the_write() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "MutatingWebhookConfiguration",
        hooks.hook("v1.example.com", "/label-untyped", json!({})),
    )
    .await;
    let err = e2e_admission_support::refused_configmap(&server, "untyped", json!({})).await;
    assert_eq!(err.code, 500);
    assert_eq!(
        err.message,
        "Internal error occurred: failed calling webhook \"v1.example.com\": received invalid webhook response: webhook returned response.patch but not response.patchType"
    );
}
