//! A parser for the gofmt'd Go files of k8s.io/api: imports, struct types with their
//! fields, tags and comments, and named non-struct types. It reads only what the
//! generator needs; anything else (functions, consts, vars) is skipped.

use std::collections::BTreeMap;

/// A Go type expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoType {
    /// An identifier of this package or a predeclared type (`string`, `LeaseSpec`).
    Ident(String),
    /// `pkg.Name`: the import alias and the name.
    Qualified(String, String),
    /// `*T`.
    Pointer(Box<GoType>),
    /// `[]T`.
    Slice(Box<GoType>),
    /// `map[K]V`.
    Map(Box<GoType>, Box<GoType>),
}

/// One field of a struct (an embedded field has no name).
#[derive(Clone, Debug)]
pub struct Field {
    /// The Go name (for an embedded field, the type's name).
    pub name: String,
    /// Whether the field is embedded (`metav1.TypeMeta`, `VolumeSource`).
    pub embedded: bool,
    /// The type.
    pub ty: GoType,
    /// The tag's key/value pairs (`json`, `protobuf`, `patchStrategy`, …).
    pub tags: BTreeMap<String, String>,
    /// The comment lines above the field, `//` removed.
    pub comment: Vec<String>,
}

/// A struct type.
#[derive(Clone, Debug)]
pub struct Struct {
    /// The type's name.
    pub name: String,
    /// The comment lines above the type, `//` removed.
    pub comment: Vec<String>,
    /// The fields in source order.
    pub fields: Vec<Field>,
}

/// A constant (`ProtocolTCP Protocol = "TCP"`).
#[derive(Clone, Debug)]
pub struct Const {
    /// Its name.
    pub name: String,
    /// Its declared type, if any.
    pub ty: Option<String>,
    /// Its value, a Go literal as written (`"TCP"`).
    pub value: String,
    /// The comment lines above it.
    pub comment: Vec<String>,
}

/// A parsed Go file.
#[derive(Clone, Debug, Default)]
pub struct File {
    /// Import alias → import path.
    pub imports: BTreeMap<String, String>,
    /// Struct types in source order.
    pub structs: Vec<Struct>,
    /// Named non-struct types (`type Protocol string`).
    pub named: BTreeMap<String, GoType>,
    /// The comment lines above each named non-struct type.
    pub named_comments: BTreeMap<String, Vec<String>>,
    /// Constants.
    pub consts: Vec<Const>,
}

/// A parse failure with its line.
#[derive(Debug)]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Parses a Go type expression.
pub fn parse_type(s: &str) -> Result<GoType, String> {
    let s = s.trim();
    if s == "interface{}" || s == "any" {
        return Ok(GoType::Ident("interface{}".to_owned()));
    }
    if let Some(rest) = s.strip_prefix('*') {
        return Ok(GoType::Pointer(Box::new(parse_type(rest)?)));
    }
    if let Some(rest) = s.strip_prefix("[]") {
        return Ok(GoType::Slice(Box::new(parse_type(rest)?)));
    }
    if let Some(rest) = s.strip_prefix("map[") {
        let mut depth = 1;
        for (i, c) in rest.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        let key = parse_type(&rest[..i])?;
                        let value = parse_type(&rest[i + 1..])?;
                        return Ok(GoType::Map(Box::new(key), Box::new(value)));
                    }
                }
                _ => {}
            }
        }
        return Err(format!("unbalanced map type {s:?}"));
    }
    let ok = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match s.split_once('.') {
        Some((pkg, name)) if ok(pkg) && ok(name) => {
            Ok(GoType::Qualified(pkg.to_owned(), name.to_owned()))
        }
        None if ok(s) => Ok(GoType::Ident(s.to_owned())),
        _ => Err(format!("unsupported type {s:?}")),
    }
}

impl Field {
    /// The `json` tag: the name (empty for none), and whether it has `omitempty` and
    /// `inline`.
    pub fn json_tag(&self) -> (String, bool, bool) {
        let j = self
            .tags
            .get("json")
            .map(String::as_str)
            .unwrap_or_default();
        let mut parts = j.split(',');
        let name = parts.next().unwrap_or_default().to_owned();
        let rest: Vec<&str> = parts.collect();
        (name, rest.contains(&"omitempty"), rest.contains(&"inline"))
    }
}

/// Parses a struct tag's content (between the backticks).
pub fn parse_tags(s: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = s.trim();
    while let Some(colon) = rest.find(":\"") {
        let key = rest[..colon].trim().to_owned();
        let after = &rest[colon + 2..];
        let Some(end) = after.find('"') else { break };
        out.insert(key, after[..end].to_owned());
        rest = &after[end + 1..];
    }
    out
}

fn comment_text(line: &str) -> Option<String> {
    let t = line.trim();
    t.strip_prefix("//")
        .map(|c| c.strip_prefix(' ').unwrap_or(c).to_owned())
}

fn parse_field(line: &str, comment: Vec<String>) -> Result<Field, String> {
    let (decl, tags) = match line.find('`') {
        Some(i) => {
            let end = line[i + 1..]
                .find('`')
                .ok_or_else(|| format!("unterminated tag in {line:?}"))?;
            (&line[..i], parse_tags(&line[i + 1..i + 1 + end]))
        }
        None => (line, BTreeMap::new()),
    };
    let decl = decl.split("//").next().unwrap_or_default().trim();
    let mut parts = decl.split_whitespace();
    let first = parts
        .next()
        .ok_or_else(|| format!("empty field {line:?}"))?;
    let rest: Vec<&str> = parts.collect();
    if rest.is_empty() {
        let ty = parse_type(first)?;
        let name = match &ty {
            GoType::Ident(n) | GoType::Qualified(_, n) => n.clone(),
            GoType::Pointer(inner) => match inner.as_ref() {
                GoType::Ident(n) | GoType::Qualified(_, n) => n.clone(),
                _ => return Err(format!("unsupported embedded field {line:?}")),
            },
            _ => return Err(format!("unsupported embedded field {line:?}")),
        };
        Ok(Field {
            name,
            embedded: true,
            ty,
            tags,
            comment,
        })
    } else {
        Ok(Field {
            name: first.to_owned(),
            embedded: false,
            ty: parse_type(&rest.join(" "))?,
            tags,
            comment,
        })
    }
}

/// Parses a Go file.
pub fn parse_file(src: &str) -> Result<File, ParseError> {
    let lines: Vec<&str> = src.lines().collect();
    let mut file = File::default();
    let mut comment: Vec<String> = Vec::new();
    let mut i = 0;
    let err = |line: usize, message: String| ParseError {
        line: line + 1,
        message,
    };
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        if let Some(c) = comment_text(line).filter(|_| !line.starts_with(char::is_whitespace)) {
            comment.push(c);
            i += 1;
            continue;
        }
        if t.is_empty() {
            comment.clear();
            i += 1;
            continue;
        }
        if t == "import (" {
            i += 1;
            while i < lines.len() && lines[i].trim() != ")" {
                add_import(&mut file, lines[i].trim());
                i += 1;
            }
        } else if let Some(rest) = t.strip_prefix("import ") {
            add_import(&mut file, rest);
        } else if let Some(rest) = t.strip_prefix("type ") {
            if let Some(name) = rest.strip_suffix(" struct {") {
                let mut s = Struct {
                    name: name.trim().to_owned(),
                    comment: std::mem::take(&mut comment),
                    fields: Vec::new(),
                };
                let mut field_comment = Vec::new();
                i += 1;
                while i < lines.len() && lines[i].trim() != "}" {
                    let fl = lines[i].trim();
                    if fl.starts_with("/*") {
                        while i < lines.len() && !lines[i].contains("*/") {
                            i += 1;
                        }
                    } else if let Some(c) = comment_text(fl) {
                        field_comment.push(c);
                    } else if fl.is_empty() {
                        field_comment.clear();
                    } else {
                        let f = parse_field(fl, std::mem::take(&mut field_comment))
                            .map_err(|m| err(i, m))?;
                        s.fields.push(f);
                    }
                    i += 1;
                }
                file.structs.push(s);
            } else if rest.ends_with(" struct{}") {
                let name = rest.trim_end_matches(" struct{}").trim().to_owned();
                file.structs.push(Struct {
                    name,
                    comment: std::mem::take(&mut comment),
                    fields: Vec::new(),
                });
            } else if rest.trim_end().ends_with('{') || rest.trim() == "(" {
                return Err(err(i, format!("unsupported type declaration {t:?}")));
            } else {
                let rest = rest.split("//").next().unwrap_or_default().trim();
                let (name, ty) = rest
                    .split_once(' ')
                    .ok_or_else(|| err(i, format!("bad type declaration {t:?}")))?;
                let ty = ty.trim().trim_start_matches("= ");
                file.named
                    .insert(name.to_owned(), parse_type(ty).map_err(|m| err(i, m))?);
                file.named_comments
                    .insert(name.to_owned(), std::mem::take(&mut comment));
            }
            comment.clear();
        } else if t == "const (" {
            let mut c_comment = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].starts_with(')') {
                let cl = lines[i].trim();
                if let Some(c) = comment_text(cl) {
                    c_comment.push(c);
                } else if cl.is_empty() {
                    c_comment.clear();
                } else if let Some(c) = parse_const(cl, std::mem::take(&mut c_comment)) {
                    file.consts.push(c);
                }
                i += 1;
            }
            comment.clear();
        } else if let Some(rest) = t.strip_prefix("const ") {
            if let Some(c) = parse_const(rest, std::mem::take(&mut comment)) {
                file.consts.push(c);
            }
        } else if t.ends_with('{') || t.ends_with('(') {
            // func, const (, var (: skip to the closing line at column 0.
            let closer = if t.ends_with('{') { "}" } else { ")" };
            i += 1;
            while i < lines.len() && !lines[i].starts_with(closer) {
                i += 1;
            }
            comment.clear();
        } else {
            comment.clear();
        }
        i += 1;
    }
    Ok(file)
}

fn parse_const(line: &str, comment: Vec<String>) -> Option<Const> {
    let (lhs, value) = line.split_once('=')?;
    let mut lhs = lhs.split_whitespace();
    let name = lhs.next()?.to_owned();
    let ty = lhs.next().map(str::to_owned);
    let value = value
        .split("//")
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    Some(Const {
        name,
        ty,
        value,
        comment,
    })
}

/// Unquotes a Go interpreted string literal (`"a\"b\n"`).
pub fn unquote(lit: &str) -> Option<String> {
    let inner = lit.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

/// Parses a `types_swagger_doc_generated.go`: type → (field JSON name or "" → text).
pub fn parse_swagger_docs(src: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in src.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("var map_") {
            current = rest.split_whitespace().next().map(str::to_owned);
            continue;
        }
        if t == "}" {
            current = None;
            continue;
        }
        let Some(ty) = &current else { continue };
        let Some(key_end) = t[1..].find("\":").map(|i| i + 1) else {
            continue;
        };
        let (Some(key), Some(value)) = (
            unquote(&t[..=key_end]),
            unquote(t[key_end + 2..].trim().trim_end_matches(',')),
        ) else {
            continue;
        };
        out.entry(ty.clone()).or_default().insert(key, value);
    }
    out
}

fn add_import(file: &mut File, spec: &str) {
    let spec = spec.trim();
    if spec.is_empty() || spec.starts_with("//") {
        return;
    }
    let (alias, path) = match spec.split_once(' ') {
        Some((alias, path)) => (alias.to_owned(), path.trim().trim_matches('"').to_owned()),
        None => {
            let path = spec.trim_matches('"').to_owned();
            let alias = path.rsplit('/').next().unwrap_or_default().to_owned();
            (alias, path)
        }
    };
    file.imports.insert(alias, path);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_struct_with_tags_and_comments() {
        let src = "package v1\n\nimport (\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n)\n\n// Lease is a lease.\ntype Lease struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\t// spec is the spec.\n\t// +optional\n\tSpec *LeaseSpec `json:\"spec,omitempty\" protobuf:\"bytes,2,opt,name=spec\"`\n}\n\ntype Protocol string\n";
        let f = parse_file(src).unwrap();
        assert_eq!(f.imports["metav1"], "k8s.io/apimachinery/pkg/apis/meta/v1");
        let s = &f.structs[0];
        assert_eq!(s.name, "Lease");
        assert_eq!(s.comment, vec!["Lease is a lease."]);
        assert!(s.fields[0].embedded);
        assert_eq!(s.fields[1].name, "Spec");
        assert_eq!(
            s.fields[1].ty,
            GoType::Pointer(Box::new(GoType::Ident("LeaseSpec".into())))
        );
        assert_eq!(s.fields[1].tags["protobuf"], "bytes,2,opt,name=spec");
        assert_eq!(s.fields[1].comment, vec!["spec is the spec.", "+optional"]);
        assert_eq!(f.named["Protocol"], GoType::Ident("string".into()));
    }

    #[test]
    fn parses_map_types() {
        assert_eq!(
            parse_type("map[ResourceName]resource.Quantity").unwrap(),
            GoType::Map(
                Box::new(GoType::Ident("ResourceName".into())),
                Box::new(GoType::Qualified("resource".into(), "Quantity".into()))
            )
        );
    }
}
