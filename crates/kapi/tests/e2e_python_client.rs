//! The official Kubernetes Python client (`kubernetes` on PyPI) against kapi over HTTPS:
//! Deployments (defaults, strategic merge by container name, scale), Services (cluster
//! IP, a duplicate port refused), Roles and RoleBindings, Jobs, a watch and a delete, as
//! an operator written in Python (kopf, the official client) would use them. The script is
//! `e2e_python/builtin_kinds.py`; `scripts/test.sh` installs the client into a virtualenv
//! and names its interpreter in `KAPI_E2E_PYTHON` (else `python3`, which must have it).

mod e2e_support;

use e2e_support::Kapi;
use std::process::Command;

fn python() -> String {
    std::env::var("KAPI_E2E_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

#[tokio::test]
async fn the_python_client_creates_reads_patches_watches_and_deletes_builtin_kinds() {
    let kapi = Kapi::start().await;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/e2e_python/builtin_kinds.py"
    );
    let kubeconfig = kapi.kubeconfig();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python())
            .arg(script)
            .arg(kubeconfig)
            .output()
            .expect("the Python interpreter runs (KAPI_E2E_PYTHON or python3)")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the Python client failed after:\n{stdout}\n{stderr}\nkapi's log:\n{}",
        kapi.log()
    );
    assert_eq!(stdout.lines().last(), Some("ok"), "{stdout}");
}
