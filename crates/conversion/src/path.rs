//! Field paths of rules: `spec.displayName`, `spec.ports[].name` (`[]`: each item of a
//! list), read, written and removed on JSON objects.

use serde_json::{Map, Value};
use std::fmt;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// A field of an object.
    Field(String),
    /// Each item of a list.
    Each,
}

/// A parsed field path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldPath {
    text: String,
    segments: Vec<Segment>,
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FieldPath {
    /// Parses `a.b[].c`; fields are non-empty, `[]` follows a field.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut segments = Vec::new();
        for part in text.split('.') {
            let (name, lists) = match part.find("[]") {
                Some(i) => (&part[..i], &part[i..]),
                None => (part, ""),
            };
            if name.is_empty() {
                return Err(format!(
                    "{text:?} is not a field path (an empty field name)"
                ));
            }
            if name.contains(['[', ']']) {
                return Err(format!(
                    "{text:?} is not a field path (only [] may follow a field)"
                ));
            }
            if !lists
                .chars()
                .collect::<Vec<_>>()
                .chunks(2)
                .all(|c| c == ['[', ']'])
            {
                return Err(format!(
                    "{text:?} is not a field path (only [] may follow a field)"
                ));
            }
            segments.push(Segment::Field(name.to_owned()));
            segments.extend(std::iter::repeat_n(Segment::Each, lists.len() / 2));
        }
        if matches!(segments.first(), Some(Segment::Field(f)) if f == "apiVersion" || f == "kind" || f == "metadata")
        {
            return Err(format!(
                "{text:?}: apiVersion, kind and metadata are not for rules"
            ));
        }
        Ok(Self {
            text: text.to_owned(),
            segments,
        })
    }

    /// The segments.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Whether the path goes through a list.
    pub fn has_lists(&self) -> bool {
        self.segments.contains(&Segment::Each)
    }

    /// The part up to and including the last `[]`, and the rest (`None` without lists).
    pub fn split_at_last_list(&self) -> Option<(&[Segment], &[Segment])> {
        let i = self.segments.iter().rposition(|s| *s == Segment::Each)?;
        Some((&self.segments[..=i], &self.segments[i + 1..]))
    }
}

/// The value at `segments` (no lists) of `v`.
pub fn get<'v>(v: &'v Value, segments: &[Segment]) -> Option<&'v Value> {
    segments.iter().try_fold(v, |cur, s| match s {
        Segment::Field(f) => cur.get(f),
        Segment::Each => None,
    })
}

/// Removes and returns the value at `segments` (no lists); empties left behind stay.
pub fn take(v: &mut Value, segments: &[Segment]) -> Option<Value> {
    let (last, parents) = segments.split_last()?;
    let mut cur = v;
    for s in parents {
        cur = match s {
            Segment::Field(f) => cur.get_mut(f)?,
            Segment::Each => return None,
        };
    }
    match last {
        Segment::Field(f) => cur.as_object_mut()?.remove(f),
        Segment::Each => None,
    }
}

/// Sets the value at `segments` (no lists), making the objects on the way.
pub fn set(v: &mut Value, segments: &[Segment], value: Value) -> Result<(), String> {
    let Some((last, parents)) = segments.split_last() else {
        return Err("an empty path".to_owned());
    };
    let mut cur = v;
    for s in parents {
        let Segment::Field(f) = s else {
            return Err("a list in the path".to_owned());
        };
        let map = cur
            .as_object_mut()
            .ok_or_else(|| format!("{f}'s parent is not an object"))?;
        let next = map
            .entry(f.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if next.is_null() {
            *next = Value::Object(Map::new());
        }
        cur = next;
    }
    let Segment::Field(f) = last else {
        return Err("a list at the end of the path".to_owned());
    };
    cur.as_object_mut()
        .ok_or_else(|| format!("{f}'s parent is not an object"))?
        .insert(f.clone(), value);
    Ok(())
}

/// Calls `each` with every item the list segments of `prefix` reach (`prefix` ends with a
/// list segment); a missing or non-list value reaches none.
pub fn for_each_item(
    v: &mut Value,
    prefix: &[Segment],
    each: &mut dyn FnMut(&mut Value) -> Result<(), String>,
) -> Result<(), String> {
    let Some((first, rest)) = prefix.split_first() else {
        return each(v);
    };
    match first {
        Segment::Field(f) => match v.get_mut(f) {
            Some(next) => for_each_item(next, rest, each),
            None => Ok(()),
        },
        Segment::Each => match v.as_array_mut() {
            Some(items) => {
                for item in items {
                    for_each_item(item, rest, each)?;
                }
                Ok(())
            }
            None => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_path_with_lists_parses_into_fields_and_items() {
        let p = FieldPath::parse("spec.ports[].name").unwrap();
        assert_eq!(
            p.segments(),
            [
                Segment::Field("spec".into()),
                Segment::Field("ports".into()),
                Segment::Each,
                Segment::Field("name".into())
            ]
        );
    }

    #[test]
    fn bad_paths_are_refused() {
        assert!(FieldPath::parse("spec..x").is_err());
        assert!(FieldPath::parse("spec.x[0]").is_err());
        assert!(FieldPath::parse("metadata.labels").is_err());
    }

    #[test]
    fn set_makes_the_objects_on_the_way_and_take_removes() {
        let mut v = json!({});
        let p = FieldPath::parse("spec.a.b").unwrap();
        set(&mut v, p.segments(), json!(1)).unwrap();
        assert_eq!(v, json!({"spec": {"a": {"b": 1}}}));
        assert_eq!(take(&mut v, p.segments()), Some(json!(1)));
        assert_eq!(get(&v, p.segments()), None);
    }
}
