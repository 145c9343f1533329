//! The generator's model: Go types resolved to the Rust shapes kapi-api uses, with the
//! JSON and protobuf facts of every field.

use crate::go::{self, GoType};
use crate::packages::{PACKAGES, Package};
use std::collections::{BTreeMap, BTreeSet};

/// A resolved field type (pointer-ness is on the field).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `string` and named string types.
    Str,
    /// `bool`.
    Bool,
    /// `int32`.
    I32,
    /// `int64`.
    I64,
    /// `[]byte`.
    Bytes,
    /// A message type: its Rust path, and whether it is ObjectMeta/ListMeta.
    Msg { path: String, meta: bool },
    /// `[]T`.
    Slice(Box<Ty>),
    /// `map[string]T` (every key type is a string).
    Map(Box<Ty>),
}

/// A field as the emitter writes it.
#[derive(Clone, Debug)]
pub struct Field {
    /// The Rust field name.
    pub rust: String,
    /// The JSON name.
    pub json: String,
    /// The Go type resolved.
    pub ty: Ty,
    /// Whether the Go field is a pointer.
    pub pointer: bool,
    /// Whether the pointer is boxed (a recursive type).
    pub boxed: bool,
    /// Whether the JSON tag has `omitempty`.
    pub omitempty: bool,
    /// The protobuf field number (None: not on the wire).
    pub tag: Option<u32>,
    /// The first sentence of the Go comment.
    pub doc: String,
}

/// An entry of a struct: a field, or an embedded struct flattened into it.
#[derive(Clone, Debug)]
pub enum Entry {
    /// A plain field.
    Field(Field),
    /// An inline embed: its protobuf number and the embedded struct's entries.
    Inline { tag: u32, entries: Vec<Entry> },
}

/// A struct to emit.
#[derive(Clone, Debug)]
pub struct Struct {
    /// The Go (and Rust) name.
    pub name: String,
    /// The doc line.
    pub doc: String,
    /// Whether it embeds TypeMeta.
    pub type_meta: bool,
    /// `object_meta`, `list_meta`, or none.
    pub meta: Option<&'static str>,
    /// Entries in Go order.
    pub entries: Vec<Entry>,
}

/// A named slice type that protobuf wraps in a message (`ExtraValue`).
#[derive(Clone, Debug)]
pub struct Wrapper {
    /// The name.
    pub name: String,
    /// The element type.
    pub elem: Ty,
}

/// One package resolved.
pub struct Resolved {
    /// The package.
    pub package: &'static Package,
    /// Its structs in source order.
    pub structs: Vec<Struct>,
    /// Its wrapped slice types.
    pub wrappers: Vec<Wrapper>,
    /// Message types used as map values (they need a `MapValue` impl).
    pub map_values: BTreeSet<String>,
}

struct Universe {
    files: BTreeMap<&'static str, go::File>,
}

fn rust_module_path(p: &Package) -> String {
    format!("crate::{}", p.module)
}

fn package_by_import(import: &str) -> Option<&'static Package> {
    PACKAGES.iter().find(|p| p.import == import)
}

/// The external (hand-written) types Go packages refer to.
fn external(import: &str, name: &str) -> Option<Ty> {
    let msg = |p: &str| Ty::Msg {
        path: p.to_owned(),
        meta: false,
    };
    Some(match (import, name) {
        ("k8s.io/apimachinery/pkg/apis/meta/v1", n) => match n {
            "ObjectMeta" | "ListMeta" => Ty::Msg {
                path: format!("crate::meta::{n}"),
                meta: true,
            },
            "Time"
            | "MicroTime"
            | "LabelSelector"
            | "LabelSelectorRequirement"
            | "Condition"
            | "OwnerReference"
            | "DeleteOptions"
            | "FieldSelectorRequirement" => msg(&format!("crate::meta::{n}")),
            "StatusReason" | "CauseType" => Ty::Str,
            _ => return None,
        },
        ("k8s.io/apimachinery/pkg/api/resource", "Quantity") => msg("crate::resource::Quantity"),
        ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString") => msg("crate::intstr::IntOrString"),
        ("k8s.io/apimachinery/pkg/types", "UID" | "NodeName") => Ty::Str,
        ("k8s.io/apimachinery/pkg/runtime", "RawExtension") => msg("crate::meta::RawExtension"),
        _ => return None,
    })
}

impl Universe {
    fn file(&self, p: &Package) -> &go::File {
        &self.files[p.dir]
    }

    fn resolve(&self, p: &'static Package, t: &GoType) -> Result<Ty, String> {
        Ok(match t {
            GoType::Ident(n) => match n.as_str() {
                "string" => Ty::Str,
                "bool" => Ty::Bool,
                "int32" => Ty::I32,
                "int64" => Ty::I64,
                _ => self.resolve_named(p, n)?,
            },
            GoType::Qualified(alias, n) => {
                let import = self
                    .file(p)
                    .imports
                    .get(alias)
                    .ok_or_else(|| format!("{}: unknown import {alias}", p.dir))?;
                if let Some(other) = package_by_import(import) {
                    self.resolve_named(other, n)?
                } else {
                    external(import, n).ok_or_else(|| format!("unsupported type {import}.{n}"))?
                }
            }
            GoType::Pointer(_) => return Err(format!("nested pointer {t:?}")),
            GoType::Slice(inner) => match inner.as_ref() {
                GoType::Ident(b) if b == "byte" => Ty::Bytes,
                _ => Ty::Slice(Box::new(self.resolve(p, inner)?)),
            },
            GoType::Map(k, v) => {
                if self.resolve(p, k)? != Ty::Str {
                    return Err(format!("map key {k:?} is not a string"));
                }
                Ty::Map(Box::new(self.resolve(p, v)?))
            }
        })
    }

    fn resolve_named(&self, p: &'static Package, n: &str) -> Result<Ty, String> {
        let file = self.file(p);
        if file.structs.iter().any(|s| s.name == n) {
            return Ok(Ty::Msg {
                path: format!("{}::{n}", rust_module_path(p)),
                meta: false,
            });
        }
        match file.named.get(n) {
            Some(GoType::Slice(inner)) if !matches!(inner.as_ref(), GoType::Ident(b) if b == "byte") => {
                Ok(Ty::Msg {
                    path: format!("{}::{n}", rust_module_path(p)),
                    meta: false,
                })
            }
            Some(under) => self.resolve(p, under),
            None => Err(format!("{}: unknown type {n}", p.dir)),
        }
    }

    fn struct_def(
        &self,
        p: &'static Package,
        t: &GoType,
    ) -> Option<(&'static Package, &go::Struct)> {
        let (pkg, name) = match t {
            GoType::Ident(n) => (p, n),
            GoType::Qualified(alias, n) => {
                (package_by_import(self.file(p).imports.get(alias)?)?, n)
            }
            _ => return None,
        };
        self.file(pkg)
            .structs
            .iter()
            .find(|s| &s.name == name)
            .map(|s| (pkg, s))
    }
}

/// Splits a camelCase JSON name into a snake_case Rust name (`podIPs` → `pod_ips`).
pub fn snake(json: &str) -> String {
    let c: Vec<char> = json.chars().collect();
    let mut out = String::new();
    for (i, &ch) in c.iter().enumerate() {
        if ch.is_ascii_uppercase() {
            let prev = i.checked_sub(1).map(|j| c[j]);
            let next = c.get(i + 1).copied();
            let plural_acronym =
                next == Some('s') && c.get(i + 2).is_none_or(|n| n.is_ascii_uppercase());
            let split = match prev {
                None => false,
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => {
                    next.is_some_and(|n| n.is_ascii_lowercase()) && !plural_acronym
                }
                _ => false,
            };
            if split {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    const KEYWORDS: &[&str] = &[
        "type", "ref", "match", "use", "loop", "where", "in", "as", "mod", "static", "async",
        "await", "dyn", "final", "impl", "move", "override", "priv", "pub", "return", "struct",
        "trait", "true", "false", "virtual", "yield", "box", "const", "continue", "crate", "do",
        "else", "enum", "extern", "fn", "for", "if", "let", "macro", "mut", "unsafe", "unsized",
        "while", "abstract", "become", "break", "try", "gen",
    ];
    if KEYWORDS.contains(&out.as_str()) {
        format!("r#{out}")
    } else {
        out
    }
}

/// The first sentence of a Go comment, markers removed.
pub fn doc_of(comment: &[String], fallback: &str) -> String {
    let text: Vec<&str> = comment
        .iter()
        .map(|l| l.trim())
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with('+') && !l.starts_with("TODO"))
        .collect();
    let joined = text.join(" ");
    let first = match joined.find(". ") {
        Some(i) => &joined[..=i],
        None => joined.as_str(),
    };
    let first = first.trim();
    if first.is_empty() || first.starts_with("---") {
        fallback.to_owned()
    } else {
        first.replace('`', "'")
    }
}

fn proto_tag(tags: &BTreeMap<String, String>) -> Result<Option<u32>, String> {
    let Some(p) = tags.get("protobuf") else {
        return Ok(None);
    };
    let n = p
        .split(',')
        .nth(1)
        .ok_or_else(|| format!("bad protobuf tag {p:?}"))?;
    n.parse()
        .map(Some)
        .map_err(|_| format!("bad protobuf number in {p:?}"))
}

/// Loads and resolves every package from `root` (the vendored upstream directory).
pub fn load(root: &std::path::Path) -> Result<Vec<Resolved>, String> {
    let mut files = BTreeMap::new();
    for p in PACKAGES {
        let path = root.join(p.dir).join("types.go");
        let src = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let f = go::parse_file(&src).map_err(|e| format!("{}: {e}", path.display()))?;
        files.insert(p.dir, f);
    }
    let u = Universe { files };
    let mut out = Vec::new();
    for p in PACKAGES {
        out.push(resolve_package(&u, p)?);
    }
    mark_boxes(&mut out);
    Ok(out)
}

fn resolve_fields(
    u: &Universe,
    p: &'static Package,
    s: &go::Struct,
    entries: &mut Vec<Entry>,
    type_meta: &mut bool,
    meta: &mut Option<&'static str>,
    depth: usize,
) -> Result<(), String> {
    for f in &s.fields {
        let (json, omitempty, inline) = f.json_tag();
        if json == "-" {
            continue;
        }
        if f.embedded && f.name == "TypeMeta" {
            *type_meta = true;
            continue;
        }
        let tag = proto_tag(&f.tags).map_err(|e| format!("{}.{}: {e}", s.name, f.name))?;
        if f.embedded && inline {
            let (ip, is) = u
                .struct_def(p, &f.ty)
                .ok_or_else(|| format!("{}: inline {} is not a struct", s.name, f.name))?;
            if depth > 4 {
                return Err(format!("{}: inline {} nested too deep", s.name, f.name));
            }
            let mut inner = Vec::new();
            resolve_fields(u, ip, is, &mut inner, type_meta, meta, depth + 1)?;
            let tag = tag.ok_or_else(|| format!("{}: inline {} has no number", s.name, f.name))?;
            entries.push(Entry::Inline {
                tag,
                entries: inner,
            });
            continue;
        }
        let json = if json.is_empty() {
            f.name.clone()
        } else {
            json
        };
        let (pointer, go_ty) = match &f.ty {
            GoType::Pointer(inner) => (true, inner.as_ref()),
            t => (false, t),
        };
        let ty = u
            .resolve(p, go_ty)
            .map_err(|e| format!("{}.{}: {e}", s.name, f.name))?;
        if json == "metadata" {
            *meta = match &ty {
                Ty::Msg { path, .. } if path.ends_with("::ObjectMeta") => Some("object_meta"),
                Ty::Msg { path, .. } if path.ends_with("::ListMeta") => Some("list_meta"),
                _ => *meta,
            };
        }
        entries.push(Entry::Field(Field {
            rust: snake(&json),
            doc: doc_of(&f.comment, &format!("`{json}`.")),
            json,
            ty,
            pointer,
            boxed: false,
            omitempty,
            tag,
        }));
    }
    Ok(())
}

fn resolve_package(u: &Universe, p: &'static Package) -> Result<Resolved, String> {
    let file = u.file(p);
    let mut structs = Vec::new();
    let mut map_values = BTreeSet::new();
    for s in &file.structs {
        let mut entries = Vec::new();
        let mut type_meta = false;
        let mut meta = None;
        resolve_fields(u, p, s, &mut entries, &mut type_meta, &mut meta, 0)?;
        for f in entry_fields(&entries) {
            if let Ty::Map(v) = &f.ty
                && let Ty::Msg { path, .. } = v.as_ref()
            {
                map_values.insert(path.clone());
            }
        }
        structs.push(Struct {
            name: s.name.clone(),
            doc: doc_of(&s.comment, &format!("`{}` ({}).", s.name, p.dir)),
            type_meta,
            meta: if type_meta { meta } else { None },
            entries,
        });
    }
    let mut wrappers = Vec::new();
    for (name, t) in &file.named {
        if let GoType::Slice(inner) = t
            && !matches!(inner.as_ref(), GoType::Ident(b) if b == "byte")
        {
            wrappers.push(Wrapper {
                name: name.clone(),
                elem: u.resolve(p, inner)?,
            });
        }
    }
    Ok(Resolved {
        package: p,
        structs,
        wrappers,
        map_values,
    })
}

/// Boxes every pointer field through which a struct contains itself.
fn mark_boxes(pkgs: &mut [Resolved]) {
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in pkgs.iter() {
        for s in &r.structs {
            let me = format!("crate::{}::{}", r.package.module, s.name);
            let e = edges.entry(me).or_default();
            for f in all_fields(s) {
                if let Ty::Msg { path, .. } = &f.ty {
                    e.push(path.clone());
                }
            }
        }
    }
    let reaches = |from: &str, to: &str| -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(n) = stack.pop() {
            if n == to {
                return true;
            }
            if seen.insert(n.clone())
                && let Some(next) = edges.get(&n)
            {
                stack.extend(next.iter().cloned());
            }
        }
        false
    };
    for r in pkgs.iter_mut() {
        let module = r.package.module;
        for s in &mut r.structs {
            let me = format!("crate::{module}::{}", s.name);
            for f in all_fields_mut(s) {
                if f.pointer
                    && let Ty::Msg { path, .. } = &f.ty
                    && reaches(path, &me)
                {
                    f.boxed = true;
                }
            }
        }
    }
}

/// Every field of some entries, inline ones included, in Go order.
pub fn entry_fields(entries: &[Entry]) -> Vec<&Field> {
    let mut out = Vec::new();
    for e in entries {
        match e {
            Entry::Field(f) => out.push(f),
            Entry::Inline { entries, .. } => out.extend(entry_fields(entries)),
        }
    }
    out
}

fn all_fields(s: &Struct) -> Vec<&Field> {
    entry_fields(&s.entries)
}

fn entry_fields_mut(entries: &mut [Entry]) -> Vec<&mut Field> {
    let mut out = Vec::new();
    for e in entries {
        match e {
            Entry::Field(f) => out.push(f),
            Entry::Inline { entries, .. } => out.extend(entry_fields_mut(entries)),
        }
    }
    out
}

fn all_fields_mut(s: &mut Struct) -> Vec<&mut Field> {
    entry_fields_mut(&mut s.entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_keeps_acronyms_together() {
        assert_eq!(snake("podIPs"), "pod_ips");
        assert_eq!(snake("hostPID"), "host_pid");
        assert_eq!(snake("IPFamilies"), "ip_families");
        assert_eq!(snake("type"), "r#type");
        assert_eq!(snake("targetWWNs"), "target_wwns");
        assert_eq!(snake("fsGroup"), "fs_group");
        assert_eq!(snake("apiVersion"), "api_version");
    }
}
