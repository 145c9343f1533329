//! The conversion webhook of a CRD's declarative rules: what kapi does in-process, served to
//! any cluster. `rules-webhook --crd crd.yaml --cert-file tls.crt --key-file tls.key
//! [--port 8443] [--bind 127.0.0.1]` reads the rules from the CRD's
//! `conversion.kapi.dev/rules` annotation (or `--rules FILE`), serves ConversionReviews at
//! `/convert` and prints `listening on ADDR` once it accepts connections.

use kapi_conversion::Rules;
use kapi_webhook::service::WebhookRouter;
use kapi_webhook::{Converter, cli, service};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: rules-webhook (--crd FILE | --rules FILE) --cert-file FILE --key-file FILE [--port PORT] [--bind ADDR]";

struct Options {
    rules: Rules,
    cert_file: PathBuf,
    key_file: PathBuf,
    bind: String,
    port: u16,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let (mut rules, mut cert, mut key) = (None, None, None);
    let (mut bind, mut port) = ("127.0.0.1".to_owned(), 8443);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--crd" | "--rules" => {
                let path = value()?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
                let parsed = if flag == "--crd" {
                    Rules::from_crd_manifest(&text)
                } else {
                    Rules::parse(&text)
                };
                rules = Some(parsed.map_err(|e| format!("{path}: {e}"))?);
            }
            "--cert-file" => cert = Some(PathBuf::from(value()?)),
            "--key-file" => key = Some(PathBuf::from(value()?)),
            "--bind" => bind = value()?,
            "--port" => port = value()?.parse().map_err(|e| format!("--port: {e}"))?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    match (rules, cert, key) {
        (Some(rules), Some(cert_file), Some(key_file)) => Ok(Options {
            rules,
            cert_file,
            key_file,
            bind,
            port,
        }),
        _ => Err("--crd or --rules, --cert-file and --key-file are required".to_owned()),
    }
}

async fn run(options: Options) -> Result<(), String> {
    let router = WebhookRouter::new()
        .conversion(service::DEFAULT_PATH, Converter::from_rules(options.rules))
        .build();
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
    cli::run_main("rules-webhook", USAGE, parse_args, run)
}
