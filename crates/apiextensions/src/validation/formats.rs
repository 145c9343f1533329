//! The string formats kube-apiserver registers for CRD schemas (upstream
//! `pkg/apiserver/validation/formats.go`); unknown formats are not validated.

use base64::Engine;
use regex::Regex;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("built-in format regex {pattern}: {e}"))
}

static UUID: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID3: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
});
static UUID4: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
});
static UUID5: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$")
});
static BSON: LazyLock<Regex> = LazyLock::new(|| re(r"^[0-9a-fA-F]{24}$"));
static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    )
});
static EMAIL: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:[^<>@\s]+\s*<)?[^<>@\s]+@[^<>@\s]+>?$"));
static URI: LazyLock<Regex> = LazyLock::new(|| re(r"^(/|[a-zA-Z][a-zA-Z0-9+.\-]*:)\S*$"));
static MAC: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^([0-9a-fA-F]{2}([:-])){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}([:-])){7}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{2}([:-])){19}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}$|^([0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4}$",
    )
});
static ISBN10: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:[0-9]{9}X|[0-9]{10})$"));
static ISBN13: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:[0-9]{13})$"));
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$",
    )
});
static SSN: LazyLock<Regex> = LazyLock::new(|| re(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"));
static HEX_COLOR: LazyLock<Regex> = LazyLock::new(|| re(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGB_COLOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$",
    )
});
static DATE_TIME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$")
});
static DURATION_GO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[-+]?(((\d+(\.\d*)?)|(\.\d+))(ns|us|µs|μs|ms|s|m|h))+$"));
static DURATION_SCALA: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(\d+)\s*(ns|nano|nanos|nanosecond|nanoseconds|us|micro|micros|microsecond|microseconds|ms|milli|millis|millisecond|milliseconds|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|wk|wks|week|weeks)$",
    )
});
static DNS1123_LABEL: LazyLock<Regex> = LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
static DNS1123_SUBDOMAIN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));

/// Formats validated for strings, normalized as go-openapi does (dashes removed).
const SUPPORTED: [&str; 26] = [
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "k8sshortname",
    "k8slongname",
];

/// Whether Kubernetes validates `format` on strings (otherwise it is stripped and ignored).
pub fn is_supported_string_format(format: &str) -> bool {
    !normalized_supported(format).is_empty()
}

/// `format` with dashes removed when it is validated on strings, else empty.
pub fn normalized_supported(format: &str) -> String {
    let normalized = format.replace('-', "");
    if SUPPORTED.contains(&normalized.as_str()) {
        normalized
    } else {
        String::new()
    }
}

/// Whether `format` on a schema of `type_name` is recognized (for the `unrecognized format` warning, R5.28).
pub fn is_recognized_format(type_name: &str, format: &str) -> bool {
    match type_name {
        "" | "string" => is_supported_string_format(format),
        "integer" => matches!(format, "int32" | "int64"),
        "number" => matches!(format, "float" | "double"),
        _ => false,
    }
}

fn valid_date(y: &str, m: &str, d: &str) -> bool {
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i32>(), m.parse::<u32>(), d.parse::<u32>()) else {
        return false;
    };
    chrono::NaiveDate::from_ymd_opt(y, m, d).is_some()
}

fn valid_date_time(s: &str) -> bool {
    let Some(c) = DATE_TIME.captures(s) else {
        return false;
    };
    let hms = |i: usize, max: u32| {
        c.get(i)
            .and_then(|m| m.as_str().parse::<u32>().ok())
            .is_some_and(|v| v <= max)
    };
    valid_date(&c[1], &c[2], &c[3]) && hms(4, 23) && hms(5, 59) && hms(6, 60)
}

fn valid_cidr(s: &str) -> bool {
    let Some((ip, prefix)) = s.split_once('/') else {
        return false;
    };
    let Ok(prefix) = prefix.parse::<u8>() else {
        return false;
    };
    if let Ok(_v4) = ip.parse::<Ipv4Addr>() {
        return prefix <= 32;
    }
    ip.parse::<Ipv6Addr>().is_ok() && prefix <= 128
}

fn valid_isbn10(s: &str) -> bool {
    let digits: String = s.chars().filter(|c| !matches!(c, '-' | ' ')).collect();
    if !ISBN10.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .chars()
        .enumerate()
        .map(|(i, c)| {
            (10 - i as u32)
                * if c == 'X' {
                    10
                } else {
                    c.to_digit(10).unwrap_or(0)
                }
        })
        .sum();
    sum.is_multiple_of(11)
}

fn valid_isbn13(s: &str) -> bool {
    let digits: String = s.chars().filter(|c| !matches!(c, '-' | ' ')).collect();
    if !ISBN13.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .chars()
        .enumerate()
        .map(|(i, c)| c.to_digit(10).unwrap_or(0) * if i % 2 == 0 { 1 } else { 3 })
        .sum();
    sum.is_multiple_of(10)
}

/// Checks a string against a supported format; `true` for formats that are not validated.
pub fn check_format(format: &str, s: &str) -> bool {
    check_normalized_format(&format.replace('-', ""), s)
}

/// Like [`check_format`] for an already normalized format name (`datetime`).
pub fn check_normalized_format(normalized: &str, s: &str) -> bool {
    match normalized {
        "bsonobjectid" => BSON.is_match(s),
        "uri" => URI.is_match(s),
        "email" => EMAIL.is_match(s),
        "hostname" => s.len() <= 255 && HOSTNAME.is_match(s),
        "ipv4" => s.parse::<Ipv4Addr>().is_ok(),
        "ipv6" => s.contains(':') && s.parse::<Ipv6Addr>().is_ok(),
        "cidr" => valid_cidr(s),
        "mac" => MAC.is_match(s),
        "uuid" => UUID.is_match(s),
        "uuid3" => UUID3.is_match(s),
        "uuid4" => UUID4.is_match(s),
        "uuid5" => UUID5.is_match(s),
        "isbn" => valid_isbn10(s) || valid_isbn13(s),
        "isbn10" => valid_isbn10(s),
        "isbn13" => valid_isbn13(s),
        "creditcard" => {
            CREDIT_CARD.is_match(&s.chars().filter(char::is_ascii_digit).collect::<String>())
        }
        "ssn" => SSN.is_match(s),
        "hexcolor" => HEX_COLOR.is_match(s),
        "rgbcolor" => RGB_COLOR.is_match(s),
        "byte" => base64::engine::general_purpose::STANDARD.decode(s).is_ok(),
        "date" => {
            s.len() == 10 && s.split('-').collect::<Vec<_>>().as_slice().len() == 3 && {
                let p: Vec<&str> = s.split('-').collect();
                p[0].len() == 4
                    && p[1].len() == 2
                    && p[2].len() == 2
                    && valid_date(p[0], p[1], p[2])
            }
        }
        "duration" => s == "0" || DURATION_GO.is_match(s) || DURATION_SCALA.is_match(s),
        "datetime" => valid_date_time(s),
        "k8sshortname" => s.len() <= 63 && DNS1123_LABEL.is_match(s),
        "k8slongname" => s.len() <= 253 && DNS1123_SUBDOMAIN.is_match(s),
        _ => true,
    }
}
