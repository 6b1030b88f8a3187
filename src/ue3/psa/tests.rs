//! Corpus tests of the PSA export and import (`../shared/corpus/ue3/`, the variants of
//! `upk::tests`).

use crate::ue3::upk::package::Package;
use crate::ue3::upk::tests::{corpus, VARIANTS};
use crate::ue3::upk::{anim, tests::plain};

use crate::ue3::upk::tests::encode;

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn psa_export_equals_ue_viewer_output() {
    for v in VARIANTS {
        let Some(data) = corpus(&format!("{v}/TestAnims.upk")) else {
            return;
        };
        let Some(want) = corpus(&format!("{v}/MyAnimSet.psa")) else {
            return;
        };
        let pkg = Package::read(&data).unwrap();
        let sets = anim::anim_sets(&pkg);
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0].name, "MyAnimSet");
        assert_eq!(sets[0].bones, ["root", "pelvis", "spine"]);
        assert_eq!(sets[0].use_translation_bone_names, ["root"]);
        assert!(sets[0].anim_rotation_only, "absent: UE3 default true");
        assert_eq!(sets[0].serviced, Some(true));
        let got = super::export_set(&pkg, &sets[0]).unwrap();
        assert_eq!(got.len(), want.len(), "{v}");
        let diff: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
        assert!(diff.is_empty(), "{v}: PSA differs at {diff:?}");
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn psa_import_of_the_own_export_is_identity_and_an_edit_reencodes() {
    let Some(data) = corpus("obf/TestAnims.upk") else {
        return;
    };
    let pkg = Package::read(&data).unwrap();
    let set = &anim::anim_sets(&pkg)[0];
    let bytes = super::export_set(&pkg, set).unwrap();
    let mut p = super::read(&bytes).unwrap();
    assert_eq!(p.bones, ["root", "pelvis", "spine"]);
    assert_eq!(
        p.sequences
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["walk", "run", "idle"]
    );
    assert_eq!(p.sequences[0].rate, 30.0);
    let mut same = pkg.clone();
    super::import(&mut same, "myanimset", &p).unwrap();
    assert!(encode(&same) == data);
    // Rotate the spine of `idle` (ZOnlyRLE, mode 0) at frame 4 about Z only.
    let z = 0.3f32;
    p.sequences[2].keys[4 * 3 + 2].1 = [0.0, 0.0, z, (1.0 - z * z).sqrt()];
    let mut edited = pkg.clone();
    super::import(&mut edited, "MyAnimSet", &p).unwrap();
    let out = encode(&edited);
    let back = Package::read(&out).unwrap();
    assert_eq!(back.objects[..3], pkg.objects[..3]);
    let seq = anim::sequence(&back, 3, Some(3)).unwrap().unwrap();
    let (_, t) = anim::decode(&seq, anim::stream(&back, 3)).unwrap();
    assert_eq!(t[2].rotations[4], [0.0, 0.0, z, (1.0 - z * z).sqrt()]);
    assert_eq!(
        t[2].rotations[..4],
        anim::decode(
            &anim::sequence(&pkg, 3, Some(3)).unwrap().unwrap(),
            anim::stream(&pkg, 3)
        )
        .unwrap()
        .1[2]
            .rotations[..4]
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_zero_rotation_in_a_psa_is_refused_naming_sequence_bone_and_frame() {
    let Some(data) = plain() else { return };
    let pkg = Package::read(&data).unwrap();
    let bytes = super::export_set(&pkg, &anim::anim_sets(&pkg)[0]).unwrap();
    let mut p = super::read(&bytes).unwrap();
    p.sequences[1].keys[3 * 3 + 2].1 = [0.0; 4];
    let e = super::import(&mut pkg.clone(), "MyAnimSet", &p).unwrap_err();
    assert!(
        e.to_string().contains("run, bone `spine`, frame 3")
            && e.to_string().contains("not a unit quaternion"),
        "{e}"
    );
}

/// The streamed export ([`super::export_set_to`]) writes its headers before the keys, so it
/// looks at every sequence's properties first: the error it reports is still the one the
/// sequences give in order (a broken stream of an earlier sequence before a later sequence's
/// NumFrames), and nothing is written for a set that cannot be exported.
#[test]
fn streamed_psa_export_reports_errors_in_sequence_order_and_writes_nothing() {
    use crate::ue3::upk::package::Object;
    use crate::ue3::upk::props::Value;
    let Some(data) = corpus("plain/TestAnims.upk") else {
        return;
    };
    let pkg = Package::read(&data).unwrap();
    let seqs = anim::anim_sets(&pkg)[0].sequences.clone();
    let (first, last) = (seqs[0], *seqs.last().unwrap());
    assert_eq!((first, seqs.len()), (1, 3));
    let names = pkg.name_texts.clone();
    let mut bad = pkg.clone();
    if let Object::Tagged { props, .. } = &mut bad.objects[last] {
        props.find_mut(&names, "NumFrames").unwrap().value = Value::Int(i32::MAX);
    }
    let set = anim::anim_sets(&bad)[0].clone();
    let mut out = Vec::new();
    let Err(super::ExportError::Decode(e)) = super::export_set_to(&bad, &set, &mut out) else {
        panic!("a NumFrames of i32::MAX exports");
    };
    assert!(e.to_string().contains("exceeds"), "{e}");
    assert_eq!(e.path.to_string(), format!("objects[{last}]"));
    assert!(out.is_empty(), "{} bytes written", out.len());
    // Walk's rotation offset of track 0 past its stream: that error comes first.
    if let Object::Tagged { props, .. } = &mut bad.objects[first] {
        props
            .find_mut(&names, "CompressedTrackOffsets")
            .unwrap()
            .value = Value::Ints(vec![0, 5, 6000, 5, 144, 1, 156, 1, 168, 0, 168, 5]);
    }
    let set = anim::anim_sets(&bad)[0].clone();
    let e = super::export_set(&bad, &set).unwrap_err();
    assert_eq!(e.path.to_string(), format!("objects[{first}].tracks[0]"));
    assert!(e.to_string().contains("outside the 252-byte stream"), "{e}");
    // Untouched: the streamed bytes are the whole export's (UE Viewer's, see above).
    let set = &anim::anim_sets(&pkg)[0];
    let mut streamed = Vec::new();
    super::export_set_to(&pkg, set, &mut streamed).unwrap();
    assert_eq!(Some(streamed), corpus("plain/MyAnimSet.psa"));
}

/// The chunk header and key records both ways, with bytes from a real PSA
/// (`Carlos_StrafeLF90_2.psa` of psk_psa_py's tests): its ANIMHEAD header (UE Viewer's type
/// flag) and its first key (a -0.0 kept as its sign bit).
#[test]
fn record_tables() {
    use super::{ChunkHeader, Key};
    use crate::exact::F32;
    let mut id = [0u8; 20];
    id[..8].copy_from_slice(b"ANIMHEAD");
    crate::exact::record::both_ways(&[(
        ChunkHeader {
            chunk_id: id,
            type_flag: 20_100_422,
            data_size: 0,
            data_count: 0,
        },
        "414e494d48454144000000000000000000000000 46b53201 00000000 00000000",
    )]);
    crate::exact::record::both_ways(&[(
        Key {
            position: [F32(0xb580_0000), F32(0x38b0_8000), F32(0)],
            orientation: [F32(0xbf35_036a), F32(0x8000_0000), F32(0), F32(0xbf35_067c)],
            time: F32(0x3f80_0000),
        },
        "000080b5 0080b038 00000000 6a0335bf 00000080 00000000 7c0635bf 0000803f",
    )]);
}
