//! OpenAPI schemas of the built-in kinds, with their fields, types and descriptions, in
//! OpenAPI v3 form (`#/components/schemas/…` references inside `allOf`, as kube-apiserver
//! writes them). `openapi_v2` rewrites them for Swagger 2.0. List fields carry the strategic
//! merge patch extensions (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`)
//! that the Go types declare, the same lists `handlers::strategic` merges, so that
//! client-side `kubectl apply` computes its patches from the server's schema.

use crate::openapi_schemas_core as core;
use crate::openapi_schemas_hpa as hpa;
use serde_json::{Map, Value, json};

/// Prefix of a schema reference in a v3 document.
pub const REF_PREFIX: &str = "#/components/schemas/";

/// `meta/v1` model name prefix.
pub(crate) const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.";

/// A scalar of `type` with a description.
pub(crate) fn scalar(ty: &str, description: &str) -> Value {
    json!({"type": ty, "description": description})
}

/// A string field.
pub(crate) fn string(description: &str) -> Value {
    scalar("string", description)
}

/// A boolean field.
pub(crate) fn boolean(description: &str) -> Value {
    scalar("boolean", description)
}

/// An integer field of format `int32` or `int64`.
pub(crate) fn integer(format: &str, description: &str) -> Value {
    json!({"type": "integer", "format": format, "description": description})
}

/// A reference to another model, with the field's own description.
pub(crate) fn reference(model: &str, description: &str) -> Value {
    json!({"allOf": [{"$ref": format!("{REF_PREFIX}{model}")}], "description": description})
}

/// A `meta/v1` Time (RFC 3339 string).
pub(crate) fn time(description: &str) -> Value {
    reference(&format!("{META}Time"), description)
}

/// A map of strings.
pub(crate) fn string_map(description: &str) -> Value {
    json!({"type": "object", "additionalProperties": {"type": "string", "default": ""}, "description": description})
}

/// An array of `items`.
pub(crate) fn array(items: Value, description: &str) -> Value {
    json!({"type": "array", "items": items, "description": description})
}

/// An array of referenced models.
pub(crate) fn array_of(model: &str, description: &str) -> Value {
    array(
        json!({"allOf": [{"$ref": format!("{REF_PREFIX}{model}")}], "default": {}}),
        description,
    )
}

/// Marks a list field as merged by strategic merge patch (by `key` for lists of objects).
pub(crate) fn merged(mut field: Value, key: Option<&str>) -> Value {
    field["x-kubernetes-patch-strategy"] = json!("merge");
    if let Some(key) = key {
        field["x-kubernetes-patch-merge-key"] = json!(key);
        field["x-kubernetes-list-type"] = json!("map");
        field["x-kubernetes-list-map-keys"] = json!([key]);
    }
    field
}

/// An object model with properties (in the given order, kept sorted by the map).
pub(crate) fn object(description: &str, properties: Vec<(&str, Value)>) -> Value {
    let props: Map<String, Value> = properties
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    json!({"type": "object", "description": description, "properties": props})
}

/// A top-level kind: `apiVersion`, `kind`, `metadata` and the given fields, with its GVK.
pub(crate) fn kind(
    (group, version, kind): (&str, &str, &str),
    description: &str,
    mut properties: Vec<(&str, Value)>,
) -> Value {
    properties.push(("apiVersion", string("APIVersion defines the versioned schema of this representation of an object. Servers convert recognized schemas to the latest internal value.")));
    properties.push(("kind", string("Kind is the REST resource this object represents, in CamelCase. Servers infer it from the endpoint the client submits requests to.")));
    properties.push((
        "metadata",
        reference(&format!("{META}ObjectMeta"), "Standard object's metadata."),
    ));
    let mut schema = object(description, properties);
    schema["x-kubernetes-group-version-kind"] =
        json!([{"group": group, "kind": kind, "version": version}]);
    schema
}

/// The schema of a served built-in kind, `None` for kinds not known here.
pub fn builtin_schema(group: &str, version: &str, kind_name: &str) -> Option<Value> {
    let models = kind_models();
    let (_, schema) = models
        .into_iter()
        .find(|(gvk, _)| *gvk == (group, version, kind_name))?;
    Some(schema)
}

type Gvk = (&'static str, &'static str, &'static str);

fn kind_models() -> Vec<(Gvk, Value)> {
    let mut out = vec![
        (("", "v1", "ConfigMap"), core::configmap()),
        (("", "v1", "Secret"), core::secret()),
        (("", "v1", "Namespace"), core::namespace()),
        (("", "v1", "Event"), core::event()),
        (("coordination.k8s.io", "v1", "Lease"), core::lease()),
        (
            ("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
            core::crd(),
        ),
    ];
    out.extend(hpa::kinds());
    out
}

/// Every model that a built-in kind's schema refers to, by name.
pub fn shared_definitions() -> Map<String, Value> {
    let mut defs = Map::new();
    crate::openapi_schemas_meta::definitions(&mut defs);
    core::definitions(&mut defs);
    hpa::definitions(&mut defs);
    defs
}

/// Adds to `schemas` every shared model its schemas refer to, transitively; a model present
/// in `schemas` under a shared name is replaced by the full one (e.g. a bare ObjectMeta).
pub fn add_referenced(schemas: &mut Map<String, Value>) {
    let shared = shared_definitions();
    let mut pending: Vec<String> = Vec::new();
    for schema in schemas.values() {
        collect_refs(schema, &mut pending);
    }
    let mut done = std::collections::HashSet::new();
    while let Some(name) = pending.pop() {
        if !done.insert(name.clone()) {
            continue;
        }
        if let Some(def) = shared.get(&name) {
            collect_refs(def, &mut pending);
            schemas.insert(name, def.clone());
        }
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref")
                && let Some(name) = r.strip_prefix(REF_PREFIX)
            {
                out.push(name.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reference_of_a_builtin_kind_resolves() {
        for (gvk, schema) in kind_models() {
            let mut schemas = Map::new();
            schemas.insert("kind".into(), schema);
            add_referenced(&mut schemas);
            let mut refs = Vec::new();
            schemas.values().for_each(|s| collect_refs(s, &mut refs));
            for r in refs {
                assert!(schemas.contains_key(&r), "{gvk:?} refers to missing {r}");
            }
        }
    }

    #[test]
    fn owner_references_merge_by_uid() {
        let defs = shared_definitions();
        let owners = &defs[&format!("{META}ObjectMeta")]["properties"]["ownerReferences"];
        assert_eq!(owners["x-kubernetes-patch-strategy"], "merge");
        assert_eq!(owners["x-kubernetes-patch-merge-key"], "uid");
    }
}
