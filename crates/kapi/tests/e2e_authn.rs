//! Authentication end to end (issue 15): a certificate of a `--client-ca-file` CA
//! authenticates as its CN and O; kubectl with an expired token, a token signed by another
//! key, a certificate of another CA or basic credentials is told it must log in (401), and
//! kapi logs the reason, never the credential.

mod e2e_support;

use e2e_support::Kapi;
use e2e_support::credentials::{
    ForeignCa, pem_body, service_account_token, signing_key_in, unknown_key,
};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kapi_serviceaccount::SigningKey;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};
use std::process::Output;

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[tokio::test]
async fn a_certificate_of_a_client_ca_file_authenticates_as_its_cn_and_o() {
    let ca = ForeignCa::create();
    let (_, _, cert) = ca.client_cert("carol", Some("auditors"));
    let key = std::fs::read(ca.dir.path().join("carol.key")).unwrap();
    let kapi = Kapi::start_with(&["--client-ca-file", ca.ca_file().to_str().unwrap()]).await;
    let mut config = kapi.config().await;
    config.auth_info = Default::default();
    config.auth_info.client_certificate_data = Some(b64(cert.as_bytes()));
    config.auth_info.client_key_data = Some(b64(&key).into());
    let reviews: Api<SelfSubjectReview> = Api::all(kube::Client::try_from(config).unwrap());
    let review = reviews
        .create(&PostParams::default(), &SelfSubjectReview::default())
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(review.status.unwrap().user_info.unwrap()).unwrap(),
        json!({"username": "carol", "groups": ["auditors", "system:authenticated"]})
    );
}

/// Runs kubectl against `kapi` with only `credentials` (no kubeconfig user): the server and
/// its CA as flags.
fn kubectl_with(kapi: &Kapi, credentials: &[&str], args: &[&str]) -> Output {
    let empty = kapi.dir.path().join("empty-kubeconfig");
    std::fs::write(&empty, "").unwrap();
    std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(&empty)
        .arg("--cache-dir")
        .arg(kapi.kubectl_cache_dir())
        .args(["--server", &kapi.url, "--certificate-authority"])
        .arg(kapi.dir.path().join("ca.crt"))
        .args(credentials)
        .args(args)
        .output()
        .unwrap()
}

/// Asserts kubectl was refused as unauthenticated, kapi logged `reason` and none of
/// `secrets`.
fn assert_refused(kapi: &Kapi, out: &Output, reason: &str, secrets: &[&str]) {
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // What kubectl says when discovery gets kube-apiserver's 401.
    assert_eq!(
        stderr.lines().last(),
        Some(
            "error: You must be logged in to the server (the server has asked for the client to provide credentials)"
        ),
        "{stderr}"
    );
    let log = kapi.log();
    assert!(log.contains("Unable to authenticate the request"), "{log}");
    assert!(log.contains(reason), "{reason} not in\n{log}");
    for secret in secrets {
        assert!(!log.contains(secret), "{secret} was logged:\n{log}");
    }
}

/// kapi (a process) with a signing key the test holds, and ServiceAccount default/robot's uid.
async fn kapi_with_robot() -> (Kapi, SigningKey, String) {
    let dir = tempfile::tempdir().unwrap();
    let (key, key_file) = signing_key_in(dir.path());
    let kapi = Kapi::start_in(dir, &["--service-account-signing-key-file", &key_file]).await;
    let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}});
    let (status, sa): (u16, Value) = e2e_support::send_json(
        &kapi.client().await,
        "POST",
        "/api/v1/namespaces/default/serviceaccounts",
        &sa,
    )
    .await;
    assert_eq!(status, 201, "{sa}");
    let uid = sa["metadata"]["uid"].as_str().unwrap().to_owned();
    (kapi, key, uid)
}

#[tokio::test]
async fn kubectl_with_an_expired_token_must_log_in() {
    let (kapi, key, uid) = kapi_with_robot().await;
    let now = chrono::Utc::now().timestamp();
    let live = service_account_token(&key, "default", "robot", &uid, now, now + 600);
    let whoami = kubectl_with(&kapi, &["--token", &live], &["auth", "whoami"]);
    assert!(whoami.status.success(), "{whoami:?}");
    let expired = service_account_token(&key, "default", "robot", &uid, now - 1200, now - 600);
    let out = kubectl_with(&kapi, &["--token", &expired], &["get", "configmaps"]);
    assert_refused(
        &kapi,
        &out,
        "service account token has expired",
        &[&expired],
    );
}

#[tokio::test]
async fn kubectl_with_a_token_signed_by_another_key_must_log_in() {
    let (kapi, _, uid) = kapi_with_robot().await;
    let now = chrono::Utc::now().timestamp();
    let forged = service_account_token(&unknown_key(), "default", "robot", &uid, now, now + 600);
    let out = kubectl_with(&kapi, &["--token", &forged], &["get", "configmaps"]);
    assert_refused(
        &kapi,
        &out,
        "token signature could not be verified",
        &[&forged],
    );
}

#[tokio::test]
async fn kubectl_with_a_certificate_of_another_ca_must_log_in() {
    let kapi = Kapi::start_process().await;
    let ca = ForeignCa::create();
    let (cert, key, pem) = ca.client_cert("mallory", Some("system:masters"));
    let credentials = [
        "--client-certificate",
        cert.to_str().unwrap(),
        "--client-key",
        key.to_str().unwrap(),
    ];
    let out = kubectl_with(&kapi, &credentials, &["get", "configmaps"]);
    let body = pem_body(&pem);
    assert_refused(&kapi, &out, "verifying certificate", &[&body[..40]]);
}

#[tokio::test]
async fn kubectl_with_basic_credentials_must_log_in() {
    let kapi = Kapi::start_process().await;
    let credentials = ["--username", "alice", "--password", "open-sesame"];
    let out = kubectl_with(&kapi, &credentials, &["get", "configmaps"]);
    assert_refused(
        &kapi,
        &out,
        "the Authorization header is not a bearer token",
        &["open-sesame", &b64(b"alice:open-sesame")],
    );
}
