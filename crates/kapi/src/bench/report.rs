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
        Row {
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

/// The rows as a Markdown table.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| operation | concurrency | count | errors | ops/s | p50 ms | p99 ms |\n|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} | {:.2} | {:.2} |\n",
            r.operation, r.concurrency, r.count, r.errors, r.ops_per_second, r.p50_ms, r.p99_ms
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
}
