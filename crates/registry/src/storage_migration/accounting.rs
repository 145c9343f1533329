//! Per-version accounting: how many objects of one resource are stored at each apiVersion.
//!
//! Counted from the store itself: every page of the range is read at the revision of the
//! first page, so the counts are one consistent snapshot, exact under concurrent writes and
//! with several kapi processes on one etcd (nothing is cached in a process). Cost: one full
//! range over the resource's key prefix, i.e. O(objects) reads and a tiny JSON parse per
//! object (only `apiVersion` is decoded); pages skip counting the rest of the range.

use kapi_storage::{RangeRequest, Store, StoreError};
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// Keys read per range page.
const PAGE: usize = 500;

/// Stored-object counts of one resource, by the apiVersion each object was written at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionCounts {
    /// apiVersion (e.g. `example.com/v1alpha1`) -> number of objects stored at it.
    pub by_version: BTreeMap<String, u64>,
    /// Objects whose stored bytes carry no readable apiVersion (not JSON, or no field).
    pub unreadable: u64,
    /// The store revision the counts were read at.
    pub revision: i64,
}

impl VersionCounts {
    /// Total number of objects counted.
    pub fn total(&self) -> u64 {
        self.by_version.values().sum::<u64>() + self.unreadable
    }

    /// Objects stored at any apiVersion other than `api_version` (unreadable ones included).
    pub fn not_at(&self, api_version: &str) -> u64 {
        self.total() - self.by_version.get(api_version).copied().unwrap_or(0)
    }
}

#[derive(Deserialize)]
struct ApiVersionOnly<'a> {
    #[serde(rename = "apiVersion", borrow)]
    api_version: Option<&'a str>,
}

/// The apiVersion a stored JSON object was written at, if readable.
pub fn stored_api_version(bytes: &[u8]) -> Option<&str> {
    serde_json::from_slice::<ApiVersionOnly<'_>>(bytes)
        .ok()
        .and_then(|v| v.api_version)
}

/// Counts the objects under `prefix` (a collection prefix ending in `/`) by stored apiVersion,
/// all pages at one revision.
pub async fn count_stored_versions(
    store: &dyn Store,
    prefix: &str,
) -> Result<VersionCounts, StoreError> {
    let mut counts = VersionCounts::default();
    let page_request = || {
        RangeRequest::prefix(prefix.as_bytes())
            .with_limit(PAGE)
            .without_count()
    };
    let mut request = page_request();
    loop {
        let page = store.range(request.clone()).await?;
        if counts.revision == 0 {
            counts.revision = page.revision;
        }
        for kv in &page.kvs {
            match stored_api_version(&kv.value) {
                Some(v) => *counts.by_version.entry(v.to_owned()).or_default() += 1,
                None => counts.unreadable += 1,
            }
        }
        match (page.more, page.kvs.last()) {
            (true, Some(last)) => {
                request = page_request()
                    .at_revision(page.revision)
                    .after(last.key.clone());
            }
            _ => return Ok(counts),
        }
    }
}

/// The version marked `storage: true` in a CRD's spec.
pub fn storage_version(crd: &Value) -> Option<&str> {
    crd["spec"]["versions"]
        .as_array()?
        .iter()
        .find(|v| v["storage"].as_bool() == Some(true))?["name"]
        .as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kapi_storage::{EmbeddedConfig, EmbeddedStore};

    fn widget(version: &str, name: &str) -> Vec<u8> {
        format!(r#"{{"apiVersion":"example.com/{version}","kind":"Widget","metadata":{{"name":"{name}"}}}}"#)
            .into_bytes()
    }

    #[tokio::test]
    async fn counts_objects_per_stored_version_across_pages() {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedStore::open(EmbeddedConfig::new(dir.path())).unwrap();
        for i in 0..(PAGE + 7) {
            let key = format!("/registry/example.com/widgets/default/w{i:04}");
            let version = if i % 3 == 0 { "v1beta1" } else { "v1alpha1" };
            store
                .create(key.as_bytes(), widget(version, &format!("w{i}")))
                .await
                .unwrap();
        }
        store
            .create(b"/registry/example.com/widgetsx/a", widget("v1", "a"))
            .await
            .unwrap();
        let counts = count_stored_versions(store.as_ref(), "/registry/example.com/widgets/")
            .await
            .unwrap();
        assert_eq!(counts.by_version.get("example.com/v1beta1"), Some(&169));
        assert_eq!(counts.by_version.get("example.com/v1alpha1"), Some(&338));
        assert_eq!(counts.not_at("example.com/v1beta1"), 338);
        assert_eq!(counts.unreadable, 0);
    }

    #[tokio::test]
    async fn counts_bytes_without_api_version_as_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedStore::open(EmbeddedConfig::new(dir.path())).unwrap();
        store
            .create(b"/registry/x/a", b"\x00k8s".to_vec())
            .await
            .unwrap();
        store
            .create(b"/registry/x/b", b"{}".to_vec())
            .await
            .unwrap();
        let counts = count_stored_versions(store.as_ref(), "/registry/x/")
            .await
            .unwrap();
        assert_eq!(counts.unreadable, 2);
        assert_eq!(counts.total(), 2);
    }
}
