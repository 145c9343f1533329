//! Conversion-webhook metrics, rendered in the Prometheus text format (0.0.4) like the
//! server's own `/metrics` (plain text, no client library): per CRD, a call-latency
//! histogram with upstream's name and buckets, and failures counted by reason.

use super::error::FailureReason;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

/// Upstream's `ExponentialBuckets(0.001, 2, 15)` in seconds.
const BUCKETS: [f64; 15] = [
    0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096,
    8.192, 16.384,
];

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct CallKey {
    crd: String,
    from: String,
    to: String,
    succeeded: bool,
}

/// A Prometheus histogram of seconds over fixed bucket bounds.
#[derive(Debug, Clone)]
pub struct Histogram {
    bounds: &'static [f64],
    counts: Vec<u64>,
    count: u64,
    sum: f64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new(&BUCKETS)
    }
}

impl Histogram {
    /// An empty histogram with upper `bounds` (ascending; `+Inf` is implied).
    pub fn new(bounds: &'static [f64]) -> Self {
        Self {
            bounds,
            counts: vec![0; bounds.len()],
            count: 0,
            sum: 0.0,
        }
    }

    /// Records one observation.
    pub fn observe(&mut self, seconds: f64) {
        for (bucket, bound) in self.counts.iter_mut().zip(self.bounds) {
            if seconds <= *bound {
                *bucket += 1;
            }
        }
        self.count += 1;
        self.sum += seconds;
    }

    /// Appends the `_bucket`, `_sum` and `_count` lines of `name` with `labels` (`a="b",…`).
    pub fn render(&self, out: &mut String, name: &str, labels: &str) {
        for (bound, n) in self.bounds.iter().zip(&self.counts) {
            let _ = writeln!(out, "{name}_bucket{{{labels},le=\"{bound}\"}} {n}");
        }
        let _ = writeln!(out, "{name}_bucket{{{labels},le=\"+Inf\"}} {}", self.count);
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", self.sum);
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", self.count);
    }
}

#[derive(Debug, Default)]
struct Inner {
    calls: BTreeMap<CallKey, Histogram>,
    requests: BTreeMap<(String, Option<FailureReason>), u64>,
}

/// The metrics of every webhook converter of one server; share it (`Arc`) and render it
/// into `/metrics` with [`WebhookMetrics::render`].
#[derive(Debug, Default)]
pub struct WebhookMetrics {
    inner: Mutex<Inner>,
}

/// One finished webhook call, for [`WebhookMetrics::observe`].
pub(crate) struct Observation<'a> {
    pub crd: &'a str,
    pub from_version: &'a str,
    pub to_version: &'a str,
    pub elapsed: Duration,
    pub failure: Option<FailureReason>,
}

impl WebhookMetrics {
    /// Empty metrics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one call: its latency, and its result.
    pub(crate) fn observe(&self, o: &Observation<'_>) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        let key = CallKey {
            crd: o.crd.to_owned(),
            from: o.from_version.to_owned(),
            to: o.to_version.to_owned(),
            succeeded: o.failure.is_none(),
        };
        inner
            .calls
            .entry(key)
            .or_default()
            .observe(o.elapsed.as_secs_f64());
        *inner
            .requests
            .entry((o.crd.to_owned(), o.failure))
            .or_default() += 1;
    }

    /// Failures of `crd` counted for `reason` so far.
    pub fn failures(&self, crd: &str, reason: FailureReason) -> u64 {
        self.inner.lock().map_or(0, |inner| {
            inner
                .requests
                .get(&(crd.to_owned(), Some(reason)))
                .copied()
                .unwrap_or(0)
        })
    }

    /// Calls made for `crd` so far (successful or not).
    pub fn calls(&self, crd: &str) -> u64 {
        self.inner.lock().map_or(0, |inner| {
            inner
                .requests
                .iter()
                .filter(|((c, _), _)| c == crd)
                .map(|(_, n)| n)
                .sum()
        })
    }

    /// Every metric in the Prometheus text format, ready to append to `/metrics`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let Ok(inner) = self.inner.lock() else {
            return out;
        };
        out.push_str("# HELP apiserver_crd_conversion_webhook_duration_seconds CRD webhook conversion duration in seconds\n");
        out.push_str("# TYPE apiserver_crd_conversion_webhook_duration_seconds histogram\n");
        for (k, h) in &inner.calls {
            let labels = format!(
                "crd_name=\"{}\",from_version=\"{}\",succeeded=\"{}\",to_version=\"{}\"",
                k.crd, k.from, k.succeeded, k.to
            );
            h.render(
                &mut out,
                "apiserver_crd_conversion_webhook_duration_seconds",
                &labels,
            );
        }
        out.push_str("# HELP apiserver_conversion_webhook_request_total Counter for conversion webhook requests with success/failure and failure error type\n");
        out.push_str("# TYPE apiserver_conversion_webhook_request_total counter\n");
        for ((crd, failure), n) in &inner.requests {
            let (result, kind) = match failure {
                None => ("success", ""),
                Some(r) => ("failure", r.label()),
            };
            let _ = writeln!(
                out,
                "apiserver_conversion_webhook_request_total{{crd_name=\"{crd}\",failure_type=\"{kind}\",result=\"{result}\"}} {n}"
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_has_a_histogram_per_crd_and_failures_by_reason() {
        let m = WebhookMetrics::new();
        let base = Observation {
            crd: "widgets.example.com",
            from_version: "v1alpha1",
            to_version: "v1beta1",
            elapsed: Duration::from_millis(3),
            failure: None,
        };
        m.observe(&base);
        m.observe(&Observation {
            failure: Some(FailureReason::CallFailure),
            ..base
        });
        let text = m.render();
        assert!(text.contains("apiserver_crd_conversion_webhook_duration_seconds_bucket{crd_name=\"widgets.example.com\",from_version=\"v1alpha1\",succeeded=\"true\",to_version=\"v1beta1\",le=\"0.004\"} 1"), "{text}");
        assert!(text.contains("apiserver_conversion_webhook_request_total{crd_name=\"widgets.example.com\",failure_type=\"conversion_webhook_call_failure\",result=\"failure\"} 1"), "{text}");
        assert_eq!(
            m.failures("widgets.example.com", FailureReason::CallFailure),
            1
        );
    }
}
