//! Fields allowed at the schema root when the status subresource is enabled (R5.21).

use crate::field::{ErrorList, FieldError, FieldPath};
use kapi_api::apiextensions::v1::JsonSchemaProps;
use serde_json::Value;

const ALLOWED_AT_ROOT_WITH_STATUS: [&str; 22] = [
    "Description",
    "Type",
    "Format",
    "Title",
    "Maximum",
    "ExclusiveMaximum",
    "Minimum",
    "ExclusiveMinimum",
    "MaxLength",
    "MinLength",
    "Pattern",
    "MaxItems",
    "MinItems",
    "UniqueItems",
    "MultipleOf",
    "Required",
    "Items",
    "Properties",
    "ExternalDocs",
    "Example",
    "XPreserveUnknownFields",
    "XValidations",
];

/// The root schema's non-zero fields, by their Go names in struct order.
fn set_root_fields(p: &JsonSchemaProps) -> Vec<&'static str> {
    let fields: [(&str, bool); 44] = [
        ("ID", !p.id.is_empty()),
        ("Schema", !p.schema.is_empty()),
        ("Ref", p.r#ref.is_some()),
        ("Description", !p.description.is_empty()),
        ("Type", !p.r#type.is_empty()),
        ("Nullable", p.nullable),
        ("Format", !p.format.is_empty()),
        ("Title", !p.title.is_empty()),
        ("Default", p.default.is_some()),
        ("Maximum", p.maximum.is_some()),
        ("ExclusiveMaximum", p.exclusive_maximum),
        ("Minimum", p.minimum.is_some()),
        ("ExclusiveMinimum", p.exclusive_minimum),
        ("MaxLength", p.max_length.is_some()),
        ("MinLength", p.min_length.is_some()),
        ("Pattern", !p.pattern.is_empty()),
        ("MaxItems", p.max_items.is_some()),
        ("MinItems", p.min_items.is_some()),
        ("UniqueItems", p.unique_items),
        ("MultipleOf", p.multiple_of.is_some()),
        ("Enum", !p.r#enum.is_empty()),
        ("MaxProperties", p.max_properties.is_some()),
        ("MinProperties", p.min_properties.is_some()),
        ("Required", !p.required.is_empty()),
        ("Items", p.items.is_some()),
        ("AllOf", !p.all_of.is_empty()),
        ("OneOf", !p.one_of.is_empty()),
        ("AnyOf", !p.any_of.is_empty()),
        ("Not", p.not.is_some()),
        ("Properties", !p.properties.is_empty()),
        ("AdditionalProperties", p.additional_properties.is_some()),
        ("PatternProperties", !p.pattern_properties.is_empty()),
        ("Dependencies", !p.dependencies.is_empty()),
        ("AdditionalItems", p.additional_items.is_some()),
        ("Definitions", !p.definitions.is_empty()),
        ("ExternalDocs", p.external_docs.is_some()),
        ("Example", p.example.is_some()),
        (
            "XPreserveUnknownFields",
            p.x_preserve_unknown_fields.is_some(),
        ),
        ("XEmbeddedResource", p.x_embedded_resource),
        ("XIntOrString", p.x_int_or_string),
        ("XListMapKeys", !p.x_list_map_keys.is_empty()),
        ("XListType", p.x_list_type.is_some()),
        ("XMapType", p.x_map_type.is_some()),
        ("XValidations", !p.x_validations.is_empty()),
    ];
    fields
        .into_iter()
        .filter(|(_, set)| *set)
        .map(|(n, _)| n)
        .collect()
}

/// With the status subresource, the root may only use fields that survive extracting
/// `properties.status` (R5.21); the first offending field is reported, as upstream does.
pub(super) fn root_fields_with_status(p: &JsonSchemaProps, path: &FieldPath) -> ErrorList {
    for name in set_root_fields(p) {
        if name == "Type" {
            if p.r#type != "object" {
                return vec![FieldError::invalid(
                    &path.child("openAPIV3Schema.type"),
                    Value::String(p.r#type.clone()),
                    "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
                )];
            }
            continue;
        }
        if !ALLOWED_AT_ROOT_WITH_STATUS.contains(&name) {
            let mut rendered = String::new();
            crate::crd::internal::render_schema(&mut rendered, p);
            let detail = format!(
                "only [{}] fields are allowed at the root of the schema if the status subresource is enabled",
                ALLOWED_AT_ROOT_WITH_STATUS.join(" ")
            );
            return vec![FieldError::invalid_rendered(
                &path.child("openAPIV3Schema"),
                rendered,
                detail,
            )];
        }
    }
    ErrorList::new()
}
