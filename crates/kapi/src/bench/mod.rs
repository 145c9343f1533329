//! `kapi bench`: a load tool for any Kubernetes API server (kapi or kube-apiserver), using
//! only standard API calls on ConfigMaps in namespaces it creates and deletes: create, get,
//! update; lists of namespaces holding 1 000 and 10 000 objects (JSON and protobuf, full and
//! paged); watch fan-out. With `--custom-resource` also the same create/get/update and JSON
//! list phases on a CRD's custom resources (rows suffixed ` benchwidgets`); with
//! `--workloads` the same on Pods and Deployments with a 4 KiB pod spec (rows suffixed
//! ` pods` and ` deployments`).
//! Prints a Markdown table, optionally writes JSON. Given two kubeconfigs, runs every phase
//! against each server in turn and prints one table with both (and their ratio). The CPU
//! time the server process spends per operation is reported when it runs on this machine.

mod cascade;
mod client;
mod crud;
mod custom;
mod list;
mod report;
mod server_cpu;
mod watch;
mod workload;

use clap::Args;
use client::ApiClient;
use http::Method;
use report::Row;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Errors of the load tool.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The kubeconfig could not be read or used.
    #[error("kubeconfig: {0}")]
    Kubeconfig(String),
    /// A request could not be sent or its answer read.
    #[error("request: {0}")]
    Request(String),
    /// The JSON report could not be written.
    #[error("writing {0}: {1}")]
    Write(PathBuf, std::io::Error),
    /// The tokio runtime could not start.
    #[error("runtime: {0}")]
    Runtime(std::io::Error),
}

/// Flags of `kapi bench`.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Kubeconfig of the API server to load (current context; token or client certificate).
    /// Given twice, both servers are measured in turn and compared in one table.
    #[arg(long, required = true, num_args = 1)]
    pub kubeconfig: Vec<PathBuf>,
    /// Process id of each server (in the order of the kubeconfigs) whose CPU time to
    /// report; by default the process listening on a loopback server URL's port is found.
    #[arg(long, value_delimiter = ',')]
    pub server_pid: Vec<u32>,
    /// Creates, gets and updates per concurrency level.
    #[arg(long, default_value_t = 2000)]
    pub ops: usize,
    /// Concurrency levels (requests in flight).
    #[arg(long, value_delimiter = ',', default_value = "1,16")]
    pub concurrency: Vec<usize>,
    /// Namespace sizes to list.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000")]
    pub list_sizes: Vec<usize>,
    /// Lists per (size, format, paging, concurrency).
    #[arg(long, default_value_t = 32)]
    pub list_repeats: usize,
    /// Page size (`limit`) of the paged lists.
    #[arg(long, default_value_t = 500)]
    pub page_size: usize,
    /// Watcher counts of the fan-out phases (one writer each).
    #[arg(long, value_delimiter = ',', default_value = "1,16,100")]
    pub watchers: Vec<usize>,
    /// Objects the writer creates in each fan-out phase.
    #[arg(long, default_value_t = 1000)]
    pub watch_events: usize,
    /// Independent HTTPS connection pools (each HTTP/2 multiplexed when offered).
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// Speak HTTP/1.1 only (one connection per request in flight).
    #[arg(long)]
    pub http1: bool,
    /// Write the rows as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Keep the benchmark namespaces instead of deleting them.
    #[arg(long)]
    pub keep: bool,
    /// Also measure custom resources: create (and afterwards delete, unless --keep) the CRD
    /// `benchwidgets.bench.kapi.dev` and run the create/get/update and JSON list phases on them.
    #[arg(long)]
    pub custom_resource: bool,
    /// Also measure Pods and Deployments with a 4 KiB pod spec: create, get and update
    /// (`--ops` each per concurrency) and JSON and protobuf lists of `--workload-list-sizes`.
    #[arg(long)]
    pub workloads: bool,
    /// Namespace sizes of the workload lists (Pods and Deployments each).
    #[arg(long, value_delimiter = ',', default_value = "1000")]
    pub workload_list_sizes: Vec<usize>,
    /// Dependents of the cascading-delete phases (an owner ConfigMap with this many
    /// dependents, deleted Background and Foreground; timed until all are gone); 0 skips them.
    #[arg(long, default_value_t = 0)]
    pub cascade_dependents: usize,
    /// Prefix of the namespaces created (`<prefix>-ops`, `<prefix>-list-N`, `<prefix>-watch`).
    #[arg(long, default_value = "kapi-bench")]
    pub namespace_prefix: String,
}

/// Runs `kapi bench`.
pub fn run(args: BenchArgs) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .try_init();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(BenchError::Runtime)
        .and_then(|rt| rt.block_on(bench(args)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kapi bench: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn bench(args: BenchArgs) -> Result<(), BenchError> {
    if args.kubeconfig.len() > 2 {
        return Err(BenchError::Kubeconfig(
            "at most two kubeconfigs can be compared".into(),
        ));
    }
    let mut runs = Vec::new();
    for (i, kubeconfig) in args.kubeconfig.iter().enumerate() {
        let client =
            Arc::new(ApiClient::from_kubeconfig(kubeconfig, args.connections, args.http1).await?);
        let pid = args
            .server_pid
            .get(i)
            .copied()
            .or_else(|| server_cpu::local_server_pid(client.base()));
        server_cpu::follow(pid);
        let rows = bench_server(&client, &args).await?;
        runs.push(report::Run {
            kubeconfig: kubeconfig.display().to_string(),
            server: client.base().to_owned(),
            server_pid: pid,
            server_rss_mib: pid.and_then(server_cpu::rss_mib),
            rows,
        });
    }
    server_cpu::follow(None);
    let json = match runs.as_slice() {
        [one] => {
            print!("{}", report::markdown(&one.rows));
            if let Some(rss) = one.server_rss_mib {
                println!("\nserver RSS after the run: {rss:.0} MiB");
            }
            serde_json::to_vec_pretty(&one.rows)
        }
        _ => {
            print!("{}", report::comparison(&runs));
            serde_json::to_vec_pretty(&runs)
        }
    };
    if let Some(path) = &args.json {
        std::fs::write(path, json.unwrap_or_default())
            .map_err(|e| BenchError::Write(path.clone(), e))?;
    }
    Ok(())
}

/// Every phase against one server; returns its rows.
async fn bench_server(client: &Arc<ApiClient>, args: &BenchArgs) -> Result<Vec<Row>, BenchError> {
    let client = client.clone();
    let prefix = &args.namespace_prefix;
    let mut rows: Vec<Row> = Vec::new();
    let ops_ns = format!("{prefix}-ops");
    create_namespace(&client, &ops_ns).await?;
    for &c in &args.concurrency {
        rows.extend(crud::crud_rows(&client, &ops_ns, args.ops, c).await);
    }
    let mut namespaces = vec![ops_ns];
    if args.custom_resource {
        custom::ensure_crd(&client).await?;
        namespaces.extend(custom_rows(&client, args, &mut rows).await?);
    }
    if args.workloads {
        namespaces.extend(workload_rows(&client, args, &mut rows).await?);
    }
    for &size in &args.list_sizes {
        let ns = format!("{prefix}-list-{size}");
        create_namespace(&client, &ns).await?;
        let failed = list::fill(&client, &ns, size).await;
        if failed > 0 {
            tracing::warn!(failed, size, "some list objects were not created");
        }
        rows.extend(
            list::list_rows(
                &client,
                &ns,
                size,
                &args.concurrency,
                args.list_repeats,
                args.page_size,
            )
            .await,
        );
        namespaces.push(ns);
    }
    let watch_ns = format!("{prefix}-watch");
    create_namespace(&client, &watch_ns).await?;
    for &w in &args.watchers {
        rows.push(watch::fan_out(&client, &watch_ns, w, args.watch_events).await);
    }
    namespaces.push(watch_ns);
    if args.cascade_dependents > 0 {
        let ns = format!("{prefix}-cascade");
        create_namespace(&client, &ns).await?;
        rows.extend(cascade::cascade_rows(&client, &ns, args.cascade_dependents).await);
        namespaces.push(ns);
    }
    if !args.keep {
        if args.custom_resource {
            custom::delete_crd(&client).await?;
        }
        for ns in &namespaces {
            let path = format!("/api/v1/namespaces/{ns}");
            client
                .send(Method::DELETE, &path, "application/json", None)
                .await?;
        }
    }
    Ok(rows)
}

/// The custom-resource phases (the CRD already Established); returns the namespaces made.
async fn custom_rows(
    client: &ApiClient,
    args: &BenchArgs,
    rows: &mut Vec<Row>,
) -> Result<Vec<String>, BenchError> {
    let prefix = &args.namespace_prefix;
    let ops_ns = format!("{prefix}-cr-ops");
    create_namespace(client, &ops_ns).await?;
    for &c in &args.concurrency {
        rows.extend(custom::crud_rows(client, &ops_ns, args.ops, c).await);
    }
    let mut namespaces = vec![ops_ns];
    for &size in &args.list_sizes {
        let ns = format!("{prefix}-cr-list-{size}");
        create_namespace(client, &ns).await?;
        let (c, r, p) = (&args.concurrency, args.list_repeats, args.page_size);
        rows.extend(custom::list_rows(client, &ns, size, c, r, p).await);
        namespaces.push(ns);
    }
    Ok(namespaces)
}

/// The workload phases; returns the namespaces made.
async fn workload_rows(
    client: &ApiClient,
    args: &BenchArgs,
    rows: &mut Vec<Row>,
) -> Result<Vec<String>, BenchError> {
    let prefix = &args.namespace_prefix;
    let ops_ns = format!("{prefix}-wl-ops");
    create_namespace(client, &ops_ns).await?;
    workload::ensure_service_account(client, &ops_ns).await?;
    for kind in workload::KINDS {
        for &c in &args.concurrency {
            rows.extend(workload::crud_rows(client, kind, &ops_ns, args.ops, c).await);
        }
    }
    let mut namespaces = vec![ops_ns];
    for &size in &args.workload_list_sizes {
        let ns = format!("{prefix}-wl-list-{size}");
        create_namespace(client, &ns).await?;
        workload::ensure_service_account(client, &ns).await?;
        for kind in workload::KINDS {
            let (c, r) = (&args.concurrency, args.list_repeats);
            rows.extend(workload::list_rows(client, kind, &ns, size, c, r).await);
        }
        namespaces.push(ns);
    }
    Ok(namespaces)
}

/// Creates a namespace; an existing one is fine.
async fn create_namespace(client: &ApiClient, name: &str) -> Result<(), BenchError> {
    let body =
        format!(r#"{{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{name}"}}}}"#);
    let reply = client
        .send(
            Method::POST,
            "/api/v1/namespaces",
            "application/json",
            Some(body.into_bytes()),
        )
        .await?;
    if reply.status.is_success() || reply.status == http::StatusCode::CONFLICT {
        Ok(())
    } else {
        Err(BenchError::Request(format!(
            "creating namespace {name}: {} {}",
            reply.status,
            String::from_utf8_lossy(&reply.body)
        )))
    }
}
