//! Over real HTTPS: every write verb goes through the one REST layer, so the rules that had
//! drifted between PUT, PATCH and `/scale` now hold for all of them (issue 12): labels
//! validated on update, CAS conflicts retried for patches and answered 409 for a stale PUT,
//! field validation on patches and Scale bodies, DeleteOptions in protobuf, options that do
//! not parse.

mod e2e_support;

use e2e_support::{Kapi, json, metric_sum};
use http::Request;
use prost::Message;

const CM_PATH: &str = "/api/v1/namespaces/rest/configmaps";

async fn kapi_with_namespace() -> Kapi {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "rest"]);
    kapi
}

fn request(
    method: &str,
    path: &str,
    content_type: &str,
    body: impl Into<Vec<u8>>,
) -> Request<Vec<u8>> {
    Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .header("accept", "application/json")
        .body(body.into())
        .unwrap()
}

async fn create_cm(kapi: &Kapi, name: &str) -> serde_json::Value {
    let body = format!(
        r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}},"data":{{"a":"b"}}}}"#
    );
    let (status, _, resp) = kapi
        .raw(request("POST", CM_PATH, "application/json", body))
        .await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&resp));
    json(&resp)
}

/// A request without a body: the status and the JSON answer.
async fn bodiless(kapi: &Kapi, method: &str, path: &str) -> (u16, serde_json::Value) {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .body(Vec::new())
        .unwrap();
    let (status, _, body) = kapi.raw(req).await;
    (status, json(&body))
}

async fn get_cm(kapi: &Kapi, name: &str) -> (u16, serde_json::Value) {
    bodiless(kapi, "GET", &format!("{CM_PATH}/{name}")).await
}

#[tokio::test]
async fn a_put_with_an_invalid_label_is_422_and_changes_nothing() {
    let kapi = kapi_with_namespace().await;
    let before = create_cm(&kapi, "a").await;
    let body = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"app":"bad value"}},"data":{"a":"c"}}"#;
    let (status, _, resp) = kapi
        .raw(request(
            "PUT",
            &format!("{CM_PATH}/a"),
            "application/json",
            body,
        ))
        .await;
    assert_eq!(status, 422);
    let resp = json(&resp);
    assert_eq!(resp["reason"], "Invalid");
    assert_eq!(resp["details"]["causes"][0]["field"], "metadata.labels");
    assert_eq!(get_cm(&kapi, "a").await.1, before);
}

#[tokio::test]
async fn a_patch_with_an_invalid_label_is_422_and_changes_nothing() {
    let kapi = kapi_with_namespace().await;
    let before = create_cm(&kapi, "a").await;
    let patch = r#"{"metadata":{"labels":{"app":"bad value"}}}"#;
    let (status, _, resp) = kapi
        .raw(request(
            "PATCH",
            &format!("{CM_PATH}/a"),
            "application/merge-patch+json",
            patch,
        ))
        .await;
    assert_eq!(status, 422);
    assert_eq!(
        json(&resp)["details"]["causes"][0]["field"],
        "metadata.labels"
    );
    assert_eq!(get_cm(&kapi, "a").await.1, before);
}

#[tokio::test]
async fn a_put_with_a_stale_resource_version_is_409() {
    let kapi = kapi_with_namespace().await;
    let created = create_cm(&kapi, "a").await;
    let rv = created["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = |v: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"a","resourceVersion":"{rv}"}},"data":{{"a":"{v}"}}}}"#
        )
    };
    let (status, _, _) = kapi
        .raw(request(
            "PUT",
            &format!("{CM_PATH}/a"),
            "application/json",
            body("first"),
        ))
        .await;
    assert_eq!(status, 200);
    let (status, _, resp) = kapi
        .raw(request(
            "PUT",
            &format!("{CM_PATH}/a"),
            "application/json",
            body("second"),
        ))
        .await;
    assert_eq!(status, 409);
    assert_eq!(json(&resp)["reason"], "Conflict");
    assert_eq!(get_cm(&kapi, "a").await.1["data"]["a"], "first");
}

/// R8.18: patches without a resourceVersion are retried on conflicts, so concurrent
/// patches of one object all land.
#[tokio::test]
async fn concurrent_patches_of_one_object_all_land() {
    let kapi = kapi_with_namespace().await;
    create_cm(&kapi, "a").await;
    let patches = (0..24).map(|i| {
        let kapi = &kapi;
        async move {
            let patch = format!(r#"[{{"op":"add","path":"/data/k{i}","value":"v"}}]"#);
            let (status, _, resp) = kapi
                .raw(request(
                    "PATCH",
                    &format!("{CM_PATH}/a"),
                    "application/json-patch+json",
                    patch,
                ))
                .await;
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&resp));
        }
    });
    futures::future::join_all(patches).await;
    let data = get_cm(&kapi, "a").await.1["data"].clone();
    assert_eq!(data.as_object().unwrap().len(), 25, "{data}");
}

#[tokio::test]
async fn a_strict_patch_with_an_unknown_field_is_400() {
    let kapi = kapi_with_namespace().await;
    let before = create_cm(&kapi, "a").await;
    let patch = r#"{"data":{"a":"c"},"bogus":1}"#;
    let path = format!("{CM_PATH}/a?fieldValidation=Strict");
    let (status, _, resp) = kapi
        .raw(request(
            "PATCH",
            &path,
            "application/merge-patch+json",
            patch,
        ))
        .await;
    assert_eq!(status, 400, "{}", String::from_utf8_lossy(&resp));
    assert!(
        json(&resp)["message"]
            .as_str()
            .unwrap()
            .contains("unknown field \"bogus\"")
    );
    assert_eq!(get_cm(&kapi, "a").await.1, before);
}

#[tokio::test]
async fn a_patch_with_an_unknown_field_warns_by_default() {
    let kapi = kapi_with_namespace().await;
    create_cm(&kapi, "a").await;
    let patch = r#"{"bogus":1}"#;
    let (status, headers, _) = kapi
        .raw(request(
            "PATCH",
            &format!("{CM_PATH}/a"),
            "application/merge-patch+json",
            patch,
        ))
        .await;
    assert_eq!(status, 200);
    let warning = headers
        .get("warning")
        .expect("a Warning header")
        .to_str()
        .unwrap();
    assert!(warning.contains("unknown field \\\"bogus\\\""), "{warning}");
}

/// A DeleteOptions body as client-go sends it when configured for protobuf: the `k8s\0`
/// envelope around the message, with a uid precondition.
fn protobuf_delete_options(uid: &str, propagation: Option<&str>) -> Vec<u8> {
    let wire = kapi_machinery::meta::v1::DeleteOptions {
        preconditions: Some(kapi_machinery::meta::v1::Preconditions {
            uid: Some(uid.to_owned()),
            resource_version: None,
        }),
        propagation_policy: propagation.map(str::to_owned),
        ..Default::default()
    };
    let mut body = b"k8s\0".to_vec();
    kapi_machinery::serializer::protobuf::write_unknown_message(
        "v1",
        "DeleteOptions",
        &wire.encode_to_vec(),
        "",
        "",
        &mut body,
    );
    body
}

/// A client-go client configured for protobuf sends its DeleteOptions in protobuf.
#[tokio::test]
async fn a_protobuf_delete_options_body_deletes() {
    let kapi = kapi_with_namespace().await;
    let created = create_cm(&kapi, "a").await;
    let uid = created["metadata"]["uid"].as_str().unwrap().to_owned();
    let body = protobuf_delete_options(&uid, Some("Background"));
    let (status, _, resp) = kapi
        .raw(request(
            "DELETE",
            &format!("{CM_PATH}/a"),
            "application/vnd.kubernetes.protobuf",
            body,
        ))
        .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&resp));
    assert_eq!(json(&resp)["status"], "Success");
    assert_eq!(get_cm(&kapi, "a").await.0, 404);
}

#[tokio::test]
async fn a_protobuf_delete_whose_uid_precondition_fails_is_409_and_keeps_the_object() {
    let kapi = kapi_with_namespace().await;
    create_cm(&kapi, "a").await;
    let body = protobuf_delete_options("not-the-uid", None);
    let (status, _, _) = kapi
        .raw(request(
            "DELETE",
            &format!("{CM_PATH}/a"),
            "application/vnd.kubernetes.protobuf",
            body,
        ))
        .await;
    assert_eq!(status, 409);
    assert_eq!(get_cm(&kapi, "a").await.0, 200);
}

#[tokio::test]
async fn a_grace_period_that_is_not_a_number_is_400_and_deletes_nothing() {
    let kapi = kapi_with_namespace().await;
    create_cm(&kapi, "a").await;
    let path = format!("{CM_PATH}/a?gracePeriodSeconds=soon");
    let (status, resp) = bodiless(&kapi, "DELETE", &path).await;
    assert_eq!(status, 400);
    assert_eq!(
        resp["message"],
        "strconv.ParseInt: parsing \"soon\": invalid syntax"
    );
    assert_eq!(get_cm(&kapi, "a").await.0, 200);
}

#[tokio::test]
async fn an_unknown_propagation_policy_is_422_and_deletes_nothing() {
    let kapi = kapi_with_namespace().await;
    create_cm(&kapi, "a").await;
    let path = format!("{CM_PATH}/a?propagationPolicy=Sideways");
    let (status, resp) = bodiless(&kapi, "DELETE", &path).await;
    assert_eq!(status, 422);
    assert_eq!(resp["details"]["kind"], "DeleteOptions");
    assert_eq!(get_cm(&kapi, "a").await.0, 200);
}

#[tokio::test]
async fn a_limit_that_is_not_a_number_is_400() {
    let kapi = kapi_with_namespace().await;
    let (status, resp) = bodiless(&kapi, "GET", &format!("{CM_PATH}?limit=ten")).await;
    assert_eq!(status, 400);
    assert_eq!(resp["reason"], "BadRequest");
}

#[tokio::test]
async fn a_watch_timeout_that_is_not_a_number_is_400() {
    let kapi = kapi_with_namespace().await;
    let path = format!("{CM_PATH}?watch=true&timeoutSeconds=later");
    let (status, _) = bodiless(&kapi, "GET", &path).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn a_dry_run_value_other_than_all_is_422_and_creates_nothing() {
    let kapi = kapi_with_namespace().await;
    let body = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}"#;
    let (status, _, resp) = kapi
        .raw(request(
            "POST",
            &format!("{CM_PATH}?dryRun=Maybe"),
            "application/json",
            body,
        ))
        .await;
    assert_eq!(status, 422);
    assert_eq!(
        json(&resp)["message"],
        "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"Maybe\"}: supported values: \"All\""
    );
    assert_eq!(get_cm(&kapi, "a").await.0, 404);
}

#[tokio::test]
async fn an_apply_without_a_field_manager_is_422() {
    let kapi = kapi_with_namespace().await;
    let body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";
    let (status, _, resp) = kapi
        .raw(request(
            "PATCH",
            &format!("{CM_PATH}/a"),
            "application/apply-patch+yaml",
            body,
        ))
        .await;
    assert_eq!(status, 422);
    assert_eq!(
        json(&resp)["message"],
        "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch"
    );
}

/// 100 watchers of ConfigMaps over HTTPS cost one store watch (the watch cache's), as
/// `/metrics` shows; every watcher gets the change.
#[tokio::test]
async fn a_hundred_watchers_of_one_resource_cost_one_store_watch() {
    let kapi = kapi_with_namespace().await;
    let client = kapi.client().await;
    let api: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =
        kube::Api::namespaced(client, "rest");
    let rv = api
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut streams = Vec::new();
    for _ in 0..100 {
        let stream = api
            .watch(&kube::api::WatchParams::default().timeout(20), &rv)
            .await
            .unwrap();
        streams.push(Box::pin(stream));
    }
    create_cm(&kapi, "a").await;
    for stream in &mut streams {
        use futures::TryStreamExt;
        loop {
            match stream.try_next().await.unwrap() {
                Some(kube::api::WatchEvent::Added(cm))
                    if cm.metadata.name.as_deref() == Some("a") =>
                {
                    break;
                }
                // The root CA publisher's ConfigMap of the new namespace may come first.
                Some(kube::api::WatchEvent::Added(cm))
                    if cm.metadata.name.as_deref() == Some("kube-root-ca.crt") =>
                {
                    continue;
                }
                Some(kube::api::WatchEvent::Bookmark(_)) => continue,
                other => panic!("unexpected {other:?}"),
            }
        }
    }
    let prefix = ["prefix=\"/registry/configmaps/\""];
    let watches = metric_sum(&kapi, "kapi_watch_cache_store_watches_total", &prefix).await;
    assert_eq!(watches, 1);
    let subscribers = metric_sum(&kapi, "kapi_watch_cache_subscribers", &prefix).await;
    assert!(subscribers >= 100, "{subscribers}");
}
