//! The building blocks of the built-in kinds' OpenAPI schemas (fields, references, objects,
//! kinds), shared by `openapi_schemas` and the per-group model files.

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
