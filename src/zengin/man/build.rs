//! A new MAN from node-local poses, with the engine's header rules (asc.md §4.4): the samples
//! of the animated nodes only (MDH indices), the position range from the motion (or given),
//! the MDH's checksum, rotation and position codes with the engine's truncation or with
//! round-to-nearest, and no events. Used by the ASC compile (`zengin::asc::to_man`) and by the
//! glTF import of a new animation (`zengin::gltf::import::new_animation`).

use super::quant::{self, ROT_MID, ROT_SCALE};
use super::{Chunk, Header, Man, Marker, Samples, Source};
use crate::exact::{Blob, Hex32, Text, F32};
use crate::zengin::types::BBox;
use glam::{DQuat, DVec3};

/// How sample values become codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rounding {
    /// The engine's: rotation `trunc(q/S) + 32767`, position `floor((p − min)/scale)`. For
    /// fresh motion from a modeller (what the game's own compiler would write).
    #[default]
    Engine,
    /// Round to nearest: gives back the vanilla MAN from GothicSourcer's ASC of it.
    Nearest,
}

/// What a new MAN is made of.
pub struct NewMan<'a> {
    /// The animation's name, next animation and layer (the `ani` statement's).
    pub name: &'a [u8],
    pub next: &'a [u8],
    pub layer: u32,
    pub fps: f32,
    /// The rate of the source the frames were taken from (an ASC's frame speed).
    pub fps_source: f32,
    /// The MDH's checksum.
    pub checksum: u32,
    /// The MDH index of each animated node (one column each).
    pub node_indices: Vec<u32>,
    /// Node-local rotations (normalised, `w ≥ 0`) and positions (cm) in MAN space,
    /// frame-major: `frames × node_indices.len()` values.
    pub locals: &'a [(DQuat, DVec3)],
    pub rounding: Rounding,
    /// `position_min` and `position_scale` to quantise with, instead of the engine's range of
    /// these positions ([`engine_position_range`]).
    pub position_range: Option<(f32, f32)>,
    pub bbox: BBox,
    /// The source chunk (date, path, script line).
    pub source: Source,
}

/// The MAN: marker, header, source and samples chunks, in the engine's order.
/// Below this magnitude an `f64` converts to `i64` and back exactly as `trunc` gives it.
const EXACT_I64: f64 = 4.5e15;

/// `t.trunc()`, by the conversion to an integer where it is exact: baseline x86-64 has no
/// rounding instruction, so `trunc` is a library call (2 % of a model compile's instructions
/// with `floor`, callgrind); NaN, infinities and huge values take `trunc` itself.
#[inline]
fn trunc(t: f64) -> f64 {
    if t.abs() < EXACT_I64 {
        (t as i64) as f64
    } else {
        t.trunc()
    }
}

/// `t.floor()`, as [`trunc`] (one less for a negative value with a fraction).
#[inline]
fn floor(t: f64) -> f64 {
    if t.abs() < EXACT_I64 {
        let i = (t as i64) as f64;
        if i > t {
            i - 1.0
        } else {
            i
        }
    } else {
        t.floor()
    }
}

pub fn build(m: &NewMan<'_>) -> Result<Man, String> {
    let n = m.node_indices.len();
    if n == 0 {
        return Err("no animated node".into());
    }
    if !m.locals.len().is_multiple_of(n) || m.locals.is_empty() {
        return Err(format!(
            "{} values for {n} nodes: not whole frames",
            m.locals.len()
        ));
    }
    let frames = m.locals.len() / n;
    let (min, scale) = m
        .position_range
        .unwrap_or_else(|| engine_position_range(m.locals.iter().map(|l| l.1.as_vec3())));
    let rot_code = |q: f64| -> u16 {
        let t = q / ROT_SCALE as f64;
        let c = match m.rounding {
            Rounding::Engine => trunc(t),
            Rounding::Nearest => t.round(),
        } + ROT_MID as f64;
        c.clamp(0.0, 65535.0) as u16
    };
    let pos_code = |p: f64| -> u16 {
        let t = (p - min as f64) / scale as f64;
        let c = match m.rounding {
            Rounding::Engine => floor(t),
            Rounding::Nearest => t.round(),
        };
        c.clamp(0.0, 65535.0) as u16
    };
    let codes: Vec<[u16; 6]> = m
        .locals
        .iter()
        .map(|(r, p)| {
            [
                rot_code(r.x),
                rot_code(r.y),
                rot_code(r.z),
                pos_code(p.x),
                pos_code(p.y),
                pos_code(p.z),
            ]
        })
        .collect();
    let upper = |t: &[u8]| Text::new(t.to_ascii_uppercase());
    let header = Header {
        version: 12,
        name: upper(m.name),
        layer: m.layer,
        frame_count: frames as u32,
        node_count: n as u32,
        fps: F32::new(m.fps),
        fps_source: F32::new(m.fps_source),
        position_min: F32::new(min),
        position_scale: F32::new(scale),
        bbox: m.bbox,
        next: upper(m.next),
        trailing: Blob::default(),
    };
    let samples = Samples {
        checksum: Hex32(m.checksum),
        node_indices: m.node_indices.clone(),
        codes,
        trailing: Blob::default(),
    };
    Ok(Man {
        chunks: vec![
            Chunk::Marker(Marker::default()),
            Chunk::Header(header),
            Chunk::Source(m.source.clone()),
            Chunk::Samples(samples),
        ],
    })
}

/// The engine's `position_min` and `position_scale`: the least and greatest f32 component of
/// all positions, the scale `(max − min)/65535` evaluated in double and stored as f32 (a zero
/// range as [`quant::position_range`] gives it).
pub fn engine_position_range(positions: impl Iterator<Item = glam::Vec3>) -> (f32, f32) {
    let Some((lo, hi)) = quant::extent(positions) else {
        return (0.0, 1.0 / 65535.0);
    };
    if hi <= lo {
        return quant::position_range(std::iter::once(glam::Vec3::splat(lo)));
    }
    (lo, ((hi as f64 - lo as f64) / 65535.0) as f32)
}

#[cfg(test)]
mod fast_rounding {
    use super::{floor, trunc};
    use proptest::prelude::*;

    /// Equal as values (a zero's sign aside: the codes add the middle code to it) and NaN
    /// for NaN.
    fn same(a: f64, b: f64) -> bool {
        a == b || (a.is_nan() && b.is_nan())
    }

    #[test]
    fn the_edges_round_as_the_library_does() {
        for t in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            -1.0,
            -1.5,
            1.999_999_999,
            -32767.9,
            4.5e15 - 0.5,
            -4.5e15 + 0.5,
            4.5e15,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ] {
            assert!(same(trunc(t), t.trunc()), "trunc {t}");
            assert!(same(floor(t), t.floor()), "floor {t}");
        }
    }

    proptest! {
        #[test]
        fn any_value_rounds_as_the_library_does(bits in any::<u64>(), small in -70000.0f64..70000.0) {
            for t in [f64::from_bits(bits), small] {
                prop_assert!(same(trunc(t), t.trunc()), "trunc {}", t);
                prop_assert!(same(floor(t), t.floor()), "floor {}", t);
            }
        }
    }
}
