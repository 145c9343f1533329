//! `JSONSchemaProps`: the OpenAPI v3 schema of a CRD version, with the `x-kubernetes-*`
//! extensions, and the either-or types JSON Schema needs (schema or array, schema or bool,
//! schema or string list). JSON form only.

use crate::serde_util::{go_float, is_false, null_default};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::BTreeMap;

/// A JSON Schema (OpenAPI v3 subset) with Kubernetes extensions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonSchemaProps {
    /// `id`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub id: String,
    /// `$schema`.
    #[serde(
        rename = "$schema",
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub schema: String,
    /// `$ref`.
    #[serde(rename = "$ref", default, skip_serializing_if = "Option::is_none")]
    pub r#ref: Option<String>,
    /// `description`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub description: String,
    /// `type`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub r#type: String,
    /// `format`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub format: String,
    /// `title`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub title: String,
    /// `default` (any JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// `maximum`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "go_float")]
    pub maximum: Option<f64>,
    /// `exclusiveMaximum`.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub exclusive_maximum: bool,
    /// `minimum`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "go_float")]
    pub minimum: Option<f64>,
    /// `exclusiveMinimum`.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub exclusive_minimum: bool,
    /// `maxLength`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i64>,
    /// `minLength`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<i64>,
    /// `pattern`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub pattern: String,
    /// `maxItems`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<i64>,
    /// `minItems`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<i64>,
    /// `uniqueItems`.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub unique_items: bool,
    /// `multipleOf`.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "go_float")]
    pub multiple_of: Option<f64>,
    /// `enum` (any JSON values).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub r#enum: Vec<Value>,
    /// `maxProperties`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_properties: Option<i64>,
    /// `minProperties`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_properties: Option<i64>,
    /// `required`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub required: Vec<String>,
    /// `items`: one schema or one per position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Box<JsonSchemaPropsOrArray>>,
    /// `allOf`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub all_of: Vec<JsonSchemaProps>,
    /// `oneOf`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub one_of: Vec<JsonSchemaProps>,
    /// `anyOf`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub any_of: Vec<JsonSchemaProps>,
    /// `not`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not: Option<Box<JsonSchemaProps>>,
    /// `properties`.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    pub properties: BTreeMap<String, JsonSchemaProps>,
    /// `additionalProperties`: a schema or a bool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_properties: Option<Box<JsonSchemaPropsOrBool>>,
    /// `patternProperties`.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    pub pattern_properties: BTreeMap<String, JsonSchemaProps>,
    /// `dependencies`.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    pub dependencies: BTreeMap<String, JsonSchemaPropsOrStringArray>,
    /// `additionalItems`: a schema or a bool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_items: Option<Box<JsonSchemaPropsOrBool>>,
    /// `definitions`.
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "null_default"
    )]
    pub definitions: BTreeMap<String, JsonSchemaProps>,
    /// `externalDocs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_docs: Option<ExternalDocumentation>,
    /// `example` (any JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<Value>,
    /// `nullable`.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub nullable: bool,
    /// `x-kubernetes-preserve-unknown-fields`.
    #[serde(
        rename = "x-kubernetes-preserve-unknown-fields",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_preserve_unknown_fields: Option<bool>,
    /// `x-kubernetes-embedded-resource`.
    #[serde(
        rename = "x-kubernetes-embedded-resource",
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub x_embedded_resource: bool,
    /// `x-kubernetes-int-or-string`.
    #[serde(
        rename = "x-kubernetes-int-or-string",
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "null_default"
    )]
    pub x_int_or_string: bool,
    /// `x-kubernetes-list-map-keys`.
    #[serde(
        rename = "x-kubernetes-list-map-keys",
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub x_list_map_keys: Vec<String>,
    /// `x-kubernetes-list-type`: `atomic`, `set` or `map`.
    #[serde(
        rename = "x-kubernetes-list-type",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_list_type: Option<String>,
    /// `x-kubernetes-map-type`: `atomic` or `granular`.
    #[serde(
        rename = "x-kubernetes-map-type",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub x_map_type: Option<String>,
    /// `x-kubernetes-validations`: CEL rules.
    #[serde(
        rename = "x-kubernetes-validations",
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_default"
    )]
    pub x_validations: Vec<ValidationRule>,
}

/// A CEL validation rule (`x-kubernetes-validations` entry).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationRule {
    /// The CEL expression.
    #[serde(default, deserialize_with = "null_default")]
    pub rule: String,
    /// Message when the rule fails.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub message: String,
    /// CEL expression producing the message.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub message_expression: String,
    /// The error reason (`FieldValueInvalid`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The field the error is reported on.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub field_path: String,
    /// Whether `oldSelf` is optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optional_old_self: Option<bool>,
}

/// `ExternalDocumentation`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExternalDocumentation {
    /// Description.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub description: String,
    /// URL.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "null_default"
    )]
    pub url: String,
}

/// `items`: one schema for every element, or one schema per position.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonSchemaPropsOrArray {
    /// One schema for all items.
    Schema(Box<JsonSchemaProps>),
    /// One schema per position.
    Schemas(Vec<JsonSchemaProps>),
}

impl Serialize for JsonSchemaPropsOrArray {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Schema(schema) => schema.serialize(s),
            Self::Schemas(schemas) => schemas.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for JsonSchemaPropsOrArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Array(items) => serde_json::from_value(Value::Array(items))
                .map(Self::Schemas)
                .map_err(D::Error::custom),
            other => serde_json::from_value(other)
                .map(Self::Schema)
                .map_err(D::Error::custom),
        }
    }
}

/// `additionalProperties` / `additionalItems`: a bool or a schema (a schema allows).
#[derive(Clone, Debug, PartialEq)]
pub struct JsonSchemaPropsOrBool {
    /// Whether anything is allowed.
    pub allows: bool,
    /// The schema, when one is given.
    pub schema: Option<JsonSchemaProps>,
}

impl Serialize for JsonSchemaPropsOrBool {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.schema {
            Some(schema) => schema.serialize(s),
            None => s.serialize_bool(self.allows),
        }
    }
}

impl<'de> Deserialize<'de> for JsonSchemaPropsOrBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Bool(allows) => Ok(Self {
                allows,
                schema: None,
            }),
            Value::Object(map) => serde_json::from_value(Value::Object(map))
                .map(|schema| Self {
                    allows: true,
                    schema: Some(schema),
                })
                .map_err(D::Error::custom),
            _ => Err(D::Error::custom(
                "JSONSchemaPropsOrBool: expected a boolean or an object",
            )),
        }
    }
}

/// A `dependencies` entry: a schema or a list of property names.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonSchemaPropsOrStringArray {
    /// A schema the object must also match.
    Schema(Box<JsonSchemaProps>),
    /// Properties that must also be present.
    Property(Vec<String>),
}

impl Serialize for JsonSchemaPropsOrStringArray {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Schema(schema) => schema.serialize(s),
            Self::Property(names) => names.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for JsonSchemaPropsOrStringArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Array(items) => serde_json::from_value(Value::Array(items))
                .map(Self::Property)
                .map_err(D::Error::custom),
            other => serde_json::from_value(other)
                .map(Self::Schema)
                .map_err(D::Error::custom),
        }
    }
}
