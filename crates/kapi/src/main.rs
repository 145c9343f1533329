//! The kapi binary: `kapi serve`, `kapi convert`, …, and kube-apiserver's command line
//! without a subcommand (envtest).

mod apiserver_mode;
mod bench;
mod convert;
mod convert_cr;
mod migrate;
mod migrate_check;
mod migrate_progress;
mod serve;
mod storage_versions;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// kapi: a Kubernetes-compatible API server and API machinery.
///
/// Without a subcommand, kapi takes kube-apiserver's command line (as envtest runs it):
/// `kapi serve`'s flags, other kube-apiserver flags ignored with a warning, and
/// `--version` printing `Kubernetes <version>`.
#[derive(Parser)]
#[command(name = "kapi", disable_version_flag = true, about)]
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
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if apiserver_mode::asks_version(&args) {
        println!("{}", apiserver_mode::version_line());
        return ExitCode::SUCCESS;
    }
    if apiserver_mode::applies(&args) {
        return serve::run(apiserver_mode::parse(args));
    }
    let cli = Cli::parse_from(args);
    match cli.command {
        Command::Serve(args) => serve::run(*args),
        Command::Convert(args) if args.crd.is_some() => convert_cr::run(&args),
        Command::Convert(args) => convert::run(args),
        Command::Bench(args) => bench::run(args),
        Command::StorageVersions(args) => storage_versions::run(args),
        Command::Migrate(args) => migrate::run(args),
    }
}
