//! `kapi storage-versions`: prints, per CRD, how many objects are stored at each version
//! (the `kapi.dev/v1alpha1` StorageVersionCount objects of a running server).

use clap::Args;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

/// Path of the StorageVersionCount collection.
pub const COUNTS: &str = "/apis/kapi.dev/v1alpha1/storageversions";

/// Arguments of `kapi storage-versions`.
#[derive(Args)]
pub struct StorageVersionsArgs {
    /// Kubeconfig; default `KUBECONFIG`, then `~/.kube/config`, as kubectl finds it.
    #[arg(long)]
    pub kubeconfig: Option<PathBuf>,
}

/// Errors of the client subcommands.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The kubeconfig could not be read.
    #[error("kubeconfig: {0}")]
    Kubeconfig(String),
    /// The request failed.
    #[error("request: {0}")]
    Request(#[from] kube::Error),
    /// Building a request failed.
    #[error("request: {0}")]
    Http(#[from] http::Error),
    /// No tokio runtime.
    #[error("runtime: {0}")]
    Runtime(#[from] std::io::Error),
    /// The migration failed.
    #[error("migration failed: {0}")]
    Failed(String),
    /// Bad arguments.
    #[error("{0}")]
    Usage(String),
}

/// A client from `--kubeconfig`, or inferred like kubectl (KUBECONFIG, ~/.kube/config).
pub async fn client(kubeconfig: Option<&PathBuf>) -> Result<kube::Client, ClientError> {
    let config = match kubeconfig {
        Some(path) => {
            let kc = kube::config::Kubeconfig::read_from(path)
                .map_err(|e| ClientError::Kubeconfig(e.to_string()))?;
            kube::Config::from_custom_kubeconfig(kc, &kube::config::KubeConfigOptions::default())
                .await
                .map_err(|e| ClientError::Kubeconfig(e.to_string()))?
        }
        None => kube::Config::infer()
            .await
            .map_err(|e| ClientError::Kubeconfig(e.to_string()))?,
    };
    Ok(kube::Client::try_from(config)?)
}

/// GETs `path` as JSON.
pub async fn get_json(client: &kube::Client, path: &str) -> Result<Value, ClientError> {
    let req = http::Request::get(path).body(Vec::new())?;
    Ok(client.request::<Value>(req).await?)
}

/// One row: name, storage version, `v=n,…`, total, objects not in the storage version.
pub fn row(obj: &Value) -> [String; 5] {
    let st = &obj["status"];
    let versions: Vec<String> = st["versions"]
        .as_array()
        .map(|vs| {
            vs.iter()
                .map(|v| format!("{}={}", v["version"].as_str().unwrap_or(""), v["objects"]))
                .collect()
        })
        .unwrap_or_default();
    [
        obj["metadata"]["name"].as_str().unwrap_or("").to_owned(),
        st["storageVersion"].as_str().unwrap_or("").to_owned(),
        versions.join(","),
        st["total"].to_string(),
        st["notInStorageVersion"].to_string(),
    ]
}

/// Prints rows under a header, columns padded.
pub fn print_table(rows: &[[String; 5]]) {
    let header = ["NAME", "STORAGE", "OBJECTS", "TOTAL", "TO-MIGRATE"].map(str::to_owned);
    let all: Vec<&[String; 5]> = std::iter::once(&header).chain(rows.iter()).collect();
    let widths: Vec<usize> = (0..5)
        .map(|i| all.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    for r in all {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", cells.join("   ").trim_end());
    }
}

async fn print_counts(args: StorageVersionsArgs) -> Result<(), ClientError> {
    let client = client(args.kubeconfig.as_ref()).await?;
    let list = get_json(&client, COUNTS).await?;
    let rows: Vec<[String; 5]> = list["items"]
        .as_array()
        .map(|items| items.iter().map(row).collect())
        .unwrap_or_default();
    print_table(&rows);
    Ok(())
}

/// Runs `kapi storage-versions`.
pub fn run(args: StorageVersionsArgs) -> ExitCode {
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ClientError::Runtime)
        .and_then(|rt| rt.block_on(print_counts(args)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
