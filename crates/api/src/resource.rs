//! `resource.Quantity`: a number with an SI, binary-SI or exponent suffix, kept as the
//! canonical string Go's apimachinery would print (`0.5` → `500m`, `1024Mi` → `1Gi`).

use prost::DecodeError;
use prost::bytes::{Buf, BufMut};
use prost::encoding::{self, DecodeContext, WireType};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// The message Go returns for an unparsable quantity.
const QUANTITY_REGEX_MESSAGE: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// Why a string is not a quantity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    /// The text does not have the shape of a quantity.
    #[error("{QUANTITY_REGEX_MESSAGE}")]
    Format,
    /// The number does not fit the 128-bit arithmetic kapi uses.
    #[error("quantity too large")]
    TooLarge,
}

/// How a quantity prints itself (Go's `resource.Format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    DecimalSi,
    BinarySi,
    DecimalExponent,
}

/// A Kubernetes `resource.Quantity`, held in canonical string form.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Quantity(String);

impl Quantity {
    /// Parses a quantity and brings it to Go's canonical form.
    pub fn parse(s: &str) -> Result<Self, QuantityError> {
        canonicalize(s.trim()).map(Quantity)
    }

    /// The canonical text, as Go's `Quantity.String()` prints it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The quantity rounded up to milli-units (Go's `RoundUp(-3)`, as core/v1's
    /// `SetDefaults_ResourceList` applies it): `1n` is `1m`, `1500u` is `2m`, negative amounts
    /// round away from zero; the format (SI, binary SI, exponent) is kept.
    pub fn round_up_to_milli(&self) -> Quantity {
        match parse_number(&self.0) {
            Ok(p) if p.exponent < -3 => Quantity(format_canonical(round_up_to(p, -3))),
            _ => self.clone(),
        }
    }

    /// Compares the amounts (Go's `Quantity.Cmp`): `1Gi` equals `1073741824`, `500m` is
    /// less than `1`.
    pub fn cmp_amount(&self, other: &Quantity) -> std::cmp::Ordering {
        match (parse_number(&self.0), parse_number(&other.0)) {
            (Ok(a), Ok(b)) => compare_parsed(&a, &b),
            _ => self.0.cmp(&other.0),
        }
    }
}

/// `a` against `b`, both `mantissa × 10^exponent`, scaled to the smaller exponent; a side
/// too large to scale is the larger in magnitude.
fn compare_parsed(a: &Parsed, b: &Parsed) -> std::cmp::Ordering {
    let sign = a.mantissa.signum().cmp(&b.mantissa.signum());
    if sign.is_ne() || a.mantissa == 0 {
        return sign;
    }
    let low = a.exponent.min(b.exponent);
    let scaled = |p: &Parsed| {
        // In i64: exponents of hostile quantities reach i32's ends.
        u32::try_from(i64::from(p.exponent) - i64::from(low))
            .ok()
            .and_then(|e| 10i128.checked_pow(e))
            .and_then(|f| p.mantissa.abs().checked_mul(f))
    };
    let magnitude = match (scaled(a), scaled(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, None) => {
            let f = |p: &Parsed| (p.mantissa.abs() as f64) * 10f64.powi(p.exponent);
            f(a).total_cmp(&f(b))
        }
    };
    if a.mantissa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

impl Default for Quantity {
    fn default() -> Self {
        Quantity("0".to_owned())
    }
}

impl fmt::Debug for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Quantity({})", self.0)
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Quantity {
    type Err = QuantityError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Quantity::parse(s)
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    /// Accepts a string or a bare number, as Go's `UnmarshalJSON` does; `null` is zero.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = match Option::<serde_json::Value>::deserialize(d)? {
            None => return Ok(Quantity::default()),
            Some(serde_json::Value::String(s)) => s,
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(_) => return Err(D::Error::custom(QUANTITY_REGEX_MESSAGE)),
        };
        Quantity::parse(&text).map_err(D::Error::custom)
    }
}

impl prost::Message for Quantity {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        // Go always writes field 1 (`optional string string = 1`) with the canonical text.
        encoding::string::encode(1, &self.0, buf);
    }
    fn merge_field(
        &mut self,
        tag: u32,
        wt: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        if tag != 1 {
            return encoding::skip_field(wt, tag, buf, ctx);
        }
        let mut text = String::new();
        encoding::string::merge(wt, &mut text, buf, ctx)?;
        // prost offers no other way to report a field that does not parse.
        #[allow(deprecated)]
        let invalid = |e: QuantityError| DecodeError::new(e.to_string());
        *self = Quantity::parse(&text).map_err(invalid)?;
        Ok(())
    }
    fn encoded_len(&self) -> usize {
        encoding::string::encoded_len(1, &self.0)
    }
    fn clear(&mut self) {
        *self = Quantity::default();
    }
}

/// A parsed quantity: `mantissa × 10^exponent`, plus the format its suffix asked for.
struct Parsed {
    mantissa: i128,
    exponent: i32,
    format: Format,
}

fn canonicalize(s: &str) -> Result<String, QuantityError> {
    let p = parse_number(s)?;
    Ok(format_canonical(round_up_to_nano(p)))
}

fn parse_number(s: &str) -> Result<Parsed, QuantityError> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let num_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(num_end);
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    if int_part.is_empty() && frac_part.is_empty() || frac_part.contains('.') {
        return Err(QuantityError::Format);
    }
    let mut mantissa: i128 = 0;
    for d in int_part.bytes().chain(frac_part.bytes()) {
        mantissa = mantissa
            .checked_mul(10)
            .and_then(|m| m.checked_add(i128::from(d - b'0')))
            .ok_or(QuantityError::TooLarge)?;
    }
    let mut exponent = -(frac_part.len() as i32);
    let format = apply_suffix(suffix, &mut mantissa, &mut exponent)?;
    if negative {
        mantissa = -mantissa;
    }
    Ok(Parsed {
        mantissa,
        exponent,
        format,
    })
}

fn apply_suffix(
    suffix: &str,
    mantissa: &mut i128,
    exponent: &mut i32,
) -> Result<Format, QuantityError> {
    let decimal = match suffix {
        "n" => Some(-9),
        "u" => Some(-6),
        "m" => Some(-3),
        "" => Some(0),
        "k" => Some(3),
        "M" => Some(6),
        "G" => Some(9),
        "T" => Some(12),
        "P" => Some(15),
        "E" => Some(18),
        _ => None,
    };
    if let Some(e) = decimal {
        *exponent += e;
        return Ok(Format::DecimalSi);
    }
    let binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
        .iter()
        .position(|b| *b == suffix);
    if let Some(i) = binary {
        let factor = 1024i128.pow(i as u32 + 1);
        *mantissa = mantissa
            .checked_mul(factor)
            .ok_or(QuantityError::TooLarge)?;
        return Ok(Format::BinarySi);
    }
    let exp_text = suffix
        .strip_prefix('e')
        .or_else(|| suffix.strip_prefix('E'))
        .ok_or(QuantityError::Format)?;
    let e: i32 = exp_text.parse().map_err(|_| QuantityError::Format)?;
    *exponent = exponent.checked_add(e).ok_or(QuantityError::TooLarge)?;
    Ok(Format::DecimalExponent)
}

/// Go keeps nano precision at most and rounds away from zero beyond it.
fn round_up_to_nano(p: Parsed) -> Parsed {
    round_up_to(p, -9)
}

/// `p` with no digit below `10^scale`, rounded away from zero (Go's `AsScale`).
fn round_up_to(mut p: Parsed, scale: i32) -> Parsed {
    // An i128 has at most 39 digits: far below the scale, any non-zero value rounds to ±1.
    if p.exponent < scale - 40 {
        p.mantissa = p.mantissa.signum();
        p.exponent = scale;
    }
    while p.exponent < scale {
        let rem = p.mantissa % 10;
        p.mantissa /= 10;
        p.mantissa += rem.signum();
        p.exponent += 1;
    }
    p
}

fn format_canonical(p: Parsed) -> String {
    if p.mantissa == 0 {
        return "0".to_owned();
    }
    let mut format = p.format;
    let mut integer = None;
    if format == Format::BinarySi {
        integer = integer_value(p.mantissa, p.exponent);
        match integer {
            Some(v) if v.abs() >= 1024 => {}
            _ => format = Format::DecimalSi,
        }
    }
    match (format, integer) {
        (Format::BinarySi, Some(v)) => format_binary(v),
        _ => format_decimal(p.mantissa, p.exponent, format),
    }
}

fn integer_value(mantissa: i128, exponent: i32) -> Option<i128> {
    if exponent >= 0 {
        return 10i128
            .checked_pow(exponent as u32)
            .and_then(|f| mantissa.checked_mul(f));
    }
    let f = 10i128.checked_pow(exponent.unsigned_abs())?;
    (mantissa % f == 0).then(|| mantissa / f)
}

fn format_binary(mut v: i128) -> String {
    let suffixes = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let mut i = 0;
    while i + 1 < suffixes.len() && v % 1024 == 0 {
        v /= 1024;
        i += 1;
    }
    format!("{v}{}", suffixes[i])
}

fn format_decimal(mut mantissa: i128, mut exponent: i32, format: Format) -> String {
    while mantissa % 10 == 0 {
        mantissa /= 10;
        exponent += 1;
    }
    while exponent.rem_euclid(3) != 0 {
        match mantissa.checked_mul(10) {
            Some(m) => mantissa = m,
            // Too many digits to shift: print the exact value in exponent form.
            None => return format!("{mantissa}e{exponent}"),
        }
        exponent -= 1;
    }
    let suffix = match (format, exponent) {
        (_, 0) => String::new(),
        (Format::DecimalExponent, e) => format!("e{e}"),
        (_, -9) => "n".into(),
        (_, -6) => "u".into(),
        (_, -3) => "m".into(),
        (_, 3) => "k".into(),
        (_, 6) => "M".into(),
        (_, 9) => "G".into(),
        (_, 12) => "T".into(),
        (_, 15) => "P".into(),
        (_, 18) => "E".into(),
        (_, e) => format!("e{e}"),
    };
    format!("{mantissa}{suffix}")
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn amounts_with_exponents_at_i32s_ends_compare_without_overflow() {
        let huge = Quantity("1e2147483646".to_owned());
        let small = Quantity("500m".to_owned());
        assert_eq!(huge.cmp_amount(&small), std::cmp::Ordering::Greater);
        assert_eq!(small.cmp_amount(&huge), std::cmp::Ordering::Less);
    }

    fn canon(s: &str) -> String {
        Quantity::parse(s).unwrap().to_string()
    }

    fn milli(s: &str) -> String {
        Quantity::parse(s).unwrap().round_up_to_milli().to_string()
    }

    /// `RoundUp(-3)`: below milli rounds away from zero, milli and above stay.
    #[test]
    fn round_up_to_milli_rounds_sub_milli_precision_away_from_zero() {
        assert_eq!(milli("1n"), "1m");
        assert_eq!(milli("100n"), "1m");
        assert_eq!(milli("1500u"), "2m");
        assert_eq!(milli("1.0001"), "1001m");
        assert_eq!(milli("-1500u"), "-2m");
        assert_eq!(milli("1e-9"), "1e-3");
        assert_eq!(milli("250m"), "250m");
        assert_eq!(milli("1Gi"), "1Gi");
        assert_eq!(milli("0"), "0");
    }

    #[test]
    fn decimal_fractions_become_milli_units() {
        assert_eq!(canon("0.5"), "500m");
        assert_eq!(canon("1.5"), "1500m");
    }

    #[test]
    fn trailing_zeros_move_into_the_suffix() {
        assert_eq!(canon("1000"), "1k");
        assert_eq!(canon("1000m"), "1");
        assert_eq!(canon("1500"), "1500");
    }

    #[test]
    fn binary_quantities_use_the_largest_exact_suffix() {
        assert_eq!(canon("1024Mi"), "1Gi");
        assert_eq!(canon("1.5Gi"), "1536Mi");
    }

    #[test]
    fn small_binary_quantities_print_as_decimal() {
        assert_eq!(canon("0.5Ki"), "512");
    }

    #[test]
    fn exponent_form_is_kept() {
        assert_eq!(canon("1e3"), "1e3");
        assert_eq!(canon("12e2"), "1200");
    }

    #[test]
    fn zero_prints_as_plain_zero() {
        assert_eq!(canon("0Gi"), "0");
        assert_eq!(canon("-0.0"), "0");
    }

    #[test]
    fn precision_beyond_nano_rounds_away_from_zero() {
        assert_eq!(canon("0.0000000001"), "1n");
        assert_eq!(canon("-0.0000000011"), "-2n");
    }

    #[test]
    fn amounts_compare_across_suffixes() {
        use std::cmp::Ordering::*;
        let q = |s: &str| Quantity::parse(s).unwrap();
        assert_eq!(q("1Gi").cmp_amount(&q("1073741824")), Equal);
        assert_eq!(q("500m").cmp_amount(&q("1")), Less);
        assert_eq!(q("2Gi").cmp_amount(&q("1G")), Greater);
        assert_eq!(q("-1").cmp_amount(&q("-2")), Greater);
        assert_eq!(q("1e30").cmp_amount(&q("1n")), Greater);
    }

    #[test]
    fn malformed_quantities_are_rejected() {
        for bad in ["", ".", "1.2.3", "abc", "1Qi", "1e"] {
            assert_eq!(Quantity::parse(bad), Err(QuantityError::Format), "{bad}");
        }
    }

    #[test]
    fn hostile_quantities_end_quickly_without_panicking() {
        assert_eq!(canon("1e-2147483648"), "1e-9");
        assert_eq!(
            Quantity::parse(&"9".repeat(60)),
            Err(QuantityError::TooLarge)
        );
        let near_max = format!("{}e1", i128::MAX);
        assert!(Quantity::parse(&near_max).is_ok());
        assert!(Quantity::parse("1e99999999999").is_err());
    }

    proptest::proptest! {
        #[test]
        fn canonical_form_parses_to_itself(
            n in 0u64..10_000_000,
            frac in proptest::option::of(0u32..1000),
            suffix in proptest::sample::select(vec!["", "n", "u", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "e-2"]),
            negative in proptest::bool::ANY,
        ) {
            let sign = if negative { "-" } else { "" };
            let text = match frac {
                Some(f) => format!("{sign}{n}.{f}{suffix}"),
                None => format!("{sign}{n}{suffix}"),
            };
            let once = Quantity::parse(&text).unwrap();
            let twice = Quantity::parse(once.as_str()).unwrap();
            proptest::prop_assert_eq!(once, twice);
        }
    }

    #[test]
    fn json_accepts_bare_numbers() {
        let q: Quantity = serde_json::from_str("1.5").unwrap();
        assert_eq!(q.as_str(), "1500m");
    }
}
