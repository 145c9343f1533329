//! Conversion-webhook failures, worded exactly as kube-apiserver words them (R4.25–R4.31,
//! Appendix B.1), each with the failure type upstream counts in its metrics.

use std::fmt;

/// The kind of failure, as upstream's `ConversionWebhookErrorType` (plus kapi's own
/// configuration failure); it labels the failures counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FailureReason {
    /// The CRD lists no ConversionReview version kapi speaks, or its client config is unusable.
    Configuration,
    /// The call failed: connection, TLS, timeout, non-2xx status.
    CallFailure,
    /// The answer is not a valid ConversionReview, has the wrong uid, or is a Failure result.
    MalformedResponse,
    /// The answer holds a different number of objects than were sent.
    PartialResponse,
    /// A converted object breaks a rule (apiVersion, kind, name, namespace, uid, metadata).
    InvalidConvertedObject,
}

impl FailureReason {
    /// The `failure_type` label value (upstream's names, R4.30).
    pub fn label(self) -> &'static str {
        match self {
            FailureReason::Configuration => "conversion_webhook_configuration_failure",
            FailureReason::CallFailure => "conversion_webhook_call_failure",
            FailureReason::MalformedResponse => "conversion_webhook_malformed_response_failure",
            FailureReason::PartialResponse => "conversion_webhook_partial_response_failure",
            FailureReason::InvalidConvertedObject => {
                "conversion_webhook_invalid_converted_object_failure"
            }
        }
    }
}

/// A failed webhook conversion. The server answers 500 with [`WebhookError::message`] as the
/// Status message, no reason and no details (R4.31, Appendix B.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookError {
    reason: FailureReason,
    message: String,
}

impl WebhookError {
    /// A failure with its complete client-facing message.
    pub(crate) fn new(reason: FailureReason, message: String) -> Self {
        Self { reason, message }
    }

    /// `conversion webhook for <gvk> failed: <cause>` (call and response failures).
    pub(crate) fn failed(reason: FailureReason, gvk: &str, cause: impl fmt::Display) -> Self {
        Self::new(
            reason,
            format!("conversion webhook for {gvk} failed: {cause}"),
        )
    }

    /// Why it failed.
    pub fn reason(&self) -> FailureReason {
        self.reason
    }

    /// The text the client sees.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for WebhookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WebhookError {}

/// Go's `schema.GroupVersionKind.String()` for an object's apiVersion and kind:
/// `group/version, Kind=kind` (`/v1, Kind=…` for the core group, `/, Kind=` when empty).
pub(crate) fn gvk_string(api_version: &str, kind: &str) -> String {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    format!("{group}/{version}, Kind={kind}")
}

/// Go's `time.Duration.String()` for the durations a timeout is set to (`30s`, `250ms`,
/// `1m30s`, `1.5s`), as client-go writes the `timeout` query parameter.
pub(crate) fn go_duration(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms == 0 {
        return format!("{}µs", d.as_micros());
    }
    if ms < 1000 {
        return format!("{ms}ms");
    }
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let secs = if rest % 1000 == 0 {
        format!("{}s", rest / 1000)
    } else {
        let frac = format!("{:03}", rest % 1000);
        format!("{}.{}s", rest / 1000, frac.trim_end_matches('0'))
    };
    match (h, m) {
        (0, 0) => secs,
        (0, m) => format!("{m}m{secs}"),
        (h, m) => format!("{h}h{m}m{secs}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn gvk_string_prints_like_go() {
        assert_eq!(gvk_string("g.io/v1", "W"), "g.io/v1, Kind=W");
        assert_eq!(gvk_string("", ""), "/, Kind=");
    }

    #[test]
    fn go_duration_prints_like_go() {
        assert_eq!(go_duration(Duration::from_secs(30)), "30s");
        assert_eq!(go_duration(Duration::from_millis(250)), "250ms");
        assert_eq!(go_duration(Duration::from_secs(90)), "1m30s");
        assert_eq!(go_duration(Duration::from_millis(1500)), "1.5s");
    }
}
