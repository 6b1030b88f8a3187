//! Numbers as GothicSourcer prints them: C `%g` (6 significant digits) from the MSVC runtime,
//! whose exponent always has at least three digits (`1e-005`, `6.27438e-006`, `1.5e+010`).
//! Negative zero prints as `-0`; integral values print without a point (`1`, `-180`).
//!
//! `%g` rule (C99 7.19.6.1): with precision P = 6 and X the decimal exponent of the value once
//! rounded to P significant digits, `%f` with P − 1 − X decimals is used when −4 ≤ X < P, else
//! `%e` with P − 1 decimals; then trailing zeros (and a trailing point) are removed.
//!
//! Rounding is of the exact binary value to the nearest decimal (Rust's formatter and the C
//! runtime agree there); an exact tie (only possible for values with few binary digits, e.g.
//! `1234565`) goes to the even digit here, which modern C runtimes also do.

use std::fmt::Write;

/// Significant digits of `%g`.
pub const PRECISION: usize = 6;

/// Append `v` as `%g` with MSVC exponents to `out`.
#[inline]
pub fn push_g(out: &mut String, v: f64) {
    push_g_digits(out, v, PRECISION);
}

/// The shortest of `%.6g`, `%.7g`, … `%.17g` (MSVC exponents) that reads back as exactly `v`:
/// `%g` for every value that is a 6-digit decimal (all of GothicSourcer's), more digits only
/// where a writer chose a value 6 digits cannot hold.
pub fn push_exact(out: &mut String, v: f64) {
    let start = out.len();
    for digits in PRECISION..=17 {
        out.truncate(start);
        push_g_digits(out, v, digits);
        if !v.is_finite()
            || out[start..]
                .parse::<f64>()
                .is_ok_and(|r| r.to_bits() == v.to_bits())
        {
            return;
        }
    }
}

/// Append `v` as `%.{digits}g` with MSVC exponents to `out`.
pub fn push_g_digits(out: &mut String, v: f64, digits: usize) {
    if v == 0.0 {
        out.push_str(if v.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    if !v.is_finite() {
        // MSVC spells these `1.#INF`, `-1.#INF`, `1.#QNAN`; GothicSourcer never writes them.
        out.push_str(if v.is_nan() {
            "1.#QNAN"
        } else if v > 0.0 {
            "1.#INF"
        } else {
            "-1.#INF"
        });
        return;
    }
    // `{:.5e}` rounds to 6 significant digits and tells the exponent after rounding.
    let mut buf = String::with_capacity(24);
    let _ = write!(buf, "{:.*e}", digits - 1, v);
    let (mantissa, exp) = match buf.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (buf.as_str(), 0),
    };
    if (-4..digits as i32).contains(&exp) {
        let decimals = (digits as i32 - 1 - exp) as usize;
        let start = out.len();
        let _ = write!(out, "{:.*}", decimals, v);
        trim_zeros(out, start);
    } else {
        let start = out.len();
        out.push_str(mantissa);
        trim_zeros(out, start);
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let _ = write!(out, "{:03}", exp.unsigned_abs());
    }
}

/// `v` as `%g` with MSVC exponents.
pub fn g(v: f64) -> String {
    let mut s = String::new();
    push_g(&mut s, v);
    s
}

/// The decimal `%g` prints for a finite, non-zero `v`: `(m, e)` with `v ≈ m·10^e` and
/// `100000 ≤ |m| ≤ 999999`. `(0, 0)` for zero.
#[inline]
pub fn decimal6(v: f64) -> (i64, i32) {
    decimal(v, PRECISION)
}

/// Like [`decimal6`] with `digits` significant digits (6..=17).
pub fn decimal(v: f64, digits: usize) -> (i64, i32) {
    if v == 0.0 || !v.is_finite() {
        return (0, 0);
    }
    let mut buf = String::with_capacity(24);
    let _ = write!(buf, "{:.*e}", digits - 1, v);
    let Some((mantissa, exp)) = buf.split_once('e') else {
        return (0, 0);
    };
    let exp = exp.parse::<i32>().unwrap_or(0);
    let text: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let m = text.parse::<i64>().unwrap_or(0);
    (if v < 0.0 { -m } else { m }, exp - (digits as i32 - 1))
}

/// The `f64` a correctly rounding reader gives for the decimal `m·10^e` (one exact operation
/// while `|m| < 2^53` and `|e| ≤ 22`, the standard parser beyond).
pub fn from_decimal(m: i64, e: i32) -> f64 {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    if m.unsigned_abs() < (1u64 << 53) && e.unsigned_abs() <= 22 {
        let x = m as f64;
        return if e >= 0 {
            x * POW10[e as usize]
        } else {
            x / POW10[(-e) as usize]
        };
    }
    format!("{m}e{e}").parse().unwrap_or(f64::NAN)
}

/// `v` as a reader gets it back from its `%g` text (`-0` stays `-0`).
pub fn round6(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let (m, e) = decimal6(v);
    from_decimal(m, e)
}

/// Remove trailing zeros after a decimal point in `out[start..]`, and the point if nothing
/// follows it.
fn trim_zeros(out: &mut String, start: usize) {
    if !out[start..].contains('.') {
        return;
    }
    let trimmed = out.trim_end_matches('0').len();
    out.truncate(trimmed);
    if out.ends_with('.') {
        out.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spellings copied from real GothicSourcer files (MOL_JUMP_M01.ASC, HUM_1HTURNT3.ASC,
    /// asc.md §2.1), printed from the f32 value the token stands for.
    #[test]
    #[allow(clippy::approx_constant, clippy::excessive_precision)] // real GS values
    fn real_gothicsourcer_spellings() {
        let cases: &[(f32, &str)] = &[
            (1.26759e-6, "1.26759e-006"),
            (6.27438e-6, "6.27438e-006"),
            (1e-5, "1e-005"),
            (-1e-6, "-1e-006"),
            (5.73874e-13, "5.73874e-013"),
            (-4.76109e-14, "-4.76109e-014"),
            (0.004941, "0.004941"),
            (34.8722, "34.8722"),
            (53.6719, "53.6719"),
            (0.00619779, "0.00619779"),
            (-111.908, "-111.908"),
            (0.0457209, "0.0457209"),
            (1.57295, "1.57295"),
            (-0.707_107_1, "-0.707107"),
            (173.704, "173.704"),
            (0.2, "0.2"),
            (1.0, "1"),
            (-1.0, "-1"),
            (std::f32::consts::PI, "3.14159"),
            (1.5707964, "1.5708"),
            (0.996917, "0.996917"),
            (-0.0784593, "-0.0784593"),
        ];
        for &(v, want) in cases {
            assert_eq!(g(v as f64), want, "value {v:e}");
        }
    }

    #[test]
    fn zero_integers_and_switch_points() {
        assert_eq!(g(0.0), "0");
        assert_eq!(g(-0.0), "-0");
        assert_eq!(g(192.0), "192");
        assert_eq!(g(4800.0), "4800");
        assert_eq!(g(-180.0), "-180");
        // X = 5 is still %f, X = 6 is %e (rounding decides X).
        assert_eq!(g(123456.0), "123456");
        assert_eq!(g(999999.4), "999999");
        assert_eq!(g(999999.5), "1e+006");
        assert_eq!(g(1234567.0), "1.23457e+006");
        // X = -4 is %f, X = -5 is %e.
        assert_eq!(g(0.0001), "0.0001");
        assert_eq!(g(0.000123456), "0.000123456");
        assert_eq!(g(0.0000999999), "9.99999e-005");
        assert_eq!(g(0.00009999996), "0.0001");
        assert_eq!(g(1.5e10), "1.5e+010");
        assert_eq!(g(1e-100), "1e-100");
        assert_eq!(g(1e300), "1e+300");
    }

    #[test]
    fn appends_without_clearing() {
        let mut s = String::from("*TM_ROW0 ");
        push_g(&mut s, 6.27438e-6f32 as f64);
        s.push('\t');
        push_g(&mut s, -1.0);
        assert_eq!(s, "*TM_ROW0 6.27438e-006\t-1");
    }

    /// `round6` is what the text says: its `%g` is the text of `v`, and parsing that text gives
    /// it exactly.
    #[test]
    fn decimal_and_round6_agree_with_the_text() {
        assert_eq!(decimal6(6.27438e-6), (627438, -11));
        assert_eq!(decimal6(-111.908), (-111908, -3));
        assert_eq!(decimal6(1.0), (100000, -5));
        assert_eq!(from_decimal(627439, -11), 6.27439e-6);
        for v in [
            6.27438e-6f64,
            -111.9078,
            99.94956,
            1.5707964,
            1e-5,
            -0.0,
            123456.5,
            7.0,
        ] {
            let r = round6(v);
            assert_eq!(g(r), g(v), "{v}");
            assert_eq!(g(v).parse::<f64>().unwrap().to_bits(), r.to_bits(), "{v}");
        }
        // One step of the last digit either way.
        let (m, e) = decimal6(-7.37745);
        assert_eq!(g(from_decimal(m + 1, e)), "-7.37744");
        assert_eq!(g(from_decimal(m - 1, e)), "-7.37746");
    }

    #[test]
    fn exact_is_g_for_six_digit_values_and_longer_only_when_needed() {
        let s = |v: f64| {
            let mut t = String::new();
            push_exact(&mut t, v);
            t
        };
        assert_eq!(s(6.27438e-6), "6.27438e-006");
        assert_eq!(s(146.199), "146.199");
        assert_eq!(s(-0.0), "-0");
        assert_eq!(s(from_decimal(1461987, -4)), "146.1987");
        assert_eq!(s(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(s(1.0 / 3.0), "0.3333333333333333");
        assert_eq!(decimal(146.19873, 7), (1461987, -4));
    }

    #[test]
    fn not_finite_as_msvc_spells_it() {
        assert_eq!(g(f64::INFINITY), "1.#INF");
        assert_eq!(g(f64::NEG_INFINITY), "-1.#INF");
        assert_eq!(g(f64::NAN), "1.#QNAN");
    }
}
