//! The kapi binary: `kapi serve`, `kapi convert`, …

mod bench;
mod convert;
mod convert_cr;
mod migrate;
mod migrate_progress;
mod serve;
mod storage_versions;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// kapi: a Kubernetes-compatible API server and API machinery.
#[derive(Parser)]
#[command(name = "kapi", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the Kubernetes API over HTTPS.
    Serve(Box<serve::ServeArgs>),
    /// Convert built-in objects between API versions, offline.
    Convert(convert::ConvertArgs),
    /// Load any Kubernetes API server: create, get, update, list, watch fan-out.
    Bench(bench::BenchArgs),
    /// Print, per CRD, how many objects are stored at each version.
    StorageVersions(storage_versions::StorageVersionsArgs),
    /// Rewrite every object of RESOURCE.GROUP in its CRD's storage version.
    Migrate(migrate::MigrateArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(args) => serve::run(*args),
        Command::Convert(args) if args.crd.is_some() => convert_cr::run(&args),
        Command::Convert(args) => convert::run(args),
        Command::Bench(args) => bench::run(args),
        Command::StorageVersions(args) => storage_versions::run(args),
        Command::Migrate(args) => migrate::run(args),
    }
}
