//! Patch metadata of the built-in kinds from their OpenAPI models
//! (`kapi_api::openapi_models`): for each field, the schema it descends into and, for a
//! list, its strategic merge strategy (`x-kubernetes-patch-strategy`) and merge key
//! (`x-kubernetes-patch-merge-key`) — what Go's strategic merge reads from struct tags.

use kapi_api::openapi::schema as model;
use serde_json::Value;

const REF: &str = "#/components/schemas/";

/// A position in a kind's schema while a patch is walked; `None` where nothing is known.
#[derive(Debug, Clone, Copy, Default)]
pub struct PatchMeta {
    schema: Option<&'static Value>,
}

/// How a list merges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListStrategy {
    /// A set of scalars (`patchStrategy: merge` on a list of scalars).
    Primitive,
    /// Objects identified by this key.
    Key(String),
}

fn resolve(schema: &'static Value) -> Option<&'static Value> {
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

impl PatchMeta {
    /// The metadata of a kind (`apps/v1`, `Deployment`); empty for kinds without a model.
    pub fn of_kind(api_version: &str, kind: &str) -> Self {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let schema = kapi_api::openapi_models::definition_name(group, version, kind)
            .and_then(|name| model(&name));
        Self { schema }
    }

    fn property(&self, field: &str) -> Option<&'static Value> {
        self.schema?.get("properties")?.get(field)
    }

    /// The metadata of an object field.
    pub fn field(&self, field: &str) -> Self {
        Self {
            schema: self.property(field).and_then(resolve),
        }
    }

    /// The metadata of a list field's items.
    pub fn items(&self, field: &str) -> Self {
        Self {
            schema: self
                .property(field)
                .and_then(|p| p.get("items"))
                .and_then(resolve),
        }
    }

    /// Whether anything is known here (a built-in kind's schema).
    pub fn known(&self) -> bool {
        self.schema.is_some()
    }

    /// The strategic merge strategy of a list field; `None`: the list is replaced.
    pub fn list_strategy(&self, field: &str) -> Option<ListStrategy> {
        let p = self.property(field)?;
        let strategy = p.get("x-kubernetes-patch-strategy")?.as_str()?;
        if !strategy.split(',').any(|s| s == "merge") {
            return None;
        }
        Some(
            match p
                .get("x-kubernetes-patch-merge-key")
                .and_then(Value::as_str)
            {
                Some(key) => ListStrategy::Key(key.to_owned()),
                None => ListStrategy::Primitive,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deployments_containers_merge_by_name() {
        let d = PatchMeta::of_kind("apps/v1", "Deployment");
        let pod = d.field("spec").field("template").field("spec");
        assert_eq!(
            pod.list_strategy("containers"),
            Some(ListStrategy::Key("name".into()))
        );
        let container = pod.items("containers");
        assert_eq!(
            container.list_strategy("env"),
            Some(ListStrategy::Key("name".into()))
        );
        assert_eq!(
            d.field("metadata").list_strategy("finalizers"),
            Some(ListStrategy::Primitive)
        );
        assert_eq!(pod.list_strategy("nodeSelector"), None);
    }
}
