//! The YAML serializer: YAML is converted to JSON and decoded by the JSON rules (R2.1,
//! R2.12); output is the JSON form written as YAML with sorted keys (R2.14). Integers stay
//! integers. Depth is capped so hostile nesting errors instead of overflowing the stack.

use super::json::decode_json_with_rules;
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
