//! How kube-apiserver maintains `status.storedVersions` (R5.11, Appendix B.2): the storage
//! version on create, appended when the storage version changes, never dropped by the
//! server; only a `/status` write replaces the list.

use kapi_api::apiextensions::v1::CustomResourceDefinitionSpec;

fn storage_version(spec: &CustomResourceDefinitionSpec) -> Option<&str> {
    spec.versions
        .iter()
        .find(|v| v.storage)
        .map(|v| v.name.as_str())
}

/// `storedVersions` of a new CRD: `[storage version]` (PrepareForCreate).
pub fn stored_versions_for_create(spec: &CustomResourceDefinitionSpec) -> Vec<String> {
    storage_version(spec)
        .map(|v| vec![v.to_string()])
        .unwrap_or_default()
}

/// `storedVersions` after a spec update: the old list, plus the storage version appended if
/// it is new (PrepareForUpdate, R5.11).
pub fn stored_versions_for_update(
    old: &[String],
    spec: &CustomResourceDefinitionSpec,
) -> Vec<String> {
    let mut out = old.to_vec();
    if let Some(v) = storage_version(spec)
        && !out.iter().any(|s| s == v)
    {
        out.push(v.to_string());
    }
    out
}

/// `storedVersions` sent through `/status`: kept as sent, except that an absent or empty list
/// is defaulted to `[storage version]` (v1 defaulting; confirmed live, Appendix B.2).
pub fn stored_versions_for_status_update(
    sent: Option<&[String]>,
    spec: &CustomResourceDefinitionSpec,
) -> Vec<String> {
    match sent {
        Some(list) if !list.is_empty() => list.to_vec(),
        _ => stored_versions_for_create(spec),
    }
}
