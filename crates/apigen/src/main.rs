//! kapi-apigen: generates kapi-api's built-in kinds from upstream's Go API definitions,
//! vendored in `crates/apigen/upstream/k8s-1.36.2/` (see its PROVENANCE).
//!
//! `cargo run -p kapi-apigen` writes `crates/api/src/<group>/<version>/types.rs` for
//! every package and the registry's resource table (`crates/registry/src/builtin/
//! resources.rs`, from the 1.36.2 discovery golden); `--check` fails when a checked-in
//! file differs from what it would write.

mod emit;
mod go;
mod model;
mod openapi;
mod packages;
mod resources;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let upstream = root.join("upstream/k8s-1.36.2");
    let api_src = root.join("../api/src");
    let pkgs = match model::load(&upstream) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("apigen: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stale = Vec::new();
    let mut outputs: Vec<(PathBuf, Result<String, String>)> = Vec::new();
    let discovery = root.join("../../testdata/golden/discovery-1.36.json");
    outputs.push((
        root.join("../registry/src/builtin/resources.rs"),
        std::fs::read_to_string(&discovery)
            .map_err(|e| format!("{}: {e}", discovery.display()))
            .and_then(|d| resources::emit(&d)),
    ));
    outputs.push((api_src.join("openapi_models.rs"), openapi::emit(&upstream)));
    for r in &pkgs {
        let dir = api_src.join(r.package.module.replace("::", "/"));
        outputs.push((
            dir.join("types.rs"),
            emit::emit_package(r).map_err(|e| format!("{}: {e}", r.package.dir)),
        ));
    }
    for (path, text) in outputs {
        let text = match text.and_then(|t| rustfmt(&t).map_err(|e| format!("rustfmt: {e}"))) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("apigen: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        };
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == text {
            continue;
        }
        if check {
            stale.push(path.display().to_string());
            continue;
        }
        let dir = path.parent().map(PathBuf::from).unwrap_or_default();
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text)) {
            eprintln!("apigen: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    if !stale.is_empty() {
        eprintln!(
            "apigen: generated files are stale (run `cargo run -p kapi-apigen`):\n  {}",
            stale.join("\n  ")
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Formats generated code as `cargo fmt` would, so the checked-in files pass its check.
fn rustfmt(text: &str) -> std::io::Result<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("no stdin"))?;
    let input = text.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output()?;
    writer
        .join()
        .map_err(|_| std::io::Error::other("rustfmt writer panicked"))??;
    if !out.status.success() {
        return Err(std::io::Error::other(
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ));
    }
    String::from_utf8(out.stdout).map_err(std::io::Error::other)
}
