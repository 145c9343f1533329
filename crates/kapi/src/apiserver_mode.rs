//! `kapi` run as kube-apiserver is run (envtest's `TEST_ASSET_KUBE_APISERVER`, scripts
//! written for kube-apiserver): no subcommand, kube-apiserver's flags. The flags kapi
//! serves with are `kapi serve`'s (same names; `--disable-admission-plugins` among them,
//! which turns off StorageObjectInUseProtection and warns about the plugins kapi does not
//! run); any other kube-apiserver flag (`--allow-privileged`, `--feature-gates`, …) is
//! accepted and ignored with a warning, instead of the exit a strict parser would give. `--version`
//! prints `Kubernetes <gitVersion>` as kube-apiserver does.

use crate::serve::ServeArgs;
use clap::{CommandFactory, Parser};
use std::ffi::OsString;

/// `kapi` with kube-apiserver's command line.
#[derive(Parser)]
#[command(name = "kapi", disable_version_flag = true)]
struct ApiserverCli {
    #[command(flatten)]
    serve: ServeArgs,
}

/// Whether the command line is kube-apiserver's: its first argument is a flag other than
/// kapi's own `--help`/`--version` (which stay kapi's, listing its subcommands).
pub fn applies(args: &[OsString]) -> bool {
    args.get(1)
        .and_then(|a| a.to_str())
        .is_some_and(|a| a.starts_with('-') && !matches!(a, "-h" | "--help" | "-V"))
}

/// Whether the command line asks for the version (`--version`, `--version=raw`).
pub fn asks_version(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .any(|a| a == "--version" || a.starts_with("--version="))
}

/// The version line kube-apiserver prints.
pub fn version_line() -> String {
    format!("Kubernetes {}", kapi_server::health::git_version())
}

/// The long names of `kapi serve`'s flags.
fn known_flags() -> Vec<String> {
    ApiserverCli::command()
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_owned))
        .collect()
}

/// Splits the command line into what `kapi serve` parses and the flags it does not know
/// (each with its value), which are ignored. A flag's value is `--flag=value` or, for a
/// flag kapi does not know, the next argument unless that is a flag too.
fn split(args: &[OsString], known: &[String]) -> (Vec<OsString>, Vec<String>) {
    let mut kept = vec![args.first().cloned().unwrap_or_else(|| "kapi".into())];
    let mut ignored = Vec::new();
    let mut rest = args.iter().skip(1).peekable();
    while let Some(arg) = rest.next() {
        let Some(text) = arg.to_str() else {
            kept.push(arg.clone());
            continue;
        };
        let Some(flag) = text.strip_prefix("--").or_else(|| text.strip_prefix('-')) else {
            kept.push(arg.clone());
            continue;
        };
        let name = flag.split('=').next().unwrap_or_default();
        if known.iter().any(|k| k == name) || name == "help" {
            kept.push(arg.clone());
            continue;
        }
        let mut shown = text.to_owned();
        if !flag.contains('=')
            && let Some(value) = rest.next_if(|v| v.to_str().is_some_and(|v| !v.starts_with('-')))
        {
            shown = format!("{text} {}", value.to_string_lossy());
        }
        ignored.push(shown);
    }
    (kept, ignored)
}

/// Parses a kube-apiserver command line into `kapi serve`'s arguments (clap's error and
/// exit for a bad value of a flag kapi serves with).
pub fn parse(args: Vec<OsString>) -> ServeArgs {
    let (kept, ignored) = split(&args, &known_flags());
    let anonymous_given = kept
        .iter()
        .filter_map(|a| a.to_str())
        .any(|a| a == "--anonymous-auth" || a.starts_with("--anonymous-auth="));
    let mut serve = ApiserverCli::parse_from(kept).serve;
    // kube-apiserver's default (envtest probes /healthz without credentials); `kapi serve`
    // keeps anonymous requests out unless asked.
    if !anonymous_given {
        serve.anonymous_auth = true;
    }
    serve.apiserver_mode = true;
    serve.ignored_flags = ignored;
    serve
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn a_leading_flag_is_kube_apiservers_command_line() {
        assert!(applies(&os(&["kapi", "--secure-port=1"])));
        assert!(!applies(&os(&["kapi", "serve", "--secure-port=1"])));
        assert!(!applies(&os(&["kapi", "--help"])));
        assert!(!applies(&os(&["kapi"])));
    }

    #[test]
    fn flags_kapi_does_not_know_are_set_aside_with_their_values() {
        let known = known_flags();
        let (kept, ignored) = split(
            &os(&[
                "kapi",
                "--secure-port=6443",
                "--allow-privileged=true",
                "--feature-gates",
                "A=true,B=false",
                "--cert-dir",
                "/tmp/x",
                "-v=2",
                "--profiling",
                "--bind-address=127.0.0.1",
            ]),
            &known,
        );
        assert_eq!(
            kept,
            os(&[
                "kapi",
                "--secure-port=6443",
                "--cert-dir",
                "/tmp/x",
                "--bind-address=127.0.0.1"
            ])
        );
        assert_eq!(
            ignored,
            [
                "--allow-privileged=true",
                "--feature-gates A=true,B=false",
                "-v=2",
                "--profiling"
            ]
        );
    }

    #[test]
    fn envtests_command_line_parses_into_serve_arguments() {
        let args = parse(os(&[
            "kapi",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--allow-privileged=true",
            "--disable-admission-plugins=ServiceAccount",
            "--cert-dir=/tmp/envtest",
            "--authorization-mode=RBAC",
            "--secure-port=40000",
            "--bind-address=127.0.0.1",
            "--service-account-issuer=https://127.0.0.1:40000/",
            "--service-account-key-file=/tmp/envtest/sa-signer.crt",
            "--service-account-signing-key-file=/tmp/envtest/sa-signer.key",
            "--etcd-servers=http://127.0.0.1:40001",
            "--client-ca-file=/tmp/envtest/client-cert-auth-ca.crt",
        ]));
        assert!(args.apiserver_mode);
        assert_eq!(args.ignored_flags, ["--allow-privileged=true"]);
        assert_eq!(args.disable_admission_plugins, ["ServiceAccount"]);
    }

    #[test]
    fn version_asked_anywhere_is_seen() {
        assert!(asks_version(&os(&["kapi", "--secure-port=1", "--version"])));
        assert!(asks_version(&os(&["kapi", "--version=raw"])));
        assert!(!asks_version(&os(&["kapi", "--secure-port=1"])));
        assert!(version_line().starts_with("Kubernetes v1."));
    }
}
