//! JSON values to CEL values and back, without a schema: objects are maps with string keys,
//! integers are `int` (or `uint` past i64), other numbers `double`; timestamps come back as
//! RFC 3339 strings, durations as seconds, bytes as base64.

use base64::Engine;
use kube_cel::cel::Value as CelValue;
use kube_cel::cel::objects::{Key, Map as CelMap};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// A JSON value as a CEL value.
pub fn from_json(v: &Value) -> CelValue {
    match v {
        Value::Null => CelValue::Null,
        Value::Bool(b) => CelValue::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => CelValue::Int(i),
            (None, Some(u)) => CelValue::UInt(u),
            _ => CelValue::Float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => CelValue::String(Arc::new(s.clone())),
        Value::Array(items) => CelValue::List(Arc::new(items.iter().map(from_json).collect())),
        Value::Object(map) => {
            let map: HashMap<Key, CelValue> = map
                .iter()
                .map(|(k, v)| (Key::String(Arc::new(k.clone())), from_json(v)))
                .collect();
            CelValue::Map(CelMap { map: map.into() })
        }
    }
}

/// The CEL type name of a value, for error messages.
pub(crate) fn type_name(v: &CelValue) -> &'static str {
    match v {
        CelValue::List(_) => "list",
        CelValue::Map(_) => "map",
        CelValue::Int(_) => "int",
        CelValue::UInt(_) => "uint",
        CelValue::Float(_) => "double",
        CelValue::String(_) => "string",
        CelValue::Bytes(_) => "bytes",
        CelValue::Bool(_) => "bool",
        CelValue::Duration(_) => "duration",
        CelValue::Timestamp(_) => "timestamp",
        CelValue::Null => "null",
        _ => "a value of another type",
    }
}

/// A CEL value as JSON; `Err` names a type JSON cannot hold.
pub fn to_json(v: &CelValue) -> Result<Value, String> {
    Ok(match v {
        CelValue::List(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        CelValue::Map(m) => {
            let mut out = serde_json::Map::new();
            for (k, v) in m.map.iter() {
                let key = match k {
                    Key::String(s) => s.to_string(),
                    Key::Int(i) => i.to_string(),
                    Key::Uint(u) => u.to_string(),
                    Key::Bool(b) => b.to_string(),
                };
                out.insert(key, to_json(v)?);
            }
            Value::Object(out)
        }
        CelValue::Int(i) => Value::from(*i),
        CelValue::UInt(u) => Value::from(*u),
        CelValue::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        CelValue::String(s) => Value::String(s.to_string()),
        CelValue::Bytes(b) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(b.as_slice()))
        }
        CelValue::Bool(b) => Value::Bool(*b),
        CelValue::Timestamp(t) => Value::String(t.to_rfc3339()),
        CelValue::Duration(d) => {
            Value::String(format!("{}s", d.num_milliseconds() as f64 / 1000.0))
        }
        CelValue::Null => Value::Null,
        other => {
            return Err(format!(
                "the result ({}) cannot be represented in JSON",
                type_name(other)
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_survives_a_trip_through_cel() {
        let v = json!({"a": [1, -2, 2.5, "x", true, null], "b": {"c": {}}});
        assert_eq!(to_json(&from_json(&v)).unwrap(), v);
    }
}
