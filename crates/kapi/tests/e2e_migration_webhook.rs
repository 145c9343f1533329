//! Storage-version migration at scale through the real conversion webhook (issue 7): 2 000
//! Widgets written at v1alpha1, the storage version switched to v1beta1, a migration run while
//! writers create and update objects, on the embedded store and on etcd; and the faults: kapi
//! killed mid-way (the migration resumes on restart), the webhook dying mid-way (the migration
//! fails, nothing is lost, a second run completes). R7.3, R7.5, R7.7, R7.10.

mod e2e_support;

mod e2e_migration_support;

use e2e_migration_support::{condition, create_migration, version_counts, wait_finished};
use e2e_support::{Kapi, json, send_raw};
use futures::StreamExt;
use kapi_testsupport::etcd::EtcdProcess;
use kapi_testsupport::widget_webhook::{WidgetWebhook, webhook_url_conversion, widget_crd};
use serde_json::Value;
use std::time::Duration;

const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const CRD: &str = "widgets.golden.example.com";
const V1A1: &str = "/apis/golden.example.com/v1alpha1/namespaces/default/widgets";
const V1B1: &str = "/apis/golden.example.com/v1beta1/namespaces/default/widgets";
/// Widgets stored at v1alpha1 before the migration.
const N: usize = 2000;
/// Widgets created, and widgets updated, by the writers during the migration.
const WRITES: usize = 100;

fn request(method: &str, path: &str, content_type: &str, body: &str) -> http::Request<Vec<u8>> {
    http::Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", content_type)
        .body(body.as_bytes().to_vec())
        .unwrap()
}

fn get(path: &str) -> http::Request<Vec<u8>> {
    http::Request::get(path).body(Vec::new()).unwrap()
}

/// Sends through `client` and asserts the status.
async fn expect(client: &kube::Client, req: http::Request<Vec<u8>>, status: u16) -> Value {
    let what = format!("{} {}", req.method(), req.uri());
    let (s, _, body) = send_raw(client, req).await;
    assert_eq!(s, status, "{what}: {}", String::from_utf8_lossy(&body));
    json(&body)
}

/// Creates the golden Widget CRD converted by `webhook` and waits until it is served.
async fn create_crd(kapi: &Kapi, webhook: &WidgetWebhook) {
    let client = kapi.client().await;
    let mut crd = widget_crd(webhook_url_conversion(&webhook.url, &webhook.ca_bundle()));
    crd["metadata"] = serde_json::json!({ "name": CRD });
    crd.as_object_mut().unwrap().remove("status");
    expect(
        &client,
        request("POST", CRDS, "application/json", &crd.to_string()),
        201,
    )
    .await;
    for _ in 0..500 {
        if send_raw(&client, get(V1A1)).await.0 == 200 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{V1A1} not served");
}

/// Creates Widgets `{prefix}0..n` at v1alpha1, 16 requests at a time.
async fn create_widgets(kapi: &Kapi, prefix: &str, n: usize) {
    let client = kapi.client().await;
    futures::stream::iter(0..n)
        .for_each_concurrent(16, |i| {
            let client = client.clone();
            async move {
                let body = format!(
                    r#"{{"apiVersion":"golden.example.com/v1alpha1","kind":"Widget","metadata":{{"name":"{prefix}{i}"}},"spec":{{"label":"{prefix}{i}","replicas":1}}}}"#
                );
                expect(&client, request("POST", V1A1, "application/json", &body), 201).await;
            }
        })
        .await;
}

/// Changes the CRD with `edit` (read, edit, put back).
async fn edit_crd(kapi: &Kapi, edit: impl FnOnce(&mut Value)) {
    let client = kapi.client().await;
    let path = format!("{CRDS}/{CRD}");
    let mut crd = expect(&client, get(&path), 200).await;
    edit(&mut crd);
    expect(
        &client,
        request("PUT", &path, "application/json", &crd.to_string()),
        200,
    )
    .await;
}

/// Makes v1beta1 the storage version.
async fn switch_storage_to_v1beta1(kapi: &Kapi) {
    edit_crd(kapi, |crd| {
        for v in crd["spec"]["versions"].as_array_mut().unwrap() {
            v["storage"] = serde_json::json!(v["name"] == "v1beta1");
        }
    })
    .await;
}

async fn crd(kapi: &Kapi) -> Value {
    expect(&kapi.client().await, get(&format!("{CRDS}/{CRD}")), 200).await
}

/// (objects stored at v1alpha1, at v1beta1, not in the storage version).
async fn counts(kapi: &Kapi) -> (u64, u64, u64) {
    version_counts(kapi, CRD).await
}

async fn start_migration(kapi: &Kapi, name: &str) {
    create_migration(kapi, name, "golden.example.com", "widgets").await;
}

/// While a migration runs: creates Widgets `new0..WRITES` and sets spec.replicas = 7 on
/// `g0..WRITES`, all through v1alpha1 (so through the webhook once v1beta1 is stored).
async fn writers(kapi: &Kapi) {
    let client = kapi.client().await;
    let updates = futures::stream::iter(0..WRITES).for_each_concurrent(4, |i| {
        let client = client.clone();
        async move {
            let patch = r#"{"spec":{"replicas":7}}"#;
            let path = format!("{V1A1}/g{i}");
            let req = request("PATCH", &path, "application/merge-patch+json", patch);
            expect(&client, req, 200).await;
        }
    });
    tokio::join!(updates, create_widgets(kapi, "new", WRITES));
}

/// Every Widget is readable at both versions with its data, and (`updated`) every writer's
/// update is there.
async fn assert_nothing_lost(kapi: &Kapi, total: usize, updated: bool) {
    let client = kapi.client().await;
    let alpha = expect(&client, get(V1A1), 200).await;
    let items = alpha["items"].as_array().unwrap();
    assert_eq!(items.len(), total);
    for item in items {
        let name = item["metadata"]["name"].as_str().unwrap();
        assert_eq!(item["spec"]["label"], name, "{item}");
    }
    let beta = expect(&client, get(V1B1), 200).await;
    for item in beta["items"].as_array().unwrap() {
        let name = item["metadata"]["name"].as_str().unwrap();
        assert_eq!(item["spec"]["displayName"], name, "{item}");
        let written = name
            .strip_prefix('g')
            .and_then(|i| i.parse::<usize>().ok())
            .is_some_and(|i| updated && i < WRITES);
        let replicas = if written { 7 } else { 1 };
        assert_eq!(item["spec"]["replicas"], replicas, "update lost: {item}");
    }
}

/// The whole scenario of the issue on `kapi`: N Widgets at v1alpha1, storage → v1beta1,
/// migration with writers, then storedVersions == [v1beta1] and v1alpha1 removable.
async fn migrate_with_writers(kapi: &Kapi, webhook: &WidgetWebhook) {
    create_crd(kapi, webhook).await;
    create_widgets(kapi, "g", N).await;
    switch_storage_to_v1beta1(kapi).await;
    assert_eq!(counts(kapi).await, (N as u64, 0, N as u64));
    start_migration(kapi, "widgets-to-v1beta1").await;
    let ((), (outcome, svm)) =
        tokio::join!(writers(kapi), wait_finished(kapi, "widgets-to-v1beta1"));
    assert_eq!(outcome, "Succeeded", "{svm}");
    assert_eq!(
        crd(kapi).await["status"]["storedVersions"],
        serde_json::json!(["v1beta1"])
    );
    assert_eq!(counts(kapi).await, (0, (N + WRITES) as u64, 0));
    assert_nothing_lost(kapi, N + WRITES, true).await;
    edit_crd(kapi, |crd| {
        crd["spec"]["versions"]
            .as_array_mut()
            .unwrap()
            .retain(|v| v["name"] != "v1alpha1");
    })
    .await;
    let versions = crd(kapi).await["spec"]["versions"].clone();
    assert_eq!(versions.as_array().unwrap().len(), 1, "{versions}");
}

#[tokio::test]
async fn migrating_2000_webhook_converted_widgets_with_writers_empties_the_old_version() {
    let webhook = WidgetWebhook::start();
    let kapi = Kapi::start().await;
    migrate_with_writers(&kapi, &webhook).await;
}

#[tokio::test]
async fn migrating_2000_webhook_converted_widgets_with_writers_on_etcd_empties_the_old_version() {
    let etcd = EtcdProcess::start().await;
    let webhook = WidgetWebhook::start();
    let kapi = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    migrate_with_writers(&kapi, &webhook).await;
}

#[tokio::test]
async fn a_migration_records_its_start_revision_and_the_crd_storage_migrating_condition() {
    let webhook = WidgetWebhook::start();
    let kapi = Kapi::start().await;
    create_crd(&kapi, &webhook).await;
    create_widgets(&kapi, "g", 10).await;
    switch_storage_to_v1beta1(&kapi).await;
    start_migration(&kapi, "m").await;
    let (outcome, svm) = wait_finished(&kapi, "m").await;
    assert_eq!(outcome, "Succeeded");
    let rv = svm["status"]["resourceVersion"].as_str().unwrap();
    assert!(rv.parse::<u64>().unwrap() > 0, "{svm}");
    let running = condition(&svm, "Running");
    assert_eq!(running["status"], "False", "{svm}");
    let crd = crd(&kapi).await;
    let migrating = condition(&crd, "StorageMigrating");
    assert_eq!(migrating["status"], "False");
    assert_eq!(migrating["reason"], "MigrationSucceeded");
    assert_eq!(
        migrating["message"],
        "The migration has succeeded and the stored versions have been updated"
    );
    assert_eq!(
        migrating["observedGeneration"],
        crd["metadata"]["generation"]
    );
}

/// Waits until some but not all Widgets are stored at v1beta1: the migration is mid-way.
async fn wait_mid_way(kapi: &Kapi, total: u64) {
    for _ in 0..1000 {
        let (_, beta, _) = counts(kapi).await;
        if beta > 0 {
            assert!(
                beta < total,
                "the migration finished before it could be interrupted"
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the migration never started: {}", kapi.log());
}

#[tokio::test]
async fn a_migration_interrupted_by_killing_kapi_resumes_after_restart_and_completes() {
    // Each conversion answer waits 400 ms, so the four pages take seconds.
    let webhook = WidgetWebhook::start_with(&["--delay-ms", "400"]);
    let kapi = Kapi::start_process().await;
    create_crd(&kapi, &webhook).await;
    create_widgets(&kapi, "g", N).await;
    switch_storage_to_v1beta1(&kapi).await;
    start_migration(&kapi, "interrupted").await;
    wait_mid_way(&kapi, N as u64).await;
    let dir = kapi.crash();
    let kapi = Kapi::start_in(dir, &[]).await;
    let (outcome, svm) = wait_finished(&kapi, "interrupted").await;
    assert_eq!(outcome, "Succeeded", "{svm}");
    assert_eq!(counts(&kapi).await, (0, N as u64, 0));
    assert_eq!(
        crd(&kapi).await["status"]["storedVersions"],
        serde_json::json!(["v1beta1"])
    );
    assert_nothing_lost(&kapi, N, false).await;
}

#[tokio::test]
async fn a_webhook_dying_mid_migration_fails_it_losing_nothing_and_a_second_run_completes() {
    let mut webhook = WidgetWebhook::start_with(&["--delay-ms", "400"]);
    let kapi = Kapi::start().await;
    create_crd(&kapi, &webhook).await;
    create_widgets(&kapi, "g", N).await;
    switch_storage_to_v1beta1(&kapi).await;
    start_migration(&kapi, "first").await;
    wait_mid_way(&kapi, N as u64).await;
    webhook.kill();
    let (outcome, svm) = wait_finished(&kapi, "first").await;
    assert_eq!(outcome, "Failed");
    let failed = condition(&svm, "Failed");
    assert_eq!(failed["reason"], "MigrationFailed");
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .contains("conversion webhook"),
        "{failed}"
    );
    let (alpha, beta, _) = counts(&kapi).await;
    assert_eq!(alpha + beta, N as u64);
    assert!(alpha > 0 && beta > 0, "({alpha}, {beta})");
    let stored = crd(&kapi).await["status"]["storedVersions"].clone();
    assert_eq!(stored, serde_json::json!(["v1alpha1", "v1beta1"]));
    webhook.restart();
    start_migration(&kapi, "second").await;
    assert_eq!(wait_finished(&kapi, "second").await.0, "Succeeded");
    assert_eq!(counts(&kapi).await, (0, N as u64, 0));
    assert_nothing_lost(&kapi, N, false).await;
}

#[tokio::test]
async fn kapi_migrate_exits_non_zero_with_the_reason_when_the_migration_fails() {
    let mut webhook = WidgetWebhook::start();
    let kapi = Kapi::start().await;
    create_crd(&kapi, &webhook).await;
    create_widgets(&kapi, "g", 5).await;
    switch_storage_to_v1beta1(&kapi).await;
    webhook.kill();
    // The kubeconfig found through KUBECONFIG, as kubectl finds it.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kapi"))
        .args(["migrate", CRD])
        .env("KUBECONFIG", kapi.kubeconfig())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("failed"), "{err}");
    assert!(err.contains("conversion webhook"), "{err}");
    assert_eq!(counts(&kapi).await, (5, 0, 5));
}

const LEADING: &str = "leading storage version migration";
const LOST: &str = "lost the lease; stopping storage version migration";

/// Whether a kapi's log says it leads the migration now (its last such line).
fn leads_now(log: &str) -> bool {
    log.rfind(LEADING)
        .is_some_and(|led| log.rfind(LOST).is_none_or(|lost| lost < led))
}

#[tokio::test]
async fn on_etcd_one_kapi_leads_the_migration_and_another_takes_over_when_it_dies() {
    let etcd = EtcdProcess::start().await;
    let webhook = WidgetWebhook::start_with(&["--delay-ms", "400"]);
    let flags = [
        "--etcd-servers",
        &etcd.client_url,
        "--leader-elect-lease-duration",
        "1s",
        "--leader-elect-retry-period",
        "200ms",
    ];
    let a = Kapi::start_with(&flags).await;
    let b = Kapi::start_with(&flags).await;
    create_crd(&a, &webhook).await;
    create_widgets(&a, "g", N).await;
    switch_storage_to_v1beta1(&a).await;
    start_migration(&a, "ha").await;
    wait_mid_way(&a, N as u64).await;
    // Under load a 1 s lease may change hands before this point: the leader is the one
    // whose last word on the lease is that it leads.
    let (leader, follower) = match (leads_now(&a.log()), leads_now(&b.log())) {
        (true, false) => (a, b),
        (false, true) => (b, a),
        other => panic!("expected exactly one leader, got {other:?}"),
    };
    drop(leader.crash());
    let (outcome, svm) = wait_finished(&follower, "ha").await;
    assert_eq!(outcome, "Succeeded", "{svm}");
    assert!(follower.log().contains(LEADING), "{}", follower.log());
    assert_eq!(counts(&follower).await, (0, N as u64, 0));
    assert_eq!(
        crd(&follower).await["status"]["storedVersions"],
        serde_json::json!(["v1beta1"])
    );
    assert_nothing_lost(&follower, N, false).await;
    let lease = follower.kubectl_ok(&[
        "get",
        "lease",
        "-n",
        "kube-system",
        "kapi-storage-version-migrator",
        "-o",
        "json",
    ]);
    let lease: Value = serde_json::from_str(&lease).unwrap();
    assert_eq!(lease["spec"]["leaseTransitions"], 1, "{lease}");
}
