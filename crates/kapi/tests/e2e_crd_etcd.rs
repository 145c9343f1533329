//! Two kapi processes on one etcd serve the same CRDs: the registry follows a watch on the
//! CRDs in storage, not process memory (issue 5, point 10).

mod e2e_support;

mod e2e_crd_support;

use e2e_crd_support::*;
use e2e_support::{Kapi, json};
use kapi_testsupport::etcd::EtcdProcess;

#[tokio::test]
async fn crd_created_through_one_kapi_is_served_by_the_other() {
    let etcd = EtcdProcess::start().await;
    let a = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    let b = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    apply_crd(&a, &widget_crd("v1alpha1", true, true));
    wait_status(&b, V1A1, 200).await;
    let w = r#"{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"from-b"},"spec":{"label":"b"}}"#;
    let (s, _, _) = b.raw(send("POST", V1A1, "application/json", w)).await;
    assert_eq!(s, 201);
    let (s, body) = wait_status(&a, &format!("{V1B1}/from-b"), 200).await;
    assert_eq!(s, 200);
    assert_eq!(json(&body)["apiVersion"], "example.com/v1beta1");
    // v1alpha1 unserved through b: a stops serving it too.
    apply_crd(&b, &widget_crd("v1beta1", false, true));
    wait_status(&a, V1A1, 404).await;
}
