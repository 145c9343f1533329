//! OpenAPI v3 component schemas of every built-in type, from the vendored `types.go`
//! (fields, json tags, patch tags, `+listType`/`+listMapKey`/`+mapType`/`+structType`/
//! `+enum`/`+default`/`+optional` markers) and `types_swagger_doc_generated.go`
//! (descriptions), following kube-openapi's rules so that each schema equals
//! kube-apiserver 1.36.2's (`testdata/golden/openapi-v3-1.36/`).

use crate::go::{self, GoType};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// One package read for OpenAPI.
struct Pkg {
    import: &'static str,
    prefix: &'static str,
    file: go::File,
    docs: BTreeMap<String, BTreeMap<String, String>>,
}

/// (directory under the upstream root, import path, definition-name prefix).
const OPENAPI_PACKAGES: &[(&str, &str, &str)] = &[
    (
        "apimachinery/meta/v1",
        "k8s.io/apimachinery/pkg/apis/meta/v1",
        "io.k8s.apimachinery.pkg.apis.meta.v1",
    ),
    (
        "autoscaling/v1",
        "k8s.io/api/autoscaling/v1",
        "io.k8s.api.autoscaling.v1",
    ),
    (
        "autoscaling/v2",
        "k8s.io/api/autoscaling/v2",
        "io.k8s.api.autoscaling.v2",
    ),
];

/// Definitions with a custom OpenAPI type upstream (a string or object, not a struct).
fn special(import: &str, name: &str) -> Option<(&'static str, Value)> {
    Some(match (import, name) {
        ("k8s.io/apimachinery/pkg/apis/meta/v1", "Time") => (
            "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
            json!({"type": "string", "format": "date-time"}),
        ),
        ("k8s.io/apimachinery/pkg/apis/meta/v1", "MicroTime") => (
            "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
            json!({"type": "string", "format": "date-time"}),
        ),
        ("k8s.io/apimachinery/pkg/apis/meta/v1", "FieldsV1") => (
            "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
            json!({"type": "object"}),
        ),
        ("k8s.io/apimachinery/pkg/apis/meta/v1", "Patch") => (
            "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
            json!({"type": "object"}),
        ),
        ("k8s.io/apimachinery/pkg/api/resource", "Quantity") => (
            "io.k8s.apimachinery.pkg.api.resource.Quantity",
            json!({"oneOf": [{"type": "string"}, {"type": "number"}]}),
        ),
        ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString") => (
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
            json!({"format": "int-or-string", "oneOf": [{"type": "integer"}, {"type": "string"}]}),
        ),
        ("k8s.io/apimachinery/pkg/runtime", "RawExtension") => (
            "io.k8s.apimachinery.pkg.runtime.RawExtension",
            json!({"type": "object"}),
        ),
        _ => return None,
    })
}

/// Descriptions of the special definitions, which have no swagger doc upstream: the
/// first sentence of their Go doc, so `kubectl explain` has something to say.
const SPECIAL_DOCS: &[(&str, &str)] = &[
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
        "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.",
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
        "MicroTime is version of Time with microsecond level precision.",
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
        "FieldsV1 stores a set of fields in a data structure like a Trie, in JSON format.",
    ),
    (
        "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
        "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
    ),
    (
        "io.k8s.apimachinery.pkg.api.resource.Quantity",
        "Quantity is a fixed-point representation of a number.",
    ),
    (
        "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
        "IntOrString is a type that can hold an int32 or a string.",
    ),
    (
        "io.k8s.apimachinery.pkg.runtime.RawExtension",
        "RawExtension is used to hold extensions in external versions.",
    ),
];

const REF: &str = "#/components/schemas/";

struct Universe {
    pkgs: Vec<Pkg>,
}

/// What a Go type resolves to for OpenAPI.
enum Resolved<'a> {
    Schema(Value),
    Struct(&'a Pkg, &'a go::Struct),
    Special(&'static str),
    Enum(&'a Pkg, String),
}

fn markers(comment: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in comment {
        let l = l.trim();
        if let Some(m) = l.strip_prefix('+') {
            let (k, v) = m.split_once('=').unwrap_or((m, ""));
            out.entry(k.to_owned()).or_default().push(v.to_owned());
        }
    }
    out
}

/// A Go doc comment as kube-openapi writes a description: lines joined by spaces,
/// paragraphs by a blank line, markers and anything after `---` left out.
fn comment_doc(comment: &[String]) -> String {
    let mut paras: Vec<String> = vec![String::new()];
    for l in comment {
        let t = l.trim();
        if t.starts_with("---") {
            break;
        }
        if t.starts_with('+') {
            continue;
        }
        if t.is_empty() {
            if !paras.last().is_some_and(String::is_empty) {
                paras.push(String::new());
            }
            continue;
        }
        let p = paras.last_mut().expect("one paragraph");
        if !p.is_empty() {
            p.push(' ');
        }
        p.push_str(t);
    }
    paras.retain(|p| !p.is_empty());
    paras.join("\n\n")
}

impl Universe {
    fn pkg(&self, import: &str) -> Option<&Pkg> {
        self.pkgs.iter().find(|p| p.import == import)
    }

    fn resolve<'a>(&'a self, p: &'a Pkg, t: &GoType) -> Result<Resolved<'a>, String> {
        Ok(match t {
            GoType::Ident(n) => match n.as_str() {
                "string" => Resolved::Schema(json!({"type": "string"})),
                "bool" => Resolved::Schema(json!({"type": "boolean"})),
                "int32" => Resolved::Schema(json!({"type": "integer", "format": "int32"})),
                "int64" | "int" => Resolved::Schema(json!({"type": "integer", "format": "int64"})),
                "float64" => Resolved::Schema(json!({"type": "number", "format": "double"})),
                "interface{}" => Resolved::Schema(json!({"type": "object"})),
                _ => self.named(p, n)?,
            },
            GoType::Qualified(alias, n) => {
                let import = p
                    .file
                    .imports
                    .get(alias)
                    .ok_or_else(|| format!("{}: unknown import {alias}", p.import))?;
                if let Some((name, _)) = special(import, n) {
                    return Ok(Resolved::Special(name));
                }
                if import == "k8s.io/apimachinery/pkg/types" {
                    return Ok(Resolved::Schema(json!({"type": "string"})));
                }
                let other = self
                    .pkg(import)
                    .ok_or_else(|| format!("no package {import} for {n}"))?;
                self.named(other, n)?
            }
            GoType::Pointer(inner) => self.resolve(p, inner)?,
            GoType::Slice(inner) => match inner.as_ref() {
                GoType::Ident(b) if b == "byte" => {
                    Resolved::Schema(json!({"type": "string", "format": "byte"}))
                }
                _ => Resolved::Schema(json!({"type": "array", "items": self.item(p, inner)?})),
            },
            GoType::Map(_, v) => Resolved::Schema(
                json!({"type": "object", "additionalProperties": self.item(p, v)?}),
            ),
        })
    }

    fn named<'a>(&'a self, p: &'a Pkg, n: &str) -> Result<Resolved<'a>, String> {
        if let Some((name, _)) = special(p.import, n) {
            return Ok(Resolved::Special(name));
        }
        if let Some(s) = p.file.structs.iter().find(|s| s.name == n) {
            return Ok(Resolved::Struct(p, s));
        }
        let under = p
            .file
            .named
            .get(n)
            .ok_or_else(|| format!("{}: unknown type {n}", p.import))?;
        let is_enum = p
            .file
            .named_comments
            .get(n)
            .is_some_and(|c| markers(c).contains_key("enum"));
        if is_enum {
            return Ok(Resolved::Enum(p, n.to_owned()));
        }
        if let GoType::Slice(inner) = under
            && !matches!(inner.as_ref(), GoType::Ident(b) if b == "byte")
        {
            // A named slice (ExtraValue) is a plain array in JSON.
            return Ok(Resolved::Schema(
                json!({"type": "array", "items": self.item(p, inner)?}),
            ));
        }
        self.resolve(p, under)
    }

    /// The schema of an array item or map value.
    fn item(&self, p: &Pkg, t: &GoType) -> Result<Value, String> {
        Ok(match self.resolve(p, t)? {
            Resolved::Schema(s) => s,
            Resolved::Struct(sp, s) => json!({"$ref": format!("{REF}{}.{}", sp.prefix, s.name)}),
            Resolved::Special(name) => json!({"$ref": format!("{REF}{name}")}),
            Resolved::Enum(ep, n) => {
                let (values, _) = enum_values(self, ep, &n);
                json!({"type": "string", "enum": values})
            }
        })
    }
}

/// A constant's type: declared (`X T = "v"`) or by conversion (`X = T("v")`).
fn const_type(c: &go::Const) -> Option<&str> {
    c.ty.as_deref().or_else(|| {
        let (t, rest) = c.value.split_once('(')?;
        (rest.ends_with(')') && t.chars().all(|ch| ch.is_ascii_alphanumeric())).then_some(t)
    })
}

/// A constant's string value, through conversions and references to other constants.
fn const_value(u: &Universe, p: &Pkg, value: &str) -> Option<String> {
    let v = value.trim();
    if let Some(s) = go::unquote(v) {
        return Some(s);
    }
    if let Some((_, inner)) = v.split_once('(')
        && let Some(inner) = inner.strip_suffix(')')
    {
        return const_value(u, p, inner);
    }
    let (pkg, name) = match v.split_once('.') {
        Some((alias, name)) => (u.pkg(p.file.imports.get(alias)?)?, name),
        None => (p, v),
    };
    let c = pkg.file.consts.iter().find(|c| c.name == name)?;
    const_value(u, pkg, &c.value)
}

/// The values of an enum type, sorted, and the "Possible enum values" text.
fn enum_values(u: &Universe, p: &Pkg, ty: &str) -> (Vec<String>, String) {
    let mut values: Vec<(String, String)> = p
        .file
        .consts
        .iter()
        .filter(|c| const_type(c) == Some(ty))
        .filter_map(|c| {
            let v = const_value(u, p, &c.value)?;
            let doc = comment_doc(&c.comment);
            let doc = doc
                .strip_prefix(&c.name)
                .map(|d| d.trim_start().to_owned())
                .unwrap_or(doc);
            Some((v, doc))
        })
        .collect();
    values.sort();
    values.dedup_by(|a, b| a.0 == b.0);
    let text = values
        .iter()
        .map(|(v, d)| {
            if d.is_empty() {
                format!(" - `{:?}`", v)
            } else {
                format!(" - `{:?}` {d}", v)
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    (values.into_iter().map(|(v, _)| v).collect(), text)
}

/// Resolves a `+default=` marker's value (JSON, or `ref(Const)`).
fn default_value(p: &Pkg, raw: &str) -> Option<Value> {
    if let Some(name) = raw.strip_prefix("ref(").and_then(|r| r.strip_suffix(')')) {
        let c = p.file.consts.iter().find(|c| c.name == name)?;
        return go::unquote(&c.value).map(Value::String);
    }
    serde_json::from_str(raw).ok()
}

impl Universe {
    /// Adds the properties (and required names) of `s`'s fields, inline embeds flattened.
    fn properties(
        &self,
        p: &Pkg,
        s: &go::Struct,
        props: &mut Map<String, Value>,
        required: &mut Vec<String>,
    ) -> Result<(), String> {
        let docs = p.docs.get(&s.name);
        for f in &s.fields {
            let (json_name, omitempty, inline) = f.json_tag();
            if json_name == "-" {
                continue;
            }
            if f.embedded && (inline || json_name.is_empty()) {
                let (ep, es) = match self.resolve(p, &f.ty)? {
                    Resolved::Struct(ep, es) => (ep, es),
                    _ => return Err(format!("{}: inline {} is no struct", s.name, f.name)),
                };
                self.properties(ep, es, props, required)?;
                continue;
            }
            let name = if json_name.is_empty() {
                f.name.clone()
            } else {
                json_name
            };
            let m = markers(&f.comment);
            let pointer = matches!(f.ty, GoType::Pointer(_));
            let mut schema = Map::new();
            let mut description = docs
                .and_then(|d| d.get(&name))
                .cloned()
                .or_else(|| Some(comment_doc(&f.comment)).filter(|d| !d.is_empty()));
            match self.resolve(p, &f.ty)? {
                Resolved::Schema(v) => {
                    if let Value::Object(m) = v {
                        schema.extend(m);
                    }
                    if !pointer && !omitempty {
                        let zero = match schema.get("type").and_then(Value::as_str) {
                            Some("string") if !schema.contains_key("format") => Some(json!("")),
                            Some("integer") => Some(json!(0)),
                            Some("boolean") => Some(json!(false)),
                            _ => None,
                        };
                        if let Some(z) = zero {
                            schema.insert("default".into(), z);
                        }
                    }
                }
                Resolved::Struct(sp, st) => {
                    if !pointer {
                        schema.insert("default".into(), json!({}));
                    }
                    schema.insert(
                        "allOf".into(),
                        json!([{"$ref": format!("{REF}{}.{}", sp.prefix, st.name)}]),
                    );
                }
                Resolved::Special(sname) => {
                    schema.insert("allOf".into(), json!([{"$ref": format!("{REF}{sname}")}]));
                }
                Resolved::Enum(ep, n) => {
                    let (values, text) = enum_values(self, ep, &n);
                    schema.insert("type".into(), json!("string"));
                    if !pointer && !omitempty {
                        schema.insert("default".into(), json!(""));
                    }
                    schema.insert("enum".into(), json!(values));
                    append_enum(&mut description, &text);
                }
            }
            if let Some(d) = m.get("default").and_then(|v| v.first())
                && let Some(v) = default_value(p, d)
            {
                schema.insert("default".into(), v);
            }
            if let Some(d) = description {
                schema.insert("description".into(), json!(d));
            }
            if let Some(lt) = m.get("listType").and_then(|v| v.first()) {
                schema.insert("x-kubernetes-list-type".into(), json!(lt));
            }
            if let Some(keys) = m.get("listMapKey") {
                schema.insert("x-kubernetes-list-map-keys".into(), json!(keys));
            }
            if let Some(mt) = m
                .get("mapType")
                .or_else(|| m.get("structType"))
                .and_then(|v| v.first())
            {
                schema.insert("x-kubernetes-map-type".into(), json!(mt));
            }
            if let Some(ps) = f.tags.get("patchStrategy") {
                schema.insert("x-kubernetes-patch-strategy".into(), json!(ps));
            }
            if let Some(pk) = f.tags.get("patchMergeKey") {
                schema.insert("x-kubernetes-patch-merge-key".into(), json!(pk));
            }
            let marked_required = m.contains_key("required")
                || f.comment
                    .iter()
                    .any(|l| l.trim().ends_with("=+k8s:required") && !l.contains("member("));
            if marked_required || (!omitempty && !m.contains_key("optional")) {
                required.push(name.clone());
            }
            // A bare reference stays bare; with a description or default it goes in allOf.
            if let Some(Value::Array(all)) = schema.get("allOf")
                && all.len() == 1
                && !schema.contains_key("description")
                && !schema.contains_key("default")
                && let Some(r) = all[0].get("$ref").cloned()
            {
                schema.remove("allOf");
                schema.insert("$ref".into(), r);
            }
            props.insert(name, Value::Object(schema));
        }
        Ok(())
    }

    fn struct_schema(&self, p: &Pkg, s: &go::Struct) -> Result<Value, String> {
        let mut props = Map::new();
        let mut required = Vec::new();
        self.properties(p, s, &mut props, &mut required)?;
        let mut out = Map::new();
        let doc = p
            .docs
            .get(&s.name)
            .and_then(|d| d.get(""))
            .cloned()
            .unwrap_or_else(|| comment_doc(&s.comment));
        if !doc.is_empty() {
            out.insert("description".into(), json!(doc));
        }
        out.insert("type".into(), json!("object"));
        if !required.is_empty() {
            out.insert("required".into(), json!(required));
        }
        if !props.is_empty() {
            out.insert("properties".into(), Value::Object(props));
        }
        let sm = markers(&s.comment);
        if let Some(st) = sm.get("structType").and_then(|v| v.first()) {
            out.insert("x-kubernetes-map-type".into(), json!(st));
        }
        if sm.contains_key("union") {
            out.insert("x-kubernetes-unions".into(), json!([self.union(s)]));
        }
        if s.fields.iter().any(|f| f.embedded && f.name == "TypeMeta")
            && let Some((group, version)) = group_version(p.import)
        {
            out.insert(
                "x-kubernetes-group-version-kind".into(),
                json!([{"group": group, "kind": s.name, "version": version}]),
            );
        }
        Ok(Value::Object(out))
    }
}

impl Universe {
    /// kube-openapi's `x-kubernetes-unions` entry of a `+union` struct: the
    /// `+unionDiscriminator` field's JSON name, and every other field's JSON name mapped
    /// to its Go name.
    fn union(&self, s: &go::Struct) -> Value {
        let mut out = Map::new();
        let mut members = Map::new();
        for f in &s.fields {
            let (name, _, _) = f.json_tag();
            if name.is_empty() || name == "-" {
                continue;
            }
            if markers(&f.comment).contains_key("unionDiscriminator") {
                out.insert("discriminator".into(), json!(name));
            } else {
                members.insert(name, json!(f.name));
            }
        }
        out.insert("fields-to-discriminateBy".into(), Value::Object(members));
        Value::Object(out)
    }
}

/// The (group, version) of a package's kinds.
fn group_version(import: &str) -> Option<(String, String)> {
    if import == "k8s.io/apimachinery/pkg/apis/meta/v1" {
        return Some((String::new(), "v1".into()));
    }
    if let Some(p) = crate::packages::PACKAGES
        .iter()
        .find(|p| p.import == import)
    {
        return Some((p.group.into(), p.version.into()));
    }
    let rest = import.strip_prefix("k8s.io/api/")?;
    let (group, version) = rest.split_once('/')?;
    Some((group.into(), version.into()))
}

fn append_enum(description: &mut Option<String>, text: &str) {
    if text.is_empty() {
        return;
    }
    let d = description.get_or_insert_with(String::new);
    d.push_str("\n\nPossible enum values:\n");
    d.push_str(text);
}

fn load(root: &Path) -> Result<Universe, String> {
    let mut pkgs = Vec::new();
    let read = |dir: &str, file: &str| std::fs::read_to_string(root.join(dir).join(file));
    let mut add = |dir: &str, import: &'static str, prefix: &'static str| -> Result<(), String> {
        let mut src = read(dir, "types.go").map_err(|e| format!("{dir}: {e}"))?;
        if let Ok(watch) = read(dir, "watch.go") {
            src.push('\n');
            src.push_str(&watch);
        }
        let file = go::parse_file(&src).map_err(|e| format!("{dir}: {e}"))?;
        let docs = read(dir, "types_swagger_doc_generated.go")
            .map(|d| go::parse_swagger_docs(&d))
            .unwrap_or_default();
        pkgs.push(Pkg {
            import,
            prefix,
            file,
            docs,
        });
        Ok(())
    };
    for p in crate::packages::PACKAGES {
        let prefix: &'static str = Box::leak(
            format!(
                "io.k8s.{}",
                p.import.trim_start_matches("k8s.io/").replace('/', ".")
            )
            .into_boxed_str(),
        );
        add(p.dir, p.import, prefix)?;
    }
    for (dir, import, prefix) in OPENAPI_PACKAGES {
        add(dir, import, prefix)?;
    }
    Ok(Universe { pkgs })
}

/// Every definition: name → schema.
pub fn definitions(root: &Path) -> Result<BTreeMap<String, Value>, String> {
    let u = load(root)?;
    let mut out = BTreeMap::new();
    for p in &u.pkgs {
        for s in &p.file.structs {
            let schema = u
                .struct_schema(p, s)
                .map_err(|e| format!("{}: {e}", p.import))?;
            out.insert(format!("{}.{}", p.prefix, s.name), schema);
        }
    }
    for (name, doc) in SPECIAL_DOCS {
        let import_name = name.rsplit_once('.').map(|(_, n)| n).unwrap_or_default();
        let import = match *name {
            n if n.starts_with("io.k8s.apimachinery.pkg.apis.meta.v1") => {
                "k8s.io/apimachinery/pkg/apis/meta/v1"
            }
            n if n.contains(".api.resource.") => "k8s.io/apimachinery/pkg/api/resource",
            n if n.contains(".util.intstr.") => "k8s.io/apimachinery/pkg/util/intstr",
            _ => "k8s.io/apimachinery/pkg/runtime",
        };
        if let Some((n, mut schema)) = special(import, import_name) {
            schema["description"] = json!(doc);
            out.insert(n.to_owned(), schema);
        }
    }
    Ok(out)
}

/// The Rust source of `crates/api/src/openapi_models.rs`.
pub fn emit(root: &Path) -> Result<String, String> {
    let defs = definitions(root)?;
    let mut out = String::from(
        "//! @generated by kapi-apigen: the OpenAPI v3 schema of every built-in type, from\n//! upstream's vendored `types.go` and swagger docs (k8s 1.36.2). Do not edit.\n\n",
    );
    out.push_str("/// (definition name, schema as JSON), sorted by name.\npub static MODELS: &[(&str, &str)] = &[\n");
    for (name, schema) in &defs {
        let text = serde_json::to_string(schema).map_err(|e| e.to_string())?;
        out.push_str(&format!("    ({name:?}, {text:?}),\n"));
    }
    out.push_str("];\n\n");
    out.push_str("/// The schema (JSON) of the definition `name`.\npub fn model(name: &str) -> Option<&'static str> {\n    MODELS\n        .binary_search_by(|(n, _)| (*n).cmp(name))\n        .ok()\n        .map(|i| MODELS[i].1)\n}\n\n");
    out.push_str("/// The definition name of a built-in kind (`io.k8s.api.apps.v1.Deployment`): Go's package\n/// path reversed, as kube-openapi names it; `None` for kinds not generated here.\npub fn definition_name(group: &str, version: &str, kind: &str) -> Option<String> {\n    let name = match group {\n        \"\" => format!(\"io.k8s.api.core.{version}.{kind}\"),\n        \"apiregistration.k8s.io\" => {\n            format!(\"io.k8s.kube-aggregator.pkg.apis.apiregistration.{version}.{kind}\")\n        }\n        g => format!(\"io.k8s.api.{}.{version}.{kind}\", g.split('.').next().unwrap_or(g)),\n    };\n    model(&name).map(|_| name)\n}\n");
    Ok(out)
}
