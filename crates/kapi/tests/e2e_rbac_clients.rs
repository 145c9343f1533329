//! RBAC through the clients people use (issue 15): impersonation of users, groups, uids and
//! extras and SubjectAccessReviews for groups and ServiceAccounts with the `kube` crate; a
//! ClusterRole aggregated into `view` and `can-i --as-group` with kubectl; the same ground
//! with the official Python client (`e2e_python/rbac_auth.py`).

mod e2e_support;

use e2e_support::credentials::{ForeignCa, service_account_token, signing_key_in, unknown_key};
use e2e_support::{Kapi, run_python_script_with, send_json};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};
use serde_json::{Value, json};
use std::collections::HashMap;

const USERS: &str = "alice-token,alice,1001,\"dev\"\n";
const CLUSTER_ROLES: &str = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
const CLUSTER_ROLE_BINDINGS: &str = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings";
const ROLE_BINDINGS: &str = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings";

/// kapi with a token file naming alice (group dev), and `extra` flags; `dir` is its data dir.
async fn kapi_with_alice_in(dir: tempfile::TempDir, extra: &[&str]) -> Kapi {
    let users = dir.path().join("users.csv");
    std::fs::write(&users, USERS).unwrap();
    let users = users.to_str().unwrap().to_owned();
    let mut args = vec!["--token-auth-file", users.as_str()];
    args.extend_from_slice(extra);
    Kapi::start_in(dir, &args).await
}

async fn kapi_with_alice() -> Kapi {
    kapi_with_alice_in(tempfile::tempdir().unwrap(), &[]).await
}

/// The admin creates `obj` at `path`; returns what was stored.
async fn admin_creates(kapi: &Kapi, path: &str, obj: Value) -> Value {
    let (status, v) = send_json(&kapi.client().await, "POST", path, &obj).await;
    assert_eq!(status, 201, "{v}");
    v
}

/// The admin grants `subject` the cluster-wide `rules` (ClusterRole and binding `name`).
async fn grant_cluster_wide(kapi: &Kapi, name: &str, rules: Value, subject: Value) {
    admin_creates(
        kapi,
        CLUSTER_ROLES,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name}, "rules": rules}),
    )
    .await;
    admin_creates(
        kapi,
        CLUSTER_ROLE_BINDINGS,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [subject]}),
    )
    .await;
}

fn alice() -> Value {
    json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"})
}

/// alice may impersonate what `rules` (verb `impersonate`) name.
async fn alice_may_impersonate(kapi: &Kapi, rules: Value) {
    grant_cluster_wide(kapi, "alice-impersonates", rules, alice()).await;
}

fn impersonate(group: &str, resource: &str, names: &[&str]) -> Value {
    json!({"apiGroups": [group], "resources": [resource], "resourceNames": names,
        "verbs": ["impersonate"]})
}

/// alice's kube config, ready for impersonation fields.
async fn alice_config(kapi: &Kapi) -> kube::Config {
    let mut config = kapi.config().await;
    config.auth_info = Default::default();
    config.auth_info.token = Some("alice-token".to_owned().into());
    config
}

/// Who the server says `config`'s requests act as (SelfSubjectReview), or the error.
async fn whoami(config: kube::Config) -> Result<Value, kube::Error> {
    let client = kube::Client::try_from(config).unwrap();
    let reviews: Api<SelfSubjectReview> = Api::all(client);
    let review = reviews
        .create(&PostParams::default(), &SelfSubjectReview::default())
        .await?;
    Ok(serde_json::to_value(review.status.unwrap().user_info.unwrap()).unwrap())
}

fn forbidden_message(e: kube::Error) -> String {
    match e {
        kube::Error::Api(s) if s.code == 403 => s.message,
        other => panic!("not a 403: {other:?}"),
    }
}

#[tokio::test]
async fn a_user_allowed_to_impersonate_a_user_acts_as_that_user() {
    let kapi = kapi_with_alice().await;
    alice_may_impersonate(&kapi, json!([impersonate("", "users", &["bob"])])).await;
    let mut config = alice_config(&kapi).await;
    config.auth_info.impersonate = Some("bob".into());
    assert_eq!(
        whoami(config).await.unwrap(),
        json!({"username": "bob", "groups": ["system:authenticated"]})
    );
}

#[tokio::test]
async fn impersonating_a_group_needs_impersonate_on_that_group() {
    let kapi = kapi_with_alice().await;
    alice_may_impersonate(&kapi, json!([impersonate("", "users", &["bob"])])).await;
    let mut config = alice_config(&kapi).await;
    config.auth_info.impersonate = Some("bob".into());
    config.auth_info.impersonate_groups = Some(vec!["ops".into()]);
    assert_eq!(
        forbidden_message(whoami(config).await.unwrap_err()),
        "groups \"ops\" is forbidden: User \"alice\" cannot impersonate resource \"groups\" in API group \"\" at the cluster scope"
    );
}

#[tokio::test]
async fn an_impersonated_group_comes_with_system_authenticated() {
    let kapi = kapi_with_alice().await;
    let rules = json!([
        impersonate("", "users", &["bob"]),
        impersonate("", "groups", &["ops"])
    ]);
    alice_may_impersonate(&kapi, rules).await;
    let mut config = alice_config(&kapi).await;
    config.auth_info.impersonate = Some("bob".into());
    config.auth_info.impersonate_groups = Some(vec!["ops".into()]);
    assert_eq!(
        whoami(config).await.unwrap(),
        json!({"username": "bob", "groups": ["ops", "system:authenticated"]})
    );
}

#[tokio::test]
async fn impersonating_a_uid_needs_impersonate_on_uids() {
    let kapi = kapi_with_alice().await;
    alice_may_impersonate(&kapi, json!([impersonate("", "users", &["bob"])])).await;
    let mut config = alice_config(&kapi).await;
    config.auth_info.impersonate = Some("bob".into());
    config.auth_info.impersonate_uid = Some("u-1".into());
    assert_eq!(
        forbidden_message(whoami(config.clone()).await.unwrap_err()),
        "uids.authentication.k8s.io \"u-1\" is forbidden: User \"alice\" cannot impersonate resource \"uids\" in API group \"authentication.k8s.io\" at the cluster scope"
    );
    let uids = json!([impersonate("authentication.k8s.io", "uids", &["u-1"])]);
    grant_cluster_wide(&kapi, "alice-impersonates-uids", uids, alice()).await;
    assert_eq!(whoami(config).await.unwrap()["uid"], "u-1");
}

#[tokio::test]
async fn an_impersonated_extra_is_authorized_on_its_unescaped_key_and_reaches_the_user() {
    let kapi = kapi_with_alice().await;
    let rules = json!([
        impersonate("", "users", &["bob"]),
        impersonate(
            "authentication.k8s.io",
            "userextras/example.com/scopes",
            &["read"]
        ),
    ]);
    alice_may_impersonate(&kapi, rules).await;
    let mut config = alice_config(&kapi).await;
    config.auth_info.impersonate = Some("bob".into());
    // kube escapes the key's `/` in the header name (Impersonate-Extra-example.com%2Fscopes).
    config.auth_info.impersonate_user_extra = Some(HashMap::from([(
        "example.com/scopes".to_owned(),
        vec!["read".to_owned()],
    )]));
    assert_eq!(
        whoami(config.clone()).await.unwrap()["extra"],
        json!({"example.com/scopes": ["read"]})
    );
    config.auth_info.impersonate_user_extra = Some(HashMap::from([(
        "example.com/scopes".to_owned(),
        vec!["write".to_owned()],
    )]));
    assert_eq!(
        forbidden_message(whoami(config).await.unwrap_err()),
        "userextras.authentication.k8s.io \"write\" is forbidden: User \"alice\" cannot impersonate resource \"userextras/example.com/scopes\" in API group \"authentication.k8s.io\" at the cluster scope"
    );
}

/// Whether the admin's SubjectAccessReview allows `user` in `groups` to `verb` ConfigMaps in
/// `default`.
async fn may(kapi: &Kapi, user: &str, groups: &[&str], verb: &str) -> bool {
    let reviews: Api<SubjectAccessReview> = Api::all(kapi.client().await);
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(user.into()),
            groups: Some(groups.iter().map(|g| g.to_string()).collect()),
            resource_attributes: Some(ResourceAttributes {
                namespace: Some("default".into()),
                verb: Some(verb.into()),
                resource: Some("configmaps".into()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let answer = reviews
        .create(&PostParams::default(), &review)
        .await
        .unwrap();
    answer.status.unwrap().allowed
}

/// The admin binds `view` in `default` to `subject`.
async fn view_in_default(kapi: &Kapi, subject: Value) {
    admin_creates(
        kapi,
        ROLE_BINDINGS,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "viewers"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [subject]}),
    )
    .await;
}

#[tokio::test]
async fn a_subject_access_review_answers_for_a_group() {
    let kapi = Kapi::start().await;
    view_in_default(
        &kapi,
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "auditors"}),
    )
    .await;
    assert!(may(&kapi, "carol", &["auditors"], "list").await);
    assert!(!may(&kapi, "carol", &["auditors"], "create").await);
    assert!(!may(&kapi, "carol", &["other"], "list").await);
}

#[tokio::test]
async fn a_subject_access_review_answers_for_a_service_account() {
    let kapi = Kapi::start().await;
    view_in_default(
        &kapi,
        json!({"kind": "ServiceAccount", "name": "robot", "namespace": "default"}),
    )
    .await;
    let sa_groups = ["system:serviceaccounts", "system:serviceaccounts:default"];
    assert!(
        may(
            &kapi,
            "system:serviceaccount:default:robot",
            &sa_groups,
            "list"
        )
        .await
    );
    assert!(
        !may(
            &kapi,
            "system:serviceaccount:default:robot",
            &sa_groups,
            "create"
        )
        .await
    );
    assert!(!may(&kapi, "system:serviceaccount:other:robot", &[], "list").await);
}

/// Polls until `done` holds (10 s at most).
async fn eventually(mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("timed out");
}

#[tokio::test]
async fn kubectl_as_a_user_bound_to_view_uses_a_rule_aggregated_into_view() {
    let kapi = kapi_with_alice().await;
    view_in_default(&kapi, alice()).await;
    let list_secrets = || kapi.kubectl(&["--token", "alice-token", "get", "secrets"]);
    let denied = list_secrets();
    assert!(
        String::from_utf8_lossy(&denied.stderr)
            .contains("User \"alice\" cannot list resource \"secrets\""),
        "{denied:?}"
    );
    let role = kapi.dir.path().join("secrets-view.yaml");
    std::fs::write(
        &role,
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: secrets-view\n  labels:\n    rbac.authorization.k8s.io/aggregate-to-view: \"true\"\nrules:\n- apiGroups: [\"\"]\n  resources: [\"secrets\"]\n  verbs: [\"get\", \"list\"]\n",
    )
    .unwrap();
    kapi.kubectl_ok(&["apply", "-f", role.to_str().unwrap()]);
    eventually(|| list_secrets().status.success()).await;
}

#[tokio::test]
async fn kubectl_auth_can_i_as_group_answers_for_the_group() {
    let kapi = Kapi::start().await;
    view_in_default(
        &kapi,
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "auditors"}),
    )
    .await;
    let can_i = |args: &[&str]| {
        let mut all = vec!["auth", "can-i"];
        all.extend_from_slice(args);
        let out = kapi.kubectl(&all);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let as_auditor = ["--as", "carol", "--as-group", "auditors"];
    assert_eq!(
        can_i(&[&["list", "configmaps"][..], &as_auditor].concat()),
        "yes"
    );
    assert_eq!(
        can_i(&[&["create", "configmaps"][..], &as_auditor].concat()),
        "no"
    );
    let as_other = ["--as", "carol", "--as-group", "other"];
    assert_eq!(
        can_i(&[&["list", "configmaps"][..], &as_other].concat()),
        "no"
    );
}

#[tokio::test]
async fn the_python_client_checks_aggregation_reviews_impersonation_and_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let (key, key_file) = signing_key_in(dir.path());
    let kapi = kapi_with_alice_in(dir, &["--service-account-signing-key-file", &key_file]).await;
    let sa = admin_creates(
        &kapi,
        "/api/v1/namespaces/default/serviceaccounts",
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}),
    )
    .await;
    let uid = sa["metadata"]["uid"].as_str().unwrap();
    let now = chrono::Utc::now().timestamp();
    let expired = service_account_token(&key, "default", "robot", uid, now - 1200, now - 600);
    let other_key = service_account_token(&unknown_key(), "default", "robot", uid, now, now + 600);
    let ca = ForeignCa::create();
    let (cert, cert_key, _) = ca.client_cert("mallory", Some("system:masters"));
    let env = [
        ("KAPI_USER_TOKEN", "alice-token"),
        ("KAPI_EXPIRED_TOKEN", expired.as_str()),
        ("KAPI_OTHER_KEY_TOKEN", other_key.as_str()),
        ("KAPI_OTHER_CA_CERT", cert.to_str().unwrap()),
        ("KAPI_OTHER_CA_KEY", cert_key.to_str().unwrap()),
    ];
    run_python_script_with("rbac_auth.py", kapi.kubeconfig(), &env, || kapi.log()).await;
}
