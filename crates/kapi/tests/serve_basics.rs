//! `kapi serve` itself: credentials on first start, authentication, health, version,
//! metrics and clean shutdown, over real HTTPS.

mod e2e_support;

use e2e_support::{Kapi, json, send_raw};
use kapi_testsupport::golden::golden;
use std::os::unix::fs::PermissionsExt;

fn get(path: &str) -> http::Request<Vec<u8>> {
    http::Request::get(path).body(Vec::new()).unwrap()
}

#[tokio::test]
async fn first_start_writes_credentials_and_kubeconfig_with_mode_0600() {
    let kapi = Kapi::start_process().await;
    for name in [
        "ca.crt",
        "ca.key",
        "apiserver.crt",
        "apiserver.key",
        "tokens.csv",
        "kubeconfig",
    ] {
        let mode = std::fs::metadata(kapi.dir.path().join(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{name}");
    }
}

#[tokio::test]
async fn without_credentials_even_the_health_and_version_endpoints_get_401() {
    let kapi = Kapi::start_process().await;
    let anon = kapi.anonymous_client().await;
    for path in ["/healthz", "/livez", "/readyz", "/version"] {
        let (status, _, body) = send_raw(&anon, get(path)).await;
        assert_eq!(status, 401, "{path}");
        assert_eq!(json(&body), golden("error-401-anonymous.json"), "{path}");
    }
}

#[tokio::test]
async fn with_anonymous_auth_the_health_and_version_endpoints_answer_anyone() {
    let kapi = Kapi::start_with(&["--anonymous-auth"]).await;
    let anon = kapi.anonymous_client().await;
    for path in ["/healthz", "/livez", "/readyz"] {
        let (status, _, body) = send_raw(&anon, get(path)).await;
        assert_eq!((status, body.as_slice()), (200, b"ok".as_slice()), "{path}");
    }
    let (status, _, body) = send_raw(&anon, get("/version")).await;
    assert_eq!(status, 200);
    let version = json(&body);
    let expected = golden("version.json");
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&version), keys(&expected));
}

#[tokio::test]
async fn request_without_credentials_gets_401_status() {
    let kapi = Kapi::start_process().await;
    let anon = kapi.anonymous_client().await;
    let (status, headers, body) = send_raw(&anon, get("/api/v1/namespaces")).await;
    assert_eq!(status, 401);
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(json(&body), golden("error-401-anonymous.json"));
}

#[tokio::test]
async fn wrong_bearer_token_gets_401() {
    let kapi = Kapi::start_process().await;
    let mut config = kapi.config().await;
    config.auth_info = Default::default();
    config.auth_info.token = Some("not-the-token".to_owned().into());
    let client = kube::Client::try_from(config).unwrap();
    let (status, _, _) = send_raw(&client, get("/metrics")).await;
    assert_eq!(status, 401);
}

/// A client authenticating with a certificate the data dir's CA signed.
async fn certificate_client(kapi: &Kapi, user: &str, group: Option<&str>) -> kube::Client {
    let (cert, key) = kapi_server::pki::issue_client_cert(kapi.dir.path(), user, group).unwrap();
    let mut config = kapi.config().await;
    config.auth_info = Default::default();
    config.auth_info.client_certificate_data = Some(base64(cert.as_bytes()));
    config.auth_info.client_key_data = Some(base64(key.as_bytes()).into());
    kube::Client::try_from(config).unwrap()
}

#[tokio::test]
async fn a_client_certificate_in_system_masters_may_do_anything() {
    let kapi = Kapi::start_process().await;
    let client = certificate_client(&kapi, "alice", Some("system:masters")).await;
    let (status, _, _) = send_raw(&client, get("/metrics")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_client_certificates_common_name_is_the_user_rbac_judges() {
    let kapi = Kapi::start_process().await;
    let client = certificate_client(&kapi, "alice", None).await;
    // Authenticated (not 401), but no role grants alice the metrics.
    let (status, _, body) = send_raw(&client, get("/metrics")).await;
    assert_eq!(status, 403);
    assert_eq!(
        json(&body)["message"],
        r#"forbidden: User "alice" cannot get path "/metrics""#
    );
    // Every authenticated user may read discovery (system:discovery).
    let (status, _, _) = send_raw(&client, get("/apis")).await;
    assert_eq!(status, 200);
}

fn base64(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("base64")
        .arg("-w0")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

#[tokio::test]
async fn metrics_are_prometheus_text_with_request_counters() {
    let kapi = Kapi::start_process().await;
    let (status, headers, body) = kapi.raw(get("/metrics")).await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = String::from_utf8(body).unwrap();
    assert!(
        text.contains("# TYPE apiserver_request_total counter"),
        "{text}"
    );
}

#[tokio::test]
async fn sigterm_stops_the_server_with_exit_code_0() {
    let mut kapi = Kapi::start_process().await;
    assert!(kapi.stop(), "{}", kapi.log());
}

#[tokio::test]
async fn restart_reuses_the_ca_and_token() {
    let mut kapi = Kapi::start_process().await;
    let token = std::fs::read_to_string(kapi.dir.path().join("tokens.csv")).unwrap();
    let ca = std::fs::read_to_string(kapi.dir.path().join("ca.crt")).unwrap();
    kapi.stop();
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "ca.crt",
        "ca.key",
        "apiserver.crt",
        "apiserver.key",
        "apiserver.sans",
        "tokens.csv",
    ] {
        std::fs::copy(kapi.dir.path().join(name), dir.path().join(name)).unwrap();
    }
    let again = Kapi::start_in(dir, &[]).await;
    assert_eq!(
        std::fs::read_to_string(again.dir.path().join("tokens.csv")).unwrap(),
        token
    );
    assert_eq!(
        std::fs::read_to_string(again.dir.path().join("ca.crt")).unwrap(),
        ca
    );
    let (status, _, _) = again.raw(get("/metrics")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn kubectl_version_reaches_the_server() {
    let kapi = Kapi::start_process().await;
    let out = kapi.kubectl_ok(&["version", "-o", "json"]);
    let v = json(out.as_bytes());
    assert_eq!(v["serverVersion"]["major"], "1");
}

#[tokio::test]
async fn readyz_verbose_lists_each_check_as_kube_apiserver_does() {
    let kapi = Kapi::start_process().await;
    let admin = kapi.client().await;
    let (status, _, body) = send_raw(&admin, get("/readyz?verbose")).await;
    assert_eq!(status, 200);
    let text = String::from_utf8(body).unwrap();
    for line in [
        "[+]ping ok",
        "[+]etcd ok",
        "[+]poststarthook/start-apiextensions-controllers ok",
        "[+]poststarthook/start-system-namespaces-controller ok",
        "[+]shutdown ok",
        "readyz check passed",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "{line:?} missing from {text}"
        );
    }
}

#[tokio::test]
async fn one_named_check_answers_alone_and_an_unknown_one_is_404() {
    let kapi = Kapi::start_process().await;
    let admin = kapi.client().await;
    let (status, _, body) = send_raw(&admin, get("/livez/etcd")).await;
    assert_eq!((status, body.as_slice()), (200, b"ok".as_slice()));
    let (status, _, _) = send_raw(&admin, get("/readyz/no-such-check")).await;
    assert_eq!(status, 404);
}
