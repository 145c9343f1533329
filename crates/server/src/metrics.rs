//! Request metrics, exposed on `/metrics` in the Prometheus text format (version 0.0.4),
//! with kube-apiserver's metric names.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Labels of one request counter.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct RequestKey {
    verb: String,
    group: String,
    resource: String,
    code: u16,
}

/// Process-wide counters.
pub struct Metrics {
    requests: Mutex<BTreeMap<RequestKey, u64>>,
    inflight: AtomicI64,
    start_time: f64,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// New, empty metrics; the process start time is now.
    pub fn new() -> Self {
        let start_time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or_default();
        Self {
            requests: Mutex::new(BTreeMap::new()),
            inflight: AtomicI64::new(0),
            start_time,
        }
    }

    /// Counts one finished request.
    pub fn record(&self, verb: &str, group: &str, resource: &str, code: u16) {
        let key = RequestKey {
            verb: verb.to_owned(),
            group: group.to_owned(),
            resource: resource.to_owned(),
            code,
        };
        if let Ok(mut map) = self.requests.lock() {
            *map.entry(key).or_default() += 1;
        }
    }

    /// Marks a request as started (+1) or finished (-1).
    pub fn inflight(&self, delta: i64) {
        self.inflight.fetch_add(delta, Ordering::Relaxed);
    }

    /// Renders every metric in the Prometheus text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP apiserver_request_total Counter of apiserver requests broken out for each verb, group, resource and HTTP response code.\n");
        out.push_str("# TYPE apiserver_request_total counter\n");
        if let Ok(map) = self.requests.lock() {
            for (k, v) in map.iter() {
                out.push_str(&format!(
                    "apiserver_request_total{{code=\"{}\",group=\"{}\",resource=\"{}\",verb=\"{}\"}} {v}\n",
                    k.code, k.group, k.resource, k.verb
                ));
            }
        }
        out.push_str("# HELP apiserver_current_inflight_requests Number of requests currently being served.\n");
        out.push_str("# TYPE apiserver_current_inflight_requests gauge\n");
        out.push_str(&format!(
            "apiserver_current_inflight_requests {}\n",
            self.inflight.load(Ordering::Relaxed)
        ));
        out.push_str("# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n");
        out.push_str("# TYPE process_start_time_seconds gauge\n");
        out.push_str(&format!("process_start_time_seconds {}\n", self.start_time));
        out.push_str(&process_memory());
        out
    }
}

/// Resident memory from /proc (Linux); empty elsewhere.
fn process_memory() -> String {
    let Ok(statm) = std::fs::read_to_string("/proc/self/statm") else {
        return String::new();
    };
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    format!(
        "# HELP process_resident_memory_bytes Resident memory size in bytes.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes {}\n",
        pages * 4096
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_counts_requests_per_label_set() {
        let m = Metrics::new();
        m.record("GET", "", "namespaces", 200);
        m.record("GET", "", "namespaces", 200);
        let text = m.render();
        assert!(text.contains(
            "apiserver_request_total{code=\"200\",group=\"\",resource=\"namespaces\",verb=\"GET\"} 2\n"
        ));
    }
}
