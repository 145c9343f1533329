//! `kapi bench` with small counts against a started `kapi serve`: every row is present in
//! the JSON report with operations counted and no errors.

mod e2e_support;

use e2e_support::Kapi;
use std::process::Command;

/// Operations the report must contain, each at concurrency 1 and 2 (watchers 1 and 2).
const EXPECTED: [&str; 12] = [
    "create",
    "get",
    "update",
    "list 30 json",
    "list 30 json paged 50",
    "list 30 protobuf",
    "list 30 protobuf paged 50",
    "list 120 json",
    "list 120 json paged 50",
    "list 120 protobuf",
    "list 120 protobuf paged 50",
    "watch fan-out 5 events",
];

/// Runs `kapi bench` against `kapi` with `args` and `--json`; asserts it succeeded and
/// returns its stdout and the JSON rows.
fn run_bench(kapi: &Kapi, args: &[&str]) -> (String, Vec<serde_json::Value>) {
    run_bench_on(&[kapi], args)
}

/// Runs `kapi bench` against every server of `kapis` (one `--kubeconfig` each) with `args`
/// and `--json`; asserts it succeeded and returns its stdout and the JSON report's entries.
fn run_bench_on(kapis: &[&Kapi], args: &[&str]) -> (String, Vec<serde_json::Value>) {
    let report = kapis[0].dir.path().join("bench.json");
    let mut bench = Command::new(env!("CARGO_BIN_EXE_kapi"));
    bench.arg("bench");
    for kapi in kapis {
        bench.arg("--kubeconfig").arg(kapi.kubeconfig());
    }
    let out = bench
        .args(args)
        .arg("--json")
        .arg(&report)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let entries = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    (stdout, entries)
}

/// The row of `op` at concurrency `c`.
fn row<'a>(rows: &'a [serde_json::Value], op: &str, c: u64) -> &'a serde_json::Value {
    rows.iter()
        .find(|r| r["operation"] == op && r["concurrency"] == c)
        .unwrap_or_else(|| panic!("no row {op} at {c}: {rows:?}"))
}

#[tokio::test]
async fn kapi_bench_reports_every_row_with_nonzero_counts() {
    let kapi = Kapi::start_process().await;
    let (stdout, rows) = run_bench(
        &kapi,
        &[
            "--ops",
            "20",
            "--concurrency",
            "1,2",
            "--list-sizes",
            "30,120",
            "--list-repeats",
            "3",
            "--page-size",
            "50",
            "--watchers",
            "1,2",
            "--watch-events",
            "5",
        ],
    );
    assert!(
        stdout.starts_with("| operation | concurrency |"),
        "{stdout}"
    );
    for op in EXPECTED {
        for c in [1, 2] {
            let row = row(&rows, op, c);
            assert!(row["count"].as_u64().unwrap() > 0, "{row}");
            assert_eq!(row["errors"], 0, "{row}");
            assert!(row["ops_per_second"].as_f64().unwrap() > 0.0, "{row}");
            // kapi runs on this machine: its CPU time per operation is reported (issue 19).
            assert!(row["server_cpu_ms_per_op"].as_f64().is_some(), "{row}");
            // And the load tool's own, since it shares the cores (issue 19).
            assert!(row["bench_cpu_ms_per_op"].as_f64().is_some(), "{row}");
        }
    }
}

/// Given two kubeconfigs, `kapi bench` measures both servers in turn and prints one table
/// with both and their ratio; the JSON report holds each server's rows, with the process
/// found listening on each loopback port (issue 19).
#[tokio::test]
async fn kapi_bench_given_two_kubeconfigs_compares_both_servers_in_one_table() {
    let a = Kapi::start_process().await;
    let b = Kapi::start_process().await;
    let (stdout, runs) = run_bench_on(
        &[&a, &b],
        &[
            "--ops",
            "10",
            "--concurrency",
            "1",
            "--list-sizes",
            "20",
            "--list-repeats",
            "2",
            "--page-size",
            "10",
            "--watchers",
            "1",
            "--watch-events",
            "3",
        ],
    );
    assert!(stdout.starts_with(&format!("A: {}", a.url)), "{stdout}");
    assert!(stdout.contains(&format!("B: {}", b.url)), "{stdout}");
    assert!(
        stdout.contains("| operation | conc. | A ops/s |"),
        "{stdout}"
    );
    let create = stdout
        .lines()
        .find(|l| l.starts_with("| create | 1 |"))
        .unwrap_or_else(|| panic!("no create row: {stdout}"));
    assert!(create.trim_end().ends_with("× |"), "{create}");
    assert_eq!(runs.len(), 2);
    for (run, kapi) in runs.iter().zip([&a, &b]) {
        assert_eq!(run["server"], kapi.url.as_str(), "{run}");
        assert_eq!(run["server_pid"], kapi.pid(), "{run}");
        let rows = run["rows"].as_array().unwrap();
        let create = row(rows, "create", 1);
        assert_eq!(create["count"], 10, "{create}");
        assert_eq!(create["errors"], 0, "{create}");
    }
}

#[tokio::test]
async fn kapi_bench_delivers_every_event_to_every_watcher() {
    let kapi = Kapi::start_process().await;
    let (_, rows) = run_bench(
        &kapi,
        &[
            "--ops",
            "1",
            "--concurrency",
            "1",
            "--list-sizes",
            "1",
            "--list-repeats",
            "1",
            "--watchers",
            "3",
            "--watch-events",
            "7",
        ],
    );
    let watch = rows
        .iter()
        .find(|r| r["operation"] == "watch fan-out 7 events")
        .unwrap();
    assert_eq!(watch["count"], 21, "{watch}");
}

/// Rows of the custom-resource mode, each at concurrency 1 and 2.
const CUSTOM: [&str; 5] = [
    "create benchwidgets",
    "get benchwidgets",
    "update benchwidgets",
    "list 25 json benchwidgets",
    "list 25 json paged 10 benchwidgets",
];

#[tokio::test]
async fn kapi_bench_custom_resource_mode_reports_benchwidget_rows_without_errors() {
    let kapi = Kapi::start_process().await;
    let (_, rows) = run_bench(
        &kapi,
        &[
            "--custom-resource",
            "--ops",
            "10",
            "--concurrency",
            "1,2",
            "--list-sizes",
            "25",
            "--list-repeats",
            "2",
            "--page-size",
            "10",
            "--watchers",
            "1",
            "--watch-events",
            "2",
        ],
    );
    for op in CUSTOM.iter().chain(&["create", "get"]) {
        for c in [1, 2] {
            let row = row(&rows, op, c);
            assert!(row["count"].as_u64().unwrap() > 0, "{row}");
            assert_eq!(row["errors"], 0, "{row}");
        }
    }
}

/// Rows of the workload mode, each at concurrency 1 and 2.
const WORKLOADS: [&str; 10] = [
    "create pods",
    "get pods",
    "update pods",
    "list 15 json pods",
    "list 15 protobuf pods",
    "create deployments",
    "get deployments",
    "update deployments",
    "list 15 json deployments",
    "list 15 protobuf deployments",
];

#[tokio::test]
async fn kapi_bench_workload_mode_reports_pod_and_deployment_rows_without_errors() {
    let kapi = Kapi::start_process().await;
    let (_, rows) = run_bench(
        &kapi,
        &[
            "--workloads",
            "--workload-list-sizes",
            "15",
            "--ops",
            "8",
            "--concurrency",
            "1,2",
            "--list-sizes",
            "1",
            "--list-repeats",
            "2",
            "--watchers",
            "1",
            "--watch-events",
            "1",
        ],
    );
    for op in WORKLOADS {
        for c in [1, 2] {
            let row = row(&rows, op, c);
            assert!(row["count"].as_u64().unwrap() > 0, "{row}");
            assert_eq!(row["errors"], 0, "{row}");
        }
    }
}

#[tokio::test]
async fn kapi_bench_times_background_and_foreground_cascades_until_all_is_gone() {
    let kapi = Kapi::start_process().await;
    let (_, rows) = run_bench(
        &kapi,
        &[
            "--ops",
            "1",
            "--concurrency",
            "1",
            "--list-sizes",
            "1",
            "--list-repeats",
            "1",
            "--watchers",
            "1",
            "--watch-events",
            "1",
            "--cascade-dependents",
            "40",
            "--keep",
        ],
    );
    for policy in ["background", "foreground"] {
        let row = row(
            &rows,
            &format!("cascade delete 40 dependents ({policy})"),
            1,
        );
        assert_eq!(row["errors"], 0, "{row}");
        assert_eq!(row["count"], 1, "{row}");
    }
    // Timed until nothing was left: the namespace holds no ConfigMap of either cascade.
    let left = kapi.kubectl_ok(&[
        "get",
        "configmaps",
        "-n",
        "kapi-bench-cascade",
        "-l",
        "cascade",
        "-o",
        "name",
    ]);
    assert_eq!(left.trim(), "", "{left}");
}
