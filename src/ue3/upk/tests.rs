//! Corpus tests: the four container variants of `../shared/corpus/ue3/`.

use super::package::{self, Package};

pub(crate) fn corpus(rel: &str) -> Option<Vec<u8>> {
    crate::testing::corpus_file(&format!("ue3/{rel}"))
}

pub(crate) const VARIANTS: [&str; 4] = ["plain", "obf", "xor", "lzo"];

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_variant_round_trips_byte_for_byte() {
    for v in VARIANTS {
        let Some(data) = corpus(&format!("{v}/TestAnims.upk")) else {
            return;
        };
        let pkg = Package::read(&data).unwrap_or_else(|e| panic!("{v}: {e}"));
        let mut out = Vec::new();
        pkg.write(&mut out).unwrap();
        assert_eq!(out.len(), data.len(), "{v}");
        assert!(out == data, "{v}: rewritten bytes differ");
        assert_eq!(pkg.names.len(), 33);
        assert_eq!(pkg.exports.len(), 4);
        assert_eq!(pkg.gaps.len(), 0, "{v}: {:?}", pkg.gaps);
        let sizes: Vec<(i32, i32)> = pkg
            .exports
            .iter()
            .map(|e| (e.serial_offset, e.serial_size))
            .collect();
        assert_eq!(
            sizes,
            [(1249, 168), (1417, 492), (1909, 436), (2345, 416)],
            "{v}"
        );
        assert_eq!(pkg.whole_file_xor, v == "xor");
        assert_eq!(pkg.compressed.is_some(), v == "lzo");
    }
}

/// A package's bytes (the UE3 tests' one helper for it).
pub(crate) fn encode(p: &Package) -> Vec<u8> {
    let mut out = Vec::new();
    p.write(&mut out).unwrap();
    out
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_variant_round_trips_through_yaml() {
    for v in VARIANTS {
        let Some(data) = corpus(&format!("{v}/TestAnims.upk")) else {
            return;
        };
        let pkg = Package::read(&data).unwrap();
        let yaml = super::doc::to_yaml(&pkg).unwrap();
        let back = super::doc::from_yaml(&yaml).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert!(encode(&back) == data, "{v}: YAML round trip differs");
        assert_eq!(super::doc::to_yaml(&back).unwrap(), yaml);
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn decoded_keys_match_the_corpus_description() {
    let Some(data) = corpus("plain/TestAnims.upk") else {
        return;
    };
    let pkg = Package::read(&data).unwrap();
    let seq = super::anim::sequence(&pkg, 3, Some(3)).unwrap().unwrap();
    assert_eq!(seq.name, "idle");
    let (_, t) = super::anim::decode(&seq, super::anim::stream(&pkg, 3)).unwrap();
    let z: Vec<f32> = t[0].rotations.iter().map(|q| q[2]).collect();
    assert_eq!(z, [0.05, 0.1, 0.1, 0.1, 0.2]);
    assert_eq!(t[0].translations, [[0.0, 0.0, 0.0]]);
    assert_eq!(t[2].translations.len(), 0);
    assert_eq!(t[2].rotations.len(), 5);
    let run = super::anim::sequence(&pkg, 2, Some(3)).unwrap().unwrap();
    let (l, t) = super::anim::decode(&run, super::anim::stream(&pkg, 2)).unwrap();
    // Spec §7: track 0 rotation at 60, 24 + 5 × 6 = 54 bytes, then 2 padding bytes.
    assert_eq!(l[0].rot, 60..114);
    assert_eq!(l[0].pad, 114..116);
    assert_eq!(t[0].rotations[1][2], (0x8664_i32 - 32767) as f32 / 32767.0);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn editing_one_key_changes_only_that_sequence_in_place() {
    for v in VARIANTS {
        let Some(data) = corpus(&format!("{v}/TestAnims.upk")) else {
            return;
        };
        let pkg = Package::read(&data).unwrap();
        let yaml = super::doc::to_yaml(&pkg).unwrap();
        // run (Fixed48NoW), root, frame 2: z 0.0999… → 0.25.
        let mut doc: super::doc::UpkDocument = crate::yaml::from_str(&yaml).unwrap();
        let a = doc.objects[2].animation.as_mut().unwrap();
        assert_eq!(a.sequence.as_deref(), Some("run"));
        let keys = a.tracks[0].keys.as_mut().unwrap();
        keys[2].rotation =
            Some([0.0, 0.0, 0.25, (1.0f32 - 0.0625).sqrt()].map(crate::exact::F32::new));
        let edited = super::doc::from_doc(&doc).unwrap();
        let out = encode(&edited);
        if v == "lzo" {
            // Option U: written uncompressed.
            let plain = corpus("plain/TestAnims.upk").unwrap();
            assert_eq!(out.len(), plain.len());
            let back = Package::read(&out).unwrap();
            assert!(back.compressed.is_none());
            assert_eq!(back.summary.package_flags & package::FLAG_COMPRESSED, 0);
            continue;
        }
        assert_eq!(out.len(), data.len(), "{v}: same size in place");
        let mut plain_out = out.clone();
        let mut plain_in = data.clone();
        if v == "xor" {
            super::crypt::xor(&mut plain_out, 0);
            super::crypt::xor(&mut plain_in, 0);
        }
        let diff: Vec<usize> = (0..out.len())
            .filter(|&i| plain_out[i] != plain_in[i])
            .collect();
        // Only bytes of run's record (1909..2345) change: the new Uz of key 2 and the
        // recomputed mins/ranges of the track.
        assert!(
            diff.iter().all(|&i| (1909..2345).contains(&i)),
            "{v}: {diff:?}"
        );
        assert!(!diff.is_empty());
        let back = Package::read(&out).unwrap();
        let seq = super::anim::sequence(&back, 2, Some(3)).unwrap().unwrap();
        let (_, t) = super::anim::decode(&seq, super::anim::stream(&back, 2)).unwrap();
        assert_eq!(
            t[0].rotations[2][2],
            super::codec::fixed48_decode(super::codec::fixed48_encode(0.25) as u16)
        );
        let orig = super::anim::sequence(&pkg, 2, Some(3)).unwrap().unwrap();
        let (_, o) = super::anim::decode(&orig, super::anim::stream(&pkg, 2)).unwrap();
        assert_eq!(t[1..], o[1..]);
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn growing_a_track_shifts_later_objects_and_fixes_offsets() {
    for v in ["plain", "obf", "xor"] {
        let Some(data) = corpus(&format!("{v}/TestAnims.upk")) else {
            return;
        };
        let pkg = Package::read(&data).unwrap();
        let mut doc = super::doc::to_doc(&pkg).unwrap();
        let a = doc.objects[1].animation.as_mut().unwrap();
        assert_eq!(a.sequence.as_deref(), Some("walk"));
        // pelvis: 1 translation key → 5 distinct keys (the rotation stays 1 key).
        let k = a.tracks[1].keys.as_ref().unwrap()[0].rotation;
        a.tracks[1].keys = Some(
            (0..5)
                .map(|i| super::doc::KeyY {
                    translation: Some([i as f32, 10.0, 0.0].map(crate::exact::F32::new)),
                    rotation: k,
                })
                .collect(),
        );
        let out = encode(&super::doc::from_doc(&doc).unwrap());
        assert_eq!(out.len(), data.len() + 48, "{v}");
        let back = Package::read(&out).unwrap();
        let offs: Vec<(i32, i32)> = back
            .exports
            .iter()
            .map(|e| (e.serial_offset, e.serial_size))
            .collect();
        assert_eq!(
            offs,
            [(1249, 168), (1417, 540), (1957, 436), (2393, 416)],
            "{v}"
        );
        // The later objects are byte-identical, just moved.
        assert_eq!(back.objects[2..], pkg.objects[2..]);
        let seq = super::anim::sequence(&back, 1, Some(3)).unwrap().unwrap();
        assert_eq!(
            &seq.offsets[1..]
                .iter()
                .map(|o| o.trans_offset)
                .collect::<Vec<_>>(),
            &[144, 216]
        );
        let (_, t) = super::anim::decode(&seq, super::anim::stream(&back, 1)).unwrap();
        assert_eq!(t[1].translations[4], [4.0, 10.0, 0.0]);
        assert_eq!(
            crate::ue3::psa::export_set(&back, &super::anim::anim_sets(&back)[0])
                .unwrap()
                .len(),
            2464
        );
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_value_the_format_cannot_hold_names_its_path() {
    let Some(data) = corpus("plain/TestAnims.upk") else {
        return;
    };
    let pkg = Package::read(&data).unwrap();
    let mut doc = super::doc::to_doc(&pkg).unwrap();
    let a = doc.objects[2].animation.as_mut().unwrap();
    a.tracks[0].keys.as_mut().unwrap()[1].rotation =
        Some([f32::NAN, 0.0, 0.0, 1.0].map(crate::exact::F32::new));
    let e = super::doc::from_doc(&doc).unwrap_err();
    assert_eq!(
        e.path.to_string(),
        "objects[2].animation.tracks[0].keys[1].rotation"
    );
    assert!(e.message.contains("not finite"), "{e}");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn check_reports_the_zonly_reading() {
    let Some(data) = corpus("plain/TestAnims.upk") else {
        return;
    };
    let pkg = Package::read(&data).unwrap();
    let lines = super::anim::check(&pkg);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].contains("track 0 (root)") && lines[0].contains("12 value bytes = 3 values"));
    assert!(
        lines[0].ends_with(
            "fits UE Viewer's reading (inclusive run ends); largest |value| 0.2 ≤ 1: both value readings possible"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with("fits both readings (no runs)"),
        "{}",
        lines[1]
    );
}

/// Everything a user can run on a package: read, decode all tracks, YAML, PSA, write.
pub(crate) fn exercise(data: &[u8]) {
    super::fuzz_package(data);
    let Ok(pkg) = Package::read(data) else { return };
    let mut out = Vec::new();
    if pkg.write(&mut out).is_ok() {
        // A package that reads and writes must read back.
        assert!(Package::read(&out).is_ok());
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_truncation_is_a_clear_error() {
    for v in VARIANTS {
        let Some(data) = corpus(&format!("{v}/TestAnims.upk")) else {
            return;
        };
        for n in 0..data.len() {
            let r = Package::read(&data[..n]);
            assert!(r.is_err(), "{v}: a {n}-byte prefix was accepted");
            exercise(&data[..n]);
        }
    }
}

pub(crate) fn plain() -> Option<Vec<u8>> {
    corpus("plain/TestAnims.upk")
}

fn put(d: &mut [u8], at: usize, v: i32) {
    d[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn malformed_packages_give_errors_with_offset_and_path() {
    let Some(data) = plain() else { return };
    // Export 1's SerialSize (export table at 961, 68-byte entries, size at +32) past the file.
    let mut d = data.clone();
    put(&mut d, 961 + 68 + 32, 100_000);
    let e = Package::read(&d).unwrap_err();
    assert_eq!(e.path.to_string(), "exports[1].serial_offset");
    assert!(e.to_string().contains("past the end"), "{e}");
    // A bad name index in the first property of the AnimSet (record at 1249, NetIndex first).
    let mut d = data.clone();
    put(&mut d, 1253, 9999);
    let e = Package::read(&d).unwrap_err();
    assert_eq!(e.offset, 1253);
    assert_eq!(e.path.to_string(), "objects[0].properties[0]");
    // A huge name count.
    let mut d = data.clone();
    put(&mut d, 0x19, i32::MAX);
    let e = Package::read(&d).unwrap_err();
    assert_eq!(e.path.to_string(), "names");
    assert!(matches!(
        e.kind,
        crate::exact::DecodeErrorKind::CountTooLarge { .. }
    ));
    // A track offset past the stream: walk's CompressedTrackOffsets[2] (rot offset of track 0).
    let pkg = Package::read(&data).unwrap();
    let mut bad = pkg.clone();
    if let package::Object::Tagged { props, .. } = &mut bad.objects[1] {
        let names = pkg.name_texts.clone();
        let p = props.find_mut(&names, "CompressedTrackOffsets").unwrap();
        p.value = super::props::Value::Ints(vec![0, 5, 6000, 5, 144, 1, 156, 1, 168, 0, 168, 5]);
    }
    let seq = super::anim::sequence(&bad, 1, Some(3)).unwrap().unwrap();
    let e = super::anim::decode(&seq, super::anim::stream(&bad, 1)).unwrap_err();
    assert_eq!(e.path.to_string(), "tracks[0]");
    assert!(e.to_string().contains("outside the 252-byte stream"), "{e}");
    // Huge NumFrames: the PSA export refuses instead of allocating.
    let mut huge = pkg.clone();
    if let package::Object::Tagged { props, .. } = &mut huge.objects[1] {
        let names = pkg.name_texts.clone();
        props.find_mut(&names, "NumFrames").unwrap().value = super::props::Value::Int(i32::MAX);
    }
    let e = crate::ue3::psa::export_set(&huge, &super::anim::anim_sets(&huge)[0]).unwrap_err();
    assert!(e.to_string().contains("exceeds"), "{e}");
    // A wrong NumBytes.
    let mut d = data.clone();
    put(&mut d, 1417 + 492 - 252 - 4, 9);
    let p = Package::read(&d).unwrap();
    let e = super::anim::sequence(&p, 1, Some(3)).unwrap_err();
    assert!(e.to_string().contains("NumBytes"), "{e}");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn corrupt_lzo_data_is_an_error() {
    let Some(data) = corpus("lzo/TestAnims.upk") else {
        return;
    };
    let mut d = data.clone();
    // Compressed data begins after the 125-byte summary, 16-byte chunk header and one block record.
    for b in d[125 + 24..].iter_mut().step_by(5) {
        *b ^= 0x5A;
    }
    assert!(Package::read(&d).is_err());
}

/// One-byte edits of the corpus's LZO block that made the `lzokay-native` decoder panic (index
/// out of bounds; found by trying every byte of the block with a few values): a clean error
/// naming the block's offset (149: after the 109-byte summary, the 16-byte chunk header and the
/// 8-byte block record... 125 + 24) and what is wrong, never a panic.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn lzo_blocks_that_panicked_the_old_decoder_are_errors() {
    let Some(data) = corpus("lzo/TestAnims.upk") else {
        return;
    };
    for (at, value, why) in [
        (
            0,
            0x40,
            "a match refers to bytes before the start of the block",
        ),
        (
            1008,
            0x20,
            "the block decompresses to more than its stated 2652 bytes",
        ),
    ] {
        let mut d = data.clone();
        d[149 + at] = value;
        let e = Package::read(&d).unwrap_err();
        assert_eq!(e.offset, 149, "{e}");
        let text = e.to_string();
        assert!(
            text.contains(&format!("LZO block (1100 bytes) is corrupt: {why}")),
            "{text}"
        );
        assert!(text.contains("chunks[0]"), "{text}");
    }
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Mutated corpus packages never panic anywhere in the pipeline, and each one is either
        /// refused with an error at an offset inside the file or rewritten byte for byte (binary
        /// and through YAML), as the MW3, MAN and VDF properties check.
        #[test]
        #[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
        fn mutated_packages_never_panic(variant in 0usize..4, flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
            let Some(mut data) = corpus(&format!("{}/TestAnims.upk", VARIANTS[variant])) else { return Ok(()) };
            for (at, v) in flips {
                let n = data.len();
                data[at % n] = v;
            }
            prop_assert_eq!(super::super::fuzz_round_trip(&data), Ok(()));
        }

        /// Mutated YAML documents never panic the importer or the writer.
        #[test]
        #[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
        fn mutated_documents_never_panic(variant in 0usize..4, edits in proptest::collection::vec((any::<usize>(), 0u8..16), 1..4)) {
            let Some(data) = corpus(&format!("{}/TestAnims.upk", VARIANTS[variant])) else { return Ok(()) };
            let yaml = super::super::doc::to_yaml(&Package::read(&data).unwrap()).unwrap();
            let mut b = yaml.into_bytes();
            for (at, d) in edits {
                let n = b.len();
                // Digits and signs: keeps most documents parseable, so values get exercised.
                b[at % n] = b"0123456789-.,#x "[d as usize];
            }
            // Every byte written is ASCII, so the text stays UTF-8.
            let text = String::from_utf8(b).unwrap();
            match super::super::doc::from_yaml(&text) {
                // Refused: a YAML error at a line, or a value error naming its field (or the
                // document header).
                Err(crate::exact::ImportError::Yaml(e)) => prop_assert!(e.line.is_some(), "{e}"),
                Err(crate::exact::ImportError::Encode(e)) => prop_assert!(
                    !e.path.is_empty() || e.message.contains("version") || e.message.contains("format"),
                    "{e}"
                ),
                // (a text is never refused as such once it is a `str`)
                Err(e @ crate::exact::ImportError::Text(_)) => prop_assert!(false, "{e}"),
                Ok(p) => {
                    let mut out = Vec::new();
                    match p.write(&mut out) {
                        Err(e) => prop_assert!(!e.message.is_empty()),
                        // Accepted: what was written is a package that rewrites exactly.
                        Ok(()) => prop_assert_eq!(super::super::fuzz_round_trip(&out), Ok(())),
                    }
                }
            }
        }

        /// Random streams and offsets never panic the track decoder.
        #[test]
        fn random_tracks_never_panic(stream in proptest::collection::vec(any::<u8>(), 0..200),
                                     offs in proptest::collection::vec(-4i32..220, 4),
                                     f in 0usize..8) {
            super::super::fuzz_track(&stream, &offs, f);
        }

        /// Float96NoW and Fixed48NoW: decode → encode → decode is stable on random unit quats.
        #[test]
        fn codecs_are_stable(a in -1.0f32..1.0, b in -1.0f32..1.0, c in -1.0f32..1.0, w in 0.0f32..1.0, f in 0usize..8) {
            let n = (a * a + b * b + c * c + w * w).sqrt();
            prop_assume!(n > 0.1);
            let q = [a / n, b / n, c / n, w / n];
            let keys = vec![q, [0.0, 0.0, 0.0, 1.0], q];
            let fmt = super::super::codec::RotFormat::ALL[f];
            let dec = |k: &[super::super::codec::Quat]| {
                let mut out = Vec::new();
                super::super::codec::encode_rotations(k, fmt, &mut out).unwrap();
                let o = super::super::codec::TrackOffsets { rot_keys: k.len() as i32, ..Default::default() };
                let l = super::super::codec::layout(&out, 0, &o, fmt).unwrap();
                (out.clone(), super::super::codec::decode_rotations(&out, &l, k.len(), fmt))
            };
            let (_, once) = dec(&keys);
            let (bytes1, twice) = dec(&once);
            let (bytes2, _) = dec(&twice);
            prop_assert_eq!(once.len(), keys.len());
            prop_assert_eq!(twice.len(), keys.len());
            if fmt != super::super::codec::RotFormat::IntervalFixed32NoW {
                prop_assert_eq!(&bytes1, &bytes2);
                let bits = |v: &[super::super::codec::Quat]| v.iter().flat_map(|q| q.map(f32::to_bits)).collect::<Vec<_>>();
                prop_assert_eq!(bits(&once), bits(&twice));
            } else {
                // Its mins and ranges are recomputed from the decoded keys on each pass, so the
                // bytes may move by a step; x, y, z drift by less than one quantisation step of
                // the widest range (10 bits over at most 2). (W follows from them, amplified
                // where it is near 0.)
                for (p, q) in once.iter().zip(&twice) {
                    for (x, y) in p[..3].iter().zip(&q[..3]) {
                        prop_assert!((x - y).abs() < 2.0 / 1023.0 + 1e-6, "{x} vs {y} ({fmt:?})");
                    }
                }
            }
        }
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn re_encoding_every_corpus_track_reproduces_its_bytes() {
    let Some(data) = plain() else { return };
    let pkg = Package::read(&data).unwrap();
    for si in 1..4 {
        let q = super::anim::sequence(&pkg, si, Some(3)).unwrap().unwrap();
        let stream = super::anim::stream(&pkg, si);
        let (layouts, tracks) = super::anim::decode(&q, stream).unwrap();
        let edits: Vec<super::anim::TrackEdit> = tracks
            .iter()
            .map(|t| super::anim::TrackEdit {
                translations: Some(t.translations.clone()),
                // A part of several identical keys re-encodes as one key (spec §4.9), unlike
                // the corpus (idle's spine has 5 equal keys): keep those raw here.
                rotations: (t.rotations.len() < 2
                    || t.rotations.iter().any(|q| *q != t.rotations[0]))
                .then(|| t.rotations.clone()),
            })
            .collect();
        let (mut s, offs) =
            super::anim::rebuild(stream, &layouts, &q.offsets, &edits, q.rotation_format).unwrap();
        assert_eq!(offs, q.offsets, "{}", q.name);
        if q.rotation_format == super::codec::RotFormat::Fixed48NoW {
            // The codes re-encode to themselves, but the encoder computed Mins/Ranges from the
            // unquantised keys: recomputed from the decoded keys they differ in the last bits.
            for (l, o) in layouts.iter().zip(&q.offsets) {
                if o.rot_keys > 1 {
                    let r = l.rot.start..l.rot.start + 24;
                    assert_ne!(s[r.clone()], stream[r.clone()]);
                    s[r.clone()].copy_from_slice(&stream[r]);
                }
            }
        }
        let diff: Vec<(usize, u8, u8)> = (0..s.len().min(stream.len()))
            .filter(|&i| s[i] != stream[i])
            .map(|i| (i, stream[i], s[i]))
            .collect();
        assert!(
            s == stream,
            "{}: re-encoded stream differs: {diff:?}",
            q.name
        );
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn an_undecodable_sequence_still_round_trips_through_yaml() {
    let Some(data) = plain() else { return };
    let mut d = data.clone();
    // walk's CompressedTrackOffsets[2] (track 0 rot offset, 60) → 6000. The array starts after
    // SequenceName (32), SequenceLength (28), NumFrames (28), RotationCompressionFormat (32)
    // tags and its own 24-byte tag + count: 1417 + 4 + 120 + 24 + 4 = 1569; entry 2 at +8.
    assert_eq!(&d[1577..1581], &60i32.to_le_bytes());
    put(&mut d, 1577, 6000);
    let pkg = Package::read(&d).unwrap();
    let doc = super::doc::to_doc(&pkg).unwrap();
    assert!(doc.objects[1].animation.is_none());
    let why = doc.objects[1].not_decoded.as_deref().unwrap();
    assert!(why.contains("rotation offset 6000 is outside"), "{why}");
    let yaml = super::doc::to_yaml(&pkg).unwrap();
    assert!(encode(&super::doc::from_yaml(&yaml).unwrap()) == d);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_text_edit_of_the_yaml_changes_only_that_key() {
    let Some(data) = plain() else { return };
    let pkg = Package::read(&data).unwrap();
    let yaml = super::doc::to_yaml(&pkg).unwrap();
    let from = "{translation: [4.0, 2.0, 3.0], rotation: [0.0, 0.0, 0.19866933, 0.9800666]}";
    assert!(yaml.contains(from));
    let edited = yaml.replacen(
        from,
        "{translation: [4.0, 2.5, 3.0], rotation: [0.0, 0.0, 0.5, 0.8660254]}",
        1,
    );
    let out = encode(&super::doc::from_yaml(&edited).unwrap());
    assert_eq!(out.len(), data.len());
    let diff: Vec<usize> = (0..out.len()).filter(|&i| out[i] != data[i]).collect();
    // walk's stream starts at 1417 + 492 - 252 = 1657: translation key 4 Y at +52, rotation
    // key 4 Z at +60 (track 0 rotation) + 24 + 4·12 + 8 = +140, and the Z range at +80.
    let rel: Vec<usize> = diff.iter().map(|&i| i - 1657).collect();
    assert!(
        rel.iter()
            .all(|&r| (52..56).contains(&r) || (140..144).contains(&r) || (80..84).contains(&r)),
        "{rel:?}"
    );
    let back = Package::read(&out).unwrap();
    let q = super::anim::sequence(&back, 1, Some(3)).unwrap().unwrap();
    let (_, t) = super::anim::decode(&q, super::anim::stream(&back, 1)).unwrap();
    assert_eq!(t[0].translations[4], [4.0, 2.5, 3.0]);
    assert_eq!(t[0].rotations[4][2], 0.5);
}

/// The lzo corpus file turned into CompressionFlags 8 (per-block XOR), optionally also
/// whole-file XOR'd: every layer combination the corpus does not ship.
fn lzo_xor_variant(whole_file: bool) -> Option<Vec<u8>> {
    let mut d = corpus("lzo/TestAnims.upk")?;
    assert_eq!(&d[0x5D..0x61], &2u32.to_le_bytes());
    d[0x5D..0x61].copy_from_slice(&8u32.to_le_bytes());
    let csize = i32::from_le_bytes(d[125 + 8..125 + 12].try_into().unwrap()) as usize;
    assert!(csize >= 32);
    super::crypt::xor(&mut d[149..149 + csize], 0);
    if whole_file {
        super::crypt::xor(&mut d, 0);
    }
    Some(d)
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn lzo_with_block_xor_and_whole_file_xor_read_and_round_trip() {
    let Some(plain) = plain() else { return };
    let want = Package::read(&plain).unwrap();
    for whole in [false, true] {
        let Some(d) = lzo_xor_variant(whole) else {
            return;
        };
        let p = Package::read(&d).unwrap();
        assert_eq!(p.summary.compression_flags, 8);
        assert_eq!(p.whole_file_xor, whole);
        assert_eq!(p.objects, want.objects);
        assert!(encode(&p) == d);
        let y = super::doc::from_yaml(&super::doc::to_yaml(&p).unwrap()).unwrap();
        assert!(encode(&y) == d);
        let set = &super::anim::anim_sets(&p)[0];
        assert!(
            Some(crate::ue3::psa::export_set(&p, set).unwrap()) == corpus("plain/MyAnimSet.psa")
        );
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_hand_edited_layout_with_a_huge_hole_is_refused() {
    let Some(data) = plain() else { return };
    let mut doc = super::doc::to_doc(&Package::read(&data).unwrap()).unwrap();
    doc.exports[3].serial_offset = 1 << 30;
    let e = super::doc::from_doc(&doc)
        .unwrap()
        .write(&mut Vec::new())
        .unwrap_err();
    assert!(e.message.contains("uncovered"), "{e}");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn the_document_keeps_original_bytes_only_where_keys_cannot_reproduce_them() {
    let Some(data) = plain() else { return };
    let doc = super::doc::to_doc(&Package::read(&data).unwrap()).unwrap();
    let anim = |i: usize| doc.objects[i].animation.as_ref().unwrap();
    // walk (Float96NoW): keys alone reproduce the stream.
    assert!(anim(1).stream.is_none());
    assert!(anim(1).tracks.iter().all(|t| t.mins_ranges.is_none()));
    // run (Fixed48NoW): only the Mins/Ranges of the two 5-key tracks differ.
    assert!(anim(2).stream.is_none());
    let mr: Vec<Option<Vec<f32>>> = anim(2)
        .tracks
        .iter()
        .map(|t| t.mins_ranges.map(|m| m.iter().map(|f| f.get()).collect()))
        .collect();
    assert_eq!(mr[0], Some(vec![0.0, 0.0, 0.0, 1.0, 1.0, 0.19866933]));
    assert_eq!(mr[1], None);
    assert_eq!(
        mr[2],
        Some(vec![0.0, -0.38941833, 0.0, 1.0, 0.38941833, 1.0])
    );
    // idle (ZOnlyRLE): spine stores 5 equal values without a run, which animkit's encoder
    // would write as one key: the stream is kept.
    assert_eq!(anim(3).stream.as_ref().map(|b| b.len()), Some(176));
}

/// Issue 11 item 3: a zero or far-from-unit rotation is refused with the key's path instead of
/// becoming identity (or being normalised) silently.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_rotation_far_from_unit_length_is_refused_with_the_keys_path() {
    let Some(data) = plain() else { return };
    let pkg = Package::read(&data).unwrap();
    for (q, what) in [
        ([0.0f32, 0.0, 0.0, 0.0], "|q| = 0"),
        ([0.0, 0.0, 0.5, 0.5], "|q| = 0.707"),
        ([0.0, 0.0, 1.2, 1.0], "|q| = 1.56"),
    ] {
        // walk (Float96NoW, stream not kept) and idle (ZOnlyRLE, stream kept).
        for obj in [1, 3] {
            let mut doc = super::doc::to_doc(&pkg).unwrap();
            let a = doc.objects[obj].animation.as_mut().unwrap();
            a.tracks[0].keys.as_mut().unwrap()[1].rotation = Some(q.map(crate::exact::F32::new));
            let e = super::doc::from_doc(&doc).unwrap_err();
            assert_eq!(
                e.path.to_string(),
                format!("objects[{obj}].animation.tracks[0].keys[1].rotation"),
                "{q:?}"
            );
            assert!(
                e.message.contains("not a unit quaternion") && e.message.contains(what),
                "{}",
                e.message
            );
        }
    }
    // A key typed with a few decimals is accepted and keeps its rotation.
    let mut doc = super::doc::to_doc(&pkg).unwrap();
    let a = doc.objects[1].animation.as_mut().unwrap();
    a.tracks[0].keys.as_mut().unwrap()[1].rotation =
        Some([0.0f32, 0.0, 0.6, 0.8001].map(crate::exact::F32::new));
    let back = Package::read(&encode(&super::doc::from_doc(&doc).unwrap())).unwrap();
    let q = super::anim::sequence(&back, 1, Some(3)).unwrap().unwrap();
    let (_, t) = super::anim::decode(&q, super::anim::stream(&back, 1)).unwrap();
    let r = t[0].rotations[1];
    let n = (0.36f32 + 0.8001 * 0.8001).sqrt();
    assert!((r[2] - 0.6 / n).abs() < 1e-6, "{r:?}");
    assert!((r[3] - 0.8001 / n).abs() < 1e-6, "{r:?}");
}

/// Issue 11 item 1: the animation block's sequence / frames / length / rate /
/// translation_format are derived from the properties; an edit of one is refused naming the
/// property to edit, instead of being dropped while import reports success.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn an_edit_of_a_derived_animation_field_is_refused_naming_the_property() {
    let Some(data) = plain() else { return };
    let pkg = Package::read(&data).unwrap();
    let yaml = super::doc::to_yaml(&pkg).unwrap();
    for (field, from, to, prop, derived) in [
        ("rate", "rate: 30.0", "rate: 15.0", "SequenceLength", "30.0"),
        (
            "length",
            "length: 0.16666667",
            "length: 0.5",
            "SequenceLength",
            "0.16666667",
        ),
        ("frames", "frames: 5", "frames: 10", "NumFrames", "5"),
        (
            "sequence",
            "sequence: walk",
            "sequence: sprint",
            "SequenceName",
            "walk",
        ),
        (
            "translation_format",
            "translation_format: ACF_None",
            "translation_format: ACF_Fixed48NoW",
            "TranslationCompressionFormat",
            "ACF_None",
        ),
    ] {
        assert!(yaml.contains(from), "{from}");
        let e = super::doc::from_yaml(&yaml.replacen(from, to, 1))
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("objects[1].animation.{field}"))
                && e.contains(prop)
                && e.contains(derived)
                && e.contains("derived"),
            "{field}: {e}"
        );
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_property_edit_with_the_derived_lines_deleted_or_updated_is_honoured() {
    let Some(data) = plain() else { return };
    let pkg = Package::read(&data).unwrap();
    let yaml = super::doc::to_yaml(&pkg).unwrap();
    // walk's SequenceLength 5/30 → 10/30 (rate 30 → 15).
    let from = "{prop: SequenceLength, type: FloatProperty, float: 0.16666667}";
    assert_eq!(yaml.matches(from).count(), 3);
    let edited = yaml.replacen(
        from,
        "{prop: SequenceLength, type: FloatProperty, float: 0.33333334}",
        1,
    );
    // Left as exported, the derived lines now disagree: refused, saying what they should be.
    let e = super::doc::from_yaml(&edited).unwrap_err().to_string();
    assert!(
        e.contains("objects[1].animation.length") && e.contains("0.33333334"),
        "{e}"
    );
    // Updated (or deleted), the edit goes through.
    let updated = edited
        .replacen("length: 0.16666667", "length: 0.33333334", 1)
        .replacen("rate: 30.0", "rate: 15.0", 1);
    let deleted: String = edited
        .lines()
        .enumerate()
        .filter(|(i, l)| {
            let first_anim = edited
                .lines()
                .position(|l| l.trim() == "animation:")
                .unwrap();
            !(*i > first_anim
                && *i < first_anim + 6
                && (l.trim().starts_with("length:") || l.trim().starts_with("rate:")))
        })
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    for text in [updated, deleted] {
        let back = Package::read(&encode(&super::doc::from_yaml(&text).unwrap())).unwrap();
        let q = super::anim::sequence(&back, 1, Some(3)).unwrap().unwrap();
        assert_eq!(q.length, 0.33333334);
        assert_eq!(q.num_frames as f32 / q.length, 15.0);
    }
}

/// Issue 11 item 13: damaged sequences (kept as raw bytes, or with a NumFrames no PSA can hold)
/// are errors of `check`, with the offset and field path.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn check_reports_damaged_sequences_as_errors_with_offset_and_path() {
    use crate::codec::{Codec, Severity};
    let Some(data) = plain() else { return };
    let errors = |d: &[u8]| -> Vec<String> {
        Package::read(d)
            .unwrap()
            .check(&Default::default())
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.to_string())
            .collect()
    };
    assert!(errors(&data).is_empty());
    // walk: track 0's rotation offset (60) → 6000, past the 252-byte stream at 1657.
    let mut d = data.clone();
    put(&mut d, 1577, 6000);
    let e = errors(&d);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("error: objects[1].tracks[0]: AnimSequence_0 (walk) cannot be decoded at byte offset 1657")
            && e[0].contains("rotation offset 6000 is outside the 252-byte stream")
            && e[0].contains("kept as raw bytes"),
        "{}",
        e[0]
    );
    // idle: track 0's ZOnlyRLE run (1, 3) → (1, 9), past its 5 keys. idle's stream starts at
    // 2345 + 416 − 176 = 2585; the track's rotation at 12, its pair at +32.
    let mut d = data.clone();
    assert_eq!(&d[2585 + 12 + 32..2585 + 12 + 36], &[1, 0, 3, 0]);
    d[2585 + 12 + 34] = 9;
    let e = errors(&d);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("error: objects[3].tracks[0]: AnimSequence_2 (idle) cannot be decoded")
            && e[0].contains("runs expand past the 5 keys"),
        "{}",
        e[0]
    );
    // run: NumFrames 5 → 2^30: no PSA can hold it (walk's NumFrames value at 1417 + 4 + 32 +
    // 28 + 24 in run's record 1909).
    let mut d = data.clone();
    let at = 1909 + 4 + 32 + 28 + 24;
    assert_eq!(&d[at..at + 4], &5i32.to_le_bytes());
    put(&mut d, at, 1 << 30);
    let e = errors(&d);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with(
            "error: objects[2].properties[2].value: AnimSequence_1 (run): NumFrames 1073741824 \
             at byte offset 1997 (0x7cd) is more than any PSA holds"
        ) && e[0].contains("5 keys"),
        "{}",
        e[0]
    );
}

/// Issue 11 item 10: `diff` names what changed with old → new values, as the YAML shows them.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn diff_names_properties_summary_fields_and_keys_with_old_and_new_values() {
    use crate::codec::Codec;
    let Some(data) = plain() else { return };
    let pkg = Package::read(&data).unwrap();
    let yaml = super::doc::to_yaml(&pkg).unwrap();
    // A property edit (walk's SequenceLength; derived lines updated).
    let edited = yaml
        .replacen(
            "{prop: SequenceLength, type: FloatProperty, float: 0.16666667}",
            "{prop: SequenceLength, type: FloatProperty, float: 0.33333334}",
            1,
        )
        .replacen("length: 0.16666667", "length: 0.33333334", 1)
        .replacen("rate: 30.0", "rate: 15.0", 1);
    let b = super::doc::from_yaml(&edited).unwrap();
    assert_eq!(
        pkg.diff(&b),
        ["objects[1] (AnimSequence_0 = walk): SequenceLength: 0.16666667 → 0.33333334"]
    );
    // A key edit.
    let from = "{translation: [4.0, 2.0, 3.0], rotation: [0.0, 0.0, 0.19866933, 0.9800666]}";
    let b = super::doc::from_yaml(&yaml.replacen(
        from,
        "{translation: [4.0, 2.5, 3.0], rotation: [0.0, 0.0, 0.19866933, 0.9800666]}",
        1,
    ))
    .unwrap();
    assert_eq!(
        pkg.diff(&b),
        ["objects[1] (AnimSequence_0 = walk): animation.tracks[0] (root): key 4 translation: [4.0, 2.0, 3.0] → [4.0, 2.5, 3.0]"]
    );
    // The summary and the export table of another container form.
    let Some(obf) = corpus("obf/TestAnims.upk") else {
        return;
    };
    let lines = pkg.diff(&Package::read(&obf).unwrap());
    assert_eq!(
        lines,
        ["summary.package_flags: 0x00000008 → 0x08000008"],
        "export pointers are shown de-obfuscated, so only the flag differs"
    );
}

/// A summary cut off inside a field is reported at that field's first byte with its path
/// (the summary's fixed runs and Generations entries are deku records; the field lists that
/// name a cut are checked against their declarations in `package::tests`).
#[test]
fn a_cut_off_summary_names_the_field_it_ends_in() {
    use crate::exact::DecodeErrorKind;
    let data = super::synth::synthetic(1, 2, 3);
    let folder_len = i32::from_le_bytes(data[12..16].try_into().unwrap());
    assert!(
        folder_len > 0,
        "the generated package's folder name is ANSI"
    );
    let tables = 16 + folder_len as usize; // PackageFlags
    let gens = tables + 48; // Generations count
    let cases = [
        (10, 8, "summary.headers_size", 4, 2),
        (5, 4, "summary.file_version", 2, 1),
        (tables + 6, tables + 4, "summary.name_count", 4, 2),
        (tables + 40, tables + 32, "summary.guid", 16, 8),
        (gens + 2, gens, "summary.generations", 4, 2),
        (
            gens + 4 + 12 + 9,
            gens + 4 + 12 + 8,
            "summary.compression_flags",
            4,
            1,
        ),
    ];
    for (cut, at, path, need, have) in cases {
        let e = Package::read(&data[..cut]).unwrap_err();
        assert_eq!(
            (e.offset, e.path.to_string(), e.kind.clone()),
            (
                at as u64,
                path.to_string(),
                DecodeErrorKind::Truncated { need, have }
            ),
            "cut at {cut}: {e}"
        );
    }
    // Cut inside Generations[0]: its count already says the entry cannot fit.
    let e = Package::read(&data[..gens + 4 + 5]).unwrap_err();
    assert_eq!(
        (e.offset, e.path.to_string(), e.kind),
        (
            gens as u64 + 4,
            "summary.generations".to_string(),
            DecodeErrorKind::CountTooLarge {
                count: 1,
                need: 12,
                have: 5
            }
        )
    );
    // A file of another kind is called that, even when short.
    let e = Package::read(b"PK\x03\x04\x00").unwrap_err();
    assert_eq!(e.path.to_string(), "summary.tag");
    assert!(e.to_string().contains("is not a UE3 package"), "{e}");
}

/// An impossible NumFrames (2,000,000,000 frames, tracks of 2 keys) is damage that names the
/// property and the byte offset of its value, like every other bad-package report; the bytes
/// at that offset are the value.
#[test]
fn an_impossible_num_frames_names_the_property_and_its_offset() {
    let q = super::synth::SeqSpec {
        name: "huge".into(),
        format: super::codec::RotFormat::Float96NoW,
        frames: 2_000_000_000,
        length: 2.0 / 30.0,
        rate_scale: None,
        tracks: vec![(vec![], vec![[0.0, 0.0, 0.0, 1.0]; 2]); 2],
    };
    let data = super::synth::package("Set", &["a", "b"], &[q]).unwrap();
    let pkg = Package::read(&data).unwrap();
    let d = super::anim::damaged(&pkg);
    assert_eq!(d.len(), 1, "{d:?}");
    let m = regex_lite_offset(&d[0].message);
    assert_eq!(
        i32::from_le_bytes(data[m..m + 4].try_into().unwrap()),
        2_000_000_000
    );
    assert!(
        d[0].path.starts_with("objects[") && d[0].path.ends_with("].value"),
        "{}",
        d[0].path
    );
    assert!(
        d[0].message
            .contains("NumFrames 2000000000 at byte offset ")
            && d[0].message.contains("is more than any PSA holds"),
        "{}",
        d[0].message
    );
}

/// The N of "at byte offset N (0x…)" in a message.
fn regex_lite_offset(message: &str) -> usize {
    let rest = &message[message.find("at byte offset ").unwrap() + 15..];
    rest[..rest.find(' ').unwrap()].parse().unwrap()
}
