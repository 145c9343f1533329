//! `kapi migrate RESOURCE.GROUP`: creates a StorageVersionMigration on a running server and
//! follows it with a progress bar (log lines when not on a terminal) until Succeeded (exit 0)
//! or Failed (exit 1); `--dry-run` prints the per-version counts and what would be rewritten.
//! A CRD converted by declarative rules that would lose fields of stored objects is not
//! migrated without `--allow-data-loss` ([`crate::migrate_check`]).

use crate::migrate_progress::MigrationProgress;
use crate::storage_versions::{COUNTS, ClientError, client, get_json, print_table, row};
use clap::Args;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const MIGRATIONS: &str = "/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations";

/// Arguments of `kapi migrate`.
#[derive(Args)]
pub struct MigrateArgs {
    /// The resource to migrate, `RESOURCE.GROUP` (e.g. `widgets.example.com`).
    pub resource: String,
    /// Kubeconfig; default `KUBECONFIG`, then `~/.kube/config`, as kubectl finds it.
    #[arg(long)]
    pub kubeconfig: Option<PathBuf>,
    /// Print the per-version counts and what would be rewritten; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Migrate even when the CRD's declarative conversion rules lose fields of stored
    /// objects going into the storage version.
    #[arg(long)]
    pub allow_data_loss: bool,
}

/// (total, not in storage version) of a StorageVersionCount.
fn progress(counts: &Value) -> (u64, u64) {
    let st = &counts["status"];
    (
        st["total"].as_u64().unwrap_or(0),
        st["notInStorageVersion"].as_u64().unwrap_or(0),
    )
}

fn dry_run(counts: &Value) {
    print_table(&[row(counts)]);
    let (_, todo) = progress(counts);
    let storage = counts["status"]["storageVersion"].as_str().unwrap_or("");
    println!("would rewrite {todo} objects into {storage}; nothing changed (dry run)");
}

/// The terminal condition (`Succeeded`/`Failed`) and its message, if any.
fn terminal(migration: &Value) -> Option<(String, String)> {
    migration["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["status"] == "True" && c["type"] != "Running")
        .map(|c| {
            (
                c["type"].as_str().unwrap_or("").to_owned(),
                c["message"].as_str().unwrap_or("").to_owned(),
            )
        })
}

async fn migrate(args: MigrateArgs) -> Result<(), ClientError> {
    let (resource, group) = args
        .resource
        .split_once('.')
        .ok_or_else(|| ClientError::Usage("expected RESOURCE.GROUP".into()))?;
    let client = client(args.kubeconfig.as_ref()).await?;
    let counts_path = format!("{COUNTS}/{}", args.resource);
    let counts = get_json(&client, &counts_path).await?;
    let losses = crate::migrate_check::rules_losses(&client, resource, group).await?;
    if !losses.is_empty() {
        for line in &losses {
            eprintln!("{line}");
        }
        if !args.allow_data_loss && !args.dry_run {
            return Err(ClientError::Failed(format!(
                "the conversion rules lose {} field(s) of stored objects going into the storage version; nothing was migrated (--allow-data-loss migrates anyway)",
                losses.len()
            )));
        }
        eprintln!("migrating anyway (--allow-data-loss)");
    }
    if args.dry_run {
        dry_run(&counts);
        return Ok(());
    }
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let name = format!("{}-{secs}", args.resource);
    let body = json!({
        "apiVersion": "storagemigration.k8s.io/v1beta1",
        "kind": "StorageVersionMigration",
        "metadata": {"name": name},
        "spec": {"resource": {"group": group, "resource": resource}},
    });
    let req = http::Request::post(MIGRATIONS)
        .header("content-type", "application/json")
        .body(serde_json::to_vec(&body).unwrap_or_default())?;
    client.request::<Value>(req).await?;
    eprintln!("created storageversionmigration {name}");
    follow(&client, &name, &counts_path, progress(&counts).1).await
}

async fn follow(
    client: &kube::Client,
    name: &str,
    counts_path: &str,
    todo: u64,
) -> Result<(), ClientError> {
    let mut view = MigrationProgress::for_stderr(todo);
    loop {
        let migration = get_json(client, &format!("{MIGRATIONS}/{name}")).await?;
        let (_, left) = progress(&get_json(client, counts_path).await?);
        match terminal(&migration) {
            Some((kind, _)) if kind == "Succeeded" => {
                view.update(todo, todo);
                view.finish(&format!("storageversionmigration {name} succeeded"));
                return Ok(());
            }
            Some((_, message)) => {
                view.finish(&format!("storageversionmigration {name} failed"));
                return Err(ClientError::Failed(message));
            }
            None => {
                view.update(todo.saturating_sub(left), todo);
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
        }
    }
}

/// Runs `kapi migrate`.
pub fn run(args: MigrateArgs) -> ExitCode {
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ClientError::Runtime)
        .and_then(|rt| rt.block_on(migrate(args)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
