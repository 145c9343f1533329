//! Custom resources with `strategy: Webhook` end to end (issue 6): the golden Widget CRD
//! (v1alpha1 storage with `spec.label`, v1beta1 with `spec.displayName`) on a real kapi,
//! converted by the real example webhook (`widget-webhook`) over HTTPS (`clientConfig.url`
//! and caBundle): reads in both versions, lists, watches, writes through the non-storage version, and
//! the webhook going away (Appendix B.1 of the kube behaviours: 500, source version named).

mod e2e_support;

mod e2e_crd_support;

use e2e_crd_support::{get, send, wait_status};
use e2e_support::{Kapi, json, metric_sum};
use futures::{StreamExt, TryStreamExt};
use kapi_testsupport::widget_webhook::{WidgetWebhook, webhook_url_conversion, widget_crd};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, WatchEvent, WatchParams};
use serde_json::{Value, json};

const V1A1: &str = "/apis/golden.example.com/v1alpha1/namespaces/default/widgets";
const V1B1: &str = "/apis/golden.example.com/v1beta1/namespaces/default/widgets";
const JSON: &str = "application/json";

/// A kapi serving the Widget CRD whose conversion calls `webhook`.
async fn kapi_with_webhook_crd(webhook: &WidgetWebhook) -> Kapi {
    let kapi = Kapi::start().await;
    let mut crd = widget_crd(webhook_url_conversion(&webhook.url, &webhook.ca_bundle()));
    crd["metadata"] = json!({"name": "widgets.golden.example.com"});
    crd.as_object_mut().unwrap().remove("status");
    let (s, _, body) = kapi
        .raw(send(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            JSON,
            &crd.to_string(),
        ))
        .await;
    assert_eq!(s, 201, "{}", String::from_utf8_lossy(&body));
    wait_status(&kapi, V1A1, 200).await;
    wait_status(&kapi, V1B1, 200).await;
    kapi
}

fn widget(api_version: &str, name: &str, spec: Value) -> String {
    json!({"apiVersion": format!("golden.example.com/{api_version}"), "kind": "Widget",
        "metadata": {"name": name, "labels": {"app": "w"}}, "spec": spec})
    .to_string()
}

/// POSTs `body` to `collection` and returns the created object.
async fn create(kapi: &Kapi, collection: &str, body: &str) -> Value {
    let (s, _, out) = kapi.raw(send("POST", collection, JSON, body)).await;
    assert_eq!(s, 201, "{}", String::from_utf8_lossy(&out));
    json(&out)
}

async fn read(kapi: &Kapi, path: &str) -> (u16, Value) {
    let (s, _, body) = kapi.raw(get(path)).await;
    (s, json(&body))
}

#[tokio::test]
async fn object_created_in_v1alpha1_reads_in_v1beta1_with_same_resource_version_and_uid() {
    let webhook = WidgetWebhook::start();
    let kapi = kapi_with_webhook_crd(&webhook).await;
    let created = create(
        &kapi,
        V1A1,
        &widget("v1alpha1", "w1", json!({"label": "blue"})),
    )
    .await;
    let (s, beta) = read(&kapi, &format!("{V1B1}/w1")).await;
    assert_eq!(s, 200, "{beta}");
    assert_eq!(beta["apiVersion"], "golden.example.com/v1beta1");
    assert_eq!(beta["spec"], json!({"displayName": "blue", "replicas": 1}));
    assert_eq!(beta["metadata"]["uid"], created["metadata"]["uid"]);
    assert_eq!(
        beta["metadata"]["resourceVersion"],
        created["metadata"]["resourceVersion"]
    );
    assert_eq!(beta["metadata"]["labels"], json!({"app": "w"}));
}

#[tokio::test]
async fn list_in_v1beta1_converts_every_item() {
    let webhook = WidgetWebhook::start();
    let kapi = kapi_with_webhook_crd(&webhook).await;
    for (name, label) in [("a", "one"), ("b", "two"), ("c", "three")] {
        create(
            &kapi,
            V1A1,
            &widget("v1alpha1", name, json!({"label": label})),
        )
        .await;
    }
    let (s, list) = read(&kapi, V1B1).await;
    assert_eq!(s, 200, "{list}");
    assert_eq!(list["apiVersion"], "golden.example.com/v1beta1");
    let items: Vec<(&Value, &Value)> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (&i["apiVersion"], &i["spec"]["displayName"]))
        .collect();
    let v1b1 = json!("golden.example.com/v1beta1");
    assert_eq!(
        items,
        [
            (&v1b1, &json!("one")),
            (&v1b1, &json!("two")),
            (&v1b1, &json!("three"))
        ]
    );
}

#[tokio::test]
async fn watch_in_v1beta1_sends_converted_objects() {
    let webhook = WidgetWebhook::start();
    let kapi = kapi_with_webhook_crd(&webhook).await;
    let created = create(
        &kapi,
        V1A1,
        &widget("v1alpha1", "w1", json!({"label": "blue"})),
    )
    .await;
    let gvk = GroupVersionKind::gvk("golden.example.com", "v1beta1", "Widget");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "widgets");
    let api: Api<DynamicObject> = Api::namespaced_with(kapi.client().await, "default", &ar);
    let mut stream = api
        .watch(&WatchParams::default().timeout(5), "0")
        .await
        .unwrap()
        .boxed();
    let added = loop {
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Added(o)) => break o,
            Some(_) => continue,
            None => panic!("watch ended without an ADDED event"),
        }
    };
    assert_eq!(
        added.types.unwrap().api_version,
        "golden.example.com/v1beta1"
    );
    assert_eq!(added.data["spec"]["displayName"], "blue");
    assert_eq!(
        added.metadata.resource_version.as_deref(),
        created["metadata"]["resourceVersion"].as_str()
    );
}

/// Successful conversion webhook calls so far, from `/metrics`.
async fn webhook_calls(kapi: &Kapi) -> u64 {
    metric_sum(
        kapi,
        "apiserver_conversion_webhook_request_total",
        &["result=\"success\""],
    )
    .await
}

/// The watch cache converts each event once for all watchers of a version: ten watchers in
/// v1beta1 of five new Widgets cost five webhook calls, not fifty (issue 12).
#[tokio::test]
async fn ten_watchers_of_one_version_cost_one_conversion_per_event() {
    let webhook = WidgetWebhook::start();
    let kapi = kapi_with_webhook_crd(&webhook).await;
    let gvk = GroupVersionKind::gvk("golden.example.com", "v1beta1", "Widget");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "widgets");
    let api: Api<DynamicObject> = Api::namespaced_with(kapi.client().await, "default", &ar);
    let rv = api
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut streams = Vec::new();
    for _ in 0..10 {
        let stream = api
            .watch(&WatchParams::default().timeout(20), &rv)
            .await
            .unwrap()
            .boxed();
        streams.push(stream);
    }
    let before = webhook_calls(&kapi).await;
    for i in 0..5 {
        let name = format!("w{i}");
        create(
            &kapi,
            V1A1,
            &widget("v1alpha1", &name, json!({"label": "blue"})),
        )
        .await;
    }
    for stream in &mut streams {
        let mut added = 0;
        while added < 5 {
            match stream.try_next().await.unwrap() {
                Some(WatchEvent::Added(o)) => {
                    assert_eq!(o.data["spec"]["displayName"], "blue");
                    added += 1;
                }
                Some(WatchEvent::Bookmark(_)) => {}
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    assert_eq!(webhook_calls(&kapi).await - before, 5);
}

/// A watcher in a version the webhook converts to is told when the webhook breaks: the
/// change it cannot convert arrives as an ERROR event with a Status (and the watch ends),
/// instead of being skipped in silence (issue 12).
#[tokio::test]
async fn a_watcher_gets_an_error_event_when_the_conversion_webhook_breaks() {
    let mut webhook = WidgetWebhook::start();
    let kapi = kapi_with_webhook_crd(&webhook).await;
    let gvk = GroupVersionKind::gvk("golden.example.com", "v1beta1", "Widget");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "widgets");
    let api: Api<DynamicObject> = Api::namespaced_with(kapi.client().await, "default", &ar);
    let list = api.list(&Default::default()).await.unwrap();
    let rv = list.metadata.resource_version.unwrap();
    let mut stream = api
        .watch(&WatchParams::default().timeout(20), &rv)
        .await
        .unwrap()
        .boxed();
    webhook.kill();
    create(
        &kapi,
        V1A1,
        &widget("v1alpha1", "w1", json!({"label": "blue"})),
    )
    .await;
    let status = loop {
        match stream.try_next().await.unwrap() {
            Some(WatchEvent::Error(status)) => break status,
            Some(WatchEvent::Bookmark(_)) => continue,
            Some(other) => panic!("expected an ERROR event, got {other:?}"),
            None => panic!("watch ended without an ERROR event"),
        }
    };
    assert_eq!(status.code, 500);
    assert!(
        status.message.contains("conversion webhook"),
        "{}",
        status.message
    );
}

#[tokio::test]
async fn write_through_v1beta1_is_stored_in_the_storage_version() {
    let mut webhook = WidgetWebhook::start();
    let kapi = kapi_with_webhook_crd(&webhook).await;
    let created = create(
        &kapi,
        V1B1,
        &widget(
            "v1beta1",
            "w1",
            json!({"displayName": "green", "replicas": 3}),
        ),
    )
    .await;
    assert_eq!(created["apiVersion"], "golden.example.com/v1beta1");
    assert_eq!(created["spec"]["displayName"], "green");
    // With the webhook gone, a v1alpha1 read needs no conversion: the object is stored so.
    webhook.kill();
    let (s, alpha) = read(&kapi, &format!("{V1A1}/w1")).await;
    assert_eq!(s, 200, "{alpha}");
    assert_eq!(alpha["spec"], json!({"label": "green", "replicas": 3}));
    assert_eq!(
        alpha["metadata"]["resourceVersion"],
        created["metadata"]["resourceVersion"]
    );
}

/// A kapi with Widget `w1` stored at v1alpha1 (`label: blue`), and its webhook killed since.
async fn widget_stored_then_webhook_down() -> (WidgetWebhook, Kapi) {
    let mut webhook = WidgetWebhook::start();
    let kapi = kapi_with_webhook_crd(&webhook).await;
    create(
        &kapi,
        V1A1,
        &widget("v1alpha1", "w1", json!({"label": "blue"})),
    )
    .await;
    webhook.kill();
    (webhook, kapi)
}

#[tokio::test]
async fn webhook_down_fails_reads_in_the_other_version_with_500_naming_the_stored_version() {
    let (webhook, kapi) = widget_stored_then_webhook_down().await;
    for path in [format!("{V1B1}/w1"), V1B1.to_string()] {
        let (s, status) = read(&kapi, &path).await;
        assert_eq!(s, 500, "{path}: {status}");
        assert_eq!(status["kind"], "Status");
        assert_eq!(status["code"], 500);
        let message = status["message"].as_str().unwrap();
        let cause = format!(
            "conversion webhook for golden.example.com/v1alpha1, Kind=Widget failed: Post \"{}?timeout=30s\": dial tcp ",
            webhook.url
        );
        assert!(message.contains(&cause), "{path}: {message}");
        assert!(
            message.ends_with("connect: connection refused"),
            "{path}: {message}"
        );
    }
    let (s, alpha) = read(&kapi, &format!("{V1A1}/w1")).await;
    assert_eq!(s, 200, "{alpha}");
    assert_eq!(alpha["spec"]["label"], "blue");
}

#[tokio::test]
async fn webhook_down_fails_a_create_through_v1beta1_with_500_and_stores_nothing() {
    let mut webhook = WidgetWebhook::start();
    let kapi = kapi_with_webhook_crd(&webhook).await;
    webhook.kill();
    let body = widget("v1beta1", "w1", json!({"displayName": "green"}));
    let (s, _, out) = kapi.raw(send("POST", V1B1, JSON, &body)).await;
    let status = json(&out);
    assert_eq!(s, 500, "{status}");
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains(
            "conversion webhook for golden.example.com/v1beta1, Kind=Widget failed: Post \""
        ),
        "{message}"
    );
    let (s, list) = read(&kapi, V1A1).await;
    assert_eq!(s, 200, "{list}");
    assert_eq!(list["items"], json!([]));
}

/// Appendix B.1 (live kube-apiserver 1.36): a failed conversion answers a bare Status — no
/// `reason`, no `details`, no "Internal error occurred: " prefix.
#[tokio::test]
async fn webhook_down_answers_upstreams_bare_500_status() {
    let (webhook, kapi) = widget_stored_then_webhook_down().await;
    let (s, status) = read(&kapi, &format!("{V1B1}/w1")).await;
    assert_eq!(s, 500);
    let message = format!(
        "conversion webhook for golden.example.com/v1alpha1, Kind=Widget failed: Post \"{}?timeout=30s\": dial tcp localhost:{}: connect: connection refused",
        webhook.url, webhook.port
    );
    assert_eq!(
        status,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "code": 500})
    );
}
