//! Wall time of a controller-style test suite on kapi three ways: the in-process
//! `TestServer` shared by the suite, one `kapi serve` process shared by the suite, and a
//! fresh `TestServer` per test; and the start-up of each (start until the first answer).
//!
//! Each of the `--tests` tests installs its own CRD (and waits until it is served), creates
//! `--objects` custom resources, watches until it has seen them all, sets each one's status
//! through the status subresource, deletes them and watches them go.
//!
//! ```sh
//! cargo build --release -p kapi -p kapi-test --examples
//! target/release/examples/suite_bench --kapi target/release/kapi
//! ```

use futures::{StreamExt, TryStreamExt};
use kapi_test::TestServer;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams,
    PostParams, WatchEvent, WatchParams,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

struct Args {
    kapi: PathBuf,
    tests: usize,
    objects: usize,
}

fn args() -> Result<Args, BoxError> {
    let mut out = Args {
        kapi: PathBuf::from("target/release/kapi"),
        tests: 50,
        objects: 5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--kapi" => out.kapi = PathBuf::from(value),
            "--tests" => out.tests = value.parse()?,
            "--objects" => out.objects = value.parse()?,
            _ => return Err(format!("unknown flag {flag}").into()),
        }
    }
    Ok(out)
}

fn crd(i: usize) -> serde_json::Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.t{i}.example.com")},
        "spec": {"group": format!("t{i}.example.com"), "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                    "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}})
}

/// One controller-style test against `client`.
async fn one_test(client: &kube::Client, i: usize, objects: usize) -> Result<(), BoxError> {
    let crds: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
            "customresourcedefinitions",
        ),
    );
    crds.create(&PostParams::default(), &serde_json::from_value(crd(i))?)
        .await?;
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk(&format!("t{i}.example.com"), "v1", "Widget"),
        "widgets",
    );
    let widgets: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &resource);
    // Served once the list answers (envtest polls discovery the same way).
    let rv = loop {
        match widgets.list(&Default::default()).await {
            Ok(list) => break list.metadata.resource_version.unwrap_or_default(),
            Err(_) => tokio::time::sleep(Duration::from_millis(2)).await,
        }
    };
    let mut events = widgets.watch(&WatchParams::default(), &rv).await?.boxed();
    for n in 0..objects {
        let obj = json!({"apiVersion": format!("t{i}.example.com/v1"), "kind": "Widget",
            "metadata": {"name": format!("w{n}")}, "spec": {"size": n}});
        widgets
            .create(&PostParams::default(), &serde_json::from_value(obj)?)
            .await?;
    }
    let (mut added, mut deleted) = (0, 0);
    while added < objects {
        if let Some(WatchEvent::Added(_)) = events.try_next().await? {
            added += 1;
        }
    }
    for n in 0..objects {
        let status = json!({"status": {"ready": true}});
        widgets
            .patch_status(
                &format!("w{n}"),
                &PatchParams::default(),
                &Patch::Merge(&status),
            )
            .await?;
        widgets
            .delete(&format!("w{n}"), &DeleteParams::default())
            .await?;
    }
    while deleted < objects {
        if let Some(WatchEvent::Deleted(_)) = events.try_next().await? {
            deleted += 1;
        }
    }
    Ok(())
}

async fn client_for(kubeconfig: &Path) -> Result<kube::Client, BoxError> {
    let kc = kube::config::Kubeconfig::read_from(kubeconfig)?;
    let config =
        kube::Config::from_custom_kubeconfig(kc, &kube::config::KubeConfigOptions::default())
            .await?;
    Ok(kube::Client::try_from(config)?)
}

/// Waits until `client` answers `GET /api`.
async fn first_answer(client: &kube::Client) {
    loop {
        let req = http::Request::get("/api").body(Vec::new());
        if let Ok(req) = req
            && client.request_text(req).await.is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// A `kapi serve` process: start until its first answer, and its client.
async fn kapi_process(
    kapi: &Path,
    dir: &Path,
) -> Result<(std::process::Child, kube::Client, Duration), BoxError> {
    let started = Instant::now();
    let ready = dir.join("ready");
    let child = Command::new(kapi)
        .args(["serve", "--secure-port", "0", "--data-dir"])
        .arg(dir)
        .arg("--ready-file")
        .arg(&ready)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    while !ready.exists() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let client = client_for(&dir.join("kubeconfig")).await?;
    first_answer(&client).await;
    Ok((child, client, started.elapsed()))
}

fn stop(mut child: std::process::Child) {
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let _ = child.wait();
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let args = args()?;
    // Start-up: median of 10 of each.
    let mut in_process = Vec::new();
    let mut process = Vec::new();
    for _ in 0..10 {
        let t = Instant::now();
        let server = TestServer::start().await?;
        first_answer(&server.client()).await;
        in_process.push(t.elapsed());
        server.stop().await;
        let dir = tempfile::tempdir()?;
        let (child, _, took) = kapi_process(&args.kapi, dir.path()).await?;
        process.push(took);
        stop(child);
    }
    in_process.sort();
    process.sort();

    let t = Instant::now();
    let server = TestServer::start().await?;
    for i in 0..args.tests {
        one_test(&server.client(), i, args.objects).await?;
    }
    server.stop().await;
    let shared_in_process = t.elapsed();

    let t = Instant::now();
    let dir = tempfile::tempdir()?;
    let (child, client, _) = kapi_process(&args.kapi, dir.path()).await?;
    for i in 0..args.tests {
        one_test(&client, i, args.objects).await?;
    }
    stop(child);
    let shared_process = t.elapsed();

    let t = Instant::now();
    for i in 0..args.tests {
        let server = TestServer::start().await?;
        one_test(&server.client(), i, args.objects).await?;
        server.stop().await;
    }
    let fresh = t.elapsed();

    println!("| start until the first answer (median of 10) | time |");
    println!("|---|---|");
    println!(
        "| `TestServer::start()` in-process | {} |",
        ms(in_process[5])
    );
    println!("| `kapi serve` process | {} |", ms(process[5]));
    println!();
    println!(
        "| suite of {} tests ({} objects each) | wall time |",
        args.tests, args.objects
    );
    println!("|---|---|");
    println!(
        "| one in-process `TestServer` | {} |",
        ms(shared_in_process)
    );
    println!("| one `kapi serve` process | {} |", ms(shared_process));
    println!(
        "| a fresh in-process `TestServer` per test | {} |",
        ms(fresh)
    );
    Ok(())
}
