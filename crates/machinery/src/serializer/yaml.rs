//! The YAML serializer: YAML is converted to JSON and decoded by the JSON rules (R2.1,
//! R2.12); output is the JSON form written as YAML with sorted keys (R2.14). Integers stay
//! integers. Depth is capped so hostile nesting errors instead of overflowing the stack.

use super::json::decode_json_with_rules;
use super::yaml_fast::fast_yaml_to_value;
use super::{Decoder, Encoder};
use crate::runtime::{Decoded, Error, Object, Result, Scheme};
use crate::schema::GroupVersionKind;
use serde_saphyr::{DuplicateKeyPolicy, Options};
use std::collections::HashSet;
use std::sync::Arc;

/// Nesting deeper than this is refused. Lower than serde_json's 128: the YAML parser and
/// the JSON value builder recurse together and must fit a 2 MiB thread stack (tokio's
/// worker default) even in debug builds.
const MAX_DEPTH: usize = 64;

fn parse_options(duplicates: DuplicateKeyPolicy) -> Options {
    let mut options = Options::default();
    options.duplicate_keys = duplicates;
    options.legacy_octal_numbers = true;
    if let Some(budget) = options.budget.as_mut() {
        budget.max_depth = MAX_DEPTH;
    }
    options
}

fn yaml_error(e: serde_saphyr::Error) -> Error {
    Error::Decode(format!("error converting YAML to JSON: {e}"))
}

/// The first YAML document as a JSON value; later documents are ignored (R2.12). Repeated
/// keys pass through to the JSON map, where the last one wins.
pub fn yaml_to_value(data: &[u8]) -> Result<serde_json::Value> {
    if let Ok(text) = std::str::from_utf8(data)
        && let Some(value) = fast_yaml_to_value(text, MAX_DEPTH, &resolve_plain_scalar)
    {
        return Ok(value);
    }
    general_yaml_to_value(data)
}

/// A plain scalar's value by the general path's rules (it is read as a document of its
/// own); `None` if that is an error.
fn resolve_plain_scalar(text: &str) -> Option<serde_json::Value> {
    general_yaml_to_value(text.as_bytes()).ok()
}

/// [`yaml_to_value`] through serde-saphyr alone.
fn general_yaml_to_value(data: &[u8]) -> Result<serde_json::Value> {
    let docs: Vec<serde_json::Value> = serde_saphyr::from_slice_multiple_with_options(
        data,
        parse_options(DuplicateKeyPolicy::PassThrough),
    )
    .map_err(yaml_error)?;
    Ok(docs.into_iter().next().unwrap_or(serde_json::Value::Null))
}

/// The first YAML document as JSON text (Go's `yaml.YAMLToJSON`).
pub fn yaml_to_json(data: &[u8]) -> Result<Vec<u8>> {
    let value = yaml_to_value(data)?;
    serde_json::to_vec(&value).map_err(|e| Error::Decode(e.to_string()))
}

/// A collection being walked by the duplicate-key check.
enum Frame {
    /// A mapping: the keys seen, and whether the next child node is a key.
    Map {
        keys: HashSet<String>,
        expect_key: bool,
    },
    Seq,
}

/// Notes that a child node starts; returns true if it is a mapping key.
fn child_is_key(stack: &mut [Frame]) -> bool {
    match stack.last_mut() {
        Some(Frame::Map { expect_key, .. }) => {
            let is_key = *expect_key;
            *expect_key = !is_key;
            is_key
        }
        _ => false,
    }
}

/// Strict YAML check: every repeated mapping key of the first document, in go-yaml's
/// wording (R2.11): `yaml: unmarshal errors:\n  line N: key "k" already set in map`.
fn yaml_duplicate_problems(data: &[u8]) -> Vec<String> {
    use serde_saphyr::granit_parser::{Event, Parser};
    let Ok(text) = std::str::from_utf8(data) else {
        return Vec::new();
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut found: Vec<String> = Vec::new();
    let mut documents = 0;
    for item in Parser::new_from_str(text) {
        let Ok((event, span)) = item else { break };
        match event {
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    break;
                }
            }
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                child_is_key(&mut stack);
                if stack.len() >= MAX_DEPTH {
                    break;
                }
                let is_map = matches!(event, Event::MappingStart(..));
                stack.push(if is_map {
                    Frame::Map {
                        keys: HashSet::new(),
                        expect_key: true,
                    }
                } else {
                    Frame::Seq
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
            }
            Event::Scalar(value, ..) => {
                if child_is_key(&mut stack)
                    && let Some(Frame::Map { keys, .. }) = stack.last_mut()
                    && !keys.insert(value.to_string())
                {
                    found.push(format!(
                        "line {}: key {:?} already set in map",
                        span.start.line(),
                        value
                    ));
                }
            }
            Event::Alias(..) => {
                child_is_key(&mut stack);
            }
            _ => {}
        }
    }
    if found.is_empty() {
        return Vec::new();
    }
    vec![format!("yaml: unmarshal errors:\n  {}", found.join("\n  "))]
}

/// Splits a YAML stream into documents at lines starting with `---` (R2.24).
pub fn split_documents(data: &[u8]) -> Vec<&[u8]> {
    let mut docs = Vec::new();
    let mut start = 0;
    let mut line_start = 0;
    while line_start < data.len() {
        let line_end = data[line_start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(data.len(), |p| line_start + p + 1);
        if data[line_start..].starts_with(b"---") {
            docs.push(&data[start..line_start]);
            start = line_end;
        }
        line_start = line_end;
    }
    docs.push(&data[start..]);
    docs.into_iter().filter(|d| !is_only_comments(d)).collect()
}

fn is_only_comments(doc: &[u8]) -> bool {
    doc.split(|b| *b == b'\n').all(|line| {
        let t = line.trim_ascii();
        t.is_empty() || t.starts_with(b"#")
    })
}

/// Writes a JSON value as YAML the way `sigs.k8s.io/yaml.JSONToYAML` does.
pub fn value_to_yaml(value: &serde_json::Value, out: &mut Vec<u8>) -> Result<()> {
    let mut options = serde_saphyr::SerializerOptions::default();
    options.folded_wrap_chars = usize::MAX / 2;
    let text = serde_saphyr::to_string_with_options(value, options)
        .map_err(|e| Error::Encode(e.to_string()))?;
    out.extend_from_slice(text.as_bytes());
    if !text.ends_with('\n') {
        out.push(b'\n');
    }
    Ok(())
}

/// YAML encoder/decoder over a Scheme.
#[derive(Debug, Clone)]
pub struct YamlSerializer {
    scheme: Arc<Scheme>,
    strict: bool,
}

impl YamlSerializer {
    /// A YAML serializer creating objects through `scheme`.
    pub fn new(scheme: Arc<Scheme>, strict: bool) -> Self {
        Self { scheme, strict }
    }

    /// Decodes every document of a YAML stream, in order.
    pub fn decode_all(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Vec<Result<Decoded>> {
        split_documents(data)
            .into_iter()
            .map(|doc| self.decode(doc, defaults, into))
            .collect()
    }
}

impl Encoder for YamlSerializer {
    fn encode(&self, obj: &dyn Object, out: &mut Vec<u8>) -> Result<()> {
        value_to_yaml(&obj.to_json_value()?, out)
    }

    fn identifier(&self) -> String {
        format!(
            r#"{{"name":"json","pretty":"false","strict":"{}","yaml":"true"}}"#,
            self.strict
        )
    }
}

impl Decoder for YamlSerializer {
    fn decode(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        let json = yaml_to_json(data)?;
        let extra = if self.strict {
            yaml_duplicate_problems(data)
        } else {
            Vec::new()
        };
        decode_json_with_rules(
            &self.scheme,
            &json,
            data,
            defaults,
            into,
            self.strict,
            extra,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Documents the fast path reads itself or through per-scalar resolution.
    const CORPUS: &[&str] = &[
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: {app: web}\ndata:\n  a: one two\n",
        "a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: True\ng: NULL\nh: ~\ni:\nj: null\n",
        "a: 0755\nb: 1_000\nc: 0x1F\nd: -3\ne: +4\nf: 1.5\ng: 1e3\nh: .inf\ni: -.Inf\nj: .nan\n",
        "a: 0\nb: 123456789012345678\nc: 12345678901234567890\nd: 2026-11-29T16:06:12Z\ne: 2026-11-29\n",
        "a: 190:20:30\nb: 1:2\nc: 0b101\nd: 0o17\ne: 08\nf: '5'\ng: \"x\\ty\"\n",
        "list:\n- a\n- 1\n- [b, 2, {c: d}]\n- |\n  literal\n  text\n- >\n  folded\n  text\n",
        "'quoted key': 1\n\"dq\": 2\nplain: 3\n",
        "a: x\na: y\n",
        "a: über\nb: ünïcödé text\n",
        "a: inf\nb: nan\nc: Infinity\nd: NaN\ne: e5\nf: x1\n",
        "a: multi\n  line plain\n",
        "a: -\nb: .\nc: +\n",
        "{}",
        "[]",
        "just a string",
        "42",
    ];

    fn both_paths(
        doc: &str,
    ) -> (
        std::result::Result<serde_json::Value, String>,
        std::result::Result<serde_json::Value, String>,
    ) {
        let text = |r: Result<serde_json::Value>| r.map_err(|e| e.to_string());
        (
            text(yaml_to_value(doc.as_bytes())),
            text(general_yaml_to_value(doc.as_bytes())),
        )
    }

    #[test]
    fn fast_path_gives_the_general_paths_values_and_errors() {
        for doc in CORPUS {
            let (fast, general) = both_paths(doc);
            assert_eq!(fast, general, "{doc}");
        }
    }

    #[test]
    fn fast_path_reads_plain_api_objects_itself() {
        assert!(fast_yaml_to_value(CORPUS[0], MAX_DEPTH, &|_| None).is_some());
    }

    #[test]
    fn keys_the_fast_path_leaves_alone_decode_as_before() {
        for doc in [
            "yes: 1\nno: 2\n",
            "1: a\n",
            "~: a\n",
            "true: x\n",
            "<<: {a: 1}\n",
        ] {
            let (fast, general) = both_paths(doc);
            assert_eq!(fast, general, "{doc}");
        }
    }
}
