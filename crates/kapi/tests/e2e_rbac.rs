//! RBAC authorization end to end (issue 15, first step): users of a `--token-auth-file`
//! against Roles, ClusterRoles and their bindings made by the admin, over HTTPS with the
//! `kube` crate and kubectl; denials are kube-apiserver's 403 Status, word for word.

mod e2e_support;

use e2e_support::{Kapi, json_request as request, send_json, send_raw};
use serde_json::{Value, json};

const USERS: &str =
    "alice-token,alice,1001,\"dev\"\nci-token,system:serviceaccount:build:ci,1002\n";

/// kapi with the test's token file (alice in group dev; the build/ci ServiceAccount's name).
async fn kapi_with_users(extra: &[&str]) -> Kapi {
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("users.csv");
    std::fs::write(&users, USERS).unwrap();
    let mut args = vec!["--token-auth-file", users.to_str().unwrap()];
    args.extend_from_slice(extra);
    let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Kapi::start_in(dir, &args).await
}

/// A client with `token` (and the kubeconfig's CA).
async fn as_user(kapi: &Kapi, token: &str) -> kube::Client {
    let mut config = kapi.config().await;
    config.auth_info = Default::default();
    config.auth_info.token = Some(token.to_owned().into());
    kube::Client::try_from(config).unwrap()
}

async fn send(client: &kube::Client, method: &str, path: &str, body: &Value) -> (u16, Value) {
    send_json(client, method, path, body).await
}

/// The admin creates `obj` at `path`.
async fn admin_creates(kapi: &Kapi, path: &str, obj: Value) {
    let (status, v) = send(&kapi.client().await, "POST", path, &obj).await;
    assert_eq!(status, 201, "{v}");
}

const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";
const ROLES: &str = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles";
const ROLE_BINDINGS: &str = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";

fn configmap_reader() -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "cm-reader"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]})
}

fn role_binding(name: &str, role_kind: &str, role: &str, subject: Value) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role},
        "subjects": [subject]})
}

/// The admin creates the ClusterRole `role` (named in its metadata) and binds it cluster-wide
/// to `subject` with the ClusterRoleBinding `binding`.
async fn grant_cluster_wide(kapi: &Kapi, role: Value, binding: &str, subject: Value) {
    let name = role["metadata"]["name"].as_str().unwrap().to_owned();
    admin_creates(
        kapi,
        "/apis/rbac.authorization.k8s.io/v1/clusterroles",
        role,
    )
    .await;
    let mut b = role_binding(binding, "ClusterRole", &name, subject);
    b["kind"] = json!("ClusterRoleBinding");
    admin_creates(
        kapi,
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        b,
    )
    .await;
}

#[tokio::test]
async fn a_user_without_a_role_gets_kube_apiservers_403() {
    let kapi = kapi_with_users(&[]).await;
    let alice = as_user(&kapi, "alice-token").await;
    let (status, s) = send(&alice, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 403);
    assert_eq!(
        s,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "configmaps is forbidden: User \"alice\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\"",
            "reason": "Forbidden", "details": {"kind": "configmaps"}, "code": 403})
    );
}

#[tokio::test]
async fn a_role_binding_grants_what_its_role_allows_and_nothing_more() {
    let kapi = kapi_with_users(&[]).await;
    admin_creates(&kapi, ROLES, configmap_reader()).await;
    let subject = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"});
    admin_creates(
        &kapi,
        ROLE_BINDINGS,
        role_binding("alice-reads", "Role", "cm-reader", subject),
    )
    .await;
    let alice = as_user(&kapi, "alice-token").await;
    let (status, v) = send(&alice, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 200, "{v}");
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    let (status, s) = send(&alice, "POST", CONFIGMAPS, &cm).await;
    assert_eq!(status, 403, "{s}");
    let (status, s) = send(
        &alice,
        "GET",
        "/api/v1/namespaces/kube-system/configmaps/x",
        &Value::Null,
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(
        s["message"],
        "configmaps \"x\" is forbidden: User \"alice\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"kube-system\""
    );
}

#[tokio::test]
async fn a_group_bound_cluster_wide_is_allowed_in_every_namespace() {
    let kapi = kapi_with_users(&[]).await;
    let mut role = configmap_reader();
    role["kind"] = json!("ClusterRole");
    let group = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "dev"});
    grant_cluster_wide(&kapi, role, "dev-reads", group).await;
    let alice = as_user(&kapi, "alice-token").await;
    for ns in ["default", "kube-system"] {
        let path = format!("/api/v1/namespaces/{ns}/configmaps");
        let (status, v) = send(&alice, "GET", &path, &Value::Null).await;
        assert_eq!(status, 200, "{ns}: {v}");
    }
    let (status, _) = send(&alice, "GET", "/api/v1/configmaps", &Value::Null).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_service_account_subject_names_the_account_in_its_namespace() {
    let kapi = kapi_with_users(&[]).await;
    admin_creates(&kapi, ROLES, configmap_reader()).await;
    let subject = json!({"kind": "ServiceAccount", "name": "ci", "namespace": "build"});
    admin_creates(
        &kapi,
        ROLE_BINDINGS,
        role_binding("ci-reads", "Role", "cm-reader", subject),
    )
    .await;
    let ci = as_user(&kapi, "ci-token").await;
    let (status, v) = send(&ci, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 200, "{v}");
}

#[tokio::test]
async fn a_binding_to_a_missing_role_is_named_in_the_denial() {
    let kapi = kapi_with_users(&[]).await;
    let subject = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"});
    admin_creates(
        &kapi,
        ROLE_BINDINGS,
        role_binding("dangling", "Role", "gone", subject),
    )
    .await;
    let alice = as_user(&kapi, "alice-token").await;
    let (status, s) = send(&alice, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 403);
    assert!(
        s["message"]
            .as_str()
            .unwrap()
            .ends_with(": RBAC: role.rbac.authorization.k8s.io \"gone\" not found"),
        "{s}"
    );
}

#[tokio::test]
async fn every_authenticated_user_may_read_discovery_and_the_version() {
    let kapi = kapi_with_users(&[]).await;
    let alice = as_user(&kapi, "alice-token").await;
    for path in ["/api", "/apis", "/apis/apps/v1", "/version", "/openapi/v2"] {
        let (status, _, _) = send_raw(&alice, request("GET", path, &Value::Null)).await;
        assert_eq!(status, 200, "{path}");
    }
}

#[tokio::test]
async fn always_allow_lets_every_authenticated_user_through() {
    let kapi = kapi_with_users(&["--authorization-mode=AlwaysAllow"]).await;
    let alice = as_user(&kapi, "alice-token").await;
    let (status, v) = send(&alice, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 200, "{v}");
}

#[tokio::test]
async fn the_bootstrap_policy_is_there_after_start() {
    let kapi = Kapi::start().await;
    let out = kapi.kubectl_ok(&[
        "get",
        "clusterroles,clusterrolebindings",
        "-l",
        "kubernetes.io/bootstrapping=rbac-defaults",
        "-o",
        "name",
    ]);
    for want in [
        "clusterrole.rbac.authorization.k8s.io/cluster-admin",
        "clusterrole.rbac.authorization.k8s.io/system:discovery",
        "clusterrolebinding.rbac.authorization.k8s.io/cluster-admin",
        "clusterrolebinding.rbac.authorization.k8s.io/system:public-info-viewer",
    ] {
        assert!(out.contains(want), "{want} missing from\n{out}");
    }
}

#[tokio::test]
async fn kubectl_as_a_restricted_user_prints_the_forbidden_error() {
    let kapi = kapi_with_users(&[]).await;
    let out = kapi.kubectl(&["--token", "alice-token", "get", "configmaps"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Error from server (Forbidden): configmaps is forbidden: User \"alice\" cannot list resource \"configmaps\" in API group \"\" in the namespace \"default\""),
        "{err}"
    );
}

/// alice may get and list ConfigMaps in `default` through the Role `cm-reader`.
async fn alice_reads_configmaps(kapi: &Kapi) {
    admin_creates(kapi, ROLES, configmap_reader()).await;
    let subject = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"});
    admin_creates(
        kapi,
        ROLE_BINDINGS,
        role_binding("alice-reads", "Role", "cm-reader", subject),
    )
    .await;
}

#[tokio::test]
async fn kubectl_auth_can_i_answers_for_the_user_asking() {
    let kapi = kapi_with_users(&[]).await;
    let can_i = |args: &[&str]| {
        let mut all = vec!["--token", "alice-token", "auth", "can-i"];
        all.extend_from_slice(args);
        let out = kapi.kubectl(&all);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(can_i(&["list", "configmaps"]), "no");
    alice_reads_configmaps(&kapi).await;
    assert_eq!(can_i(&["list", "configmaps"]), "yes");
    assert_eq!(can_i(&["create", "configmaps"]), "no");
    assert_eq!(can_i(&["list", "configmaps", "-n", "kube-system"]), "no");
    assert_eq!(can_i(&["get", "/apis"]), "yes");
    let admin = kapi.kubectl(&["auth", "can-i", "delete", "nodes"]);
    assert_eq!(String::from_utf8_lossy(&admin.stdout).trim(), "yes");
}

#[tokio::test]
async fn kubectl_auth_can_i_list_shows_the_rules_bound_in_the_namespace() {
    let kapi = kapi_with_users(&[]).await;
    alice_reads_configmaps(&kapi).await;
    let out = kapi.kubectl_ok(&["--token", "alice-token", "auth", "can-i", "--list"]);
    let row = out
        .lines()
        .find(|l| l.starts_with("configmaps "))
        .unwrap_or_else(|| panic!("no configmaps row in\n{out}"));
    assert!(row.trim_end().ends_with("[get list]"), "{row}");
    assert!(
        out.contains("selfsubjectaccessreviews.authorization.k8s.io"),
        "{out}"
    );
}

#[tokio::test]
async fn kubectl_auth_whoami_names_the_user_and_its_groups() {
    let kapi = kapi_with_users(&[]).await;
    let out = kapi.kubectl_ok(&["--token", "alice-token", "auth", "whoami", "-o", "json"]);
    let review: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        review["status"]["userInfo"],
        json!({"username": "alice", "uid": "1001", "groups": ["dev", "system:authenticated"]})
    );
}

#[tokio::test]
async fn a_subject_access_review_says_which_binding_allows() {
    let kapi = kapi_with_users(&[]).await;
    alice_reads_configmaps(&kapi).await;
    let sar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": "alice", "resourceAttributes":
            {"namespace": "default", "verb": "list", "resource": "configmaps"}}});
    let path = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    let (status, review) = send(&kapi.client().await, "POST", path, &sar).await;
    assert_eq!(status, 201, "{review}");
    assert_eq!(
        review["status"],
        json!({"allowed": true, "reason": "RBAC: allowed by RoleBinding \"alice-reads/default\" of Role \"cm-reader\" to User \"alice\""})
    );
    // Asking about others needs `create subjectaccessreviews`, which alice lacks.
    let alice = as_user(&kapi, "alice-token").await;
    let (status, _) = send(&alice, "POST", path, &sar).await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn a_review_without_attributes_or_outside_its_namespace_is_invalid() {
    let kapi = kapi_with_users(&[]).await;
    let admin = kapi.client().await;
    let ssar = json!({"apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview", "spec": {}});
    let (status, s) = send(
        &admin,
        "POST",
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        &ssar,
    )
    .await;
    assert_eq!(status, 422, "{s}");
    assert_eq!(
        s["details"]["causes"][0]["field"],
        "spec.resourceAttributes"
    );
    let lsar = json!({"apiVersion": "authorization.k8s.io/v1",
        "kind": "LocalSubjectAccessReview",
        "spec": {"user": "alice", "resourceAttributes":
            {"namespace": "other", "verb": "get", "resource": "pods"}}});
    let (status, s) = send(
        &admin,
        "POST",
        "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews",
        &lsar,
    )
    .await;
    assert_eq!(status, 422, "{s}");
    assert_eq!(
        s["details"]["causes"][0],
        json!({"reason": "FieldValueInvalid",
            "message": "Invalid value: \"other\": must match metadata.namespace",
            "field": "spec.resourceAttributes.namespace"})
    );
}

fn whoami(kapi: &Kapi, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["auth", "whoami", "-o", "json"]);
    let review: Value = serde_json::from_str(&kapi.kubectl_ok(&all)).unwrap();
    review["status"]["userInfo"].clone()
}

#[tokio::test]
async fn kubectl_as_acts_as_the_user_named() {
    let kapi = kapi_with_users(&[]).await;
    assert_eq!(
        whoami(&kapi, &["--as", "alice"]),
        json!({"username": "alice", "groups": ["system:authenticated"]})
    );
    // The admin acting as alice gets what alice gets.
    let out = kapi.kubectl(&["--as", "alice", "get", "configmaps"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("User \"alice\" cannot list resource \"configmaps\""),
        "{err}"
    );
}

#[tokio::test]
async fn impersonating_without_the_impersonate_verb_is_forbidden() {
    let kapi = kapi_with_users(&[]).await;
    let mut config = kapi.config().await;
    config.auth_info = Default::default();
    config.auth_info.token = Some("alice-token".to_owned().into());
    config.auth_info.impersonate = Some("bob".to_owned());
    let alice_as_bob = kube::Client::try_from(config).unwrap();
    let (status, s) = send(&alice_as_bob, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 403);
    assert_eq!(
        s["message"],
        "users \"bob\" is forbidden: User \"alice\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope"
    );
    assert_eq!(s["details"], json!({"name": "bob", "kind": "users"}));
}

#[tokio::test]
async fn a_user_allowed_to_impersonate_service_accounts_acts_as_one_with_its_groups() {
    let kapi = kapi_with_users(&[]).await;
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "sa-impersonator"},
        "rules": [{"apiGroups": [""], "resources": ["serviceaccounts"], "verbs": ["impersonate"]}]});
    let alice = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"});
    grant_cluster_wide(&kapi, role, "alice-impersonates", alice).await;
    assert_eq!(
        whoami(
            &kapi,
            &[
                "--token",
                "alice-token",
                "--as",
                "system:serviceaccount:build:ci"
            ]
        ),
        json!({"username": "system:serviceaccount:build:ci",
            "groups": ["system:serviceaccounts", "system:serviceaccounts:build",
                "system:authenticated"]})
    );
    // Impersonating a user is another permission.
    let out = kapi.kubectl(&["--token", "alice-token", "--as", "bob", "auth", "whoami"]);
    assert!(!out.status.success());
}

/// Polls `path` as the admin until `done` holds of the object (10 s at most).
async fn eventually(kapi: &Kapi, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let admin = kapi.client().await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let (status, v) = send(&admin, "GET", path, &Value::Null).await;
        if status == 200 && done(&v) {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "timed out: {v}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

const CLUSTER_ROLES: &str = "/apis/rbac.authorization.k8s.io/v1/clusterroles";

#[tokio::test]
async fn a_user_bound_to_edit_gets_the_aggregated_rules() {
    let kapi = kapi_with_users(&[]).await;
    let edit = eventually(&kapi, &format!("{CLUSTER_ROLES}/edit"), |r| {
        r["rules"].as_array().is_some_and(|rules| !rules.is_empty())
    })
    .await;
    let secrets_write = json!({"apiGroups": [""], "resources": ["configmaps", "events",
        "persistentvolumeclaims", "replicationcontrollers", "replicationcontrollers/scale",
        "secrets", "serviceaccounts", "services", "services/proxy"],
        "verbs": ["create", "delete", "deletecollection", "patch", "update"]});
    assert!(
        edit["rules"].as_array().unwrap().contains(&secrets_write),
        "{edit}"
    );
    let subject = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"});
    admin_creates(
        &kapi,
        ROLE_BINDINGS,
        role_binding("alice-edits", "ClusterRole", "edit", subject),
    )
    .await;
    let alice = as_user(&kapi, "alice-token").await;
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    let (status, v) = send(&alice, "POST", CONFIGMAPS, &cm).await;
    assert_eq!(status, 201, "{v}");
    // edit aggregates view: reading works too; RBAC objects are admin's.
    let (status, _) = send(&alice, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 200);
    let (status, _) = send(&alice, "GET", ROLES, &Value::Null).await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn a_role_labelled_aggregate_to_view_extends_view() {
    let kapi = kapi_with_users(&[]).await;
    let widgets = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "widgets-view",
            "labels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
        "rules": [{"apiGroups": ["example.com"], "resources": ["widgets"],
            "verbs": ["get", "list", "watch"]}]});
    admin_creates(&kapi, CLUSTER_ROLES, widgets).await;
    let want = json!({"apiGroups": ["example.com"], "resources": ["widgets"],
        "verbs": ["get", "list", "watch"]});
    // view, and through view edit and admin, gain the rule.
    for role in ["view", "edit", "admin"] {
        eventually(&kapi, &format!("{CLUSTER_ROLES}/{role}"), |r| {
            r["rules"]
                .as_array()
                .is_some_and(|rules| rules.contains(&want))
        })
        .await;
    }
}

/// alice may manage Roles and RoleBindings in `default` and read ConfigMaps there, plus
/// `extra` rules.
async fn alice_manages_rbac(kapi: &Kapi, extra: Value) {
    let mut rules = vec![
        json!({"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles", "rolebindings"],
            "verbs": ["create", "get", "list", "update", "patch"]}),
        json!({"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}),
    ];
    if !extra.is_null() {
        rules.push(extra);
    }
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "rbac-manager"}, "rules": rules});
    admin_creates(kapi, ROLES, role).await;
    let subject = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"});
    admin_creates(
        kapi,
        ROLE_BINDINGS,
        role_binding("alice-manages", "Role", "rbac-manager", subject),
    )
    .await;
}

fn role(name: &str, resource: &str) -> Value {
    json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": name},
        "rules": [{"apiGroups": [""], "resources": [resource], "verbs": ["get"]}]})
}

#[tokio::test]
async fn a_user_may_not_create_a_role_granting_more_than_they_hold() {
    let kapi = kapi_with_users(&[]).await;
    alice_manages_rbac(&kapi, Value::Null).await;
    let alice = as_user(&kapi, "alice-token").await;
    let (status, s) = send(&alice, "POST", ROLES, &role("secrets-reader", "secrets")).await;
    assert_eq!(status, 403, "{s}");
    assert_eq!(
        s["message"],
        "roles.rbac.authorization.k8s.io \"secrets-reader\" is forbidden: user \"alice\" (groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}"
    );
    let (status, _) = send(
        &kapi.client().await,
        "GET",
        &format!("{ROLES}/secrets-reader"),
        &Value::Null,
    )
    .await;
    assert_eq!(status, 404, "nothing stored");
    // What alice holds she may grant.
    let (status, v) = send(&alice, "POST", ROLES, &role("cm-getter", "configmaps")).await;
    assert_eq!(status, 201, "{v}");
}

#[tokio::test]
async fn escalate_lets_a_user_grant_what_they_lack() {
    let kapi = kapi_with_users(&[]).await;
    let escalate = json!({"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"],
        "verbs": ["escalate"]});
    alice_manages_rbac(&kapi, escalate).await;
    let alice = as_user(&kapi, "alice-token").await;
    let (status, v) = send(&alice, "POST", ROLES, &role("secrets-reader", "secrets")).await;
    assert_eq!(status, 201, "{v}");
}

#[tokio::test]
async fn binding_a_role_needs_its_permissions_or_the_bind_verb() {
    let kapi = kapi_with_users(&[]).await;
    alice_manages_rbac(&kapi, Value::Null).await;
    admin_creates(&kapi, ROLES, role("secrets-reader", "secrets")).await;
    admin_creates(&kapi, ROLES, role("cm-getter", "configmaps")).await;
    let alice = as_user(&kapi, "alice-token").await;
    let bob = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "bob"});
    let (status, s) = send(
        &alice,
        "POST",
        ROLE_BINDINGS,
        &role_binding("bob-secrets", "Role", "secrets-reader", bob.clone()),
    )
    .await;
    assert_eq!(status, 403, "{s}");
    assert!(
        s["message"]
            .as_str()
            .unwrap()
            .contains("is attempting to grant RBAC permissions not currently held"),
        "{s}"
    );
    let (status, v) = send(
        &alice,
        "POST",
        ROLE_BINDINGS,
        &role_binding("bob-cm", "Role", "cm-getter", bob.clone()),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    // With `bind` on that role, alice may bind it although she cannot read secrets.
    let bind = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "binder"},
        "rules": [{"apiGroups": ["rbac.authorization.k8s.io"], "resources": ["roles"],
            "resourceNames": ["secrets-reader"], "verbs": ["bind"]}]});
    admin_creates(&kapi, ROLES, bind).await;
    let alice_subject =
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"});
    admin_creates(
        &kapi,
        ROLE_BINDINGS,
        role_binding("alice-binds", "Role", "binder", alice_subject),
    )
    .await;
    let (status, v) = send(
        &alice,
        "POST",
        ROLE_BINDINGS,
        &role_binding("bob-secrets", "Role", "secrets-reader", bob),
    )
    .await;
    assert_eq!(status, 201, "{v}");
}

#[tokio::test]
async fn with_anonymous_auth_a_request_without_credentials_gets_what_rbac_grants_anonymous() {
    let kapi = kapi_with_users(&["--anonymous-auth"]).await;
    let anonymous = kapi.anonymous_client().await;
    let (status, s) = send(&anonymous, "GET", "/api", &Value::Null).await;
    assert_eq!(status, 403, "{s}");
    assert_eq!(
        s["message"],
        "forbidden: User \"system:anonymous\" cannot get path \"/api\""
    );
    for path in ["/version", "/healthz", "/livez", "/readyz"] {
        let (status, _, _) = send_raw(&anonymous, request("GET", path, &Value::Null)).await;
        assert_eq!(status, 200, "{path}");
    }
    // system:public-info-viewer names the top paths only, as upstream's.
    let (status, s) = send(&anonymous, "GET", "/livez/etcd", &Value::Null).await;
    assert_eq!(status, 403, "{s}");
    // A grant to system:unauthenticated counts for it.
    let group = json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group",
        "name": "system:unauthenticated"});
    admin_creates(&kapi, ROLES, configmap_reader()).await;
    admin_creates(
        &kapi,
        ROLE_BINDINGS,
        role_binding("anyone-reads", "Role", "cm-reader", group),
    )
    .await;
    let (status, v) = send(&anonymous, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 200, "{v}");
    // Wrong credentials are still refused.
    let (status, _) = send(
        &as_user(&kapi, "forged").await,
        "GET",
        CONFIGMAPS,
        &Value::Null,
    )
    .await;
    assert_eq!(status, 401);
}
