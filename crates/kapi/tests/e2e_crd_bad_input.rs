//! Bad input to custom resources and CRDs gets kube-apiserver's Status (goldens under
//! `crd/`) and stores nothing: schema and CEL 422s, invalid CRDs, wrong apiVersion,
//! fieldValidation Strict/Warn/Ignore, strategic merge patch 415, protobuf 406.

mod e2e_support;

mod e2e_crd_support;

use e2e_crd_support::*;
use e2e_support::{Kapi, json};
use kapi_testsupport::golden::golden;

#[tokio::test]
async fn schema_violations_are_422_with_every_cause_and_store_nothing() {
    let kapi = widget_kapi().await;
    let bad = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"bad"},"spec":{"label":"far-too-long-label","replicas":-1}}"#;
    let (s, _, body) = kapi.raw(send("POST", V1A1, "application/json", bad)).await;
    assert_eq!(s, 422, "{}", String::from_utf8_lossy(&body));
    let v = json(&body);
    assert_eq!(v["reason"], "Invalid");
    let causes = v["details"]["causes"].as_array().unwrap();
    let fields: Vec<&str> = causes
        .iter()
        .map(|c| c["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields[..2], ["spec.label", "spec.replicas"], "{v}");
    assert_eq!(causes[0]["reason"], "FieldValueTooLong");
    assert_eq!(stored_widgets(&kapi).await, 0);
}

#[tokio::test]
async fn cel_violation_is_422_with_the_rule_message_and_stores_nothing() {
    let kapi = widget_kapi().await;
    let bad = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"bad"},"spec":{"replicas":11}}"#;
    let (s, _, body) = kapi.raw(send("POST", V1A1, "application/json", bad)).await;
    assert_eq!(s, 422, "{}", String::from_utf8_lossy(&body));
    let v = json(&body);
    let cause = &v["details"]["causes"][0];
    assert_eq!(cause["field"], "spec");
    assert_eq!(
        cause["message"],
        "Invalid value: replicas must be at most 10"
    );
    assert_eq!(stored_widgets(&kapi).await, 0);
}

#[tokio::test]
async fn invalid_crd_is_422_and_stores_nothing() {
    let kapi = Kapi::start().await;
    let two = widget_crd("v1alpha1", true, true).replace(
        r#""served":true,"storage":false"#,
        r#""served":true,"storage":true"#,
    );
    let (s, _, body) = kapi
        .raw(send(
            "POST",
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
            "application/json",
            &two,
        ))
        .await;
    assert_eq!(s, 422, "{}", String::from_utf8_lossy(&body));
    let v = json(&body);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("must have exactly one version marked as storage version"),
        "{v}"
    );
    let out = kapi.kubectl(&["get", "crd", CRD]);
    assert!(!out.status.success());
}

#[tokio::test]
async fn wrong_api_version_is_400_as_kube_apiserver() {
    let kapi = widget_kapi().await;
    let body =
        r#"{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w"},"spec":{}}"#;
    let (s, _, resp) = kapi.raw(send("POST", V1A1, "application/json", body)).await;
    assert_eq!(s, 400);
    let want = golden("error-400-cr-wrong-apiversion.json");
    let want_msg = want["message"]
        .as_str()
        .unwrap()
        .replace("golden.example.com", "example.com");
    assert_eq!(json(&resp)["message"], want_msg.as_str());
    assert_eq!(stored_widgets(&kapi).await, 0);
}

#[tokio::test]
async fn strict_field_validation_lists_duplicate_and_unknown_fields() {
    let kapi = widget_kapi().await;
    let body = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{"replicas":1,"replicas":2,"extra":1}}"#;
    let path = format!("{V1A1}?fieldValidation=Strict");
    let (s, _, resp) = kapi
        .raw(send("POST", &path, "application/json", body))
        .await;
    assert_eq!(s, 400);
    assert_eq!(
        json(&resp)["message"],
        golden("error-400-cr-strict.json")["message"]
    );
    assert_eq!(stored_widgets(&kapi).await, 0);
}

#[tokio::test]
async fn warn_field_validation_sends_unknown_fields_as_warnings() {
    let kapi = widget_kapi().await;
    let body = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{"extra":1}}"#;
    let (s, headers, _) = kapi.raw(send("POST", V1A1, "application/json", body)).await;
    assert_eq!(s, 201);
    let warnings: Vec<_> = headers
        .get_all("warning")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        warnings,
        vec![r#"299 - "unknown field \"spec.extra\"""#.to_owned()]
    );
}

#[tokio::test]
async fn strategic_merge_patch_is_415_and_protobuf_is_406() {
    let kapi = widget_kapi().await;
    kapi.kubectl_ok(&["create", "-f", &file(&kapi, "w.json", r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{}}"#)]);
    let (s, _, body) = kapi
        .raw(send(
            "PATCH",
            &format!("{V1A1}/w"),
            "application/strategic-merge-patch+json",
            "{}",
        ))
        .await;
    assert_eq!(s, 415);
    assert_eq!(
        json(&body),
        golden("error-415-cr-strategic-merge-patch.json")
    );
    let req = http::Request::get(format!("{V1A1}/w"))
        .header("accept", "application/vnd.kubernetes.protobuf")
        .body(Vec::new())
        .unwrap();
    let (s, headers, body) = kapi.raw(req).await;
    assert_eq!(s, 406);
    // kube negotiates the error itself: the golden 406 is a protobuf Status.
    assert_eq!(
        headers["content-type"],
        "application/vnd.kubernetes.protobuf"
    );
    let golden_pb = std::fs::read(kapi_testsupport::golden::golden_path(
        "error-406-cr-protobuf.pb",
    ))
    .unwrap();
    assert_eq!(body[..4], golden_pb[..4]);
    let status = |b: &[u8]| -> kapi_machinery::meta::v1::Status {
        let unknown = kapi_machinery::serializer::protobuf::read_unknown_message(&b[4..]).unwrap();
        assert_eq!(
            (unknown.api_version.as_str(), unknown.kind.as_str()),
            ("v1", "Status")
        );
        prost::Message::decode(unknown.raw.as_slice()).unwrap()
    };
    let (got, want) = (status(&body), status(&golden_pb));
    assert_eq!((got.code, got.reason), (want.code, want.reason));
}

#[tokio::test]
async fn ignore_field_validation_prunes_silently() {
    let kapi = widget_kapi().await;
    let body = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w"},"spec":{"extra":1}}"#;
    let path = format!("{V1A1}?fieldValidation=Ignore");
    let (s, headers, resp) = kapi
        .raw(send("POST", &path, "application/json", body))
        .await;
    assert_eq!(s, 201);
    assert!(headers.get("warning").is_none());
    assert!(json(&resp)["spec"].get("extra").is_none());
}
