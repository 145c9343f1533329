//! Admission webhooks end to end, beyond the basics (issue 14): warnings reach kubectl,
//! matchConditions skip, IfNeeded webhooks are reinvoked, a webhook registered for another
//! version of a CRD receives that version (matchPolicy Equivalent), every broken answer —
//! wrong uid, wrong apiVersion, a 10 MB body, garbage, a patch from a validating webhook, a
//! patch that breaks the schema — refuses the write with upstream's error and stores
//! nothing, and the calls show in `/metrics`. kapi-webhook's example (`widget-webhook`)
//! defaults and validates Widgets written in either version.

mod e2e_admission_support;

use e2e_admission_support::{
    Webhooks, api_error, configmap, kubectl, refused_configmap, register, register_all,
};
use k8s_openapi::api::core::v1::ConfigMap;
use kapi_test::TestServer;
use kapi_testsupport::widget_webhook::{WidgetWebhook, webhook_url_conversion, widget_crd};
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

/// A CRD with v1 (stored) and v1beta1, both with `spec.replicas: integer`.
fn two_version_crd() -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}});
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [
                {"name": "v1", "served": true, "storage": true, "schema": schema},
                {"name": "v1beta1", "served": true, "storage": false, "schema": schema}]}})
}

async fn with_widgets(server: &TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crd.yaml");
    std::fs::write(&path, two_version_crd().to_string()).unwrap();
    server.install_crds(&path).await.unwrap();
}

/// POSTs a widget in `version`; the stored object or the Status.
async fn create_widget(
    server: &TestServer,
    version: &str,
    name: &str,
) -> Result<Value, kube::core::Status> {
    let body = json!({"apiVersion": format!("example.com/{version}"), "kind": "Widget",
        "metadata": {"name": name}, "spec": {"replicas": 1}});
    let req = http::Request::post(format!(
        "/apis/example.com/{version}/namespaces/default/widgets"
    ))
    .header("content-type", "application/json")
    .body(body.to_string().into_bytes())
    .unwrap();
    server
        .client()
        .request::<Value>(req)
        .await
        .map_err(api_error)
}

async fn widget_exists(server: &TestServer, name: &str) -> bool {
    let req = http::Request::get(format!(
        "/apis/example.com/v1/namespaces/default/widgets/{name}"
    ))
    .body(Vec::new())
    .unwrap();
    server.client().request::<Value>(req).await.is_ok()
}

/// A webhook on widgets of `versions`.
fn widget_hook(hooks: &Webhooks, name: &str, path: &str, versions: &[&str]) -> Value {
    hooks.hook(
        name,
        path,
        json!({"rules": [{"operations": ["CREATE"], "apiGroups": ["example.com"],
            "apiVersions": versions, "resources": ["widgets"]}]}),
    )
}

#[tokio::test]
async fn a_webhooks_warnings_reach_kubectl() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook("warn.example.com", "/warn", json!({})),
    )
    .await;
    let (ok, _, stderr) = kubectl(&server, &["create", "configmap", "watched"], None).await;
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("Warning: configmaps are watched by the test"),
        "{stderr}"
    );
    assert!(stderr.contains("Warning: a second warning"), "{stderr}");
}

#[tokio::test]
async fn a_false_match_condition_skips_the_webhook() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    let conditions = json!({"matchConditions": [
        {"name": "only-checked", "expression": "has(object.metadata.labels) && 'checked' in object.metadata.labels"}]});
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook("deny.example.com", "/deny", conditions),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(
        &PostParams::default(),
        &configmap("skipped", json!({"deny": "x"})),
    )
    .await
    .unwrap();
    assert!(hooks.received_on("/deny").is_empty());
    let err = cms
        .create(
            &PostParams::default(),
            &configmap("checked", json!({"deny": "x", "checked": "y"})),
        )
        .await
        .unwrap_err();
    assert_eq!(api_error(err).code, 422);
}

#[tokio::test]
async fn a_match_condition_that_fails_to_evaluate_refuses_under_fail() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    let conditions =
        json!({"matchConditions": [{"name": "broken", "expression": "object.spec.nothing == 1"}]});
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook("broken.example.com", "/record", conditions),
    )
    .await;
    let err = refused_configmap(&server, "a", json!({})).await;
    assert_eq!(err.code, 403);
    assert!(
        err.message.starts_with(
            "configmaps \"a\" is forbidden: failed to evaluate match condition \"broken\""
        ),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn an_if_needed_webhook_is_reinvoked_after_a_later_change() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register_all(
        &server,
        "MutatingWebhookConfiguration",
        vec![
            hooks.hook(
                "first.example.com",
                "/first",
                json!({"reinvocationPolicy": "IfNeeded"}),
            ),
            hooks.hook("second.example.com", "/second", json!({})),
        ],
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let created = cms
        .create(&PostParams::default(), &configmap("r", json!({})))
        .await
        .unwrap();
    let labels = created.metadata.labels.unwrap();
    assert_eq!(labels["second"], "yes");
    assert_eq!(labels["first-saw-second"], "true");
    assert_eq!(hooks.received_on("/first").len(), 2);
    assert_eq!(hooks.received_on("/second").len(), 1);
}

#[tokio::test]
async fn a_never_webhook_is_not_reinvoked() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register_all(
        &server,
        "MutatingWebhookConfiguration",
        vec![
            hooks.hook("first.example.com", "/first", json!({})),
            hooks.hook("second.example.com", "/second", json!({})),
        ],
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let created = cms
        .create(&PostParams::default(), &configmap("n", json!({})))
        .await
        .unwrap();
    assert_eq!(
        created.metadata.labels.unwrap()["first-saw-second"],
        "false"
    );
    assert_eq!(hooks.received_on("/first").len(), 1);
}

#[tokio::test]
async fn a_webhook_registered_for_another_version_receives_that_version() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    with_widgets(&server).await;
    register(
        &server,
        "ValidatingWebhookConfiguration",
        widget_hook(&hooks, "beta.example.com", "/record", &["v1beta1"]),
    )
    .await;
    create_widget(&server, "v1", "w").await.unwrap();
    let reviews = hooks.received_on("/record");
    assert_eq!(reviews.len(), 1);
    let request = &reviews[0]["request"];
    assert_eq!(
        request["kind"],
        json!({"group": "example.com", "version": "v1beta1", "kind": "Widget"})
    );
    assert_eq!(request["resource"]["version"], "v1beta1");
    assert_eq!(request["requestKind"]["version"], "v1");
    assert_eq!(request["object"]["apiVersion"], "example.com/v1beta1");
}

#[tokio::test]
async fn an_exact_match_policy_skips_other_versions() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    with_widgets(&server).await;
    let mut hook = widget_hook(&hooks, "exact.example.com", "/record", &["v1beta1"]);
    hook["matchPolicy"] = json!("Exact");
    register(&server, "ValidatingWebhookConfiguration", hook).await;
    create_widget(&server, "v1", "w").await.unwrap();
    assert!(hooks.received_on("/record").is_empty());
}

/// A validating webhook at `path` refuses the write with a 500 naming the broken answer,
/// and nothing is stored.
async fn broken_answer_refuses(path: &str, kind: &str, expected: &str) {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        kind,
        hooks.hook("broken.example.com", path, json!({})),
    )
    .await;
    let err = refused_configmap(&server, "b", json!({})).await;
    assert_eq!(err.code, 500, "{}", err.message);
    assert!(
        err.message.starts_with(
            "Internal error occurred: failed calling webhook \"broken.example.com\": "
        ),
        "{}",
        err.message
    );
    assert!(err.message.contains(expected), "{}", err.message);
}

#[tokio::test]
async fn an_answer_with_another_uid_refuses_the_write() {
    broken_answer_refuses(
        "/wrong-uid",
        "ValidatingWebhookConfiguration",
        "got \"not-the-uid\"",
    )
    .await;
}

#[tokio::test]
async fn an_answer_in_another_api_version_refuses_the_write() {
    broken_answer_refuses(
        "/wrong-version",
        "ValidatingWebhookConfiguration",
        "received invalid webhook response: expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v9, Kind=AdmissionReview",
    )
    .await;
}

#[tokio::test]
async fn an_answer_without_a_response_refuses_the_write() {
    broken_answer_refuses(
        "/absent",
        "MutatingWebhookConfiguration",
        "received invalid webhook response: webhook response was absent",
    )
    .await;
}

#[tokio::test]
async fn a_ten_megabyte_answer_refuses_the_write() {
    broken_answer_refuses(
        "/huge",
        "ValidatingWebhookConfiguration",
        "received invalid webhook response: the response is 10485",
    )
    .await;
    broken_answer_refuses(
        "/huge",
        "MutatingWebhookConfiguration",
        "bytes, over the limit of 3145728",
    )
    .await;
}

#[tokio::test]
async fn an_answer_that_is_not_json_refuses_the_write() {
    broken_answer_refuses(
        "/garbage",
        "ValidatingWebhookConfiguration",
        "received invalid webhook response",
    )
    .await;
}

#[tokio::test]
async fn a_patch_from_a_validating_webhook_refuses_the_write() {
    broken_answer_refuses(
        "/label",
        "ValidatingWebhookConfiguration",
        "received invalid webhook response: validating webhook may not return response.patch",
    )
    .await;
}

#[tokio::test]
async fn a_broken_answer_is_ignored_under_failure_policy_ignore() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook(
            "garbage.example.com",
            "/garbage",
            json!({"failurePolicy": "Ignore"}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(&PostParams::default(), &configmap("kept", json!({})))
        .await
        .unwrap();
    let metrics = server
        .client()
        .request_text(http::Request::get("/metrics").body(Vec::new()).unwrap())
        .await
        .unwrap();
    assert!(
        metrics.contains("apiserver_admission_webhook_fail_open_count{name=\"garbage.example.com\",type=\"validating\"} 1"),
        "{metrics}"
    );
}

#[tokio::test]
async fn a_patch_that_breaks_the_schema_is_refused_and_nothing_stored() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    with_widgets(&server).await;
    register(
        &server,
        "MutatingWebhookConfiguration",
        widget_hook(&hooks, "breaker.example.com", "/break-schema", &["v1"]),
    )
    .await;
    let err = create_widget(&server, "v1", "w").await.unwrap_err();
    assert_eq!(err.code, 422, "{}", err.message);
    assert!(err.message.contains("spec.replicas"), "{}", err.message);
    assert!(!widget_exists(&server, "w").await);
}

#[tokio::test]
async fn webhook_calls_and_rejections_are_in_the_metrics() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        hooks.hook("deny.example.com", "/deny", json!({})),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    cms.create(&PostParams::default(), &configmap("ok", json!({})))
        .await
        .unwrap();
    cms.create(
        &PostParams::default(),
        &configmap("no", json!({"deny": "x"})),
    )
    .await
    .unwrap_err();
    let metrics = server
        .client()
        .request_text(http::Request::get("/metrics").body(Vec::new()).unwrap())
        .await
        .unwrap();
    for line in [
        "apiserver_admission_webhook_request_total{code=\"200\",name=\"deny.example.com\",operation=\"CREATE\",rejected=\"false\",type=\"validating\"} 1",
        "apiserver_admission_webhook_request_total{code=\"422\",name=\"deny.example.com\",operation=\"CREATE\",rejected=\"true\",type=\"validating\"} 1",
        "apiserver_admission_webhook_rejection_count{error_type=\"no_error\",name=\"deny.example.com\",operation=\"CREATE\",rejection_code=\"422\",type=\"validating\"} 1",
        "apiserver_admission_webhook_admission_duration_seconds_count{name=\"deny.example.com\",operation=\"CREATE\",rejected=\"true\",type=\"validating\"} 1",
    ] {
        assert!(metrics.contains(line), "{line} not in\n{metrics}");
    }
}

/// The example webhooks of kapi-webhook (`widget-webhook`: conversion, `/mutate`,
/// `/validate` from one HTTPS server) on the golden Widget CRD, admission registered for
/// v1beta1 only.
async fn with_example_webhooks(server: &TestServer, webhook: &WidgetWebhook) {
    let conversion = webhook_url_conversion(&webhook.url, &webhook.ca_bundle());
    let mut crd = widget_crd(conversion);
    crd["metadata"] = json!({"name": crd["metadata"]["name"].clone()});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crd.yaml");
    std::fs::write(&path, crd.to_string()).unwrap();
    server.install_crds(&path).await.unwrap();
    let base = format!("https://localhost:{}", webhook.port);
    let hook = |name: &str, path: &str| {
        json!({"name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
            "clientConfig": {"url": format!("{base}{path}"), "caBundle": webhook.ca_bundle()},
            "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["golden.example.com"],
                "apiVersions": ["v1beta1"], "resources": ["widgets"]}]})
    };
    register(
        server,
        "MutatingWebhookConfiguration",
        hook("default.widgets.golden.example.com", "/mutate"),
    )
    .await;
    register(
        server,
        "ValidatingWebhookConfiguration",
        hook("limit.widgets.golden.example.com", "/validate"),
    )
    .await;
}

fn alpha_widget(name: &str, spec: Value) -> String {
    json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": name, "namespace": "default"}, "spec": spec})
    .to_string()
}

#[tokio::test]
async fn the_example_mutating_webhook_defaults_a_widget_written_in_another_version() {
    let webhook = WidgetWebhook::start();
    let server = TestServer::start().await.unwrap();
    with_example_webhooks(&server, &webhook).await;
    let (ok, _, stderr) = kubectl(
        &server,
        &["create", "-f", "-"],
        Some(&alpha_widget("a", json!({"label": "shown"}))),
    )
    .await;
    assert!(ok, "{stderr}");
    // The validating webhook saw v1beta1 (label converted to displayName): no warning.
    assert!(!stderr.contains("Warning"), "{stderr}");
    let (ok, stdout, stderr) = kubectl(
        &server,
        &[
            "get",
            "widgets.v1alpha1.golden.example.com",
            "a",
            "-o",
            "json",
        ],
        None,
    )
    .await;
    assert!(ok, "{stderr}");
    let stored: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(stored["spec"], json!({"label": "shown", "replicas": 1}));
}

#[tokio::test]
async fn the_example_validating_webhook_refuses_and_warns() {
    let webhook = WidgetWebhook::start();
    let server = TestServer::start().await.unwrap();
    with_example_webhooks(&server, &webhook).await;
    let (ok, _, stderr) = kubectl(
        &server,
        &["create", "-f", "-"],
        Some(&alpha_widget("big", json!({"label": "x", "replicas": 8}))),
    )
    .await;
    assert!(!ok);
    assert!(
        stderr.contains("admission webhook \"limit.widgets.golden.example.com\" denied the request: spec.replicas: must be at most 5, got 8"),
        "{stderr}"
    );
    let (ok, _, stderr) = kubectl(
        &server,
        &["create", "-f", "-"],
        Some(&alpha_widget("nameless", json!({"replicas": 2}))),
    )
    .await;
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("Warning: Widget \"nameless\" has no display name"),
        "{stderr}"
    );
}

fn deployment(name: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
}

/// A webhook on UPDATE of deployments' `sub` subresource.
fn subresource_hook(hooks: &Webhooks, name: &str, path: &str, sub: &str) -> Value {
    hooks.hook(
        name,
        path,
        json!({"rules": [{"operations": ["UPDATE"], "apiGroups": ["apps"], "apiVersions": ["v1"],
            "resources": [format!("deployments/{sub}")]}]}),
    )
}

#[tokio::test]
async fn a_scale_webhook_sees_a_scale_and_its_patch_reaches_the_deployment() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        subresource_hook(&hooks, "seen.example.com", "/record", "scale"),
    )
    .await;
    register(
        &server,
        "MutatingWebhookConfiguration",
        subresource_hook(&hooks, "cap.example.com", "/cap-replicas", "scale"),
    )
    .await;
    let (ok, _, stderr) = kubectl(
        &server,
        &["create", "-f", "-"],
        Some(&deployment("web").to_string()),
    )
    .await;
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = kubectl(
        &server,
        &["scale", "deployment", "web", "--replicas=5"],
        None,
    )
    .await;
    assert!(ok, "{stderr}");
    let seen = hooks.received_on("/record");
    assert_eq!(seen.len(), 1);
    let request = &seen[0]["request"];
    assert_eq!(
        request["kind"],
        json!({"group": "autoscaling", "version": "v1", "kind": "Scale"})
    );
    assert_eq!(
        request["resource"],
        json!({"group": "apps", "version": "v1", "resource": "deployments"})
    );
    assert_eq!(request["subResource"], "scale");
    assert_eq!(request["object"]["kind"], "Scale");
    assert_eq!(request["object"]["spec"]["replicas"], 2);
    assert_eq!(request["oldObject"]["spec"]["replicas"], 1);
    let (ok, stdout, stderr) = kubectl(
        &server,
        &[
            "get",
            "deployment",
            "web",
            "-o",
            "jsonpath={.spec.replicas}",
        ],
        None,
    )
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(stdout, "2");
}

#[tokio::test]
async fn a_status_webhook_sees_the_whole_object() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    register(
        &server,
        "ValidatingWebhookConfiguration",
        subresource_hook(&hooks, "status.example.com", "/record", "status"),
    )
    .await;
    let (ok, _, stderr) = kubectl(
        &server,
        &["create", "-f", "-"],
        Some(&deployment("web").to_string()),
    )
    .await;
    assert!(ok, "{stderr}");
    let patch = r#"{"status":{"observedGeneration":1}}"#;
    let (ok, _, stderr) = kubectl(
        &server,
        &[
            "patch",
            "deployment",
            "web",
            "--subresource=status",
            "--type=merge",
            "-p",
            patch,
        ],
        None,
    )
    .await;
    assert!(ok, "{stderr}");
    let seen = hooks.received_on("/record");
    assert_eq!(seen.len(), 1);
    let request = &seen[0]["request"];
    assert_eq!(request["kind"]["kind"], "Deployment");
    assert_eq!(request["subResource"], "status");
    assert_eq!(request["object"]["status"]["observedGeneration"], 1);
}

#[tokio::test]
async fn each_mutating_webhook_is_judged_on_the_object_earlier_webhooks_patched() {
    let hooks = Webhooks::start().await;
    let server = TestServer::start().await.unwrap();
    let labelled_second = json!({"matchConditions": [{"name": "second",
        "expression": "has(object.metadata.labels) && 'second' in object.metadata.labels"}]});
    register_all(
        &server,
        "MutatingWebhookConfiguration",
        vec![
            hooks.hook("label.example.com", "/label", json!({})),
            hooks.hook(
                "second.example.com",
                "/second",
                json!({"objectSelector": {"matchLabels": {"mutated": "yes"}}}),
            ),
            hooks.hook("record.example.com", "/record", labelled_second),
        ],
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let created = cms
        .create(&PostParams::default(), &configmap("chained", json!({})))
        .await
        .unwrap();
    let labels = created.metadata.labels.unwrap();
    assert_eq!(labels["mutated"], "yes");
    assert_eq!(labels["second"], "yes");
    assert_eq!(hooks.received_on("/record").len(), 1);
}
