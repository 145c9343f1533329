//! `kapi serve`: start the API server.

use std::process::ExitCode;

/// Flags of `kapi serve`, named as kube-apiserver names them.
#[derive(clap::Args)]
pub struct ServeArgs {}

/// Runs the server until SIGTERM.
pub fn run(_args: ServeArgs) -> ExitCode {
    eprintln!("kapi serve: not built yet");
    ExitCode::FAILURE
}
