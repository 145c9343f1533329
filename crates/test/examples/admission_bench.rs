//! What admission adds to a create: ConfigMap creates one at a time on an in-process
//! `TestServer` without admission, then with one validating webhook, one mutating webhook,
//! five validating webhooks (called in parallel), a ValidatingAdmissionPolicy, one with
//! params, and a MutatingAdmissionPolicy. The webhooks are kapi-webhook handlers served
//! over HTTPS from this process. Each scenario runs as dry-run creates (admission without
//! the disk write) and stored creates, three rounds interleaved on one server; printed is
//! the median of the rounds' p50s and what each adds to the one without admission.
//!
//! ```sh
//! cargo build --release -p kapi-test --examples
//! target/release/examples/admission_bench [--creates 1000] [--only "1 validating policy"]
//! ```

use k8s_openapi::api::core::v1::ConfigMap;
use kapi_test::TestServer;
use kapi_webhook::service::WebhookRouter;
use kapi_webhook::{AdmissionRequest, Verdict};
use kube::api::{Api, PostParams};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The webhooks: `/allow` admits, `/label` adds a label.
async fn serve_webhooks() -> Result<(String, String), BoxError> {
    kapi_webhook::tls::install_crypto_provider();
    let certs = kapi_testsupport::certs::make_certs();
    let config = kapi_webhook::tls::server_config_from_pem(
        certs.cert_pem.as_bytes(),
        certs.key_pem.as_bytes(),
    )?;
    let router = WebhookRouter::new()
        .validating("/allow", |_: &AdmissionRequest| Verdict::allow())
        .mutating("/label", |r: &AdmissionRequest| {
            let original = r.object.clone().unwrap_or_default();
            let mut modified = original.clone();
            modified["metadata"]["labels"] = json!({"admitted": "yes"});
            Verdict::patched(&original, &modified)
        })
        .build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("https://127.0.0.1:{}", listener.local_addr()?.port());
    tokio::spawn(kapi_webhook::tls::serve_tls(
        listener,
        config,
        router,
        std::future::pending(),
    ));
    Ok((url, certs.ca_bundle()))
}

fn webhook(name: &str, url: &str, ca: &str) -> Value {
    json!({"name": name, "admissionReviewVersions": ["v1"], "sideEffects": "None",
        "clientConfig": {"url": url, "caBundle": ca},
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]})
}

fn rules() -> Value {
    json!({"resourceRules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}]})
}

async fn post(server: &TestServer, plural: &str, obj: Value) -> Result<(), BoxError> {
    let req = http::Request::post(format!("/apis/admissionregistration.k8s.io/v1/{plural}"))
        .header("content-type", "application/json")
        .body(obj.to_string().into_bytes())?;
    server.client().request_text(req).await?;
    Ok(())
}

/// The admission configuration of one scenario, written to `server`.
async fn configure(
    server: &TestServer,
    scenario: &str,
    url: &str,
    ca: &str,
) -> Result<(), BoxError> {
    let kind = |k: &str| json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": k});
    let binding = |name: &str, extra: Value| {
        let mut b = kind("ValidatingAdmissionPolicyBinding");
        b["metadata"] = json!({"name": name});
        b["spec"] = json!({"policyName": name, "validationActions": ["Deny"]});
        if let (Some(s), Some(e)) = (b["spec"].as_object_mut(), extra.as_object()) {
            s.extend(e.clone());
        }
        b
    };
    match scenario {
        "none" => {}
        "1 validating webhook" => {
            let mut c = kind("ValidatingWebhookConfiguration");
            c["metadata"] = json!({"name": "allow"});
            c["webhooks"] = json!([webhook("allow.bench.kapi.dev", &format!("{url}/allow"), ca)]);
            post(server, "validatingwebhookconfigurations", c).await?;
        }
        "1 mutating webhook" => {
            let mut c = kind("MutatingWebhookConfiguration");
            c["metadata"] = json!({"name": "label"});
            c["webhooks"] = json!([webhook("label.bench.kapi.dev", &format!("{url}/label"), ca)]);
            post(server, "mutatingwebhookconfigurations", c).await?;
        }
        "5 validating webhooks" => {
            let mut c = kind("ValidatingWebhookConfiguration");
            c["metadata"] = json!({"name": "five"});
            c["webhooks"] = Value::Array(
                (0..5)
                    .map(|i| {
                        webhook(
                            &format!("allow{i}.bench.kapi.dev"),
                            &format!("{url}/allow"),
                            ca,
                        )
                    })
                    .collect(),
            );
            post(server, "validatingwebhookconfigurations", c).await?;
        }
        "1 validating policy" => {
            let mut p = kind("ValidatingAdmissionPolicy");
            p["metadata"] = json!({"name": "short-names"});
            p["spec"] = json!({"matchConstraints": rules(), "validations": [
                {"expression": "object.metadata.name.size() < 64"}]});
            post(server, "validatingadmissionpolicies", p).await?;
            post(
                server,
                "validatingadmissionpolicybindings",
                binding("short-names", json!({})),
            )
            .await?;
        }
        "1 validating policy with params" => {
            let cms: Api<ConfigMap> = Api::namespaced(server.client(), "kube-system");
            let limits: ConfigMap = serde_json::from_value(
                json!({"metadata": {"name": "limits"}, "data": {"maxName": "64"}}),
            )?;
            cms.create(&PostParams::default(), &limits).await?;
            let mut p = kind("ValidatingAdmissionPolicy");
            p["metadata"] = json!({"name": "name-limit"});
            p["spec"] = json!({"matchConstraints": rules(),
                "paramKind": {"apiVersion": "v1", "kind": "ConfigMap"},
                "validations": [{"expression": "object.metadata.name.size() < int(params.data.maxName)"}]});
            post(server, "validatingadmissionpolicies", p).await?;
            let param_ref = json!({"paramRef": {"name": "limits", "namespace": "kube-system",
                "parameterNotFoundAction": "Deny"}});
            post(
                server,
                "validatingadmissionpolicybindings",
                binding("name-limit", param_ref),
            )
            .await?;
        }
        "1 mutating policy" => {
            let mut p = kind("MutatingAdmissionPolicy");
            p["metadata"] = json!({"name": "team"});
            p["spec"] = json!({"matchConstraints": rules(), "reinvocationPolicy": "Never",
                "mutations": [{"patchType": "ApplyConfiguration", "applyConfiguration": {
                    "expression": "Object{metadata: Object.metadata{labels: {'team': 'bench'}}}"}}]});
            post(server, "mutatingadmissionpolicies", p).await?;
            let mut b = kind("MutatingAdmissionPolicyBinding");
            b["metadata"] = json!({"name": "team"});
            b["spec"] = json!({"policyName": "team"});
            post(server, "mutatingadmissionpolicybindings", b).await?;
        }
        other => return Err(format!("unknown scenario {other}").into()),
    }
    // The configurations reach admission through watch caches.
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(())
}

/// Deletes every admission configuration and policy.
async fn unconfigure(server: &TestServer) -> Result<(), BoxError> {
    for plural in [
        "validatingwebhookconfigurations",
        "mutatingwebhookconfigurations",
        "validatingadmissionpolicybindings",
        "validatingadmissionpolicies",
        "mutatingadmissionpolicybindings",
        "mutatingadmissionpolicies",
    ] {
        let req = http::Request::delete(format!("/apis/admissionregistration.k8s.io/v1/{plural}"))
            .body(Vec::new())?;
        server.client().request_text(req).await?;
    }
    let cms: Api<ConfigMap> = Api::namespaced(server.client(), "kube-system");
    let _ = cms.delete("limits", &Default::default()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let mut creates = 1000usize;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        match (flag.as_str(), args.next()) {
            ("--creates", Some(v)) => creates = v.parse()?,
            ("--only", Some(v)) => only = Some(v),
            _ => {
                return Err(format!(
                    "usage: admission_bench [--creates N] [--only SCENARIO] ({flag}?)"
                )
                .into());
            }
        }
    }
    let (url, ca) = serve_webhooks().await?;
    let scenarios = [
        "none",
        "1 validating webhook",
        "1 mutating webhook",
        "5 validating webhooks",
        "1 validating policy",
        "1 validating policy with params",
        "1 mutating policy",
    ];
    let rounds = 3;
    let server = TestServer::start().await?;
    let chosen: Vec<&str> = scenarios
        .into_iter()
        .filter(|s| only.as_deref().is_none_or(|o| o == *s))
        .collect();
    // p50s per scenario and round: (dry run, stored).
    let mut p50s: Vec<Vec<(Duration, Duration)>> = vec![Vec::new(); chosen.len()];
    for round in 0..rounds {
        for (i, scenario) in chosen.iter().enumerate() {
            configure(&server, scenario, &url, &ca).await?;
            let cms: Api<ConfigMap> = Api::namespaced(server.client(), "default");
            let dry = PostParams {
                dry_run: true,
                ..PostParams::default()
            };
            let mut result = Vec::new();
            for params in [&dry, &PostParams::default()] {
                let mut times = Vec::with_capacity(creates);
                for n in 0..creates + 50 {
                    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {
                        "name": format!("cm-{round}-{i}-{n}")}, "data": {"k": "v"}}))?;
                    let started = Instant::now();
                    cms.create(params, &cm).await?;
                    if n >= 50 {
                        times.push(started.elapsed());
                    }
                }
                times.sort();
                result.push(percentile(&times, 0.5));
            }
            p50s[i].push((result[0], result[1]));
            unconfigure(&server).await?;
        }
    }
    let median = |mut v: Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    println!("| admission on a ConfigMap create | dry-run p50 | added | stored p50 | added |");
    println!("|---|---|---|---|---|");
    let mut base = None;
    for (scenario, runs) in chosen.iter().zip(p50s) {
        let dry = median(runs.iter().map(|r| r.0).collect());
        let stored = median(runs.iter().map(|r| r.1).collect());
        let (bd, bs) = *base.get_or_insert((dry, stored));
        println!(
            "| {scenario} | {:.3} ms | {:+.3} ms | {:.3} ms | {:+.3} ms |",
            ms(dry),
            ms(dry) - ms(bd),
            ms(stored),
            ms(stored) - ms(bs)
        );
    }
    server.stop().await;
    Ok(())
}
