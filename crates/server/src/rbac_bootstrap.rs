//! The RBAC policy kube-apiserver creates on start (its `rbac/bootstrap-roles` post-start
//! hook): `cluster-admin` bound to `system:masters`; `system:discovery`,
//! `system:basic-user` and `system:public-info-viewer` bound to every authenticated user
//! (the last also to `system:unauthenticated`). Each ClusterRole and ClusterRoleBinding is
//! created when missing and left alone when it exists, labelled
//! `kubernetes.io/bootstrapping: rbac-defaults` as upstream's. The aggregated `admin`,
//! `edit` and `view` roles and the controllers' roles are not created yet.

use crate::state::ApiState;
use kapi_registry::Error;
use kapi_registry::rest::{RestStore, WriteContext};
use serde_json::{Value, json};

/// The post-start hook marked once the policy exists.
pub const HOOK: &str = "rbac/bootstrap-roles";

const GROUP: &str = "rbac.authorization.k8s.io";

fn meta(name: &str) -> Value {
    json!({"name": name,
        "labels": {"kubernetes.io/bootstrapping": "rbac-defaults"},
        "annotations": {"rbac.authorization.kubernetes.io/autoupdate": "true"}})
}

fn cluster_role(name: &str, rules: Value) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": meta(name), "rules": rules})
}

fn binding(name: &str, groups: &[&str]) -> Value {
    let subjects: Vec<Value> = groups
        .iter()
        .map(|g| json!({"apiGroup": GROUP, "kind": "Group", "name": g}))
        .collect();
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
        "metadata": meta(name),
        "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": name},
        "subjects": subjects})
}

/// The bootstrap ClusterRoles, then their ClusterRoleBindings: (resource, object).
pub fn objects() -> Vec<(&'static str, Value)> {
    let public = json!(["/healthz", "/livez", "/readyz", "/version", "/version/"]);
    vec![
        (
            "clusterroles",
            cluster_role(
                "cluster-admin",
                json!([{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]},
                       {"nonResourceURLs": ["*"], "verbs": ["*"]}]),
            ),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:discovery",
                json!([{"nonResourceURLs": ["/api", "/api/*", "/apis", "/apis/*", "/healthz",
                    "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"],
                    "verbs": ["get"]}]),
            ),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:basic-user",
                json!([{"apiGroups": ["authorization.k8s.io"],
                        "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                        "verbs": ["create"]},
                       {"apiGroups": ["authentication.k8s.io"],
                        "resources": ["selfsubjectreviews"], "verbs": ["create"]}]),
            ),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:public-info-viewer",
                json!([{"nonResourceURLs": public, "verbs": ["get"]}]),
            ),
        ),
        (
            "clusterrolebindings",
            binding("cluster-admin", &["system:masters"]),
        ),
        (
            "clusterrolebindings",
            binding("system:discovery", &["system:authenticated"]),
        ),
        (
            "clusterrolebindings",
            binding("system:basic-user", &["system:authenticated"]),
        ),
        (
            "clusterrolebindings",
            binding(
                "system:public-info-viewer",
                &["system:authenticated", "system:unauthenticated"],
            ),
        ),
    ]
}

/// Creates what does not exist yet.
pub async fn ensure(state: &ApiState) -> Result<(), Error> {
    let table = state.registry.snapshot();
    for (plural, obj) in objects() {
        let Some(entry) = table.get(GROUP, "v1", plural) else {
            continue;
        };
        let rest = RestStore::new(state.store.as_ref(), &table, entry);
        let name = obj["metadata"]["name"].as_str().unwrap_or_default();
        if rest.get(None, name).await?.is_some() {
            continue;
        }
        let w = WriteContext {
            manager: "kube-apiserver".into(),
            ..WriteContext::default()
        };
        match rest.create(&w, obj).await {
            Ok(_) | Err(Error::AlreadyExists { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bootstrap_binding_names_a_bootstrap_role() {
        let objects = objects();
        let roles: Vec<&str> = objects
            .iter()
            .filter(|(p, _)| *p == "clusterroles")
            .map(|(_, o)| o["metadata"]["name"].as_str().unwrap())
            .collect();
        for (_, b) in objects.iter().filter(|(p, _)| *p == "clusterrolebindings") {
            let role = b["roleRef"]["name"].as_str().unwrap();
            assert!(roles.contains(&role), "{role}");
        }
    }
}
