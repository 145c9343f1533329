//! The structural schema of a CRD version (upstream `pkg/apiserver/schema`): one tree that
//! pruning, defaulting, validation and CEL walk, built once per CRD load.

mod build;
mod check;

pub use build::BuildError;
pub use check::validate_structural;

use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;

/// A JSON type a schema may declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    /// `object`.
    Object,
    /// `array`.
    Array,
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `number`.
    Number,
    /// `boolean`.
    Boolean,
}

impl JsonType {
    /// Parses an OpenAPI type name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "object" => Some(Self::Object),
            "array" => Some(Self::Array),
            "string" => Some(Self::String),
            "integer" => Some(Self::Integer),
            "number" => Some(Self::Number),
            "boolean" => Some(Self::Boolean),
            _ => None,
        }
    }
}

/// `additionalProperties`: a bool, or a schema for the values.
#[derive(Clone, Debug)]
pub enum AdditionalProperties {
    /// `true`/`false` without a schema.
    Bool(bool),
    /// A schema every value must match.
    Schema(Box<Structural>),
}

/// A CEL rule of `x-kubernetes-validations`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidationRule {
    /// The CEL expression.
    pub rule: String,
    /// Message on failure.
    pub message: String,
    /// CEL expression producing the message.
    pub message_expression: String,
    /// `FieldValueInvalid` (default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`.
    pub reason: Option<String>,
    /// Relative JSON path the error is reported at.
    pub field_path: String,
    /// Whether `oldSelf` may be absent (`optionalOldSelf`).
    pub optional_old_self: bool,
}

/// A compiled `pattern` (the source is kept for messages).
#[derive(Clone, Debug)]
pub struct Pattern {
    /// As written in the schema.
    pub source: String,
    /// Compiled, or the compile error.
    pub regex: Result<Regex, String>,
}

/// Value validations (everything that restricts values without changing the shape).
#[derive(Clone, Debug, Default)]
pub struct ValueValidation {
    /// `format`.
    pub format: String,
    /// `format` normalized (dashes removed) when Kubernetes validates it on strings, else empty.
    pub validated_format: String,
    /// `maximum`.
    pub maximum: Option<f64>,
    /// `exclusiveMaximum`.
    pub exclusive_maximum: bool,
    /// `minimum`.
    pub minimum: Option<f64>,
    /// `exclusiveMinimum`.
    pub exclusive_minimum: bool,
    /// `maxLength` (characters).
    pub max_length: Option<i64>,
    /// `minLength`.
    pub min_length: Option<i64>,
    /// `pattern`.
    pub pattern: Option<Pattern>,
    /// `maxItems`.
    pub max_items: Option<i64>,
    /// `minItems`.
    pub min_items: Option<i64>,
    /// `uniqueItems`.
    pub unique_items: bool,
    /// `multipleOf`.
    pub multiple_of: Option<f64>,
    /// `enum`.
    pub enum_values: Vec<Value>,
    /// `maxProperties`.
    pub max_properties: Option<i64>,
    /// `minProperties`.
    pub min_properties: Option<i64>,
    /// `required`.
    pub required: Vec<String>,
    /// `allOf`.
    pub all_of: Vec<NestedValueValidation>,
    /// `oneOf`.
    pub one_of: Vec<NestedValueValidation>,
    /// `anyOf`.
    pub any_of: Vec<NestedValueValidation>,
    /// `not`.
    pub not: Option<Box<NestedValueValidation>>,
}

impl ValueValidation {
    /// Whether no value validation is set at all.
    pub fn is_empty(&self) -> bool {
        self.format.is_empty()
            && self.maximum.is_none()
            && !self.exclusive_maximum
            && self.minimum.is_none()
            && !self.exclusive_minimum
            && self.max_length.is_none()
            && self.min_length.is_none()
            && self.pattern.is_none()
            && self.max_items.is_none()
            && self.min_items.is_none()
            && !self.unique_items
            && self.multiple_of.is_none()
            && self.enum_values.is_empty()
            && self.max_properties.is_none()
            && self.min_properties.is_none()
            && self.required.is_empty()
            && self.all_of.is_empty()
            && self.one_of.is_empty()
            && self.any_of.is_empty()
            && self.not.is_none()
    }
}

/// What a schema inside `allOf`/`anyOf`/`oneOf`/`not` sets that structural schemas forbid there.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ForbiddenInNested {
    /// `type` as written.
    pub type_name: String,
    /// `default` is set.
    pub default: bool,
    /// `title` is set.
    pub title: bool,
    /// `description` is set.
    pub description: bool,
    /// `nullable: true`.
    pub nullable: bool,
    /// `x-kubernetes-preserve-unknown-fields: true`.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource: true`.
    pub embedded_resource: bool,
    /// `x-kubernetes-int-or-string: true`.
    pub int_or_string: bool,
    /// `x-kubernetes-list-map-keys` non-empty.
    pub list_map_keys: bool,
    /// `x-kubernetes-list-type` set.
    pub list_type: bool,
    /// `x-kubernetes-map-type` set.
    pub map_type: bool,
    /// `x-kubernetes-validations` non-empty.
    pub validations: bool,
}

/// A schema inside a logical junctor: value validations and their shape, nothing structural.
#[derive(Clone, Debug, Default)]
pub struct NestedValueValidation {
    /// The value validations.
    pub value_validation: ValueValidation,
    /// `items`.
    pub items: Option<Box<NestedValueValidation>>,
    /// `properties`.
    pub properties: BTreeMap<String, NestedValueValidation>,
    /// `additionalProperties` (`true` becomes an empty schema).
    pub additional_properties: Option<Box<NestedValueValidation>>,
    /// Structural settings that are not allowed here.
    pub forbidden: ForbiddenInNested,
}

/// A structural schema node. Build it with [`Structural::from_json`] or
/// [`Structural::from_props`], which also fill the cached flags the walkers rely on.
#[derive(Clone, Debug, Default)]
pub struct Structural {
    /// `type` as written (may be empty or invalid).
    pub type_name: String,
    /// `type` parsed.
    pub json_type: Option<JsonType>,
    /// `nullable`.
    pub nullable: bool,
    /// `default`.
    pub default: Option<Value>,
    /// `description`.
    pub description: String,
    /// `title`, `example` or `externalDocs` is set (only matters for root metadata).
    pub has_docs: bool,
    /// `properties`.
    pub properties: BTreeMap<String, Structural>,
    /// `additionalProperties`.
    pub additional_properties: Option<AdditionalProperties>,
    /// `items`.
    pub items: Option<Box<Structural>>,
    /// `x-kubernetes-preserve-unknown-fields: true`.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// `x-kubernetes-int-or-string`.
    pub int_or_string: bool,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<String>,
    /// `x-kubernetes-validations`.
    pub validations: Vec<ValidationRule>,
    /// Value validations, when any keyword of them is set.
    pub value_validation: Option<Box<ValueValidation>>,
    /// Whether an embedded resource exists below (computed by `from_json`).
    pub(crate) embedded_below: bool,
    /// Whether a list-type set/map exists here or below (computed by `from_json`).
    pub(crate) list_semantics_here_or_below: bool,
    /// Whether a `default` exists below this node (computed by `from_json`).
    pub(crate) defaults_below: bool,
}

impl Structural {
    /// Builds the structural tree of an `openAPIV3Schema` (JSON form of JSONSchemaProps).
    pub fn from_json(schema: &Value) -> Result<Self, BuildError> {
        build::structural(schema)
    }

    /// Builds the structural tree of a CRD version's `openAPIV3Schema`.
    pub fn from_props(
        schema: &kapi_api::apiextensions::v1::JsonSchemaProps,
    ) -> Result<Self, BuildError> {
        let json =
            serde_json::to_value(schema).map_err(|e| BuildError::Malformed(e.to_string()))?;
        build::structural(&json)
    }

    /// The schema for a key of an object: its property, else `additionalProperties`' schema.
    pub fn child_for_key(&self, key: &str) -> Option<&Structural> {
        if let Some(p) = self.properties.get(key) {
            return Some(p);
        }
        match &self.additional_properties {
            Some(AdditionalProperties::Schema(s)) => Some(s),
            _ => None,
        }
    }

    /// Whether an `x-kubernetes-embedded-resource` node exists below this one.
    pub fn contains_embedded_resource(&self) -> bool {
        self.embedded_below
    }

    fn children(&self) -> impl Iterator<Item = &Structural> {
        let ap = match &self.additional_properties {
            Some(AdditionalProperties::Schema(s)) => Some(s.as_ref()),
            _ => None,
        };
        self.properties
            .values()
            .chain(self.items.as_deref())
            .chain(ap)
    }

    /// Fills the cached flags from the children's (they are computed first).
    pub(crate) fn compute_flags(&mut self) {
        let embedded = self
            .children()
            .any(|c| c.embedded_resource || c.embedded_below);
        let here = matches!(self.list_type.as_deref(), Some("set" | "map"));
        let lists = here || self.children().any(|c| c.list_semantics_here_or_below);
        let defaults = self
            .children()
            .any(|c| c.default.is_some() || c.defaults_below);
        self.embedded_below = embedded;
        self.list_semantics_here_or_below = lists;
        self.defaults_below = defaults;
    }
}
