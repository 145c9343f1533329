//! serde helpers for Go's `encoding/json` behaviour: `null` leaves a field at its zero
//! value, and `[]byte` travels as standard base64 with padding.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::BTreeMap;

/// Reads a field that Go declares without a pointer: `null` gives the zero value.
pub fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// `true` for Go's zero value of a number (used with `omitempty`).
pub fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

/// `true` for Go's zero value of a bool (used with `omitempty`).
pub fn is_false(v: &bool) -> bool {
    !*v
}

/// `map[string][]byte` as a JSON object of base64 strings.
pub mod base64_map {
    use super::*;

    /// Writes each value as base64.
    pub fn serialize<S: Serializer>(
        m: &BTreeMap<String, Vec<u8>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let encoded: BTreeMap<&str, String> = m
            .iter()
            .map(|(k, v)| (k.as_str(), STANDARD.encode(v)))
            .collect();
        encoded.serialize(s)
    }

    /// Reads base64 values; `null` (the map or a value) gives empty.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Vec<u8>>, D::Error> {
        let raw = Option::<BTreeMap<String, Option<String>>>::deserialize(d)?.unwrap_or_default();
        raw.into_iter()
            .map(|(k, v)| {
                let bytes = match v {
                    Some(v) => STANDARD
                        .decode(v.as_bytes())
                        .map_err(|e| D::Error::custom(format!("illegal base64 data: {e}")))?,
                    None => Vec::new(),
                };
                Ok((k, bytes))
            })
            .collect()
    }
}

/// `[]byte` as a base64 string.
pub mod base64_bytes {
    use super::*;

    /// Writes the bytes as base64.
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(v))
    }

    /// Reads base64; `null` gives empty.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(v) => STANDARD
                .decode(v.as_bytes())
                .map_err(|e| D::Error::custom(format!("illegal base64 data: {e}"))),
            None => Ok(Vec::new()),
        }
    }
}
