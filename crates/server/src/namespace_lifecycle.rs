//! The system namespaces, as kube-apiserver's system-namespaces controller makes them: the
//! four exist from the first start, created through the REST store like any namespace.
//! NamespaceLifecycle admission is `kapi_registry::rest::namespace`; namespace deletion is
//! the namespace controller's (`kapi_controllers::namespace`).

use crate::state::ApiState;
use crate::status::ApiError;
use kapi_registry::Error;
use kapi_registry::rest::namespace::SYSTEM_NAMESPACES;
use kapi_registry::rest::{RestStore, WriteContext};
use kapi_storage::RangeRequest;
use serde_json::json;

/// Creates the system namespaces that do not exist yet (read first; the missing ones are
/// created concurrently so that the store commits them together).
pub async fn ensure_system_namespaces(state: &ApiState) -> Result<(), ApiError> {
    let table = state.registry.snapshot();
    let Some(entry) = table.get("", "v1", "namespaces") else {
        return Ok(());
    };
    let existing = state
        .store
        .range(RangeRequest::prefix(entry.collection_prefix(None)))
        .await
        .map_err(ApiError::internal)?;
    let rest = RestStore::new(state.store.as_ref(), &table, entry);
    let w = WriteContext {
        manager: "kube-apiserver".into(),
        ..WriteContext::default()
    };
    let missing = SYSTEM_NAMESPACES.iter().filter(|name| {
        let key = entry.key(None, name);
        !existing.kvs.iter().any(|kv| kv.key == key.as_bytes())
    });
    let creates = missing.map(|name| {
        let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        let (rest, w) = (&rest, &w);
        async move {
            match rest.create(w, obj).await {
                Ok(_) | Err(Error::AlreadyExists { .. }) => Ok(()),
                Err(e) => Err(ApiError::from(e)),
            }
        }
    });
    futures::future::try_join_all(creates).await.map(|_| ())
}
