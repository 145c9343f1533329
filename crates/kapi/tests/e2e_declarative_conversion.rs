//! Declarative conversion end to end (issue 18, first step): the example CRD of
//! `examples/declarative-conversion/` installed with `kubectl apply -f` as it is; Widgets
//! written in either version read in the other through the rules (no webhook runs: the
//! CRD names a service that does not exist); lists convert every item; the storage
//! version switches; rules that cannot work are refused when the CRD is written.

mod e2e_admission_support;

use e2e_admission_support::kubectl;
use kapi_test::TestServer;
use serde_json::{Value, json};
use std::path::PathBuf;

fn example_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/declarative-conversion")
}

async fn with_example(server: &TestServer) {
    let dir = example_dir();
    let (ok, _, stderr) = kubectl(server, &["apply", "-f", dir.to_str().unwrap()], None).await;
    assert!(ok, "{stderr}");
    // A CRD just created has `status.conditions: null` until the controller names it (as
    // upstream's), which kubectl wait reports as an error rather than waiting: retried.
    kubectl_until_accepted(
        server,
        &[
            "wait",
            "--for=condition=Established",
            "crd/widgets.golden.example.com",
            "--timeout=10s",
        ],
        None,
    )
    .await;
    apply_samples(server).await;
}

/// Runs kubectl until it succeeds (a new CRD's kind reaches kubectl's discovery a moment
/// after the CRD is Established); panics after 5 s.
async fn kubectl_until_accepted(server: &TestServer, args: &[&str], stdin: Option<&str>) {
    for _ in 0..50 {
        if kubectl(server, args, stdin).await.0 {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("kubectl {args:?} was not accepted");
}

/// Applies the example's sample Widgets.
async fn apply_samples(server: &TestServer) {
    let samples = example_dir().join("samples");
    kubectl_until_accepted(server, &["apply", "-f", samples.to_str().unwrap()], None).await;
}

/// Makes v1beta1 the storage version of the example CRD.
async fn switch_storage_to_v1beta1(server: &TestServer) {
    let patch = r#"[{"op":"replace","path":"/spec/versions/0/storage","value":false},{"op":"replace","path":"/spec/versions/1/storage","value":true}]"#;
    let args = [
        "patch",
        "crd",
        "widgets.golden.example.com",
        "--type=json",
        "-p",
        patch,
    ];
    let (ok, _, stderr) = kubectl(server, &args, None).await;
    assert!(ok, "{stderr}");
}

async fn get(server: &TestServer, version: &str, name: &str) -> Value {
    let resource = format!("widgets.{version}.golden.example.com");
    let (ok, stdout, stderr) = kubectl(server, &["get", &resource, name, "-o", "json"], None).await;
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[tokio::test]
async fn a_widget_written_in_v1alpha1_reads_in_v1beta1_by_the_rules() {
    let server = TestServer::start().await.unwrap();
    with_example(&server).await;
    let w = get(&server, "v1beta1", "old-style").await;
    assert_eq!(w["apiVersion"], "golden.example.com/v1beta1");
    assert_eq!(
        w["spec"],
        json!({"displayName": "written in v1alpha1", "replicas": 2})
    );
}

#[tokio::test]
async fn a_widget_written_in_v1beta1_reads_in_v1alpha1_by_the_rules() {
    let server = TestServer::start().await.unwrap();
    with_example(&server).await;
    let w = get(&server, "v1alpha1", "new-style").await;
    assert_eq!(
        w["spec"],
        json!({"label": "written in v1beta1", "replicas": 3})
    );
    // Stored in v1alpha1, read back in the version it was written in, unchanged.
    let again = get(&server, "v1beta1", "new-style").await;
    assert_eq!(
        again["spec"],
        json!({"displayName": "written in v1beta1", "replicas": 3})
    );
}

#[tokio::test]
async fn a_list_converts_every_item() {
    let server = TestServer::start().await.unwrap();
    with_example(&server).await;
    let (ok, stdout, stderr) = kubectl(
        &server,
        &["get", "widgets.v1beta1.golden.example.com", "-o", "json"],
        None,
    )
    .await;
    assert!(ok, "{stderr}");
    let list: Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["spec"]["displayName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["written in v1beta1", "written in v1alpha1"]);
}

#[tokio::test]
async fn the_storage_version_switches_to_v1beta1_and_old_objects_still_read() {
    let server = TestServer::start().await.unwrap();
    with_example(&server).await;
    switch_storage_to_v1beta1(&server).await;
    let (ok, _, stderr) = kubectl(
        &server,
        &[
            "patch",
            "widgets.v1beta1.golden.example.com",
            "old-style",
            "--type=merge",
            "-p",
            r#"{"spec":{"replicas":4}}"#,
        ],
        None,
    )
    .await;
    assert!(ok, "{stderr}");
    let crd = {
        let (_, stdout, _) = kubectl(
            &server,
            &["get", "crd", "widgets.golden.example.com", "-o", "json"],
            None,
        )
        .await;
        serde_json::from_str::<Value>(&stdout).unwrap()
    };
    assert_eq!(
        crd["status"]["storedVersions"],
        json!(["v1alpha1", "v1beta1"])
    );
    let w = get(&server, "v1alpha1", "old-style").await;
    assert_eq!(
        w["spec"],
        json!({"label": "written in v1alpha1", "replicas": 4})
    );
}

#[tokio::test]
async fn rules_naming_a_field_the_schema_lacks_are_refused_with_the_step() {
    let server = TestServer::start().await.unwrap();
    let text = std::fs::read_to_string(example_dir().join("crd.yaml")).unwrap();
    let bad = text.replace("from: spec.label,", "from: spec.lable,");
    let (ok, _, stderr) = kubectl(&server, &["apply", "-f", "-"], Some(&bad)).await;
    assert!(!ok);
    assert!(
        stderr.contains("The CustomResourceDefinition \"widgets.golden.example.com\" is invalid: metadata.annotations[conversion.kapi.dev/rules]: Invalid value: versions.v1alpha1[0]: spec.lable is not a field of v1alpha1's schema"),
        "{stderr}"
    );
}

#[tokio::test]
async fn rules_with_an_expression_that_does_not_compile_are_refused() {
    let server = TestServer::start().await.unwrap();
    let text = std::fs::read_to_string(example_dir().join("crd.yaml")).unwrap();
    let bad = text.replace(
        "          - rename: {from: spec.label, to: spec.displayName}\n",
        "          - rename: {from: spec.label, to: spec.displayName}\n          - compute: {toHub: {spec.replicas: 'self.spec.replicas +'}, fromHub: {}}\n",
    );
    let (ok, _, stderr) = kubectl(&server, &["apply", "-f", "-"], Some(&bad)).await;
    assert!(!ok);
    assert!(
        stderr.contains("versions.v1alpha1[1]: compute toHub: spec.replicas: compilation failed"),
        "{stderr}"
    );
}

/// An object without what differs between two servers (uid, times, resourceVersion,
/// managedFields).
fn comparable(mut v: Value) -> Value {
    if let Some(m) = v["metadata"].as_object_mut() {
        for key in [
            "uid",
            "creationTimestamp",
            "resourceVersion",
            "managedFields",
        ] {
            m.remove(key);
        }
    }
    v
}

/// The raw JSON bytes of a GET, as the server sent them.
async fn raw(server: &TestServer, version: &str, name: &str) -> Vec<u8> {
    let req = http::Request::get(format!(
        "/apis/golden.example.com/{version}/namespaces/default/widgets/{name}"
    ))
    .body(Vec::new())
    .unwrap();
    server
        .client()
        .request_text(req)
        .await
        .unwrap()
        .into_bytes()
}

#[tokio::test]
async fn the_generated_webhook_converts_as_the_rules_do_in_process() {
    use kapi_testsupport::certs::make_certs;
    use kapi_testsupport::widget_webhook::{spawn_webhook, webhook_binary};
    let crd_path = example_dir().join("crd.yaml");
    let certs = make_certs();
    let (mut child, port) = spawn_webhook(
        &webhook_binary("rules-webhook"),
        &certs,
        0,
        &["--crd", crd_path.to_str().unwrap()],
    );
    // kapi A converts by the rules in-process; kapi B has the same CRD without the rules
    // annotation, its webhook being the rules served by `rules-webhook`.
    let in_process = TestServer::start().await.unwrap();
    with_example(&in_process).await;
    let through_webhook = TestServer::start().await.unwrap();
    let text = std::fs::read_to_string(&crd_path).unwrap();
    let mut crd = kapi_machinery::serializer::yaml::yaml_to_value(text.as_bytes()).unwrap();
    crd["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("annotations");
    crd["spec"]["conversion"]["webhook"]["clientConfig"] = json!({
        "url": format!("https://localhost:{port}/convert"), "caBundle": certs.ca_bundle()});
    let (ok, _, stderr) = kubectl(
        &through_webhook,
        &["apply", "-f", "-"],
        Some(&crd.to_string()),
    )
    .await;
    assert!(ok, "{stderr}");
    apply_samples(&through_webhook).await;
    for (version, name) in [("v1beta1", "old-style"), ("v1alpha1", "new-style")] {
        let a: Value = serde_json::from_slice(&raw(&in_process, version, name).await).unwrap();
        let b: Value = serde_json::from_slice(&raw(&through_webhook, version, name).await).unwrap();
        assert_eq!(
            serde_json::to_vec(&comparable(a)).unwrap(),
            serde_json::to_vec(&comparable(b)).unwrap(),
            "{version} {name}"
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test]
async fn rules_whose_computation_gives_the_wrong_type_are_refused() {
    let server = TestServer::start().await.unwrap();
    let text = std::fs::read_to_string(example_dir().join("crd.yaml")).unwrap();
    let bad = text.replace(
        "          - rename: {from: spec.label, to: spec.displayName}\n",
        "          - rename: {from: spec.label, to: spec.displayName}\n          - compute: {toHub: {spec.replicas: \"'many'\"}, fromHub: {}}\n",
    );
    let (ok, _, stderr) = kubectl(&server, &["apply", "-f", "-"], Some(&bad)).await;
    assert!(!ok);
    assert!(
        stderr.contains("versions.v1alpha1[1]: compute toHub spec.replicas gives a string; v1beta1's schema says integer"),
        "{stderr}"
    );
}

/// Runs the kapi binary against `server` off the runtime; (success, stdout, stderr).
async fn kapi_cli(server: &TestServer, args: &[&str]) -> (bool, String, String) {
    let kubeconfig = server.kubeconfig_path().to_owned();
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kapi"))
            .args(&args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn kapi_migrate_refuses_rules_that_lose_stored_fields_unless_told() {
    let server = TestServer::start().await.unwrap();
    // Rules that forget the rename: spec.label has no place in v1beta1.
    let text = std::fs::read_to_string(example_dir().join("crd.yaml")).unwrap();
    let lossy = text.replace(
        "        v1alpha1:\n          - rename: {from: spec.label, to: spec.displayName}\n",
        "        v1alpha1: []\n",
    );
    assert_ne!(lossy, text);
    let (ok, _, stderr) = kubectl(&server, &["apply", "-f", "-"], Some(&lossy)).await;
    assert!(ok, "{stderr}");
    kubectl_until_accepted(
        &server,
        &[
            "wait",
            "--for=condition=Established",
            "crd/widgets.golden.example.com",
            "--timeout=10s",
        ],
        None,
    )
    .await;
    let widget = r#"{"apiVersion":"golden.example.com/v1alpha1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"label":"kept?","replicas":1}}"#;
    kubectl_until_accepted(&server, &["create", "-f", "-"], Some(widget)).await;
    switch_storage_to_v1beta1(&server).await;
    let (ok, _, stderr) = kapi_cli(&server, &["migrate", "widgets.golden.example.com"]).await;
    assert!(!ok);
    assert!(
        stderr.contains(
            "default/w: v1alpha1 -> v1beta1 -> v1alpha1: .spec.label lost (was \"kept?\")"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("no step of v1alpha1 carries spec.label to the hub v1beta1"),
        "{stderr}"
    );
    assert!(
        stderr.contains("nothing was migrated (--allow-data-loss migrates anyway)"),
        "{stderr}"
    );
    let (ok, _, stderr) = kapi_cli(
        &server,
        &["migrate", "widgets.golden.example.com", "--allow-data-loss"],
    )
    .await;
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("migrating anyway (--allow-data-loss)"),
        "{stderr}"
    );
}

/// The CRD as kubectl reads it.
async fn crd_now(server: &TestServer) -> Value {
    let (ok, stdout, stderr) = kubectl(
        server,
        &["get", "crd", "widgets.golden.example.com", "-o", "json"],
        None,
    )
    .await;
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

#[tokio::test]
async fn the_whole_version_lifecycle_runs_on_rules_alone() {
    let server = TestServer::start().await.unwrap();
    with_example(&server).await;
    // Storage moves to v1beta1; kapi migrate rewrites what v1alpha1 still holds.
    switch_storage_to_v1beta1(&server).await;
    let (ok, _, stderr) = kapi_cli(&server, &["migrate", "widgets.golden.example.com"]).await;
    assert!(ok, "{stderr}");
    let mut stored = Value::Null;
    for _ in 0..50 {
        stored = crd_now(&server).await["status"]["storedVersions"].clone();
        if stored == json!(["v1beta1"]) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(stored, json!(["v1beta1"]));
    // v1alpha1 is no longer served: its reads are gone, v1beta1's still convert nothing.
    let unserve = r#"[{"op":"replace","path":"/spec/versions/0/served","value":false}]"#;
    let (ok, _, stderr) = kubectl(
        &server,
        &[
            "patch",
            "crd",
            "widgets.golden.example.com",
            "--type=json",
            "-p",
            unserve,
        ],
        None,
    )
    .await;
    assert!(ok, "{stderr}");
    let req = http::Request::get(
        "/apis/golden.example.com/v1alpha1/namespaces/default/widgets/old-style",
    )
    .body(Vec::new())
    .unwrap();
    let mut gone = false;
    for _ in 0..50 {
        if let Err(kube::Error::Api(s)) = server.client().request::<Value>(req.clone()).await
            && s.code == 404
        {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(gone, "v1alpha1 is still served");
    let w = get(&server, "v1beta1", "old-style").await;
    assert_eq!(
        w["spec"],
        json!({"displayName": "written in v1alpha1", "replicas": 2})
    );
    // With storedVersions == [v1beta1], v1alpha1 can leave the CRD (and its rules with it).
    let mut crd = crd_now(&server).await;
    crd["spec"]["versions"].as_array_mut().unwrap().remove(0);
    crd["metadata"]["annotations"]["conversion.kapi.dev/rules"] = json!("hub: v1beta1\n");
    let (ok, _, stderr) = kubectl(&server, &["replace", "-f", "-"], Some(&crd.to_string())).await;
    assert!(ok, "{stderr}");
    let w = get(&server, "v1beta1", "new-style").await;
    assert_eq!(w["spec"]["displayName"], "written in v1beta1");
}
