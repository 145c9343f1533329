//! JSON parsing that also reports duplicate object keys with their paths (strict field
//! validation, R6.13: `duplicate field "metadata.labels.a"`). The last value wins, as in Go.

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// Parses `bytes`; returns the value and the paths of duplicated keys, in input order.
pub fn parse_with_duplicates(bytes: &[u8]) -> Result<(Value, Vec<String>), serde_json::Error> {
    let dups = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = Seed {
        path: String::new(),
        dups: &dups,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok((value, dups.into_inner()))
}

struct Seed<'a> {
    path: String,
    dups: &'a RefCell<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let path = format!("{}[{}]", self.path, out.len());
            match seq.next_element_seed(Seed {
                path,
                dups: self.dups,
            })? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            let value = map.next_value_seed(Seed {
                path: path.clone(),
                dups: self.dups,
            })?;
            if out.insert(key, value).is_some() {
                self.dups.borrow_mut().push(path);
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_reported_with_full_paths_and_last_wins() {
        let (v, dups) = parse_with_duplicates(
            br#"{"metadata":{"labels":{"a":"1","a":"2"}},"x":[{"n":1,"n":2}]}"#,
        )
        .unwrap();
        assert_eq!(dups, vec!["metadata.labels.a", "x[0].n"]);
        assert_eq!(v["metadata"]["labels"]["a"], "2");
    }

    #[test]
    fn malformed_json_is_an_error() {
        assert!(parse_with_duplicates(b"{not json").is_err());
    }
}
