//! A serde_json formatter that writes what Go's `encoding/json` writes: `<`, `>`, `&`,
//! U+2028 and U+2029 escaped as `\u003c`…, and floats in Go's shortest form (`1`, `1e+21`,
//! `1e-7`) (R2.14).

use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use std::io::{self, Write};

/// Go-compatible output, compact or indented by two spaces.
pub(crate) enum GoFormatter<'a> {
    Compact(CompactFormatter),
    Pretty(PrettyFormatter<'a>),
}

impl GoFormatter<'_> {
    pub(crate) fn new(pretty: bool) -> Self {
        if pretty {
            GoFormatter::Pretty(PrettyFormatter::with_indent(b"  "))
        } else {
            GoFormatter::Compact(CompactFormatter)
        }
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

macro_rules! delegate {
    ($self:ident, $f:ident, $($arg:expr),*) => {
        match $self {
            GoFormatter::Compact(c) => c.$f($($arg),*),
            GoFormatter::Pretty(p) => p.$f($($arg),*),
        }
    };
}

impl Formatter for GoFormatter<'_> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        if !bytes.iter().copied().any(needs_escape) {
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

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        delegate!(self, begin_array, w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        delegate!(self, end_array, w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        delegate!(self, begin_array_value, w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        delegate!(self, end_array_value, w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        delegate!(self, begin_object, w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        delegate!(self, end_object, w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        delegate!(self, begin_object_key, w, first)
    }
    fn end_object_key<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        delegate!(self, end_object_key, w)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        delegate!(self, begin_object_value, w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        delegate!(self, end_object_value, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_float_formats_like_encoding_json() {
        assert_eq!(go_float(1.0), "1");
        assert_eq!(go_float(0.5), "0.5");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(1e-7), "1e-7");
        assert_eq!(go_float(123456789.0), "123456789");
    }
}
