//! Lists of custom resources with `strategy: Webhook` (issue 6 item 4): a list in another
//! version than the stored one converts all its items in ONE webhook call, counted by kapi's
//! own `/metrics` (`apiserver_conversion_webhook_request_total`); with the webhook gone the
//! list answers upstream's bare 500 Status (Appendix B.1) while the stored version still reads.

mod e2e_support;

mod e2e_crd_support;

use e2e_crd_support::{get, send, wait_status};
use e2e_support::{Kapi, json};
use kapi_testsupport::widget_webhook::{WidgetWebhook, webhook_url_conversion, widget_crd};
use serde_json::{Value, json};

const V1A1: &str = "/apis/golden.example.com/v1alpha1/namespaces/default/widgets";
const V1B1: &str = "/apis/golden.example.com/v1beta1/namespaces/default/widgets";
const JSON: &str = "application/json";
const CRD: &str = "widgets.golden.example.com";

/// A kapi serving the Widget CRD converted by `webhook`, with `n` v1alpha1 widgets.
async fn kapi_with_widgets(webhook: &WidgetWebhook, n: usize) -> Kapi {
    let conversion = webhook_url_conversion(&webhook.url, &webhook.ca_bundle());
    kapi_with_crd(Kapi::start().await, conversion, n).await
}

/// `kapi` serving the Widget CRD with `conversion`, with `n` v1alpha1 widgets.
async fn kapi_with_crd(kapi: Kapi, conversion: Value, n: usize) -> Kapi {
    let mut crd = widget_crd(conversion);
    crd["metadata"] = json!({"name": CRD});
    crd.as_object_mut().unwrap().remove("status");
    let path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let (s, _, body) = kapi.raw(send("POST", path, JSON, &crd.to_string())).await;
    assert_eq!(s, 201, "{}", String::from_utf8_lossy(&body));
    wait_status(&kapi, V1A1, 200).await;
    wait_status(&kapi, V1B1, 200).await;
    for i in 0..n {
        let body = json!({"apiVersion": "golden.example.com/v1alpha1", "kind": "Widget",
            "metadata": {"name": format!("w{i:03}")}, "spec": {"label": format!("l{i}")}});
        let (s, _, out) = kapi.raw(send("POST", V1A1, JSON, &body.to_string())).await;
        assert_eq!(s, 201, "{}", String::from_utf8_lossy(&out));
    }
    kapi
}

/// The sum of `apiserver_conversion_webhook_request_total` for the Widget CRD in kapi's
/// `/metrics` (every result and failure type).
async fn webhook_requests(kapi: &Kapi) -> u64 {
    let (s, _, body) = kapi.raw(get("/metrics")).await;
    assert_eq!(s, 200);
    let text = String::from_utf8(body).unwrap();
    let prefix = format!("apiserver_conversion_webhook_request_total{{crd_name=\"{CRD}\"");
    text.lines()
        .filter(|l| l.starts_with(&prefix))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum()
}

async fn read(kapi: &Kapi, path: &str) -> (u16, Value) {
    let (s, _, body) = kapi.raw(get(path)).await;
    (s, json(&body))
}

#[tokio::test]
async fn list_in_another_version_converts_every_item_in_one_webhook_call() {
    let webhook = WidgetWebhook::start();
    let n = 25;
    let kapi = kapi_with_widgets(&webhook, n).await;
    let before = webhook_requests(&kapi).await;
    let (s, list) = read(&kapi, V1B1).await;
    assert_eq!(s, 200, "{list}");
    assert_eq!(webhook_requests(&kapi).await, before + 1);
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), n);
    for (i, item) in items.iter().enumerate() {
        assert_eq!(item["apiVersion"], "golden.example.com/v1beta1");
        assert_eq!(item["spec"]["displayName"], format!("l{i}"));
    }
}

#[tokio::test]
async fn list_in_the_stored_version_calls_no_webhook() {
    let webhook = WidgetWebhook::start();
    let kapi = kapi_with_widgets(&webhook, 3).await;
    let before = webhook_requests(&kapi).await;
    let (s, list) = read(&kapi, V1A1).await;
    assert_eq!(s, 200, "{list}");
    assert_eq!(list["items"].as_array().unwrap().len(), 3);
    assert_eq!(webhook_requests(&kapi).await, before);
}

#[tokio::test]
async fn webhook_down_fails_a_list_in_another_version_with_a_bare_500_status() {
    let mut webhook = WidgetWebhook::start();
    let kapi = kapi_with_widgets(&webhook, 2).await;
    webhook.kill();
    let (s, status) = read(&kapi, V1B1).await;
    assert_eq!(s, 500, "{status}");
    let message = format!(
        "conversion webhook for golden.example.com/v1alpha1, Kind=Widget failed: Post \"{}?timeout=30s\": dial tcp localhost:{}: connect: connection refused",
        webhook.url, webhook.port
    );
    assert_eq!(
        status,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "code": 500})
    );
    let (s, list) = read(&kapi, V1A1).await;
    assert_eq!(s, 200, "{list}");
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn service_reference_is_dialled_at_the_service_resolver_flag_address() {
    let webhook = WidgetWebhook::start();
    let flag = format!("webhooks/widgets=localhost:{}", webhook.port);
    let kapi = Kapi::start_with(&["--service-resolver", &flag]).await;
    let conversion = json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
        "clientConfig": {"service": {"namespace": "webhooks", "name": "widgets",
            "path": "/convert", "port": 443}, "caBundle": webhook.ca_bundle()}}});
    let kapi = kapi_with_crd(kapi, conversion, 2).await;
    let (s, list) = read(&kapi, V1B1).await;
    assert_eq!(s, 200, "{list}");
    let names: Vec<&Value> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["spec"]["displayName"])
        .collect();
    assert_eq!(names, [&json!("l0"), &json!("l1")]);
}
