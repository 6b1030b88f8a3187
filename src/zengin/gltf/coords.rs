//! The coordinate mapping between ZenGin and glTF.
//!
//! ZenGin is left-handed with +Y up and +Z forward, in centimetres; glTF is right-handed with
//! +Y up and +Z forward ("the front of an asset faces +Z"), in metres. Mirroring the x axis
//! turns one into the other and keeps up and forward:
//!
//! * point: `(x, y, z)` cm → `(-x, y, z) / 100` m
//! * rotation quaternion of a MAN sample: `(x, y, z, w)` → `(-x, y, z, w)`: the engine stores
//!   the conjugate of the rotation its matrices hold (a node at rest has the quaternion of the
//!   transpose of its MDH rest matrix; the real files of the corpus show it: see the test
//!   `gltf_mesh::man_rotations_are_the_conjugate_of_the_mdh_rest` of the roundtrip tests), and a mirror in the x axis keeps
//!   rotations about x and reverses those about y and z: `(x, y, z, w)` → `(-x, -y, -z, w)`
//!   → `(-x, y, z, w)`
//! * matrix: `M` → `S·M·S` with `S = diag(-1, 1, 1)`, translation as a point
//!
//! Each map is its own inverse (up to the factor 100), so import undoes export exactly; the
//! last float bits lost to `/ 100` come back when values are turned into the MAN's 16-bit
//! codes (see `import`).

use glam::{DMat4, DQuat, DVec3, DVec4};

/// Centimetres per metre.
pub const CM_PER_M: f64 = 100.0;

/// A ZenGin position (cm) as a glTF translation (m).
#[inline]
pub fn position_to_gltf(p: [f32; 3]) -> [f32; 3] {
    [
        (-(p[0] as f64) / CM_PER_M) as f32,
        (p[1] as f64 / CM_PER_M) as f32,
        (p[2] as f64 / CM_PER_M) as f32,
    ]
}

/// A glTF translation (m) as a ZenGin position (cm).
#[inline]
pub fn position_from_gltf(p: DVec3) -> DVec3 {
    DVec3::new(-p.x * CM_PER_M, p.y * CM_PER_M, p.z * CM_PER_M)
}

/// A MAN sample's rotation `[x, y, z, w]` as a glTF rotation `[x, y, z, w]` (conjugated and
/// mirrored).
#[inline]
pub fn rotation_to_gltf(q: [f32; 4]) -> [f32; 4] {
    [-q[0], q[1], q[2], q[3]]
}

/// A glTF rotation as a MAN sample's rotation.
#[inline]
pub fn rotation_from_gltf(q: DQuat) -> DQuat {
    DQuat::from_xyzw(-q.x, q.y, q.z, q.w)
}

/// A ZenGin matrix (rows as stored, column vectors, translation in the last column, cm) as a
/// glTF matrix (m).
pub fn matrix_to_gltf(rows: [[f32; 4]; 4]) -> DMat4 {
    let s = [-1.0, 1.0, 1.0, 1.0];
    let mut cols = [DVec4::ZERO; 4];
    for (c, col) in cols.iter_mut().enumerate() {
        let mut v = [0.0f64; 4];
        for (r, x) in v.iter_mut().enumerate() {
            let mut e = rows[r][c] as f64 * s[r] * s[c];
            if c == 3 && r < 3 {
                e /= CM_PER_M;
            }
            *x = e;
        }
        *col = DVec4::from_array(v);
    }
    DMat4::from_cols(cols[0], cols[1], cols[2], cols[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_keeps_up_and_forward_and_inverts() {
        assert_eq!(position_to_gltf([100.0, 250.0, -50.0]), [-1.0, 2.5, -0.5]);
        let back = position_from_gltf(DVec3::new(-1.0, 2.5, -0.5));
        assert_eq!(back, DVec3::new(100.0, 250.0, -50.0));
        // A MAN's (0, sin 45°, 0, cos 45°) is the engine's -90° about y (the conjugate), which
        // is +90° about y in glTF.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(rotation_to_gltf([0.0, h, 0.0, h]), [-0.0, h, 0.0, h]);
    }

    /// Mirroring a rotation's matrix gives the matrix of the mirrored quaternion (of the MAN
    /// quaternion the engine stores for that matrix: its conjugate), and a rotated point maps
    /// to the mirrored rotated point.
    #[test]
    fn quaternion_and_matrix_mirror_agree() {
        let q = glam::Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7);
        let t = [12.0f32, 85.0, -3.0];
        let m = glam::Mat4::from_rotation_translation(q, glam::Vec3::from_array(t));
        let rows = m.transpose().to_cols_array_2d();
        let mg = matrix_to_gltf(rows);
        let (_, rg, tg) = mg.to_scale_rotation_translation();
        let expect = rotation_to_gltf(q.conjugate().to_array());
        let rg = rg.as_quat().to_array();
        for i in 0..4 {
            assert!((rg[i] - expect[i]).abs() < 1e-6, "{rg:?} vs {expect:?}");
        }
        let tp = position_to_gltf(t);
        assert!((tg.as_vec3() - glam::Vec3::from_array(tp)).length() < 1e-7);
        // A point: mirror(R p + t) == R' mirror(p) + t'.
        let p = glam::Vec3::new(5.0, -7.0, 9.0);
        let world = m.transform_point3(p);
        let a = position_to_gltf(world.to_array());
        let b = mg.transform_point3(DVec3::from_array(
            position_to_gltf(p.to_array()).map(f64::from),
        ));
        assert!((b.as_vec3() - glam::Vec3::from_array(a)).length() < 1e-6);
    }
}
