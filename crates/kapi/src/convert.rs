//! `kapi convert`: offline conversion of built-in objects between versions.
//!
//! Like the kubectl-convert plugin, each object ends up as kube-apiserver would return it
//! after a create in its own version and a read in the output version: the input version's
//! defaults, conversion through the hub to the storage version, the defaults applied on
//! decode, then conversion to the output version. Objects of other groups keep their version.

use kapi_machinery::runtime::{Object, Scheme};
use kapi_machinery::schema::{GroupVersion, GroupVersionKind};
use kapi_machinery::serializer::yaml;
use serde_json::Value;
use std::io::{Read, Write};
use std::process::ExitCode;

/// Flags of `kapi convert`.
#[derive(clap::Args)]
pub struct ConvertArgs {
    /// File with the objects to convert (JSON or YAML, several documents allowed); `-` reads stdin.
    #[arg(short = 'f', long = "filename")]
    pub(crate) filename: String,
    /// The group/version to convert to, e.g. `autoscaling/v2` or `v1`.
    #[arg(long = "output-version", required_unless_present = "round_trip")]
    pub(crate) output_version: Option<String>,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = OutputFormat::Yaml)]
    pub(crate) output: OutputFormat,
    /// A CustomResourceDefinition file: convert its custom resources through its conversion
    /// strategy (None or Webhook) instead of built-in objects.
    #[arg(long = "crd")]
    pub(crate) crd: Option<String>,
    /// Where a `clientConfig.service` webhook is reached: `namespace/name=host:port` (repeatable).
    #[arg(long = "service-resolver", requires = "crd")]
    pub(crate) service_resolver: Vec<String>,
    /// Convert every object A→B→A for every pair of served versions and report each field
    /// that does not survive (exit status 1 if any is lost).
    #[arg(long = "round-trip", requires = "crd")]
    pub(crate) round_trip: bool,
    /// With --round-trip: also N objects per served version generated from its schema.
    #[arg(long = "generated", requires = "round_trip", default_value_t = 0)]
    pub(crate) generated: usize,
}

/// How the converted objects are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OutputFormat {
    /// One JSON object; several objects become a `v1` `List`.
    Json,
    /// A YAML stream, one document per object (a `List` in stays a `List` out).
    Yaml,
}

/// Converts the input documents (built-in objects) and prints them; `--crd` is
/// `convert_cr`'s.
pub fn run(args: ConvertArgs) -> ExitCode {
    match convert(&args) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            if stdout.write_all(&out).and_then(|_| stdout.flush()).is_err() {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The documents of the input: each is one object, or a `List` of objects.
pub(crate) struct Input {
    pub(crate) docs: Vec<Value>,
}

pub(crate) fn read_input(filename: &str) -> Result<Vec<u8>, String> {
    let mut data = Vec::new();
    if filename == "-" {
        std::io::stdin()
            .read_to_end(&mut data)
            .map_err(|e| format!("reading stdin: {e}"))?;
    } else {
        data = std::fs::read(filename).map_err(|e| format!("reading {filename}: {e}"))?;
    }
    Ok(data)
}

pub(crate) fn parse_documents(data: &[u8]) -> Result<Input, String> {
    let first = data.iter().find(|b| !b.is_ascii_whitespace());
    let mut docs = Vec::new();
    if first == Some(&b'{') {
        // One or more concatenated JSON objects.
        let stream = serde_json::Deserializer::from_slice(data).into_iter::<Value>();
        for (i, doc) in stream.enumerate() {
            docs.push(doc.map_err(|e| format!("document {}: {e}", i + 1))?);
        }
    } else {
        for (i, text) in yaml::split_documents(data).into_iter().enumerate() {
            let doc = yaml::yaml_to_value(text).map_err(|e| format!("document {}: {e}", i + 1))?;
            docs.push(doc);
        }
    }
    Ok(Input { docs })
}

pub(crate) fn is_list(doc: &Value) -> bool {
    doc.get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"))
        && doc.get("items").is_some_and(Value::is_array)
}

fn convert(args: &ConvertArgs) -> Result<Vec<u8>, String> {
    let output_version = args
        .output_version
        .as_deref()
        .ok_or("--output-version is required")?;
    let target = GroupVersion::parse(output_version)
        .map_err(|e| format!("--output-version {output_version:?}: {}", e.0))?;
    let scheme = kapi_api::new_scheme().map_err(|e| format!("building the scheme: {e}"))?;
    let input = parse_documents(&read_input(&args.filename)?)?;
    let list_in = input.docs.len() == 1 && is_list(&input.docs[0]);
    let mut converted = Vec::new();
    for (i, doc) in input.docs.iter().enumerate() {
        let label = format!("document {}", i + 1);
        match doc
            .get("items")
            .and_then(Value::as_array)
            .filter(|_| is_list(doc))
        {
            Some(items) => {
                for (j, item) in items.iter().enumerate() {
                    let label = format!("{label}, item {}", j + 1);
                    converted.push(
                        convert_object(&scheme, item, &target)
                            .map_err(|e| format!("{label}: {e}"))?,
                    );
                }
            }
            None => converted
                .push(convert_object(&scheme, doc, &target).map_err(|e| format!("{label}: {e}"))?),
        }
    }
    render(&converted, args.output, list_in)
}

/// Converts one object the way a create-then-read through kube-apiserver would.
fn convert_object(
    scheme: &Scheme,
    doc: &Value,
    target: &GroupVersion,
) -> Result<Box<dyn Object>, String> {
    let api_version = doc
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let kind = doc.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind.is_empty() {
        return Err("Object 'Kind' is missing".to_string());
    }
    if api_version.is_empty() {
        return Err(format!("Object 'apiVersion' is missing for kind {kind:?}"));
    }
    let gvk = GroupVersionKind::from_api_version_and_kind(api_version, kind);
    let mut obj = scheme.new_object(&gvk).map_err(|e| e.to_string())?;
    obj.decode_json_value(doc.clone())
        .map_err(|e| e.to_string())?;
    obj.set_group_version_kind(&gvk);
    scheme.default(&mut *obj);
    let output = if target.group == gvk.group {
        target.clone()
    } else {
        gvk.group_version()
    };
    if !scheme.is_version_registered(&output) {
        return Err(format!(
            "{} is not a known version of group {:?}",
            output.api_version(),
            output.group
        ));
    }
    // Through the storage version (the group's preferred one), defaulted as a read decodes it.
    if let Some(storage) = scheme
        .prioritized_versions_for_group(&gvk.group)
        .into_iter()
        .next()
    {
        obj = scheme
            .unsafe_convert_to_version(obj, &storage)
            .map_err(|e| e.to_string())?;
        scheme.default(&mut *obj);
    }
    scheme
        .unsafe_convert_to_version(obj, &output)
        .map_err(|e| e.to_string())
}

fn compact_json(obj: &dyn Object) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    obj.encode_json(&mut out, false)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

fn render(
    objects: &[Box<dyn Object>],
    format: OutputFormat,
    list_in: bool,
) -> Result<Vec<u8>, String> {
    let as_list = list_in || (format == OutputFormat::Json && objects.len() > 1);
    let mut out = Vec::new();
    match format {
        OutputFormat::Json => {
            let body = if as_list {
                list_json(objects)?
            } else {
                compact_json(&*objects[0])?
            };
            indent_json(&body, &mut out);
        }
        OutputFormat::Yaml if as_list => {
            let list: Value =
                serde_json::from_slice(&list_json(objects)?).map_err(|e| e.to_string())?;
            yaml::value_to_yaml(&list, &mut out).map_err(|e| e.to_string())?;
        }
        OutputFormat::Yaml => {
            for (i, obj) in objects.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b"---\n");
                }
                let value = obj.to_json_value().map_err(|e| e.to_string())?;
                yaml::value_to_yaml(&value, &mut out).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(out)
}

/// A `v1` `List` of the objects, in Go's field order (what kubectl-convert prints).
fn list_json(objects: &[Box<dyn Object>]) -> Result<Vec<u8>, String> {
    let mut out = br#"{"kind":"List","apiVersion":"v1","metadata":{},"items":["#.to_vec();
    for (i, obj) in objects.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&compact_json(&**obj)?);
    }
    out.extend_from_slice(b"]}");
    Ok(out)
}

/// Re-indents compact JSON with four spaces, keeping key order (kubectl's `-o json`).
pub(crate) fn indent_json(compact: &[u8], out: &mut Vec<u8>) {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let newline = |out: &mut Vec<u8>, depth: usize| {
        out.push(b'\n');
        out.extend(std::iter::repeat_n(b' ', depth * 4));
    };
    let mut iter = compact.iter().peekable();
    while let Some(&b) = iter.next() {
        if in_string {
            out.push(b);
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                out.push(b);
            }
            b'{' | b'[' => {
                out.push(b);
                let closer = if b == b'{' { b'}' } else { b']' };
                if iter.peek() == Some(&&closer) {
                    out.push(closer);
                    iter.next();
                } else {
                    depth += 1;
                    newline(out, depth);
                }
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                newline(out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b);
                newline(out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indented(s: &str) -> String {
        let mut out = Vec::new();
        indent_json(s.as_bytes(), &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn indent_keeps_key_order_and_uses_four_spaces() {
        assert_eq!(
            indented(r#"{"b":1,"a":[2,3]}"#),
            "{\n    \"b\": 1,\n    \"a\": [\n        2,\n        3\n    ]\n}\n"
        );
    }

    #[test]
    fn indent_leaves_empty_containers_on_one_line() {
        assert_eq!(
            indented(r#"{"m":{},"l":[]}"#),
            "{\n    \"m\": {},\n    \"l\": []\n}\n"
        );
    }

    #[test]
    fn indent_ignores_structure_inside_strings() {
        assert_eq!(
            indented(r#"{"s":"a,{\"x\":[1]}"}"#),
            "{\n    \"s\": \"a,{\\\"x\\\":[1]}\"\n}\n"
        );
    }

    #[test]
    fn a_list_document_is_recognised_by_kind_and_items() {
        let list: Value = serde_json::json!({"kind": "ConfigMapList", "items": []});
        let object: Value = serde_json::json!({"kind": "ConfigMap", "data": {}});
        assert!(is_list(&list));
        assert!(!is_list(&object));
    }
}
