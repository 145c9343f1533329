//! The decoding path's answer for stored bytes, which `unchanged_read`'s splice must equal:
//! `from_storage` in `version`, `resourceVersion` set to `rv`, serde_json encoding.

use kapi_apiextensions::CustomResourceSchemas;
use serde_json::{Value, json};

/// What the decoding path answers for `bytes` read in `version`; None when it fails.
pub fn decoded(s: &CustomResourceSchemas, bytes: &[u8], version: &str, rv: i64) -> Option<Vec<u8>> {
    let obj: Value = serde_json::from_slice(bytes).ok()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut out = rt.block_on(s.from_storage(obj, version)).ok()?;
    out.as_object_mut()?
        .entry("metadata")
        .or_insert_with(|| json!({}))
        .as_object_mut()?
        .insert("resourceVersion".into(), json!(rv.to_string()));
    serde_json::to_vec(&out).ok()
}
