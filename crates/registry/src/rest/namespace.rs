//! Namespace lifecycle admission, as kube-apiserver's NamespaceLifecycle plugin does it:
//! nothing is created in a missing (404) or terminating (403) namespace, and the system
//! namespaces cannot be deleted (403).

use super::RestStore;
use crate::error::{Error, Result};
use crate::meta;
use serde_json::Value;
use std::time::Duration;

/// Namespaces created on first start; never deleted.
pub const SYSTEM_NAMESPACES: [&str; 4] =
    ["default", "kube-system", "kube-public", "kube-node-lease"];

/// Refuses creation of `name` in a namespace that does not exist or is terminating.
pub async fn admit_create(rest: &RestStore<'_>, namespace: &str, name: &str) -> Result<()> {
    let Some(ns_entry) = rest.table.get("", "v1", "namespaces") else {
        return Ok(());
    };
    let key = ns_entry.key(None, namespace);
    // As upstream's NamespaceLifecycle: the namespaces' cache first, the store when the
    // namespace is not (yet) there — one just created may not have reached the cache.
    let cached = match rest.caches {
        Some(caches) => caches
            .get(&ns_entry.collection_prefix(None), Duration::ZERO)
            .await
            .ok()
            .and_then(|cache| cache.get(&key)),
        None => None,
    };
    let kv = match cached {
        Some(kv) => Some(kv),
        None => rest
            .store
            .get(key.as_bytes(), None)
            .await
            .map_err(Error::from)?,
    };
    let Some(kv) = kv else {
        return Err(Error::not_found("", "namespaces", namespace));
    };
    let ns = ns_entry.codec.decode_stored(&kv.value).await?;
    let terminating = meta::nested(&ns, &["status", "phase"]).and_then(Value::as_str)
        == Some("Terminating")
        || !meta::meta_str(&ns, "deletionTimestamp").is_empty();
    if terminating {
        return Err(Error::forbidden(
            &rest.entry.group,
            &rest.entry.names.plural,
            name,
            &format!(
                "unable to create new content in namespace {namespace} because it is being terminated"
            ),
        ));
    }
    Ok(())
}

/// Refuses deletion of the system namespaces.
pub fn admit_delete(entry: &crate::entry::ResourceEntry, name: &str) -> Result<()> {
    let is_namespaces = entry.group.is_empty() && entry.names.plural == "namespaces";
    if is_namespaces && SYSTEM_NAMESPACES.contains(&name) {
        return Err(Error::forbidden(
            "",
            "namespaces",
            name,
            "this namespace may not be deleted",
        ));
    }
    Ok(())
}
