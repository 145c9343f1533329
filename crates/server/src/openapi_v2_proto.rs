//! The subset of gnostic's `openapi.v2` protobuf messages (openapiv2/OpenAPIv2.proto) that
//! kapi writes, with that file's field numbers, and the conversion from the JSON document.
//! Vendor extensions (`x-…`) travel as `Any.yaml` text; JSON is valid YAML, so their values
//! are written as JSON, which kube-openapi's proto reader parses.

use serde_json::Value;

/// `openapi.v2.Document`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Document {
    /// `swagger` (1).
    #[prost(string, tag = "1")]
    pub swagger: String,
    /// `info` (2).
    #[prost(message, optional, tag = "2")]
    pub info: Option<Info>,
    /// `paths` (8).
    #[prost(message, optional, tag = "8")]
    pub paths: Option<Paths>,
    /// `definitions` (9).
    #[prost(message, optional, tag = "9")]
    pub definitions: Option<Definitions>,
}

/// `openapi.v2.Info`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Info {
    /// `title` (1).
    #[prost(string, tag = "1")]
    pub title: String,
    /// `version` (2).
    #[prost(string, tag = "2")]
    pub version: String,
}

/// `openapi.v2.Paths`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Paths {
    /// `path` (2).
    #[prost(message, repeated, tag = "2")]
    pub path: Vec<NamedPathItem>,
}

/// `openapi.v2.NamedPathItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedPathItem {
    /// `name` (1).
    #[prost(string, tag = "1")]
    pub name: String,
    /// `value` (2).
    #[prost(message, optional, tag = "2")]
    pub value: Option<PathItem>,
}

/// `openapi.v2.PathItem` (operations only).
#[derive(Clone, PartialEq, prost::Message)]
pub struct PathItem {
    /// `get` (2).
    #[prost(message, optional, tag = "2")]
    pub get: Option<Operation>,
    /// `put` (3).
    #[prost(message, optional, tag = "3")]
    pub put: Option<Operation>,
    /// `post` (4).
    #[prost(message, optional, tag = "4")]
    pub post: Option<Operation>,
    /// `delete` (5).
    #[prost(message, optional, tag = "5")]
    pub delete: Option<Operation>,
    /// `patch` (8).
    #[prost(message, optional, tag = "8")]
    pub patch: Option<Operation>,
}

/// `openapi.v2.Operation` (no parameters, responses or security).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Operation {
    /// `operation_id` (5).
    #[prost(string, tag = "5")]
    pub operation_id: String,
    /// `produces` (6).
    #[prost(string, repeated, tag = "6")]
    pub produces: Vec<String>,
    /// `consumes` (7).
    #[prost(string, repeated, tag = "7")]
    pub consumes: Vec<String>,
    /// `schemes` (10).
    #[prost(string, repeated, tag = "10")]
    pub schemes: Vec<String>,
    /// `vendor_extension` (13).
    #[prost(message, repeated, tag = "13")]
    pub vendor_extension: Vec<NamedAny>,
}

/// `openapi.v2.Definitions` and `openapi.v2.Properties` (same shape).
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedSchemas {
    /// `additional_properties` (1).
    #[prost(message, repeated, tag = "1")]
    pub additional_properties: Vec<NamedSchema>,
}

/// `openapi.v2.Definitions`.
pub type Definitions = NamedSchemas;

/// `openapi.v2.NamedSchema`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedSchema {
    /// `name` (1).
    #[prost(string, tag = "1")]
    pub name: String,
    /// `value` (2).
    #[prost(message, optional, tag = "2")]
    pub value: Option<Schema>,
}

/// `openapi.v2.Any` (the `yaml` form only).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Any {
    /// `yaml` (2).
    #[prost(string, tag = "2")]
    pub yaml: String,
}

/// `openapi.v2.NamedAny`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedAny {
    /// `name` (1).
    #[prost(string, tag = "1")]
    pub name: String,
    /// `value` (2).
    #[prost(message, optional, tag = "2")]
    pub value: Option<Any>,
}

/// `openapi.v2.TypeItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeItem {
    /// `value` (1).
    #[prost(string, repeated, tag = "1")]
    pub value: Vec<String>,
}

/// `openapi.v2.ItemsItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ItemsItem {
    /// `schema` (1).
    #[prost(message, repeated, tag = "1")]
    pub schema: Vec<Schema>,
}

/// `openapi.v2.AdditionalPropertiesItem`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AdditionalPropertiesItem {
    /// The `oneof`: a schema (1) or a boolean (2).
    #[prost(oneof = "AdditionalProperties", tags = "1, 2")]
    pub oneof: Option<AdditionalProperties>,
}

/// The `oneof` of `AdditionalPropertiesItem`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum AdditionalProperties {
    /// `schema` (1).
    #[prost(message, tag = "1")]
    Schema(Box<Schema>),
    /// `boolean` (2).
    #[prost(bool, tag = "2")]
    Boolean(bool),
}

/// `openapi.v2.Schema` (the fields kapi's schemas use).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Schema {
    /// `_ref` (1).
    #[prost(string, tag = "1")]
    pub r#ref: String,
    /// `format` (2).
    #[prost(string, tag = "2")]
    pub format: String,
    /// `title` (3).
    #[prost(string, tag = "3")]
    pub title: String,
    /// `description` (4).
    #[prost(string, tag = "4")]
    pub description: String,
    /// `default` (5).
    #[prost(message, optional, tag = "5")]
    pub default: Option<Any>,
    /// `required` (19).
    #[prost(string, repeated, tag = "19")]
    pub required: Vec<String>,
    /// `enum` (20).
    #[prost(message, repeated, tag = "20")]
    pub r#enum: Vec<Any>,
    /// `additional_properties` (21).
    #[prost(message, optional, tag = "21")]
    pub additional_properties: Option<AdditionalPropertiesItem>,
    /// `type` (22).
    #[prost(message, optional, tag = "22")]
    pub r#type: Option<TypeItem>,
    /// `items` (23).
    #[prost(message, optional, tag = "23")]
    pub items: Option<ItemsItem>,
    /// `all_of` (24).
    #[prost(message, repeated, tag = "24")]
    pub all_of: Vec<Schema>,
    /// `properties` (25).
    #[prost(message, optional, tag = "25")]
    pub properties: Option<NamedSchemas>,
    /// `vendor_extension` (31).
    #[prost(message, repeated, tag = "31")]
    pub vendor_extension: Vec<NamedAny>,
}

fn text(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn any(v: &Value) -> Any {
    Any {
        yaml: v.to_string(),
    }
}

fn extensions(v: &Value) -> Vec<NamedAny> {
    v.as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| k.starts_with("x-"))
                .map(|(k, v)| NamedAny {
                    name: k.clone(),
                    value: Some(any(v)),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn named_schemas(v: Option<&Value>) -> Option<NamedSchemas> {
    let map = v?.as_object()?;
    let additional_properties = map
        .iter()
        .map(|(name, s)| NamedSchema {
            name: name.clone(),
            value: Some(schema(s)),
        })
        .collect();
    Some(NamedSchemas {
        additional_properties,
    })
}

/// A JSON v2 schema as a gnostic `Schema`.
pub fn schema(v: &Value) -> Schema {
    let r#type = match v.get("type") {
        Some(Value::String(t)) => Some(TypeItem {
            value: vec![t.clone()],
        }),
        Some(Value::Array(_)) => Some(TypeItem {
            value: strings(v, "type"),
        }),
        _ => None,
    };
    let additional_properties = v
        .get("additionalProperties")
        .map(|a| AdditionalPropertiesItem {
            oneof: Some(match a {
                Value::Bool(b) => AdditionalProperties::Boolean(*b),
                other => AdditionalProperties::Schema(Box::new(schema(other))),
            }),
        });
    Schema {
        r#ref: text(v, "$ref"),
        format: text(v, "format"),
        title: text(v, "title"),
        description: text(v, "description"),
        default: v.get("default").map(any),
        required: strings(v, "required"),
        r#enum: v
            .get("enum")
            .and_then(Value::as_array)
            .map(|e| e.iter().map(any).collect())
            .unwrap_or_default(),
        additional_properties,
        r#type,
        items: v.get("items").map(|i| ItemsItem {
            schema: vec![schema(i)],
        }),
        all_of: v
            .get("allOf")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(schema).collect())
            .unwrap_or_default(),
        properties: named_schemas(v.get("properties")),
        vendor_extension: extensions(v),
    }
}

fn operation(v: Option<&Value>) -> Option<Operation> {
    let v = v?;
    Some(Operation {
        operation_id: text(v, "operationId"),
        produces: strings(v, "produces"),
        consumes: strings(v, "consumes"),
        schemes: strings(v, "schemes"),
        vendor_extension: extensions(v),
    })
}

/// The JSON v2 document as a gnostic `Document`.
pub fn document(doc: &Value) -> Document {
    let path = doc["paths"]
        .as_object()
        .map(|paths| {
            paths
                .iter()
                .map(|(name, item)| NamedPathItem {
                    name: name.clone(),
                    value: Some(PathItem {
                        get: operation(item.get("get")),
                        put: operation(item.get("put")),
                        post: operation(item.get("post")),
                        delete: operation(item.get("delete")),
                        patch: operation(item.get("patch")),
                    }),
                })
                .collect()
        })
        .unwrap_or_default();
    Document {
        swagger: text(doc, "swagger"),
        info: Some(Info {
            title: text(&doc["info"], "title"),
            version: text(&doc["info"], "version"),
        }),
        paths: Some(Paths { path }),
        definitions: named_schemas(doc.get("definitions")),
    }
}
