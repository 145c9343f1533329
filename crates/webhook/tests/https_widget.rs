//! The example Widget webhook as a real process over HTTPS: what kube-apiserver sent in the
//! golden exchanges gets the answer it accepted; v1 and v1beta1 reviews; lists; HTTP/1.1 and
//! HTTP/2; malformed reviews (400) and per-object failures (Failure result).

mod common;

use common::{WidgetWebhook, client, golden, kube_apiserver_accepts};
use kapi_webhook::{ConversionReview, ReviewVersion};
use serde_json::{Value, json};

async fn post(hook: &WidgetWebhook, body: Vec<u8>) -> (reqwest::StatusCode, Vec<u8>) {
    let response = client(&hook.certs.ca_pem, false)
        .post(&hook.url)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    (response.status(), response.bytes().await.unwrap().to_vec())
}

async fn convert(hook: &WidgetWebhook, review: &ConversionReview) -> Value {
    let (status, body) = post(hook, serde_json::to_vec(review).unwrap()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

fn widget(version: &str, name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": format!("golden.example.com/{version}"),
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "golden-crd", "uid": format!("uid-{name}"),
                     "creationTimestamp": "2026-11-29T12:55:12Z", "generation": 1},
        "spec": spec,
    })
}

#[tokio::test]
async fn golden_get_exchange_gets_the_answer_kube_apiserver_accepted() {
    let hook = WidgetWebhook::start();
    let exchange = &golden("webhook-exchange-get.json")[0];
    let (status, body) = post(&hook, serde_json::to_vec(&exchange["body"]).unwrap()).await;
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_slice(&body).unwrap();
    let recorded = &exchange["response"]["response"];
    assert_eq!(
        answer["response"]["convertedObjects"],
        recorded["convertedObjects"]
    );
    assert_eq!(answer["response"]["uid"], recorded["uid"]);
    let request: ConversionReview = serde_json::from_value(exchange["body"].clone()).unwrap();
    kube_apiserver_accepts(&request, &answer).unwrap();
}

#[tokio::test]
async fn golden_list_exchanges_get_the_answers_kube_apiserver_accepted() {
    let hook = WidgetWebhook::start();
    for exchange in golden("webhook-exchange-list.json").as_array().unwrap() {
        let request: ConversionReview = serde_json::from_value(exchange["body"].clone()).unwrap();
        let answer = convert(&hook, &request).await;
        let recorded = &exchange["response"]["response"];
        assert_eq!(
            answer["response"]["convertedObjects"],
            recorded["convertedObjects"]
        );
        kube_apiserver_accepts(&request, &answer).unwrap();
    }
}

#[tokio::test]
async fn v1beta1_review_is_answered_in_v1beta1() {
    let hook = WidgetWebhook::start();
    let objects = vec![widget(
        "v1alpha1",
        "w1",
        json!({"label": "a", "replicas": 2}),
    )];
    let review = ConversionReview::new_request(
        ReviewVersion::V1beta1,
        "u-1",
        "golden.example.com/v1beta1",
        objects,
    );
    let answer = convert(&hook, &review).await;
    assert_eq!(answer["apiVersion"], "apiextensions.k8s.io/v1beta1");
    assert_eq!(answer["kind"], "ConversionReview");
    assert_eq!(
        answer["response"]["convertedObjects"][0]["spec"],
        json!({"displayName": "a", "replicas": 2})
    );
    kube_apiserver_accepts(&review, &answer).unwrap();
}

#[tokio::test]
async fn v1beta1_objects_convert_back_to_v1alpha1() {
    let hook = WidgetWebhook::start();
    let objects = vec![widget(
        "v1beta1",
        "w2",
        json!({"displayName": "beta", "replicas": 1}),
    )];
    let review = ConversionReview::new_request(
        ReviewVersion::V1,
        "u-2",
        "golden.example.com/v1alpha1",
        objects,
    );
    let answer = convert(&hook, &review).await;
    assert_eq!(
        answer["response"]["convertedObjects"][0]["spec"],
        json!({"label": "beta", "replicas": 1})
    );
    kube_apiserver_accepts(&review, &answer).unwrap();
}

#[tokio::test]
async fn list_review_keeps_count_and_order() {
    let hook = WidgetWebhook::start();
    let objects: Vec<Value> = (0..300)
        .map(|i| {
            widget(
                "v1alpha1",
                &format!("w{i}"),
                json!({"label": format!("l{i}")}),
            )
        })
        .collect();
    let review = ConversionReview::new_request(
        ReviewVersion::V1,
        "u-3",
        "golden.example.com/v1beta1",
        objects,
    );
    let answer = convert(&hook, &review).await;
    let converted = answer["response"]["convertedObjects"].as_array().unwrap();
    let names: Vec<&str> = converted
        .iter()
        .map(|o| o["metadata"]["name"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (0..300).map(|i| format!("w{i}")).collect();
    assert_eq!(names, expected);
    kube_apiserver_accepts(&review, &answer).unwrap();
}

#[tokio::test]
async fn serves_http2_when_negotiated() {
    let hook = WidgetWebhook::start();
    let response = client(&hook.certs.ca_pem, false)
        .get(hook.url.replace("/convert", "/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.version(), reqwest::Version::HTTP_2);
}

#[tokio::test]
async fn serves_http1_as_kube_apiserver_forces_for_service_webhooks() {
    let hook = WidgetWebhook::start();
    let review = ConversionReview::new_request(
        ReviewVersion::V1,
        "u-4",
        "golden.example.com/v1beta1",
        vec![widget("v1alpha1", "w", json!({}))],
    );
    let response = client(&hook.certs.ca_pem, true)
        .post(&hook.url)
        .json(&review)
        .send()
        .await
        .unwrap();
    assert_eq!(response.version(), reqwest::Version::HTTP_11);
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn body_that_is_not_json_gets_400_with_the_reason() {
    let hook = WidgetWebhook::start();
    let (status, body) = post(&hook, b"not json".to_vec()).await;
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("not a ConversionReview"));
}

#[tokio::test]
async fn review_of_another_kind_gets_400_naming_it() {
    let hook = WidgetWebhook::start();
    let body =
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}});
    let (status, text) = post(&hook, serde_json::to_vec(&body).unwrap()).await;
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&text).contains("AdmissionReview"));
}

#[tokio::test]
async fn review_without_request_gets_400() {
    let hook = WidgetWebhook::start();
    let body = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"});
    let (status, text) = post(&hook, serde_json::to_vec(&body).unwrap()).await;
    assert_eq!(status, 400);
    assert_eq!(
        String::from_utf8_lossy(&text),
        "ConversionReview has no request"
    );
}

#[tokio::test]
async fn unknown_kind_answers_failure_with_message_and_same_uid() {
    let hook = WidgetWebhook::start();
    let mut gadget = widget("v1alpha1", "g1", json!({}));
    gadget["kind"] = json!("Gadget");
    let review = ConversionReview::new_request(
        ReviewVersion::V1,
        "u-5",
        "golden.example.com/v1beta1",
        vec![gadget],
    );
    let answer = convert(&hook, &review).await;
    assert_eq!(answer["response"]["uid"], "u-5");
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    let message = answer["response"]["result"]["message"].as_str().unwrap();
    assert!(
        message.contains("converting object 0 (golden.example.com/v1alpha1 Gadget golden-crd/g1)"),
        "{message}"
    );
}

#[tokio::test]
async fn invalid_desired_api_version_answers_failure() {
    let hook = WidgetWebhook::start();
    let review = ConversionReview::new_request(ReviewVersion::V1, "u-6", "a/b/c", vec![]);
    let answer = convert(&hook, &review).await;
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    assert_eq!(
        answer["response"]["result"]["message"],
        "invalid desiredAPIVersion \"a/b/c\""
    );
}

#[tokio::test]
async fn unregistered_desired_version_answers_failure() {
    let hook = WidgetWebhook::start();
    let review = ConversionReview::new_request(
        ReviewVersion::V1,
        "u-7",
        "golden.example.com/v9",
        vec![widget("v1alpha1", "w", json!({}))],
    );
    let answer = convert(&hook, &review).await;
    assert_eq!(answer["response"]["result"]["status"], "Failure");
    assert!(answer["response"]["convertedObjects"].is_null());
}
