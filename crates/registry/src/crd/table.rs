//! Table output of custom resources from `additionalPrinterColumns` (JSONPath, type,
//! format, priority; R3.13): Name first, then the CRD's columns (an Age column on
//! `.metadata.creationTimestamp` when it declares none, as kube-apiserver).

use crate::table::{Column, TableConvertor, age, name_column};
use kapi_api::apiextensions::v1::CustomResourceColumnDefinition;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

/// Column headers are `&'static str` in the shared [`Column`]; CRD columns are interned
/// once per distinct text, so repeated CRD updates do not grow memory.
fn intern(s: &str) -> &'static str {
    static SEEN: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let set = SEEN.get_or_init(Default::default);
    let mut set = match set.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(found) = set.get(s) {
        return found;
    }
    let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// One printer column: its definition and the JSONPath it reads.
struct PrinterColumn {
    column: Column,
    path: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// Parses the simple JSONPath subset CRDs use: `.a.b`, `.a[0].b`, `.a['b.c']`.
fn parse_path(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let trimmed = path.trim().trim_start_matches('{').trim_end_matches('}');
    for part in trimmed.split('.').filter(|p| !p.is_empty()) {
        let mut rest = part;
        if let Some(i) = rest.find('[') {
            if i > 0 {
                out.push(Segment::Key(rest[..i].to_owned()));
            }
            rest = &rest[i..];
            while let Some(end) = rest.find(']') {
                let inner = rest[1..end].trim_matches(|c| c == '\'' || c == '"');
                match inner.parse::<usize>() {
                    Ok(n) => out.push(Segment::Index(n)),
                    Err(_) => out.push(Segment::Key(inner.to_owned())),
                }
                rest = &rest[end + 1..];
            }
        } else {
            out.push(Segment::Key(rest.to_owned()));
        }
    }
    out
}

fn lookup<'a>(obj: &'a Value, path: &[Segment]) -> Option<&'a Value> {
    path.iter().try_fold(obj, |v, seg| match seg {
        Segment::Key(k) => v.get(k),
        Segment::Index(i) => v.get(*i),
    })
}

/// The cell of a column of `kind` for a found value (kube prints dates as ages).
fn cell(kind: &str, value: Option<&Value>) -> Value {
    match (kind, value) {
        (_, None | Some(Value::Null)) => Value::Null,
        ("date", Some(Value::String(s))) => Value::String(age(s)),
        ("integer", Some(v @ Value::Number(_))) => v.clone(),
        ("number", Some(v @ Value::Number(_))) => v.clone(),
        ("boolean", Some(v @ Value::Bool(_))) => v.clone(),
        (_, Some(Value::String(s))) => Value::String(s.clone()),
        (_, Some(other)) => Value::String(other.to_string()),
    }
}

/// The Table convertor of one CRD version.
pub struct CrTable {
    columns: Vec<PrinterColumn>,
}

impl CrTable {
    /// From the version's `additionalPrinterColumns`.
    pub fn new(defs: &[CustomResourceColumnDefinition]) -> Self {
        let age = CustomResourceColumnDefinition {
            name: "Age".into(),
            r#type: "date".into(),
            json_path: ".metadata.creationTimestamp".into(),
            ..Default::default()
        };
        let defs: Vec<&CustomResourceColumnDefinition> = if defs.is_empty() {
            vec![&age]
        } else {
            defs.iter().collect()
        };
        let columns = defs
            .into_iter()
            .map(|d| {
                let description = if d.description.is_empty() {
                    format!(
                        "Custom resource definition column (in JSONPath format): {}",
                        d.json_path
                    )
                } else {
                    d.description.clone()
                };
                PrinterColumn {
                    column: Column {
                        name: intern(&d.name),
                        kind: intern(&d.r#type),
                        format: intern(&d.format),
                        description: intern(&description),
                        priority: u32::try_from(d.priority).unwrap_or(0),
                        cell: |_| Value::Null,
                    },
                    path: parse_path(&d.json_path),
                }
            })
            .collect();
        Self { columns }
    }
}

impl TableConvertor for CrTable {
    fn columns(&self) -> Vec<Column> {
        std::iter::once(name_column())
            .chain(self.columns.iter().map(|c| c.column.clone()))
            .collect()
    }

    fn cells(&self, obj: &Value) -> Vec<Value> {
        let name = (name_column().cell)(obj);
        std::iter::once(name)
            .chain(
                self.columns
                    .iter()
                    .map(|c| cell(c.column.kind, lookup(obj, &c.path))),
            )
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_paths_with_indexes_resolve() {
        let obj = serde_json::json!({"spec": {"a": [{"b": 3}]}});
        assert_eq!(
            lookup(&obj, &parse_path(".spec.a[0].b")),
            Some(&serde_json::json!(3))
        );
        assert_eq!(
            parse_path(".spec.a[0]"),
            vec![
                Segment::Key("spec".into()),
                Segment::Key("a".into()),
                Segment::Index(0)
            ]
        );
    }

    #[test]
    fn crd_without_columns_gets_an_age_column() {
        let t = CrTable::new(&[]);
        let names: Vec<&str> = t.columns().iter().map(|c| c.name).collect();
        assert_eq!(names, vec!["Name", "Age"]);
    }
}
