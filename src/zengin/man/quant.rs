//! MAN sample packing: the engine's exact f32 formulas for unpacking, and round-to-nearest
//! packing that reproduces every stored code (proved exhaustively in the tests).

use glam::{Quat, Vec3};

/// `(1 / 65535) * 2.1`, evaluated in f32 (bits 0x380666EC). Computing it in f64 and casting
/// gives 0x380666ED, which changes decoded values in the last bit.
pub const ROT_SCALE: f32 = f32::from_bits(0x3806_66EC);
/// The code of a zero component.
pub const ROT_MID: f32 = 32767.0;

/// Unpack a rotation code triple the way it is shown to people: x, y, z from the codes and
/// `w = sqrt(1 - (x² + y² + z²))`. Where x² + y² + z² > 1 the stored x, y, z are returned as
/// they are with w = 0 (the engine would normalise them; see [`engine_rotation`]).
#[inline]
pub fn unpack_rotation(code: [u16; 3]) -> [f32; 4] {
    let x = (code[0] as f32 - ROT_MID) * ROT_SCALE;
    let y = (code[1] as f32 - ROT_MID) * ROT_SCALE;
    let z = (code[2] as f32 - ROT_MID) * ROT_SCALE;
    let l = x * x + y * y + z * z;
    if l > 1.0 {
        [x, y, z, 0.0]
    } else {
        [x, y, z, (1.0 - l).sqrt()]
    }
}

/// The rotation the engine uses (ZenKit's `read_quat`): like [`unpack_rotation`], but an
/// over-long x, y, z is normalised.
#[inline]
pub fn engine_rotation(code: [u16; 3]) -> Quat {
    let [x, y, z, w] = unpack_rotation(code);
    let l = x * x + y * y + z * z;
    if l > 1.0 {
        let k = 1.0 / l.sqrt();
        Quat::from_xyzw(x * k, y * k, z * k, 0.0)
    } else {
        Quat::from_xyzw(x, y, z, w)
    }
}

fn rot_component(q: f32) -> Option<u16> {
    let c = (q / ROT_SCALE).round() + ROT_MID;
    (0.0..=65535.0).contains(&c).then_some(c as u16)
}

/// The codes of an untouched (as exported) rotation, or `None` when `q` is not exactly what
/// some code triple unpacks to.
#[inline]
pub fn exact_rotation_code(q: [f32; 4]) -> Option<[u16; 3]> {
    let code = [
        rot_component(q[0])?,
        rot_component(q[1])?,
        rot_component(q[2])?,
    ];
    let back = unpack_rotation(code);
    (back.map(f32::to_bits) == q.map(f32::to_bits)).then_some(code)
}

/// Pack an edited rotation as the engine does, with round-to-nearest: normalise, negate when
/// w < 0 (q and -q are the same rotation), quantise x, y, z. A rotation far from unit length
/// (see [`crate::exact::float::unit_quat_error`]) is refused, never normalised.
pub fn pack_rotation(q: [f32; 4]) -> Result<[u16; 3], String> {
    if let Some(e) = crate::exact::float::unit_quat_error(q) {
        return Err(e);
    }
    let quat = Quat::from_array(q);
    let len = quat.length();
    let mut n = quat / len;
    if n.w < 0.0 {
        n = -n;
    }
    // |component| <= 1 always fits (32767 ± 31207).
    let c = |v: f32| ((v / ROT_SCALE).round() + ROT_MID) as u16;
    Ok([c(n.x), c(n.y), c(n.z)])
}

/// Whichever applies: the exact code of an untouched value, or the packed edited value.
#[inline]
pub fn encode_rotation(q: [f32; 4]) -> Result<[u16; 3], String> {
    match exact_rotation_code(q) {
        Some(code) => Ok(code),
        None => pack_rotation(q),
    }
}

/// Unpack one position component: one f32 multiply, then one f32 add (no FMA).
#[inline]
pub fn unpack_position(code: u16, min: f32, scale: f32) -> f32 {
    code as f32 * scale + min
}

/// Round-to-nearest packing of one position component; `None` when it is outside 0..=65535
/// (or min/scale cannot place it).
#[inline]
pub fn pack_position(p: f32, min: f32, scale: f32) -> Option<u16> {
    let t = ((p - min) / scale).round();
    (0.0..=65535.0).contains(&t).then_some(t as u16)
}

/// The code a stored position component came from, if decoding it again gives exactly `p`.
#[inline]
pub fn exact_position_code(p: f32, min: f32, scale: f32) -> Option<u16> {
    let c = pack_position(p, min, scale)?;
    (unpack_position(c, min, scale).to_bits() == p.to_bits()).then_some(c)
}

/// `position_min` and `position_scale` for a set of positions, as the engine chooses them:
/// min and max over every component, `scale = f32(1/65535) * (max - min)`. A zero range (or
/// no positions) gets a range of 1.0 so the packer never divides by zero.
pub fn position_range(positions: impl Iterator<Item = Vec3>) -> (f32, f32) {
    let Some((lo, hi)) = extent(positions) else {
        return (0.0, 1.0 / 65535.0);
    };
    let range = if hi > lo { hi - lo } else { 1.0 };
    (lo, (1.0f32 / 65535.0) * range)
}

/// The least and greatest component of all positions; `None` when there are none (or one is
/// not finite).
pub fn extent(positions: impl Iterator<Item = Vec3>) -> Option<(f32, f32)> {
    let mut lo = f32::INFINITY;
    let mut hi = f32::NEG_INFINITY;
    for p in positions {
        lo = lo.min(p.min_element());
        hi = hi.max(p.max_element());
    }
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_scale_is_computed_in_f32() {
        assert_eq!(ROT_SCALE.to_bits(), 0x3806_66EC);
        assert_eq!(((1.0f32 / 65535.0) * 2.1f32).to_bits(), 0x3806_66EC);
    }

    /// pack(unpack(v)) == v for every one of the 65536 codes, in every component position.
    #[test]
    fn every_rotation_code_survives_unpack_and_pack() {
        for c in 0..=u16::MAX {
            for slot in 0..3 {
                let mut code = [32767u16; 3];
                code[slot] = c;
                let q = unpack_rotation(code);
                assert_eq!(
                    exact_rotation_code(q),
                    Some(code),
                    "code {c} in slot {slot}"
                );
            }
        }
    }

    /// Over-long triples (shown with w = 0) survive too.
    #[test]
    fn over_long_rotations_survive() {
        for code in [[0u16, 0, 0], [65535, 65535, 65535], [1560, 63974, 40000]] {
            let q = unpack_rotation(code);
            assert_eq!(q[3], 0.0);
            assert_eq!(exact_rotation_code(q), Some(code));
        }
    }

    /// pack(unpack(v)) == v for every position code under several (min, scale) pairs,
    /// including the corpus file's.
    #[test]
    fn every_position_code_survives_unpack_and_pack() {
        let pairs = [
            (f32::from_bits(0xC110_29DC), f32::from_bits(0x3AC3_874A)), // G1_HUMANS-S_FISTRUN
            (0.0, 1.0),
            (-1000.0, 2000.0 / 65535.0),
            (-0.5, 1.0 / 65535.0),
            (12345.678, 0.25),
            (-3.0e4, 0.9155),
        ];
        for (min, scale) in pairs {
            for c in 0..=u16::MAX {
                let p = unpack_position(c, min, scale);
                assert_eq!(
                    exact_position_code(p, min, scale),
                    Some(c),
                    "code {c}, min {min}, scale {scale}"
                );
            }
        }
    }

    #[test]
    fn degenerate_scale_is_detected() {
        assert_eq!(
            exact_position_code(unpack_position(7, 1.0, 0.0), 1.0, 0.0),
            None
        );
    }

    #[test]
    fn edited_rotations_are_normalised_and_w_made_positive() {
        // 90° about y, given slightly off unit length and with negative w.
        let h = -std::f32::consts::FRAC_1_SQRT_2 * 1.01;
        let code = pack_rotation([0.0, h, 0.0, h]).unwrap();
        let back = unpack_rotation(code);
        assert!((back[1] - std::f32::consts::FRAC_1_SQRT_2).abs() < 4e-5);
        assert!((back[3] - std::f32::consts::FRAC_1_SQRT_2).abs() < 4e-5);
        // Far from unit length: refused, never normalised (nor turned into identity).
        assert_eq!(
            pack_rotation([0.0; 4]).unwrap_err(),
            "rotation [0.0, 0.0, 0.0, 0.0] is not a unit quaternion (|q| = 0): a rotation must \
             have length 1 (|q|² within 5 % of 1), e.g. [0.0, 0.0, 0.0, 1.0] for no rotation"
        );
        assert!(pack_rotation([0.0, -2.0, 0.0, -2.0]).is_err());
        assert!(pack_rotation([0.1, 0.0, 0.0, 0.0]).is_err());
        assert!(pack_rotation([f32::NAN, 0.0, 0.0, 1.0])
            .unwrap_err()
            .contains("not finite"));
    }

    #[test]
    fn engine_range_and_zero_range() {
        let (min, scale) =
            position_range([Vec3::new(-1.0, 2.0, 0.5), Vec3::new(3.0, 0.0, 1.0)].into_iter());
        assert_eq!(min, -1.0);
        assert_eq!(scale, (1.0f32 / 65535.0) * 4.0);
        assert_eq!(pack_position(3.0, min, scale), Some(65535));
        let (min, scale) = position_range([Vec3::splat(5.0)].into_iter());
        assert_eq!((min, scale), (5.0, 1.0 / 65535.0));
    }
}
