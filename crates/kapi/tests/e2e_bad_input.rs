//! Bad input gets kube-apiserver's Status (goldens `error-*.json`) and stores nothing:
//! 413, malformed bodies, kind mismatch, field validation, invalid names, 404/405/406/409/415.

mod e2e_support;

use e2e_support::{Kapi, json};
use kapi_testsupport::golden::golden;

const CM_PATH: &str = "/api/v1/namespaces/golden/configmaps";

fn post(path: &str, content_type: &str, body: impl Into<Vec<u8>>) -> http::Request<Vec<u8>> {
    http::Request::post(path)
        .header("content-type", content_type)
        .header("accept", "application/json")
        .body(body.into())
        .unwrap()
}

async fn golden_ns() -> Kapi {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "golden"]);
    kapi
}

/// The test's ConfigMaps in the namespace (the root CA publisher's `kube-root-ca.crt` aside).
async fn stored_configmaps(kapi: &Kapi) -> usize {
    let req = http::Request::get(CM_PATH).body(Vec::new()).unwrap();
    let (status, _, body) = kapi.raw(req).await;
    assert_eq!(status, 200);
    json(&body)["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|cm| cm["metadata"]["name"] != "kube-root-ca.crt")
        .count()
}

fn cm(name: &str) -> String {
    format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}},"data":{{"a":"b"}}}}"#
    )
}

#[tokio::test]
async fn body_over_3_mib_is_413_and_stores_nothing() {
    let kapi = golden_ns().await;
    let big = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"big"}},"data":{{"a":"{}"}}}}"#,
        "x".repeat(3 * 1024 * 1024)
    );
    let (status, _, body) = kapi.raw(post(CM_PATH, "application/json", big)).await;
    assert_eq!(status, 413);
    assert_eq!(json(&body), golden("error-413-too-large.json"));
    assert_eq!(stored_configmaps(&kapi).await, 0);
}

#[tokio::test]
async fn malformed_json_is_400_naming_the_problem() {
    let kapi = golden_ns().await;
    let (status, _, body) = kapi
        .raw(post(CM_PATH, "application/json", "{not json"))
        .await;
    assert_eq!(status, 400);
    let v = json(&body);
    assert_eq!(v["reason"], "BadRequest");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.starts_with("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: "),
        "{msg}"
    );
    assert!(msg.ends_with("({not json)"), "{msg}");
    assert_eq!(stored_configmaps(&kapi).await, 0);
}

#[tokio::test]
async fn kind_not_matching_the_url_is_400() {
    let kapi = golden_ns().await;
    let secret = r#"{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}"#;
    let (status, _, body) = kapi.raw(post(CM_PATH, "application/json", secret)).await;
    assert_eq!(status, 400);
    assert_eq!(json(&body), golden("error-400-gvk-mismatch.json"));
    assert_eq!(stored_configmaps(&kapi).await, 0);
}

const STRICT_BODY: &str = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict"},"bogus":1,"data":{"a":"b"},"data":{"a":"c"}}"#;

#[tokio::test]
async fn field_validation_strict_is_400_listing_unknown_and_duplicate_fields() {
    let kapi = golden_ns().await;
    let path = format!("{CM_PATH}?fieldValidation=Strict");
    let (status, _, body) = kapi.raw(post(&path, "application/json", STRICT_BODY)).await;
    assert_eq!(status, 400);
    assert_eq!(json(&body), golden("error-400-strict.json"));
    assert_eq!(stored_configmaps(&kapi).await, 0);
}

#[tokio::test]
async fn field_validation_warn_answers_one_warning_header_per_problem() {
    let kapi = golden_ns().await;
    let body = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warn"},"bogus":1}"#;
    let path = format!("{CM_PATH}?fieldValidation=Warn&dryRun=All");
    let (status, headers, _) = kapi.raw(post(&path, "application/json", body)).await;
    assert_eq!(status, 201);
    let warnings: Vec<_> = headers.get_all("warning").iter().collect();
    assert_eq!(warnings, vec![r#"299 - "unknown field \"bogus\"""#]);
    assert_eq!(stored_configmaps(&kapi).await, 0, "dryRun stores nothing");
}

#[tokio::test]
async fn field_validation_ignore_accepts_silently() {
    let kapi = golden_ns().await;
    let path = format!("{CM_PATH}?fieldValidation=Ignore");
    let (status, headers, body) = kapi.raw(post(&path, "application/json", STRICT_BODY)).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&body));
    assert!(headers.get("warning").is_none());
    assert_eq!(json(&body)["data"]["a"], "c", "the last duplicate wins");
}

#[tokio::test]
async fn invalid_name_is_422_with_causes() {
    let kapi = golden_ns().await;
    let (status, _, body) = kapi
        .raw(post(CM_PATH, "application/json", cm("Bad_Name")))
        .await;
    assert_eq!(status, 422);
    assert_eq!(json(&body), golden("error-422-invalid-name.json"));
    assert_eq!(stored_configmaps(&kapi).await, 0);
}

#[tokio::test]
async fn unsupported_content_type_is_415() {
    let kapi = golden_ns().await;
    let (status, _, body) = kapi.raw(post(CM_PATH, "application/xml", "<cm/>")).await;
    assert_eq!(status, 415);
    assert_eq!(json(&body), golden("error-415-unsupported-content.json"));
    assert_eq!(stored_configmaps(&kapi).await, 0);
}

#[tokio::test]
async fn unsupported_accept_is_406() {
    let kapi = golden_ns().await;
    kapi.raw(post(CM_PATH, "application/json", cm("cfg"))).await;
    let req = http::Request::get(format!("{CM_PATH}/cfg"))
        .header("accept", "application/xml")
        .body(Vec::new())
        .unwrap();
    let (status, _, body) = kapi.raw(req).await;
    assert_eq!(status, 406);
    assert_eq!(json(&body), golden("error-406-unsupported-accept.json"));
}

#[tokio::test]
async fn post_to_a_named_object_is_405() {
    let kapi = golden_ns().await;
    let path = format!("{CM_PATH}/cfg");
    let (status, _, body) = kapi.raw(post(&path, "application/json", cm("cfg"))).await;
    assert_eq!(status, 405);
    assert_eq!(json(&body), golden("error-405-method.json"));
    assert_eq!(stored_configmaps(&kapi).await, 0);
}

#[tokio::test]
async fn missing_object_is_404_status() {
    let kapi = golden_ns().await;
    let req = http::Request::get(format!("{CM_PATH}/missing"))
        .body(Vec::new())
        .unwrap();
    let (status, _, body) = kapi.raw(req).await;
    assert_eq!(status, 404);
    assert_eq!(json(&body), golden("error-404-notfound.json"));
}

#[tokio::test]
async fn duplicate_create_is_409_already_exists() {
    let kapi = golden_ns().await;
    let (first, _, _) = kapi.raw(post(CM_PATH, "application/json", cm("cfg"))).await;
    assert_eq!(first, 201);
    let (status, _, body) = kapi.raw(post(CM_PATH, "application/json", cm("cfg"))).await;
    assert_eq!(status, 409);
    assert_eq!(json(&body), golden("error-409-alreadyexists.json"));
}

#[tokio::test]
async fn update_with_a_stale_resource_version_is_409_conflict() {
    let kapi = golden_ns().await;
    let (_, _, created) = kapi.raw(post(CM_PATH, "application/json", cm("cfg"))).await;
    let mut obj = json(&created);
    let put = |obj: &serde_json::Value| {
        http::Request::put(format!("{CM_PATH}/cfg"))
            .header("content-type", "application/json")
            .body(serde_json::to_vec(obj).unwrap())
            .unwrap()
    };
    obj["data"]["a"] = "first".into();
    let (status, _, _) = kapi.raw(put(&obj)).await;
    assert_eq!(status, 200);
    obj["data"]["a"] = "stale".into();
    let (status, _, body) = kapi.raw(put(&obj)).await;
    assert_eq!(status, 409);
    assert_eq!(json(&body), golden("error-409-conflict.json"));
}

#[tokio::test]
async fn unknown_path_is_plain_404_page_not_found() {
    let kapi = golden_ns().await;
    let req = http::Request::get("/apis/nope.example.com/v1/widgets")
        .body(Vec::new())
        .unwrap();
    let (status, headers, body) = kapi.raw(req).await;
    assert_eq!(status, 404);
    assert_eq!(headers["content-type"], "text/plain; charset=utf-8");
    assert_eq!(body, b"404 page not found\n");
}

#[tokio::test]
async fn invalid_label_value_is_422_and_stores_nothing() {
    let kapi = golden_ns().await;
    let body = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"l","labels":{"app":"bad value"}}}"#;
    let (status, _, resp) = kapi.raw(post(CM_PATH, "application/json", body)).await;
    assert_eq!(status, 422);
    let v = json(&resp);
    assert_eq!(v["reason"], "Invalid");
    assert_eq!(v["details"]["causes"][0]["field"], "metadata.labels");
    assert_eq!(stored_configmaps(&kapi).await, 0);
}
