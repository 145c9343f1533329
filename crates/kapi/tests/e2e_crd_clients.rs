//! Custom resources through client machinery: `kubectl explain` reads the CRD's schema from
//! kapi's OpenAPI v3, and the `kube` crate does CRUD, list and watch on a DynamicObject in
//! both versions of the Widget CRD.

mod e2e_support;

mod e2e_crd_support;

use e2e_crd_support::*;
use futures::{StreamExt, TryStreamExt};
use kube::api::{
    Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use kube::api::{WatchEvent, WatchParams};

#[tokio::test]
async fn kubectl_explain_shows_the_crd_schema_fields() {
    let kapi = widget_kapi().await;
    let out = kapi.kubectl_ok(&[
        "explain",
        "widgets.spec",
        "--api-version=example.com/v1alpha1",
    ]);
    assert!(out.contains("label"), "{out}");
    assert!(out.contains("replicas"), "{out}");
    let out = kapi.kubectl_ok(&[
        "explain",
        "widgets.spec",
        "--api-version=example.com/v1beta1",
    ]);
    assert!(out.contains("displayName"), "{out}");
}

fn widgets(client: kube::Client, version: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk("example.com", version, "Widget");
    let ar = ApiResource::from_gvk_with_plural(&gvk, "widgets");
    Api::namespaced_with(client, "default", &ar)
}

#[tokio::test]
async fn kube_client_creates_in_one_version_and_reads_in_the_other() {
    let kapi = widget_kapi().await;
    let client = kapi.client().await;
    let alpha = widgets(client.clone(), "v1alpha1");
    let obj: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": "k1"}, "spec": {"label": "x", "replicas": 2}
    }))
    .unwrap();
    let created = alpha.create(&PostParams::default(), &obj).await.unwrap();
    assert_eq!(created.metadata.generation, Some(1));
    let beta = widgets(client, "v1beta1");
    let read = beta.get("k1").await.unwrap();
    assert_eq!(read.types.unwrap().api_version, "example.com/v1beta1");
    assert_eq!(read.data["spec"], serde_json::json!({"replicas": 2}));
    let patch = serde_json::json!({"spec": {"displayName": "K"}});
    let patched = beta
        .patch("k1", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert_eq!(patched.metadata.generation, Some(2));
    assert_eq!(beta.list(&Default::default()).await.unwrap().items.len(), 1);
}

#[tokio::test]
async fn kube_client_server_side_apply_and_watch() {
    let kapi = widget_kapi().await;
    let api = widgets(kapi.client().await, "v1alpha1");
    let applied = serde_json::json!({
        "apiVersion": "example.com/v1alpha1", "kind": "Widget",
        "metadata": {"name": "ssa"}, "spec": {"label": "y"}
    });
    let params = PatchParams::apply("e2e-test");
    let obj = api
        .patch("ssa", &params, &Patch::Apply(&applied))
        .await
        .unwrap();
    assert_eq!(obj.data["spec"]["label"], "y");
    let stream = api.watch(&WatchParams::default(), "0").await.unwrap();
    let mut stream = stream.boxed();
    let mut seen = false;
    while let Some(event) = stream.try_next().await.unwrap() {
        if let WatchEvent::Added(o) = event
            && o.metadata.name.as_deref() == Some("ssa")
        {
            seen = true;
            break;
        }
    }
    assert!(seen);
}
