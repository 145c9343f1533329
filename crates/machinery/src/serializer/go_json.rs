//! A serde_json formatter that writes what Go's `encoding/json` writes: `<`, `>`, `&`,
//! U+2028 and U+2029 escaped as `\u003c`…, floats in Go's shortest form (`1`, `1e+21`,
//! `1e-7`), and embedded raw JSON compacted or re-indented like the rest (R2.14).

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io::{self, Write};

/// Go-compatible output, compact or indented by two spaces.
pub(crate) struct GoFormatter {
    pretty: bool,
    indent: usize,
    has_value: bool,
}

impl GoFormatter {
    pub(crate) fn new(pretty: bool) -> Self {
        Self {
            pretty,
            indent: 0,
            has_value: false,
        }
    }

    fn newline_indent<W: ?Sized + Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.indent {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

fn escape_for(c: char) -> Option<&'static [u8]> {
    match c {
        '<' => Some(b"\\u003c"),
        '>' => Some(b"\\u003e"),
        '&' => Some(b"\\u0026"),
        '\u{2028}' => Some(b"\\u2028"),
        '\u{2029}' => Some(b"\\u2029"),
        _ => None,
    }
}

fn needs_escape(b: u8) -> bool {
    // '<' '>' '&' and the first byte of U+2028/U+2029 (0xE2).
    matches!(b, b'<' | b'>' | b'&' | 0xE2)
}

/// True when any byte needs Go's extra escaping. No early exit, so the compiler turns the
/// comparisons into SIMD over the whole string.
fn any_needs_escape(bytes: &[u8]) -> bool {
    bytes.iter().fold(false, |found, &b| {
        found | (b == b'<') | (b == b'>') | (b == b'&') | (b == 0xE2)
    })
}

/// True when raw JSON text can be copied as is in compact output: no whitespace outside
/// strings, nothing Go would escape.
fn raw_is_canonical(raw: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    for &b in raw.as_bytes() {
        if needs_escape(b) {
            return false;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if b.is_ascii_whitespace() {
            return false;
        }
    }
    true
}

/// Go's float64 text: shortest digits, exponent form outside [1e-6, 1e21).
pub(crate) fn go_float(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let abs = v.abs();
    if (1e-6..1e21).contains(&abs) {
        return format!("{v}");
    }
    let s = format!("{v:e}");
    match s.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => s,
    }
}

impl Formatter for GoFormatter {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        if !any_needs_escape(bytes) {
            return w.write_all(bytes);
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if let Some(esc) = escape_for(c) {
                w.write_all(&bytes[start..i])?;
                w.write_all(esc)?;
                start = i + c.len_utf8();
            }
        }
        w.write_all(&bytes[start..])
    }

    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        w.write_all(go_float(value).as_bytes())
    }

    fn write_f32<W: ?Sized + Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        w.write_all(go_float(f64::from(value)).as_bytes())
    }

    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !self.pretty && raw_is_canonical(fragment) {
            return w.write_all(fragment.as_bytes());
        }
        let value: serde_json::Value = serde_json::from_str(fragment).map_err(io::Error::other)?;
        let nested = GoFormatter {
            pretty: self.pretty,
            indent: self.indent,
            has_value: false,
        };
        let mut ser = serde_json::Serializer::with_formatter(w, nested);
        value.serialize(&mut ser).map_err(io::Error::other)
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.indent += 1;
        self.has_value = false;
        w.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.indent -= 1;
        if self.pretty && self.has_value {
            self.newline_indent(w)?;
        }
        w.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        if self.pretty {
            self.newline_indent(w)?;
        }
        Ok(())
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.indent += 1;
        self.has_value = false;
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.indent -= 1;
        if self.pretty && self.has_value {
            self.newline_indent(w)?;
        }
        w.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        if self.pretty {
            self.newline_indent(w)?;
        }
        Ok(())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(if self.pretty { b": " } else { b":" })
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(value: &serde_json::Value, pretty: bool) -> String {
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, GoFormatter::new(pretty));
        value.serialize(&mut ser).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn go_float_formats_like_encoding_json() {
        assert_eq!(go_float(1.0), "1");
        assert_eq!(go_float(0.5), "0.5");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(1e-7), "1e-7");
        assert_eq!(go_float(123456789.0), "123456789");
    }

    #[test]
    fn escape_detection_finds_bytes_at_every_position() {
        for special in ["<", ">", "&", "\u{2028}"] {
            for pad in 0..17 {
                let s = format!("{}{special}{}", "a".repeat(pad), "b".repeat(pad % 5));
                assert!(any_needs_escape(s.as_bytes()), "{s:?}");
            }
        }
        assert!(!any_needs_escape("plain text, no specials: ü".as_bytes()));
    }

    #[test]
    fn pretty_output_matches_marshal_indent() {
        let v = serde_json::json!({"a": [1, {}], "b": {"c": []}});
        assert_eq!(
            write(&v, true),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": {\n    \"c\": []\n  }\n}"
        );
    }

    #[test]
    fn raw_fragments_are_compacted_and_escaped_like_the_rest() {
        let raw = serde_json::value::RawValue::from_string(r#"{ "a" : "<" }"#.into()).unwrap();
        let mut out = Vec::new();
        raw.serialize(&mut serde_json::Serializer::with_formatter(
            &mut out,
            GoFormatter::new(false),
        ))
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":"\u003c"}"#);
    }

    #[test]
    fn raw_fragments_are_indented_in_pretty_output() {
        let raw = serde_json::value::RawValue::from_string(r#"{"a":{"b":1}}"#.into()).unwrap();
        let outer = serde_json::json!({"x": 1});
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, GoFormatter::new(true));
        use serde::ser::SerializeMap;
        let mut map = serde::Serializer::serialize_map(&mut ser, Some(2)).unwrap();
        map.serialize_entry("f", &raw).unwrap();
        map.serialize_entry("x", &outer["x"]).unwrap();
        map.end().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\n  \"f\": {\n    \"a\": {\n      \"b\": 1\n    }\n  },\n  \"x\": 1\n}"
        );
    }
}
