//! Compressed animation tracks (spec §4): rotation formats, translation keys, ZOnlyRLE, the
//! per-track byte layout of a BnS (ArVer 573) stream, and the encoders.
//!
//! All arithmetic is `f32` in the order the spec gives (UE3's), so decoded values are bit-exact.
//! W of the "NoW" formats is rebuilt as `sqrt(((1 − x²) − y²) − z²)` (UE3 order, §4.4).

use crate::exact::{Cursor, DecodeError, EncodeError, Writer, F32};

pub type Vec3 = [f32; 3];
pub type Quat = [f32; 4];

/// `RotationCompressionFormat` (spec §3.2, §4.5, §4.6), stored in packages by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RotFormat {
    None,
    Float96NoW,
    Fixed48NoW,
    IntervalFixed32NoW,
    Fixed32NoW,
    Float32NoW,
    Identity,
    ZOnlyRle,
}

impl RotFormat {
    pub const ALL: [RotFormat; 8] = [
        RotFormat::None,
        RotFormat::Float96NoW,
        RotFormat::Fixed48NoW,
        RotFormat::IntervalFixed32NoW,
        RotFormat::Fixed32NoW,
        RotFormat::Float32NoW,
        RotFormat::Identity,
        RotFormat::ZOnlyRle,
    ];
    pub fn name(self) -> &'static str {
        match self {
            RotFormat::None => "ACF_None",
            RotFormat::Float96NoW => "ACF_Float96NoW",
            RotFormat::Fixed48NoW => "ACF_Fixed48NoW",
            RotFormat::IntervalFixed32NoW => "ACF_IntervalFixed32NoW",
            RotFormat::Fixed32NoW => "ACF_Fixed32NoW",
            RotFormat::Float32NoW => "ACF_Float32NoW",
            RotFormat::Identity => "ACF_Identity",
            RotFormat::ZOnlyRle => "ACF_ZOnlyRLE",
        }
    }
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(s))
    }
    /// Bytes per key after the 24-byte header (ZOnlyRLE: variable, `None` here).
    pub fn key_size(self) -> Option<usize> {
        match self {
            RotFormat::None => Some(16),
            RotFormat::Float96NoW => Some(12),
            RotFormat::Fixed48NoW => Some(6),
            RotFormat::IntervalFixed32NoW | RotFormat::Fixed32NoW | RotFormat::Float32NoW => {
                Some(4)
            }
            RotFormat::Identity => Some(0),
            RotFormat::ZOnlyRle => None,
        }
    }
}

/// Largest key count accepted for ACF_Identity, whose keys take no bytes (so the stream size
/// cannot bound them).
pub const MAX_IDENTITY_KEYS: usize = 1 << 20;

/// The padding byte after a rotation part (UE3's 0x55).
pub const PAD: u8 = 0x55;

/// Whose arithmetic a decoder follows. The two differ in the last bit of some values (spec
/// §4.4, §4.5, §5.3): the YAML document and every edit use the engine's, the PSA export UE
/// Viewer's, so that its file is byte-identical to UE Viewer's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Formulas {
    /// UE3: W = √(((1 − x²) − y²) − z²); Fixed32 `(U − 1023) / 1023`; Float32NoW code 0 → 0.
    Engine,
    /// UE Viewer (`UnMeshTypes.h`): W = √(1 − ((x² + y²) + z²)); Fixed32 `U / 1023 − 1`;
    /// Float32NoW code 0 → 2⁻⁴.
    UeViewer,
}

/// W of a "NoW" quaternion, UE3 evaluation order (§4.4).
#[inline]
pub fn rebuild_w(x: f32, y: f32, z: f32) -> f32 {
    let r = ((1.0 - x * x) - y * y) - z * z;
    if r > 0.0 {
        r.sqrt()
    } else {
        0.0
    }
}

/// W of a "NoW" quaternion, UE Viewer's evaluation order (`RESTORE_QUAT_W`).
#[inline]
pub fn rebuild_w_uev(x: f32, y: f32, z: f32) -> f32 {
    let r = 1.0 - ((x * x + y * y) + z * z);
    if r > 0.0 {
        r.sqrt()
    } else {
        0.0
    }
}

// ---- fixed-point and mini-float components ------------------------------------------------

#[inline]
pub fn fixed48_decode(u: u16) -> f32 {
    (u as i32 - 32767) as f32 / 32767.0
}
#[inline]
pub fn fixed48_encode(c: f32) -> i32 {
    (c * 32767.0) as i32 + 32767
}

/// UE3 Fixed32NoW component: `bits` = 11 (X, Y) or 10 (Z).
#[inline]
pub fn fixed32_decode(u: u32, bits: u32) -> f32 {
    let half = ((1u32 << (bits - 1)) - 1) as i32; // 1023 or 511
    (u as i32 - half) as f32 / half as f32
}
#[inline]
pub fn fixed32_encode(c: f32, bits: u32) -> i32 {
    let half = ((1u32 << (bits - 1)) - 1) as i32;
    (c * half as f32) as i32 + half
}

/// UE Viewer's Fixed32NoW component: `U / 1023 − 1` (`U / 511 − 1` for Z).
#[inline]
pub fn fixed32_decode_uev(u: u32, bits: u32) -> f32 {
    let half = ((1u32 << (bits - 1)) - 1) as f32;
    u as f32 / half - 1.0
}

/// UE Viewer's IntervalFixed32NoW component: `(U / 1023 − 1) · Range + Min`.
#[inline]
pub fn interval_decode_uev(u: u32, bits: u32, min: f32, range: f32) -> f32 {
    fixed32_decode_uev(u, bits) * range + min
}

#[inline]
pub fn interval_decode(u: u32, bits: u32, min: f32, range: f32) -> f32 {
    let half = ((1u32 << (bits - 1)) - 1) as i32;
    ((u as i32 - half) as f32 / half as f32) * range + min
}
#[inline]
pub fn interval_encode(c: f32, bits: u32, min: f32, range: f32) -> i32 {
    let half = ((1u32 << (bits - 1)) - 1) as i32;
    (((c - min) / range) * half as f32) as i32 + half
}

/// Float32NoW mini-float decode (`m` mantissa bits: 7 for X/Y, 6 for Z; UE3 semantics).
#[inline]
pub fn minifloat_decode(v: u32, m: u32) -> f32 {
    if v == 0 {
        return 0.0;
    }
    minifloat_decode_uev(v, m)
}

/// UE Viewer's Float32NoW decode: the same bits, without UE3's `0 → 0.0` case (code 0 is 2⁻⁴).
#[inline]
pub fn minifloat_decode_uev(v: u32, m: u32) -> f32 {
    let e = (v >> m) & 7;
    let man = v & ((1 << m) - 1);
    let s = (v >> (3 + m)) & 1;
    f32::from_bits((s << 31) | ((e + 123) << 23) | (man << (23 - m)))
}
/// Float32NoW mini-float encode (UE3 `TFloatPacker<3, m, true>`).
#[inline]
pub fn minifloat_encode(f: f32, m: u32) -> u32 {
    if f == 0.0 {
        return 0;
    }
    let bits = f.to_bits();
    let mut man = bits & 0x7F_FFFF;
    let mut e = ((bits >> 23) & 0xFF) as i32 - 127;
    let s = bits >> 31;
    man += 1 << (22 - m);
    if man & 0x80_0000 != 0 {
        man = 0;
        e += 1;
    }
    man >>= 23 - m;
    if e < -4 {
        return 0;
    }
    if e > 3 {
        e = 3;
    }
    (s << (3 + m)) | (((e + 4) as u32) << m) | man
}

// ---- the byte layout of one track ---------------------------------------------------------

/// The four `CompressedTrackOffsets` entries of one track.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrackOffsets {
    pub trans_offset: i32,
    pub trans_keys: i32,
    pub rot_offset: i32,
    pub rot_keys: i32,
}

crate::record! {
    /// The header of a rotation part of two or more keys (spec §4.4): per-component mins, then
    /// ranges, 24 bytes. (The keys after it are read by hand: a deku call per key would cost the
    /// decoder its speed, and their layout is one line per format.)
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct RotHeader: little plain {
        pub mins: [F32; 3],
        pub ranges: [F32; 3],
    }
}

impl RotHeader {
    fn get(&self) -> ([f32; 3], [f32; 3]) {
        (self.mins.map(F32::get), self.ranges.map(F32::get))
    }
}

crate::record! {
    /// ZOnlyRLE's header after mins/ranges (spec §4.6), 8 bytes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct RleHead: little plain {
        pub mode: i32,
        pub pair_count: i32,
    }
}

crate::record! {
    /// One ZOnlyRLE run: first and last key of a run of equal values, 4 bytes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct RlePair: little plain {
        pub start: i16,
        pub end: i16,
    }
}

/// ZOnlyRLE header fields (after mins/ranges).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RleTable {
    pub mode: i32,
    pub pairs: Vec<(i16, i16)>,
}

impl RleTable {
    /// Stored values under UE Viewer's inclusive-end reading.
    pub fn stored_inclusive(&self, keys: usize) -> i64 {
        keys as i64
            - self
                .pairs
                .iter()
                .map(|&(s, e)| e as i64 - s as i64)
                .sum::<i64>()
    }
    pub fn value_size(&self) -> usize {
        if self.mode == 0 {
            12
        } else {
            4
        }
    }
}

/// Where the parts of one track lie in the stream (offsets relative to the stream start).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TrackLayout {
    pub trans: std::ops::Range<usize>,
    pub rot: std::ops::Range<usize>,
    /// Padding after the rotation part (up to the next multiple of 4, within the stream).
    pub pad: std::ops::Range<usize>,
    /// Mins and ranges of a rotation part of two or more keys.
    pub header: Option<RotHeader>,
    pub rle: Option<RleTable>,
}

fn stream_err(base: u64, at: usize, msg: impl Into<String>) -> DecodeError {
    DecodeError::invalid(base + at as u64, msg)
}

fn key_count(n: i32, base: u64, at: usize, what: &str) -> Result<usize, DecodeError> {
    usize::try_from(n)
        .map_err(|_| stream_err(base, at, format!("{what} key count {n} is negative")))
}

/// Locate the parts of a track and check they lie inside the stream. `base` is the absolute
/// offset of the stream's first byte (for errors).
pub fn layout(
    stream: &[u8],
    base: u64,
    o: &TrackOffsets,
    format: RotFormat,
) -> Result<TrackLayout, DecodeError> {
    let len = stream.len();
    let tn = key_count(o.trans_keys, base, 0, "translation")?;
    let rn = key_count(o.rot_keys, base, 0, "rotation")?;
    if format == RotFormat::Identity && rn > MAX_IDENTITY_KEYS {
        return Err(stream_err(
            base,
            0,
            format!("{rn} ACF_Identity rotation keys (at most {MAX_IDENTITY_KEYS} accepted: they take no bytes)"),
        ));
    }
    let part = |off: i32,
                size: Option<usize>,
                what: &str|
     -> Result<std::ops::Range<usize>, DecodeError> {
        let start = usize::try_from(off)
            .ok()
            .filter(|&s| s <= len)
            .ok_or_else(|| {
                stream_err(
                    base,
                    0,
                    format!("{what} offset {off} is outside the {len}-byte stream"),
                )
            })?;
        let end = size
            .and_then(|s| start.checked_add(s))
            .filter(|&e| e <= len)
            .ok_or_else(|| {
                stream_err(
                    base,
                    start,
                    format!("{what} data runs past the end of the {len}-byte stream"),
                )
            })?;
        Ok(start..end)
    };
    let trans = if tn == 0 {
        // An empty part takes no bytes; its offset is allowed to be anything in range.
        let s = usize::try_from(o.trans_offset).unwrap_or(0).min(len);
        s..s
    } else {
        part(o.trans_offset, tn.checked_mul(12), "translation")?
    };
    // The 24-byte header of a part that `part` has checked.
    let header_at = |r: &std::ops::Range<usize>| -> Result<RotHeader, DecodeError> {
        Cursor::new(&stream[r.start..], base + r.start as u64).read()
    };
    let (rot, header, rle) = if rn == 0 {
        let s = usize::try_from(o.rot_offset).unwrap_or(0).min(len);
        (s..s, None, None)
    } else if rn == 1 {
        (part(o.rot_offset, Some(12), "rotation")?, None, None)
    } else if let Some(ks) = format.key_size() {
        let r = part(
            o.rot_offset,
            rn.checked_mul(ks).and_then(|b| b.checked_add(24)),
            "rotation",
        )?;
        let h = header_at(&r)?;
        (r, Some(h), None)
    } else {
        // ZOnlyRLE: header, then the table, then the values.
        let hdr = part(o.rot_offset, Some(32), "rotation")?;
        let h = header_at(&hdr)?;
        let mut c = Cursor::new(&stream[hdr.start + 24..], base + hdr.start as u64 + 24);
        let RleHead {
            mode,
            pair_count: pc,
        } = c.read()?;
        if !(0..=3).contains(&mode) {
            return Err(stream_err(
                base,
                hdr.start + 24,
                format!("ZOnlyRLE mode {mode} is not 0..3"),
            ));
        }
        let pcount = u64::try_from(pc).map_err(|_| {
            stream_err(
                base,
                hdr.start + 28,
                format!("ZOnlyRLE pair count {pc} is negative"),
            )
        })?;
        let pcount = c.check_count(pcount, 4)?;
        let mut pairs = Vec::with_capacity(pcount);
        let mut next_min: i64 = 0;
        for p in 0..pcount {
            let at = c.position();
            let RlePair { start: s, end: e } = c.read()?;
            if (s as i64) < next_min || e < s {
                return Err(stream_err(
                    base,
                    hdr.start + 24 + at,
                    format!("ZOnlyRLE pair {p} ({s}, {e}) is out of order or reversed"),
                ));
            }
            next_min = e as i64 + 1;
            pairs.push((s, e));
        }
        if next_min > rn as i64 {
            return Err(stream_err(
                base,
                hdr.start + 28,
                format!("ZOnlyRLE runs expand past the {rn} keys of the track"),
            ));
        }
        let table = RleTable { mode, pairs };
        let stored = table.stored_inclusive(rn);
        let vstart = hdr.start + 32 + 4 * pcount;
        let vlen = (stored as usize).checked_mul(table.value_size());
        let end = vlen
            .and_then(|v| vstart.checked_add(v))
            .filter(|&e| e <= len)
            .ok_or_else(|| {
                stream_err(
                    base,
                    vstart,
                    "ZOnlyRLE values run past the end of the stream",
                )
            })?;
        (hdr.start..end, Some(h), Some(table))
    };
    let pad_end = ((rot.end + 3) & !3).min(len);
    Ok(TrackLayout {
        trans,
        pad: rot.end..pad_end.max(rot.end),
        rot,
        header,
        rle,
    })
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

/// Decode the translation keys of a track (the range comes from [`layout`]).
pub fn decode_translations(stream: &[u8], l: &TrackLayout) -> Vec<Vec3> {
    let b = &stream[l.trans.clone()];
    b.chunks_exact(12)
        .map(|k| [f32_at(k, 0), f32_at(k, 4), f32_at(k, 8)])
        .collect()
}

/// Decode the rotation keys of a track with the engine's formulas.
pub fn decode_rotations(
    stream: &[u8],
    l: &TrackLayout,
    keys: usize,
    format: RotFormat,
) -> Vec<Quat> {
    decode_rotations_with(stream, l, keys, format, Formulas::Engine)
}

/// Decode the rotation keys of a track with the engine's or UE Viewer's formulas.
pub fn decode_rotations_with(
    stream: &[u8],
    l: &TrackLayout,
    keys: usize,
    format: RotFormat,
    formulas: Formulas,
) -> Vec<Quat> {
    let b = &stream[l.rot.clone()];
    let uev = formulas == Formulas::UeViewer;
    let w = if uev { rebuild_w_uev } else { rebuild_w };
    let now = |x: f32, y: f32, z: f32| [x, y, z, w(x, y, z)];
    if keys == 0 {
        return Vec::new();
    }
    if keys == 1 {
        return vec![now(f32_at(b, 0), f32_at(b, 4), f32_at(b, 8))];
    }
    let (mins, ranges) = l.header.map(|h| h.get()).unwrap_or_default();
    let d = &b[24..];
    let mut out = Vec::with_capacity(keys);
    type Component = fn(u32, u32) -> f32;
    type Interval = fn(u32, u32, f32, f32) -> f32;
    let (fixed32, interval, minifloat): (Component, Interval, Component) = if uev {
        (
            fixed32_decode_uev,
            interval_decode_uev,
            minifloat_decode_uev,
        )
    } else {
        (fixed32_decode, interval_decode, minifloat_decode)
    };
    match format {
        RotFormat::None => {
            for k in d.chunks_exact(16).take(keys) {
                out.push([f32_at(k, 0), f32_at(k, 4), f32_at(k, 8), f32_at(k, 12)]);
            }
        }
        RotFormat::Float96NoW => {
            for k in d.chunks_exact(12).take(keys) {
                out.push(now(f32_at(k, 0), f32_at(k, 4), f32_at(k, 8)));
            }
        }
        RotFormat::Fixed48NoW => {
            for k in d.chunks_exact(6).take(keys) {
                out.push(now(
                    fixed48_decode(u16_at(k, 0)),
                    fixed48_decode(u16_at(k, 2)),
                    fixed48_decode(u16_at(k, 4)),
                ));
            }
        }
        RotFormat::Fixed32NoW | RotFormat::IntervalFixed32NoW | RotFormat::Float32NoW => {
            for k in d.chunks_exact(4).take(keys) {
                let p = u32_at(k, 0);
                let (ux, uy, uz) = (p >> 21, (p >> 10) & 0x7FF, p & 0x3FF);
                let q = match format {
                    RotFormat::Fixed32NoW => now(fixed32(ux, 11), fixed32(uy, 11), fixed32(uz, 10)),
                    RotFormat::IntervalFixed32NoW => now(
                        interval(ux, 11, mins[0], ranges[0]),
                        interval(uy, 11, mins[1], ranges[1]),
                        interval(uz, 10, mins[2], ranges[2]),
                    ),
                    _ => now(minifloat(ux, 7), minifloat(uy, 7), minifloat(uz, 6)),
                };
                out.push(q);
            }
        }
        RotFormat::Identity => out.resize(keys, [0.0, 0.0, 0.0, 1.0]),
        RotFormat::ZOnlyRle => {
            let Some(t) = &l.rle else { return out };
            let mut at = 8 + 4 * t.pairs.len();
            let mut p = 0;
            while out.len() < keys && at + t.value_size() <= d.len() {
                let q = if t.mode == 0 {
                    now(f32_at(d, at), f32_at(d, at + 4), f32_at(d, at + 8))
                } else {
                    let v = f32_at(d, at);
                    let r = 1.0 - v * v;
                    let w = if r > 0.0 { r.sqrt() } else { 0.0 };
                    let mut q = [0.0, 0.0, 0.0, w];
                    q[(t.mode - 1) as usize] = v;
                    q
                };
                at += t.value_size();
                let repeat = match t.pairs.get(p) {
                    Some(&(s, e)) if s as usize == out.len() => {
                        p += 1;
                        (e as i64 - s as i64 + 1) as usize
                    }
                    _ => 1,
                };
                for _ in 0..repeat.min(keys - out.len()) {
                    out.push(q);
                }
            }
        }
    }
    out
}

// ---- encoding -----------------------------------------------------------------------------

/// Tolerance on |q|² − 1 for a rotation key: a key further from unit length (a zero key, a
/// typo) is refused, not normalised or turned into identity. Decoded keys of every format lie
/// within it (Float32NoW's 7-bit mantissas are the coarsest, < 1 %).
pub const UNIT_TOLERANCE: f32 = crate::exact::float::UNIT_QUAT_TOLERANCE;

/// Why `q` cannot be stored as a rotation key: not finite, or not a unit quaternion
/// (|q|² more than [`UNIT_TOLERANCE`] from 1).
pub fn check_rotation(q: &Quat) -> Result<(), String> {
    let shown = || {
        let v: Vec<String> = q
            .iter()
            .map(|&c| crate::exact::F32::new(c).to_yaml_text())
            .collect();
        format!("[{}]", v.join(", "))
    };
    if q.iter().any(|c| !c.is_finite()) {
        return Err(format!("rotation {} is not finite", shown()));
    }
    let n2: f64 = q.iter().map(|&c| c as f64 * c as f64).sum();
    if (n2 - 1.0).abs() > UNIT_TOLERANCE as f64 {
        return Err(format!(
            "rotation {} is not a unit quaternion (|q| = {}): a rotation key must have length 1 \
             (|q|² within {} % of 1), e.g. [0.0, 0.0, 0.0, 1.0] for no rotation",
            shown(),
            (n2.sqrt() * 1000.0).round() / 1000.0,
            UNIT_TOLERANCE * 100.0
        ));
    }
    Ok(())
}

/// The key the encoders store: negated when W < 0 (q and −q are the same rotation), then kept
/// as it is when W is exactly what the NoW formats rebuild from X, Y, Z (every decoded key,
/// so it re-encodes to its own codes), else scaled to unit length (the same rotation).
/// Call [`check_rotation`] first.
pub fn canonical(q: Quat) -> Quat {
    let mut q = q;
    if q[3] < 0.0 {
        q = [-q[0], -q[1], -q[2], -q[3]];
    }
    if q[3].to_bits() == rebuild_w(q[0], q[1], q[2]).to_bits() {
        return q;
    }
    let n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if n2 > 0.0 {
        let n = n2.sqrt();
        q = [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
    }
    q
}

/// UE3's mins/ranges over the keys (§4.2).
pub fn mins_ranges(keys: &[Quat]) -> ([f32; 3], [f32; 3]) {
    let mut mins = [1.0f32; 3];
    let mut maxs = [-1.0f32; 3];
    for q in keys {
        for c in 0..3 {
            mins[c] = mins[c].min(q[c]);
            maxs[c] = maxs[c].max(q[c]);
        }
    }
    let mut ranges = [0.0f32; 3];
    for c in 0..3 {
        ranges[c] = maxs[c] - mins[c];
        if ranges[c] == 0.0 {
            ranges[c] = 1.0;
        }
    }
    (mins, ranges)
}

fn check_code(
    v: i32,
    max: i32,
    key: usize,
    comp: usize,
    fmt: RotFormat,
) -> Result<u32, EncodeError> {
    if (0..=max).contains(&v) {
        Ok(v as u32)
    } else {
        Err(EncodeError::new(format!(
            "rotation key {key} component {} cannot be held by {} (code {v} outside 0..={max})",
            ["x", "y", "z"][comp],
            fmt.name()
        )))
    }
}

fn put_f32(out: &mut Vec<u8>, v: f32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Encode translation keys (12 bytes each).
pub fn encode_translations(keys: &[Vec3], out: &mut Vec<u8>) {
    for k in keys {
        for &c in k {
            put_f32(out, c);
        }
    }
}

/// Encode a rotation part (1 key → three plain floats; more → mins/ranges + keys).
pub fn encode_rotations(
    keys: &[Quat],
    format: RotFormat,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    if keys.is_empty() {
        return Ok(());
    }
    for (i, q) in keys.iter().enumerate() {
        check_rotation(q).map_err(|m| EncodeError::new(format!("key {i}: {m}")))?;
    }
    let qs: Vec<Quat> = keys.iter().map(|&q| canonical(q)).collect();
    if qs.len() == 1 {
        for &c in &qs[0][..3] {
            put_f32(out, c);
        }
        return Ok(());
    }
    let (mins, ranges) = mins_ranges(&qs);
    let header = RotHeader {
        mins: mins.map(F32::new),
        ranges: ranges.map(F32::new),
    };
    out.put_plain(&header);
    match format {
        RotFormat::None => {
            // UE3 stores ACF_None keys as given (no flip, no normalisation).
            for q in keys {
                for &c in q {
                    put_f32(out, c);
                }
            }
        }
        RotFormat::Float96NoW => {
            for q in &qs {
                for &c in &q[..3] {
                    put_f32(out, c);
                }
            }
        }
        RotFormat::Fixed48NoW => {
            for (i, q) in qs.iter().enumerate() {
                for (c, &v) in q[..3].iter().enumerate() {
                    let u = check_code(fixed48_encode(v), 65535, i, c, format)?;
                    out.extend_from_slice(&(u as u16).to_le_bytes());
                }
            }
        }
        RotFormat::Fixed32NoW | RotFormat::IntervalFixed32NoW | RotFormat::Float32NoW => {
            for (i, q) in qs.iter().enumerate() {
                let (ux, uy, uz) = match format {
                    RotFormat::Fixed32NoW => (
                        check_code(fixed32_encode(q[0], 11), 2047, i, 0, format)?,
                        check_code(fixed32_encode(q[1], 11), 2047, i, 1, format)?,
                        check_code(fixed32_encode(q[2], 10), 1023, i, 2, format)?,
                    ),
                    RotFormat::IntervalFixed32NoW => (
                        check_code(
                            interval_encode(q[0], 11, mins[0], ranges[0]),
                            2047,
                            i,
                            0,
                            format,
                        )?,
                        check_code(
                            interval_encode(q[1], 11, mins[1], ranges[1]),
                            2047,
                            i,
                            1,
                            format,
                        )?,
                        check_code(
                            interval_encode(q[2], 10, mins[2], ranges[2]),
                            1023,
                            i,
                            2,
                            format,
                        )?,
                    ),
                    _ => (
                        minifloat_encode(q[0], 7),
                        minifloat_encode(q[1], 7),
                        minifloat_encode(q[2], 6),
                    ),
                };
                out.extend_from_slice(&((ux << 21) | (uy << 10) | uz).to_le_bytes());
            }
        }
        RotFormat::Identity => {}
        RotFormat::ZOnlyRle => encode_zonly(&qs, out)?,
    }
    Ok(())
}

/// ZOnlyRLE body after mins/ranges (§4.6 encoding, UE Viewer model: inclusive ends, component
/// values, runs of length ≥ 2).
fn encode_zonly(qs: &[Quat], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let mut axis: Option<usize> = None;
    let mut single = true;
    for q in qs {
        let nz: Vec<usize> = (0..3).filter(|&c| q[c] != 0.0).collect();
        match nz.len() {
            0 => {}
            1 => match axis {
                None => axis = Some(nz[0]),
                Some(a) if a == nz[0] => {}
                _ => single = false,
            },
            _ => single = false,
        }
    }
    let mode = if single { axis.map_or(3, |a| a + 1) } else { 0 };
    let value = |q: &Quat| -> Vec<f32> {
        if mode == 0 {
            q[..3].to_vec()
        } else {
            vec![q[mode - 1]]
        }
    };
    if qs.len() > i16::MAX as usize + 1 {
        return Err(EncodeError::new(format!(
            "{} rotation keys do not fit the ZOnlyRLE frame table (at most 32768)",
            qs.len()
        )));
    }
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let mut pairs = Vec::new();
    let mut values: Vec<f32> = Vec::new();
    let mut i = 0;
    while i < qs.len() {
        let v = value(&qs[i]);
        let mut j = i + 1;
        while j < qs.len() && bits(&value(&qs[j])) == bits(&v) {
            j += 1;
        }
        if j - i >= 2 {
            pairs.push((i as i16, (j - 1) as i16));
        }
        values.extend_from_slice(&v);
        i = j;
    }
    let head = RleHead {
        mode: mode as i32,
        pair_count: pairs.len() as i32,
    };
    out.put_plain(&head);
    for (start, end) in pairs {
        out.put_plain(&RlePair { start, end });
    }
    for v in values {
        put_f32(out, v);
    }
    Ok(())
}

/// Pad with 0x55 to a multiple of 4 (relative to the stream start).
pub fn pad(out: &mut Vec<u8>) {
    while !out.len().is_multiple_of(4) {
        out.push(PAD);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(format: RotFormat, keys: &[Quat]) -> Vec<Quat> {
        let mut b = Vec::new();
        encode_rotations(keys, format, &mut b).unwrap();
        let o = TrackOffsets {
            trans_offset: 0,
            trans_keys: 0,
            rot_offset: 0,
            rot_keys: keys.len() as i32,
        };
        let l = layout(&b, 0, &o, format).unwrap();
        decode_rotations(&b, &l, keys.len(), format)
    }

    /// (code, value) pairs checked both ways.
    #[test]
    fn fixed48_table() {
        for (code, value) in [
            (32767u16, 0.0f32),
            (65534, 1.0),
            (0, -1.0),
            (65535, 1.0000305),
        ] {
            assert_eq!(fixed48_decode(code).to_bits(), value.to_bits(), "{code}");
            assert_eq!(fixed48_encode(value), code as i32, "{value}");
        }
    }

    #[test]
    fn fixed48_every_code_reencodes_to_itself() {
        for u in 0..=65534u16 {
            assert_eq!(fixed48_encode(fixed48_decode(u)), u as i32, "{u}");
        }
    }

    #[test]
    fn fixed32_every_code_reencodes_to_itself() {
        for u in 0..2047u32 {
            assert_eq!(fixed32_encode(fixed32_decode(u, 11), 11), u as i32);
        }
        for u in 0..1023u32 {
            assert_eq!(fixed32_encode(fixed32_decode(u, 10), 10), u as i32);
        }
    }

    #[test]
    fn minifloat_every_code_reencodes_to_itself() {
        for (m, n) in [(7u32, 2048u32), (6, 1024)] {
            for v in 0..n {
                assert_eq!(
                    minifloat_encode(minifloat_decode(v, m), m),
                    v,
                    "m={m} v={v:#x}"
                );
            }
        }
        // (value, code) table.
        assert_eq!(minifloat_decode(0, 7), 0.0);
        assert_eq!(minifloat_encode(1.0, 7), 4 << 7);
        assert_eq!(minifloat_decode(4 << 7, 7), 1.0);
        assert_eq!(minifloat_encode(-0.5, 6), (1 << 9) | (3 << 6));
        assert_eq!(minifloat_encode(0.01, 7), 0, "below 2^-4 is zero");
        assert_eq!(
            minifloat_encode(100.0, 7),
            (7 << 7) | 72,
            "exponent clamps to 3"
        );
    }

    #[test]
    fn w_uses_ue3_order() {
        assert_eq!(rebuild_w(0.0, 0.0, 0.05), (1.0f32 - 0.05 * 0.05).sqrt());
        assert_eq!(rebuild_w(1.0, 0.5, 0.0), 0.0);
    }

    #[test]
    fn zonly_spec_example_decodes_with_inclusive_runs() {
        // Spec §4.6: mode 3, pair (1,3), values 0.05, 0.1, 0.2, 5 keys.
        let mut b = Vec::new();
        for v in [0.0f32, 0.0, 0.05, 1.0, 1.0, 0.15] {
            put_f32(&mut b, v);
        }
        b.extend_from_slice(&[3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 3, 0]);
        for v in [0.05f32, 0.1, 0.2] {
            put_f32(&mut b, v);
        }
        let o = TrackOffsets {
            trans_offset: 0,
            trans_keys: 0,
            rot_offset: 0,
            rot_keys: 5,
        };
        let l = layout(&b, 0, &o, RotFormat::ZOnlyRle).unwrap();
        assert_eq!(l.rot, 0..b.len());
        let q = decode_rotations(&b, &l, 5, RotFormat::ZOnlyRle);
        let z: Vec<f32> = q.iter().map(|q| q[2]).collect();
        assert_eq!(z, vec![0.05, 0.1, 0.1, 0.1, 0.2]);
        assert_eq!(q[1][3], (1.0f32 - 0.1 * 0.1).sqrt());
        // Re-encoding gives the same RLE body (runs ≥ 2) and values.
        let mut e = Vec::new();
        encode_rotations(&q, RotFormat::ZOnlyRle, &mut e).unwrap();
        assert_eq!(&e[24..], &b[24..]);
    }

    #[test]
    fn zonly_modes_1_and_2_put_the_value_in_x_and_y() {
        for (mode, comp) in [(1u8, 0usize), (2, 1)] {
            let mut b = vec![0u8; 24];
            b.extend_from_slice(&[mode, 0, 0, 0, 0, 0, 0, 0]);
            for v in [0.5f32, -0.25] {
                put_f32(&mut b, v);
            }
            let o = TrackOffsets {
                rot_keys: 2,
                ..Default::default()
            };
            let l = layout(&b, 0, &o, RotFormat::ZOnlyRle).unwrap();
            let q = decode_rotations(&b, &l, 2, RotFormat::ZOnlyRle);
            let mut want = [0.0f32, 0.0, 0.0, (1.0f32 - 0.25).sqrt()];
            want[comp] = 0.5;
            assert_eq!(q[0], want);
            assert_eq!(q[1][comp], -0.25);
            let mut e = Vec::new();
            encode_rotations(&q, RotFormat::ZOnlyRle, &mut e).unwrap();
            assert_eq!(&e[24..], &b[24..], "mode {mode} re-encodes to itself");
        }
    }

    #[test]
    fn rle_past_key_count_is_an_error() {
        let mut b = vec![0u8; 24];
        b.extend_from_slice(&[3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 9, 0]);
        b.extend_from_slice(&[0; 16]);
        let o = TrackOffsets {
            trans_offset: 0,
            trans_keys: 0,
            rot_offset: 0,
            rot_keys: 5,
        };
        let e = layout(&b, 100, &o, RotFormat::ZOnlyRle).unwrap_err();
        assert!(e.to_string().contains("expand past"), "{e}");
    }

    #[test]
    fn every_format_decode_encode_decode_is_stable() {
        let keys: Vec<Quat> = (0..7)
            .map(|i| {
                let a = i as f32 * 0.3;
                let (s, c) = (a * 0.5).sin_cos();
                let n = (0.2f32 * 0.2 + 0.3 * 0.3 + 1.0).sqrt();
                [0.2 / n * s, 0.3 / n * s, 1.0 / n * s, c]
            })
            .collect();
        for f in RotFormat::ALL {
            let once = roundtrip(f, &keys);
            let twice = roundtrip(f, &once);
            let bits = |v: &[Quat]| {
                v.iter()
                    .flat_map(|q| q.map(f32::to_bits))
                    .collect::<Vec<_>>()
            };
            if f != RotFormat::IntervalFixed32NoW {
                assert_eq!(bits(&once), bits(&twice), "{f:?}");
            }
            for (a, b) in keys.iter().zip(&once) {
                if f != RotFormat::Identity {
                    let dot: f32 = (0..4).map(|c| a[c] * b[c]).sum();
                    assert!(dot.abs() > 0.99, "{f:?} {a:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn out_of_range_codes_are_errors() {
        // Interval codes below 0 cannot happen after recomputing mins; Fixed48 with |c| > 1 can
        // only come from ACF_None-like inputs: canonical() normalises, so feed a NaN instead.
        let e = encode_rotations(
            &[[f32::NAN, 0.0, 0.0, 1.0], [0.0; 4]],
            RotFormat::Fixed48NoW,
            &mut Vec::new(),
        );
        assert!(e.unwrap_err().message.contains("not finite"));
    }
}
