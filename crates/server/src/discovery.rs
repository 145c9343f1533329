//! Discovery documents built from the registry on every request: legacy (`/api`, `/apis`,
//! `/apis/G`, `/api/v1`, `/apis/G/V`) and aggregated (apidiscovery.k8s.io v2 and v2beta1,
//! R8.1–R8.3).

use crate::negotiate::parse_accept;
use crate::status::ApiError;
use kapi_registry::entry::{RegistryTable, ResourceEntry, Scope};
use serde_json::{Value, json};
use std::sync::Arc;

/// Which discovery representation a request asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryFormat {
    /// Plain (legacy) JSON.
    Legacy,
    /// Aggregated `APIGroupDiscoveryList`, in `v2` or `v2beta1`.
    Aggregated(&'static str),
}

/// Picks the format from `Accept`: the first acceptable clause wins (R8.2).
pub fn negotiate(accept: Option<&str>) -> Result<DiscoveryFormat, ApiError> {
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return Ok(DiscoveryFormat::Legacy);
    };
    for c in parse_accept(accept) {
        let json_like = matches!(
            c.media.as_str(),
            "application/json" | "application/*" | "*/*"
        );
        if !json_like {
            continue;
        }
        match (c.param("as"), c.param("g"), c.param("v")) {
            (None, _, _) => return Ok(DiscoveryFormat::Legacy),
            (Some("APIGroupDiscoveryList"), Some("apidiscovery.k8s.io"), Some("v2")) => {
                return Ok(DiscoveryFormat::Aggregated("v2"));
            }
            (Some("APIGroupDiscoveryList"), Some("apidiscovery.k8s.io"), Some("v2beta1")) => {
                return Ok(DiscoveryFormat::Aggregated("v2beta1"));
            }
            _ => continue,
        }
    }
    Err(ApiError::not_acceptable(&["application/json"]))
}

/// `/api` (APIVersions).
pub fn api_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    })
}

fn group_json(name: &str, versions: &[String]) -> Value {
    let gv = |v: &String| json!({"groupVersion": format!("{name}/{v}"), "version": v});
    json!({
        "name": name,
        "versions": versions.iter().map(gv).collect::<Vec<_>>(),
        "preferredVersion": versions.first().map(gv).unwrap_or(Value::Null),
    })
}

/// `/apis` (APIGroupList).
pub fn api_group_list(table: &RegistryTable) -> Value {
    let groups: Vec<Value> = table
        .groups()
        .iter()
        .filter(|(g, _)| !g.is_empty())
        .map(|(g, vs)| group_json(g, vs))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/<group>` (APIGroup); `None` when the group is not served.
pub fn api_group(table: &RegistryTable, group: &str) -> Option<Value> {
    let groups = table.groups();
    let (_, versions) = groups.iter().find(|(g, _)| g == group && !g.is_empty())?;
    let mut doc = group_json(group, versions);
    doc["kind"] = json!("APIGroup");
    doc["apiVersion"] = json!("v1");
    Some(doc)
}

fn resource_json(e: &ResourceEntry) -> Vec<Value> {
    let mut main = json!({
        "name": e.names.plural,
        "singularName": e.names.singular,
        "namespaced": e.namespaced(),
        "kind": e.names.kind,
        "verbs": e.verbs,
        "storageVersionHash": e.storage_version_hash,
    });
    if !e.names.short_names.is_empty() {
        main["shortNames"] = json!(e.names.short_names);
    }
    if !e.names.categories.is_empty() {
        main["categories"] = json!(e.names.categories);
    }
    let mut out = vec![main];
    for s in &e.subresources {
        let mut sub = json!({
            "name": format!("{}/{}", e.names.plural, s.name),
            "singularName": "",
            "namespaced": e.namespaced(),
            "kind": e.names.kind,
            "verbs": s.verbs,
        });
        if let Some((group, version, kind)) = &s.response_kind {
            if !group.is_empty() || !version.is_empty() {
                sub["group"] = json!(group);
                sub["version"] = json!(version);
            }
            sub["kind"] = json!(kind);
        }
        out.push(sub);
    }
    out
}

/// `responseKind` of a subresource: its own (`scale`: autoscaling/v1 Scale, `eviction`:
/// policy/v1 Eviction), or the entry's kind.
fn subresource_kind(e: &ResourceEntry, sub: &str) -> Value {
    match e.subresource(sub).and_then(|s| s.response_kind.as_ref()) {
        Some((group, version, kind)) => json!({"group": group, "version": version, "kind": kind}),
        None => json!({"group": "", "version": "", "kind": e.names.kind}),
    }
}

/// `/api/v1` or `/apis/<g>/<v>` (APIResourceList); `None` when not served.
pub fn resource_list(table: &RegistryTable, group: &str, version: &str) -> Option<Value> {
    let entries = table.group_version(group, version);
    if entries.is_empty() {
        return None;
    }
    let gv = if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    };
    let resources: Vec<Value> = entries.iter().flat_map(|e| resource_json(e)).collect();
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": gv,
        "resources": resources,
    }))
}

fn aggregated_resource(e: &Arc<ResourceEntry>) -> Value {
    let kind = |k: &str| json!({"group": "", "version": "", "kind": k});
    let mut r = json!({
        "resource": e.names.plural,
        "responseKind": kind(&e.names.kind),
        "scope": if e.scope == Scope::Namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": e.names.singular,
        "verbs": e.verbs,
    });
    if !e.names.short_names.is_empty() {
        r["shortNames"] = json!(e.names.short_names);
    }
    if !e.names.categories.is_empty() {
        r["categories"] = json!(e.names.categories);
    }
    if !e.subresources.is_empty() {
        let subs: Vec<Value> = e
            .subresources
            .iter()
            .map(|s| json!({"subresource": s.name, "responseKind": subresource_kind(e, &s.name), "verbs": s.verbs}))
            .collect();
        r["subresources"] = json!(subs);
    }
    r
}

/// Aggregated discovery for `/api` (`core` true) or `/apis`.
pub fn aggregated(table: &RegistryTable, core: bool, version: &str) -> Value {
    let items: Vec<Value> = table
        .groups()
        .iter()
        .filter(|(g, _)| g.is_empty() == core)
        .map(|(g, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|v| {
                    let resources: Vec<Value> = table
                        .group_version(g, v)
                        .iter()
                        .map(|e| aggregated_resource(e))
                        .collect();
                    json!({"version": v, "resources": resources, "freshness": "Current"})
                })
                .collect();
            let metadata = if core { json!({}) } else { json!({"name": g}) };
            json!({"metadata": metadata, "versions": versions})
        })
        .collect();
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{version}"),
        "metadata": {},
        "items": items,
    })
}

/// The ETag of an aggregated document: uppercase hex SHA-512 of its bytes, quoted (R8.3).
pub fn etag(body: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA512, body);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02X}")).collect();
    format!("\"{hex}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECTL: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";

    #[test]
    fn kubectl_accept_gets_aggregated_v2() {
        assert_eq!(
            negotiate(Some(KUBECTL)).unwrap(),
            DiscoveryFormat::Aggregated("v2")
        );
    }

    #[test]
    fn plain_json_gets_legacy() {
        assert_eq!(
            negotiate(Some("application/json, */*")).unwrap(),
            DiscoveryFormat::Legacy
        );
    }
}
