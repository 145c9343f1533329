//! Field paths and field sets as server-side apply tracks them (structured-merge-diff's
//! `fieldpath`): a path is a list of elements — a field name, a list item by its key
//! fields (`k:{"name":"app"}`), a set member by value (`v:"x"`), or an index — and a set of
//! paths is what a manager owns. [`to_fields_v1`] and [`from_fields_v1`] convert a set to
//! and from `managedFields[].fieldsV1`, where `"."` marks a path that is itself a member
//! and also has members below it.

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One step of a field path. Variant order is the order upstream sorts them in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathElement {
    /// A field of a struct or a key of a map: `f:name`.
    Field(String),
    /// An item of an associative list, by its key fields sorted by name (values as compact
    /// JSON): `k:{"containerPort":80,"protocol":"TCP"}`.
    Key(Vec<(String, String)>),
    /// A member of a set-typed list, by its value as compact JSON: `v:"x"`.
    Value(String),
    /// An item of a list by position: `i:0`.
    Index(usize),
}

impl PathElement {
    /// The element of a key-field list: names sorted, values compact JSON.
    pub fn key(mut fields: Vec<(String, &Value)>) -> Self {
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        Self::Key(
            fields
                .into_iter()
                .map(|(name, v)| (name, v.to_string()))
                .collect(),
        )
    }

    /// The element of a set member.
    pub fn value(v: &Value) -> Self {
        Self::Value(v.to_string())
    }

    /// Its key in FieldsV1 (`f:name`, `k:{…}`, `v:…`, `i:0`).
    pub fn fields_v1_key(&self) -> String {
        match self {
            Self::Field(name) => format!("f:{name}"),
            Self::Key(fields) => {
                let inner: Vec<String> = fields
                    .iter()
                    .map(|(name, v)| format!("{}:{v}", Value::from(name.as_str())))
                    .collect();
                format!("k:{{{}}}", inner.join(","))
            }
            Self::Value(v) => format!("v:{v}"),
            Self::Index(i) => format!("i:{i}"),
        }
    }

    /// Parses a FieldsV1 key; `None` for anything else (`.`, unknown prefixes).
    pub fn from_fields_v1_key(key: &str) -> Option<Self> {
        let (prefix, rest) = key.split_at_checked(2)?;
        match prefix {
            "f:" => Some(Self::Field(rest.to_owned())),
            "k:" => {
                let fields: Map<String, Value> = serde_json::from_str(rest).ok()?;
                Some(Self::key(
                    fields.iter().map(|(k, v)| (k.clone(), v)).collect(),
                ))
            }
            "v:" => serde_json::from_str::<Value>(rest)
                .ok()
                .map(|v| Self::value(&v)),
            "i:" => rest.parse().ok().map(Self::Index),
            _ => None,
        }
    }

    /// Whether `item` (a list item) is the one this element names.
    pub fn names_item(&self, index: usize, item: &Value) -> bool {
        match self {
            Self::Field(_) => false,
            Self::Key(fields) => fields
                .iter()
                .all(|(name, v)| item.get(name).is_some_and(|actual| same_json(actual, v))),
            Self::Value(v) => same_json(item, v),
            Self::Index(i) => *i == index,
        }
    }
}

/// Whether `v` is the value whose compact JSON is `text`.
fn same_json(v: &Value, text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|t| t == *v)
}

impl fmt::Display for PathElement {
    /// Upstream's path notation: `.name`, `[name="app"]`, `[=x]`, `[0]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Field(name) => write!(f, ".{name}"),
            Self::Key(fields) => {
                let inner: Vec<String> = fields
                    .iter()
                    .map(|(name, v)| format!("{name}={v}"))
                    .collect();
                write!(f, "[{}]", inner.join(","))
            }
            Self::Value(v) => write!(f, "[={v}]"),
            Self::Index(i) => write!(f, "[{i}]"),
        }
    }
}

/// A field path from the object's root.
pub type Path = Vec<PathElement>;

/// A set of field paths.
pub type FieldSet = BTreeSet<Path>;

/// A path as upstream prints it in conflicts (`.spec.containers[name="app"].image`).
pub fn display(path: &[PathElement]) -> String {
    path.iter().map(ToString::to_string).collect()
}

/// A path of field names.
pub fn fields(names: &[&str]) -> Path {
    names
        .iter()
        .map(|n| PathElement::Field((*n).to_owned()))
        .collect()
}

/// Whether `set` holds `prefix` or any path below it.
pub fn has_prefix(set: &FieldSet, prefix: &[PathElement]) -> bool {
    set.range::<[PathElement], _>((
        std::ops::Bound::Included(prefix),
        std::ops::Bound::Unbounded,
    ))
    .next()
    .is_some_and(|p| p.starts_with(prefix))
}

/// `set` without `prefix` and every path below it.
pub fn remove_prefix(set: &mut FieldSet, prefix: &[PathElement]) {
    set.retain(|p| !p.starts_with(prefix));
}

#[derive(Default)]
struct Tree {
    member: bool,
    children: BTreeMap<String, Tree>,
}

impl Tree {
    fn to_value(&self) -> Value {
        let mut out = Map::new();
        if self.member && !self.children.is_empty() {
            out.insert(".".into(), Value::Object(Map::new()));
        }
        for (k, child) in &self.children {
            out.insert(k.clone(), child.to_value());
        }
        Value::Object(out)
    }
}

/// FieldsV1 of a set.
pub fn to_fields_v1(set: &FieldSet) -> Value {
    let mut root = Tree::default();
    for path in set {
        let mut node = &mut root;
        for element in path {
            node = node.children.entry(element.fields_v1_key()).or_default();
        }
        node.member = true;
    }
    root.to_value()
}

/// The set a FieldsV1 value records; keys it does not understand are skipped.
pub fn from_fields_v1(v: &Value) -> FieldSet {
    fn go(v: &Value, path: &mut Path, out: &mut FieldSet) {
        let Some(map) = v.as_object() else { return };
        let mut children = 0;
        for (k, child) in map {
            if let Some(element) = PathElement::from_fields_v1_key(k) {
                children += 1;
                path.push(element);
                go(child, path, out);
                path.pop();
            }
        }
        if !path.is_empty() && (children == 0 || map.contains_key(".")) {
            out.insert(path.clone());
        }
    }
    let mut out = FieldSet::new();
    go(v, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_elements_sort_their_fields_and_print_as_upstream() {
        let e = PathElement::key(vec![
            ("protocol".into(), &json!("TCP")),
            ("containerPort".into(), &json!(80)),
        ]);
        assert_eq!(
            e.fields_v1_key(),
            r#"k:{"containerPort":80,"protocol":"TCP"}"#
        );
        assert_eq!(e.to_string(), r#"[containerPort=80,protocol="TCP"]"#);
        assert_eq!(PathElement::from_fields_v1_key(&e.fields_v1_key()), Some(e));
    }

    #[test]
    fn a_member_with_members_below_it_gets_a_dot() {
        let mut set = FieldSet::new();
        let item = vec![
            PathElement::Field("spec".into()),
            PathElement::Field("ports".into()),
            PathElement::key(vec![("port".into(), &json!(80))]),
        ];
        set.insert(item.clone());
        let mut port = item.clone();
        port.push(PathElement::Field("port".into()));
        set.insert(port);
        let v = to_fields_v1(&set);
        assert_eq!(
            v,
            json!({"f:spec": {"f:ports": {"k:{\"port\":80}": {".": {}, "f:port": {}}}}})
        );
        assert_eq!(from_fields_v1(&v), set);
    }

    #[test]
    fn set_members_and_indices_round_trip() {
        let v =
            json!({"f:metadata": {"f:finalizers": {".": {}, "v:\"a/b\"": {}}}, "f:x": {"i:3": {}}});
        let set = from_fields_v1(&v);
        assert!(set.contains(&vec![
            PathElement::Field("metadata".into()),
            PathElement::Field("finalizers".into()),
            PathElement::Value("\"a/b\"".into()),
        ]));
        assert_eq!(to_fields_v1(&set), v);
    }

    #[test]
    fn has_prefix_finds_paths_below() {
        let mut set = FieldSet::new();
        set.insert(fields(&["spec", "replicas"]));
        assert!(has_prefix(&set, &fields(&["spec"])));
        assert!(has_prefix(&set, &fields(&["spec", "replicas"])));
        assert!(!has_prefix(&set, &fields(&["spec", "replicas", "x"])));
        assert!(!has_prefix(&set, &fields(&["status"])));
    }
}
