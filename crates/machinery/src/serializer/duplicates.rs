//! A one-pass scan of JSON text for object keys: finds duplicate keys (strict decoding,
//! R2.9–R2.10) and remembers where each key path first appears, so that strict errors can
//! be reported in document order. Iterative, depth-capped: hostile nesting cannot hurt it.

use std::collections::{HashMap, HashSet};

/// Deeper than this, the scan stops (the JSON decoder refuses such input anyway).
const MAX_DEPTH: usize = 256;

/// What the scan found.
#[derive(Debug, Default)]
pub(crate) struct KeyScan {
    /// `(offset, path)` of each repeated key, in document order.
    pub duplicates: Vec<(usize, String)>,
    /// Offset of the first occurrence of each key path.
    pub first_offsets: HashMap<String, usize>,
}

enum Frame {
    Object {
        path: String,
        keys: HashSet<String>,
        expect_key: bool,
    },
    Array {
        path: String,
        index: usize,
    },
}

fn join_key(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// Index just past the closing quote of the string starting at `start` (a `"`).
fn skip_string(data: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < data.len() {
        match data[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn decode_key(raw: &[u8]) -> String {
    let inner = &raw[1..raw.len() - 1];
    if inner.contains(&b'\\') {
        serde_json::from_slice::<String>(raw)
            .unwrap_or_else(|_| String::from_utf8_lossy(inner).into_owned())
    } else {
        String::from_utf8_lossy(inner).into_owned()
    }
}

/// The path of the value that starts now, given the innermost frame.
fn value_path(stack: &mut [Frame], pending_key: &Option<String>) -> String {
    match stack.last_mut() {
        None => String::new(),
        Some(Frame::Object { .. }) => pending_key.clone().unwrap_or_default(),
        Some(Frame::Array { path, index }) => format!("{path}[{index}]"),
    }
}

/// Scans `data`; malformed input just ends the scan early.
pub(crate) fn scan(data: &[u8]) -> KeyScan {
    let mut out = KeyScan::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut pending_key: Option<String> = None;
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'{' | b'[' => {
                if stack.len() >= MAX_DEPTH {
                    return out;
                }
                let path = value_path(&mut stack, &pending_key);
                stack.push(if data[i] == b'{' {
                    Frame::Object {
                        path,
                        keys: HashSet::new(),
                        expect_key: true,
                    }
                } else {
                    Frame::Array { path, index: 0 }
                });
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object { expect_key, .. }) => *expect_key = true,
                    Some(Frame::Array { index, .. }) => *index += 1,
                    None => {}
                }
                i += 1;
            }
            b'"' => {
                let Some(end) = skip_string(data, i) else {
                    return out;
                };
                if let Some(Frame::Object {
                    path,
                    keys,
                    expect_key,
                }) = stack.last_mut()
                    && *expect_key
                {
                    *expect_key = false;
                    let key = decode_key(&data[i..end]);
                    let full = join_key(path, &key);
                    if keys.contains(&key) {
                        out.duplicates.push((i, full.clone()));
                    } else {
                        keys.insert(key);
                    }
                    out.first_offsets.entry(full.clone()).or_insert(i);
                    pending_key = Some(full);
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// True when JSON `data` nests arrays/objects deeper than `limit`. serde_json checks depth
/// only for values it builds; values it skips (unknown fields) are not checked, so hostile
/// nesting there is caught by this tight byte loop instead.
pub(crate) fn nesting_exceeds(data: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = 0;
    while i < data.len() {
        let class = BYTE_CLASS[data[i] as usize];
        if class != PLAIN {
            match (in_string, class) {
                (_, QUOTE) => in_string = !in_string,
                (true, BACKSLASH) => i += 1,
                (false, OPEN) => {
                    depth += 1;
                    if depth > limit {
                        return true;
                    }
                }
                (false, CLOSE) => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        i += 1;
    }
    false
}

const PLAIN: u8 = 0;
const QUOTE: u8 = 1;
const BACKSLASH: u8 = 2;
const OPEN: u8 = 3;
const CLOSE: u8 = 4;

/// What each byte means to the depth scan; most bytes are PLAIN and cost one lookup.
static BYTE_CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    t[b'"' as usize] = QUOTE;
    t[b'\\' as usize] = BACKSLASH;
    t[b'{' as usize] = OPEN;
    t[b'[' as usize] = OPEN;
    t[b'}' as usize] = CLOSE;
    t[b']' as usize] = CLOSE;
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_finds_nested_duplicates_with_paths() {
        let s = scan(br#"{"a":{"b":1,"b":2},"l":[{"x":1},{"x":1,"x":2}],"a":3}"#);
        let paths: Vec<&str> = s.duplicates.iter().map(|d| d.1.as_str()).collect();
        assert_eq!(paths, ["a.b", "l[1].x", "a"]);
    }

    #[test]
    fn nesting_limit_ignores_brackets_in_strings() {
        assert!(!nesting_exceeds(br#"{"a":"[[[[[[","b":[[1]]}"#, 3));
        assert!(nesting_exceeds(b"[[[[1]]]]", 3));
        assert!(!nesting_exceeds(br#"["a\"[[[[", "\"#, 3));
        assert!(!nesting_exceeds(br#"""#, 3));
    }

    #[test]
    fn scan_survives_deep_nesting() {
        let data = "[".repeat(100_000);
        let s = scan(data.as_bytes());
        assert!(s.duplicates.is_empty());
    }
}
