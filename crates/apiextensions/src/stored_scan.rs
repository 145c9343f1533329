//! A byte scanner over compact JSON that accepts only what serde_json itself writes: no
//! whitespace, object keys in strictly ascending byte order (a `BTreeMap`'s order), strings
//! escaped exactly as serde_json escapes them, numbers as serde_json prints them back. Used to
//! prove that decoding and re-encoding stored bytes would give the same bytes. `None` means
//! "not proven"; callers then take the decoding path.

use chrono::{DateTime, SecondsFormat};

/// A position in the bytes being scanned.
pub(crate) struct Scan<'a> {
    doc: &'a str,
    b: &'a [u8],
    i: usize,
    /// The last time proven normalized (an object's times are mostly one and the same).
    last_time: Option<&'a str>,
}

impl<'a> Scan<'a> {
    /// A scanner at the start of `b`; `None` unless `b` is UTF-8 without control characters
    /// (serde_json escapes them inside strings and writes no whitespace outside).
    pub(crate) fn new(b: &'a [u8]) -> Option<Self> {
        // Branch-free per chunk so that it vectorizes (an early-exit `any` does not).
        let control = |chunk: &[u8]| chunk.iter().fold(false, |acc, &c| acc | (c < 0x20));
        if b.chunks(64).any(control) {
            return None;
        }
        let doc = std::str::from_utf8(b).ok()?;
        Some(Self {
            doc,
            b,
            i: 0,
            last_time: None,
        })
    }

    /// The offset of the next byte.
    pub(crate) fn pos(&self) -> usize {
        self.i
    }

    /// The next byte, not consumed.
    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// Whether everything was consumed.
    pub(crate) fn at_end(&self) -> bool {
        self.i == self.b.len()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.i += 1)
    }

    fn literal(&mut self, lit: &[u8]) -> Option<()> {
        let end = self.i + lit.len();
        (self.b.get(self.i..end)? == lit).then(|| self.i = end)
    }

    /// A string as serde_json writes it; returns its raw (still escaped) contents.
    pub(crate) fn string(&mut self) -> Option<&'a str> {
        self.string_escaped().map(|(raw, _)| raw)
    }

    /// A string as serde_json writes it: its raw contents and whether they hold an escape.
    fn string_escaped(&mut self) -> Option<(&'a str, bool)> {
        self.eat(b'"')?;
        let start = self.i;
        let mut escaped = false;
        loop {
            self.skip_plain_words();
            // Control characters were refused up front.
            match *self.b.get(self.i)? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                _ => self.i += 1,
            }
        }
        // Both ends are ASCII quotes, so char boundaries of the UTF-8 document.
        let raw = self.doc.get(start..self.i)?;
        self.i += 1;
        Some((raw, escaped))
    }

    /// Skips eight bytes at a time while none of them is `"` or `\` (SWAR: a byte equal
    /// to the wanted one becomes zero, and the lowest zero byte is found exactly).
    fn skip_plain_words(&mut self) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
        while let Some(chunk) = self.b.get(self.i..self.i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let x = u64::from_le_bytes(word);
            let hits = zero_bytes(x ^ (ONES * u64::from(b'"')))
                | zero_bytes(x ^ (ONES * u64::from(b'\\')));
            if hits != 0 {
                self.i += (hits.trailing_zeros() / 8) as usize;
                return;
            }
            self.i += 8;
        }
    }

    /// One escape sequence, accepted only in the form serde_json writes: the short forms
    /// for `"`, `\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00xx` (lowercase) for the other
    /// control characters.
    fn escape(&mut self) -> Option<()> {
        match *self.b.get(self.i + 1)? {
            b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => {
                self.i += 2;
                Some(())
            }
            b'u' => {
                let hex = self.b.get(self.i + 2..self.i + 6)?;
                let lower = |c: u8| matches!(c, b'0'..=b'9' | b'a'..=b'f');
                if &hex[..2] != b"00" || !lower(hex[2]) || !lower(hex[3]) {
                    return None;
                }
                let code = u8::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()?;
                if code >= 0x20 || matches!(code, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) {
                    return None;
                }
                self.i += 6;
                Some(())
            }
            _ => None,
        }
    }

    /// A string without escapes (keys, times, apiVersion): its text.
    pub(crate) fn plain_string(&mut self) -> Option<&'a str> {
        let (s, escaped) = self.string_escaped()?;
        (!escaped).then_some(s)
    }

    /// A non-empty string (metadata fields Go drops when empty).
    pub(crate) fn non_empty_string(&mut self) -> Option<()> {
        (!self.string()?.is_empty()).then_some(())
    }

    /// An RFC 3339 time exactly as metadata normalization prints it (UTC, seconds, `Z`).
    pub(crate) fn time(&mut self) -> Option<()> {
        let s = self.plain_string()?;
        if self.last_time == Some(s) {
            return Some(());
        }
        let t = DateTime::parse_from_rfc3339(s).ok()?;
        (t.with_timezone(&chrono::Utc)
            .to_rfc3339_opts(SecondsFormat::Secs, true)
            == s)
            .then_some(())?;
        self.last_time = Some(s);
        Some(())
    }

    fn number_token(&mut self) -> Option<&'a [u8]> {
        let start = self.i;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.i += 1;
        }
        (self.i > start).then(|| &self.b[start..self.i])
    }

    /// A number serde_json prints back unchanged.
    pub(crate) fn number(&mut self) -> Option<()> {
        let tok = self.number_token()?;
        if plain_int(tok).is_some() {
            return Some(());
        }
        // Fractions and exponents: let serde_json itself say how it prints the value back.
        let v: serde_json::Value = serde_json::from_slice(tok).ok()?;
        (serde_json::to_vec(&v).ok()? == tok).then_some(())
    }

    /// An integer that fits an `int64` (what metadata's integer fields hold).
    pub(crate) fn int64(&mut self) -> Option<i64> {
        let tok = self.number_token()?;
        match plain_int(tok)? {
            Int::Signed(n) => Some(n),
            Int::Unsigned(n) => i64::try_from(n).ok(),
        }
    }

    /// `true` or `false`.
    pub(crate) fn boolean(&mut self) -> Option<()> {
        match self.peek()? {
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            _ => None,
        }
    }

    /// A string, number or boolean (not `null`).
    pub(crate) fn scalar(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string().map(|_| ()),
            b't' | b'f' => self.boolean(),
            _ => self.number(),
        }
    }

    /// Any JSON value, `null` included, kept verbatim by a read (e.g. `fieldsV1`).
    pub(crate) fn verbatim(&mut self) -> Option<()> {
        match self.peek()? {
            b'{' => self.object(|s, _, _| s.verbatim()),
            b'[' => self.array(|s| s.verbatim()),
            b'n' => self.literal(b"null"),
            _ => self.scalar(),
        }
    }

    /// An object; `value` scans the value of each key (given with the key's start offset).
    /// Keys must be escape-free and strictly ascending.
    pub(crate) fn object(
        &mut self,
        mut value: impl FnMut(&mut Self, &'a str, usize) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        let mut last: Option<&str> = None;
        loop {
            let key_start = self.i;
            let key = self.plain_string()?;
            if last.is_some_and(|l| !precedes(l, key)) {
                return None;
            }
            last = Some(key);
            self.eat(b':')?;
            value(self, key, key_start)?;
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An array; `item` scans each element.
    pub(crate) fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            item(self)?;
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A non-empty array (metadata lists Go drops when empty).
    pub(crate) fn non_empty_array(
        &mut self,
        item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<()> {
        (self.b.get(self.i..self.i + 2)? != b"[]").then_some(())?;
        self.array(item)
    }

    /// A non-empty object (metadata maps Go drops when empty).
    pub(crate) fn non_empty_object(
        &mut self,
        value: impl FnMut(&mut Self, &'a str, usize) -> Option<()>,
    ) -> Option<()> {
        (self.b.get(self.i..self.i + 2)? != b"{}").then_some(())?;
        self.object(value)
    }
}

/// Whether `a` sorts strictly before `b` in byte order (a `BTreeMap<String, _>`'s order);
/// an inline loop, as keys are short and differ early.
pub(crate) fn precedes(a: &str, b: &str) -> bool {
    cmp_bytes(a.as_bytes(), b.as_bytes()).is_lt()
}

/// Byte-order comparison of short strings without a library call.
pub(crate) fn cmp_bytes(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

enum Int {
    Signed(i64),
    Unsigned(u64),
}

/// An integer token as serde_json prints it (`0`, `-7`, `42`; no `-0`, no leading zeros)
/// that it parses as an integer (not a float): u64 when non-negative, i64 when negative.
fn plain_int(tok: &[u8]) -> Option<Int> {
    let digits = tok.strip_prefix(b"-").unwrap_or(tok);
    let negative = digits.len() != tok.len();
    if digits.is_empty()
        || !digits.iter().all(u8::is_ascii_digit)
        || (digits[0] == b'0' && (digits.len() > 1 || negative))
    {
        return None;
    }
    let text = std::str::from_utf8(tok).ok()?;
    if negative {
        text.parse().ok().map(Int::Signed)
    } else {
        text.parse().ok().map(Int::Unsigned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verbatim_ok(json: &str) -> bool {
        let Some(mut s) = Scan::new(json.as_bytes()) else {
            return false;
        };
        s.verbatim().is_some() && s.at_end()
    }

    #[test]
    fn accepts_what_serde_json_writes() {
        let v = serde_json::json!({
            "a": [1, -2, 0, 0.5, 1e300, -0.0, 18446744073709551615u64, true, null],
            "b": "quote \" backslash \\ nl \n tab \t ctl \u{1} \u{1f} del \u{7f} é 😀 /",
            "c": {"x": {}, "y": []}
        });
        let bytes = serde_json::to_string(&v).unwrap();
        assert!(verbatim_ok(&bytes), "{bytes}");
    }

    #[test]
    fn finds_escapes_at_every_offset_of_long_strings() {
        for n in 0..40 {
            let text = format!(
                "{}\"{}\\{}",
                "a".repeat(n),
                "é".repeat(n % 5),
                "b".repeat(n)
            );
            let json = serde_json::to_string(&serde_json::json!({ "k": text })).unwrap();
            assert!(verbatim_ok(&json), "{json}");
            let bad = format!(r#"{{"k":"{}\/{}"}}"#, "a".repeat(n), "b".repeat(n));
            assert!(!verbatim_ok(&bad), "{bad}");
        }
    }

    #[test]
    fn refuses_unsorted_or_duplicate_keys() {
        assert!(!verbatim_ok(r#"{"b":1,"a":2}"#));
        assert!(!verbatim_ok(r#"{"a":1,"a":2}"#));
    }

    #[test]
    fn refuses_whitespace_and_non_canonical_scalars() {
        for json in [
            r#"{"a": 1}"#,
            r#"{"a":1.50}"#,
            r#"{"a":1e5}"#,
            r#"{"a":-0}"#,
            r#"{"a":01}"#,
            r#"{"a":18446744073709551616}"#,
            r#"{"a":"\u0041"}"#,
            r#"{"a":"\/"}"#,
            r#"{"a":"\u001F"}"#,
            r#"{"a":"\u000a"}"#,
            "{\"a\":\"raw \u{1} control\"}",
        ] {
            assert!(!verbatim_ok(json), "{json}");
        }
    }
}
