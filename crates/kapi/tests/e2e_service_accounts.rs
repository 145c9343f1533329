//! ServiceAccount tokens end to end (issue 15): TokenRequest tokens and legacy Secret
//! tokens authenticate as their ServiceAccount and get what RBAC grants it, with the `kube`
//! crate, kubectl and the Python client; expired, forged, unbound and malformed credentials
//! get 401 with only the reason logged; TokenReview and the OpenID discovery answer as
//! kube-apiserver's.

mod e2e_support;

use e2e_support::credentials::{
    ForeignCa, ISSUER, pem_body, service_account_token, signing_key_in, unknown_key,
};
use e2e_support::{Kapi, json, json_request as request, run_python_script, send_json, send_raw};
use kapi_serviceaccount::{SigningKey, jws};
use serde_json::{Value, json};

const SERVICE_ACCOUNTS: &str = "/api/v1/namespaces/default/serviceaccounts";
const CONFIGMAPS: &str = "/api/v1/namespaces/default/configmaps";

async fn send(client: &kube::Client, method: &str, path: &str, body: &Value) -> (u16, Value) {
    send_json(client, method, path, body).await
}

/// A client that carries only `token` (and trusts the kubeconfig's CA).
async fn with_token(kapi: &Kapi, token: &str) -> kube::Client {
    let mut config = kapi.config().await;
    config.auth_info = Default::default();
    config.auth_info.token = Some(token.to_owned().into());
    kube::Client::try_from(config).unwrap()
}

/// The admin creates `obj` at `path`; returns what was stored.
async fn admin_creates(kapi: &Kapi, path: &str, obj: Value) -> Value {
    let (status, v) = send(&kapi.client().await, "POST", path, &obj).await;
    assert_eq!(status, 201, "{v}");
    v
}

/// ServiceAccount `robot` in `default`, allowed to get and list ConfigMaps there.
async fn robot_reading_configmaps(kapi: &Kapi) -> Value {
    let sa = admin_creates(
        kapi,
        SERVICE_ACCOUNTS,
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}),
    )
    .await;
    admin_creates(
        kapi,
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "cm-reader"},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list"]}]}),
    )
    .await;
    admin_creates(
        kapi,
        "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "robot-reads"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "cm-reader"},
            "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "default"}]}),
    )
    .await;
    sa
}

/// The admin asks for a token of `robot` with `spec`; returns the TokenRequest answered.
async fn token_request(kapi: &Kapi, spec: Value) -> (u16, Value) {
    let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
        "spec": spec});
    send(
        &kapi.client().await,
        "POST",
        &format!("{SERVICE_ACCOUNTS}/robot/token"),
        &body,
    )
    .await
}

async fn robot_token(kapi: &Kapi) -> String {
    let (status, tr) = token_request(kapi, json!({})).await;
    assert_eq!(status, 201, "{tr}");
    tr["status"]["token"].as_str().unwrap().to_owned()
}

async fn list_configmaps_status(kapi: &Kapi, token: &str) -> u16 {
    let client = with_token(kapi, token).await;
    send(&client, "GET", CONFIGMAPS, &Value::Null).await.0
}

#[tokio::test]
async fn a_requested_token_can_do_what_its_role_allows_and_gets_403_otherwise() {
    let kapi = Kapi::start().await;
    robot_reading_configmaps(&kapi).await;
    let robot = with_token(&kapi, &robot_token(&kapi).await).await;
    let (status, v) = send(&robot, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 200, "{v}");
    let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
    let (status, s) = send(&robot, "POST", CONFIGMAPS, &cm).await;
    assert_eq!(status, 403);
    assert_eq!(
        s["message"],
        "configmaps is forbidden: User \"system:serviceaccount:default:robot\" cannot create resource \"configmaps\" in API group \"\" in the namespace \"default\""
    );
}

#[tokio::test]
async fn a_token_request_is_answered_with_the_defaults_and_the_expiry() {
    let kapi = Kapi::start().await;
    robot_reading_configmaps(&kapi).await;
    let before = chrono::Utc::now().timestamp();
    let (status, tr) = token_request(&kapi, json!({})).await;
    assert_eq!(status, 201, "{tr}");
    assert_eq!(tr["kind"], "TokenRequest");
    assert_eq!(tr["metadata"]["name"], "robot");
    assert_eq!(tr["metadata"]["namespace"], "default");
    assert_eq!(tr["spec"]["expirationSeconds"], 3600);
    assert_eq!(tr["spec"]["audiences"], json!([ISSUER]));
    let expires =
        chrono::DateTime::parse_from_rfc3339(tr["status"]["expirationTimestamp"].as_str().unwrap())
            .unwrap()
            .timestamp();
    assert!((before + 3600..=before + 3700).contains(&expires), "{tr}");
    let token = jws::Unverified::parse(tr["status"]["token"].as_str().unwrap()).unwrap();
    assert_eq!(token.claims["sub"], "system:serviceaccount:default:robot");
    assert_eq!(token.claims["exp"], expires);
}

#[tokio::test]
async fn a_token_shorter_than_ten_minutes_is_refused_with_422() {
    let kapi = Kapi::start().await;
    robot_reading_configmaps(&kapi).await;
    let (status, s) = token_request(&kapi, json!({"expirationSeconds": 60})).await;
    assert_eq!(status, 422, "{s}");
    assert_eq!(s["reason"], "Invalid");
    assert_eq!(
        s["message"],
        "TokenRequest.authentication.k8s.io \"robot\" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes"
    );
}

#[tokio::test]
async fn a_token_for_a_missing_service_account_is_404() {
    let kapi = Kapi::start().await;
    let (status, s) = token_request(&kapi, json!({})).await;
    assert_eq!(status, 404, "{s}");
    assert_eq!(s["message"], "serviceaccounts \"robot\" not found");
}

#[tokio::test]
async fn a_longer_token_than_the_maximum_is_shortened_with_a_warning() {
    let kapi = Kapi::start_with(&["--service-account-max-token-expiration", "1h"]).await;
    robot_reading_configmaps(&kapi).await;
    let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
        "spec": {"expirationSeconds": 7200}});
    let (status, headers, bytes) = send_raw(
        &kapi.client().await,
        request("POST", &format!("{SERVICE_ACCOUNTS}/robot/token"), &body),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(json(&bytes)["spec"]["expirationSeconds"], 3600);
    assert_eq!(
        headers.get("warning").unwrap(),
        "299 - \"requested expiration of 7200 seconds shortened to 3600 seconds\""
    );
}

#[tokio::test]
async fn a_token_bound_to_a_secret_dies_with_the_secret() {
    let kapi = Kapi::start_process().await;
    robot_reading_configmaps(&kapi).await;
    let secret = admin_creates(
        &kapi,
        "/api/v1/namespaces/default/secrets",
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "anchor"}}),
    )
    .await;
    let (status, tr) = token_request(
        &kapi,
        json!({"boundObjectRef": {"apiVersion": "v1", "kind": "Secret", "name": "anchor",
            "uid": secret["metadata"]["uid"]}}),
    )
    .await;
    assert_eq!(status, 201, "{tr}");
    let token = tr["status"]["token"].as_str().unwrap().to_owned();
    assert_eq!(list_configmaps_status(&kapi, &token).await, 200);
    let (status, _) = send(
        &kapi.client().await,
        "DELETE",
        "/api/v1/namespaces/default/secrets/anchor",
        &Value::Null,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(list_configmaps_status(&kapi, &token).await, 401);
    assert!(
        kapi.log()
            .contains("secret default/anchor has been deleted"),
        "{}",
        kapi.log()
    );
}

#[tokio::test]
async fn a_token_bound_to_another_uid_is_a_409() {
    let kapi = Kapi::start().await;
    robot_reading_configmaps(&kapi).await;
    admin_creates(
        &kapi,
        "/api/v1/namespaces/default/secrets",
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "anchor"}}),
    )
    .await;
    let (status, s) = token_request(
        &kapi,
        json!({"boundObjectRef": {"apiVersion": "v1", "kind": "Secret", "name": "anchor",
            "uid": "00000000-0000-0000-0000-000000000000"}}),
    )
    .await;
    assert_eq!(status, 409, "{s}");
    assert_eq!(s["reason"], "Conflict");
}

#[tokio::test]
async fn a_recreated_service_account_does_not_take_the_old_tokens() {
    let kapi = Kapi::start().await;
    robot_reading_configmaps(&kapi).await;
    let token = robot_token(&kapi).await;
    let admin = kapi.client().await;
    let (status, _) = send(
        &admin,
        "DELETE",
        &format!("{SERVICE_ACCOUNTS}/robot"),
        &Value::Null,
    )
    .await;
    assert_eq!(status, 200);
    admin_creates(
        &kapi,
        SERVICE_ACCOUNTS,
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}),
    )
    .await;
    assert_eq!(list_configmaps_status(&kapi, &token).await, 401);
}

/// kapi with a signing key the test holds, to make tokens kapi did not issue.
async fn kapi_with_test_key() -> (Kapi, SigningKey) {
    let dir = tempfile::tempdir().unwrap();
    let (key, path) = signing_key_in(dir.path());
    let kapi = Kapi::start_in(dir, &["--service-account-signing-key-file", &path]).await;
    (kapi, key)
}

/// A token of `sa` (default/robot) signed with `key`.
fn robot_token_signed(key: &SigningKey, sa: &Value, issued_at: i64, expires_at: i64) -> String {
    let uid = sa["metadata"]["uid"].as_str().unwrap();
    service_account_token(key, "default", "robot", uid, issued_at, expires_at)
}

#[tokio::test]
async fn an_expired_token_is_refused_with_401_and_only_the_reason_logged() {
    let (kapi, key) = kapi_with_test_key().await;
    let sa = robot_reading_configmaps(&kapi).await;
    let now = chrono::Utc::now().timestamp();
    let live = robot_token_signed(&key, &sa, now, now + 600);
    assert_eq!(list_configmaps_status(&kapi, &live).await, 200);
    let expired = robot_token_signed(&key, &sa, now - 1200, now - 600);
    let client = with_token(&kapi, &expired).await;
    let (status, s) = send(&client, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 401);
    assert_eq!(
        s,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "Unauthorized", "reason": "Unauthorized", "code": 401})
    );
    let log = kapi.log();
    assert!(log.contains("service account token has expired"), "{log}");
    assert!(!log.contains(&expired), "the token itself was logged");
}

#[tokio::test]
async fn a_token_signed_by_another_key_is_refused_with_401_and_only_the_reason_logged() {
    let (kapi, _) = kapi_with_test_key().await;
    let sa = robot_reading_configmaps(&kapi).await;
    let now = chrono::Utc::now().timestamp();
    let forged = robot_token_signed(&unknown_key(), &sa, now, now + 600);
    assert_eq!(list_configmaps_status(&kapi, &forged).await, 401);
    let log = kapi.log();
    assert!(
        log.contains("token signature could not be verified"),
        "{log}"
    );
    let signature = forged.rsplit('.').next().unwrap();
    assert!(!log.contains(signature), "the token was logged:\n{log}");
}

#[tokio::test]
async fn a_malformed_authorization_header_is_refused_with_401_and_only_the_reason_logged() {
    let kapi = Kapi::start_process().await;
    let client = kapi.anonymous_client().await;
    for (header, reason) in [
        (
            "Basic YWRtaW46c2VzYW1l",
            "the Authorization header is not a bearer token",
        ),
        ("Bearer", "the Authorization header is not a bearer token"),
        (
            "garbage-in-the-header",
            "the Authorization header is not a bearer token",
        ),
        ("Bearer not.a-jwt-of-ours", "invalid bearer token"),
    ] {
        let req = http::Request::get(CONFIGMAPS)
            .header("authorization", header)
            .body(Vec::new())
            .unwrap();
        let (status, _, _) = send_raw(&client, req).await;
        assert_eq!(status, 401, "{header}");
        let log = kapi.log();
        assert!(log.contains(reason), "{header}: {reason} not in\n{log}");
    }
    let log = kapi.log();
    for secret in [
        "YWRtaW46c2VzYW1l",
        "garbage-in-the-header",
        "not.a-jwt-of-ours",
    ] {
        assert!(!log.contains(secret), "{secret} was logged:\n{log}");
    }
}

#[tokio::test]
async fn a_client_certificate_from_another_ca_is_refused_with_401_and_only_the_reason_logged() {
    let kapi = Kapi::start_process().await;
    let ca = ForeignCa::create();
    let (_, key_file, cert) = ca.client_cert("mallory", Some("system:masters"));
    let key = std::fs::read(key_file).unwrap();
    let mut config = kapi.config().await;
    config.auth_info = Default::default();
    config.auth_info.client_certificate_data = Some(b64(cert.as_bytes()));
    config.auth_info.client_key_data = Some(b64(&key).into());
    let client = kube::Client::try_from(config).unwrap();
    let (status, _) = send(&client, "GET", CONFIGMAPS, &Value::Null).await;
    assert_eq!(status, 401);
    let log = kapi.log();
    assert!(log.contains("verifying certificate"), "{log}");
    let body = pem_body(&cert);
    assert!(
        !log.contains(&body[..40]),
        "the certificate was logged:\n{log}"
    );
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[tokio::test]
async fn a_legacy_token_secret_authenticates_until_it_is_deleted() {
    let kapi = Kapi::start_process().await;
    robot_reading_configmaps(&kapi).await;
    admin_creates(
        &kapi,
        "/api/v1/namespaces/default/secrets",
        json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token",
            "metadata": {"name": "robot-token",
                "annotations": {"kubernetes.io/service-account.name": "robot"}}}),
    )
    .await;
    let admin = kapi.client().await;
    let mut token = None;
    for _ in 0..200 {
        let (_, s) = send(
            &admin,
            "GET",
            "/api/v1/namespaces/default/secrets/robot-token",
            &Value::Null,
        )
        .await;
        if let Some(t) = s["data"]["token"].as_str() {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD.decode(t).unwrap();
            token = Some(String::from_utf8(bytes).unwrap());
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let token = token.expect("the token controller filled the secret");
    assert_eq!(list_configmaps_status(&kapi, &token).await, 200);
    let (status, _) = send(
        &admin,
        "DELETE",
        "/api/v1/namespaces/default/secrets/robot-token",
        &Value::Null,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(list_configmaps_status(&kapi, &token).await, 401);
    assert!(kapi.log().contains("Token has been invalidated"));
}

#[tokio::test]
async fn a_token_review_says_who_a_token_is_and_why_not() {
    let kapi = Kapi::start().await;
    let sa = robot_reading_configmaps(&kapi).await;
    let token = robot_token(&kapi).await;
    let review = |token: &str, audiences: Value| {
        json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "spec": {"token": token, "audiences": audiences}})
    };
    let path = "/apis/authentication.k8s.io/v1/tokenreviews";
    let tr = admin_creates(&kapi, path, review(&token, json!([]))).await;
    let status = &tr["status"];
    assert_eq!(status["authenticated"], true, "{tr}");
    assert_eq!(
        status["user"]["username"],
        "system:serviceaccount:default:robot"
    );
    assert_eq!(status["user"]["uid"], sa["metadata"]["uid"]);
    assert_eq!(
        status["user"]["groups"],
        json!([
            "system:serviceaccounts",
            "system:serviceaccounts:default",
            "system:authenticated"
        ])
    );
    assert!(
        status["user"]["extra"]["authentication.kubernetes.io/credential-id"][0]
            .as_str()
            .unwrap()
            .starts_with("JTI=")
    );
    assert_eq!(status["audiences"], json!([ISSUER]));
    let other = admin_creates(&kapi, path, review(&token, json!(["vault"]))).await;
    assert_eq!(other["status"]["authenticated"], Value::Null, "{other}");
    assert_eq!(
        other["status"]["error"],
        format!("token audiences [\"{ISSUER}\"] is invalid for the target audiences [\"vault\"]")
    );
    let unknown = admin_creates(&kapi, path, review("nobody-knows-this", json!([]))).await;
    assert_eq!(unknown["status"], json!({"user": {}}));
}

#[tokio::test]
async fn a_service_account_may_read_the_openid_discovery_whose_keys_verify_its_token() {
    let kapi = Kapi::start().await;
    robot_reading_configmaps(&kapi).await;
    let token = robot_token(&kapi).await;
    let robot = with_token(&kapi, &token).await;
    let (status, config) = send(
        &robot,
        "GET",
        "/.well-known/openid-configuration",
        &Value::Null,
    )
    .await;
    assert_eq!(status, 200, "{config}");
    assert_eq!(config["issuer"], ISSUER);
    assert_eq!(config["jwks_uri"], format!("{ISSUER}/openid/v1/jwks"));
    assert_eq!(
        config["id_token_signing_alg_values_supported"],
        json!(["ES256"])
    );
    let (status, headers, bytes) = send_raw(
        &robot,
        http::Request::get("/openid/v1/jwks")
            .body(Vec::new())
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/jwk-set+json");
    let jwks = json(&bytes);
    let parsed = jws::Unverified::parse(&token).unwrap();
    let kid = parsed.header["kid"].as_str().unwrap();
    assert!(
        jwks["keys"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["kid"] == kid && k["use"] == "sig"),
        "{jwks}"
    );
}

#[tokio::test]
async fn kubectl_creates_a_token_that_kubectl_then_acts_with() {
    let kapi = Kapi::start().await;
    robot_reading_configmaps(&kapi).await;
    let token = kapi.kubectl_ok(&["create", "token", "robot", "--duration=15m"]);
    let token = token.trim();
    let as_robot = |args: &[&str]| {
        let mut all = vec!["--token", token];
        all.extend_from_slice(args);
        kapi.kubectl(&all)
    };
    let whoami = as_robot(&[
        "auth",
        "whoami",
        "-o",
        "jsonpath={.status.userInfo.username}",
    ]);
    assert!(whoami.status.success(), "{whoami:?}");
    assert_eq!(
        String::from_utf8_lossy(&whoami.stdout),
        "system:serviceaccount:default:robot"
    );
    let list = as_robot(&["get", "configmaps"]);
    assert!(list.status.success(), "{list:?}");
    let create = as_robot(&["create", "configmap", "x"]);
    assert!(!create.status.success());
    assert!(
        String::from_utf8_lossy(&create.stderr).contains(
            "User \"system:serviceaccount:default:robot\" cannot create resource \"configmaps\""
        ),
        "{create:?}"
    );
}

#[tokio::test]
async fn kubectl_can_i_answers_for_a_service_account() {
    let kapi = Kapi::start().await;
    robot_reading_configmaps(&kapi).await;
    let sa = "system:serviceaccount:default:robot";
    let yes = kapi.kubectl(&["auth", "can-i", "list", "configmaps", "--as", sa]);
    assert_eq!(String::from_utf8_lossy(&yes.stdout).trim(), "yes");
    let no = kapi.kubectl(&["auth", "can-i", "create", "configmaps", "--as", sa]);
    assert_eq!(String::from_utf8_lossy(&no.stdout).trim(), "no");
    let elsewhere = kapi.kubectl(&[
        "auth",
        "can-i",
        "list",
        "configmaps",
        "-n",
        "kube-system",
        "--as",
        sa,
    ]);
    assert_eq!(String::from_utf8_lossy(&elsewhere.stdout).trim(), "no");
}

#[tokio::test]
async fn the_python_client_acts_with_a_service_account_token() {
    let kapi = Kapi::start().await;
    run_python_script("service_account_token.py", kapi.kubeconfig(), || kapi.log()).await;
}
