//! `Unstructured` and `UnstructuredList`: objects held as JSON maps, with typed accessors.
//!
//! Used for custom resources and wherever the Rust type of an object is not known.

use super::error::{Error, Result};
use super::object::Object;
use serde_json::{Map, Value};

/// A JSON object with accessors for apiVersion, kind and metadata.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Unstructured {
    /// The whole object.
    pub object: Map<String, Value>,
}

/// A list of unstructured objects: the list's own fields plus `items`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UnstructuredList {
    /// The list's fields other than `items` (apiVersion, kind, metadata).
    pub object: Map<String, Value>,
    /// The items.
    pub items: Vec<Unstructured>,
}

fn str_field<'a>(m: &'a Map<String, Value>, key: &str) -> &'a str {
    m.get(key).and_then(Value::as_str).unwrap_or("")
}

fn set_type_fields(m: &mut Map<String, Value>, api_version: String, kind: String) {
    m.insert("apiVersion".into(), Value::String(api_version));
    m.insert("kind".into(), Value::String(kind));
}

impl Unstructured {
    /// Wraps a JSON map.
    pub fn new(object: Map<String, Value>) -> Self {
        Self { object }
    }

    /// Builds from a JSON value; anything but an object is an error.
    pub fn from_value(value: Value) -> Result<Self> {
        match value {
            Value::Object(object) => Ok(Self { object }),
            other => Err(Error::Decode(format!(
                "unstructured object must be a JSON object, got {}",
                json_type_name(&other)
            ))),
        }
    }

    /// The `metadata` map, if present.
    pub fn metadata(&self) -> Option<&Map<String, Value>> {
        self.object.get("metadata").and_then(Value::as_object)
    }

    /// The `metadata` map, created if absent or not a map.
    pub fn metadata_mut(&mut self) -> &mut Map<String, Value> {
        let entry = self
            .object
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        match entry {
            Value::Object(m) => m,
            _ => unreachable!("metadata was just made an object"),
        }
    }

    /// A string field of metadata (`""` when absent).
    pub fn metadata_str(&self, key: &str) -> &str {
        self.metadata().map(|m| str_field(m, key)).unwrap_or("")
    }

    /// Sets a string field of metadata.
    pub fn set_metadata_str(&mut self, key: &str, value: impl Into<String>) {
        self.metadata_mut()
            .insert(key.to_string(), Value::String(value.into()));
    }

    /// `metadata.name`.
    pub fn name(&self) -> &str {
        self.metadata_str("name")
    }

    /// `metadata.namespace`.
    pub fn namespace(&self) -> &str {
        self.metadata_str("namespace")
    }

    /// `metadata.resourceVersion`.
    pub fn resource_version(&self) -> &str {
        self.metadata_str("resourceVersion")
    }

    /// `metadata.uid`.
    pub fn uid(&self) -> &str {
        self.metadata_str("uid")
    }

    /// A field at a path of map keys, if present.
    pub fn nested(&self, path: &[&str]) -> Option<&Value> {
        let (first, rest) = path.split_first()?;
        let mut cur = self.object.get(*first)?;
        for key in rest {
            cur = cur.as_object()?.get(*key)?;
        }
        Some(cur)
    }

    /// True if this looks like a list (`items` is an array).
    pub fn is_list(&self) -> bool {
        matches!(self.object.get("items"), Some(Value::Array(_)))
    }

    /// Splits a list-shaped object into an `UnstructuredList`.
    pub fn into_list(mut self) -> Result<UnstructuredList> {
        let items = match self.object.remove("items") {
            Some(Value::Array(items)) => items,
            Some(Value::Null) | None => Vec::new(),
            Some(other) => {
                return Err(Error::Decode(format!(
                    "items must be an array, got {}",
                    json_type_name(&other)
                )));
            }
        };
        let items = items
            .into_iter()
            .map(Unstructured::from_value)
            .collect::<Result<_>>()?;
        Ok(UnstructuredList {
            object: self.object,
            items,
        })
    }
}

impl UnstructuredList {
    /// The list as one JSON map, items included.
    pub fn to_map(&self) -> Map<String, Value> {
        let mut m = self.object.clone();
        let items = self
            .items
            .iter()
            .map(|i| Value::Object(i.object.clone()))
            .collect();
        m.insert("items".into(), Value::Array(items));
        m
    }

    /// `metadata.resourceVersion` of the list.
    pub fn resource_version(&self) -> &str {
        self.object
            .get("metadata")
            .and_then(Value::as_object)
            .map(|m| str_field(m, "resourceVersion"))
            .unwrap_or("")
    }
}

/// Go's name for a JSON value's type, used in messages.
pub(crate) fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn decode_map(data: &[u8], strict: bool) -> Result<(Map<String, Value>, Vec<String>)> {
    let (value, problems) = crate::serializer::json::decode_typed::<Value>(data, strict)?;
    match value {
        Value::Object(m) => Ok((m, problems)),
        other => Err(Error::Decode(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json_type_name(&other)
        ))),
    }
}

impl Object for Unstructured {
    fn assign_from(&mut self, other: Box<dyn Object>) -> std::result::Result<(), Box<dyn Object>> {
        *self = *super::object::downcast::<Unstructured>(other)?;
        Ok(())
    }
    fn api_version(&self) -> &str {
        str_field(&self.object, "apiVersion")
    }
    fn kind(&self) -> &str {
        str_field(&self.object, "kind")
    }
    fn set_api_version_and_kind(&mut self, api_version: String, kind: String) {
        set_type_fields(&mut self.object, api_version, kind);
    }
    fn type_name(&self) -> &'static str {
        "*unstructured.Unstructured"
    }
    fn clone_object(&self) -> Box<dyn Object> {
        Box::new(self.clone())
    }
    fn new_empty(&self) -> Box<dyn Object> {
        Box::new(Unstructured::default())
    }
    fn encode_json(&self, out: &mut Vec<u8>, pretty: bool) -> Result<()> {
        crate::serializer::json::write_json(&self.object, out, pretty)
    }
    fn to_json_value(&self) -> Result<Value> {
        Ok(Value::Object(self.object.clone()))
    }
    fn decode_json(&mut self, data: &[u8], strict: bool) -> Result<Vec<String>> {
        let (object, problems) = decode_map(data, strict)?;
        self.object = object;
        Ok(problems)
    }
    fn decode_json_value(&mut self, value: Value) -> Result<()> {
        *self = Unstructured::from_value(value)?;
        Ok(())
    }
    fn encode_protobuf(&self, _out: &mut Vec<u8>) -> Result<()> {
        Err(Error::NotMarshalable {
            type_name: self.type_name().to_string(),
        })
    }
    fn decode_protobuf(&mut self, _data: &[u8]) -> Result<()> {
        Err(Error::Decode(
            "unstructured objects have no protobuf form".into(),
        ))
    }
    fn supports_protobuf(&self) -> bool {
        false
    }
}

impl Object for UnstructuredList {
    fn assign_from(&mut self, other: Box<dyn Object>) -> std::result::Result<(), Box<dyn Object>> {
        *self = *super::object::downcast::<UnstructuredList>(other)?;
        Ok(())
    }
    fn api_version(&self) -> &str {
        str_field(&self.object, "apiVersion")
    }
    fn kind(&self) -> &str {
        str_field(&self.object, "kind")
    }
    fn set_api_version_and_kind(&mut self, api_version: String, kind: String) {
        set_type_fields(&mut self.object, api_version, kind);
    }
    fn type_name(&self) -> &'static str {
        "*unstructured.UnstructuredList"
    }
    fn clone_object(&self) -> Box<dyn Object> {
        Box::new(self.clone())
    }
    fn new_empty(&self) -> Box<dyn Object> {
        Box::new(UnstructuredList::default())
    }
    fn encode_json(&self, out: &mut Vec<u8>, pretty: bool) -> Result<()> {
        crate::serializer::json::write_json(&UnstructuredListRef(self), out, pretty)
    }
    fn to_json_value(&self) -> Result<Value> {
        Ok(Value::Object(self.to_map()))
    }
    fn decode_json(&mut self, data: &[u8], strict: bool) -> Result<Vec<String>> {
        let (object, problems) = decode_map(data, strict)?;
        *self = Unstructured::new(object).into_list()?;
        Ok(problems)
    }
    fn decode_json_value(&mut self, value: Value) -> Result<()> {
        *self = Unstructured::from_value(value)?.into_list()?;
        Ok(())
    }
    fn encode_protobuf(&self, _out: &mut Vec<u8>) -> Result<()> {
        Err(Error::NotMarshalable {
            type_name: self.type_name().to_string(),
        })
    }
    fn decode_protobuf(&mut self, _data: &[u8]) -> Result<()> {
        Err(Error::Decode(
            "unstructured objects have no protobuf form".into(),
        ))
    }
    fn supports_protobuf(&self) -> bool {
        false
    }
}

/// Serializes a list as one sorted map without copying the items.
struct UnstructuredListRef<'a>(&'a UnstructuredList);

impl serde::Serialize for UnstructuredListRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let list = self.0;
        let mut map = s.serialize_map(Some(list.object.len() + 1))?;
        let mut items_written = false;
        for (k, v) in &list.object {
            if !items_written && k.as_str() > "items" {
                map.serialize_entry("items", &ItemsRef(&list.items))?;
                items_written = true;
            }
            map.serialize_entry(k, v)?;
        }
        if !items_written {
            map.serialize_entry("items", &ItemsRef(&list.items))?;
        }
        map.end()
    }
}

struct ItemsRef<'a>(&'a [Unstructured]);

impl serde::Serialize for ItemsRef<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|u| &u.object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unstructured_accessors_read_type_and_metadata() {
        let u = Unstructured::from_value(json!({
            "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "n"}
        }))
        .unwrap();
        assert_eq!(u.api_version(), "v1");
        assert_eq!(u.kind(), "ConfigMap");
        assert_eq!(u.name(), "a");
        assert_eq!(u.namespace(), "n");
    }

    #[test]
    fn unstructured_list_encodes_items_in_sorted_key_position() {
        let list = Unstructured::from_value(json!({
            "apiVersion": "v1", "kind": "List", "metadata": {}, "items": [{"a": 1}]
        }))
        .unwrap()
        .into_list()
        .unwrap();
        let mut out = Vec::new();
        list.encode_json(&mut out, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"apiVersion":"v1","items":[{"a":1}],"kind":"List","metadata":{}}"#
        );
    }

    #[test]
    fn unstructured_is_not_protobuf_marshalable_r2_19() {
        let err = Unstructured::default()
            .encode_protobuf(&mut Vec::new())
            .unwrap_err();
        assert!(err.to_string().starts_with("object *unstructured.Unstructured does not implement the protobuf marshalling interface"));
    }
}
