//! ValidatingAdmissionPolicy and MutatingAdmissionPolicy end to end (issue 14): policies
//! and bindings registered on kapi-test's server act on writes by kube-rs and kubectl —
//! params from a ConfigMap and from a custom resource, Deny and Warn actions with
//! upstream's messages, missing params, evaluation errors under each failure policy,
//! matchConditions and variables, a policy that does not compile refused at creation, an
//! undefined field reported in the policy's status, mutations by ApplyConfiguration and
//! JSONPatch (with params, under each failure policy, never on DELETE), and the checks in
//! `/metrics`.

mod e2e_admission_support;

use e2e_admission_support::{api_error, configmap, create_config, kubectl, settle};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kapi_test::TestServer;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};
use std::time::Duration;

fn deployment(name: &str, replicas: i32) -> Deployment {
    serde_json::from_value(
        json!({"metadata": {"name": name}, "spec": {"replicas": replicas,
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}),
    )
    .unwrap()
}

/// A policy on deployments' CREATE with `spec` fields merged in.
fn deployments_policy(name: &str, extra: Value) -> Value {
    let mut spec = json!({"failurePolicy": "Fail", "matchConstraints": {"resourceRules": [
        {"operations": ["CREATE", "UPDATE"], "apiGroups": ["apps"], "apiVersions": ["v1"],
         "resources": ["deployments"]}]}});
    if let (Some(s), Some(e)) = (spec.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": name}, "spec": spec})
}

fn binding(name: &str, policy: &str, extra: Value) -> Value {
    let mut spec = json!({"policyName": policy, "validationActions": ["Deny"]});
    if let (Some(s), Some(e)) = (spec.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name}, "spec": spec})
}

async fn install(server: &TestServer, policy: Value, binding: Value) {
    create_config(server, "validatingadmissionpolicies", &policy)
        .await
        .unwrap();
    create_config(server, "validatingadmissionpolicybindings", &binding)
        .await
        .unwrap();
    settle().await;
}

/// The replica-limit policy: params are a ConfigMap whose `data.max` bounds replicas.
fn replica_limit() -> Value {
    deployments_policy(
        "replica-limit",
        json!({"paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
            "validations": [{"expression": "object.spec.replicas <= int(params.data.max)",
                "messageExpression": "'replicas must be at most ' + params.data.max"}]}),
    )
}

async fn limits_configmap(server: &TestServer, max: &str) {
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let cm: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "limits"}, "data": {"max": max}}))
            .unwrap();
    cms.create(&PostParams::default(), &cm).await.unwrap();
}

fn by_name() -> Value {
    json!({"paramRef": {"name": "limits", "namespace": "default", "parameterNotFoundAction": "Deny"}})
}

#[tokio::test]
async fn a_policy_with_params_denies_a_deployment_over_the_limit() {
    let server = TestServer::start().await.unwrap();
    limits_configmap(&server, "3").await;
    install(
        &server,
        replica_limit(),
        binding("replica-limit-binding", "replica-limit", by_name()),
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(server.client(), "default");
    deployments
        .create(&PostParams::default(), &deployment("small", 2))
        .await
        .unwrap();
    let err = api_error(
        deployments
            .create(&PostParams::default(), &deployment("big", 5))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, 422);
    assert_eq!(err.reason, "Invalid");
    assert_eq!(
        err.message,
        "deployments.apps \"big\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit-binding' denied request: replicas must be at most 3"
    );
    assert!(deployments.get_opt("big").await.unwrap().is_none());
}

#[tokio::test]
async fn a_warn_binding_warns_through_kubectl_and_admits() {
    let server = TestServer::start().await.unwrap();
    limits_configmap(&server, "1").await;
    let mut warn = by_name();
    warn["validationActions"] = json!(["Warn"]);
    install(
        &server,
        replica_limit(),
        binding("replica-warn", "replica-limit", warn),
    )
    .await;
    let manifest = serde_json::to_string(&json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "warned", "namespace": "default"},
        "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "w"}},
            "template": {"metadata": {"labels": {"app": "w"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}))
    .unwrap();
    let (ok, _, stderr) = kubectl(&server, &["create", "-f", "-"], Some(&manifest)).await;
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-warn': replicas must be at most 1"),
        "{stderr}"
    );
}

#[tokio::test]
async fn params_from_a_custom_resource_in_the_requests_namespace_are_used() {
    let server = TestServer::start().await.unwrap();
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "replicalimits.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
            "names": {"plural": "replicalimits", "singular": "replicalimit", "kind": "ReplicaLimit"},
            "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema":
                {"type": "object", "properties": {"max": {"type": "integer"}}}}}]}});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crd.yaml");
    std::fs::write(&path, crd.to_string()).unwrap();
    server.install_crds(&path).await.unwrap();
    let limit = json!({"apiVersion": "example.com/v1", "kind": "ReplicaLimit",
        "metadata": {"name": "team-limit", "labels": {"team": "a"}}, "max": 2});
    let req = http::Request::post("/apis/example.com/v1/namespaces/default/replicalimits")
        .header("content-type", "application/json")
        .body(limit.to_string().into_bytes())
        .unwrap();
    server.client().request::<Value>(req).await.unwrap();
    let policy = deployments_policy(
        "cr-limit",
        json!({"paramKind": {"apiVersion": "example.com/v1", "kind": "ReplicaLimit"},
            "validations": [{"expression": "object.spec.replicas <= params.max", "reason": "Forbidden"}]}),
    );
    let by_selector = json!({"paramRef": {"selector": {"matchLabels": {"team": "a"}},
        "parameterNotFoundAction": "Deny"}});
    install(
        &server,
        policy,
        binding("cr-limit-binding", "cr-limit", by_selector),
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(server.client(), "default");
    let err = api_error(
        deployments
            .create(&PostParams::default(), &deployment("big", 3))
            .await
            .unwrap_err(),
    );
    assert_eq!((err.code, err.reason.as_str()), (403, "Forbidden"));
    assert!(
        err.message
            .ends_with("denied request: failed expression: object.spec.replicas <= params.max"),
        "{}",
        err.message
    );
    deployments
        .create(&PostParams::default(), &deployment("ok", 2))
        .await
        .unwrap();
}

#[tokio::test]
async fn missing_params_deny_or_allow_as_the_binding_says() {
    let server = TestServer::start().await.unwrap();
    install(
        &server,
        replica_limit(),
        binding("deny-missing", "replica-limit", by_name()),
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(server.client(), "default");
    let err = api_error(
        deployments
            .create(&PostParams::default(), &deployment("a", 1))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, 422);
    assert_eq!(
        err.message,
        "deployments.apps \"a\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'deny-missing' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
    );
    let mut allow = binding("allow-missing", "replica-limit", by_name());
    allow["spec"]["paramRef"]["parameterNotFoundAction"] = json!("Allow");
    let req = http::Request::put(
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/deny-missing",
    )
    .header("content-type", "application/json")
    .body({
        let mut b = allow.clone();
        b["metadata"]["name"] = json!("deny-missing");
        let current: Value = server
            .client()
            .request(
                http::Request::get("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/deny-missing")
                    .body(Vec::new())
                    .unwrap(),
            )
            .await
            .unwrap();
        b["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
        b.to_string().into_bytes()
    })
    .unwrap();
    server.client().request::<Value>(req).await.unwrap();
    settle().await;
    deployments
        .create(&PostParams::default(), &deployment("a", 1))
        .await
        .unwrap();
}

#[tokio::test]
async fn an_evaluation_error_denies_under_fail_and_is_ignored_under_ignore() {
    let server = TestServer::start().await.unwrap();
    let broken = |name: &str, policy: &str| {
        deployments_policy(
            name,
            json!({"failurePolicy": policy,
                "validations": [{"expression": "object.metadata.annotations.owner == 'x'"}]}),
        )
    };
    install(
        &server,
        broken("ignored", "Ignore"),
        binding("ignored", "ignored", json!({})),
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(server.client(), "default");
    deployments
        .create(&PostParams::default(), &deployment("a", 1))
        .await
        .unwrap();
    install(
        &server,
        broken("failing", "Fail"),
        binding("failing", "failing", json!({})),
    )
    .await;
    let err = api_error(
        deployments
            .create(&PostParams::default(), &deployment("b", 1))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code, 422);
    assert!(
        err.message.starts_with("deployments.apps \"b\" is forbidden: ValidatingAdmissionPolicy 'failing' with binding 'failing' denied request: expression 'object.metadata.annotations.owner == 'x'' resulted in error: "),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn match_conditions_and_variables_shape_what_is_checked() {
    let server = TestServer::start().await.unwrap();
    let policy = deployments_policy(
        "labelled-only",
        json!({"matchConditions": [{"name": "has-tier", "expression": "has(object.metadata.labels) && 'tier' in object.metadata.labels"}],
            "variables": [{"name": "tier", "expression": "object.metadata.labels.tier"}],
            "validations": [{"expression": "variables.tier in ['web', 'db']", "message": "tier must be web or db"}]}),
    );
    install(
        &server,
        policy,
        binding("labelled-only", "labelled-only", json!({})),
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(server.client(), "default");
    deployments
        .create(&PostParams::default(), &deployment("untiered", 1))
        .await
        .unwrap();
    let mut tiered = deployment("cache", 1);
    tiered.metadata.labels = Some([("tier".to_owned(), "cache".to_owned())].into());
    let err = api_error(
        deployments
            .create(&PostParams::default(), &tiered)
            .await
            .unwrap_err(),
    );
    assert!(
        err.message
            .ends_with("denied request: tier must be web or db"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn a_policy_that_does_not_compile_is_refused_with_its_cause() {
    let server = TestServer::start().await.unwrap();
    let bad = deployments_policy(
        "bad",
        json!({"validations": [{"expression": "object.spec.replicas <"}]}),
    );
    let err = create_config(&server, "validatingadmissionpolicies", &bad)
        .await
        .unwrap_err();
    let status: Value = serde_json::from_str(&err).unwrap();
    assert_eq!(status["code"], 422);
    let cause = &status["details"]["causes"][0];
    assert_eq!(cause["field"], "spec.validations[0].expression");
    assert!(
        cause["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid value: \"object.spec.replicas <\": compilation failed: "),
        "{cause}"
    );
}

#[tokio::test]
async fn an_undefined_field_is_reported_in_the_policys_status() {
    let server = TestServer::start().await.unwrap();
    let policy = deployments_policy(
        "typo",
        json!({"validations": [{"expression": "object.spec.replicsa <= 5"}, {"expression": "object.spec.replicas <= 5"}]}),
    );
    create_config(&server, "validatingadmissionpolicies", &policy)
        .await
        .unwrap();
    let get = || {
        http::Request::get("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/typo")
            .body(Vec::new())
            .unwrap()
    };
    let mut status = Value::Null;
    for _ in 0..100 {
        let p: Value = server.client().request(get()).await.unwrap();
        if p["status"]["observedGeneration"] == 1 {
            status = p["status"].clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        status["typeChecking"],
        json!({"expressionWarnings": [{"fieldRef": "spec.validations[0].expression",
            "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:13: undefined field 'replicsa'\n | object.spec.replicsa <= 5\n | ............^\n"}]})
    );
}

#[tokio::test]
async fn the_admission_configuration_kinds_are_exempt_from_policies() {
    let server = TestServer::start().await.unwrap();
    let everything = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "nothing"},
        "spec": {"matchConstraints": {"resourceRules": [{"operations": ["*"], "apiGroups": ["*"],
            "apiVersions": ["*"], "resources": ["*"]}]},
            "validations": [{"expression": "false", "message": "nothing may be written"}]}});
    install(
        &server,
        everything,
        binding("nothing", "nothing", json!({})),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let err = api_error(
        cms.create(&PostParams::default(), &configmap("a", json!({})))
            .await
            .unwrap_err(),
    );
    assert!(
        err.message
            .ends_with("denied request: nothing may be written"),
        "{}",
        err.message
    );
    // The policy itself can still be mended.
    let req = http::Request::delete(
        "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/nothing",
    )
    .body(Vec::new())
    .unwrap();
    server.client().request_text(req).await.unwrap();
    settle().await;
    cms.create(&PostParams::default(), &configmap("a", json!({})))
        .await
        .unwrap();
}

fn mutating_policy(name: &str, mutation: Value) -> Value {
    json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {"reinvocationPolicy": "Never", "matchConstraints": {"resourceRules": [
            {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]},
            "mutations": [mutation]}})
}

async fn install_mutating(server: &TestServer, policy: Value) {
    install_mutating_bound(server, policy, json!({})).await;
}

/// Installs `policy` with a binding of its name whose spec adds `binding`.
async fn install_mutating_bound(server: &TestServer, policy: Value, binding: Value) {
    let name = policy["metadata"]["name"].as_str().unwrap().to_owned();
    create_config(server, "mutatingadmissionpolicies", &policy)
        .await
        .unwrap();
    let mut spec = json!({"policyName": name});
    if let (Some(s), Some(extra)) = (spec.as_object_mut(), binding.as_object()) {
        s.extend(extra.clone());
    }
    let b = json!({"apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicyBinding", "metadata": {"name": name},
        "spec": spec});
    create_config(server, "mutatingadmissionpolicybindings", &b)
        .await
        .unwrap();
    settle().await;
}

#[tokio::test]
async fn a_mutating_policys_apply_configuration_is_stored() {
    let server = TestServer::start().await.unwrap();
    install_mutating(
        &server,
        mutating_policy(
            "team-label",
            json!({"patchType": "ApplyConfiguration", "applyConfiguration": {
            "expression": "Object{metadata: Object.metadata{labels: {'team': 'platform'}}}"}}),
        ),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let created = cms
        .create(&PostParams::default(), &configmap("m", json!({"app": "a"})))
        .await
        .unwrap();
    let labels = created.metadata.labels.unwrap();
    assert_eq!(
        (labels["team"].as_str(), labels["app"].as_str()),
        ("platform", "a")
    );
}

#[tokio::test]
async fn a_mutating_policys_json_patch_is_stored() {
    let server = TestServer::start().await.unwrap();
    install_mutating(
        &server,
        mutating_policy("stamp", json!({"patchType": "JSONPatch", "jsonPatch": {
            "expression": "[JSONPatch{op: 'add', path: '/data', value: {'stamped-by': request.userInfo.username}}]"}})),
    )
    .await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let created = cms
        .create(&PostParams::default(), &configmap("j", json!({})))
        .await
        .unwrap();
    let data = created.data.unwrap();
    assert!(!data["stamped-by"].is_empty());
}

#[tokio::test]
async fn policy_checks_are_in_the_metrics() {
    let server = TestServer::start().await.unwrap();
    limits_configmap(&server, "3").await;
    install(
        &server,
        replica_limit(),
        binding("replica-limit-binding", "replica-limit", by_name()),
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(server.client(), "default");
    deployments
        .create(&PostParams::default(), &deployment("a", 1))
        .await
        .unwrap();
    deployments
        .create(&PostParams::default(), &deployment("b", 9))
        .await
        .unwrap_err();
    let metrics = server
        .client()
        .request_text(http::Request::get("/metrics").body(Vec::new()).unwrap())
        .await
        .unwrap();
    for line in [
        "apiserver_validating_admission_policy_check_total{enforcement_action=\"allow\",error_type=\"no_error\",policy=\"replica-limit\",policy_binding=\"replica-limit-binding\"} 1",
        "apiserver_validating_admission_policy_check_total{enforcement_action=\"deny\",error_type=\"no_error\",policy=\"replica-limit\",policy_binding=\"replica-limit-binding\"} 1",
    ] {
        assert!(metrics.contains(line), "{line} not in\n{metrics}");
    }
}

#[tokio::test]
async fn a_mutating_policy_for_delete_is_refused_at_creation() {
    let server = TestServer::start().await.unwrap();
    let mut policy = mutating_policy(
        "on-delete",
        json!({"patchType": "JSONPatch", "jsonPatch": {"expression": "[]"}}),
    );
    policy["spec"]["matchConstraints"]["resourceRules"][0]["operations"] = json!(["DELETE"]);
    let err = create_config(&server, "mutatingadmissionpolicies", &policy)
        .await
        .unwrap_err();
    assert!(
        err.contains(r#"spec.matchConstraints.resourceRules.operations: Unsupported value: \"DELETE\": supported values: \"*\", \"CONNECT\", \"CREATE\", \"UPDATE\""#),
        "{err}"
    );
}

#[tokio::test]
async fn a_failing_mutation_refuses_under_fail_and_changes_nothing_under_ignore() {
    let server = TestServer::start().await.unwrap();
    let failing = |name: &str, policy: &str| {
        let mut p = mutating_policy(
            name,
            json!({"patchType": "JSONPatch", "jsonPatch": {
                "expression": "[JSONPatch{op: 'add', path: '/data/x', value: object.data.missing}]"}}),
        );
        p["spec"]["failurePolicy"] = json!(policy);
        p["spec"]["matchConstraints"]["resourceRules"][0]["resourceNames"] = json!([name]);
        p
    };
    install_mutating(&server, failing("strict", "Fail")).await;
    install_mutating(&server, failing("lenient", "Ignore")).await;
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let err = api_error(
        cms.create(&PostParams::default(), &configmap("strict", json!({})))
            .await
            .unwrap_err(),
    );
    assert!(
        err.message
            .contains("MutatingAdmissionPolicy 'strict' with binding 'strict' denied request"),
        "{}",
        err.message
    );
    assert!(cms.get_opt("strict").await.unwrap().is_none());
    let kept = cms
        .create(&PostParams::default(), &configmap("lenient", json!({})))
        .await
        .unwrap();
    assert!(kept.data.is_none_or(|d| !d.contains_key("x")));
}

#[tokio::test]
async fn a_mutating_policy_reads_its_params() {
    let server = TestServer::start().await.unwrap();
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
    let team: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "team"}, "data": {"team": "storage"}}))
            .unwrap();
    cms.create(&PostParams::default(), &team).await.unwrap();
    let mut policy = mutating_policy(
        "team-from-params",
        json!({"patchType": "ApplyConfiguration", "applyConfiguration": {
            "expression": "Object{metadata: Object.metadata{labels: {'team': params.data.team}}}"}}),
    );
    policy["spec"]["paramKind"] = json!({"apiVersion": "v1", "kind": "ConfigMap"});
    policy["spec"]["matchConstraints"]["resourceRules"][0]["resourceNames"] = json!(["labelled"]);
    install_mutating_bound(
        &server,
        policy,
        json!({"paramRef": {"name": "team", "namespace": "default",
            "parameterNotFoundAction": "Deny"}}),
    )
    .await;
    let created = cms
        .create(&PostParams::default(), &configmap("labelled", json!({})))
        .await
        .unwrap();
    assert_eq!(created.metadata.labels.unwrap()["team"], "storage");
}
