//! `animkit psa` against UE Viewer's own PSA files for generated packages
//! (`roundtrip-tests/data/ue3/`, made by the real UE Viewer; see the README there).

use crate::ue3::psa;
use crate::ue3::upk::package::Package;
use crate::ue3::upk::{anim, synth};
use std::path::PathBuf;

fn data(rel: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Where byte `at` of a PSA lies (sequence, frame, bone, key field) when it is in ANIMKEYS.
fn locate(psa_bytes: &[u8], at: usize) -> String {
    let Ok(p) = psa::read(psa_bytes) else {
        return format!("byte {at}");
    };
    let bones = p.bones.len();
    let keys_start = 32 + (32 + 120 * bones) + (32 + 168 * p.sequences.len()) + 32;
    if at < keys_start {
        return format!("byte {at} (headers)");
    }
    let mut k = (at - keys_start) / 32;
    let field = ["px", "py", "pz", "qx", "qy", "qz", "qw", "time"][(at - keys_start) % 32 / 4];
    for s in &p.sequences {
        if k < s.num_frames * bones {
            return format!(
                "byte {at}: {} frame {} bone {} {field}",
                s.name,
                k / bones,
                p.bones[k % bones]
            );
        }
        k -= s.num_frames * bones;
    }
    format!("byte {at} (after the keys)")
}

fn assert_same_psa(got: &[u8], want: &[u8], what: &str) {
    let diff: Vec<String> = (0..got.len().min(want.len()))
        .filter(|&i| got[i] != want[i])
        .take(12)
        .map(|i| locate(want, i))
        .collect();
    assert!(
        diff.is_empty() && got.len() == want.len(),
        "{what}: {} bytes, UE Viewer wrote {}; first differences: {diff:#?}",
        got.len(),
        want.len()
    );
}

#[test]
fn the_formulas_fixture_is_what_the_generator_makes() {
    assert!(data("roundtrip-tests/data/ue3/FORMULAS.UPK") == synth::formulas());
}

#[test]
fn psa_export_equals_ue_viewer_for_every_formula_and_sampling_case() {
    for (upk, want) in [
        (
            "roundtrip-tests/data/ue3/FORMULAS.UPK",
            "roundtrip-tests/data/ue3/FORMULAS.psa",
        ),
        ("samples/ANIMS.UPK", "roundtrip-tests/data/ue3/ANIMS.psa"),
    ] {
        let pkg = Package::read(&data(upk)).unwrap();
        let set = &anim::anim_sets(&pkg)[0];
        let got = psa::export_set(&pkg, set).unwrap();
        assert_same_psa(&got, &data(want), upk);
    }
}

/// Key `frame`/`bone` of sequence `seq` in a PSA, in UE3 axes.
fn psa_key(p: &psa::Psa, seq: &str, frame: usize, bone: usize) -> [f32; 7] {
    let s = p.sequences.iter().find(|s| s.name == seq).unwrap();
    let (t, q) = s.keys[frame * p.bones.len() + bone];
    [t[0], t[1], t[2], q[0], q[1], q[2], q[3]]
}

/// The values behind the byte comparison: where UE Viewer's formulas differ from the engine's,
/// its file holds UE Viewer's values and the YAML document the engine's.
#[test]
fn ue_viewer_formulas_show_in_its_file_and_the_engine_formulas_in_the_yaml() {
    let pkg = Package::read(&data("roundtrip-tests/data/ue3/FORMULAS.UPK")).unwrap();
    let uev = psa::read(&data("roundtrip-tests/data/ue3/FORMULAS.psa")).unwrap();
    let engine = |si: usize| {
        let q = anim::sequence(&pkg, si, Some(3)).unwrap().unwrap();
        anim::decode(&q, anim::stream(&pkg, si)).unwrap().1
    };
    // float32 (export 3), root rotates about Z only: X and Y are stored as code 0, which the
    // engine decodes as 0.0 and UE Viewer as 2^-4.
    let t = engine(3);
    assert_eq!(t[0].rotations[0][0], 0.0);
    let k = psa_key(&uev, "float32", 0, 0);
    assert_eq!((k[3], k[4]), (0.0625, 0.0625));
    // fixed32 (export 1): UE Viewer's U/1023 − 1 against the engine's (U − 1023)/1023.
    let stream = anim::stream(&pkg, 1);
    let q = anim::sequence(&pkg, 1, Some(3)).unwrap().unwrap();
    let at = q.offsets[0].rot_offset as usize + 24;
    let p = u32::from_le_bytes(stream[at..at + 4].try_into().unwrap());
    let ux = p >> 21;
    let k = psa_key(&uev, "fixed32", 0, 0);
    assert_eq!(k[3], ux as f32 / 1023.0 - 1.0);
    assert_eq!(
        engine(1)[0].rotations[0][0],
        (ux as i32 - 1023) as f32 / 1023.0
    );
    // rounding (export 7): frame 7 of 23 is sampled at 7 / 23 · 23 < 7, i.e. between keys 6
    // and 7, almost at key 7 but not exactly.
    let t = engine(7);
    let k = psa_key(&uev, "rounding", 7, 0);
    assert_ne!(k[..3], t[0].translations[7]);
    assert!((k[0] - t[0].translations[7][0]).abs() < 1e-5);
    let k = psa_key(&uev, "rounding", 8, 0);
    assert_eq!(k[..3], t[0].translations[8]);
}

use crate::ue3::upk::tests::encode;

const SHORT_LONG_BONE: &str = "Bip01_Spine_Upper_Chest_Twist_____e_With_An_Extremely_Long_Name";

#[test]
fn psa_import_of_animkits_and_ue_viewers_export_changes_nothing() {
    let upk = data("roundtrip-tests/data/ue3/FORMULAS.UPK");
    let pkg = Package::read(&upk).unwrap();
    let ours = psa::export_set(&pkg, &anim::anim_sets(&pkg)[0]).unwrap();
    for (what, bytes) in [
        ("animkit", ours),
        ("UE Viewer", data("roundtrip-tests/data/ue3/FORMULAS.psa")),
    ] {
        let p = psa::read(&bytes).unwrap();
        assert_eq!(p.bones[2], SHORT_LONG_BONE, "{what}");
        let mut same = pkg.clone();
        let done = psa::import(&mut same, "Formulas", &p).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(done.len(), 11, "{what}");
        assert!(
            encode(&same) == upk,
            "{what}: importing the export changed the package"
        );
    }
}

#[test]
fn a_psa_edit_of_the_shortened_bone_reaches_its_track_and_keeps_the_other_codes() {
    let upk = data("roundtrip-tests/data/ue3/FORMULAS.UPK");
    let pkg = Package::read(&upk).unwrap();
    let mut p = psa::read(&psa::export_set(&pkg, &anim::anim_sets(&pkg)[0]).unwrap()).unwrap();
    // fixed32 (Fixed32NoW, 6 keys for 6 frames), long-named track, frame 2.
    let z = 0.25f32;
    p.sequences[0].keys[2 * 3 + 2].1 = [0.0, 0.0, z, (1.0 - z * z).sqrt()];
    let mut edited = pkg.clone();
    psa::import(&mut edited, "Formulas", &p).unwrap();
    let back = Package::read(&encode(&edited)).unwrap();
    let decode = |pk: &Package| {
        let q = anim::sequence(pk, 1, Some(3)).unwrap().unwrap();
        anim::decode(&q, anim::stream(pk, 1)).unwrap().1
    };
    let (old, new) = (decode(&pkg), decode(&back));
    assert_eq!(new[0], old[0]);
    assert_eq!(new[1], old[1]);
    // The edited key, quantised by Fixed32NoW (Z has 10 bits: 511 steps).
    assert!((new[2].rotations[2][2] - z).abs() < 1.0 / 511.0);
    assert_eq!(new[2].rotations[2][0], 0.0);
    // The other keys of the edited track keep their codes (the PSA holds UE Viewer's decoding
    // of them, which would not re-encode to the same codes).
    for f in [0, 1, 3, 4, 5] {
        assert_eq!(new[2].rotations[f], old[2].rotations[f], "frame {f}");
    }
}

#[test]
fn a_shortened_name_shared_by_two_tracks_is_refused_naming_both() {
    let a = "Bip01_Spine_Upper_Chest_Twist_Helper_Bone_Left_With_An_Extremely_Long_Name";
    let b = "Bip01_Spine_Upper_Chest_Twist_Helper_Bone_Right_With_An_Extremely_Long_Name";
    let q = synth::SeqSpec {
        name: "walk".into(),
        format: crate::ue3::upk::codec::RotFormat::Float96NoW,
        frames: 2,
        length: 2.0 / 30.0,
        rate_scale: None,
        tracks: vec![(vec![], vec![[0.0, 0.0, 0.0, 1.0]]); 2],
    };
    let pkg = Package::read(&synth::package("Set", &[a, b], &[q]).unwrap()).unwrap();
    let p = psa::read(&psa::export_set(&pkg, &anim::anim_sets(&pkg)[0]).unwrap()).unwrap();
    assert_eq!(p.bones[0], p.bones[1]);
    let e = psa::import(&mut pkg.clone(), "Set", &p).unwrap_err();
    assert!(
        e.message.contains(a) && e.message.contains(b),
        "{}",
        e.message
    );
}

#[test]
fn a_psa_rate_edit_changes_the_sequence_length() {
    let upk = data("roundtrip-tests/data/ue3/FORMULAS.UPK");
    let pkg = Package::read(&upk).unwrap();
    let mut p = psa::read(&psa::export_set(&pkg, &anim::anim_sets(&pkg)[0]).unwrap()).unwrap();
    assert_eq!(p.sequences[0].rate, 30.0);
    p.sequences[0].rate = 15.0;
    let mut edited = pkg.clone();
    psa::import(&mut edited, "Formulas", &p).unwrap();
    let q = anim::sequence(&edited, 1, Some(3)).unwrap().unwrap();
    assert_eq!(q.length, 6.0 / 15.0);
    assert_eq!(q.num_frames, 6);
}
