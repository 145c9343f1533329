//! A fast path for YAML → JSON value: the parser's events are turned into a
//! `serde_json::Value` directly, for the common shape of API objects (one document, block
//! or flow collections, string keys, no anchors, aliases, tags or merge keys).
//!
//! Anything outside that shape returns `None` and the caller takes the general path
//! (serde-saphyr), so results and errors stay those of the general path. Plain scalars
//! are resolved here only when the answer is certain (a string starting with a letter
//! that is no YAML 1.1 bool or null word, a null word, a plain decimal integer); any other
//! plain scalar (floats, octal/hex, `1_000`, `yes`-like words, ...) is resolved by the
//! general path on its own text, so the YAML 1.1 rules live in one place.

use serde_json::{Map, Number, Value};
use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle};

/// Node count beyond which the general path takes over: well below serde-saphyr's budget
/// (250 000 nodes, 1 000 000 events), so that its budget errors stay the same.
const MAX_NODES: usize = 200_000;

/// Input size beyond which the general path takes over (its scalar-bytes budget is 64 MiB).
const MAX_INPUT_BYTES: usize = 32 << 20;

/// A collection being built.
enum Frame {
    Map(Map<String, Value>, Option<String>),
    Seq(Vec<Value>),
}

/// The first document of `text` as a JSON value, or `None` when the general path must
/// decide. `max_depth` is the general path's nesting limit.
pub(super) fn fast_yaml_to_value(
    text: &str,
    max_depth: usize,
    resolve: &dyn Fn(&str) -> Option<Value>,
) -> Option<Value> {
    if text.starts_with('\u{feff}') || text.len() > MAX_INPUT_BYTES {
        return None;
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Value> = None;
    let mut documents = 0;
    let mut nodes = 0;
    for item in Parser::new_from_str(text) {
        let (event, _) = item.ok()?;
        let value = match event {
            Event::StreamStart | Event::DocumentEnd | Event::Comment(..) => continue,
            Event::StreamEnd => break,
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    return None;
                }
                continue;
            }
            Event::MappingStart(_, 0, None) | Event::SequenceStart(_, 0, None) => {
                nodes += 1;
                // Stay clear of the limit: the general path reports it.
                if stack.len() + 2 >= max_depth || nodes > MAX_NODES {
                    return None;
                }
                if matches!(event, Event::MappingStart(..)) {
                    if is_key_position(&stack) {
                        return None;
                    }
                    stack.push(Frame::Map(Map::new(), None));
                } else {
                    if is_key_position(&stack) {
                        return None;
                    }
                    stack.push(Frame::Seq(Vec::new()));
                }
                continue;
            }
            Event::MappingEnd => match stack.pop()? {
                Frame::Map(map, None) => Value::Object(map),
                _ => return None,
            },
            Event::SequenceEnd => match stack.pop()? {
                Frame::Seq(items) => Value::Array(items),
                Frame::Map(..) => return None,
            },
            Event::Scalar(text, style, 0, None) => {
                nodes += 1;
                if nodes > MAX_NODES {
                    return None;
                }
                if is_key_position(&stack) {
                    let key = key_text(&text, style)?;
                    if let Some(Frame::Map(_, pending)) = stack.last_mut() {
                        *pending = Some(key);
                    }
                    continue;
                }
                scalar_value(&text, style, resolve)?
            }
            _ => return None,
        };
        match stack.last_mut() {
            Some(Frame::Map(map, pending)) => {
                map.insert(pending.take()?, value);
            }
            Some(Frame::Seq(items)) => items.push(value),
            None => root = Some(value),
        }
    }
    if documents != 1 || !stack.is_empty() {
        return None;
    }
    root
}

/// True when the next node of the innermost collection is a mapping key.
fn is_key_position(stack: &[Frame]) -> bool {
    matches!(stack.last(), Some(Frame::Map(_, None)))
}

/// A mapping key, when certain: quoted text, or a plain word that starts with a letter and
/// is no bool or null word (the general path passes such keys through as text; `null: a`
/// is an error there); never the merge key `<<`.
fn key_text(text: &str, style: ScalarStyle) -> Option<String> {
    match style {
        ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => Some(text.to_owned()),
        ScalarStyle::Plain
            if text.as_bytes().first()?.is_ascii_alphabetic() && !is_bool_or_null_word(text) =>
        {
            Some(text.to_owned())
        }
        _ => None,
    }
}

/// YAML 1.1 bool words (any case, as the general path reads them) and null words.
fn is_bool_or_null_word(text: &str) -> bool {
    const WORDS: [&str; 9] = ["y", "yes", "true", "on", "n", "no", "false", "off", "null"];
    text.len() <= 5 && WORDS.iter().any(|w| text.eq_ignore_ascii_case(w))
}

fn scalar_value(
    text: &str,
    style: ScalarStyle,
    resolve: &dyn Fn(&str) -> Option<Value>,
) -> Option<Value> {
    if style != ScalarStyle::Plain {
        return Some(Value::String(text.to_owned()));
    }
    if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        return Some(Value::Null);
    }
    let first = *text.as_bytes().first()?;
    if (first.is_ascii_alphabetic() || !first.is_ascii()) && !is_bool_or_null_word(text) {
        return Some(Value::String(text.to_owned()));
    }
    if let Some(n) = plain_decimal(text) {
        return Some(Value::Number(n));
    }
    // `resolve` reads the scalar's text as a document of its own: sound only for one line
    // that is no document marker (a folded line break or a leading `---`/`...` would be
    // read again), so anything else goes to the general path whole.
    if text.contains(['\n', '\r']) || text.starts_with("---") || text.starts_with("...") {
        return None;
    }
    resolve(text)
}

/// A decimal integer without sign, leading zeros or underscores that fits an `i64`.
fn plain_decimal(text: &str) -> Option<Number> {
    let bytes = text.as_bytes();
    let ok = (bytes == b"0" || (bytes.len() <= 18 && bytes[0] != b'0'))
        && bytes.iter().all(u8::is_ascii_digit);
    ok.then(|| text.parse::<i64>().ok().map(Number::from))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_resolve(_: &str) -> Option<Value> {
        None
    }

    fn fast(text: &str) -> Option<Value> {
        fast_yaml_to_value(text, 64, &no_resolve)
    }

    #[test]
    fn plain_words_numbers_and_nulls_are_resolved() {
        let v = fast("a: word\nb: 42\nc: ~\nd:\ne: 'yes'\nf: [x, 0]\n").unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": "word", "b": 42, "c": null, "d": null, "e": "yes", "f": ["x", 0]})
        );
    }

    fn resolved_by_the_general_rules(doc: &str) -> Option<Value> {
        let mark = |t: &str| Some(Value::String(format!("general:{t}")));
        fast_yaml_to_value(doc, 64, &mark)?.get("a").cloned()
    }

    #[test]
    fn bool_words_are_resolved_by_the_general_rules() {
        for word in ["yes", "True", "off", "N"] {
            let doc = format!("a: {word}\n");
            assert_eq!(
                resolved_by_the_general_rules(&doc),
                Some(Value::String(format!("general:{word}")))
            );
        }
    }

    #[test]
    fn numbers_other_than_plain_decimals_are_resolved_by_the_general_rules() {
        for number in ["0755", "1_000", "1.5", "-3", "0x1F", "1e3"] {
            let doc = format!("a: {number}\n");
            assert_eq!(
                resolved_by_the_general_rules(&doc),
                Some(Value::String(format!("general:{number}")))
            );
        }
    }

    #[test]
    fn anchors_aliases_tags_and_merge_keys_go_to_the_general_path() {
        for text in [
            "a: &x 1\nb: *x\n",
            "a: !!str 5\n",
            "base: {x: 1}\nm:\n  <<: {y: 2}\n",
            "a: 1\n---\nb: 2\n",
            "? [a]\n: 1\n",
        ] {
            assert_eq!(fast(text), None, "{text}");
        }
    }

    #[test]
    fn repeated_key_keeps_the_last_value() {
        assert_eq!(fast("a: p\na: q\n"), Some(serde_json::json!({"a": "q"})));
    }

    #[test]
    fn nesting_near_the_limit_goes_to_the_general_path() {
        let deep = format!("{}1{}", "[".repeat(70), "]".repeat(70));
        assert_eq!(fast(&deep), None);
    }
}
