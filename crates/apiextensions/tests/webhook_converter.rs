//! The webhook converter against the real example webhook (`widget-webhook`) over HTTPS:
//! both review versions, a list in one call, service references through the resolver,
//! metadata rules and pruning after conversion (R4.20–R4.29).

mod webhook_common;

use kapi_apiextensions::webhook::{StaticServiceResolver, WebhookConverter};
use kapi_apiextensions::{
    CrConverter, CustomResourceSchemas, WebhookEnvironment, convert_one, converter_for_with,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use webhook_common::*;

const V1BETA1: &str = "golden.example.com/v1beta1";
const CRD: &str = "widgets.golden.example.com";

fn converter(
    hook: &WidgetWebhook,
    versions: &[&str],
    env: Arc<WebhookEnvironment>,
) -> Arc<dyn CrConverter> {
    converter_for_with(&widget_crd(&hook.url, &hook.certs.ca_pem, versions), env).unwrap()
}

#[tokio::test]
async fn converts_through_the_real_webhook_with_a_v1_review() {
    let hook = WidgetWebhook::start();
    let c = converter(&hook, &["v1", "v1beta1"], env(Duration::from_secs(30)));
    let out = convert_one(&*c, widget("a", "hello"), V1BETA1)
        .await
        .unwrap();
    assert_eq!(out["apiVersion"], V1BETA1);
    assert_eq!(out["spec"], json!({"displayName": "hello", "replicas": 2}));
    assert_eq!(out["metadata"], widget("a", "hello")["metadata"]);
}

#[tokio::test]
async fn converts_through_the_real_webhook_with_a_v1beta1_review() {
    let hook = WidgetWebhook::start();
    let c = converter(&hook, &["v1beta1", "v1"], env(Duration::from_secs(30)));
    let out = convert_one(&*c, widget("a", "hello"), V1BETA1)
        .await
        .unwrap();
    assert_eq!(out["spec"]["displayName"], "hello");
}

#[tokio::test]
async fn converts_back_to_the_storage_version() {
    let hook = WidgetWebhook::start();
    let c = converter(&hook, &["v1"], env(Duration::from_secs(30)));
    let obj = convert_one(&*c, widget("a", "x"), V1BETA1).await.unwrap();
    let back = convert_one(&*c, obj, "golden.example.com/v1alpha1")
        .await
        .unwrap();
    assert_eq!(back, widget("a", "x"));
}

#[tokio::test]
async fn a_list_converts_in_one_call_in_order_with_items_already_in_the_target_kept() {
    let hook = WidgetWebhook::start();
    let env = env(Duration::from_secs(30));
    let c = converter(&hook, &["v1"], env.clone());
    let mut items: Vec<Value> = (0..300)
        .map(|i| widget(&format!("w{i}"), &format!("l{i}")))
        .collect();
    items[5] = json!({"apiVersion": V1BETA1, "kind": "Widget", "metadata": {"name": "w5"}, "spec": {"displayName": "kept"}});
    let out = c.convert(items, V1BETA1).await.unwrap();
    assert_eq!(env.metrics().calls(CRD), 1);
    assert_eq!(out[5]["spec"]["displayName"], "kept");
    assert_eq!(out[299]["spec"]["displayName"], "l299");
    assert!(out.iter().all(|o| o["apiVersion"] == V1BETA1));
}

#[tokio::test]
async fn objects_already_in_the_target_version_make_no_call() {
    let hook = WidgetWebhook::start();
    let env = env(Duration::from_secs(30));
    let c = converter(&hook, &["v1"], env.clone());
    let obj = json!({"apiVersion": V1BETA1, "kind": "Widget", "metadata": {"name": "a"}});
    c.convert(vec![obj], V1BETA1).await.unwrap();
    assert_eq!(env.metrics().calls(CRD), 0);
}

#[tokio::test]
async fn calls_reuse_one_pooled_client_per_ca_bundle_and_endpoint() {
    let hook = WidgetWebhook::start();
    let env = env(Duration::from_secs(30));
    let c = converter(&hook, &["v1"], env.clone());
    for i in 0..3 {
        convert_one(&*c, widget(&format!("w{i}"), "x"), V1BETA1)
            .await
            .unwrap();
    }
    assert_eq!(env.pooled_clients(), 1);
}

#[tokio::test]
async fn a_service_reference_is_reached_through_the_static_resolver() {
    let hook = WidgetWebhook::start();
    let resolver =
        StaticServiceResolver::from_flags([
            format!("webhooks/widgets=127.0.0.1:{}", hook.port).as_str()
        ])
        .unwrap();
    let env = Arc::new(WebhookEnvironment::new().add_service_resolver(Arc::new(resolver)));
    let mut crd = widget_crd(&hook.url, &hook.certs.ca_pem, &["v1"]);
    let cc = crd
        .spec
        .conversion
        .as_mut()
        .unwrap()
        .webhook
        .as_mut()
        .unwrap()
        .client_config
        .as_mut()
        .unwrap();
    cc.url = None;
    cc.service = Some(kapi_api::apiextensions::v1::ServiceReference {
        namespace: "webhooks".into(),
        name: "widgets".into(),
        path: Some("/convert".into()),
        port: None,
    });
    let c = WebhookConverter::new(&crd, env);
    let out = convert_one(&c, widget("a", "svc"), V1BETA1).await.unwrap();
    assert_eq!(out["spec"]["displayName"], "svc");
}

#[tokio::test]
async fn labels_set_by_the_webhook_are_kept() {
    let hook = TamperingWebhook::start(
        Arc::new(|mut a: Value| {
            a["response"]["convertedObjects"][0]["metadata"]["labels"]["converted"] = json!("yes");
            ok(a)
        }),
        Duration::ZERO,
    )
    .await;
    let c = converter_for_with(
        &widget_crd(&hook.url, &hook.certs.ca_pem, &["v1"]),
        env(Duration::from_secs(30)),
    )
    .unwrap();
    let out = convert_one(&*c, widget("a", "x"), V1BETA1).await.unwrap();
    assert_eq!(
        out["metadata"]["labels"],
        json!({"app": "w", "converted": "yes"})
    );
}

#[tokio::test]
async fn metadata_changes_other_than_labels_and_annotations_are_not_kept() {
    let hook = TamperingWebhook::start(
        Arc::new(|mut a: Value| {
            let meta = &mut a["response"]["convertedObjects"][0]["metadata"];
            meta["resourceVersion"] = json!("999");
            meta["generation"] = json!(42);
            meta["finalizers"] = json!(["x/y"]);
            ok(a)
        }),
        Duration::ZERO,
    )
    .await;
    let c = converter_for_with(
        &widget_crd(&hook.url, &hook.certs.ca_pem, &["v1"]),
        env(Duration::from_secs(30)),
    )
    .unwrap();
    let out = convert_one(&*c, widget("a", "x"), V1BETA1).await.unwrap();
    assert_eq!(out["metadata"], widget("a", "x")["metadata"]);
}

#[tokio::test]
async fn fields_the_webhook_adds_outside_the_target_schema_are_pruned() {
    let hook = TamperingWebhook::start(
        Arc::new(|mut a: Value| {
            a["response"]["convertedObjects"][0]["spec"]["bogus"] = json!(1);
            ok(a)
        }),
        Duration::ZERO,
    )
    .await;
    let crd = widget_crd(&hook.url, &hook.certs.ca_pem, &["v1"]);
    let schemas = CustomResourceSchemas::new(&crd).unwrap();
    let out = schemas
        .from_storage(widget("a", "x"), "v1beta1")
        .await
        .unwrap();
    assert_eq!(out["spec"], json!({"displayName": "x", "replicas": 2}));
}
