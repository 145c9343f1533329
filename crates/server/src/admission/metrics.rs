//! Admission metrics with kube-apiserver's names and labels, rendered into `/metrics`:
//! per webhook a latency histogram, requests and rejections by code, calls that failed open;
//! per ValidatingAdmissionPolicy its checks and their latency.

use kapi_apiextensions::webhook::Histogram;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

/// Upstream's admission latency buckets (seconds).
const WEBHOOK_BUCKETS: [f64; 8] = [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10.0, 25.0];
/// Upstream's policy check latency buckets (seconds).
const POLICY_BUCKETS: [f64; 5] = [0.0000005, 0.001, 0.01, 0.1, 1.0];

/// One finished webhook call.
pub struct WebhookCall<'a> {
    /// The webhook's name.
    pub name: &'a str,
    /// `admit` (mutating) or `validating`.
    pub kind: &'static str,
    /// `CREATE`, `UPDATE`, `DELETE`.
    pub operation: &'a str,
    /// How long the call took.
    pub elapsed: Duration,
    /// Whether it refused the request (denied, or failed closed or open).
    pub rejected: bool,
    /// The denial's code (200 when allowed, 0 when the call failed).
    pub code: u16,
    /// `no_error` (a denial), `calling_webhook_error`, `apiserver_internal_error`; `None` when allowed.
    pub error_type: Option<&'static str>,
}

/// One finished policy check.
pub struct PolicyCheck<'a> {
    /// The policy's name.
    pub policy: &'a str,
    /// The binding's name.
    pub binding: &'a str,
    /// `allow`, `deny`, `warn` or `audit` (upstream's `enforcement_action`).
    pub enforcement_action: &'static str,
    /// `no_error`, or `invalid_error` when an expression failed (upstream's `error_type`).
    pub error_type: &'static str,
    /// How long the check took.
    pub elapsed: Duration,
}

type Labels = Vec<(&'static str, String)>;

#[derive(Default)]
struct Inner {
    durations: BTreeMap<Labels, Histogram>,
    requests: BTreeMap<Labels, u64>,
    rejections: BTreeMap<Labels, u64>,
    fail_open: BTreeMap<Labels, u64>,
    policy_checks: BTreeMap<Labels, u64>,
    policy_durations: BTreeMap<Labels, Histogram>,
}

/// The admission metrics of one server.
#[derive(Default)]
pub struct AdmissionMetrics {
    inner: Mutex<Inner>,
}

fn render_labels(labels: &Labels) -> String {
    labels
        .iter()
        .map(|(k, v)| format!("{k}={}", serde_json::Value::String(v.clone())))
        .collect::<Vec<_>>()
        .join(",")
}

fn counters(out: &mut String, name: &str, help: &str, map: &BTreeMap<Labels, u64>) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} counter");
    for (labels, n) in map {
        let _ = writeln!(out, "{name}{{{}}} {n}", render_labels(labels));
    }
}

fn histograms(out: &mut String, name: &str, help: &str, map: &BTreeMap<Labels, Histogram>) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} histogram");
    for (labels, h) in map {
        h.render(out, name, &render_labels(labels));
    }
}

impl AdmissionMetrics {
    /// Empty metrics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a webhook call.
    pub fn observe(&self, c: &WebhookCall<'_>) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        let base = |extra: Labels| -> Labels {
            let mut l: Labels = vec![
                ("name", c.name.to_owned()),
                ("operation", c.operation.to_owned()),
                ("type", c.kind.to_owned()),
            ];
            l.extend(extra);
            l.sort();
            l
        };
        inner
            .durations
            .entry(base(vec![("rejected", c.rejected.to_string())]))
            .or_insert_with(|| Histogram::new(&WEBHOOK_BUCKETS))
            .observe(c.elapsed.as_secs_f64());
        *inner
            .requests
            .entry(base(vec![
                ("code", c.code.to_string()),
                ("rejected", c.rejected.to_string()),
            ]))
            .or_default() += 1;
        if let Some(error_type) = c.error_type {
            *inner
                .rejections
                .entry(base(vec![
                    ("error_type", error_type.to_owned()),
                    ("rejection_code", c.code.to_string()),
                ]))
                .or_default() += 1;
        }
    }

    /// Counts a failed call of a `failurePolicy: Ignore` webhook.
    pub fn fail_open(&self, name: &str, kind: &'static str) {
        if let Ok(mut inner) = self.inner.lock() {
            *inner
                .fail_open
                .entry(vec![("name", name.to_owned()), ("type", kind.to_owned())])
                .or_default() += 1;
        }
    }

    /// Records a ValidatingAdmissionPolicy check.
    pub fn policy_check(&self, c: &PolicyCheck<'_>) {
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        let labels: Labels = vec![
            ("enforcement_action", c.enforcement_action.to_owned()),
            ("error_type", c.error_type.to_owned()),
            ("policy", c.policy.to_owned()),
            ("policy_binding", c.binding.to_owned()),
        ];
        *inner.policy_checks.entry(labels.clone()).or_default() += 1;
        inner
            .policy_durations
            .entry(labels)
            .or_insert_with(|| Histogram::new(&POLICY_BUCKETS))
            .observe(c.elapsed.as_secs_f64());
    }

    /// Every admission metric in the Prometheus text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let Ok(inner) = self.inner.lock() else {
            return out;
        };
        histograms(
            &mut out,
            "apiserver_admission_webhook_admission_duration_seconds",
            "Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
            &inner.durations,
        );
        counters(
            &mut out,
            "apiserver_admission_webhook_request_total",
            "Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
            &inner.requests,
        );
        counters(
            &mut out,
            "apiserver_admission_webhook_rejection_count",
            "Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.",
            &inner.rejections,
        );
        counters(
            &mut out,
            "apiserver_admission_webhook_fail_open_count",
            "Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).",
            &inner.fail_open,
        );
        counters(
            &mut out,
            "apiserver_validating_admission_policy_check_total",
            "Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.",
            &inner.policy_checks,
        );
        histograms(
            &mut out,
            "apiserver_validating_admission_policy_check_duration_seconds",
            "Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.",
            &inner.policy_durations,
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejected_call_is_counted_with_its_code_and_error_type() {
        let m = AdmissionMetrics::new();
        m.observe(&WebhookCall {
            name: "deny.example.com",
            kind: "validating",
            operation: "CREATE",
            elapsed: Duration::from_millis(3),
            rejected: true,
            code: 403,
            error_type: Some("no_error"),
        });
        let text = m.render();
        assert!(text.contains("apiserver_admission_webhook_request_total{code=\"403\",name=\"deny.example.com\",operation=\"CREATE\",rejected=\"true\",type=\"validating\"} 1"), "{text}");
        assert!(text.contains("apiserver_admission_webhook_rejection_count{error_type=\"no_error\",name=\"deny.example.com\",operation=\"CREATE\",rejection_code=\"403\",type=\"validating\"} 1"), "{text}");
        assert!(text.contains("apiserver_admission_webhook_admission_duration_seconds_bucket{name=\"deny.example.com\",operation=\"CREATE\",rejected=\"true\",type=\"validating\",le=\"0.005\"} 1"), "{text}");
    }
}
