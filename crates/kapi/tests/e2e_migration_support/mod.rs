//! What the storage-version-migration tests share: the StorageVersionCount accounting of a
//! CRD, starting a StorageVersionMigration, waiting for its outcome and reading its conditions.
#![allow(dead_code)]

use super::e2e_support::{Kapi, json};
use serde_json::Value;
use std::time::Duration;

/// StorageVersionMigrations (v1beta1, as the tests create them).
pub const MIGRATIONS: &str = "/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations";
/// StorageVersionCount objects.
pub const COUNTS: &str = "/apis/kapi.dev/v1alpha1/storageversions";

fn get(path: &str) -> http::Request<Vec<u8>> {
    http::Request::get(path).body(Vec::new()).unwrap()
}

/// (objects stored at v1alpha1, at v1beta1, not in the storage version) of CRD `crd`.
pub async fn version_counts(kapi: &Kapi, crd: &str) -> (u64, u64, u64) {
    let (s, _, body) = kapi.raw(get(&format!("{COUNTS}/{crd}"))).await;
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

/// Creates StorageVersionMigration `name` of `resource.group`.
pub async fn create_migration(kapi: &Kapi, name: &str, group: &str, resource: &str) {
    let body = format!(
        r#"{{"apiVersion":"storagemigration.k8s.io/v1beta1","kind":"StorageVersionMigration","metadata":{{"name":"{name}"}},"spec":{{"resource":{{"group":"{group}","resource":"{resource}"}}}}}}"#
    );
    let req = http::Request::post(MIGRATIONS)
        .header("content-type", "application/json")
        .body(body.into_bytes())
        .unwrap();
    let (s, _, b) = kapi.raw(req).await;
    assert_eq!(s, 201, "{}", String::from_utf8_lossy(&b));
}

/// Polls migration `name` until a terminal condition is True; (its type, the migration).
pub async fn wait_finished(kapi: &Kapi, name: &str) -> (String, Value) {
    let client = kapi.client().await;
    for _ in 0..1200 {
        let (s, _, body) =
            super::e2e_support::send_raw(&client, get(&format!("{MIGRATIONS}/{name}"))).await;
        assert_eq!(s, 200, "{}", String::from_utf8_lossy(&body));
        let svm = json(&body);
        let done = svm["status"]["conditions"].as_array().and_then(|cs| {
            cs.iter()
                .find(|c| c["status"] == "True" && c["type"] != "Running")
                .and_then(|c| c["type"].as_str().map(str::to_owned))
        });
        if let Some(t) = done {
            return (t, svm);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("migration {name} did not finish: {}", kapi.log());
}

/// The condition of type `kind` in `obj.status.conditions`.
pub fn condition<'a>(obj: &'a Value, kind: &str) -> &'a Value {
    obj["status"]["conditions"]
        .as_array()
        .and_then(|cs| cs.iter().find(|c| c["type"] == kind))
        .unwrap_or_else(|| panic!("no {kind} condition: {obj}"))
}
