//! Writes one package's Rust: the structs with serde attributes following Go's
//! `encoding/json` rules, their protobuf codecs following gogo's, and `add_kinds`.

use crate::model::{Entry, Field, Resolved, Struct, Ty};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The Rust type of a resolved type (no pointer).
fn rust_ty(t: &Ty) -> String {
    match t {
        Ty::Str => "String".into(),
        Ty::Bool => "bool".into(),
        Ty::I32 => "i32".into(),
        Ty::I64 => "i64".into(),
        Ty::Bytes => "Vec<u8>".into(),
        Ty::Msg { path, .. } => path.clone(),
        Ty::Slice(e) => format!("Vec<{}>", rust_ty(e)),
        Ty::Map(v) => format!("BTreeMap<String, {}>", rust_ty(v)),
    }
}

/// Whether a non-pointer field without `omitempty` of this type needs `Option` to tell
/// nil (JSON `null`) from empty.
fn nil_visible(t: &Ty) -> bool {
    matches!(t, Ty::Slice(_) | Ty::Map(_))
}

struct Shape {
    ty: String,
    serde: Vec<String>,
    codec: String,
}

fn shape(f: &Field, list_items: bool) -> Result<Shape, String> {
    let base = rust_ty(&f.ty);
    let mut serde = vec![format!("rename = \"{}\"", f.json), "default".to_owned()];
    let scalar_codec = |t: &Ty| -> Option<&'static str> {
        Some(match t {
            Ty::Str => "string",
            Ty::Bool => "boolean",
            Ty::I32 => "int32",
            Ty::I64 => "int64",
            _ => return None,
        })
    };
    if f.pointer {
        let ty = if f.boxed {
            format!("Option<Box<{base}>>")
        } else {
            format!("Option<{base}>")
        };
        if f.omitempty {
            serde.push("skip_serializing_if = \"Option::is_none\"".into());
        }
        let codec = match &f.ty {
            Ty::Bool => "opt_bool".to_owned(),
            t @ (Ty::Str | Ty::I32 | Ty::I64) => {
                format!("opt_{}", scalar_codec(t).unwrap_or_default())
            }
            Ty::Msg { .. } if f.boxed => "opt_box".into(),
            Ty::Msg { .. } => "opt_msg".into(),
            other => return Err(format!("pointer to {other:?} in {}", f.json)),
        };
        return Ok(Shape { ty, serde, codec });
    }
    let optional_collection = !f.omitempty && nil_visible(&f.ty) && !list_items;
    let ty = if optional_collection {
        format!("Option<{base}>")
    } else {
        base
    };
    let elem_codec = |t: &Ty| -> Result<String, String> {
        Ok(match t {
            Ty::Str => "strings".into(),
            Ty::I32 => "ints32".into(),
            Ty::I64 => "ints64".into(),
            Ty::Bool => "bools".into(),
            Ty::Msg { .. } if list_items => "msgs_maps".into(),
            Ty::Msg { .. } => "msgs".into(),
            other => return Err(format!("slice of {other:?} in {}", f.json)),
        })
    };
    let codec = match &f.ty {
        t @ (Ty::Str | Ty::Bool | Ty::I32 | Ty::I64) => {
            scalar_codec(t).unwrap_or_default().to_owned()
        }
        Ty::Bytes => "bytes".into(),
        Ty::Msg { meta: true, .. } => "msg_maps".into(),
        Ty::Msg { .. } => "msg".into(),
        Ty::Slice(e) => elem_codec(e)?,
        Ty::Map(_) => "map".into(),
    };
    let codec = if optional_collection {
        format!("opt_{codec}")
    } else {
        codec
    };
    if optional_collection {
        if f.omitempty {
            serde.push("skip_serializing_if = \"Option::is_none\"".into());
        }
        if matches!(&f.ty, Ty::Map(v) if **v == Ty::Bytes) {
            serde.push("with = \"crate::serde_util::opt_base64_map\"".into());
        }
        return Ok(Shape { ty, serde, codec });
    }
    if f.omitempty {
        let skip = match &f.ty {
            Ty::Str => Some("String::is_empty"),
            Ty::Bool => Some("crate::serde_util::is_false"),
            Ty::I32 => Some("crate::serde_util::is_zero_i32"),
            Ty::I64 => Some("crate::serde_util::is_zero_i64"),
            Ty::Bytes | Ty::Slice(_) => Some("Vec::is_empty"),
            Ty::Map(_) => Some("BTreeMap::is_empty"),
            Ty::Msg { .. } => None,
        };
        if let Some(skip) = skip {
            serde.push(format!("skip_serializing_if = \"{skip}\""));
        }
    }
    match &f.ty {
        Ty::Bytes => serde.push("with = \"crate::serde_util::base64_bytes\"".into()),
        Ty::Map(v) if **v == Ty::Bytes => {
            serde.push("with = \"crate::serde_util::base64_map\"".into())
        }
        _ => serde.push("deserialize_with = \"crate::serde_util::null_default\"".into()),
    }
    Ok(Shape { ty, serde, codec })
}

fn doc_line(out: &mut String, indent: &str, text: &str) {
    let _ = writeln!(out, "{indent}/// {text}");
}

const TYPE_META: &str = r#"    /// TypeMeta `kind`.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "crate::serde_util::null_default"
    )]
    pub kind: String,
    /// TypeMeta `apiVersion`.
    #[serde(
        rename = "apiVersion",
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "crate::serde_util::null_default"
    )]
    pub api_version: String,
"#;

/// A protobuf item of a struct: a field, or an inline embed's nested message.
enum Item {
    Plain {
        tag: u32,
        name: String,
        codec: String,
    },
    Group {
        tag: u32,
        items: Vec<Item>,
    },
}

impl Item {
    fn tag(&self) -> u32 {
        match self {
            Item::Plain { tag, .. } | Item::Group { tag, .. } => *tag,
        }
    }
}

fn emit_fields(
    out: &mut String,
    s: &Struct,
    entries: &[Entry],
    names: &mut BTreeSet<String>,
    is_list: bool,
) -> Result<Vec<Item>, String> {
    let mut items = Vec::new();
    for e in entries {
        match e {
            Entry::Field(f) => {
                if !names.insert(f.rust.clone()) {
                    return Err(format!("{}: duplicate field {}", s.name, f.rust));
                }
                let sh = shape(f, is_list && f.json == "items")?;
                doc_line(out, "    ", &f.doc);
                let _ = writeln!(out, "    #[serde({})]", sh.serde.join(", "));
                let _ = writeln!(out, "    pub {}: {},", f.rust, sh.ty);
                if let Some(tag) = f.tag {
                    items.push(Item::Plain {
                        tag,
                        name: f.rust.clone(),
                        codec: sh.codec,
                    });
                }
            }
            Entry::Inline { tag, entries } => {
                let inner = emit_fields(out, s, entries, names, false)?;
                items.push(Item::Group {
                    tag: *tag,
                    items: inner,
                });
            }
        }
    }
    items.sort_by_key(Item::tag);
    Ok(items)
}

fn emit_struct(out: &mut String, s: &Struct) -> Result<(), String> {
    let is_list = s.meta == Some("list_meta");
    doc_line(out, "", &s.doc);
    out.push_str("#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]\n");
    let _ = writeln!(out, "pub struct {} {{", s.name);
    if s.type_meta {
        out.push_str(TYPE_META);
    }
    let mut names = BTreeSet::new();
    let items = emit_fields(out, s, &s.entries, &mut names, is_list)?;
    out.push_str("}\n");
    if items.iter().all(|i| matches!(i, Item::Plain { .. })) {
        let _ = write!(out, "crate::proto_message!({} {{", s.name);
        for i in &items {
            if let Item::Plain { tag, name, codec } = i {
                let _ = write!(out, "\n    {name}: {codec} = {tag},");
            }
        }
        out.push_str("\n});\n\n");
    } else {
        emit_inline_message(out, s, &items);
    }
    Ok(())
}

fn len_expr(items: &[Item], this: &str) -> String {
    let mut s = String::from("0");
    for i in items {
        match i {
            Item::Plain { tag, name, codec } => {
                let _ = write!(
                    s,
                    " + crate::proto::{codec}::encoded_len({tag}, &{this}.{name})"
                );
            }
            Item::Group { tag, items } => {
                let _ = write!(
                    s,
                    " + crate::proto::inline::encoded_len({tag}, {})",
                    len_expr(items, this)
                );
            }
        }
    }
    s
}

fn encode_items(out: &mut String, items: &[Item]) {
    for i in items {
        match i {
            Item::Plain { tag, name, codec } => {
                let _ = writeln!(
                    out,
                    "        crate::proto::{codec}::encode({tag}, &self.{name}, buf);"
                );
            }
            Item::Group { tag, items } => {
                let _ = writeln!(
                    out,
                    "        crate::proto::inline::encode_header({tag}, {}, buf);",
                    len_expr(items, "self")
                );
                encode_items(out, items);
            }
        }
    }
}

fn merge_items(out: &mut String, items: &[Item], this: &str, indent: usize) {
    let pad = " ".repeat(indent);
    for i in items {
        match i {
            Item::Plain { tag, name, codec } => {
                let _ = writeln!(
                    out,
                    "{pad}{tag} => crate::proto::{codec}::merge(wire_type, &mut {this}.{name}, buf, ctx),"
                );
            }
            Item::Group { tag, items } => {
                let _ = writeln!(
                    out,
                    "{pad}{tag} => crate::proto::inline::merge(wire_type, {this}, buf, ctx, |this, tag, wire_type, buf, ctx| match tag {{"
                );
                merge_items(out, items, "this", indent + 4);
                let _ = writeln!(
                    out,
                    "{pad}    _ => ::prost::encoding::skip_field(wire_type, tag, buf, ctx),\n{pad}}}),"
                );
            }
        }
    }
}

/// A struct with inline embeds: protobuf nests each embed as a message of its own, so
/// the impl is written out instead of going through `proto_message!`.
fn emit_inline_message(out: &mut String, s: &Struct, items: &[Item]) {
    let _ = writeln!(out, "impl ::prost::Message for {} {{", s.name);
    out.push_str("    fn encode_raw(&self, buf: &mut impl ::prost::bytes::BufMut) {\n");
    encode_items(out, items);
    out.push_str("    }\n");
    out.push_str("    fn merge_field(\n        &mut self,\n        tag: u32,\n        wire_type: ::prost::encoding::WireType,\n        buf: &mut impl ::prost::bytes::Buf,\n        ctx: ::prost::encoding::DecodeContext,\n    ) -> ::core::result::Result<(), ::prost::DecodeError> {\n        match tag {\n");
    merge_items(out, items, "self", 12);
    out.push_str("            _ => ::prost::encoding::skip_field(wire_type, tag, buf, ctx),\n        }\n    }\n");
    let _ = writeln!(
        out,
        "    fn encoded_len(&self) -> usize {{\n        {}\n    }}",
        len_expr(items, "self")
    );
    out.push_str("    fn clear(&mut self) {\n        *self = ::core::default::Default::default();\n    }\n}\n\n");
}

/// The generated file of one package.
pub fn emit_package(r: &Resolved) -> Result<String, String> {
    let p = r.package;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "//! @generated by kapi-apigen from upstream's `{}/types.go` (k8s 1.36.2). Do not edit:",
        p.dir
    );
    out.push_str(
        "//! change the generator (`crates/apigen`) and run `cargo run -p kapi-apigen`.\n\n",
    );
    out.push_str("#![allow(clippy::all)]\n\n");
    out.push_str("use serde::{Deserialize, Serialize};\n#[allow(unused_imports)]\nuse std::collections::BTreeMap;\n\n");
    for s in &r.structs {
        emit_struct(&mut out, s)?;
    }
    for w in &r.wrappers {
        let elem = rust_ty(&w.elem);
        let codec = match w.elem {
            Ty::Str => "strings",
            _ => return Err(format!("wrapper {} of {:?}", w.name, w.elem)),
        };
        let _ = writeln!(
            out,
            "/// `{}`: a list that protobuf wraps in a message of its own.\n#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]\n#[serde(transparent)]\npub struct {}(pub Vec<{elem}>);\ncrate::proto_wrapper!({}, {codec});\n",
            w.name, w.name, w.name
        );
    }
    let module_prefix = format!("crate::{}::", p.module);
    for mv in &r.map_values {
        if let Some(local) = mv.strip_prefix(&module_prefix) {
            let _ = writeln!(out, "crate::map_value_message!({local});");
        }
    }
    let kinds: Vec<&Struct> = r.structs.iter().filter(|s| s.meta.is_some()).collect();
    out.push('\n');
    for s in &kinds {
        let _ = writeln!(
            out,
            "crate::impl_kind!({}, {}, protobuf);",
            s.name,
            s.meta.unwrap_or_default()
        );
    }
    let _ = writeln!(
        out,
        "\n/// The kinds of {}/{} this package defines, registered under `gv`.\npub(crate) fn add_kinds(\n    scheme: &mut ::kapi_machinery::runtime::Scheme,\n    gv: &::kapi_machinery::schema::GroupVersion,\n) -> ::kapi_machinery::runtime::Result<()> {{",
        if p.group.is_empty() {
            "core".to_owned()
        } else {
            p.group.to_owned()
        },
        p.version
    );
    for s in &kinds {
        let _ = writeln!(
            out,
            "    scheme.add_known_type::<{}>(gv.with_kind(\"{}\"))?;",
            s.name, s.name
        );
    }
    out.push_str("    Ok(())\n}\n");
    Ok(out)
}
