//! `IntOrString` (k8s.io/apimachinery/pkg/util/intstr): a value that is an integer or a
//! string, such as a container port by number or by name.

use prost::DecodeError;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// An integer or a string; JSON is the bare number or string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntOrString {
    /// An integer (Go's `Type: Int`).
    Int(i32),
    /// A string (Go's `Type: String`).
    String(String),
}

impl Default for IntOrString {
    fn default() -> Self {
        IntOrString::Int(0)
    }
}

impl fmt::Display for IntOrString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntOrString::Int(i) => write!(f, "{i}"),
            IntOrString::String(s) => f.write_str(s),
        }
    }
}

impl From<i32> for IntOrString {
    fn from(v: i32) -> Self {
        IntOrString::Int(v)
    }
}

impl From<&str> for IntOrString {
    fn from(v: &str) -> Self {
        IntOrString::String(v.to_owned())
    }
}

impl Serialize for IntOrString {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            IntOrString::Int(i) => s.serialize_i32(*i),
            IntOrString::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for IntOrString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = IntOrString;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer or a string")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| E::custom(format!("{v} does not fit in int32")))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<IntOrString, E> {
                i32::try_from(v)
                    .map(IntOrString::Int)
                    .map_err(|_| E::custom(format!("{v} does not fit in int32")))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<IntOrString, E> {
                Ok(IntOrString::String(v.to_owned()))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<IntOrString, E> {
                Ok(IntOrString::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// The protobuf form: `type` (0 int, 1 string), `intVal`, `strVal`, all three always written.
impl prost::Message for IntOrString {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        let (kind, int, string) = self.parts();
        encoding::int64::encode(1, &kind, buf);
        encoding::int32::encode(2, &int, buf);
        encoding::encode_key(3, WireType::LengthDelimited, buf);
        encoding::encode_varint(string.len() as u64, buf);
        buf.put_slice(string.as_bytes());
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            1 => {
                let mut kind = 0i64;
                encoding::int64::merge(wt, &mut kind, buf, ctx)?;
                *self = match (kind, std::mem::take(self)) {
                    (1, IntOrString::String(s)) => IntOrString::String(s),
                    (1, IntOrString::Int(_)) => IntOrString::String(String::new()),
                    (_, IntOrString::Int(i)) => IntOrString::Int(i),
                    (_, IntOrString::String(_)) => IntOrString::Int(0),
                };
                Ok(())
            }
            2 => {
                let mut v = 0i32;
                encoding::int32::merge(wt, &mut v, buf, ctx)?;
                if let IntOrString::Int(i) = self {
                    *i = v;
                }
                Ok(())
            }
            3 => {
                let mut v = String::new();
                encoding::string::merge(wt, &mut v, buf, ctx)?;
                if let IntOrString::String(s) = self {
                    *s = v;
                }
                Ok(())
            }
            _ => encoding::skip_field(wt, tag, buf, ctx),
        }
    }
    fn encoded_len(&self) -> usize {
        let (kind, int, string) = self.parts();
        encoding::int64::encoded_len(1, &kind)
            + encoding::int32::encoded_len(2, &int)
            + encoding::key_len(3)
            + encoding::encoded_len_varint(string.len() as u64)
            + string.len()
    }
    fn clear(&mut self) {
        *self = IntOrString::default();
    }
}

impl IntOrString {
    fn parts(&self) -> (i64, i32, &str) {
        match self {
            IntOrString::Int(i) => (0, *i, ""),
            IntOrString::String(s) => (1, 0, s.as_str()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn json_is_the_bare_number_or_string() {
        assert_eq!(serde_json::to_string(&IntOrString::Int(80)).unwrap(), "80");
        assert_eq!(
            serde_json::from_str::<IntOrString>("\"http\"").unwrap(),
            IntOrString::String("http".into())
        );
    }

    #[test]
    fn protobuf_round_trips_both_forms() {
        for v in [IntOrString::Int(8080), IntOrString::String("25%".into())] {
            let bytes = v.encode_to_vec();
            assert_eq!(IntOrString::decode(bytes.as_slice()).unwrap(), v);
        }
    }
}
