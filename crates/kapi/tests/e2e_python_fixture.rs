//! The Python door (issue 17): `examples/python-pytest` — a pytest fixture that starts
//! `kapi serve --ready-file` per test and stops it by SIGTERM, and an operator's tests on the
//! official client — run by pytest against this build's kapi. `scripts/test.sh` installs
//! pytest and the client into the virtualenv named by `KAPI_E2E_PYTHON`.

use std::process::Command;

fn python() -> String {
    std::env::var("KAPI_E2E_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

#[tokio::test]
async fn the_example_pytest_fixture_runs_an_operators_tests_on_kapi() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/python-pytest");
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python())
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", dir])
            .env("KAPI_BIN", env!("CARGO_BIN_EXE_kapi"))
            .output()
            .expect("the Python interpreter runs (KAPI_E2E_PYTHON or python3)")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("4 passed"), "{stdout}");
}

#[tokio::test]
async fn serve_writes_the_ready_file_and_prints_the_kubeconfig_path() {
    let dir = tempfile::tempdir().unwrap();
    let ready = dir.path().join("ready");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kapi"))
        .args(["serve", "--secure-port", "0", "--data-dir"])
        .arg(dir.path())
        .arg("--ready-file")
        .arg(&ready)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut line).unwrap();
    let kubeconfig = std::fs::canonicalize(dir.path().join("kubeconfig")).unwrap();
    assert_eq!(line.trim(), kubeconfig.display().to_string());
    assert_eq!(std::fs::read_to_string(&ready).unwrap(), line);
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    assert!(child.wait().unwrap().success());
}
