//! serde helpers for Go's `encoding/json` behaviour (`null` leaves a field at its zero
//! value, `[]byte` travels as base64), shared with kapi-machinery.

pub use kapi_machinery::serde_helpers::{
    base64_bytes, base64_map, is_false, is_zero_i32, is_zero_i64, null_as_default as null_default,
};

/// `*float64` written as Go's `encoding/json` does for the common case: an integral value
/// below 1e21 has no fraction (`0`, not `0.0`).
pub mod go_float {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the number.
    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match *v {
            Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => s.serialize_i64(f as i64),
            Some(f) => s.serialize_f64(f),
            None => s.serialize_none(),
        }
    }

    /// Reads the number.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Option::<f64>::deserialize(d)
    }
}
