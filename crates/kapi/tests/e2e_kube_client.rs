//! The `kube` crate (5.x, ring TLS) as a second client: CRUD, pagination, watch with
//! resume, 409 conflicts, server-side apply, HPAs across autoscaling v1 and v2 — on
//! kapi-test's in-process server (HTTPS on loopback, as a process would serve them).

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::autoscaling::{v1 as asv1, v2 as asv2};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kapi_test::TestServer;
use kube::api::{
    Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use std::collections::BTreeMap;

fn configmap(name: &str, value: &str) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.to_owned());
    cm.data = Some(BTreeMap::from([("k".to_owned(), value.to_owned())]));
    cm
}

#[tokio::test]
async fn typed_crud_roundtrips_a_configmap() {
    let kapi = TestServer::start().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kapi.client(), "default");
    let created = api
        .create(&PostParams::default(), &configmap("c1", "v1"))
        .await
        .unwrap();
    assert!(created.metadata.uid.is_some());
    let mut got = api.get("c1").await.unwrap();
    assert_eq!(got.data.as_ref().unwrap()["k"], "v1");
    got.data = Some(BTreeMap::from([("k".to_owned(), "v2".to_owned())]));
    let replaced = api
        .replace("c1", &PostParams::default(), &got)
        .await
        .unwrap();
    assert_ne!(
        replaced.metadata.resource_version,
        created.metadata.resource_version
    );
    let patch = serde_json::json!({"data": {"k": "v3"}});
    let patched = api
        .patch("c1", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert_eq!(patched.data.unwrap()["k"], "v3");
    api.delete("c1", &DeleteParams::default()).await.unwrap();
    assert!(api.get_opt("c1").await.unwrap().is_none());
}

#[tokio::test]
async fn paginated_list_walks_every_object_once() {
    let kapi = TestServer::builder()
        .controllers(&["*", "-root-ca-certificate-publisher-controller"])
        .start()
        .await
        .unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kapi.client(), "default");
    for i in 0..7 {
        api.create(&PostParams::default(), &configmap(&format!("p{i}"), "x"))
            .await
            .unwrap();
    }
    let mut names = Vec::new();
    let mut params = ListParams::default().limit(3);
    let mut pages = 0;
    loop {
        let page = api.list(&params).await.unwrap();
        pages += 1;
        names.extend(page.items.iter().map(|c| c.metadata.name.clone().unwrap()));
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => {
                assert!(page.metadata.remaining_item_count.unwrap() > 0);
                params = params.continue_token(&token);
            }
            None => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, (0..7).map(|i| format!("p{i}")).collect::<Vec<_>>());
}

#[tokio::test]
async fn stale_replace_is_a_409_conflict() {
    let kapi = TestServer::start().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kapi.client(), "default");
    let created = api
        .create(&PostParams::default(), &configmap("c", "1"))
        .await
        .unwrap();
    let mut first = created.clone();
    first.data = Some(BTreeMap::from([("k".to_owned(), "2".to_owned())]));
    api.replace("c", &PostParams::default(), &first)
        .await
        .unwrap();
    let mut stale = created;
    stale.data = Some(BTreeMap::from([("k".to_owned(), "3".to_owned())]));
    match api.replace("c", &PostParams::default(), &stale).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!(status.code, 409);
            assert_eq!(status.reason, "Conflict");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
}

#[tokio::test]
async fn watch_delivers_events_and_resumes_from_a_resource_version() {
    let kapi = TestServer::start().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kapi.client(), "default");
    let created = api
        .create(&PostParams::default(), &configmap("w", "1"))
        .await
        .unwrap();
    let rv = created.metadata.resource_version.clone().unwrap();
    let patch = serde_json::json!({"data": {"k": "2"}});
    let modified = api
        .patch("w", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    api.delete("w", &DeleteParams::default()).await.unwrap();
    // Only `w`: the root CA publisher may write `kube-root-ca.crt` into `default` meanwhile.
    let wp = WatchParams::default().fields("metadata.name=w").timeout(2);
    let events: Vec<_> = api
        .watch(&wp, &rv)
        .await
        .unwrap()
        .take(2)
        .try_collect()
        .await
        .unwrap();
    assert!(matches!(&events[0], WatchEvent::Modified(c) if c.data.as_ref().unwrap()["k"] == "2"));
    assert!(
        matches!(&events[1], WatchEvent::Deleted(c) if c.metadata.name.as_deref() == Some("w"))
    );
    let resume = modified.metadata.resource_version.unwrap();
    let events: Vec<_> = api
        .watch(&wp, &resume)
        .await
        .unwrap()
        .take(1)
        .try_collect()
        .await
        .unwrap();
    assert!(matches!(&events[0], WatchEvent::Deleted(_)), "{events:?}");
}

#[tokio::test]
async fn watch_from_a_compacted_resource_version_ends_with_410_expired() {
    let kapi = TestServer::builder()
        .compaction_interval(std::time::Duration::from_secs(1))
        .start()
        .await
        .unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kapi.client(), "default");
    for i in 0..3 {
        api.create(&PostParams::default(), &configmap(&format!("c{i}"), "x"))
            .await
            .unwrap();
    }
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    api.create(&PostParams::default(), &configmap("later", "x"))
        .await
        .unwrap();
    let mut stream = api
        .watch(&WatchParams::default().timeout(2), "1")
        .await
        .unwrap()
        .boxed();
    match stream.next().await {
        Some(Ok(WatchEvent::Error(e))) => assert_eq!((e.code, e.reason.as_str()), (410, "Expired")),
        other => panic!("expected a 410 ERROR event, got {other:?}"),
    }
}

#[tokio::test]
async fn server_side_apply_creates_then_updates() {
    let kapi = TestServer::start().await.unwrap();
    let api: Api<ConfigMap> = Api::namespaced(kapi.client(), "default");
    let pp = PatchParams::apply("e2e-test");
    let obj = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"k": "1"}});
    let created = api.patch("ssa", &pp, &Patch::Apply(&obj)).await.unwrap();
    assert_eq!(created.data.unwrap()["k"], "1");
    let obj = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa"}, "data": {"k": "2"}});
    let updated = api.patch("ssa", &pp, &Patch::Apply(&obj)).await.unwrap();
    assert_eq!(updated.data.unwrap()["k"], "2");
}

#[tokio::test]
async fn hpa_written_as_v2_is_readable_and_writable_as_v1() {
    let kapi = TestServer::start().await.unwrap();
    let client = kapi.client();
    let v2: Api<asv2::HorizontalPodAutoscaler> = Api::namespaced(client.clone(), "default");
    let hpa: asv2::HorizontalPodAutoscaler = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2, "maxReplicas": 10,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}]
        }
    }))
    .unwrap();
    v2.create(&PostParams::default(), &hpa).await.unwrap();
    let v1: Api<asv1::HorizontalPodAutoscaler> = Api::namespaced(client, "default");
    let mut as_v1 = v1.get("web").await.unwrap();
    let spec = as_v1.spec.clone().unwrap();
    assert_eq!(spec.target_cpu_utilization_percentage, Some(60));
    as_v1.spec.as_mut().unwrap().max_replicas = 12;
    v1.replace("web", &PostParams::default(), &as_v1)
        .await
        .unwrap();
    let back = v2.get("web").await.unwrap();
    assert_eq!(back.spec.unwrap().max_replicas, 12);
}

#[tokio::test]
async fn namespaces_are_listed_with_the_typed_client() {
    let kapi = TestServer::start().await.unwrap();
    let api: Api<Namespace> = Api::all(kapi.client());
    let names: Vec<String> = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect();
    assert_eq!(
        names,
        ["default", "kube-node-lease", "kube-public", "kube-system"]
    );
}
