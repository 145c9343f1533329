//! The example webhooks for Widget (`golden.example.com`, v1alpha1 `spec.label` ⇄
//! v1beta1 `spec.displayName`), served over HTTPS by one server: conversion at `/convert`,
//! admission at `/mutate` (defaults `spec.replicas`) and `/validate` (at most 5 replicas).
//!
//! `widget-webhook --cert-file tls.crt --key-file tls.key [--port 8443] [--bind 127.0.0.1]
//! [--delay-ms N]` prints `listening on ADDR` once it accepts connections (`--port 0` picks a
//! free port). `--delay-ms` holds every answer back N ms: a slow webhook, to
//! exercise timeouts and long migrations.

mod admission;
mod widget;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use kapi_webhook::service::WebhookRouter;
use kapi_webhook::{Converter, cli, service};
use std::path::PathBuf;
use std::process::ExitCode;

/// Command-line options.
struct Options {
    cert_file: PathBuf,
    key_file: PathBuf,
    bind: String,
    port: u16,
    delay: std::time::Duration,
}

const USAGE: &str = "usage: widget-webhook --cert-file FILE --key-file FILE [--port PORT] [--bind ADDR] [--delay-ms N]";

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let (mut cert, mut key, mut bind, mut port) = (None, None, "127.0.0.1".to_owned(), 8443);
    let mut delay = std::time::Duration::ZERO;
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--cert-file" => cert = Some(PathBuf::from(value()?)),
            "--key-file" => key = Some(PathBuf::from(value()?)),
            "--bind" => bind = value()?,
            "--port" => port = value()?.parse().map_err(|e| format!("--port: {e}"))?,
            "--delay-ms" => {
                let ms = value()?.parse().map_err(|e| format!("--delay-ms: {e}"))?;
                delay = std::time::Duration::from_millis(ms);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    match (cert, key) {
        (Some(cert_file), Some(key_file)) => Ok(Options {
            cert_file,
            key_file,
            bind,
            port,
            delay,
        }),
        _ => Err("--cert-file and --key-file are required".to_owned()),
    }
}

async fn run(options: Options) -> Result<(), String> {
    let scheme = widget::scheme().map_err(|e| e.to_string())?;
    let mut router = WebhookRouter::new()
        .conversion(service::DEFAULT_PATH, Converter::new(scheme))
        .mutating("/mutate", admission::mutate)
        .validating("/validate", admission::validate)
        .build();
    if !options.delay.is_zero() {
        let delay = options.delay;
        router = router.layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| async move {
                let response = next.run(req).await;
                tokio::time::sleep(delay).await;
                response
            },
        ));
    }
    cli::serve_until_interrupted(
        &options.bind,
        options.port,
        &options.cert_file,
        &options.key_file,
        router,
    )
    .await
}

fn main() -> ExitCode {
    cli::run_main("widget-webhook", USAGE, parse_args, run)
}
