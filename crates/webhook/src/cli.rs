//! What a webhook binary's `main` needs: logging to stderr (`RUST_LOG`), argument errors
//! with the usage (exit 2), a tokio runtime, and serving a router over HTTPS from
//! certificate files on an address until Ctrl-C, announcing `listening on ADDR` on stdout
//! (what tests and scripts wait for). Used by `widget-webhook` and `rules-webhook`.

use axum::Router;
use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;

/// Runs a webhook binary: `parse` reads the arguments (an error is printed with `usage`,
/// exit 2), then `serve` runs to its end on a tokio runtime (an error is printed after
/// `name`, exit 1).
pub fn run_main<O, F, Fut>(
    name: &str,
    usage: &str,
    parse: impl FnOnce(std::env::Args) -> Result<O, String>,
    serve: F,
) -> ExitCode
where
    F: FnOnce(O) -> Fut,
    Fut: Future<Output = Result<(), String>>,
{
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let mut args = std::env::args();
    args.next();
    let options = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\n{usage}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Serves `router` over HTTPS with the PEM files on `bind:port` until Ctrl-C, printing
/// `listening on ADDR` once connections are accepted.
pub async fn serve_until_interrupted(
    bind: &str,
    port: u16,
    cert_file: &Path,
    key_file: &Path,
    router: Router,
) -> Result<(), String> {
    crate::tls::install_crypto_provider();
    let config = crate::tls::load_server_config(cert_file, key_file).map_err(|e| e.to_string())?;
    let addr: SocketAddr = format!("{bind}:{port}")
        .parse()
        .map_err(|e| format!("--bind/--port: {e}"))?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("bind {addr}: {e}"))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    println!("listening on {local}");
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    crate::tls::serve_tls(listener, config, router, shutdown).await;
    Ok(())
}
