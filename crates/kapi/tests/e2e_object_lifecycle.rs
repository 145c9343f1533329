//! Object lifecycle through the `kube` crate: generateName, dryRun, finalizers and
//! deletionTimestamp, delete preconditions, deletecollection, the status subresource.

mod e2e_support;

use e2e_support::Kapi;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions};

fn cm(name: &str) -> ConfigMap {
    let mut c = ConfigMap::default();
    c.metadata.name = Some(name.to_owned());
    c.metadata.labels = Some([("set".to_owned(), "a".to_owned())].into());
    c
}

async fn configmaps(kapi: &Kapi) -> Api<ConfigMap> {
    Api::namespaced(kapi.client().await, "default")
}

#[tokio::test]
async fn generate_name_appends_five_characters() {
    let kapi = Kapi::start().await;
    let api = configmaps(&kapi).await;
    let mut c = ConfigMap::default();
    c.metadata.generate_name = Some("gen-".into());
    let created = api.create(&PostParams::default(), &c).await.unwrap();
    let name = created.metadata.name.unwrap();
    assert!(name.starts_with("gen-") && name.len() == 9, "{name}");
}

#[tokio::test]
async fn dry_run_create_and_delete_store_nothing() {
    let kapi = Kapi::start().await;
    let api = configmaps(&kapi).await;
    let dry = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    api.create(&dry, &cm("dry")).await.unwrap();
    assert!(api.get_opt("dry").await.unwrap().is_none());
    api.create(&PostParams::default(), &cm("kept"))
        .await
        .unwrap();
    api.delete(
        "kept",
        &DeleteParams {
            dry_run: true,
            ..DeleteParams::default()
        },
    )
    .await
    .unwrap();
    assert!(api.get_opt("kept").await.unwrap().is_some());
}

#[tokio::test]
async fn delete_with_finalizers_sets_deletion_timestamp_until_they_are_removed() {
    let kapi = Kapi::start().await;
    let api = configmaps(&kapi).await;
    let mut c = cm("fin");
    c.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    api.create(&PostParams::default(), &c).await.unwrap();
    api.delete("fin", &DeleteParams::default()).await.unwrap();
    let held = api.get("fin").await.unwrap();
    assert!(held.metadata.deletion_timestamp.is_some());
    let patch = serde_json::json!({"metadata": {"finalizers": null}});
    api.patch("fin", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert!(api.get_opt("fin").await.unwrap().is_none());
}

#[tokio::test]
async fn delete_precondition_on_a_wrong_uid_is_409() {
    let kapi = Kapi::start().await;
    let api = configmaps(&kapi).await;
    api.create(&PostParams::default(), &cm("pre"))
        .await
        .unwrap();
    let dp = DeleteParams {
        preconditions: Some(Preconditions {
            uid: Some("not-the-uid".into()),
            resource_version: None,
        }),
        ..DeleteParams::default()
    };
    match api.delete("pre", &dp).await {
        Err(kube::Error::Api(s)) => {
            assert_eq!(s.code, 409);
            assert!(
                s.message
                    .contains("Precondition failed: UID in precondition: not-the-uid"),
                "{}",
                s.message
            );
        }
        other => panic!("expected 409, got {other:?}"),
    }
    assert!(api.get_opt("pre").await.unwrap().is_some());
}

#[tokio::test]
async fn deletecollection_deletes_only_selected_objects() {
    let kapi = Kapi::start_without_root_ca().await;
    let api = configmaps(&kapi).await;
    for n in ["a1", "a2"] {
        api.create(&PostParams::default(), &cm(n)).await.unwrap();
    }
    let mut other = cm("b1");
    other.metadata.labels = Some([("set".to_owned(), "b".to_owned())].into());
    api.create(&PostParams::default(), &other).await.unwrap();
    api.delete_collection(
        &DeleteParams::default(),
        &ListParams::default().labels("set=a"),
    )
    .await
    .unwrap();
    let left: Vec<String> = api
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    assert_eq!(left, ["b1"]);
}

#[tokio::test]
async fn status_subresource_changes_only_status_and_main_resource_only_spec() {
    let kapi = Kapi::start().await;
    let api: Api<HorizontalPodAutoscaler> = Api::namespaced(kapi.client().await, "default");
    let hpa: HorizontalPodAutoscaler = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "h"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3}
    }))
    .unwrap();
    api.create(&PostParams::default(), &hpa).await.unwrap();
    let status = serde_json::json!({"status": {"desiredReplicas": 2}, "spec": {"maxReplicas": 9}});
    let after = api
        .patch_status("h", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    assert_eq!(after.status.unwrap().desired_replicas, 2);
    assert_eq!(after.spec.as_ref().unwrap().max_replicas, 3);
    let main = serde_json::json!({"status": {"desiredReplicas": 7}, "spec": {"maxReplicas": 5}});
    let after = api
        .patch("h", &PatchParams::default(), &Patch::Merge(&main))
        .await
        .unwrap();
    assert_eq!(after.status.unwrap().desired_replicas, 2);
    assert_eq!(after.spec.unwrap().max_replicas, 5);
}

#[tokio::test]
async fn watch_of_a_named_object_sees_only_that_object() {
    let kapi = Kapi::start().await;
    let api = configmaps(&kapi).await;
    for n in ["x", "y"] {
        api.create(&PostParams::default(), &cm(n)).await.unwrap();
    }
    let req =
        http::Request::get("/api/v1/namespaces/default/configmaps/x?watch=true&timeoutSeconds=1")
            .body(Vec::new())
            .unwrap();
    let (status, _, body) = kapi.raw(req).await;
    assert_eq!(status, 200);
    let names: Vec<String> = body
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            e2e_support::json(l)["object"]["metadata"]["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(names, ["x"]);
}

#[tokio::test]
async fn namespace_finalize_sets_only_spec_finalizers() {
    let kapi = Kapi::start().await;
    kapi.kubectl_ok(&["create", "namespace", "fin"]);
    let (_, _, body) = kapi
        .raw(
            http::Request::get("/api/v1/namespaces/fin")
                .body(Vec::new())
                .unwrap(),
        )
        .await;
    let mut ns = e2e_support::json(&body);
    ns["spec"]["finalizers"] = serde_json::json!([]);
    ns["metadata"]["labels"]["extra"] = "ignored".into();
    let req = http::Request::put("/api/v1/namespaces/fin/finalize")
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&ns).unwrap())
        .unwrap();
    let (status, _, body) = kapi.raw(req).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let after = e2e_support::json(&body);
    let finalizers = after["spec"]["finalizers"].as_array();
    assert!(finalizers.is_none_or(|f| f.is_empty()), "{after}");
    assert!(after["metadata"]["labels"].get("extra").is_none());
}
