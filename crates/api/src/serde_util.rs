//! serde helpers for Go's `encoding/json` behaviour (`null` leaves a field at its zero
//! value, `[]byte` travels as base64), shared with kapi-machinery.

pub use kapi_machinery::serde_helpers::{
    base64_bytes, base64_map, is_false, is_zero_i32, is_zero_i64, null_as_default as null_default,
};
