//! The `Warning` headers kube-apiserver adds on CRD create and update (R5.28): unrecognized
//! formats (only newly introduced ones on update) and list-type set of non-scalar items.

use super::internal::{hoisted, top_level_validation};
use crate::gojson;
use crate::validation::formats::is_recognized_format;
use kapi_api::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionSpec, JsonSchemaProps, JsonSchemaPropsOrArray,
};
use std::collections::BTreeSet;

/// Visits a schema and every schema inside it (upstream `SchemaHas` order, properties sorted).
fn visit(s: &JsonSchemaProps, f: &mut impl FnMut(&JsonSchemaProps)) {
    f(s);
    match s.items.as_deref() {
        Some(JsonSchemaPropsOrArray::Schema(i)) => visit(i, f),
        Some(JsonSchemaPropsOrArray::Schemas(list)) => list.iter().for_each(|i| visit(i, f)),
        None => {}
    }
    for list in [&s.all_of, &s.any_of, &s.one_of] {
        list.iter().for_each(|i| visit(i, f));
    }
    if let Some(n) = s.not.as_deref() {
        visit(n, f);
    }
    s.properties.values().for_each(|p| visit(p, f));
    if let Some(ap) = s
        .additional_properties
        .as_deref()
        .and_then(|a| a.schema.as_ref())
    {
        visit(ap, f);
    }
}

/// The schemas of the internal form: the hoisted one, or each version's.
fn schemas(spec: &CustomResourceDefinitionSpec) -> Vec<&JsonSchemaProps> {
    let h = hoisted(spec);
    if let Some(top) = top_level_validation(spec, h).and_then(|v| v.open_api_v3_schema.as_deref()) {
        return vec![top];
    }
    spec.versions
        .iter()
        .filter_map(|v| v.schema.as_ref()?.open_api_v3_schema.as_deref())
        .collect()
}

fn unrecognized_formats(spec: &CustomResourceDefinitionSpec) -> Vec<String> {
    let mut out = Vec::new();
    for s in schemas(spec) {
        visit(s, &mut |n| {
            if !n.format.is_empty() && !is_recognized_format(&n.r#type, &n.format) {
                out.push(n.format.clone());
            }
        });
    }
    out
}

fn non_scalar_set_warnings(spec: &CustomResourceDefinitionSpec) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in schemas(spec) {
        visit(s, &mut |n| {
            if n.x_list_type.as_deref() == Some("set")
                && let Some(JsonSchemaPropsOrArray::Schema(item)) = n.items.as_deref()
                && matches!(item.r#type.as_str(), "object" | "array")
            {
                out.insert(format!(
                    "x-kubernetes-list-type: set for items of type {} is not supported by server-side apply or CEL validation rules",
                    gojson::quote(&item.r#type)
                ));
            }
        });
    }
    out
}

/// Warnings for a created CRD.
pub fn crd_warnings_on_create(crd: &CustomResourceDefinition) -> Vec<String> {
    let mut w: Vec<String> = unrecognized_formats(&crd.spec)
        .into_iter()
        .map(|f| format!("unrecognized format {}", gojson::quote(&f)))
        .collect();
    w.extend(non_scalar_set_warnings(&crd.spec));
    w
}

/// Warnings for an updated CRD: only what the old one did not already have.
pub fn crd_warnings_on_update(
    crd: &CustomResourceDefinition,
    old: &CustomResourceDefinition,
) -> Vec<String> {
    let old_formats = unrecognized_formats(&old.spec);
    let mut w: Vec<String> = unrecognized_formats(&crd.spec)
        .into_iter()
        .filter(|f| !old_formats.contains(f))
        .map(|f| format!("unrecognized format {}", gojson::quote(&f)))
        .collect();
    let old_sets = non_scalar_set_warnings(&old.spec);
    w.extend(
        non_scalar_set_warnings(&crd.spec)
            .into_iter()
            .filter(|x| !old_sets.contains(x)),
    );
    w
}
