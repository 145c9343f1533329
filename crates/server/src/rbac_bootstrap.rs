//! The RBAC policy kube-apiserver creates on start (its `rbac/bootstrap-roles` post-start
//! hook): `cluster-admin` bound to `system:masters`; `system:discovery`,
//! `system:basic-user` and `system:public-info-viewer` bound to every authenticated user
//! (the last also to `system:unauthenticated`); `system:service-account-issuer-discovery`
//! (the OpenID discovery paths) bound to every ServiceAccount; `system:auth-delegator`
//! (TokenReview and SubjectAccessReview, for proxies that delegate) unbound. Each ClusterRole and ClusterRoleBinding is
//! created when missing and left alone when it exists, labelled
//! `kubernetes.io/bootstrapping: rbac-defaults` as upstream's. Also the aggregated `admin`,
//! `edit` and `view` ClusterRoles and the `system:aggregate-to-*` roles they gather
//! (`data/bootstrap-aggregated-roles.yaml`, upstream's bootstrap policy); the
//! clusterrole-aggregation controller fills the aggregated roles' rules. The controllers'
//! own roles are not created (kapi's controllers do not go through HTTP).

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

/// The aggregated roles and the roles aggregated into them (upstream's bootstrap policy).
const AGGREGATED: &str = include_str!("../data/bootstrap-aggregated-roles.yaml");

/// The aggregated roles of [`AGGREGATED`] as ClusterRoles with the bootstrap metadata.
fn aggregated_roles() -> Vec<Value> {
    let items: Vec<Value> = serde_saphyr::from_str(AGGREGATED).unwrap_or_default();
    items
        .into_iter()
        .map(|mut item| {
            let name = item["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let mut m = meta(&name);
            if let (Some(labels), Some(extra)) = (
                m["labels"].as_object_mut(),
                item["metadata"]["labels"].as_object(),
            ) {
                labels.extend(extra.clone());
            }
            item["metadata"] = m;
            item["apiVersion"] = json!("rbac.authorization.k8s.io/v1");
            item["kind"] = json!("ClusterRole");
            item
        })
        .collect()
}

/// The bootstrap ClusterRoles, then their ClusterRoleBindings: (resource, object).
pub fn objects() -> Vec<(&'static str, Value)> {
    let public = json!(["/healthz", "/livez", "/readyz", "/version", "/version/"]);
    let aggregated = aggregated_roles().into_iter().map(|r| ("clusterroles", r));
    let mut objects: Vec<(&'static str, Value)> = aggregated.collect();
    objects.extend([
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
            "clusterroles",
            cluster_role(
                "system:service-account-issuer-discovery",
                json!([{"nonResourceURLs": ["/.well-known/openid-configuration",
                    "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/"],
                    "verbs": ["get"]}]),
            ),
        ),
        (
            "clusterroles",
            cluster_role(
                "system:auth-delegator",
                json!([{"apiGroups": ["authentication.k8s.io"], "resources": ["tokenreviews"],
                        "verbs": ["create"]},
                       {"apiGroups": ["authorization.k8s.io"],
                        "resources": ["subjectaccessreviews"], "verbs": ["create"]}]),
            ),
        ),
        (
            "clusterrolebindings",
            binding("cluster-admin", &["system:masters"]),
        ),
        (
            "clusterrolebindings",
            binding(
                "system:service-account-issuer-discovery",
                &["system:serviceaccounts"],
            ),
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
    ]);
    objects
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
    fn admin_edit_and_view_aggregate_their_bootstrap_roles() {
        let roles = aggregated_roles();
        let names: Vec<&str> = roles
            .iter()
            .map(|r| r["metadata"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "admin",
                "edit",
                "view",
                "system:aggregate-to-admin",
                "system:aggregate-to-edit",
                "system:aggregate-to-view"
            ]
        );
        assert_eq!(
            roles[1]["metadata"]["labels"],
            json!({"kubernetes.io/bootstrapping": "rbac-defaults",
                "rbac.authorization.k8s.io/aggregate-to-admin": "true"})
        );
        assert!(roles[5]["rules"].as_array().unwrap().len() > 5);
    }

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
