//! Measured rows: latency percentiles, throughput, the Markdown table and the JSON report.

use serde::Serialize;
use std::time::Duration;

/// One measured operation at one concurrency.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// What was measured, e.g. `create`, `list 1000 protobuf paged 500`, `watch fan-out`.
    pub operation: String,
    /// Requests in flight at once (for watch fan-out: the number of watchers).
    pub concurrency: usize,
    /// Successful operations (for watch fan-out: events delivered to all watchers).
    pub count: usize,
    /// Failed operations (transport errors or unexpected statuses).
    pub errors: usize,
    /// Wall-clock seconds of the whole phase.
    pub seconds: f64,
    /// `count / seconds`.
    pub ops_per_second: f64,
    /// Median latency in milliseconds.
    pub p50_ms: f64,
    /// 99th percentile latency in milliseconds.
    pub p99_ms: f64,
    /// Milliseconds of CPU time (user + system) the server process used per successful
    /// operation during the phase, when the server runs on this machine.
    pub server_cpu_ms_per_op: Option<f64>,
    /// Milliseconds of CPU time the load tool itself used per successful operation during
    /// the phase (it shares the cores with a local server).
    pub bench_cpu_ms_per_op: Option<f64>,
}

/// The rows of one server.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// The kubeconfig used.
    pub kubeconfig: String,
    /// The server's URL.
    pub server: String,
    /// The server process followed for CPU time, if it is local.
    pub server_pid: Option<u32>,
    /// The server's resident memory after its run, in MiB, if it is local.
    pub server_rss_mib: Option<f64>,
    /// What was measured.
    pub rows: Vec<Row>,
}

impl Row {
    /// Builds a row from per-operation latencies of successful operations.
    pub fn new(
        operation: impl Into<String>,
        concurrency: usize,
        mut latencies: Vec<Duration>,
        errors: usize,
        total: Duration,
    ) -> Row {
        latencies.sort_unstable();
        let pick = |q: f64| {
            let i = ((latencies.len() as f64 - 1.0) * q).round() as usize;
            latencies.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
        };
        let seconds = total.as_secs_f64();
        let per_op = |cpu: Option<f64>| {
            cpu.filter(|_| !latencies.is_empty())
                .map(|s| s * 1000.0 / latencies.len() as f64)
        };
        Row {
            server_cpu_ms_per_op: per_op(super::server_cpu::phase_cpu_seconds()),
            bench_cpu_ms_per_op: per_op(super::server_cpu::phase_own_cpu_seconds()),
            operation: operation.into(),
            concurrency,
            count: latencies.len(),
            errors,
            seconds,
            ops_per_second: if seconds > 0.0 {
                latencies.len() as f64 / seconds
            } else {
                0.0
            },
            p50_ms: pick(0.5),
            p99_ms: pick(0.99),
        }
    }
}

/// A CPU figure, or `–` when it was not measured (a server that is not local).
fn cpu(ms: Option<f64>) -> String {
    ms.map_or_else(|| "–".to_owned(), |ms| format!("{ms:.3}"))
}

/// The rows as a Markdown table.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| operation | concurrency | count | errors | ops/s | p50 ms | p99 ms | server CPU ms/op | bench CPU ms/op |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} | {:.2} | {:.2} | {} | {} |\n",
            r.operation,
            r.concurrency,
            r.count,
            r.errors,
            r.ops_per_second,
            r.p50_ms,
            r.p99_ms,
            cpu(r.server_cpu_ms_per_op),
            cpu(r.bench_cpu_ms_per_op)
        ));
    }
    out
}

/// Two servers' rows side by side (A = the first kubeconfig, B = the second), matched by
/// operation and concurrency, with A's throughput over B's.
pub fn comparison(runs: &[Run]) -> String {
    let mut out = String::new();
    for (label, run) in ["A", "B"].iter().zip(runs) {
        out.push_str(&format!("{label}: {} ({})\n", run.server, run.kubeconfig));
    }
    out.push_str("\n| operation | conc. | A ops/s | A p50 ms | A p99 ms | A CPU ms/op | A errors | B ops/s | B p50 ms | B p99 ms | B CPU ms/op | B errors | A/B ops/s |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    let (Some(a), Some(b)) = (runs.first(), runs.get(1)) else {
        return out;
    };
    for ra in &a.rows {
        let rb = b
            .rows
            .iter()
            .find(|r| r.operation == ra.operation && r.concurrency == ra.concurrency);
        let side = |r: Option<&Row>| match r {
            Some(r) => format!(
                "{:.0} | {:.2} | {:.2} | {} | {}",
                r.ops_per_second,
                r.p50_ms,
                r.p99_ms,
                cpu(r.server_cpu_ms_per_op),
                r.errors
            ),
            None => "– | – | – | – | –".to_owned(),
        };
        let ratio = rb.filter(|rb| rb.ops_per_second > 0.0).map_or_else(
            || "–".to_owned(),
            |rb| format!("{:.1}×", ra.ops_per_second / rb.ops_per_second),
        );
        out.push_str(&format!(
            "| {} | {} | {} | {} | {ratio} |\n",
            ra.operation,
            ra.concurrency,
            side(Some(ra)),
            side(rb)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let lat = (1..=100).map(Duration::from_millis).collect();
        let row = Row::new("get", 1, lat, 0, Duration::from_secs(1));
        assert_eq!(row.count, 100);
        assert!((row.p50_ms - 51.0).abs() < 1e-9);
        assert!((row.p99_ms - 99.0).abs() < 1e-9);
        assert!((row.ops_per_second - 100.0).abs() < 1e-9);
    }

    #[test]
    fn a_comparison_matches_rows_by_operation_and_concurrency() {
        let row = |op: &str, c, n| {
            Row::new(
                op,
                c,
                vec![Duration::from_millis(1); n],
                0,
                Duration::from_secs(1),
            )
        };
        let run = |server: &str, rows| Run {
            kubeconfig: format!("{server}.kubeconfig"),
            server: server.to_owned(),
            server_pid: None,
            server_rss_mib: None,
            rows,
        };
        let a = run("https://a", vec![row("get", 1, 300), row("create", 1, 100)]);
        let b = run("https://b", vec![row("create", 1, 50), row("get", 1, 100)]);
        let table = comparison(&[a, b]);
        assert!(
            table.starts_with("A: https://a (https://a.kubeconfig)\nB: https://b"),
            "{table}"
        );
        assert!(
            table.contains(
                "| get | 1 | 300 | 1.00 | 1.00 | – | 0 | 100 | 1.00 | 1.00 | – | 0 | 3.0× |"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "| create | 1 | 100 | 1.00 | 1.00 | – | 0 | 50 | 1.00 | 1.00 | – | 0 | 2.0× |"
            ),
            "{table}"
        );
    }
}
