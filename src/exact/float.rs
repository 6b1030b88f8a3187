//! Floats that keep their exact bit pattern (NaN payloads, infinities, -0.0).
//!
//! In YAML a value is a plain number printed as the shortest decimal that parses back to the
//! same `f32` (`ryu`). A NaN or infinity (which no engine field can use) is written with its
//! exact bits, `NaN(0x7fc00000)`, `Inf(0x7f800000)`, `-Inf(0xff800000)`: only an original holds
//! one, and only that spelling reads back. A NaN or infinity typed as `.nan` / `.inf` (or digits
//! too large for an `f32`, `1e39`) is refused: one rule for every format's floats. Numbers are
//! parsed from the scalar text directly with Rust's correctly rounded `f32` parser (never
//! through `f64`), so every bit survives.

use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// An `f32` stored as its bits.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(transparent)]
pub struct F32(pub u32);

pub const CANONICAL_NAN: u32 = 0x7fc0_0000;

impl F32 {
    #[inline]
    pub fn new(v: f32) -> Self {
        Self(v.to_bits())
    }
    #[inline]
    pub fn get(self) -> f32 {
        f32::from_bits(self.0)
    }
    #[inline]
    pub fn bits(self) -> u32 {
        self.0
    }
    #[inline]
    pub fn from_le_bytes(b: [u8; 4]) -> Self {
        Self(u32::from_le_bytes(b))
    }
    #[inline]
    pub fn to_le_bytes(self) -> [u8; 4] {
        self.0.to_le_bytes()
    }
    /// The YAML spelling, which [`parse_f32`] reads back to the same bits.
    pub fn to_yaml_text(self) -> String {
        let mut s = String::new();
        write_f32(&mut s, self);
        s
    }
}

/// Append the YAML spelling of `v` to `out`.
pub fn write_f32(out: &mut String, v: F32) {
    let f = v.get();
    if f.is_finite() {
        let mut buf = ryu::Buffer::new();
        push_finite(out, buf.format_finite(f));
    } else {
        // the exact bits of an original's NaN or infinity (see the module comment)
        let word = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "Inf"
        } else {
            "-Inf"
        };
        out.push_str(&format!("{word}(0x{:08x})", v.0));
    }
}

/// Append `ryu`'s text of a finite number so that YAML 1.1 readers (PyYAML) take it for a
/// number too: an exponent form gets a `.` and a sign (`1e-45` → `1.0e-45`, `1e16` →
/// `1.0e+16`); YAML 1.1 reads `1e-45` as a string. Other forms are copied.
#[inline]
pub fn push_finite(out: &mut String, ryu_text: &str) {
    let Some(e) = ryu_text.find('e') else {
        out.push_str(ryu_text);
        return;
    };
    let (mantissa, exp) = (&ryu_text[..e], &ryu_text[e + 1..]);
    out.push_str(mantissa);
    if !mantissa.contains('.') {
        out.push_str(".0");
    }
    out.push('e');
    if !exp.starts_with(['-', '+']) {
        out.push('+');
    }
    out.push_str(exp);
}

/// Parse the YAML spelling of an `f32` exactly.
pub fn parse_f32(s: &str) -> Option<F32> {
    let graphic = |b: Option<&u8>| b.is_some_and(u8::is_ascii_graphic);
    let t = if graphic(s.as_bytes().first()) && graphic(s.as_bytes().last()) {
        s
    } else {
        s.trim()
    };
    // Most values are plain numbers: straight to the number parser.
    let digit_at = |i: usize| t.as_bytes().get(i).is_some_and(u8::is_ascii_digit);
    if digit_at(0) || (t.starts_with('-') && digit_at(1)) {
        return parse_number(t);
    }
    // An original's NaN or infinity, by its bits; the word must say what the bits are.
    if let Some((word, rest)) = t.split_once('(') {
        let hex = rest.strip_suffix(')')?.strip_prefix("0x")?;
        if hex.len() != 8 {
            return None;
        }
        let v = F32(u32::from_str_radix(hex, 16).ok()?);
        let f = v.get();
        let ok = match word {
            "NaN" => f.is_nan(),
            "Inf" => f == f32::INFINITY,
            "-Inf" => f == f32::NEG_INFINITY,
            _ => false,
        };
        return ok.then_some(v);
    }
    parse_number(t)
}

/// Whether `t` is YAML's spelling of a NaN or an infinity (`.nan`, `-.inf`, ...).
fn is_yaml_special(t: &str) -> bool {
    let t = t.trim();
    let t = t.strip_prefix(['+', '-']).unwrap_or(t);
    matches!(t, ".nan" | ".NaN" | ".NAN" | ".inf" | ".Inf" | ".INF")
}

/// Why a NaN or infinity typed into a document is refused.
const NON_FINITE_HINT: &str = "a NaN or infinity is kept only where the original file held \
    one, written with its exact bits as the export does (e.g. Inf(0x7f800000)); give a number";

/// A number in digits (Rust's float syntax, which is YAML's plus the words it refuses).
fn parse_number(t: &str) -> Option<F32> {
    if let Some(v) = short_decimal(t) {
        return Some(F32::new(v));
    }
    let v = t.parse::<f32>().ok()?;
    // Rust's parser also accepts "inf"/"nan" words (YAML users get the dotted forms above),
    // and rounds digits too large for an f32 to infinity: neither is a number here (an
    // infinity is written `.inf`, so only an edit can spell one in digits).
    v.is_finite().then_some(F32::new(v))
}

/// `-?digits(.digits)?` with at most 7 digits in all (`0.25`, `-12.5`), the spelling of
/// most values, as `f32`: the digits as an integer below 2^24 and a power of ten up to 10^7
/// are both exact in an `f32`, so their quotient, rounded once by the division, is the
/// correctly rounded value the full parser gives (Clinger's fast path). Hand-written because
/// the general parser's setup was most of the cost of a short float in a large import;
/// `short_decimals_parse_as_the_standard_parser` ties the two together.
#[inline]
fn short_decimal(t: &str) -> Option<f32> {
    const POW10: [f32; 8] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7];
    let b = t.as_bytes();
    let (neg, b) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    // (`D.D`, the spelling of most values (`1.0`, `0.5`): no loop, the same quotient as
    // below (the two digits as an integer over 10); the loop cost ~90 instructions a value)
    if let [a, b'.', c] = *b {
        let (a, c) = (a.wrapping_sub(b'0'), c.wrapping_sub(b'0'));
        if a > 9 || c > 9 {
            return None;
        }
        let v = f32::from(a * 10 + c) / POW10[1];
        return Some(if neg { -v } else { v });
    }
    if b.is_empty() || b.len() > 8 {
        return None;
    }
    let mut m: u32 = 0;
    let mut digits = 0;
    let mut frac: Option<usize> = None;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                m = m * 10 + u32::from(c - b'0');
                digits += 1;
            }
            // (a digit on both sides of the point)
            b'.' if frac.is_none() && i > 0 && i + 1 < b.len() => frac = Some(b.len() - i - 1),
            _ => return None,
        }
    }
    if digits > 7 {
        return None;
    }
    let v = m as f32 / POW10[frac.unwrap_or(0)];
    Some(if neg { -v } else { v })
}

/// Why `t` is not an `f32` when it is a number too large for one (`1e39`).
fn overflow_message(t: &str) -> Option<String> {
    let v = t.trim().parse::<f64>().ok()?;
    (v.is_finite() && !(v as f32).is_finite()).then(|| {
        format!(
            "{} is too large for a 32-bit float (largest ±{:e}); {NON_FINITE_HINT}",
            t.trim(),
            f32::MAX
        )
    })
}

/// Tolerance on |q|² − 1 for an edited rotation (every format): a rotation further from unit
/// length (a zero key, a typo) is refused, not normalised or turned into identity. Decoded
/// rotations of every format lie within it (UE3's Float32NoW, the coarsest, < 1 %).
pub const UNIT_QUAT_TOLERANCE: f32 = 0.05;

/// Why `q` ([x, y, z, w]) cannot be an edited rotation: not finite, or |q|² more than
/// [`UNIT_QUAT_TOLERANCE`] from 1.
pub fn unit_quat_error(q: [f32; 4]) -> Option<String> {
    let shown = || {
        let v: Vec<String> = q.iter().map(|&c| F32::new(c).to_yaml_text()).collect();
        format!("[{}]", v.join(", "))
    };
    if q.iter().any(|c| !c.is_finite()) {
        return Some(format!("rotation {} is not finite", shown()));
    }
    let n2: f64 = q.iter().map(|&c| c as f64 * c as f64).sum();
    ((n2 - 1.0).abs() > UNIT_QUAT_TOLERANCE as f64).then(|| {
        format!(
            "rotation {} is not a unit quaternion (|q| = {}): a rotation must have length 1 \
             (|q|² within {} % of 1), e.g. [0.0, 0.0, 0.0, 1.0] for no rotation",
            shown(),
            (n2.sqrt() * 1000.0).round() / 1000.0,
            UNIT_QUAT_TOLERANCE * 100.0
        )
    })
}

impl fmt::Debug for F32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_yaml_text())
    }
}

impl fmt::Display for F32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_yaml_text())
    }
}

impl From<f32> for F32 {
    fn from(v: f32) -> Self {
        Self::new(v)
    }
}

impl Serialize for F32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let f = self.get();
        if !f.is_finite() {
            s.serialize_str(&self.to_yaml_text())
        } else {
            s.serialize_f32(f)
        }
    }
}

impl<'de> Deserialize<'de> for F32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = F32;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number (or an original's NaN(0x........) / Inf(0x7f800000))")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<F32, E> {
                parse_f32(v).ok_or_else(|| match overflow_message(v) {
                    Some(m) => E::custom(m),
                    None if is_yaml_special(v) => {
                        E::custom(format!("{} is not a number: {NON_FINITE_HINT}", v.trim()))
                    }
                    None => E::invalid_value(de::Unexpected::Str(v), &self),
                })
            }
            // Other deserialisers (JSON) hand over numbers; they are exact for f32 values
            // written as f64.
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<F32, E> {
                if !v.is_finite() {
                    return Err(E::custom(format!("{v} is not a number: {NON_FINITE_HINT}")));
                }
                if !(v as f32).is_finite() {
                    return Err(E::custom(format!(
                        "{v} is too large for a 32-bit float (largest ±{:e})",
                        f32::MAX
                    )));
                }
                Ok(F32::new(v as f32))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<F32, E> {
                Ok(F32::new(v as f32))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<F32, E> {
                Ok(F32::new(v as f32))
            }
        }
        // Ask for the scalar's text so the value never passes through f64.
        d.deserialize_str(V)
    }
}

impl JsonSchema for F32 {
    fn schema_name() -> String {
        "F32".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "32-bit float, kept to the bit: a number; an original's NaN or infinity is written with its exact bits, NaN(0x7fc00000), Inf(0x7f800000), -Inf(0xff800000) (.nan/.inf are refused)",
            "anyOf": [
                {"type": "number"},
                {"type": "string", "pattern": "^(NaN\\(0x[0-9a-fA-F]{8}\\)|Inf\\(0x7[fF]800000\\)|-Inf\\(0x[fF]{2}800000\\))$"}
            ]
        }))
    }
}

// deku support: src/exact/deku_impls.rs.

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_decimals_parse_as_the_standard_parser() {
        assert_eq!(short_decimal("0.25"), Some(0.25));
        assert_eq!(short_decimal("-12.5"), Some(-12.5));
        assert_eq!(
            short_decimal("-0.0").map(f32::to_bits),
            Some((-0.0f32).to_bits())
        );
        assert_eq!(short_decimal("0.1"), Some(0.1));
        assert_eq!(short_decimal("9999999"), Some(9_999_999.0));
        // outside the fast path: left to the full parser
        for t in [
            "", "-", "1.", ".5", "1e5", "12345678", "1.2.3", "0x10", "+1", "1,5", "--1",
        ] {
            assert_eq!(short_decimal(t), None, "{t}");
        }
        // every spelling of up to 7 digits with the point anywhere (and a sample of longer
        // ones): the same bits as `str::parse`
        let mut n = 0;
        for m in (0u32..10_000_000).step_by(13).chain(0..20_000) {
            let d = m.to_string();
            for point in 0..d.len() {
                let t = if point == 0 {
                    d.clone()
                } else {
                    format!("{}.{}", &d[..point], &d[point..])
                };
                for t in [t.clone(), format!("-{t}"), format!("0.{t}")] {
                    let want = t.parse::<f32>().ok().map(f32::to_bits);
                    if let Some(v) = short_decimal(&t) {
                        assert_eq!(Some(v.to_bits()), want, "{t}");
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 10_000_000, "{n} spellings compared");
    }

    #[test]
    fn exponent_forms_read_as_numbers_in_yaml_1_1_too() {
        let text = |v: f32| F32::new(v).to_yaml_text();
        assert_eq!(text(f32::from_bits(1)), "1.0e-45");
        assert_eq!(text(1.5e-7), "1.5e-7");
        assert_eq!(text(1e16), "1.0e+16");
        assert_eq!(text(0.25), "0.25");
        for v in [f32::from_bits(1), 1.5e-7, 1e16, 3.4028235e38] {
            assert_eq!(parse_f32(&text(v)), Some(F32::new(v)));
        }
    }

    #[test]
    fn special_values_keep_their_bits() {
        for bits in [
            0x8000_0000u32, // -0.0
            0x0000_0000,
            0x7f80_0000, // inf
            0xff80_0000, // -inf
            CANONICAL_NAN,
            0x7fa0_0001, // signalling NaN with payload
            0xffc0_0000, // negative quiet NaN
            0x0000_0001, // smallest subnormal
            0x7f7f_ffff, // f32::MAX
            0x3806_66ec, // the MAN rotation scale
        ] {
            let text = F32(bits).to_yaml_text();
            assert_eq!(parse_f32(&text), Some(F32(bits)), "{bits:#x} -> {text}");
        }
        assert_eq!(F32(0x8000_0000).to_yaml_text(), "-0.0");
        assert_eq!(F32(0x7fa0_0001).to_yaml_text(), "NaN(0x7fa00001)");
        assert_eq!(F32(CANONICAL_NAN).to_yaml_text(), "NaN(0x7fc00000)");
        assert_eq!(F32(0x7f80_0000).to_yaml_text(), "Inf(0x7f800000)");
        assert_eq!(F32(0xff80_0000).to_yaml_text(), "-Inf(0xff800000)");
    }

    #[test]
    fn a_typed_nan_or_infinity_is_refused_only_exact_bits_read() {
        for t in [".nan", ".inf", "-.inf", "+.inf", ".NaN", ".INF"] {
            assert_eq!(parse_f32(t), None, "{t}");
            // The scalar as the YAML reader hands it over (the whole path from a YAML file:
            // `roundtrip-tests/man_edit.rs`); the exact floor does not import the YAML floor.
            let d: serde::de::value::StrDeserializer<serde::de::value::Error> =
                serde::de::IntoDeserializer::into_deserializer(t);
            let e = F32::deserialize(d).unwrap_err().to_string();
            assert!(e.contains(&format!("{t} is not a number: a NaN or infinity is kept only where the original file held one")), "{e}");
        }
        // the word must match the bits
        assert_eq!(parse_f32("Inf(0xff800000)"), None);
        assert_eq!(parse_f32("NaN(0x7f800000)"), None);
        assert_eq!(parse_f32("-Inf(0x7f800000)"), None);
        assert_eq!(parse_f32("Inf(0x7f800000)"), Some(F32(0x7f80_0000)));
        assert_eq!(parse_f32("NaN(0xffc00000)"), Some(F32(0xffc0_0000)));
        // JSON-side numbers: non-finite refused too
        use serde::de::IntoDeserializer;
        let d: serde::de::value::F64Deserializer<serde::de::value::Error> =
            f64::INFINITY.into_deserializer();
        assert!(F32::deserialize(d).is_err());
    }

    #[test]
    fn sampled_floats_round_trip_through_text() {
        // A stride through all 2^32 patterns; the exhaustive run lives in the ignored test.
        let mut bits: u32 = 0;
        loop {
            let v = F32(bits);
            assert_eq!(parse_f32(&v.to_yaml_text()), Some(v), "{bits:#x}");
            match bits.checked_add(65_521) {
                Some(b) => bits = b,
                None => break,
            }
        }
    }

    /// Every one of the 2^32 bit patterns survives text and back. Takes a few minutes:
    /// `cargo test --release --lib -- --ignored every_f32_bit_pattern`.
    #[test]
    #[ignore = "exhaustive over 2^32 values; run on demand"]
    fn every_f32_bit_pattern_round_trips_through_text() {
        use rayon::prelude::*;
        let bad = (0..=u16::MAX as u32)
            .into_par_iter()
            .map(|hi| {
                let mut s = String::with_capacity(32);
                (0..=u16::MAX as u32)
                    .filter(|lo| {
                        let v = F32(hi << 16 | lo);
                        s.clear();
                        write_f32(&mut s, v);
                        parse_f32(&s) != Some(v)
                    })
                    .count()
            })
            .sum::<usize>();
        assert_eq!(bad, 0);
    }

    #[test]
    fn words_are_not_numbers() {
        assert_eq!(parse_f32("inf"), None);
        assert_eq!(parse_f32("abc"), None);
        assert_eq!(parse_f32("NaN"), None);
        assert_eq!(parse_f32("-Infinity"), None);
        // Digits too large for an f32 are not a number (an infinity is `.inf`).
        assert_eq!(parse_f32("1e39"), None);
        assert_eq!(parse_f32("-4e38"), None);
        assert_eq!(parse_f32("3.4028235e38"), Some(F32::new(f32::MAX)));
        assert_eq!(parse_f32("1e-50"), Some(F32::new(0.0)));
        assert_eq!(parse_f32("1e3"), Some(F32::new(1000.0)));
        assert_eq!(parse_f32(" 12 "), Some(F32::new(12.0)));
    }
}
