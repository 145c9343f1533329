//! Serde helpers that give Go's JSON semantics to Rust structs: `null` decodes as the zero
//! value, `omitempty` tests, and base64 for byte fields.

use serde::{Deserialize, Deserializer, Serializer};
use std::collections::BTreeMap;

/// Decodes `null` as the type's default, as Go does for non-pointer fields.
pub fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// `omitempty` for integers.
pub fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

/// `omitempty` for 32-bit integers.
pub fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

/// `omitempty` for booleans.
pub fn is_false(v: &bool) -> bool {
    !*v
}

/// Base64 (standard, padded) for `Vec<u8>` fields, as Go encodes `[]byte`.
pub mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serializes bytes as a base64 string.
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(v))
    }

    /// Deserializes a base64 string (or null) into bytes.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s: Option<String> = Option::deserialize(d)?;
        match s {
            None => Ok(Vec::new()),
            Some(s) => STANDARD
                .decode(s.as_bytes())
                .map_err(serde::de::Error::custom),
        }
    }
}

/// Base64 values for `map[string][]byte` fields.
pub mod base64_map {
    use super::*;
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;

    /// Serializes each value as base64.
    pub fn serialize<S: Serializer>(
        v: &BTreeMap<String, Vec<u8>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_map(v.iter().map(|(k, b)| (k, STANDARD.encode(b))))
    }

    /// Deserializes base64 values (a null map or value is empty).
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, Vec<u8>>, D::Error> {
        let m: Option<BTreeMap<String, Option<String>>> = Option::deserialize(d)?;
        let mut out = BTreeMap::new();
        for (k, v) in m.unwrap_or_default() {
            let bytes = match v {
                None => Vec::new(),
                Some(s) => STANDARD
                    .decode(s.as_bytes())
                    .map_err(serde::de::Error::custom)?,
            };
            out.insert(k, bytes);
        }
        Ok(out)
    }
}
