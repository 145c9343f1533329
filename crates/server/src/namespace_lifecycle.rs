//! Namespace lifecycle, as kube-apiserver's NamespaceLifecycle admission and namespace
//! controller do it: the four system namespaces exist from the first start; nothing is
//! created in a missing or terminating namespace; deleting a namespace empties it, then
//! removes it.

use crate::api::ApiState;
use crate::status::ApiError;
use kapi_registry::entry::{RegistryTable, ResourceEntry};
use kapi_registry::meta;
use kapi_storage::{RangeRequest, StoreError};
use serde_json::{Value, json};
use std::sync::Arc;

/// Namespaces created on first start.
pub const SYSTEM_NAMESPACES: [&str; 4] =
    ["default", "kube-system", "kube-public", "kube-node-lease"];

fn namespaces_entry(table: &RegistryTable) -> Option<&Arc<ResourceEntry>> {
    table.get("", "v1", "namespaces")
}

/// Refuses creation in a namespace that does not exist (404) or is terminating (403).
pub async fn admit_create(
    state: &ApiState,
    table: &RegistryTable,
    entry: &ResourceEntry,
    namespace: &str,
    name: &str,
) -> Result<(), ApiError> {
    let Some(ns_entry) = namespaces_entry(table) else {
        return Ok(());
    };
    let kv = state
        .store
        .get(ns_entry.key(None, namespace).as_bytes(), None)
        .await
        .map_err(ApiError::internal)?;
    let Some(kv) = kv else {
        return Err(ApiError::not_found("", "namespaces", namespace));
    };
    let ns = ns_entry.codec.decode_stored(&kv.value).await?;
    let terminating = meta::nested(&ns, &["status", "phase"]).and_then(Value::as_str)
        == Some("Terminating")
        || !meta::meta_str(&ns, "deletionTimestamp").is_empty();
    if terminating {
        return Err(ApiError::forbidden(
            &entry.group,
            &entry.names.plural,
            name,
            &format!(
                "unable to create new content in namespace {namespace} because it is being terminated"
            ),
        ));
    }
    Ok(())
}

/// Refuses deletion of the system namespaces (403, as NamespaceLifecycle admission does).
pub fn admit_delete(entry: &ResourceEntry, name: &str) -> Result<(), ApiError> {
    let is_namespaces = entry.group.is_empty() && entry.names.plural == "namespaces";
    if is_namespaces && SYSTEM_NAMESPACES.contains(&name) {
        return Err(ApiError::forbidden(
            "",
            "namespaces",
            name,
            "this namespace may not be deleted",
        ));
    }
    Ok(())
}

/// Creates the system namespaces that do not exist yet (read first; the missing ones are
/// written concurrently so that the store commits them together).
pub async fn ensure_system_namespaces(state: &ApiState) -> Result<(), ApiError> {
    let table = state.registry.snapshot();
    let Some(entry) = namespaces_entry(&table) else {
        return Ok(());
    };
    let existing = state
        .store
        .range(RangeRequest::prefix(entry.collection_prefix(None)))
        .await
        .map_err(ApiError::internal)?;
    let missing = SYSTEM_NAMESPACES.iter().filter(|name| {
        let key = entry.key(None, name);
        !existing.kvs.iter().any(|kv| kv.key == key.as_bytes())
    });
    let creates = missing.map(|name| async move {
        let mut obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
        meta::set_meta(&mut obj, "uid", Some(json!(meta::new_uid())));
        meta::set_meta(
            &mut obj,
            "creationTimestamp",
            Some(json!(meta::now_rfc3339())),
        );
        entry.strategy.prepare_for_create(&mut obj);
        let bytes = entry.codec.encode_for_storage(&obj).await?;
        match state
            .store
            .create(entry.key(None, name).as_bytes(), bytes)
            .await
        {
            Ok(_) | Err(StoreError::AlreadyExists { .. }) => Ok(()),
            Err(e) => Err(ApiError::internal(e)),
        }
    });
    futures::future::try_join_all(creates).await.map(|_| ())
}
