//! `Time` (RFC 3339, whole seconds) and `MicroTime` (microseconds): JSON strings, protobuf
//! `{seconds, nanos}`; the zero value is JSON `null` and an empty protobuf message.

use chrono::{DateTime, SecondsFormat, Utc};
use prost::bytes::{Buf, BufMut};
use prost::encoding::{DecodeContext, WireType};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A timestamp with second precision; `Time::default()` is Go's zero time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub Option<DateTime<Utc>>);

/// A timestamp with microsecond precision; `MicroTime::default()` is Go's zero time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MicroTime(pub Option<DateTime<Utc>>);

impl Time {
    /// The current time, truncated to seconds.
    pub fn now() -> Self {
        let now = Utc::now();
        Self(DateTime::from_timestamp(now.timestamp(), 0))
    }

    /// True for the zero time.
    pub fn is_zero(&self) -> bool {
        self.0.is_none()
    }
}

impl MicroTime {
    /// The current time, truncated to microseconds.
    pub fn now() -> Self {
        let now = Utc::now();
        Self(DateTime::from_timestamp_micros(now.timestamp_micros()))
    }

    /// True for the zero time.
    pub fn is_zero(&self) -> bool {
        self.0.is_none()
    }
}

fn parse_rfc3339<E: serde::de::Error>(s: &str) -> Result<DateTime<Utc>, E> {
    if let Some(t) = parse_utc_seconds(s.as_bytes()) {
        return Ok(t);
    }
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(E::custom)
}

/// Fast path for the form Kubernetes writes: `YYYY-MM-DDTHH:MM:SSZ`.
fn parse_utc_seconds(b: &[u8]) -> Option<DateTime<Utc>> {
    if b.len() != 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
        || b[19] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |acc, d| {
            d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
        })
    };
    let date = chrono::NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    let time = chrono::NaiveTime::from_hms_opt(num(11..13)?, num(14..16)?, num(17..19)?)?;
    Some(date.and_time(time).and_utc())
}

/// Writes `YYYY-MM-DDTHH:MM:SS` (+ `.ffffff` when `micros`) + `Z` without allocating.
fn write_utc<S: Serializer>(t: &DateTime<Utc>, micros: bool, s: S) -> Result<S::Ok, S::Error> {
    use chrono::{Datelike, Timelike};
    let year = t.year();
    if !(0..=9999).contains(&year) {
        let format = if micros {
            SecondsFormat::Micros
        } else {
            SecondsFormat::Secs
        };
        return s.serialize_str(&t.to_rfc3339_opts(format, true));
    }
    let mut buf = *b"0000-00-00T00:00:00.000000Z";
    let mut put = |at: usize, width: usize, mut v: u32| {
        for i in (0..width).rev() {
            buf[at + i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, year as u32);
    put(5, 2, t.month());
    put(8, 2, t.day());
    put(11, 2, t.hour());
    put(14, 2, t.minute());
    put(17, 2, t.second());
    let text = if micros {
        put(20, 6, t.timestamp_subsec_micros().min(999_999));
        &buf[..]
    } else {
        buf[19] = b'Z';
        &buf[..20]
    };
    s.serialize_str(std::str::from_utf8(text).map_err(serde::ser::Error::custom)?)
}

struct TimeVisitor;

impl serde::de::Visitor<'_> for TimeVisitor {
    type Value = Option<DateTime<Utc>>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an RFC 3339 time or null")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        parse_rfc3339(v).map(Some)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

struct OptionTimeVisitor;

impl<'de> serde::de::Visitor<'de> for OptionTimeVisitor {
    type Value = Option<DateTime<Utc>>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an RFC 3339 time or null")
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(TimeVisitor)
    }
}

fn deserialize_time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
    d.deserialize_option(OptionTimeVisitor)
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            None => s.serialize_none(),
            Some(t) => write_utc(t, false, s),
        }
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_time(d).map(Time)
    }
}

impl Serialize for MicroTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            None => s.serialize_none(),
            Some(t) => write_utc(t, true, s),
        }
    }
}

impl<'de> Deserialize<'de> for MicroTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = deserialize_time(d)?;
        Ok(MicroTime(t.and_then(|t| {
            DateTime::from_timestamp_micros(t.timestamp_micros())
        })))
    }
}

fn timestamp_len(secs: i64, nanos: i32) -> usize {
    prost::encoding::int64::encoded_len(1, &secs) + prost::encoding::int32::encoded_len(2, &nanos)
}

fn encode_timestamp(secs: i64, nanos: i32, buf: &mut impl BufMut) {
    prost::encoding::int64::encode(1, &secs, buf);
    prost::encoding::int32::encode(2, &nanos, buf);
}

/// Merges one Timestamp field into `(seconds, nanos)`.
fn merge_timestamp_field(
    parts: &mut (i64, i32),
    tag: u32,
    wire_type: WireType,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), prost::DecodeError> {
    match tag {
        1 => prost::encoding::int64::merge(wire_type, &mut parts.0, buf, ctx),
        2 => prost::encoding::int32::merge(wire_type, &mut parts.1, buf, ctx),
        _ => prost::encoding::skip_field(wire_type, tag, buf, ctx),
    }
}

fn from_parts(secs: i64, nanos: i32) -> Result<DateTime<Utc>, prost::DecodeError> {
    let nanos = u32::try_from(nanos)
        .map_err(|_| crate::serializer::proto_wire::decode_error("negative nanos"))?;
    DateTime::from_timestamp(secs, nanos)
        .ok_or_else(|| crate::serializer::proto_wire::decode_error("timestamp out of range"))
}

impl prost::Message for Time {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        // Go sends seconds only, nanos always 0 (time_proto.go).
        if let Some(t) = &self.0 {
            encode_timestamp(t.timestamp(), 0, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        let mut parts = (self.0.map(|t| t.timestamp()).unwrap_or(0), 0);
        merge_timestamp_field(&mut parts, tag, wire_type, buf, ctx)?;
        self.0 = Some(from_parts(parts.0, 0)?);
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        self.0.map(|t| timestamp_len(t.timestamp(), 0)).unwrap_or(0)
    }

    fn clear(&mut self) {
        self.0 = None;
    }
}

impl prost::Message for MicroTime {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if let Some(t) = &self.0 {
            encode_timestamp(t.timestamp(), t.timestamp_subsec_nanos() as i32, buf);
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        let mut parts = self
            .0
            .map(|t| (t.timestamp(), t.timestamp_subsec_nanos() as i32))
            .unwrap_or((0, 0));
        merge_timestamp_field(&mut parts, tag, wire_type, buf, ctx)?;
        self.0 = Some(from_parts(parts.0, parts.1)?);
        Ok(())
    }

    fn encoded_len(&self) -> usize {
        self.0
            .map(|t| timestamp_len(t.timestamp(), t.timestamp_subsec_nanos() as i32))
            .unwrap_or(0)
    }

    fn clear(&mut self) {
        self.0 = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn zero_time_is_json_null() {
        assert_eq!(serde_json::to_string(&Time::default()).unwrap(), "null");
        assert_eq!(
            serde_json::from_str::<Time>("null").unwrap(),
            Time::default()
        );
    }

    #[test]
    fn time_json_is_rfc3339_seconds_in_utc() {
        let t: Time = serde_json::from_str(r#""2026-11-29T13:54:04.5+01:00""#).unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#""2026-11-29T12:54:04Z""#
        );
    }

    #[test]
    fn micro_time_json_has_six_fraction_digits() {
        let t: MicroTime = serde_json::from_str(r#""2026-11-29T12:54:04.123456789Z""#).unwrap();
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#""2026-11-29T12:54:04.123456Z""#
        );
    }

    #[test]
    fn time_protobuf_sends_seconds_and_zero_nanos() {
        let t: Time = serde_json::from_str(r#""2026-11-29T12:54:04Z""#).unwrap();
        let bytes = t.encode_to_vec();
        assert_eq!(&bytes[..1], &[0x08]);
        assert_eq!(&bytes[bytes.len() - 2..], &[0x10, 0x00]);
        assert_eq!(Time::decode(bytes.as_slice()).unwrap(), t);
        assert!(Time::default().encode_to_vec().is_empty());
    }
}
