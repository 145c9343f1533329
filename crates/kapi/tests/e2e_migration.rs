//! Storage-version accounting end to end (issue 7): StorageVersionCount objects
//! (`kapi.dev/v1alpha1`, `kubectl get storageversions.kapi.dev`) report, per CRD, the exact number of objects stored
//! at each version, read by the raw API, by kubectl's Table and by `kapi storage-versions`.

mod e2e_support;

mod e2e_crd_support;

use e2e_crd_support::*;
use e2e_support::{Kapi, json};

const COUNTS: &str = "/apis/kapi.dev/v1alpha1/storageversions";
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
    let (s, _, body) = kapi.raw(get(&format!("{COUNTS}/{CRD}"))).await;
    assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
    let obj = json(&body);
    let at = |v: &str| {
        obj["status"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["version"] == v)
            .map_or(0, |x| x["objects"].as_u64().unwrap())
    };
    let rest = obj["status"]["notInStorageVersion"].as_u64().unwrap();
    (at("v1alpha1"), at("v1beta1"), rest)
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
