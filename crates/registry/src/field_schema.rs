//! The shape of a kind's fields, as server-side apply needs it: which objects are structs
//! or maps (granular or atomic), which lists are atomic, sets or maps keyed by some of
//! their items' fields. Read from OpenAPI v3 schemas — the built-in models
//! (`kapi_api::openapi`) or a custom resource's structural schema — with upstream's rules:
//! `x-kubernetes-list-type`/`-list-map-keys`/`-map-type`, and for built-ins without a list
//! type, `x-kubernetes-patch-strategy: merge` with a merge key makes a keyed list, merge
//! alone a set. Where nothing is known (no schema, `x-kubernetes-preserve-unknown-fields`)
//! the shape is deduced from the value: objects are granular maps, lists are atomic.

use kapi_api::openapi::schema as model;
use serde_json::Value;

const REF: &str = "#/components/schemas/";
const OBJECT_META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/// A position in a schema; `None` where nothing is known.
#[derive(Debug, Clone, Copy, Default)]
pub struct Node<'s> {
    schema: Option<&'s Value>,
    /// The root of a custom resource: `metadata` is ObjectMeta whatever the schema says.
    object_root: bool,
}

/// How a list's items are told apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListType {
    /// The list is one value.
    Atomic,
    /// Items are scalars, each at most once.
    Set,
    /// Items are objects identified by these fields.
    Map(Vec<String>),
}

/// What a node is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// A string, number, boolean or int-or-string.
    Scalar,
    /// An object with declared fields; atomic when `x-kubernetes-map-type: atomic`.
    Struct { atomic: bool },
    /// An object of arbitrary keys; atomic when `x-kubernetes-map-type: atomic`.
    Map { atomic: bool },
    /// A list.
    List(ListType),
    /// Nothing known: shaped by the value.
    Deduced,
}

fn resolve(schema: &Value) -> Option<&Value> {
    let r = schema.get("$ref").or_else(|| {
        schema
            .get("allOf")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(|f| f.get("$ref"))
    });
    match r.and_then(Value::as_str) {
        Some(r) => model(r.strip_prefix(REF)?),
        None => Some(schema),
    }
}

fn ext<'v>(schema: &'v Value, name: &str) -> Option<&'v str> {
    schema.get(name).and_then(Value::as_str)
}

impl<'s> Node<'s> {
    /// The schema of a built-in kind (`apps`, `v1`, `Deployment`), when kapi has its model.
    pub fn builtin(group: &str, version: &str, kind: &str) -> Option<Node<'static>> {
        let name = kapi_api::openapi_models::definition_name(group, version, kind)?;
        Some(Node {
            schema: Some(model(&name)?),
            object_root: false,
        })
    }

    /// The root of a custom resource with this structural schema.
    pub fn custom(schema: &'s Value) -> Self {
        Self {
            schema: Some(schema),
            object_root: true,
        }
    }

    /// Nothing known.
    pub fn deduced() -> Self {
        Self::default()
    }

    fn of(schema: Option<&'s Value>) -> Self {
        Self {
            schema: schema.and_then(resolve),
            object_root: false,
        }
    }

    /// What this node is.
    pub fn shape(&self) -> Shape {
        let Some(s) = self.schema else {
            return Shape::Deduced;
        };
        let atomic_map = ext(s, "x-kubernetes-map-type") == Some("atomic");
        let has_properties = s
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
            return Shape::Scalar;
        }
        match s.get("type").and_then(Value::as_str) {
            Some("array") => Shape::List(list_type(s)),
            Some("object") | None if has_properties || self.object_root => {
                Shape::Struct { atomic: atomic_map }
            }
            Some("object") => {
                if s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
                    && s.get("additionalProperties").is_none()
                {
                    Shape::Deduced
                } else {
                    Shape::Map { atomic: atomic_map }
                }
            }
            Some(_) => Shape::Scalar,
            None => Shape::Deduced,
        }
    }

    /// Whether `name` is a declared field of this struct.
    pub fn declares(&self, name: &str) -> bool {
        (self.object_root && matches!(name, "apiVersion" | "kind" | "metadata"))
            || self
                .schema
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(name))
                .is_some()
    }

    /// The node of field or map key `name`.
    pub fn field(&self, name: &str) -> Node<'s> {
        if self.object_root && name == "metadata" {
            return Node {
                schema: model(OBJECT_META),
                object_root: false,
            };
        }
        let Some(s) = self.schema else {
            return Self::deduced();
        };
        if let Some(p) = s.get("properties").and_then(|p| p.get(name)) {
            return Self::of(Some(p));
        }
        match s.get("additionalProperties") {
            Some(a) if a.is_object() => Self::of(Some(a)),
            _ => Self::deduced(),
        }
    }

    /// The node of a list's items.
    pub fn items(&self) -> Node<'s> {
        Self::of(self.schema.and_then(|s| s.get("items")))
    }

    /// The schema default of field `name` (a list-map key's default, e.g. `protocol: TCP`).
    pub fn default_of(&self, name: &str) -> Option<&'s Value> {
        let p = self.schema?.get("properties")?.get(name)?;
        p.get("default").or_else(|| resolve(p)?.get("default"))
    }
}

fn list_type(s: &Value) -> ListType {
    match ext(s, "x-kubernetes-list-type") {
        Some("set") => ListType::Set,
        Some("map") => ListType::Map(
            s.get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .map(|keys| {
                    keys.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        ),
        Some(_) => ListType::Atomic,
        None => {
            let merge = ext(s, "x-kubernetes-patch-strategy")
                .is_some_and(|st| st.split(',').any(|p| p == "merge"));
            match (merge, ext(s, "x-kubernetes-patch-merge-key")) {
                (true, Some(key)) => ListType::Map(vec![key.to_owned()]),
                (true, None) => ListType::Set,
                _ => ListType::Atomic,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_deployments_containers_are_keyed_by_name_and_ports_by_port_and_protocol() {
        let d = Node::builtin("apps", "v1", "Deployment").unwrap();
        let pod = d.field("spec").field("template").field("spec");
        let containers = pod.field("containers");
        assert_eq!(
            containers.shape(),
            Shape::List(ListType::Map(vec!["name".into()]))
        );
        let ports = containers.items().field("ports");
        assert_eq!(
            ports.shape(),
            Shape::List(ListType::Map(vec![
                "containerPort".into(),
                "protocol".into()
            ]))
        );
        assert_eq!(ports.items().default_of("protocol"), Some(&json!("TCP")));
        assert_eq!(
            containers.items().field("args").shape(),
            Shape::List(ListType::Atomic)
        );
        assert_eq!(
            d.field("spec").field("selector").shape(),
            Shape::Struct { atomic: true }
        );
        assert_eq!(
            d.field("metadata").field("labels").shape(),
            Shape::Map { atomic: false }
        );
        assert_eq!(
            d.field("metadata").field("finalizers").shape(),
            Shape::List(ListType::Set)
        );
    }

    #[test]
    fn a_custom_resource_reads_list_types_from_its_schema() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"items": {"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["id"],
                "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
                "tags": {"type": "array", "items": {"type": "string"}},
                "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}});
        let root = Node::custom(&schema);
        let spec = root.field("spec");
        assert_eq!(
            spec.field("items").shape(),
            Shape::List(ListType::Map(vec!["id".into()]))
        );
        assert_eq!(spec.field("tags").shape(), Shape::List(ListType::Atomic));
        assert_eq!(spec.field("free").shape(), Shape::Deduced);
        assert_eq!(
            root.field("metadata").field("labels").shape(),
            Shape::Map { atomic: false }
        );
    }
}
