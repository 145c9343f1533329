//! Label and field selectors (`labelSelector`, `fieldSelector`) parsed from their string
//! forms and matched against objects.

use crate::error::Error;

/// One requirement of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    /// `key` (exists).
    Exists(String),
    /// `!key` (does not exist).
    NotExists(String),
    /// `key=v`, `key==v`, `key in (a,b)`.
    In(String, Vec<String>),
    /// `key!=v`, `key notin (a,b)`.
    NotIn(String, Vec<String>),
}

impl Requirement {
    fn key(&self) -> &str {
        match self {
            Requirement::Exists(k)
            | Requirement::NotExists(k)
            | Requirement::In(k, _)
            | Requirement::NotIn(k, _) => k,
        }
    }

    fn matches(&self, value: Option<&str>) -> bool {
        match self {
            Requirement::Exists(_) => value.is_some(),
            Requirement::NotExists(_) => value.is_none(),
            Requirement::In(_, vs) => value.is_some_and(|v| vs.iter().any(|x| x == v)),
            Requirement::NotIn(_, vs) => !value.is_some_and(|v| vs.iter().any(|x| x == v)),
        }
    }
}

/// A conjunction of requirements; empty matches everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector(pub Vec<Requirement>);

impl Selector {
    /// True when there are no requirements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Matches a set of (key, value) pairs.
    pub fn matches(&self, pairs: &[(&str, &str)]) -> bool {
        self.0.iter().all(|r| {
            let v = pairs.iter().find(|(k, _)| *k == r.key()).map(|(_, v)| *v);
            r.matches(v)
        })
    }

    /// The keys the selector mentions.
    pub fn keys(&self) -> Vec<&str> {
        self.0.iter().map(Requirement::key).collect()
    }
}

/// Splits at top-level commas (not inside parentheses).
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0usize, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn set_values(rest: &str) -> Option<Vec<String>> {
    let inner = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
    Some(
        inner
            .split(',')
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .collect(),
    )
}

fn parse_requirement(raw: &str) -> Option<Requirement> {
    let t = raw.trim();
    if let Some(k) = t.strip_prefix('!') {
        return Some(Requirement::NotExists(k.trim().to_owned()));
    }
    for (op, neg) in [("!=", true), ("==", false), ("=", false)] {
        if let Some((k, v)) = t.split_once(op) {
            let (k, v) = (k.trim().to_owned(), vec![v.trim().to_owned()]);
            return Some(if neg {
                Requirement::NotIn(k, v)
            } else {
                Requirement::In(k, v)
            });
        }
    }
    if let Some((k, rest)) = t.split_once(" notin ") {
        return Some(Requirement::NotIn(k.trim().to_owned(), set_values(rest)?));
    }
    if let Some((k, rest)) = t.split_once(" in ") {
        return Some(Requirement::In(k.trim().to_owned(), set_values(rest)?));
    }
    if t.is_empty() || t.contains(char::is_whitespace) {
        return None;
    }
    Some(Requirement::Exists(t.to_owned()))
}

/// Parses a label selector (`a=b,c!=d,e in (f,g),!h,i`).
pub fn parse_labels(s: &str) -> Result<Selector, Error> {
    if s.trim().is_empty() {
        return Ok(Selector::default());
    }
    split_top(s)
        .into_iter()
        .map(|r| {
            parse_requirement(r).ok_or_else(|| {
                Error::bad_request(format!(
                    "unable to parse requirement: found '{}', expected: identifier",
                    r.trim()
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Selector)
}

/// Parses a field selector (`a=b,c!=d`; only equality operators).
pub fn parse_fields(s: &str) -> Result<Selector, Error> {
    if s.trim().is_empty() {
        return Ok(Selector::default());
    }
    s.split(',')
        .map(|r| match parse_requirement(r) {
            Some(req @ (Requirement::In(..) | Requirement::NotIn(..))) if !r.contains('(') => {
                Ok(req)
            }
            _ => Err(Error::bad_request(format!(
                "invalid selector: '{s}'; can't understand '{}'",
                r.trim()
            ))),
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Selector)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_selector_supports_all_operators() {
        let s = parse_labels("a=1,b!=2,c in (x, y),d notin (z),e,!f").unwrap();
        assert!(s.matches(&[("a", "1"), ("c", "y"), ("e", "")]));
        assert!(!s.matches(&[("a", "1"), ("c", "y"), ("e", ""), ("f", "")]));
        assert!(!s.matches(&[("a", "1"), ("b", "2"), ("c", "x"), ("e", "")]));
    }

    #[test]
    fn not_exists_selector_matches_objects_without_the_label() {
        let s = parse_labels("!app").unwrap();
        assert!(s.matches(&[("tier", "x")]));
        assert!(!s.matches(&[("app", "x")]));
    }

    #[test]
    fn field_selector_rejects_set_operators() {
        assert!(parse_fields("metadata.name in (a)").is_err());
        assert!(parse_fields("metadata.name==a").is_ok());
    }
}
