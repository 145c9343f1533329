//! `kapi.dev/v1alpha1` StorageVersionCount (`kubectl get storageversions.kapi.dev`): one read-only, cluster-scoped object
//! per CRD (named after it) with the exact number of its objects stored at each version.
//! Served through the registry like any other resource; get and list compute the counts from
//! the store on each request ([`super::accounting`]), so nothing is stored under its prefix.

use crate::handlers::Ctx;
use crate::request_info::Verb;
use crate::status::ApiError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use kapi_registry::builtin::{EntrySpec, entry};
use kapi_registry::codec::JsonCodec;
use kapi_registry::entry::{ResourceEntry, Scope};
use kapi_registry::storage_migration::accounting::{
    VersionCounts, count_stored_versions, storage_version,
};
use kapi_registry::strategy::GenericStrategy;
use kapi_registry::table::{Column, ColumnTable, name_column};
use kapi_storage::RangeRequest;
use serde_json::{Value, json};
use std::sync::Arc;

/// The API group.
pub const GROUP: &str = "kapi.dev";
/// The served version.
pub const VERSION: &str = "v1alpha1";
/// The resource (plural).
pub const RESOURCE: &str = "storageversions";

/// The registry entry for StorageVersionCount; keys would live under `root` (none are written).
pub fn entries(root: &str) -> Vec<ResourceEntry> {
    let spec = EntrySpec {
        group: GROUP,
        version: VERSION,
        plural: RESOURCE,
        singular: "storageversion",
        kind: "StorageVersionCount",
        scope: Scope::Cluster,
        short_names: &[],
        categories: &[],
        verbs: &["get", "list"],
        subresources: &[],
        strategy: Arc::new(GenericStrategy::default()),
        table: Arc::new(ColumnTable(columns())),
        storage_version: VERSION,
        storage_group: None,
        group_priority: 900,
        version_priority: 0,
    };
    vec![entry(
        root,
        spec,
        Arc::new(JsonCodec::new(format!("{GROUP}/{VERSION}"))),
    )]
}

/// True when `entry` is the StorageVersionCount entry (the API layer routes it here).
pub fn is_served_here(entry: &ResourceEntry) -> bool {
    entry.group == GROUP && entry.names.plural == RESOURCE
}

/// Serves get and list of StorageVersionCount objects.
pub async fn serve(ctx: &Ctx) -> Response {
    let objects = match count_all(ctx).await {
        Ok(o) => o,
        Err(e) => return e.into_response(),
    };
    let rv = objects
        .iter()
        .filter_map(|o| o.pointer("/metadata/resourceVersion")?.as_str())
        .next()
        .unwrap_or("0")
        .to_owned();
    match (ctx.info.verb, ctx.info.name.as_deref()) {
        (Verb::Get, Some(name)) => {
            match objects.into_iter().find(|o| o["metadata"]["name"] == name) {
                Some(o) => ctx.writer.object(&ctx.entry, StatusCode::OK, o),
                None => ApiError::from(kapi_registry::Error::not_found(GROUP, RESOURCE, name))
                    .into_response(),
            }
        }
        (Verb::List, _) => ctx
            .writer
            .list(&ctx.entry, objects, json!({"resourceVersion": rv})),
        _ => ApiError::method_not_allowed().into_response(),
    }
}

/// The CRDs' key prefix, from the registry.
fn crd_entry(ctx: &Ctx) -> Result<Arc<ResourceEntry>, ApiError> {
    ctx.table
        .get("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        .cloned()
        .ok_or_else(|| ApiError::internal("customresourcedefinitions are not served"))
}

async fn count_all(ctx: &Ctx) -> Result<Vec<Value>, ApiError> {
    let crds = crd_entry(ctx)?;
    let store = ctx.state.store.as_ref();
    let list = store
        .range(RangeRequest::prefix(crds.collection_prefix(None)))
        .await
        .map_err(ApiError::internal)?;
    let root = crds
        .storage_prefix
        .trim_end_matches("/apiextensions.k8s.io/customresourcedefinitions");
    let mut out = Vec::with_capacity(list.kvs.len());
    for kv in &list.kvs {
        let crd = crds.codec.decode_stored(&kv.value).await?;
        let prefix = cr_prefix(root, &crd);
        let counts = count_stored_versions(store, &prefix)
            .await
            .map_err(ApiError::internal)?;
        out.push(count_object(&crd, &counts));
    }
    Ok(out)
}

/// `<root>/<group>/<plural>/`, the key prefix of a CRD's objects.
pub fn cr_prefix(root: &str, crd: &Value) -> String {
    let group = crd["spec"]["group"].as_str().unwrap_or_default();
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default();
    format!("{root}/{group}/{plural}/")
}

/// The StorageVersionCount object of one CRD.
pub fn count_object(crd: &Value, counts: &VersionCounts) -> Value {
    let group = crd["spec"]["group"].as_str().unwrap_or_default();
    let storage = storage_version(crd).unwrap_or_default();
    let versions: Vec<Value> = counts
        .by_version
        .iter()
        .map(|(api_version, n)| {
            let v = api_version
                .strip_prefix(&format!("{group}/"))
                .unwrap_or(api_version);
            json!({"version": v, "objects": n})
        })
        .collect();
    json!({
        "apiVersion": format!("{GROUP}/{VERSION}"),
        "kind": "StorageVersionCount",
        "metadata": {
            "name": crd["metadata"]["name"],
            "resourceVersion": counts.revision.to_string(),
            "creationTimestamp": crd["metadata"]["creationTimestamp"],
        },
        "status": {
            "storageVersion": storage,
            "storedVersions": crd["status"]["storedVersions"],
            "versions": versions,
            "total": counts.total(),
            "notInStorageVersion": counts.not_at(&format!("{group}/{storage}")),
        }
    })
}

fn columns() -> Vec<Column> {
    vec![
        name_column(),
        Column::new("Storage", "string", "The CRD's storage version.", |o| {
            o["status"]["storageVersion"].clone()
        }),
        Column::new(
            "Objects",
            "string",
            "Objects stored at each version.",
            |o| {
                let parts: Vec<String> = o["status"]["versions"]
                    .as_array()
                    .map(|vs| {
                        vs.iter()
                            .map(|v| {
                                format!("{}={}", v["version"].as_str().unwrap_or(""), v["objects"])
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Value::from(parts.join(","))
            },
        ),
        Column::new("Total", "integer", "Objects stored.", |o| {
            o["status"]["total"].clone()
        }),
        Column::new(
            "To-Migrate",
            "integer",
            "Objects not in the storage version.",
            |o| o["status"]["notInStorageVersion"].clone(),
        ),
    ]
}
