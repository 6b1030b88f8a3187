//! ZenGin building blocks shared by MAN, MDH, MSB: `\n`-terminated line strings, zDATE,
//! bounding boxes and vectors.

use crate::exact::{Cursor, DecodeError, EncodeError, Text, F32};
use deku::{DekuRead, DekuSize, DekuWrite};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Read a line string: every byte up to the next `0x0A` (kept, including `\r` and `\0`), then
/// the `0x0A` itself.
pub fn read_line(cur: &mut Cursor<'_>) -> Result<Text, DecodeError> {
    // The line end found eight bytes a step (a byte loop was 29 % of a real MDH's parse, for
    // its 70-byte source path); without one, the cursor reports the error.
    if let Some(n) = find_newline(cur.unread()) {
        let line = cur.bytes(n + 1)?;
        return Ok(Text::new(&line[..n]));
    }
    cur.until(b'\n').map(Text::new)
}

/// Write a line string; a value containing `0x0A` cannot be stored.
pub fn put_line(out: &mut Vec<u8>, text: &Text) -> Result<(), EncodeError> {
    if text.as_bytes().contains(&b'\n') {
        return Err(EncodeError::new(
            "text contains a line feed, which ends a ZenGin string; remove it",
        ));
    }
    out.extend_from_slice(text.as_bytes());
    out.push(b'\n');
    Ok(())
}

/// [`read_line`] into a [`super::stext::ShortText`].
#[inline(always)]
pub fn read_short_line(cur: &mut Cursor<'_>) -> Result<super::stext::ShortText, DecodeError> {
    let rest = cur.clone().rest();
    if let Some(n) = find_newline(rest) {
        if let Ok(line) = cur.bytes(n + 1) {
            debug_assert_eq!(line.len(), n + 1);
            return Ok(super::stext::ShortText::from_window(rest, n));
        }
    }
    short_line_error(cur)
}

/// No line feed before the end: let the cursor report the error with its offset.
#[cold]
#[inline(never)]
fn short_line_error(cur: &mut Cursor<'_>) -> Result<super::stext::ShortText, DecodeError> {
    cur.until(b'\n').map(super::stext::ShortText::new)
}

/// Position of the first `\n`, eight bytes at a time.
#[inline(always)]
pub(crate) fn find_newline(b: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = LO * b'\n' as u64;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        let x = u64::from_le_bytes(w) ^ NL;
        let found = x.wrapping_sub(LO) & !x & HI;
        if found != 0 {
            return Some(i + (found.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    b[i..].iter().position(|&c| c == b'\n').map(|p| i + p)
}

/// [`put_line`] for a [`super::stext::ShortText`].
pub fn put_short_line(
    out: &mut Vec<u8>,
    text: &super::stext::ShortText,
) -> Result<(), EncodeError> {
    put_bytes_line(out, text.as_bytes())
}

/// [`put_line`] of raw Windows-1252 bytes.
pub fn put_bytes_line(out: &mut Vec<u8>, b: &[u8]) -> Result<(), EncodeError> {
    if b.contains(&b'\n') {
        return Err(EncodeError::new(
            "text contains a line feed, which ends a ZenGin string; remove it",
        ));
    }
    out.extend_from_slice(b);
    out.push(b'\n');
    Ok(())
}

crate::record! {
    /// zDATE: 16 bytes; the engine often writes it uninitialised, so every field (the padding
    /// too) is kept as stored.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct ZDate: little plain {
        pub year: u32,
        pub month: u16,
        pub day: u16,
        pub hour: u16,
        pub minute: u16,
        pub second: u16,
        /// Two bytes the engine never sets: garbage in most files.
        pub padding: u16,
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (Howard Hinnant's
/// civil-from-days algorithm).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

impl ZDate {
    /// A file time as a zDATE (UTC; padding 0).
    pub fn of_system_time(time: std::time::SystemTime) -> Option<ZDate> {
        let secs = time.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() as i64;
        let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
        let s = secs.rem_euclid(86_400);
        Some(ZDate {
            year: u32::try_from(y).ok()?,
            month: m as u16,
            day: d as u16,
            hour: (s / 3600) as u16,
            minute: (s / 60 % 60) as u16,
            second: (s % 60) as u16,
            padding: 0,
        })
    }
}

/// Three floats x, y, z.
pub type Vec3 = [F32; 3];

crate::record! {
    /// zTBBox3D: min then max.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct BBox: little plain {
        pub min: Vec3,
        pub max: Vec3,
    }
}

/// zMAT4: sixteen floats, row-major as stored (translation in the last column, §1.4). YAML:
/// four rows of four floats.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    DekuRead,
    DekuWrite,
    DekuSize,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[deku(endian = "little")]
#[serde(transparent)]
pub struct Mat4(pub [[F32; 4]; 4]);

/// A matrix field: sixteen plain floats, named `[row][column]` in errors.
impl crate::exact::record::Shape for Mat4 {
    const ITEM: usize = 4;
    const COLS: usize = 4;
}

crate::own_byte_order!(Mat4);

impl crate::exact::record::Plain for Mat4 {
    const BYTES: usize = 64;
    #[inline(always)]
    fn from_le(b: &[u8]) -> Self {
        Mat4(crate::exact::record::Plain::from_le(b))
    }
    #[inline(always)]
    fn to_le(&self, b: &mut [u8]) {
        self.0.to_le(b)
    }
}

/// Read an `f32` keeping its bits.
#[inline]
pub fn read_f32(cur: &mut Cursor<'_>) -> Result<F32, DecodeError> {
    cur.u32().map(F32)
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::civil_from_days(0), (1970, 1, 1));
        // 2002-08-28 (waran.msb's source date)
        assert_eq!(super::civil_from_days(11_927), (2002, 8, 28));
        assert_eq!(super::civil_from_days(-1), (1969, 12, 31));
    }

    use super::*;
    use crate::exact::record::{both_ways, both_ways_with};

    /// (value, bytes) pairs checked in both directions.
    #[test]
    fn zdate_table() {
        let table = [
            (
                // waran.msb: 2002-08-28 12:50:52
                ZDate {
                    year: 2002,
                    month: 8,
                    day: 28,
                    hour: 12,
                    minute: 50,
                    second: 52,
                    padding: 0,
                },
                "d2070000 0800 1c00 0c00 3200 3400 0000",
            ),
            (
                // G1_HUMANS-S_FISTRUN.MAN: uninitialised, garbage padding 0x0123
                ZDate {
                    year: 0,
                    month: 6,
                    day: 0,
                    hour: 0,
                    minute: 0,
                    second: 57324,
                    padding: 0x0123,
                },
                "00000000 0600 0000 0000 0000 ecdf 2301",
            ),
        ];
        both_ways(&table);
    }

    #[test]
    fn bbox_table_keeps_negative_zero() {
        let value = BBox {
            min: [F32(0x8000_0000), F32::new(-1.5), F32(0x7fa0_0001)],
            max: [F32::new(1.0), F32::new(2.0), F32::new(3.0)],
        };
        both_ways(&[(
            value,
            "00000080 0000c0bf 0100a07f 0000803f 00000040 00004040",
        )]);
    }

    #[test]
    fn find_newline_agrees_with_a_plain_search() {
        let mut data: Vec<u8> = (0..=255u8).cycle().take(600).collect();
        for start in 0..40 {
            for end in start..start + 40 {
                let s = &data[start..end];
                assert_eq!(find_newline(s), s.iter().position(|&c| c == b'\n'));
            }
        }
        data.retain(|&c| c != b'\n');
        assert_eq!(find_newline(&data), None);
        // 0x0B next to 0x0A, and bytes >= 0x80, must not confuse the word test
        assert_eq!(
            find_newline(b"\x0b\x8a\x0b\x0b\xff\x09\x0b\x0bX\n"),
            Some(9)
        );
    }

    #[test]
    fn line_table() {
        let table: [(&[u8], &[u8]); 3] = [
            (b"S_FISTRUN", b"S_FISTRUN\n"),
            (b"", b"\n"),
            (b"a\r\0b", b"a\r\0b\n"),
        ];
        let table = table.map(|(v, b)| (Text::new(v), hex::encode(b)));
        let table: Vec<(Text, &str)> = table.iter().map(|(v, b)| (v.clone(), b.as_str())).collect();
        both_ways_with(&table, read_line, |v, out| put_line(out, v));
        assert!(put_line(&mut Vec::new(), &Text::new(&b"a\nb"[..])).is_err());
    }
}
