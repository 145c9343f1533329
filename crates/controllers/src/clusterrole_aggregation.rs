//! kube-controller-manager's `clusterrole-aggregation-controller`: a ClusterRole with an
//! `aggregationRule` gets as its rules the rules of every other ClusterRole whose labels
//! one of its `clusterRoleSelectors` selects, in the order of those roles' names, each rule
//! once. It follows ClusterRoles; a change of any labelled role (or of an aggregated one)
//! looks at every aggregated role again. This is how the bootstrap `admin`, `edit` and
//! `view` roles get their rules, and how a CRD's author extends them with a role labelled
//! `rbac.authorization.k8s.io/aggregate-to-edit: "true"`.

use crate::context::Context;
use crate::runtime::{Action, Reconciler};
use kapi_registry::Error;
use kapi_registry::builtin::selects;
use kapi_registry::cache::Cacher;
use kapi_registry::rest::{RestStore, UpdateFn, WriteContext};
use kapi_storage::KeyValue;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The controller's name (kube-controller-manager's).
pub const NAME: &str = "clusterrole-aggregation-controller";
/// Its post-start hook.
pub const HOOK: &str = "start-clusterrole-aggregation-controller";
/// Its lease when elected.
pub const LEASE: &str = "kapi-clusterrole-aggregation";

fn roles_entry(ctx: &Context) -> Option<Arc<kapi_registry::entry::ResourceEntry>> {
    ctx.registry
        .snapshot()
        .get("rbac.authorization.k8s.io", "v1", "clusterroles")
        .cloned()
}

fn parse(kv: &KeyValue) -> Option<Value> {
    serde_json::from_slice(&kv.value).ok()
}

fn is_aggregated(role: &Value) -> bool {
    role.get("aggregationRule").is_some_and(Value::is_object)
}

fn has_labels(role: &Value) -> bool {
    role["metadata"]["labels"]
        .as_object()
        .is_some_and(|l| !l.is_empty())
}

/// The rules `role` aggregates from `roles` (every ClusterRole).
pub fn aggregated_rules(role: &Value, roles: &[Value]) -> Vec<Value> {
    let name = role["metadata"]["name"].as_str().unwrap_or_default();
    let selectors = role["aggregationRule"]["clusterRoleSelectors"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let empty = Map::new();
    let mut selected: Vec<&Value> = roles
        .iter()
        .filter(|r| r["metadata"]["name"].as_str() != Some(name))
        .filter(|r| {
            let labels = r["metadata"]["labels"].as_object().unwrap_or(&empty);
            selectors.iter().any(|s| selects(s, labels))
        })
        .collect();
    selected.sort_by(|a, b| {
        a["metadata"]["name"]
            .as_str()
            .cmp(&b["metadata"]["name"].as_str())
    });
    let mut rules: Vec<Value> = Vec::new();
    for r in selected {
        for rule in r["rules"].as_array().into_iter().flatten() {
            if !rules.contains(rule) {
                rules.push(rule.clone());
            }
        }
    }
    rules
}

/// Fills aggregated ClusterRoles.
pub struct ClusterRoleAggregation;

#[async_trait::async_trait]
impl Reconciler for ClusterRoleAggregation {
    fn name(&self) -> &'static str {
        NAME
    }

    fn hook(&self) -> &'static str {
        HOOK
    }

    fn description(&self) -> &'static str {
        "aggregated cluster roles"
    }

    fn lease(&self) -> Option<&'static str> {
        Some(LEASE)
    }

    fn watched_prefix(&self, ctx: &Context) -> Option<String> {
        roles_entry(ctx).map(|e| e.collection_prefix(None))
    }

    fn observe(
        &self,
        prefix: &str,
        _storage_key: &[u8],
        current: Option<&KeyValue>,
        previous: Option<&KeyValue>,
        cache: &Cacher,
    ) -> Vec<String> {
        let changed: Vec<Value> = [current, previous]
            .into_iter()
            .flatten()
            .filter_map(parse)
            .collect();
        if !changed.iter().any(|r| has_labels(r) || is_aggregated(r)) {
            return Vec::new();
        }
        cache
            .list(prefix)
            .0
            .iter()
            .filter_map(parse)
            .filter(is_aggregated)
            .filter_map(|r| r["metadata"]["name"].as_str().map(str::to_owned))
            .collect()
    }

    async fn reconcile(&self, ctx: &Context, name: &str) -> Result<Action, Error> {
        let Some(entry) = roles_entry(ctx) else {
            return Ok(Action::Done);
        };
        let table = ctx.registry.snapshot();
        let rest = RestStore::new(ctx.store.as_ref(), &table, &entry);
        let Some(role) = rest.get(None, name).await? else {
            return Ok(Action::Done);
        };
        if !is_aggregated(&role.object) {
            return Ok(Action::Done);
        }
        let cache = ctx
            .caches
            .get(
                &entry.collection_prefix(None),
                std::time::Duration::from_secs(5),
            )
            .await?;
        let roles: Vec<Value> = cache
            .list(cache.prefix())
            .0
            .iter()
            .filter_map(parse)
            .collect();
        let rules = aggregated_rules(&role.object, &roles);
        if role.object["rules"].as_array().cloned().unwrap_or_default() == rules {
            return Ok(Action::Done);
        }
        let w = WriteContext {
            manager: NAME.to_owned(),
            ..WriteContext::default()
        };
        let mut update = UpdateFn::new(move |current: Option<&Value>| {
            let mut out = current.cloned().unwrap_or_default();
            out["rules"] = Value::Array(rules.clone());
            Ok(out)
        });
        match rest.update(&w, name, &mut update).await {
            Ok(_) | Err(Error::NotFound { .. }) => Ok(Action::Done),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_aggregated_role_gathers_the_selected_roles_rules_by_name_once_each() {
        let view = json!({"metadata": {"name": "view"}, "aggregationRule": {"clusterRoleSelectors":
            [{"matchLabels": {"agg": "view"}}]}});
        let get = json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]});
        let list = json!({"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]});
        let roles = vec![
            view.clone(),
            json!({"metadata": {"name": "b", "labels": {"agg": "view"}}, "rules": [get, list]}),
            json!({"metadata": {"name": "a", "labels": {"agg": "view"}}, "rules": [list]}),
            json!({"metadata": {"name": "c", "labels": {"agg": "other"}}, "rules": [get]}),
        ];
        assert_eq!(aggregated_rules(&view, &roles), [list, get]);
    }
}
