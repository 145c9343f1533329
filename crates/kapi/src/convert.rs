//! `kapi convert`: offline conversion of built-in objects between versions.

use std::process::ExitCode;

/// Flags of `kapi convert`.
#[derive(clap::Args)]
pub struct ConvertArgs {}

/// Converts the input documents and prints them.
pub fn run(_args: ConvertArgs) -> ExitCode {
    eprintln!("kapi convert: not built yet");
    ExitCode::FAILURE
}
