use super::*;
use crate::zengin::man::Man;
use crate::zengin::mdh::Mdh;
use glam::{DQuat, DVec3};

const PAIRS: &str = "realworld/asc-pairs/";
const MAN: &str = "PiotrDrozdz96+Gothic/Anims/_compiled/HUMANS_1HST3-T_1HRUNTURNR.MAN";
const MDH: &str = "PiotrDrozdz96+Gothic/Anims/_compiled/HUMANS_1HST3.MDH";

/// The GothicSourcer v3.10 `*NODE_TM` of `Bip01` and `Bip01 Pelvis` in `HUM_1HTURNT3.ASC`
/// (the file GS decompiled `HUMANS_1HST3-T_1HRUNTURNR.MAN` into).
const GS_BIP01_TM: [[f64; 3]; 4] = [
    [6.27438e-006, -1.0, 0.0],
    [1.0, 6.27438e-006, 0.0],
    [-0.0, -0.0, 1.0],
    [0.0, -7.37745, 99.9496],
];
const GS_PELVIS_TM: [[f64; 3]; 4] = [
    [-5.96014e-008, 1.79264e-006, 1.0],
    [-1.79264e-006, -1.0, 1.79264e-006],
    [1.0, -1.79264e-006, -5.96014e-008],
    [1e-005, -8.0113, 99.9496],
];

/// GS's samples at tick 4801 (ASC frame 26 = the MAN's frame 0, `F 26 49`): node, position,
/// AngAxis.
const GS_FRAME0: [(&str, [f64; 3], [f64; 4]); 5] = [
    (
        "BIP01 SPINE",
        [-0.242303, -7.92213, 102.339],
        [-0.655524, 0.0610328, -0.752704, 3.31906],
    ),
    (
        "BIP01 SPINE1",
        [-1.53563, -9.99806, 111.856],
        [-0.651001, 0.105371, -0.751728, 3.22281],
    ),
    (
        "BIP01 SPINE2",
        [-3.45702, -12.5074, 124.253],
        [0.720198, -0.203563, 0.663232, 2.95554],
    ),
    (
        "BIP01 NECK",
        [-2.08744, -24.8965, 151.524],
        [0.741543, -0.169284, 0.649198, 2.69216],
    ),
    (
        "BIP01 HEAD",
        [-1.09974, -28.4567, 157.279],
        [-0.611185, -0.180031, -0.770741, 3.52944],
    ),
];

fn rows(r: [[f64; 3]; 4]) -> [DVec3; 4] {
    r.map(DVec3::from_array)
}

/// The angle between two rotations (radians), whatever their signs.
fn angle_between(a: DQuat, b: DQuat) -> f64 {
    let d = a.normalize().dot(b.normalize()).abs().min(1.0);
    2.0 * d.acos()
}

fn load() -> Option<(Man, Mdh)> {
    let man = crate::testing::corpus_file(&format!("{PAIRS}{MAN}"))?;
    let mdh = crate::testing::corpus_file(&format!("{PAIRS}{MDH}"))?;
    Some((Man::read(&man).unwrap(), Mdh::read(&mdh).unwrap()))
}

fn mdh_rows(mdh: &Mdh, i: usize) -> [[f32; 4]; 4] {
    mdh.hierarchy().unwrap().nodes[i]
        .transform
        .0
        .map(|r| r.map(|v| v.get()))
}

fn root_translation(mdh: &Mdh) -> [f32; 3] {
    mdh.hierarchy().unwrap().root_translation.map(|v| v.get())
}

#[test]
fn angaxis_and_quaternion_round_trip() {
    // 3ds Max AngAxis is left-handed: +90° about Max Z is the standard -90° about Z.
    let q = quat_from_angaxis(DVec3::Z, std::f64::consts::FRAC_PI_2);
    let want = DQuat::from_rotation_z(-std::f64::consts::FRAC_PI_2);
    assert!(angle_between(q, want) < 1e-12);
    assert!(q.dot(want) > 0.0);
    // x → −y, as GS's `Bip01` rows say (TM_ROW0 = 6.27438e-006 -1 0, TM_ROTAXIS 0 0 1).
    assert!((q * DVec3::X - DVec3::new(0.0, -1.0, 0.0)).length() < 1e-12);
    for (axis, angle) in [
        (DVec3::new(-0.655524, 0.0610328, -0.752704), 3.31906),
        (DVec3::new(0.0, 0.0, 1.0), 0.3),
        (DVec3::new(0.2, -0.9, 0.1), 5.9),
    ] {
        let q = quat_from_angaxis(axis, angle);
        let (a2, g2) = angaxis_from_quat(q);
        assert!((a2 - axis.normalize()).length() < 1e-12, "{a2} vs {axis}");
        assert!((g2 - angle).abs() < 1e-12);
        // The other sign of the same rotation is (−axis, 2π − angle).
        let (a3, g3) = angaxis_from_quat(-q);
        assert!((a3 + axis.normalize()).length() < 1e-12);
        assert!((g3 - (std::f64::consts::TAU - angle)).abs() < 1e-12);
    }
    assert_eq!(angaxis_from_quat(DQuat::IDENTITY), (DVec3::Z, 0.0));
    assert_eq!(quat_from_angaxis(DVec3::ZERO, 1.0), DQuat::IDENTITY);
}

#[test]
fn local_world_inverse_for_root_and_child() {
    let parent = World {
        rot: DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.2, 2.0),
        pos: DVec3::new(4.0, -8.0, 90.0),
    };
    let local = Local {
        rot: DQuat::from_euler(glam::EulerRot::ZYX, -0.4, 0.7, 0.1),
        pos: DVec3::new(12.0, 0.5, -3.0),
    };
    for par in [None, Some(parent)] {
        let w = world_from_local(par, local);
        let back = local_from_world(par, w);
        assert!(angle_between(back.rot, local.rot) < 1e-12);
        assert!(back.rot.w >= 0.0);
        assert!((back.pos - local.pos).length() < 1e-12);
    }
    // The root rule of asc.md §3, literally.
    let q = DQuat::from_xyzw(0.1, 0.2, 0.3, 0.9).normalize();
    let l = local_from_world(
        None,
        World {
            rot: q,
            pos: DVec3::new(1.0, 2.0, 3.0),
        },
    );
    let want = DQuat::from_xyzw(-q.y, q.w, q.x, -q.z);
    assert!((l.rot - want).length() < 1e-15 || (l.rot + want).length() < 1e-15);
    assert_eq!(l.pos, DVec3::new(-1.0, 3.0, -2.0));
}

#[test]
fn mdh_matrix_round_trip() {
    let local = Local {
        rot: DQuat::from_euler(glam::EulerRot::XYZ, 0.5, 0.25, -1.0),
        pos: DVec3::new(27.905691, -0.000247, 1.5),
    };
    let back = local_from_mdh(mdh_from_local(local));
    assert!(angle_between(back.rot, local.rot) < 1e-6);
    assert!((back.pos - local.pos).length() < 1e-5);
}

/// asc.md §5 on real files: GS's `Bip01` and `Bip01 Pelvis` `*NODE_TM` made local give the
/// MDH's root matrix, `root_translation` and the pelvis matrix; and back.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn gs_node_tm_and_mdh_agree() {
    let Some((_, mdh)) = load() else { return };
    let bip = world_from_tm_rows(rows(GS_BIP01_TM));
    let (m, rt) = mdh_from_tm(None, bip);
    let want = mdh_rows(&mdh, 0);
    for r in 0..4 {
        for c in 0..4 {
            assert!((m[r][c] - want[r][c]).abs() < 1e-5, "root [{r}][{c}]");
        }
    }
    let rt = rt.unwrap();
    let want_rt = root_translation(&mdh);
    assert_eq!(want_rt, [-0.0, 99.94956, 7.37745]);
    for k in 0..3 {
        assert!((rt[k] - want_rt[k]).abs() < 2e-4, "{rt:?} vs {want_rt:?}");
    }
    let pelvis = world_from_tm_rows(rows(GS_PELVIS_TM));
    let (m, none) = mdh_from_tm(Some(bip), pelvis);
    assert!(none.is_none());
    let want = mdh_rows(&mdh, 1);
    for r in 0..3 {
        for c in 0..3 {
            assert!((m[r][c] - want[r][c]).abs() < 7.4e-6, "pelvis [{r}][{c}]");
        }
        assert!((m[r][3] - want[r][3]).abs() < 2e-4, "pelvis t[{r}]");
    }
    // And from the MDH to GS's rows.
    let w0 = tm_from_mdh(None, mdh_rows(&mdh, 0), root_translation(&mdh));
    let w1 = tm_from_mdh(Some(w0), mdh_rows(&mdh, 1), [0.0; 3]);
    for (w, gs) in [(w0, GS_BIP01_TM), (w1, GS_PELVIS_TM)] {
        let got = tm_rows(w);
        for r in 0..4 {
            let tol = if r == 3 { 1e-4 } else { 2.4e-5 };
            assert!(
                (got[r] - DVec3::from_array(gs[r])).abs().max_element() < tol,
                "row {r}: {} vs {:?}",
                got[r],
                gs[r]
            );
        }
    }
}

/// asc.md §3 on a real sample, both ways: the MAN's frame 0 decoded and composed down the
/// spine from the static pelvis gives GS's world samples (to GS's 6 digits and its 1e-5 rad),
/// and GS's samples made local and re-quantised with round-to-nearest give the MAN's codes.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn real_man_frame_matches_gothicsourcer() {
    let Some((man, mdh)) = load() else { return };
    let h = man.header().unwrap();
    let (min, scale) = (h.position_min.get(), h.position_scale.get());
    let s = man.samples().unwrap();
    let names = mdh.node_names();
    let frame0 = s.frame(0);
    let code_of = |name: &str| {
        let k = s
            .node_indices
            .iter()
            .position(|&i| names[i as usize].to_string() == name)
            .unwrap();
        frame0[k]
    };
    // Forward: pelvis stands at its rest NODE_TM (it has no samples in this MAN).
    let bip = tm_from_mdh(None, mdh_rows(&mdh, 0), root_translation(&mdh));
    let mut parent = tm_from_mdh(Some(bip), mdh_rows(&mdh, 1), [0.0; 3]);
    let mut gs_parent = parent;
    for (name, pos, aa) in GS_FRAME0 {
        let code = code_of(name);
        let w = world_from_local(Some(parent), man_local(&code, min, scale));
        let gs = World {
            rot: quat_from_angaxis(DVec3::new(aa[0], aa[1], aa[2]), aa[3]),
            pos: DVec3::from_array(pos),
        };
        // 6 significant digits of ~100 cm is 5e-4 cm.
        assert!(
            (w.pos - gs.pos).abs().max_element() < 6e-4,
            "{name}: {} vs {}",
            w.pos,
            gs.pos
        );
        assert!(
            angle_between(w.rot, gs.rot) < 1.5e-5,
            "{name}: {}",
            angle_between(w.rot, gs.rot)
        );
        // Backward: GS's world samples (parent from GS too) → the MAN's codes.
        let l = local_from_world(Some(gs_parent), gs);
        let rot = [l.rot.x, l.rot.y, l.rot.z, l.rot.w].map(|v| v as f32);
        let rc = quant::pack_rotation(rot).unwrap();
        assert_eq!(rc, [code[0], code[1], code[2]], "{name} rotation codes");
        let pc =
            [l.pos.x, l.pos.y, l.pos.z].map(|v| ((v - min as f64) / scale as f64).round() as i64);
        for k in 0..3 {
            assert!(
                (pc[k] - code[3 + k] as i64).abs() <= 1,
                "{name} position code {k}: {} vs {}",
                pc[k],
                code[3 + k]
            );
        }
        parent = w;
        gs_parent = gs;
    }
    // GS writes this frame's spine with (axis, angle) as the product gives it or negated:
    // the first sample's angle 3.31906 > π, i.e. not the w ≥ 0 form.
    assert!(GS_FRAME0[0].2[3] > std::f64::consts::PI);
}
