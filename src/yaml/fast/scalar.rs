//! Scalar resolution as serde-saphyr resolves plain scalars (null, YAML 1.1 booleans,
//! integers, floats), escapes, and the visits of a scalar.

use super::{bail, Bail, Scalar, Style, R};
use serde::de::Visitor;
use std::borrow::Cow;

/// A key's length and first bytes, to compare keys without a call.
#[inline]
pub(super) fn fingerprint(k: &str) -> u64 {
    // (built in a register: a copy into a byte array called memcpy and stalled the load)
    let b = k.as_bytes();
    let head = match b.first_chunk::<8>() {
        Some(h) => u64::from_le_bytes(*h) & 0x00ff_ffff_ffff_ffff,
        None => b.iter().rev().fold(0u64, |h, &c| (h << 8) | u64::from(c)),
    };
    head | (b.len() as u64 & 0xff) << 56
}

/// `null` as serde-saphyr reads a plain scalar.
#[inline]
pub(super) fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// A YAML 1.1 boolean, as serde-saphyr reads it (any case).
#[inline]
pub(super) fn yaml11_bool(s: &str) -> Option<bool> {
    let t = |w: &str| s.eq_ignore_ascii_case(w);
    match s.len() {
        1 => match s.as_bytes()[0] | 0x20 {
            b'y' => Some(true),
            b'n' => Some(false),
            _ => None,
        },
        2 if t("on") => Some(true),
        2 if t("no") => Some(false),
        3 if t("yes") => Some(true),
        3 if t("off") => Some(false),
        4 if t("true") => Some(true),
        5 if t("false") => Some(false),
        _ => None,
    }
}

/// An unsigned integer spelled in decimal without a leading zero, or `0x` hex.
pub(super) fn parse_u64(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if let Some(h) = s.strip_prefix("0x") {
        if h.is_empty() || h.len() > 16 || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        return u64::from_str_radix(h, 16).ok();
    }
    if b.is_empty() || (b[0] == b'0' && b.len() > 1) {
        return None;
    }
    if let Some(x) = short_decimal(b) {
        return x;
    }
    if !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.parse().ok()
}

/// Up to 18 bytes: `Some(None)` unless all are digits, else `Some` of their value (which
/// cannot overflow); longer: `None` (for the standard parser). Read in the loop that checks
/// the digits: the standard parser's set-up and overflow checks were about half an integer's
/// cost. `integers_parse_as_the_standard_parser` ties both readers to it.
#[inline]
fn short_decimal(b: &[u8]) -> Option<Option<u64>> {
    if b.len() > 18 {
        return None;
    }
    let mut x = 0u64;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return Some(None);
        }
        x = x * 10 + u64::from(d);
    }
    Some(Some(x))
}

/// A signed decimal integer (`-` allowed, no leading zero), or unsigned as [`parse_u64`].
pub(super) fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(d) => {
            let b = d.as_bytes();
            if b.is_empty() || (b[0] == b'0' && b.len() > 1) {
                return None;
            }
            // (below 10^18: the negation fits)
            if let Some(x) = short_decimal(b) {
                return x.map(|x| -(x as i64));
            }
            if !b.iter().all(u8::is_ascii_digit) {
                return None;
            }
            s.parse().ok()
        }
        None => i64::try_from(parse_u64(s)?).ok(),
    }
}

/// `-?digits(.digits)?([eE][+-]?digits)?`: the float spellings the fast reader resolves.
pub(super) fn simple_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let s = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > s
    };
    if !digits(&mut i) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

impl<'de> Scalar<'de> {
    /// The scalar's text, escapes decoded.
    #[inline]
    pub(super) fn value(&self) -> R<Cow<'de, str>> {
        // (the usual case inline: this runs for every key and string)
        if !self.escaped {
            return Ok(Cow::Borrowed(self.raw));
        }
        self.unescape().map(Cow::Owned)
    }

    #[inline(never)]
    fn unescape(&self) -> R<String> {
        if self.style == Style::Single {
            return Ok(self.raw.replace("''", "'"));
        }
        let mut out = String::with_capacity(self.raw.len());
        let mut chars = self.raw.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let hex = |chars: &mut std::str::Chars, n: usize| -> R<char> {
                let mut v = 0u32;
                for _ in 0..n {
                    v = v * 16 + chars.next().and_then(|c| c.to_digit(16)).ok_or(Bail)?;
                }
                char::from_u32(v).ok_or(Bail)
            };
            out.push(match chars.next().ok_or(Bail)? {
                '"' => '"',
                '\\' => '\\',
                '0' => '\0',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                'x' => hex(&mut chars, 2)?,
                'u' => hex(&mut chars, 4)?,
                _ => return bail(),
            });
        }
        Ok(out)
    }

    #[inline]
    pub(super) fn plain(&self) -> R<&'de str> {
        if self.style == Style::Plain {
            Ok(self.raw)
        } else {
            bail()
        }
    }

    pub(super) fn visit_str<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        if self.style == Style::Plain && is_null(self.raw) {
            return bail();
        }
        match self.value()? {
            Cow::Borrowed(b) => v.visit_borrowed_str(b),
            Cow::Owned(s) => v.visit_string(s),
        }
    }

    /// As serde-saphyr's `deserialize_any` resolves a scalar (null, bool, integer, float,
    /// string), for the spellings it resolves exactly.
    pub(super) fn visit_any<V: Visitor<'de>>(self, v: V, floats: bool) -> R<V::Value> {
        if self.style != Style::Plain {
            return match self.value()? {
                Cow::Borrowed(b) => v.visit_borrowed_str(b),
                Cow::Owned(s) => v.visit_string(s),
            };
        }
        let t = self.raw;
        if is_null(t) {
            return v.visit_unit();
        }
        if let Some(b) = yaml11_bool(t) {
            return v.visit_bool(b);
        }
        // (serde-saphyr's integer and float spellings start with a digit, a sign or a dot;
        // Rust's float parser also takes `inf`/`nan` words, which serde-saphyr then refuses
        // as non-finite and reads as strings, as here)
        match t.as_bytes()[0] {
            b'+' | b'.' => bail(),
            b'-' => match parse_i64(t) {
                Some(x) => v.visit_i64(x),
                None => self.visit_float(v, floats),
            },
            b'0'..=b'9' => match parse_u64(t) {
                Some(x) => v.visit_u64(x),
                None => self.visit_float(v, floats),
            },
            _ => v.visit_borrowed_str(t),
        }
    }

    pub(super) fn visit_float<V: Visitor<'de>>(self, v: V, floats: bool) -> R<V::Value> {
        if !floats || !simple_float(self.raw) || parse_i64(self.raw).is_some() {
            return bail();
        }
        match self.raw.parse::<f64>() {
            Ok(x) if x.is_finite() => v.visit_f64(x),
            _ => bail(),
        }
    }
}
