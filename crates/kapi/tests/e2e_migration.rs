//! Storage-version accounting end to end (issue 7): StorageVersionCount objects
//! (`kapi.dev/v1alpha1`, `kubectl get storageversions.kapi.dev`) report, per CRD, the exact number of objects stored
//! at each version, read by the raw API, by kubectl's Table and by `kapi storage-versions`.

mod e2e_support;

mod e2e_crd_support;

mod e2e_migration_support;

use e2e_crd_support::*;
use e2e_migration_support::{COUNTS, MIGRATIONS, condition, create_migration, version_counts};
use e2e_support::{Kapi, json};
use kapi_testsupport::etcd::EtcdProcess;
use kapi_testsupport::widget_webhook::WidgetWebhook;

const N: usize = 200;

async fn create_widgets(kapi: &Kapi, n: usize) {
    for i in 0..n {
        let body = format!(
            r#"{{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{{"name":"w{i:04}"}},"spec":{{"label":"l{i}"}}}}"#
        );
        let (s, _, b) = kapi
            .raw(send("POST", V1A1, "application/json", &body))
            .await;
        assert_eq!(s, 201, "{}", String::from_utf8_lossy(&b));
    }
}

/// (objects at v1alpha1, objects at v1beta1, objects not in the storage version).
async fn counts(kapi: &Kapi) -> (u64, u64, u64) {
    version_counts(kapi, CRD).await
}

/// Rewrites `name` through the v1beta1 endpoint (get, then put back).
async fn put_back(kapi: &Kapi, name: &str) {
    let (s, _, body) = kapi.raw(get(&format!("{V1B1}/{name}"))).await;
    assert_eq!(s, 200);
    let text = String::from_utf8(body).unwrap();
    let (s, _, b) = kapi
        .raw(send(
            "PUT",
            &format!("{V1B1}/{name}"),
            "application/json",
            &text,
        ))
        .await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&b));
}

#[tokio::test]
async fn accounting_counts_objects_at_the_version_they_were_written() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi, N).await;
    apply_crd(&kapi, &widget_crd("v1beta1", true, true));
    assert_eq!(counts(&kapi).await, (N as u64, 0, N as u64));
    for name in ["w0000", "w0001", "w0002"] {
        put_back(&kapi, name).await;
    }
    assert_eq!(counts(&kapi).await, (N as u64 - 3, 3, N as u64 - 3));
}

#[tokio::test]
async fn kubectl_lists_storage_version_counts_as_a_table() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi, 2).await;
    let out = kapi.kubectl_ok(&["get", "storageversions.kapi.dev"]);
    let row = out
        .lines()
        .find(|l| l.starts_with(CRD))
        .unwrap_or_else(|| panic!("no row for {CRD}: {out}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells, [CRD, "v1alpha1", "v1alpha1=2", "2", "0"], "{out}");
}

#[tokio::test]
async fn storage_version_counts_are_read_only() {
    let kapi = widget_kapi().await;
    let body = r#"{"apiVersion":"kapi.dev/v1alpha1","kind":"StorageVersionCount","metadata":{"name":"x"}}"#;
    let (s, _, _) = kapi
        .raw(send("POST", COUNTS, "application/json", body))
        .await;
    assert_eq!(s, 405);
}

/// Creates Widgets `{prefix}0..n` through `kapi`, one at a time.
async fn create_named(kapi: &Kapi, prefix: &str, n: usize) {
    let client = kapi.client().await;
    for i in 0..n {
        let body = format!(
            r#"{{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{{"name":"{prefix}{i}"}},"spec":{{}}}}"#
        );
        let req = send("POST", V1A1, "application/json", &body);
        assert_eq!(e2e_support::send_raw(&client, req).await.0, 201);
    }
}

/// One etcd, two kapi on it, and the Widget CRD (v1alpha1 storage) served by both.
async fn two_kapis_on_etcd() -> (EtcdProcess, Kapi, Kapi) {
    let etcd = EtcdProcess::start().await;
    let a = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    let b = Kapi::start_with(&["--etcd-servers", &etcd.client_url]).await;
    apply_crd(&a, &widget_crd("v1alpha1", true, true));
    wait_status(&b, V1A1, 200).await;
    (etcd, a, b)
}

#[tokio::test]
async fn accounting_is_one_consistent_snapshot_while_two_kapis_on_etcd_write() {
    let (_etcd, a, b) = two_kapis_on_etcd().await;
    let done = std::sync::atomic::AtomicBool::new(false);
    let reader = async {
        let mut snapshots = Vec::new();
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            let (s, _, body) = a.raw(get(&format!("{COUNTS}/{CRD}"))).await;
            assert_eq!(s, 200);
            snapshots.push(json(&body));
        }
        snapshots
    };
    let writers = async {
        tokio::join!(create_named(&a, "a", 150), create_named(&b, "b", 150));
        done.store(true, std::sync::atomic::Ordering::SeqCst);
    };
    let ((), snapshots) = tokio::join!(writers, reader);
    // Each count, read while both kapis wrote, equals a list of the resource at exactly the
    // revision the count was read at.
    for counted in snapshots {
        let rv = counted["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_owned();
        let total = counted["status"]["total"].as_u64().unwrap();
        let path = format!(
            "/apis/example.com/v1alpha1/widgets?resourceVersion={rv}&resourceVersionMatch=Exact"
        );
        let (s, _, body) = b.raw(get(&path)).await;
        assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
        let listed = json(&body)["items"].as_array().unwrap().len() as u64;
        assert_eq!(total, listed, "count at revision {rv}");
    }
    let (alpha, _, _) = counts(&b).await;
    assert_eq!(alpha, 300);
}

/// Creates a StorageVersionMigration of widgets.example.com named `name`.
async fn start_migration(kapi: &Kapi, name: &str) {
    create_migration(kapi, name, "example.com", "widgets").await;
}

/// Polls the migration until it has a terminal condition; returns that condition's type.
async fn wait_finished(kapi: &Kapi, name: &str) -> String {
    e2e_migration_support::wait_finished(kapi, name).await.0
}

/// Creates `n` widgets named c… and sets spec.replicas of w0100..w0100+n, while a migration runs.
async fn concurrent_writer(kapi: &Kapi, n: usize) {
    for i in 0..n {
        let body = format!(
            r#"{{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{{"name":"c{i:04}"}},"spec":{{"replicas":3}}}}"#
        );
        let (s, _, _) = kapi
            .raw(send("POST", V1A1, "application/json", &body))
            .await;
        assert_eq!(s, 201);
        let path = format!("{V1A1}/w{:04}", 100 + i);
        let patch = r#"{"spec":{"replicas":7}}"#;
        let (s, _, b) = kapi
            .raw(send("PATCH", &path, "application/merge-patch+json", patch))
            .await;
        assert_eq!(s, 200, "{}", String::from_utf8_lossy(&b));
    }
}

#[tokio::test]
async fn migration_with_a_concurrent_writer_leaves_only_the_storage_version() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi, N).await;
    apply_crd(&kapi, &widget_crd("v1beta1", true, true));
    start_migration(&kapi, "widgets-v1beta1").await;
    let ((), outcome) = tokio::join!(
        concurrent_writer(&kapi, 50),
        wait_finished(&kapi, "widgets-v1beta1")
    );
    assert_eq!(outcome, "Succeeded");
    assert_eq!(
        crd_json(&kapi)["status"]["storedVersions"],
        serde_json::json!(["v1beta1"])
    );
    assert_eq!(counts(&kapi).await, (0, N as u64 + 50, 0));
    for i in 0..50 {
        let (s, _, body) = kapi.raw(get(&format!("{V1A1}/w{:04}", 100 + i))).await;
        assert_eq!(s, 200);
        assert_eq!(
            json(&body)["spec"]["replicas"],
            7,
            "update of w{:04} lost",
            100 + i
        );
    }
    // With storedVersions == [v1beta1], v1alpha1 can leave spec.versions.
    apply_crd(&kapi, &widget_crd("v1beta1", true, false));
}

/// Runs the kapi binary against `kapi`; (success, stdout, stderr).
fn kapi_cli(kapi: &Kapi, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kapi"))
        .args(args)
        .arg("--kubeconfig")
        .arg(kapi.kubeconfig())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn storage_versions_subcommand_prints_counts_per_crd() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi, 3).await;
    let (ok, out, err) = kapi_cli(&kapi, &["storage-versions"]);
    assert!(ok, "{err}");
    let row: Vec<&str> = out
        .lines()
        .find(|l| l.starts_with(CRD))
        .unwrap_or_else(|| panic!("{out}"))
        .split_whitespace()
        .collect();
    assert_eq!(row, [CRD, "v1alpha1", "v1alpha1=3", "3", "0"]);
}

#[tokio::test]
async fn migrate_dry_run_prints_counts_and_changes_nothing() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi, 5).await;
    apply_crd(&kapi, &widget_crd("v1beta1", true, true));
    let (ok, out, err) = kapi_cli(&kapi, &["migrate", CRD, "--dry-run"]);
    assert!(ok, "{err}");
    assert!(out.contains("v1alpha1=5"), "{out}");
    assert!(
        out.contains("would rewrite 5 objects into v1beta1"),
        "{out}"
    );
    assert_eq!(counts(&kapi).await, (5, 0, 5));
}

#[tokio::test]
async fn migrate_subcommand_runs_the_migration_to_success() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi, 20).await;
    apply_crd(&kapi, &widget_crd("v1beta1", true, true));
    let (ok, _, err) = kapi_cli(&kapi, &["migrate", CRD]);
    assert!(ok, "{err}");
    assert!(err.contains("succeeded"), "{err}");
    // Not on a terminal: plain progress lines, the last one complete.
    let last = err.lines().rfind(|l| l.starts_with("migrated "));
    assert!(
        last.is_some_and(|l| l.starts_with("migrated 20/20 (")),
        "{err}"
    );
    assert_eq!(counts(&kapi).await, (0, 20, 0));
}

const GOLDEN_V1A1: &str = "/apis/golden.example.com/v1alpha1/namespaces/default/widgets";

/// A kapi with the golden Widget CRD converted by `webhook`, `n` objects at v1alpha1, then
/// the storage version switched to v1beta1.
async fn webhook_kapi_switched(webhook: &WidgetWebhook, n: usize) -> Kapi {
    use kapi_testsupport::widget_webhook::{webhook_url_conversion, widget_crd};
    let kapi = Kapi::start().await;
    let crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
    let mut crd = widget_crd(webhook_url_conversion(&webhook.url, &webhook.ca_bundle()));
    crd["metadata"] = serde_json::json!({"name": "widgets.golden.example.com"});
    crd.as_object_mut().unwrap().remove("status");
    let (s, _, b) = kapi
        .raw(send("POST", crds, "application/json", &crd.to_string()))
        .await;
    assert_eq!(s, 201, "{}", String::from_utf8_lossy(&b));
    wait_status(&kapi, GOLDEN_V1A1, 200).await;
    for i in 0..n {
        let body = format!(
            r#"{{"apiVersion":"golden.example.com/v1alpha1","kind":"Widget","metadata":{{"name":"g{i}"}},"spec":{{"label":"x","replicas":1}}}}"#
        );
        let (s, _, b) = kapi
            .raw(send("POST", GOLDEN_V1A1, "application/json", &body))
            .await;
        assert_eq!(s, 201, "{}", String::from_utf8_lossy(&b));
    }
    let path = format!("{crds}/widgets.golden.example.com");
    let (_, _, body) = kapi.raw(get(&path)).await;
    let mut crd = json(&body);
    for v in crd["spec"]["versions"].as_array_mut().unwrap() {
        v["storage"] = serde_json::json!(v["name"] == "v1beta1");
    }
    let (s, _, b) = kapi
        .raw(send("PUT", &path, "application/json", &crd.to_string()))
        .await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&b));
    kapi
}

#[tokio::test]
async fn migration_with_the_webhook_down_fails_and_leaves_objects_readable() {
    let mut webhook = WidgetWebhook::start();
    let kapi = webhook_kapi_switched(&webhook, 5).await;
    webhook.kill();
    create_migration(&kapi, "golden", "golden.example.com", "widgets").await;
    let (outcome, svm) = e2e_migration_support::wait_finished(&kapi, "golden").await;
    assert_eq!(outcome, "Failed");
    let failed = condition(&svm, "Failed");
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .contains("conversion webhook"),
        "{failed}"
    );
    let (s, _, body) = kapi.raw(get(GOLDEN_V1A1)).await;
    assert_eq!(s, 200);
    assert_eq!(json(&body)["items"].as_array().unwrap().len(), 5);
}

#[tokio::test]
async fn migration_on_etcd_with_a_writer_on_a_second_kapi_leaves_only_the_storage_version() {
    let (_etcd, a, b) = two_kapis_on_etcd().await;
    create_widgets(&a, N).await;
    apply_crd(&a, &widget_crd("v1beta1", true, true));
    // Wait until b writes in v1beta1 too (its registry follows the CRD watch).
    for i in 0.. {
        let body = format!(
            r#"{{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{{"name":"probe{i}"}},"spec":{{}}}}"#
        );
        let (s, _, _) = b.raw(send("POST", V1A1, "application/json", &body)).await;
        assert_eq!(s, 201);
        if counts(&b).await.1 > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    start_migration(&a, "on-etcd").await;
    let ((), outcome) = tokio::join!(concurrent_writer(&b, 50), wait_finished(&a, "on-etcd"));
    assert_eq!(outcome, "Succeeded");
    assert_eq!(
        crd_json(&a)["status"]["storedVersions"],
        serde_json::json!(["v1beta1"])
    );
    let (alpha, _, rest) = counts(&b).await;
    assert_eq!((alpha, rest), (0, 0));
    for i in 0..50 {
        let (_, _, body) = a.raw(get(&format!("{V1A1}/w{:04}", 100 + i))).await;
        assert_eq!(
            json(&body)["spec"]["replicas"],
            7,
            "update of w{:04} lost",
            100 + i
        );
    }
}

#[tokio::test]
async fn a_migration_without_spec_resource_resource_is_invalid_r7_7() {
    let kapi = widget_kapi().await;
    let body = r#"{"apiVersion":"storagemigration.k8s.io/v1beta1","kind":"StorageVersionMigration","metadata":{"name":"m"},"spec":{"resource":{"group":"example.com"}}}"#;
    let (s, _, b) = kapi
        .raw(send("POST", MIGRATIONS, "application/json", body))
        .await;
    assert_eq!(s, 422, "{}", String::from_utf8_lossy(&b));
    let status = json(&b);
    assert_eq!(status["reason"], "Invalid");
    assert_eq!(
        status["details"]["causes"][0]["field"],
        "spec.resource.resource"
    );
}

#[tokio::test]
async fn a_migration_spec_resource_is_immutable_r7_7() {
    let kapi = widget_kapi().await;
    start_migration(&kapi, "m").await;
    let patch = r#"{"spec":{"resource":{"resource":"gadgets"}}}"#;
    let (s, _, b) = kapi
        .raw(send(
            "PATCH",
            &format!("{MIGRATIONS}/m"),
            "application/merge-patch+json",
            patch,
        ))
        .await;
    assert_eq!(s, 422, "{}", String::from_utf8_lossy(&b));
    let message = json(&b)["message"].as_str().unwrap().to_owned();
    assert!(message.contains("field is immutable"), "{message}");
}

#[tokio::test]
async fn a_migration_of_a_resource_nobody_serves_fails_as_not_in_discovery_r7_8() {
    let kapi = widget_kapi().await;
    create_migration(&kapi, "nothing", "nowhere.example.com", "things").await;
    let (outcome, svm) = e2e_migration_support::wait_finished(&kapi, "nothing").await;
    assert_eq!(outcome, "Failed");
    let failed = condition(&svm, "Failed");
    assert_eq!(failed["message"], "resource does not exist in discovery");
}

#[tokio::test]
async fn a_migration_of_a_built_in_resource_succeeds_leaving_its_objects_unchanged() {
    let kapi = widget_kapi().await;
    let cm = r#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}"#;
    let path = "/api/v1/namespaces/default/configmaps";
    let (s, _, created) = kapi.raw(send("POST", path, "application/json", cm)).await;
    assert_eq!(s, 201);
    create_migration(&kapi, "cms", "", "configmaps").await;
    assert_eq!(wait_finished(&kapi, "cms").await, "Succeeded");
    let (_, _, now) = kapi.raw(get(&format!("{path}/c"))).await;
    // Already in its only storage version: no write, the resourceVersion is unchanged (R7.5).
    assert_eq!(
        json(&now)["metadata"]["resourceVersion"],
        json(&created)["metadata"]["resourceVersion"]
    );
}

#[tokio::test]
async fn migrate_subcommand_draws_a_progress_bar_on_a_terminal() {
    let kapi = widget_kapi().await;
    create_widgets(&kapi, 20).await;
    apply_crd(&kapi, &widget_crd("v1beta1", true, true));
    // script(1) runs the command with a pseudo-terminal as its stdout and stderr.
    let command = format!(
        "{} migrate {CRD} --kubeconfig {}",
        env!("CARGO_BIN_EXE_kapi"),
        kapi.kubeconfig().display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // The bar's template: done/total objects, rate and ETA; no plain log lines.
    assert!(text.contains("20/20 objects ("), "{text}");
    assert!(text.contains("ETA"), "{text}");
    assert!(!text.contains("migrated "), "{text}");
    assert!(text.contains("succeeded"), "{text}");
    assert_eq!(counts(&kapi).await, (0, 20, 0));
}

#[tokio::test]
async fn migrations_are_served_at_v1_preferred_and_v1beta1_r7_7() {
    let kapi = widget_kapi().await;
    start_migration(&kapi, "both").await;
    let (s, _, body) = kapi.raw(get("/apis/storagemigration.k8s.io")).await;
    assert_eq!(s, 200);
    let group = json(&body);
    assert_eq!(group["preferredVersion"]["version"], "v1", "{group}");
    assert_eq!(group["versions"][1]["version"], "v1beta1", "{group}");
    let v1 = "/apis/storagemigration.k8s.io/v1/storageversionmigrations/both";
    let (s, _, body) = kapi.raw(get(v1)).await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
    let svm = json(&body);
    assert_eq!(svm["apiVersion"], "storagemigration.k8s.io/v1");
    assert_eq!(svm["spec"]["resource"]["resource"], "widgets");
    let out = kapi.kubectl_ok(&["get", "storageversionmigrations", "both", "-o", "name"]);
    assert_eq!(
        out.trim(),
        "storageversionmigration.storagemigration.k8s.io/both"
    );
}

#[tokio::test]
async fn an_expired_continue_token_gets_a_410_with_a_token_to_go_on_at_the_latest_revision_r7_4() {
    let kapi = Kapi::start_with(&[
        "--etcd-compaction-interval",
        "1s",
        "--controllers=*,-root-ca-certificate-publisher-controller",
    ])
    .await;
    let cms = "/api/v1/namespaces/default/configmaps";
    let create = |name: String| {
        let body =
            format!(r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}}}}"#);
        send("POST", cms, "application/json", &body)
    };
    for i in 0..5 {
        assert_eq!(kapi.raw(create(format!("c{i}"))).await.0, 201);
    }
    let (s, _, body) = kapi.raw(get(&format!("{cms}?limit=2"))).await;
    assert_eq!(s, 200);
    let token = json(&body)["metadata"]["continue"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(kapi.raw(create("c9".into())).await.0, 201);
    // Two compaction intervals: the first page's revision is compacted away.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let (s, _, body) = kapi
        .raw(get(&format!("{cms}?limit=2&continue={token}")))
        .await;
    assert_eq!(s, 410, "{}", String::from_utf8_lossy(&body));
    let status = json(&body);
    assert_eq!(status["reason"], "Expired");
    assert!(
        status["message"].as_str().unwrap().starts_with(
            "The provided continue parameter is too old to display a consistent list result."
        ),
        "{status}"
    );
    let go_on = status["metadata"]["continue"].as_str().unwrap().to_owned();
    let (s, _, body) = kapi.raw(get(&format!("{cms}?continue={go_on}"))).await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
    let names: Vec<String> = json(&body)["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    // The rest after c1, read at the latest revision: c9, written after the first page, too.
    assert_eq!(names, ["c2", "c3", "c4", "c9"]);
}
