//! The OpenAPI documents, built once per registry table instead of once per request: the
//! table is immutable and replaced whole when a CRD changes, so its documents are a
//! function of it. One cache entry is kept (the current table's).

use kapi_registry::entry::RegistryTable;
use std::sync::{Arc, Mutex, Weak};

/// Everything served under `/openapi` for one table.
pub struct Documents {
    /// Every v3 group-version document: (`api/v1` or `apis/G/V`, JSON bytes).
    pub v3: Vec<(String, Vec<u8>)>,
    /// The v2 document as JSON bytes.
    pub v2_json: Vec<u8>,
    /// The v2 document as gnostic protobuf.
    pub v2_protobuf: Vec<u8>,
}

type Slot = Option<(Weak<RegistryTable>, Arc<Documents>)>;

fn slot() -> &'static Mutex<Slot> {
    static SLOT: Mutex<Slot> = Mutex::new(None);
    &SLOT
}

/// The documents of `table`, built on first use.
pub fn documents(table: &Arc<RegistryTable>) -> Arc<Documents> {
    if let Ok(guard) = slot().lock()
        && let Some((weak, docs)) = guard.as_ref()
        && weak.upgrade().is_some_and(|t| Arc::ptr_eq(&t, table))
    {
        return docs.clone();
    }
    let v2 = crate::openapi_v2::document(table);
    let docs = Arc::new(Documents {
        v3: crate::openapi::documents(table),
        v2_json: serde_json::to_vec(&v2).unwrap_or_default(),
        v2_protobuf: crate::openapi_v2::protobuf(&v2),
    });
    if let Ok(mut guard) = slot().lock() {
        *guard = Some((Arc::downgrade(table), docs.clone()));
    }
    docs
}
