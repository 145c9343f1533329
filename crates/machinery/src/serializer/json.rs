//! The JSON serializer: Kubernetes' decode rules (R2.2–R2.10) and Go-compatible output
//! (R2.14). The YAML serializer converts to JSON and reuses the decode path here.

use super::duplicates;
use super::go_json::GoFormatter;
use super::meta_find::find_gvk;
use super::{Decoder, Encoder};
use crate::runtime::{CONTENT_TYPE_JSON, Decoded, Error, Object, Result, Scheme, Unknown};
use crate::runtime::{Unstructured, UnstructuredList};
use crate::schema::GroupVersionKind;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// Deeper nesting is refused (serde_json's own recursion limit).
const MAX_DEPTH: usize = 128;

/// Strict errors beyond this many are dropped (R2.10).
const MAX_STRICT_ERRORS: usize = 100;

/// Options of the JSON and YAML serializers (Go's `json.SerializerOptions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SerializerOptions {
    /// Indent output by two spaces, no trailing newline.
    pub pretty: bool,
    /// Report unknown and duplicate fields.
    pub strict: bool,
}

/// JSON encoder/decoder over a Scheme.
#[derive(Debug, Clone)]
pub struct JsonSerializer {
    scheme: Arc<Scheme>,
    options: SerializerOptions,
}

/// Writes `value` as Go writes it; compact output has no newline here (the encoder adds it).
pub fn write_json<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>, pretty: bool) -> Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(&mut *out, GoFormatter::new(pretty));
    value
        .serialize(&mut ser)
        .map_err(|e| Error::Encode(e.to_string()))
}

fn decode_error(e: serde_json::Error) -> Error {
    Error::Decode(e.to_string())
}

/// Re-encodes JSON with repeated keys collapsed, the last one winning (as Go decodes).
fn last_key_wins(data: &[u8]) -> Result<Vec<u8>> {
    let value: serde_json::Value = serde_json::from_slice(data).map_err(decode_error)?;
    serde_json::to_vec(&value).map_err(decode_error)
}

fn format_path(p: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match p {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", format_path(parent)),
        Path::Map { parent, key } => {
            let parent = format_path(parent);
            if parent.is_empty() {
                key.clone()
            } else {
                format!("{parent}.{key}")
            }
        }
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => format_path(parent),
    }
}

/// Decodes JSON into `T` the Kubernetes way: case-sensitive fields, unknown fields dropped,
/// repeated keys last-wins. With `strict`, also returns one message per unknown or
/// duplicate field, in document order (R2.8–R2.10).
pub fn decode_typed<T: DeserializeOwned>(data: &[u8], strict: bool) -> Result<(T, Vec<String>)> {
    if duplicates::nesting_exceeds(data, MAX_DEPTH) {
        return Err(Error::Decode(format!(
            "json: exceeded max depth of {MAX_DEPTH}"
        )));
    }
    if !strict {
        return match serde_json::from_slice::<T>(data) {
            Ok(v) => Ok((v, Vec::new())),
            Err(e) if e.to_string().starts_with("duplicate field") => {
                let collapsed = last_key_wins(data)?;
                Ok((
                    serde_json::from_slice(&collapsed).map_err(decode_error)?,
                    Vec::new(),
                ))
            }
            Err(e) => Err(decode_error(e)),
        };
    }
    let scan = duplicates::scan(data);
    let collapsed;
    let bytes = if scan.duplicates.is_empty() {
        data
    } else {
        collapsed = last_key_wins(data)?;
        &collapsed
    };
    let mut unknown: Vec<String> = Vec::new();
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_ignored::deserialize(&mut de, |p| unknown.push(format_path(&p)))
        .map_err(decode_error)?;
    de.end().map_err(decode_error)?;
    Ok((value, strict_messages(&scan, unknown)))
}

fn strict_messages(scan: &duplicates::KeyScan, unknown: Vec<String>) -> Vec<String> {
    let mut found: Vec<(usize, String)> = unknown
        .into_iter()
        .map(|p| {
            let at = scan.first_offsets.get(&p).copied().unwrap_or(usize::MAX);
            (at, format!("unknown field {p:?}"))
        })
        .collect();
    found.extend(
        scan.duplicates
            .iter()
            .map(|(at, p)| (*at, format!("duplicate field {p:?}"))),
    );
    found.sort_by_key(|f| f.0);
    let mut out: Vec<String> = Vec::new();
    for (_, msg) in found {
        if !out.contains(&msg) && out.len() < MAX_STRICT_ERRORS {
            out.push(msg);
        }
    }
    out
}

/// Fills what the data left out from `defaults` (R2.3).
pub fn gvk_with_defaults(
    mut actual: GroupVersionKind,
    defaults: &GroupVersionKind,
) -> GroupVersionKind {
    if actual.kind.is_empty() {
        actual.kind = defaults.kind.clone();
    }
    if actual.version.is_empty() && actual.group.is_empty() {
        actual.group = defaults.group.clone();
        actual.version = defaults.version.clone();
    }
    if actual.version.is_empty() && actual.group == defaults.group {
        actual.version = defaults.version.clone();
    }
    actual
}

fn with_strict(decoded: Decoded, problems: Vec<String>) -> Result<Decoded> {
    if problems.is_empty() {
        Ok(decoded)
    } else {
        Err(Error::strict(problems, Some(decoded)))
    }
}

/// The shared decode path of JSON and YAML (R2.3–R2.9). `json` is the JSON text,
/// `original` the bytes as received (kept by `Unknown`), `extra` strict problems found
/// before (YAML duplicate keys).
pub(crate) fn decode_json_with_rules(
    scheme: &Scheme,
    json: &[u8],
    original: &[u8],
    defaults: Option<&GroupVersionKind>,
    into: Option<&dyn Object>,
    strict: bool,
    extra: Vec<String>,
) -> Result<Decoded> {
    let mut actual = find_gvk(json)?;
    if let Some(d) = defaults {
        actual = gvk_with_defaults(actual, d);
    }
    let mut into_kinds = Vec::new();
    if let Some(into) = into {
        if into.is::<Unknown>() {
            let mut unknown = Unknown {
                raw: original.to_vec(),
                content_type: CONTENT_TYPE_JSON.into(),
                ..Unknown::default()
            };
            unknown.set_group_version_kind(&actual);
            return Ok(Decoded {
                object: Box::new(unknown),
                gvk: actual,
            });
        }
        let unstructured = into.is::<Unstructured>() || into.is::<UnstructuredList>();
        match scheme.object_kinds(into) {
            Err(e) if !(unstructured || e.is_not_registered()) => return Err(e),
            Ok((kinds, _)) if !unstructured => {
                actual = gvk_with_defaults(actual, &kinds[0]);
                into_kinds = kinds;
            }
            _ => return decode_direct(json, original, into, strict, extra, actual),
        }
    }
    if actual.kind.is_empty() {
        return Err(Error::MissingKind {
            data: String::from_utf8_lossy(original).into_owned(),
        });
    }
    if actual.version.is_empty() {
        return Err(Error::MissingVersion {
            data: String::from_utf8_lossy(original).into_owned(),
        });
    }
    let mut obj = match into {
        Some(into) if into_kinds.contains(&actual) => into.new_empty(),
        _ => scheme.new_object(&actual)?,
    };
    let mut problems = extra;
    problems.extend(obj.decode_json(json, strict)?);
    with_strict(
        Decoded {
            object: obj,
            gvk: actual,
        },
        problems,
    )
}

/// `into` is Unstructured or not registered: decode straight into its type (R2.5).
fn decode_direct(
    json: &[u8],
    original: &[u8],
    into: &dyn Object,
    strict: bool,
    extra: Vec<String>,
    actual: GroupVersionKind,
) -> Result<Decoded> {
    let mut obj = into.new_empty();
    let mut problems = extra;
    problems.extend(obj.decode_json(json, strict)?);
    let unstructured = obj.is::<Unstructured>() || obj.is::<UnstructuredList>();
    let gvk = if unstructured {
        obj.group_version_kind()
    } else {
        actual
    };
    if unstructured && gvk.kind.is_empty() {
        return Err(Error::MissingKind {
            data: String::from_utf8_lossy(original).into_owned(),
        });
    }
    with_strict(Decoded { object: obj, gvk }, problems)
}

impl JsonSerializer {
    /// A JSON serializer that creates objects through `scheme`.
    pub fn new(scheme: Arc<Scheme>, options: SerializerOptions) -> Self {
        Self { scheme, options }
    }

    /// True when the data looks like JSON: first non-space byte is `{` (R2.13).
    pub fn recognizes_data(data: &[u8]) -> bool {
        data.iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| *b == b'{')
    }
}

impl Encoder for JsonSerializer {
    /// Compact output ends with `\n`; pretty output has none (R2.14).
    fn encode(&self, obj: &dyn Object, out: &mut Vec<u8>) -> Result<()> {
        obj.encode_json(out, self.options.pretty)?;
        if !self.options.pretty {
            out.push(b'\n');
        }
        Ok(())
    }

    fn identifier(&self) -> String {
        format!(
            r#"{{"name":"json","pretty":"{}","strict":"{}","yaml":"false"}}"#,
            self.options.pretty, self.options.strict
        )
    }
}

impl Decoder for JsonSerializer {
    fn decode(
        &self,
        data: &[u8],
        defaults: Option<&GroupVersionKind>,
        into: Option<&dyn Object>,
    ) -> Result<Decoded> {
        decode_json_with_rules(
            &self.scheme,
            data,
            data,
            defaults,
            into,
            self.options.strict,
            Vec::new(),
        )
    }
}
