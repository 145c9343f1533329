//! Kubernetes name validators (`k8s.io/apimachinery/pkg/util/validation`) with their exact messages.

use regex::Regex;
use std::sync::LazyLock;

const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

fn anchored(fmt: &str) -> Regex {
    Regex::new(&format!("^{fmt}$")).unwrap_or_else(|e| panic!("built-in name regex {fmt}: {e}"))
}

static DNS1035_LABEL: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1035_LABEL_FMT));
static DNS1123_LABEL: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1123_LABEL_FMT));
static DNS1123_SUBDOMAIN: LazyLock<Regex> = LazyLock::new(|| anchored(DNS1123_SUBDOMAIN_FMT));

/// Go's `validation.RegexError`.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut out = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{e}', "));
    }
    out.push_str(&format!("regex used for validation is '{fmt}')"));
    out
}

fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `IsDNS1035Label`: the messages for an invalid DNS-1035 label (empty when valid).
pub fn is_dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !DNS1035_LABEL.is_match(value) {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `IsDNS1123Label`.
pub fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !DNS1123_LABEL.is_match(value) {
        errs.push(regex_error(
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
            DNS1123_LABEL_FMT,
            &["my-name", "123-abc"],
        ));
    }
    errs
}

/// `IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 253 {
        errs.push(max_len_error(253));
    }
    if !DNS1123_SUBDOMAIN.is_match(value) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}
