//! Go's ways of printing values inside error messages: `%q` quoting, `%v` of numbers, and
//! `encoding/json` output (sorted keys, HTML-safe escapes, Go float formatting).

use serde_json::{Number, Value};
use std::fmt::Write;

/// Go's `strconv.Quote` / `%q`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{07}' => out.push_str("\\a"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\u{0b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// How Go's field errors print an `interface{}` value: strings quoted, numbers and bools
/// with `%v`, anything else as JSON.
pub fn render_interface(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Number(n) => number_v(n),
        Value::Bool(b) => b.to_string(),
        other => to_json(other),
    }
}

/// `%v` of a JSON number (int64 or float64, as Go's unstructured decoding yields).
pub fn number_v(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    float_v(n.as_f64().unwrap_or(0.0))
}

/// Splits a finite float into shortest decimal digits and the decimal exponent of the first digit.
fn shortest_digits(f: f64) -> (String, i32) {
    let e = format!("{:e}", f.abs());
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

fn format_exp(neg: bool, digits: &str, exp: i32, min_exp_digits: usize) -> String {
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    s.push_str(&digits[..1]);
    if digits.len() > 1 {
        s.push('.');
        s.push_str(&digits[1..]);
    }
    s.push('e');
    s.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(s, "{:0width$}", exp.abs(), width = min_exp_digits);
    s
}

fn format_plain(neg: bool, digits: &str, exp: i32) -> String {
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    let point = exp + 1;
    if point <= 0 {
        s.push_str("0.");
        s.extend(std::iter::repeat_n('0', (-point) as usize));
        s.push_str(digits);
    } else if point as usize >= digits.len() {
        s.push_str(digits);
        s.extend(std::iter::repeat_n('0', point as usize - digits.len()));
    } else {
        s.push_str(&digits[..point as usize]);
        s.push('.');
        s.push_str(&digits[point as usize..]);
    }
    s
}

/// Go's `%v` of a float64 (`%g` with shortest digits: `1e+06`, `0.5`, `100000`).
pub fn float_v(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let (digits, exp) = shortest_digits(f);
    let neg = f < 0.0;
    // strconv's shortest %g switches to an exponent from 1e+06 on.
    if !(-4..6).contains(&exp) {
        format_exp(neg, &digits, exp, 2)
    } else {
        format_plain(neg, &digits, exp)
    }
}

/// Go's `encoding/json` form of a float64.
pub fn float_json(f: f64) -> String {
    if !f.is_finite() || f == 0.0 {
        return "0".into();
    }
    let (digits, exp) = shortest_digits(f);
    let neg = f < 0.0;
    if !(-7..21).contains(&exp) {
        format_exp(neg, &digits, exp, 1)
    } else {
        format_plain(neg, &digits, exp)
    }
}

fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_json(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => out.push_str(&i.to_string()),
            (None, Some(u)) => out.push_str(&u.to_string()),
            _ => out.push_str(&float_json(n.as_f64().unwrap_or(0.0))),
        },
        Value::String(s) => write_json_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, k);
                out.push(':');
                write_json(out, &map[k]);
            }
            out.push('}');
        }
    }
}

/// Go's `json.Marshal` of an unstructured value.
pub fn to_json(v: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v);
    out
}

/// Go's `json.Marshal` of a string.
pub fn json_string(s: &str) -> String {
    let mut out = String::new();
    write_json_string(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_v_matches_go_percent_v() {
        assert_eq!(float_v(1e6), "1e+06");
        assert_eq!(float_v(100000.0), "100000");
        assert_eq!(float_v(0.5), "0.5");
        assert_eq!(float_v(1.5e-5), "1.5e-05");
    }

    #[test]
    fn json_escapes_html_like_go() {
        assert_eq!(
            to_json(&serde_json::json!({"b": "<", "a": 1.5})),
            r#"{"a":1.5,"b":"\u003c"}"#
        );
    }
}
