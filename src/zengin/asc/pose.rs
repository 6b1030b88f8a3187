//! The exact transform between ASC world samples and MAN/MDH local values (asc.md §3, §5).
//!
//! Notation (asc.md §3): quaternions are `(x, y, z, w)`, `⊗` is the Hamilton product. An ASC
//! rotation sample is a 3ds Max AngAxis `(axis, angle)`, left-handed; its standard right-handed
//! quaternion is `Q = conj(A)` with `A = (axis·sin(a/2), cos(a/2))`. `P` is the world position
//! (Max space, Z up, centimetres). `swapYZ(x, y, z) = (x, z, y)`, for quaternions
//! `(x, z, y, w)`.
//!
//! | node | MAN rotation | MAN position |
//! |---|---|---|
//! | child of `p` | `swapYZ(conj(Q_p) ⊗ Q)` | `swapYZ(rotate(conj(Q_p), P − P_p))` |
//! | root | `(−Q.y, Q.w, Q.x, −Q.z)` | `(−P.x, P.z, −P.y)` |
//!
//! then normalised with `w ≥ 0`. A parent without tracks stands at its `*NODE_TM`. The inverse
//! is `Q = Q_p ⊗ swapYZ(q)`, `P = P_p + rotate(Q_p, swapYZ(p))`.
//!
//! MDH local matrices `M` (rows as stored, translation in the last column) relate to the same
//! local quaternion by `q = quat(Mᵀ)`; the root's matrix has no translation, its rest offset is
//! the hierarchy's `root_translation` (in MAN space).
//!
//! Everything is f64; inputs stored as f32 (MAN codes, MDH floats) are widened first.

use crate::zengin::man::quant;
use glam::{DMat3, DQuat, DVec3};

/// A world transform in 3ds Max space: the standard right-handed rotation `Q` and the position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct World {
    pub rot: DQuat,
    pub pos: DVec3,
}

impl World {
    pub const IDENTITY: World = World {
        rot: DQuat::IDENTITY,
        pos: DVec3::ZERO,
    };
}

/// A node-local transform in MAN space: the rotation as the MAN stores it (`w ≥ 0` after
/// [`local_from_world`]) and the position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Local {
    pub rot: DQuat,
    pub pos: DVec3,
}

#[inline]
pub fn swap_yz(v: DVec3) -> DVec3 {
    DVec3::new(v.x, v.z, v.y)
}

#[inline]
pub fn swap_yz_quat(q: DQuat) -> DQuat {
    DQuat::from_xyzw(q.x, q.z, q.y, q.w)
}

/// The world rotation `Q` of a 3ds Max AngAxis sample: `conj((axis·sin(a/2), cos(a/2)))`. The
/// axis is normalised first (it is printed with 6 digits); a zero axis is no rotation.
pub fn quat_from_angaxis(axis: DVec3, angle: f64) -> DQuat {
    let len = axis.length();
    if len == 0.0 || !len.is_finite() {
        return DQuat::IDENTITY;
    }
    let (s, c) = (angle * 0.5).sin_cos();
    let a = axis / len * s;
    DQuat::from_xyzw(-a.x, -a.y, -a.z, c)
}

/// The 3ds Max AngAxis of a world rotation `Q`: `A = conj(Q)` as a unit axis and an angle in
/// `0..=2π`. The sign of `Q` is kept (`Q` and `−Q` give `(axis, a)` and `(−axis, 2π − a)`);
/// no rotation gives the axis `(0, 0, 1)` and angle 0.
pub fn angaxis_from_quat(q: DQuat) -> (DVec3, f64) {
    let q = q.normalize();
    let v = DVec3::new(-q.x, -q.y, -q.z);
    let s = v.length();
    if s < 1e-300 {
        return (DVec3::Z, 0.0);
    }
    let angle = 2.0 * s.atan2(q.w);
    (v / s, angle)
}

/// Normalised, with `w ≥ 0` (the MAN stores x, y, z only).
#[inline]
fn canonical(q: DQuat) -> DQuat {
    let q = q.normalize();
    if q.w < 0.0 {
        -q
    } else {
        q
    }
}

/// World (ASC) → local (MAN) for a node whose parent stands at `parent` (its sample in the
/// same frame, or its `*NODE_TM` when it has no track); `None` for a root.
pub fn local_from_world(parent: Option<World>, world: World) -> Local {
    match parent {
        Some(p) => {
            let inv = p.rot.conjugate();
            Local {
                rot: canonical(swap_yz_quat(inv * world.rot)),
                pos: swap_yz(inv * (world.pos - p.pos)),
            }
        }
        None => {
            let q = world.rot;
            let p = world.pos;
            Local {
                rot: canonical(DQuat::from_xyzw(-q.y, q.w, q.x, -q.z)),
                pos: DVec3::new(-p.x, p.z, -p.y),
            }
        }
    }
}

/// The position half of [`local_from_world`] alone (the same arithmetic).
#[inline]
pub fn local_pos_from_world(parent: Option<World>, pos: DVec3) -> DVec3 {
    match parent {
        Some(p) => swap_yz(p.rot.conjugate() * (pos - p.pos)),
        None => DVec3::new(-pos.x, pos.z, -pos.y),
    }
}

/// The rotation half of [`local_from_world`] alone (the same arithmetic).
#[inline]
pub fn local_rot_from_world(parent: Option<World>, rot: DQuat) -> DQuat {
    match parent {
        Some(p) => canonical(swap_yz_quat(p.rot.conjugate() * rot)),
        None => canonical(DQuat::from_xyzw(-rot.y, rot.w, rot.x, -rot.z)),
    }
}

/// Local (MAN) → world (ASC): the inverse of [`local_from_world`] (up to the sign of `Q`,
/// which follows the product).
pub fn world_from_local(parent: Option<World>, local: Local) -> World {
    let (q, p) = (local.rot, local.pos);
    match parent {
        Some(par) => World {
            rot: par.rot * swap_yz_quat(q),
            pos: par.pos + par.rot * swap_yz(p),
        },
        None => World {
            rot: DQuat::from_xyzw(q.z, -q.x, -q.w, q.y),
            pos: DVec3::new(-p.x, -p.z, p.y),
        },
    }
}

/// A MAN sample's rotation as the engine decodes it: x, y, z from the codes in f32, w (and
/// the normalisation of an over-long triple) in f64.
pub fn man_rotation(code: [u16; 3]) -> DQuat {
    let c = |v: u16| ((v as f32 - quant::ROT_MID) * quant::ROT_SCALE) as f64;
    let (x, y, z) = (c(code[0]), c(code[1]), c(code[2]));
    let l = x * x + y * y + z * z;
    if l > 1.0 {
        let k = 1.0 / l.sqrt();
        DQuat::from_xyzw(x * k, y * k, z * k, 0.0)
    } else {
        DQuat::from_xyzw(x, y, z, (1.0 - l).sqrt())
    }
}

/// A MAN sample's position: `code·scale + min` in f64 from the stored f32 `min` and `scale`.
pub fn man_position(code: [u16; 3], min: f32, scale: f32) -> DVec3 {
    let c = |v: u16| v as f64 * scale as f64 + min as f64;
    DVec3::new(c(code[0]), c(code[1]), c(code[2]))
}

/// Both halves of a MAN sample (`[rx, ry, rz, px, py, pz]`).
pub fn man_local(code: &[u16; 6], min: f32, scale: f32) -> Local {
    Local {
        rot: man_rotation([code[0], code[1], code[2]]),
        pos: man_position([code[3], code[4], code[5]], min, scale),
    }
}

/// The rows of a `*NODE_TM`: `TM_ROW0..2` are the world axes (the columns of the rotation
/// matrix), `TM_ROW3` the position.
pub fn tm_rows(w: World) -> [DVec3; 4] {
    let m = DMat3::from_quat(w.rot.normalize());
    [m.x_axis, m.y_axis, m.z_axis, w.pos]
}

/// The world transform of `*NODE_TM` rows (`TM_ROW0..3`).
pub fn world_from_tm_rows(rows: [DVec3; 4]) -> World {
    World {
        rot: DQuat::from_mat3(&DMat3::from_cols(rows[0], rows[1], rows[2])).normalize(),
        pos: rows[3],
    }
}

/// An MDH node's local transform (rows as stored, translation in the last column) in MAN
/// terms: `q = quat(Mᵀ)`, `p` = the last column.
pub fn local_from_mdh(rows: [[f32; 4]; 4]) -> Local {
    let r = |i: usize| DVec3::new(rows[i][0] as f64, rows[i][1] as f64, rows[i][2] as f64);
    Local {
        rot: canonical(DQuat::from_mat3(&DMat3::from_cols(r(0), r(1), r(2)))),
        pos: DVec3::new(rows[0][3] as f64, rows[1][3] as f64, rows[2][3] as f64),
    }
}

/// The MDH matrix rows of a local transform: the inverse of [`local_from_mdh`], with the last
/// row `0 0 0 1`.
pub fn mdh_from_local(local: Local) -> [[f32; 4]; 4] {
    let m = DMat3::from_quat(local.rot.normalize());
    let row = |c: DVec3, t: f64| [c.x as f32, c.y as f32, c.z as f32, t as f32];
    [
        row(m.x_axis, local.pos.x),
        row(m.y_axis, local.pos.y),
        row(m.z_axis, local.pos.z),
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// asc.md §5: the world `*NODE_TM` of an MDH node from its parent's `*NODE_TM` (`None` for a
/// root) and its stored matrix; a root stands at `root_translation` (MAN space).
pub fn tm_from_mdh(
    parent: Option<World>,
    rows: [[f32; 4]; 4],
    root_translation: [f32; 3],
) -> World {
    let mut local = local_from_mdh(rows);
    if parent.is_none() {
        local.pos = DVec3::from_array(root_translation.map(f64::from));
    }
    world_from_local(parent, local)
}

/// asc.md §5, the other way: an MDH node's matrix rows from its own and its parent's
/// `*NODE_TM`. For a root (no parent) the matrix has no translation and the second value is
/// the hierarchy's `root_translation`.
pub fn mdh_from_tm(parent: Option<World>, tm: World) -> ([[f32; 4]; 4], Option<[f32; 3]>) {
    let local = local_from_world(parent, tm);
    match parent {
        Some(_) => (mdh_from_local(local), None),
        None => (
            mdh_from_local(Local {
                rot: local.rot,
                pos: DVec3::ZERO,
            }),
            Some(local.pos.to_array().map(|v| v as f32)),
        ),
    }
}

#[cfg(test)]
mod tests;
