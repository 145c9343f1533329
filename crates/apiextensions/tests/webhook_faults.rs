//! Every way a conversion webhook can fail gives kube-apiserver's message (R4.25–R4.31,
//! Appendix B.1) and changes nothing: the object stays readable in its stored version.

mod webhook_common;

use axum::http::StatusCode;
use kapi_apiextensions::webhook::FailureReason;
use kapi_apiextensions::{
    ConversionError, CrConverter, CustomResourceSchemas, WebhookEnvironment, convert_one,
    converter_for_with,
};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use webhook_common::*;

const V1BETA1: &str = "golden.example.com/v1beta1";
const GVK: &str = "golden.example.com/v1alpha1, Kind=Widget";
const CRD: &str = "widgets.golden.example.com";

async fn tampered(
    tamper: Tamper,
) -> (
    TamperingWebhook,
    Arc<WebhookEnvironment>,
    Arc<dyn CrConverter>,
) {
    let hook = TamperingWebhook::start(tamper, Duration::ZERO).await;
    let env = env(Duration::from_secs(30));
    let crd = widget_crd(&hook.url, &hook.certs.ca_pem, &["v1"]);
    let c = converter_for_with(&crd, env.clone()).unwrap();
    (hook, env, c)
}

async fn fail_one(tamper: Tamper) -> String {
    let (_hook, _env, c) = tampered(tamper).await;
    let err = convert_one(&*c, widget("w-get", "x"), V1BETA1)
        .await
        .unwrap_err();
    assert!(matches!(err, ConversionError::Webhook(_)), "{err:?}");
    err.to_string()
}

#[tokio::test]
async fn webhook_down_is_a_connection_refused_call_failure() {
    let port = kapi_testsupport::net::free_port();
    let certs = make_certs();
    let url = format!("https://127.0.0.1:{port}/convert");
    let c = converter_for_with(
        &widget_crd(&url, &certs.ca_pem, &["v1"]),
        env(Duration::from_secs(30)),
    )
    .unwrap();
    let err = convert_one(&*c, widget("w", "x"), V1BETA1)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "conversion webhook for {GVK} failed: Post \"https://127.0.0.1:{port}/convert?timeout=30s\": dial tcp 127.0.0.1:{port}: connect: connection refused"
        )
    );
}

#[tokio::test]
async fn wrong_uid_is_refused_with_the_request_uid() {
    let msg = fail_one(Arc::new(|mut a: Value| {
        a["response"]["uid"] = json!("00000000-0000-0000-0000-000000000000");
        ok(a)
    }))
    .await;
    let prefix = format!("conversion webhook for {GVK} failed: expected response.uid=\"");
    assert!(msg.starts_with(&prefix), "{msg}");
    assert!(
        msg.ends_with("\", got \"00000000-0000-0000-0000-000000000000\""),
        "{msg}"
    );
}

#[tokio::test]
async fn a_renamed_object_is_refused() {
    let msg = fail_one(Arc::new(|mut a: Value| {
        a["response"]["convertedObjects"][0]["metadata"]["name"] = json!("w-get-renamed");
        ok(a)
    }))
    .await;
    assert_eq!(
        msg,
        format!(
            "conversion webhook for {GVK} returned invalid object: must have the same name: w-get != w-get-renamed"
        )
    );
}

#[tokio::test]
async fn a_failure_result_shows_the_webhook_message() {
    let msg = fail_one(Arc::new(|mut a: Value| {
        a["response"]["result"] = json!({"status": "Failure", "message": "ref-webhook refuses: label is not convertible"});
        a["response"]["convertedObjects"] = Value::Null;
        ok(a)
    }))
    .await;
    assert_eq!(
        msg,
        format!(
            "conversion webhook for {GVK} failed: ref-webhook refuses: label is not convertible"
        )
    );
}

#[tokio::test]
async fn a_failure_result_without_message_names_the_status() {
    let msg = fail_one(Arc::new(|mut a: Value| {
        a["response"]["result"] = json!({"status": "Failure"});
        ok(a)
    }))
    .await;
    assert_eq!(
        msg,
        format!(
            "conversion webhook for {GVK} failed: response.result.status was 'Failure', not 'Success'"
        )
    );
}

#[tokio::test]
async fn a_json_string_answer_is_not_a_review() {
    let msg = fail_one(Arc::new(|_| (StatusCode::OK, b"\"not json\"".to_vec()))).await;
    assert_eq!(
        msg,
        format!(
            "conversion webhook for {GVK} failed: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }}"
        )
    );
}

#[tokio::test]
async fn an_answer_that_is_not_json_is_a_parse_error() {
    let msg = fail_one(Arc::new(|_| {
        (StatusCode::OK, b"<html>oops</html>".to_vec())
    }))
    .await;
    assert_eq!(
        msg,
        format!(
            "conversion webhook for {GVK} failed: couldn't get version/kind; json parse error: invalid character '<' looking for beginning of value"
        )
    );
}

#[tokio::test]
async fn a_wrong_object_count_is_refused() {
    let msg = fail_one(Arc::new(|mut a: Value| {
        let first = a["response"]["convertedObjects"][0].clone();
        a["response"]["convertedObjects"] = json!([first.clone(), first]);
        ok(a)
    }))
    .await;
    assert_eq!(
        msg,
        format!("conversion webhook for {GVK} returned 2 objects, expected 1")
    );
}

#[tokio::test]
async fn a_wrong_api_version_is_refused() {
    let msg = fail_one(Arc::new(|mut a: Value| {
        a["response"]["convertedObjects"][0]["apiVersion"] = json!("golden.example.com/v1alpha1");
        ok(a)
    }))
    .await;
    assert_eq!(
        msg,
        format!(
            "conversion webhook for {GVK} returned invalid object at index 0: invalid groupVersion (expected golden.example.com/v1beta1, received golden.example.com/v1alpha1)"
        )
    );
}

#[tokio::test]
async fn a_v1_answer_in_v1beta1_is_refused() {
    let msg = fail_one(Arc::new(|mut a: Value| {
        a["apiVersion"] = json!("apiextensions.k8s.io/v1beta1");
        ok(a)
    }))
    .await;
    assert_eq!(
        msg,
        format!(
            "conversion webhook for {GVK} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview"
        )
    );
}

#[tokio::test]
async fn a_server_error_status_carries_the_body() {
    let msg = fail_one(Arc::new(|_| {
        (StatusCode::INTERNAL_SERVER_ERROR, b"boom".to_vec())
    }))
    .await;
    assert_eq!(
        msg,
        format!(
            "conversion webhook for {GVK} failed: an error on the server (\"unknown\") has prevented the request from succeeding"
        )
    );
}

#[tokio::test]
async fn a_webhook_slower_than_the_timeout_fails_with_the_deadline() {
    let hook = TamperingWebhook::start(Arc::new(ok), Duration::from_secs(5)).await;
    let crd = widget_crd(&hook.url, &hook.certs.ca_pem, &["v1"]);
    let c = converter_for_with(&crd, env(Duration::from_millis(200))).unwrap();
    let err = convert_one(&*c, widget("w", "x"), V1BETA1)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "conversion webhook for {GVK} failed: Post \"{}?timeout=200ms\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
            hook.url
        )
    );
}

#[tokio::test]
async fn a_certificate_not_signed_by_the_ca_bundle_is_refused() {
    let hook = TamperingWebhook::start(Arc::new(ok), Duration::ZERO).await;
    let other_ca = make_certs().ca_pem;
    let c = converter_for_with(
        &widget_crd(&hook.url, &other_ca, &["v1"]),
        env(Duration::from_secs(30)),
    )
    .unwrap();
    let err = convert_one(&*c, widget("w", "x"), V1BETA1)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "conversion webhook for {GVK} failed: Post \"{}?timeout=30s\": tls: failed to verify certificate: x509: certificate signed by unknown authority",
            hook.url
        )
    );
}

#[tokio::test]
async fn no_spoken_review_version_is_a_clear_error() {
    let certs = make_certs();
    let crd = widget_crd("https://127.0.0.1:1/convert", &certs.ca_pem, &["v2"]);
    let c = converter_for_with(&crd, env(Duration::from_secs(30))).unwrap();
    let err = convert_one(&*c, widget("w", "x"), V1BETA1)
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "no supported conversion review versions");
}

#[tokio::test]
async fn a_bad_list_item_is_named_with_upstreams_index() {
    let (_hook, _env, c) = tampered(Arc::new(|mut a: Value| {
        a["response"]["convertedObjects"][1]["metadata"]["namespace"] = json!("elsewhere");
        ok(a)
    }))
    .await;
    let err = c
        .convert(vec![widget("a", "x"), widget("b", "y")], V1BETA1)
        .await
        .unwrap_err();
    // Upstream increments its index before the check, so the second object is "index 2".
    assert_eq!(
        err.to_string(),
        format!(
            "conversion webhook for {GVK} returned invalid converted object at index 2: must have the same namespace: default != elsewhere"
        )
    );
}

#[tokio::test]
async fn failures_are_counted_by_reason_per_crd() {
    let (_hook, env, c) = tampered(Arc::new(|mut a: Value| {
        a["response"]["uid"] = json!("x");
        ok(a)
    }))
    .await;
    let _ = convert_one(&*c, widget("w", "x"), V1BETA1).await;
    assert_eq!(
        env.metrics()
            .failures(CRD, FailureReason::MalformedResponse),
        1
    );
    assert!(env.metrics().render().contains("result=\"failure\""));
}

#[tokio::test]
async fn a_failed_conversion_leaves_the_object_readable_in_its_stored_version() {
    let (_hook, _env, _c) = tampered(Arc::new(|_| (StatusCode::OK, b"{}".to_vec()))).await;
    let crd = widget_crd(&_hook.url, &_hook.certs.ca_pem, &["v1"]);
    let schemas = CustomResourceSchemas::new(&crd).unwrap();
    let stored = widget("w", "x");
    assert!(
        schemas
            .from_storage(stored.clone(), "v1beta1")
            .await
            .is_err()
    );
    let read = schemas
        .from_storage(stored.clone(), "v1alpha1")
        .await
        .unwrap();
    assert_eq!(read["spec"], stored["spec"]);
}
