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
    if v == 0.0 || !v.is_finite() {
        push_g_digits(out, v, PRECISION);
        return;
    }
    for digits in PRECISION..=17 {
        let (m, e) = decimal_n(v, digits);
        // Reading back is one exact operation while |m| < 2^53 and |e| ≤ 22 (Clinger's fast
        // path); beyond, the standard parser decides.
        let back = if m.unsigned_abs() < (1 << 53) && e.unsigned_abs() <= 22 {
            from_decimal(m, e)
        } else {
            let mut t = String::with_capacity(32);
            write_decimal(&mut t, m, e, digits);
            t.parse::<f64>().unwrap_or(f64::NAN)
        };
        if back.to_bits() == v.to_bits() || digits == 17 {
            write_decimal(out, m, e, digits);
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
    let (m, e) = decimal(v, digits);
    write_decimal(out, m, e, digits);
}

/// Append the decimal `m·10^e` (`|m|` of exactly `digits` digits) in `%.{digits}g` layout:
/// `%f` when the exponent X of its first digit is in −4 ≤ X < digits, else `%e` with a sign
/// and at least three exponent digits; trailing zeros and a bare point removed.
fn write_decimal(out: &mut String, m: i64, e: i32, digits: usize) {
    let mut t = [0u8; TEXT_ROOM];
    let w = if digits == PRECISION && (100_000..1_000_000).contains(&m.unsigned_abs()) {
        format_decimal6(&mut t, 0, m, e)
    } else {
        format_decimal(&mut t, 0, m, e, digits)
    };
    // Only ASCII digits, signs, points and `e` were written.
    out.push_str(std::str::from_utf8(&t[..w]).unwrap_or_default());
}

/// Room [`format_decimal`] needs behind its start: its longest text (a sign, `0.000`, 19
/// digits, a point and a 5-byte exponent are 31 bytes) plus the fixed-size copies it makes
/// (up to 24 bytes past the text).
pub const TEXT_ROOM: usize = 64;

/// Write the decimal `m·10^e` (`m ≠ 0` of at most 17 significant digits) into `t` at `at`
/// (`t` must have [`TEXT_ROOM`] bytes from `at`; bytes past the text are scratch) as
/// [`push_exact`] prints the `f64` nearest to it, without that value: `%g` when its
/// significant digits (trailing zeros not counted) are at most 6, else `%.{n}g` with n its
/// significant digits. `m = 0` is `0`. Returns the position after the text.
/// (For n ≤ 15 the nearest `f64`s of two different decimals differ, so the shortest
/// precision that reads back is n; `asc export` prints the decimals it chose this way.)
#[inline]
pub fn put_decimal(t: &mut [u8], at: usize, m: i64, e: i32) -> usize {
    if m == 0 {
        t[at] = b'0';
        return at + 1;
    }
    if (100_000..1_000_000).contains(&m.unsigned_abs()) {
        return format_decimal6(t, at, m, e);
    }
    format_decimal(t, at, m, e, PRECISION)
}

/// [`format_decimal`] with `digits` = 6 for a 6-digit `|m|` (the usual case), the same text:
/// the digits are one 8-byte word (6 ASCII digits and two `'0'`s), written with 8-byte
/// stores; the significant digits come from the word's last non-`'0'` byte. Bytes past the
/// text are scratch, as in [`format_decimal`].
#[inline]
fn format_decimal6(t: &mut [u8], at: usize, m: i64, e: i32) -> usize {
    let n = m.unsigned_abs();
    debug_assert!((100_000..1_000_000).contains(&n));
    let pair =
        |i: u64| u16::from_le_bytes([DIGITS2[2 * i as usize], DIGITS2[2 * i as usize + 1]]) as u64;
    // Little-endian: the first digit is the lowest byte.
    let dw = pair(n / 10_000) | pair(n / 100 % 100) << 16 | pair(n % 100) << 32 | 0x3030 << 48;
    // Non-zero bytes where a digit is not '0'; the last of them ends the significant digits.
    let nz = (dw ^ 0x3030_3030_3030_3030) & 0xffff_ffff_ffff;
    let sig = (71 - nz.leading_zeros() as usize) / 8;
    let x = e + 5;
    let mut w = at;
    if m < 0 {
        t[w] = b'-';
        w += 1;
    }
    let put8 = |t: &mut [u8], w: usize, v: u64| t[w..w + 8].copy_from_slice(&v.to_le_bytes());
    if (-4..6).contains(&x) {
        if x < 0 {
            // `0.` and −x − 1 zeros, then the digits.
            put8(t, w, u64::from_le_bytes(*b"0.000000"));
            w += 2 + (-x - 1) as usize;
            put8(t, w, dw);
            w + sig
        } else {
            let int = x as usize + 1;
            put8(t, w, dw);
            if sig <= int {
                w + int
            } else {
                t[w + int] = b'.';
                put8(t, w + int + 1, dw >> (8 * int));
                w + sig + 1
            }
        }
    } else {
        put8(t, w, dw);
        w += 1;
        if sig > 1 {
            t[w] = b'.';
            put8(t, w + 1, dw >> 8);
            w += sig;
        }
        put_exponent(t, w, x)
    }
}

/// Two ASCII digits of 0..=99.
const DIGITS2: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// The text of [`write_decimal`] written into `t` from `at` (see [`TEXT_ROOM`]); returns the
/// position after it. `digits` is raised to the significant digits of `m` where it has more.
/// The pieces are moved with fixed-size copies (no call per piece).
#[inline]
fn format_decimal(t: &mut [u8], at: usize, m: i64, e: i32, digits: usize) -> usize {
    // The digits of |m|, left-aligned in `dg` and followed by '0's (so a fixed-size copy of
    // `dg` also writes the zeros of an integral value).
    let mut dg = [b'0'; 48];
    let mut n = m.unsigned_abs();
    let len = if (100_000..1_000_000).contains(&n) {
        // The usual case (6 digits): three pairs.
        let (a, b, c) = (
            (n / 10_000) as usize,
            (n / 100 % 100) as usize,
            (n % 100) as usize,
        );
        dg[0..2].copy_from_slice(&DIGITS2[2 * a..2 * a + 2]);
        dg[2..4].copy_from_slice(&DIGITS2[2 * b..2 * b + 2]);
        dg[4..6].copy_from_slice(&DIGITS2[2 * c..2 * c + 2]);
        6
    } else {
        let mut buf = [b'0'; 20];
        let mut p = 20;
        while n >= 100 {
            let r = (n % 100) as usize;
            n /= 100;
            p -= 2;
            buf[p..p + 2].copy_from_slice(&DIGITS2[2 * r..2 * r + 2]);
        }
        if n >= 10 {
            p -= 2;
            buf[p..p + 2].copy_from_slice(&DIGITS2[2 * n as usize..2 * n as usize + 2]);
        } else {
            p -= 1;
            buf[p] = b'0' + n as u8;
        }
        let len = 20 - p;
        dg[..20].copy_from_slice(&buf);
        dg.copy_within(p..20, 0);
        dg[len..20].fill(b'0');
        len
    };
    // The significant digits without trailing zeros (at least one).
    let mut sig = len;
    while sig > 1 && dg[sig - 1] == b'0' {
        sig -= 1;
    }
    let digits = digits.max(sig);
    let x = e + len as i32 - 1;
    let mut w = at;
    if m < 0 {
        t[w] = b'-';
        w += 1;
    }
    if (-4..digits as i32).contains(&x) {
        if x < 0 {
            // `0.` and −x − 1 zeros, then the digits.
            t[w..w + 8].copy_from_slice(b"0.000000");
            w += 2 + (-x - 1) as usize;
            t[w..w + 24].copy_from_slice(&dg[..24]);
            w + sig
        } else {
            let int = x as usize + 1;
            t[w..w + 24].copy_from_slice(&dg[..24]);
            if sig <= int {
                // (the '0's after the digits are the integer's zeros)
                w + int
            } else {
                t[w + int] = b'.';
                t[w + int + 1..w + int + 25].copy_from_slice(&dg[int..int + 24]);
                w + sig + 1
            }
        }
    } else {
        t[w] = dg[0];
        w += 1;
        if sig > 1 {
            t[w] = b'.';
            t[w + 1..w + 25].copy_from_slice(&dg[1..25]);
            w += sig;
        }
        put_exponent(t, w, x)
    }
}

/// `e±ddd` at `t[w..]` (|x| ≤ 340 for an f64: three digits, as `%g` prints them here);
/// returns the end.
#[inline(always)]
fn put_exponent(t: &mut [u8], w: usize, x: i32) -> usize {
    t[w] = b'e';
    t[w + 1] = if x < 0 { b'-' } else { b'+' };
    let a = x.unsigned_abs().min(999) as usize;
    t[w + 2] = b'0' + (a / 100) as u8;
    t[w + 3..w + 5].copy_from_slice(&DIGITS2[2 * (a % 100)..2 * (a % 100) + 2]);
    w + 5
}

/// 10^0 ..= 10^38 (all of them fit a `u128`).
const POW10_U128: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// `M·2^E / 10^k` rounded to the nearest integer, ties to even, exactly (integer arithmetic),
/// or `None` where the operands do not fit a `u128`.
fn scaled(mant: u64, e2: i32, k: i32) -> Option<u128> {
    let mut num = mant as u128;
    let mut den: u128 = 1;
    if k < 0 {
        num = num.checked_mul(*POW10_U128.get((-k) as usize)?)?;
    } else {
        den = *POW10_U128.get(k as usize)?;
    }
    if e2 >= 0 {
        if e2 >= 127 || num.leading_zeros() as i32 <= e2 {
            return None;
        }
        num <<= e2;
    } else if den == 1 {
        let s = -e2;
        if s >= 128 {
            return None;
        }
        let q = num >> s;
        let r = num - (q << s);
        let half = 1u128 << (s - 1);
        return Some(if r > half || (r == half && q & 1 == 1) {
            q + 1
        } else {
            q
        });
    } else {
        let s = -e2;
        if s >= 127 || den.leading_zeros() as i32 <= s {
            return None;
        }
        den <<= s;
    }
    let q = num / den;
    let r = num % den;
    let rest = den - r;
    Some(if r > rest || (r == rest && q & 1 == 1) {
        q + 1
    } else {
        q
    })
}

/// The correctly rounded decimal of a finite, non-zero `v` with `digits` (1..=17) significant
/// digits, in integer arithmetic: `(m, e)` with `10^(digits−1) ≤ |m| < 10^digits`. `None` where
/// the operands do not fit (subnormals, very large or very small values).
fn decimal_exact(v: f64, digits: usize) -> Option<(i64, i32)> {
    let bits = v.abs().to_bits();
    let biased = (bits >> 52) as i32;
    if biased == 0 || biased == 0x7ff || !(1..=17).contains(&digits) {
        return None;
    }
    let mant = (bits & ((1 << 52) - 1)) | (1 << 52);
    let e2 = biased - 1075;
    let lo = POW10_U128[digits - 1];
    let hi = POW10_U128[digits];
    // floor(log10 |v|) is floor(b·log10 2) or one more, b the binary exponent of the leading
    // bit (78913/2^18 = log10 2 to 1e-7; exact for |b| < 1650); the loop corrects.
    let x = (((biased as i64 - 1023) * 78913) >> 18) as i32;
    search(x, digits, v < 0.0, lo, hi, |k| scaled(mant, e2, k))
}

/// The decimal exponent search both digit paths share: from the estimate `x` of
/// floor(log10 |v|), the `digits` digits `scale(k)` of |v| / 10^k with k = x − digits + 1 must
/// lie in [`lo`, `hi`); a wrong estimate moves by one (three tries).
#[inline]
fn search<T: Copy + PartialOrd + TryInto<i64>>(
    mut x: i32,
    digits: usize,
    negative: bool,
    lo: T,
    hi: T,
    scale: impl Fn(i32) -> Option<T>,
) -> Option<(i64, i32)> {
    for _ in 0..3 {
        let k = x - (digits as i32 - 1);
        let q = scale(k)?;
        if q >= hi {
            x += 1;
        } else if q < lo {
            x -= 1;
        } else {
            let m: i64 = q.try_into().ok()?;
            return Some((if negative { -m } else { m }, k));
        }
    }
    None
}

/// `v` as `%g` with MSVC exponents.
pub fn g(v: f64) -> String {
    let mut s = String::new();
    push_g(&mut s, v);
    s
}

/// The decimal `%g` prints for a finite, non-zero `v`: `(m, e)` with `v ≈ m·10^e` and
/// `100000 ≤ |m| ≤ 999999`. `(0, 0)` for zero.
/// The floating-point path is inlined with the precision known (the usual case).
#[inline]
pub fn decimal6(v: f64) -> (i64, i32) {
    if v != 0.0 && v.is_finite() {
        if let Some(d) = decimal_fast(v, PRECISION) {
            return d;
        }
    }
    decimal(v, PRECISION)
}

/// [`decimal6`] where `digits` is [`PRECISION`], else [`decimal`].
#[inline]
pub fn decimal_n(v: f64, digits: usize) -> (i64, i32) {
    if digits == PRECISION {
        decimal6(v)
    } else {
        decimal(v, digits)
    }
}

/// Like [`decimal6`] with `digits` significant digits (6..=17).
pub fn decimal(v: f64, digits: usize) -> (i64, i32) {
    if v == 0.0 || !v.is_finite() {
        return (0, 0);
    }
    if let Some(d) = decimal_fast(v, digits) {
        return d;
    }
    if let Some(d) = decimal_exact(v, digits) {
        return d;
    }
    decimal_std(v, digits)
}

/// 10^0 ..= 10^22, each exact in an `f64`.
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `a·10^−k` rounded to the nearest integer (ties to even), exactly, for a finite `a > 0`,
/// `|k| ≤ 22` and a result below 2^52; `None` otherwise. The product or quotient `h` is one
/// correctly rounded floating-point operation, so `a·10^−k` is within half an ulp of `h`. Below
/// 2^52 the fraction of `h` is a multiple of that ulp, so it alone decides the rounding except
/// at exactly one half, where the sign of the error decides: the product's error
/// `a·p − h` or the quotient's remainder `a − h·p`, both exact by a fused multiply-add.
#[inline]
fn scaled_fast(a: f64, k: i32) -> Option<u64> {
    let p = *POW10_F64.get(k.unsigned_abs() as usize)?;
    let h = if k <= 0 { a * p } else { a / p };
    if h >= 4_503_599_627_370_496.0 {
        return None;
    }
    // h ≥ 0: truncation is the floor.
    let f = h as u64;
    let frac = h - f as f64;
    let up = if frac != 0.5 {
        frac > 0.5
    } else {
        let l = if k <= 0 {
            a.mul_add(p, -h)
        } else {
            (-h).mul_add(p, a)
        };
        l > 0.0 || (l == 0.0 && f & 1 == 1)
    };
    Some(f + up as u64)
}

/// [`decimal_exact`] in floating point (see [`scaled_fast`]) for `digits` ≤ 15 and decimal
/// exponents within ±22 of the digits; `None` elsewhere.
#[inline(always)]
fn decimal_fast(v: f64, digits: usize) -> Option<(i64, i32)> {
    if !(1..=15).contains(&digits) {
        return None;
    }
    let a = v.abs();
    let biased = (a.to_bits() >> 52) as i32;
    if biased == 0 || biased == 0x7ff {
        return None;
    }
    let lo = POW10_U128[digits - 1] as u64;
    let hi = POW10_U128[digits] as u64;
    let mut x = (((biased as i64 - 1023) * 78913) >> 18) as i32;
    // The estimate is floor(log10 |v|) or one less: a power of ten tells which (a guess only
    // where 10^(x+1) is not exact; the loop below checks the digits either way).
    let t = x + 1;
    let above = if t >= 0 {
        POW10_F64.get(t as usize).is_some_and(|&p| a >= p)
    } else {
        POW10_F64.get((-t) as usize).is_some_and(|&p| a * p >= 1.0)
    };
    if above {
        x += 1;
    }
    search(x, digits, v < 0.0, lo, hi, |k| scaled_fast(a, k))
}

/// [`decimal`] through the standard formatter (`{:.*e}` rounds the exact binary value).
fn decimal_std(v: f64, digits: usize) -> (i64, i32) {
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
#[inline]
pub fn from_decimal(m: i64, e: i32) -> f64 {
    if m.unsigned_abs() < (1u64 << 53) && e.unsigned_abs() <= 22 {
        let x = m as f64;
        return if e >= 0 {
            x * POW10_F64[e as usize]
        } else {
            x / POW10_F64[(-e) as usize]
        };
    }
    from_decimal_std(m, e)
}

/// [`from_decimal`] through the standard parser.
#[cold]
fn from_decimal_std(m: i64, e: i32) -> f64 {
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

    /// The `%g` of the standard formatter (`{:.*e}` and `{:.*}` round the exact binary value),
    /// the reference the integer path must equal.
    fn reference_g(v: f64, digits: usize) -> String {
        let buf = format!("{:.*e}", digits - 1, v);
        let (mantissa, exp) = buf.split_once('e').unwrap();
        let exp: i32 = exp.parse().unwrap();
        let trim = |t: String| {
            if t.contains('.') {
                t.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                t
            }
        };
        if (-4..digits as i32).contains(&exp) {
            trim(format!("{:.*}", (digits as i32 - 1 - exp) as usize, v))
        } else {
            let sign = if exp < 0 { '-' } else { '+' };
            format!(
                "{}e{sign}{:03}",
                trim(mantissa.to_string()),
                exp.unsigned_abs()
            )
        }
    }

    /// The 6-digit writer ([`format_decimal6`], behind [`put_decimal`] and `%g`) writes the
    /// text of the general one ([`format_decimal`]) for every 6-digit mantissa, both signs,
    /// each with one of the exponents that give `%f` with 0–5 decimals, `0.` with 1–4 zeros, and
    /// `%e` of both signs (3-digit exponents), and after scratch bytes.
    #[test]
    fn six_digit_writer_equals_the_general_one() {
        let exps = [
            -5, -6, -7, -8, -9, -10, -4, -3, -2, -1, 0, 1, 2, -11, -20, 5, 300, -305,
        ];
        for n in 100_000i64..1_000_000 {
            for m in [n, -n] {
                let e = exps[(n % exps.len() as i64) as usize];
                let (mut a, mut b) = ([0xaau8; TEXT_ROOM + 8], [0x55u8; TEXT_ROOM + 8]);
                let wa = put_decimal(&mut a, 3, m, e);
                let wb = format_decimal(&mut b, 3, m, e, PRECISION);
                assert_eq!(&a[3..wa], &b[3..wb], "{m}e{e}");
            }
        }
    }

    proptest::proptest! {
        /// The printed decimal of any finite f64 equals the standard formatter's `%g`.
        #[test]
        fn put_decimal_of_any_float_is_the_reference_g(bits in proptest::prelude::any::<u64>()) {
            let v = f64::from_bits(bits);
            proptest::prop_assume!(v.is_finite() && v != 0.0);
            let (m, e) = decimal6(v);
            let mut t = [0u8; TEXT_ROOM];
            let w = put_decimal(&mut t, 0, m, e);
            proptest::prop_assert_eq!(std::str::from_utf8(&t[..w]).unwrap(), reference_g(v, 6));
            proptest::prop_assert_eq!(g(v), reference_g(v, 6));
        }

        /// The same for values of the sizes ASC samples hold (1e-7..1e4).
        #[test]
        fn put_decimal_of_sample_sized_floats_is_the_reference_g(
            m in 1.0f64..10.0, x in -7i32..5, neg in proptest::prelude::any::<bool>()
        ) {
            let v = m * 10f64.powi(x) * if neg { -1.0 } else { 1.0 };
            let (dm, de) = decimal6(v);
            let mut t = [0u8; TEXT_ROOM];
            let w = put_decimal(&mut t, 0, dm, de);
            proptest::prop_assert_eq!(std::str::from_utf8(&t[..w]).unwrap(), reference_g(v, 6));
        }
    }

    /// The integer-arithmetic decimal equals the standard formatter's on 200,000 values per
    /// precision spread over 1e-30..1e30 (random bits), on values at and next to 6-digit
    /// decimals and ties, and on the switch points.
    #[test]
    fn integer_path_equals_the_standard_formatter() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut values = Vec::new();
        for _ in 0..200_000 {
            let e = (next() % 200) as f64 / 200.0 * 60.0 - 30.0;
            let m = (next() >> 11) as f64 / (1u64 << 53) as f64 + 1.0;
            let v = m * 10f64.powf(e);
            values.push(if next() & 1 == 1 { -v } else { v });
        }
        for _ in 0..50_000 {
            let m = (next() % 900_000 + 100_000) as i64;
            let e = (next() % 16) as i32 - 12;
            let v = from_decimal(m, e);
            values.extend([
                v,
                f64::from_bits(v.to_bits() + 1),
                f64::from_bits(v.to_bits() - 1),
            ]);
            values.push(from_decimal(m * 10 + 5, e - 1)); // a decimal tie of 6 digits
            values.push((v as f32) as f64);
        }
        values.extend([
            1234565.0,
            999999.5,
            0.00009999996,
            0.0001,
            123456.0,
            1e22,
            1e-22,
        ]);
        for digits in [6, 7, 9, 12, 17] {
            for &v in &values {
                let mut ours = String::new();
                push_g_digits(&mut ours, v, digits);
                assert_eq!(ours, reference_g(v, digits), "{v:e} at {digits} digits");
                assert_eq!(decimal(v, digits), decimal_std(v, digits), "{v:e}");
            }
        }
        for &v in &values[..20_000] {
            let mut t = String::new();
            push_exact(&mut t, v);
            assert_eq!(t.parse::<f64>().unwrap().to_bits(), v.to_bits(), "{t}");
        }
    }
}
