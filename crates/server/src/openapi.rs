//! OpenAPI v3 documents built from the registry (R8.4–R8.6): the `/openapi/v3` index with
//! content hashes, and one document per group version with the routes of every resource,
//! their `x-kubernetes-group-version-kind`, and the query parameters kubectl checks
//! (`fieldValidation`), so that kubectl uses server-side field validation.

use kapi_registry::entry::{RegistryTable, ResourceEntry};
use serde_json::{Map, Value, json};

/// `api/v1` or `apis/<g>/<v>`: the key of a group version in the index.
fn gv_path(group: &str, version: &str) -> String {
    if group.is_empty() {
        format!("api/{version}")
    } else {
        format!("apis/{group}/{version}")
    }
}

/// Model name: a built-in kind's upstream definition name (`io.k8s.api.apps.v1.Deployment`),
/// else `<reversed group>.<version>.<Kind>` as kube-apiserver names custom resources.
pub fn model_name(group: &str, version: &str, kind: &str) -> String {
    if let Some(name) = kapi_api::openapi_models::definition_name(group, version, kind) {
        return name;
    }
    if group.is_empty() {
        return format!("io.k8s.api.core.{version}.{kind}");
    }
    let reversed: Vec<&str> = group.split('.').rev().collect();
    format!("{}.{version}.{kind}", reversed.join("."))
}

fn query_param(name: &str, description: &str) -> Value {
    json!({"name": name, "in": "query", "description": description, "schema": {"type": "string", "uniqueItems": true}})
}

fn operation(e: &ResourceEntry, action: &str, params: &[&str]) -> Value {
    let gvk = json!({"group": e.group, "version": e.version, "kind": e.names.kind});
    let parameters: Vec<Value> = params.iter().map(|p| query_param(p, p)).collect();
    let model = model_name(&e.group, &e.version, &e.names.kind);
    json!({
        "operationId": format!("{action}{}", e.names.kind),
        "x-kubernetes-action": action,
        "x-kubernetes-group-version-kind": gvk,
        "parameters": parameters,
        "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{model}")}}}}},
    })
}

fn paths_of(e: &ResourceEntry, paths: &mut Map<String, Value>) {
    let base = format!("/{}", gv_path(&e.group, &e.version));
    let collection = if e.namespaced() {
        format!("{base}/namespaces/{{namespace}}/{}", e.names.plural)
    } else {
        format!("{base}/{}", e.names.plural)
    };
    let write = ["dryRun", "fieldManager", "fieldValidation", "pretty"];
    paths.insert(
        collection.clone(),
        json!({
            "get": operation(e, "list", &["labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "watch"]),
            "post": operation(e, "post", &write),
            "delete": operation(e, "deletecollection", &["labelSelector", "fieldSelector", "dryRun"]),
        }),
    );
    let item = json!({
        "get": operation(e, "get", &["pretty"]),
        "put": operation(e, "put", &write),
        "patch": operation(e, "patch", &["dryRun", "fieldManager", "fieldValidation", "force", "pretty"]),
        "delete": operation(e, "delete", &["dryRun", "gracePeriodSeconds", "propagationPolicy"]),
    });
    paths.insert(format!("{collection}/{{name}}"), item.clone());
    for sub in &e.subresources {
        paths.insert(format!("{collection}/{{name}}/{}", sub.name), item.clone());
    }
}

fn schema_of(e: &ResourceEntry) -> Value {
    if let Some(schema) = e.codec.openapi_schema() {
        return detailed_schema(e, schema);
    }
    if let Some(schema) =
        kapi_api::openapi_models::definition_name(&e.group, &e.version, &e.names.kind)
            .and_then(|name| kapi_api::openapi::schema(&name))
    {
        return schema.clone();
    }
    if let Some(schema) =
        crate::openapi_schemas::builtin_schema(&e.group, &e.version, &e.names.kind)
    {
        return schema;
    }
    json!({
        "type": "object",
        "description": format!("{} is served by kapi.", e.names.kind),
        "properties": {
            "apiVersion": {"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."},
            "kind": {"type": "string", "description": "Kind is a string value representing the REST resource this object represents."},
            "metadata": {"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}], "default": {}},
        },
        "x-kubernetes-preserve-unknown-fields": true,
        "x-kubernetes-group-version-kind": [{"group": e.group, "version": e.version, "kind": e.names.kind}],
    })
}

/// A kind's own schema with apiVersion, kind and metadata added, as kube-apiserver publishes
/// CRD schemas (so `kubectl explain` shows the fields).
fn detailed_schema(e: &ResourceEntry, mut schema: Value) -> Value {
    let gvk = json!([{"group": e.group, "version": e.version, "kind": e.names.kind}]);
    if let Some(map) = schema.as_object_mut() {
        let props = map.entry("properties").or_insert_with(|| json!({}));
        if let Some(props) = props.as_object_mut() {
            props.insert("apiVersion".into(), json!({"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."}));
            props.insert("kind".into(), json!({"type": "string", "description": "Kind is a string value representing the REST resource this object represents."}));
            props.insert("metadata".into(), json!({"allOf": [{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}]}));
        }
        map.insert("x-kubernetes-group-version-kind".into(), gvk);
    }
    schema
}

/// The OpenAPI v3 document of one group version; `None` when not served.
pub fn group_version_doc(table: &RegistryTable, group: &str, version: &str) -> Option<Value> {
    let entries = table.group_version(group, version);
    if entries.is_empty() {
        return None;
    }
    let mut paths = Map::new();
    let mut schemas = Map::new();
    schemas.insert(
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta".into(),
        json!({"type": "object", "description": "ObjectMeta is metadata that all persisted resources must have.", "x-kubernetes-preserve-unknown-fields": true}),
    );
    for e in entries {
        paths_of(e, &mut paths);
        schemas.insert(
            model_name(&e.group, &e.version, &e.names.kind),
            schema_of(e),
        );
    }
    crate::openapi_schemas::add_referenced(&mut schemas);
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": format!("v1.{}.0", crate::health::KUBE_MINOR)},
        "paths": paths,
        "components": {"schemas": schemas},
    }))
}

/// Uppercase hex SHA-512 of a document's bytes.
pub fn hash(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA512, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02X}")).collect()
}

/// Every served group version with its document's bytes.
pub fn documents(table: &RegistryTable) -> Vec<(String, Vec<u8>)> {
    table
        .groups()
        .iter()
        .flat_map(|(g, vs)| vs.iter().map(move |v| (g.clone(), v.clone())))
        .filter_map(|(g, v)| {
            let doc = group_version_doc(table, &g, &v)?;
            Some((gv_path(&g, &v), serde_json::to_vec(&doc).ok()?))
        })
        .collect()
}

/// The `/openapi/v3` index of these documents.
pub fn index(documents: &[(String, Vec<u8>)]) -> Value {
    let paths: Map<String, Value> = documents
        .iter()
        .map(|(path, bytes)| {
            let url = format!("/openapi/v3/{path}?hash={}", hash(bytes));
            (path.clone(), json!({"serverRelativeURL": url}))
        })
        .collect();
    json!({"paths": paths})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_name_reverses_the_group() {
        assert_eq!(
            model_name("coordination.k8s.io", "v1", "Lease"),
            "io.k8s.api.coordination.v1.Lease"
        );
        assert_eq!(
            model_name("example.com", "v1", "Widget"),
            "com.example.v1.Widget"
        );
        assert_eq!(
            model_name("", "v1", "ConfigMap"),
            "io.k8s.api.core.v1.ConfigMap"
        );
    }
}
