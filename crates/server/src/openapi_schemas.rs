//! OpenAPI schemas of the built-in kinds, with their fields, types and descriptions, in
//! OpenAPI v3 form (`#/components/schemas/…` references inside `allOf`, as kube-apiserver
//! writes them). `openapi_v2` rewrites them for Swagger 2.0. List fields carry the strategic
//! merge patch extensions (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`)
//! that the Go types declare, the same lists `handlers::strategic` merges, so that
//! client-side `kubectl apply` computes its patches from the server's schema.

use crate::openapi_schemas_core as core;
use crate::openapi_schemas_hpa as hpa;
use serde_json::{Map, Value};

pub use crate::openapi_schema_builders::REF_PREFIX;

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

/// Adds to `schemas` every model its schemas refer to, transitively (the generated
/// upstream definitions first, then the hand-built shared ones); a model present in
/// `schemas` under such a name is replaced by the full one (e.g. a bare ObjectMeta).
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
        if let Some(def) = kapi_api::openapi::schema(&name).or_else(|| shared.get(&name)) {
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
    use crate::openapi_schema_builders::META;

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
