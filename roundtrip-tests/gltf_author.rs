//! Authoring in Blender (issue 26 §3, §4): a new animation made from a glTF animation
//! (`gltf import --new`), alone or added to a model and its script; a whole model with
//! animations at 25 and 10 fps through the real Blender at any scene rate.

use crate::common::run;
use crate::gltf::{ok, s, sample};
use crate::gltf_blender::{blender, blender_roundtrip};
use animkit::zengin::man::Man;
use std::path::Path;

fn read_man(p: &Path) -> Man {
    Man::read(&std::fs::read(p).unwrap()).unwrap()
}

/// HUMAN-S_WALKL's motion through Blender becomes the new S_MYWALK: the engine's header (the
/// MDH's checksum, the 23 nodes that leave the rest pose, the range of their positions, no
/// events), `verify` and `check --mdh` pass, its codes are within the engine's truncation of
/// the walk's, and it comes back from Blender byte-identical.
#[test]
#[cfg_attr(
    missing = "blender",
    ignore = "needs Blender (apt-get install blender python3-numpy)"
)]
fn a_new_animation_from_blender_is_the_engines_and_plays_back_identically() {
    let Some(exe) = blender() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mdh = sample("HUMAN.MDH");
    ok(
        d,
        &[
            "gltf",
            "export",
            s(&sample("HUMAN-S_WALKL.MAN")),
            "--mdh",
            s(&mdh),
            "-o",
            "walk.glb",
        ],
    );
    blender_roundtrip(&exe, &d.join("walk.glb"), &d.join("blender.glb"), 25, None);
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            "blender.glb",
            "--new",
            "S_MYWALK",
            "--mdh",
            s(&mdh),
            "-o",
            "HUMAN-S_MYWALK.MAN",
        ],
    );
    assert!(
        err.contains("32 frames at 25 fps, 23 nodes animated"),
        "{err}"
    );
    assert!(
        err.contains("left out: BIP01 L CLAVICLE, BIP01 R CLAVICLE, ZS_HELMET"),
        "{err}"
    );
    ok(d, &["verify", "HUMAN-S_MYWALK.MAN"]);
    let (code, check, _) = run(d, &["check", "HUMAN-S_MYWALK.MAN", "--mdh", s(&mdh)]);
    assert_eq!(code, 0);
    assert!(
        check.contains("ok (zengin.man): 0 errors, 0 warnings"),
        "{check}"
    );
    let new = read_man(&d.join("HUMAN-S_MYWALK.MAN"));
    let walk = read_man(&sample("HUMAN-S_WALKL.MAN"));
    let (h, hw) = (new.header().unwrap(), walk.header().unwrap());
    assert_eq!(h.name.as_bytes(), b"S_MYWALK");
    assert_eq!((h.frame_count, h.node_count, h.layer), (32, 23, 1));
    assert_eq!((h.fps.get(), h.fps_source.get()), (25.0, 25.0));
    assert_eq!(h.next.as_bytes(), b"");
    assert!(new.events().is_empty());
    let (sn, sw) = (new.samples().unwrap(), walk.samples().unwrap());
    assert_eq!(sn.checksum.0, 0x5eaf502f);
    assert_eq!(
        sn.node_indices,
        [0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24, 25]
    );
    // The position range is the engine's: min and max of the decoded walk's positions of
    // these nodes (the same motion), within a step of the walk's quantisation.
    let dec_w = walk.decode_samples();
    let nw = sw.node_indices.len();
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for f in 0..32 {
        for (k, idx) in sw.node_indices.iter().enumerate() {
            if sn.node_indices.contains(idx) {
                let p = dec_w[f * nw + k].1;
                lo = lo.min(p.min_element());
                hi = hi.max(p.max_element());
            }
        }
    }
    let step = hw.position_scale.get();
    assert!(
        (h.position_min.get() - lo).abs() <= step,
        "{} vs {lo}",
        h.position_min.get()
    );
    let top = h.position_min.get() + 65535.0 * h.position_scale.get();
    assert!((top - hi).abs() <= 2.0 * step, "{top} vs {hi}");
    // Every sample: the walk's motion, truncated as the engine does (within one rotation
    // step and one step of either position range).
    let dec_n = new.decode_samples();
    let nn = sn.node_indices.len();
    let rot_step = animkit::zengin::man::quant::ROT_SCALE;
    for f in 0..32 {
        for (k, idx) in sn.node_indices.iter().enumerate() {
            let kw = sw.node_indices.iter().position(|i| i == idx).unwrap();
            let (qn, pn) = dec_n[f * nn + k];
            let (qw, pw) = dec_w[f * nw + kw];
            let (vn, vw) = (glam::Vec4::from(qn), glam::Vec4::from(qw));
            // x, y, z are stored (w follows from them).
            let dq = (vn - vw)
                .truncate()
                .abs()
                .max_element()
                .min((vn + vw).truncate().abs().max_element());
            assert!(
                dq <= 1.5 * rot_step,
                "frame {f} node {idx}: {qn:?} vs {qw:?}"
            );
            let dp = (pn - pw).abs().max_element();
            assert!(
                dp <= 1.5 * (step + h.position_scale.get()),
                "frame {f} node {idx}: {pn} vs {pw}"
            );
        }
    }
    // Its own loop through Blender gives its bytes back.
    ok(
        d,
        &[
            "gltf",
            "export",
            "HUMAN-S_MYWALK.MAN",
            "--mdh",
            s(&mdh),
            "-o",
            "new.glb",
        ],
    );
    blender_roundtrip(
        &exe,
        &d.join("new.glb"),
        &d.join("new-blender.glb"),
        25,
        None,
    );
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            "new-blender.glb",
            "--into",
            "HUMAN-S_MYWALK.MAN",
            "--mdh",
            s(&mdh),
            "-o",
            "BACK.MAN",
        ],
    );
    assert!(err.contains(" 0 samples changed"), "{err}");
    assert_eq!(
        std::fs::read(d.join("BACK.MAN")).unwrap(),
        std::fs::read(d.join("HUMAN-S_MYWALK.MAN")).unwrap()
    );
}

/// `--new` into a model script (MDS text and compiled MSB) and into a folder: the MAN beside
/// the MDH, the `ani` line in the script (the original kept as `.bak`), a second one of the
/// same name refused with nothing written.
#[test]
fn a_new_animation_joins_the_model_and_its_script() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "gltf",
            "export",
            s(&sample("IDLE.MAN")),
            "--mdh",
            s(&sample("SAMPLE.MDH")),
            "-o",
            "idle.glb",
        ],
    );
    for (sub, script) in [
        ("mds", "SAMPLE.MDS"),
        ("msb", "SAMPLE.MSB"),
        ("folder", "SAMPLE.MDS"),
    ] {
        let m = d.join(sub);
        std::fs::create_dir(&m).unwrap();
        std::fs::copy(sample("SAMPLE.MDH"), m.join("SAMPLE.MDH")).unwrap();
        std::fs::copy(sample(script), m.join(script)).unwrap();
        let into = if sub == "folder" {
            m.clone()
        } else {
            m.join(script)
        };
        let err = ok(
            d,
            &[
                "gltf",
                "import",
                "idle.glb",
                "--new",
                "s_wave",
                "--into",
                s(&into),
                "--next",
                "S_IDLE",
                "--blend-in",
                "0.2",
            ],
        );
        // The sample's root moves: flags M. by default.
        let line = "ani (\"S_WAVE\" 1 \"S_IDLE\" 0.2 0.1 M. \"S_WAVE.ASC\" F 0 9)";
        assert!(err.contains(line), "{err}");
        let man = read_man(&m.join("SAMPLE-S_WAVE.MAN"));
        let h = man.header().unwrap();
        assert_eq!(
            (h.name.as_bytes(), h.next.as_bytes(), h.frame_count),
            (&b"S_WAVE"[..], &b"S_IDLE"[..], 10)
        );
        assert_eq!(man.samples().unwrap().checksum.0, 0x0519cb77);
        ok(
            d,
            &[
                "check",
                s(&m.join("SAMPLE-S_WAVE.MAN")),
                "--mdh",
                s(&m.join("SAMPLE.MDH")),
            ],
        );
        let old = std::fs::read(sample(script)).unwrap();
        assert_eq!(std::fs::read(m.join(format!("{script}.bak"))).unwrap(), old);
        let new = std::fs::read(m.join(script)).unwrap();
        if script.ends_with("MDS") {
            // The line goes before the aniEnum's closing brace, indented like the line above.
            let text = String::from_utf8(new.clone()).unwrap();
            assert!(
                text.contains(&format!(
                    "\t\tmodelTag (\"DEF_HIT_LIMB\" \"BIP01 HEAD\")\r\n\t\t{line}\r\n\t}}"
                )),
                "{text}"
            );
            assert_eq!(
                text.replace(&format!("\t\t{line}\r\n"), ""),
                String::from_utf8(old).unwrap()
            );
        } else {
            let before = animkit::zengin::msb::Msb::read(&old).unwrap();
            let after = animkit::zengin::msb::Msb::read(&new).unwrap();
            assert_eq!(after.entries.len(), before.entries.len() + 1);
            let added: Vec<_> = after
                .entries
                .iter()
                .filter(|e| !before.entries.contains(e))
                .collect();
            let [animkit::zengin::msb::Entry::Ani(a)] = added.as_slice() else {
                panic!("{added:?}")
            };
            assert_eq!(
                (a.name.as_bytes(), a.layer, a.first_frame, a.last_frame),
                (&b"S_WAVE"[..], 1, 0, 9)
            );
            assert_eq!(
                (a.blend_in.get(), a.blend_out.get(), a.fps.get()),
                (0.2, 0.1, 25.0)
            );
            ok(d, &["verify", s(&m.join(script))]);
        }
        // Again: refused, nothing changed.
        let (code, _, err) = run(
            d,
            &[
                "gltf",
                "import",
                "idle.glb",
                "--new",
                "S_WAVE",
                "--into",
                s(&into),
            ],
        );
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("exists already") || err.contains("has an ani \"S_WAVE\""),
            "{err}"
        );
        assert_eq!(std::fs::read(m.join(script)).unwrap(), new);
    }
}

/// A whole model with the walk at 25 fps and the run at 10 fps through Blender at scene rates
/// 25, 10 and 50, one bone turned in one animation: that animation changes in exactly that
/// sample, the other comes back byte-identical.
#[test]
#[cfg_attr(
    missing = "blender",
    ignore = "needs Blender (apt-get install blender python3-numpy)"
)]
fn a_mixed_rate_model_survives_blender_at_any_scene_rate() {
    let Some(exe) = blender() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let model = d.join("model");
    std::fs::create_dir(&model).unwrap();
    std::fs::copy(sample("HUMAN.MDH"), model.join("HUMAN.MDH")).unwrap();
    std::fs::copy(sample("HUMAN-S_WALKL.MAN"), model.join("HUMAN-S_WALKL.MAN")).unwrap();
    let mut run10 = read_man(&sample("HUMAN-S_RUNL.MAN"));
    for c in &mut run10.chunks {
        if let animkit::zengin::man::Chunk::Header(h) = c {
            h.fps = animkit::exact::F32::new(10.0);
        }
    }
    let mut bytes = Vec::new();
    run10.write(&mut bytes).unwrap();
    std::fs::write(model.join("HUMAN-S_RUNL.MAN"), &bytes).unwrap();
    ok(
        d,
        &[
            "gltf", "export", "model", "--model", "HUMAN", "-o", "in.glb",
        ],
    );
    for (scene, edited, other, frame) in [
        (25, "S_WALKL", "HUMAN-S_RUNL.MAN", 10),
        (10, "S_RUNL", "HUMAN-S_WALKL.MAN", 5),
        (50, "S_RUNL", "HUMAN-S_WALKL.MAN", 10),
    ] {
        let out = d.join(format!("out{scene}.glb"));
        blender_roundtrip(
            &exe,
            &d.join("in.glb"),
            &out,
            scene,
            Some((edited, "BIP01 L FOREARM", frame, 30.0)),
        );
        let work = d.join(format!("work{scene}"));
        std::fs::create_dir(&work).unwrap();
        for f in ["HUMAN.MDH", "HUMAN-S_WALKL.MAN", "HUMAN-S_RUNL.MAN"] {
            std::fs::copy(model.join(f), work.join(f)).unwrap();
        }
        let err = ok(d, &["gltf", "import", s(&out), "--into", s(&work)]);
        assert_eq!(
            std::fs::read(work.join(other)).unwrap(),
            std::fs::read(model.join(other)).unwrap(),
            "scene {scene} fps: {other} changed\n{err}"
        );
        assert!(
            err.contains(&format!("unchanged {}", work.join(other).display())),
            "{err}"
        );
        let file = format!("HUMAN-{edited}.MAN");
        let (a, b) = (read_man(&model.join(&file)), read_man(&work.join(&file)));
        let (ca, cb) = (&a.samples().unwrap().codes, &b.samples().unwrap().codes);
        assert_eq!(ca.len(), cb.len(), "scene {scene}: {err}");
        let n = a.samples().unwrap().node_indices.len();
        let changed: Vec<(usize, u32)> = (0..ca.len())
            .filter(|&i| ca[i] != cb[i])
            .map(|i| (i / n, a.samples().unwrap().node_indices[i % n]))
            .collect();
        // BIP01 L FOREARM is MDH node 9; the key at scene frame F is MAN frame F·fps/scene.
        let fps = a.header().unwrap().fps.get() as u32;
        assert_eq!(
            changed,
            [((frame * fps / scene) as usize, 9)],
            "scene {scene}: {err}"
        );
    }
    // The way back in one step: Blender's file with nothing else finds the model folder
    // beside it by the animation names (Blender drops animkit's record by default) and keeps
    // the edited MAN's original as .bak; several such folders are refused.
    let (code, _, err) = run(d, &["gltf", "import", "out25.glb"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("name MANs in several folders"), "{err}");
    let solo = d.join("solo");
    std::fs::create_dir_all(solo.join("model")).unwrap();
    for f in ["HUMAN.MDH", "HUMAN-S_WALKL.MAN", "HUMAN-S_RUNL.MAN"] {
        std::fs::copy(model.join(f), solo.join("model").join(f)).unwrap();
    }
    std::fs::copy(d.join("out25.glb"), solo.join("edited.glb")).unwrap();
    let err = ok(&solo, &["gltf", "import", "edited.glb"]);
    assert!(err.contains("back into"), "{err}");
    let walk = solo.join("model/HUMAN-S_WALKL.MAN");
    assert_eq!(
        std::fs::read(solo.join("model/HUMAN-S_WALKL.MAN.bak")).unwrap(),
        std::fs::read(model.join("HUMAN-S_WALKL.MAN")).unwrap()
    );
    assert_eq!(
        std::fs::read(&walk).unwrap(),
        std::fs::read(d.join("work25/HUMAN-S_WALKL.MAN")).unwrap()
    );
    assert_eq!(
        std::fs::read(solo.join("model/HUMAN-S_RUNL.MAN")).unwrap(),
        std::fs::read(model.join("HUMAN-S_RUNL.MAN")).unwrap()
    );
    assert!(!solo.join("model/HUMAN-S_RUNL.MAN.bak").exists());
}

/// `info`, `verify` and `diff` take glTF files: the summary with the recorded origin, the file
/// compared with the MANs it came from, and what importing it changes in a MAN.
#[test]
fn gltf_files_have_info_verify_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for f in ["HUMAN.MDH", "HUMAN-S_WALKL.MAN", "HUMAN-S_RUNL.MAN"] {
        std::fs::copy(sample(f), d.join(f)).unwrap();
    }
    ok(
        d,
        &[
            "gltf",
            "export",
            "HUMAN-S_WALKL.MAN",
            "HUMAN-S_RUNL.MAN",
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "h.glb",
        ],
    );
    let (code, out, err) = run(d, &["info", "h.glb"]);
    assert_eq!(code, 0, "{err}");
    for want in [
        "skin: HUMAN (26 joints)",
        "S_WALKL: 1.240 s, 52 channels, keys at 25 per second",
        "S_RUNL: 0.760 s, 46 channels, keys at 25 per second",
        "S_WALKL ← HUMAN-S_WALKL.MAN (25 fps)",
    ] {
        assert!(out.contains(want), "{want}\n{out}");
    }
    let (code, out, err) = run(d, &["verify", "h.glb"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("S_WALKL: unchanged against ./HUMAN-S_WALKL.MAN (the same bytes)"),
        "{out}"
    );
    let edited = crate::gltf::edit_first_rotation(&d.join("h.glb"), "S_WALKL", "BIP01 HEAD");
    let (code, out, err) = run(d, &["verify", s(&edited)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("HUMAN-S_WALKL.MAN: 1 samples"), "{out}");
    assert!(out.contains("S_RUNL: unchanged"), "{out}");
    let (code, out, _) = run(d, &["diff", s(&edited), "HUMAN-S_WALKL.MAN"]);
    assert_eq!(code, 1);
    assert_eq!(out, "BIP01 HEAD: frame 0: rotation 90.1764°\n");
    let (code, out, _) = run(d, &["diff", "HUMAN-S_RUNL.MAN", "h.glb"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("no differences: S_RUNL is the motion of HUMAN-S_RUNL.MAN"),
        "{out}"
    );
    std::fs::write(d.join("bad.gltf"), "{\"asset\":{\"version\":\"2.0\"}").unwrap();
    let (code, out, _) = run(d, &["verify", "bad.gltf"]);
    assert_eq!(code, 1);
    assert!(out.contains("error    gltf         bad.gltf"), "{out}");
}

/// The way back in one step from an archive through the real Blender: a model exported from
/// `Anims.vdf`, one bone turned in Blender, and Blender's file (which drops animkit's record)
/// given to `gltf import` alone beside the archive: the edited MAN is replaced inside the
/// archive with exactly the bytes an import into an unpacked copy gives, the other animation's
/// member and every other byte stay as they were, the archive is kept once as `.bak`. animkit's
/// own export of the same archive, edited in Blender and given back with its record kept (the
/// glTF Blender wrote, with animkit's `asset.extras` put back as another tool might keep them)
/// goes the same way.
#[test]
#[cfg_attr(
    missing = "blender",
    ignore = "needs Blender (apt-get install blender python3-numpy)"
)]
fn gltf_blender_edit_goes_back_into_the_archive_in_one_step() {
    let Some(exe) = blender() else { return };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("src/ANIMS/_COMPILED");
    std::fs::create_dir_all(&src).unwrap();
    for f in [
        "HUMAN.MDH",
        "HUMAN-S_WALKL.MAN",
        "HUMAN-S_RUNL.MAN",
        "IDLE.MAN",
        "SAMPLE.MDH",
    ] {
        std::fs::copy(sample(f), src.join(f)).unwrap();
    }
    ok(
        d,
        &[
            "vdf",
            "pack",
            "src",
            "-o",
            "Anims.vdf",
            "--timestamp",
            "2026-01-01 00:00:00",
        ],
    );
    let original = std::fs::read(d.join("Anims.vdf")).unwrap();
    ok(
        d,
        &[
            "gltf",
            "export",
            "Anims.vdf",
            "--model",
            "HUMAN",
            "-o",
            "in.glb",
        ],
    );
    let out = d.join("blender.glb");
    blender_roundtrip(
        &exe,
        &d.join("in.glb"),
        &out,
        25,
        Some(("S_WALKL", "BIP01 L FOREARM", 10, 30.0)),
    );
    // The reference: Blender's file imported into an unpacked copy.
    ok(d, &["unpack", "Anims.vdf", "-o", "work"]);
    ok(d, &["gltf", "import", s(&out), "--into", "work"]);
    let walk = "ANIMS/_COMPILED/HUMAN-S_WALKL.MAN";
    let want = std::fs::read(d.join("work").join(walk)).unwrap();
    assert!(want != std::fs::read(sample("HUMAN-S_WALKL.MAN")).unwrap());
    assert!(
        std::fs::read(d.join("work/ANIMS/_COMPILED/HUMAN-S_RUNL.MAN")).unwrap()
            == std::fs::read(sample("HUMAN-S_RUNL.MAN")).unwrap()
    );
    // Blender's file alone, beside the archive: found by the animation names.
    let err = ok(d, &["gltf", "import", "blender.glb"]);
    assert!(
        err.contains("back into ./Anims.vdf")
            && err.contains(
                "updated ANIMS/_COMPILED/HUMAN-S_WALKL.MAN in ./Anims.vdf: S_WALKL: 32 frames"
            )
            && err.contains("(the original archive kept as ./Anims.vdf.bak)")
            && !err.contains("updated ANIMS/_COMPILED/HUMAN-S_RUNL.MAN"),
        "{err}"
    );
    assert!(std::fs::read(d.join("Anims.vdf.bak")).unwrap() == original);
    let now = std::fs::read(d.join("Anims.vdf")).unwrap();
    let (a, b) = crate::gltf::member_range(d, "Anims.vdf", walk);
    assert!(now[a..b] == want[..], "the member is not the imported MAN");
    assert_eq!(now.len(), original.len());
    let outside = (0..now.len()).filter(|&i| now[i] != original[i] && !(a..b).contains(&i));
    assert_eq!(
        outside.count(),
        0,
        "bytes outside the edited member changed"
    );
    let (code, listing, _) = run(d, &["verify", "Anims.vdf"]);
    assert_eq!(code, 0, "{listing}");
    // Given again, the same file changes nothing more: the archive is as written, the
    // first .bak kept.
    let err = ok(d, &["gltf", "import", "blender.glb"]);
    assert!(err.contains("nothing changed"), "{err}");
    assert!(std::fs::read(d.join("Anims.vdf")).unwrap() == now);
    assert!(std::fs::read(d.join("Anims.vdf.bak")).unwrap() == original);

    // With animkit's record (kept by a tool that keeps `asset.extras`): the member changed
    // since that export, so it is refused and nothing is written.
    let recorded = with_extras_of(&out, &d.join("in.glb"), &d.join("kept.glb"));
    let (code, _, err) = run(d, &["gltf", "import", s(&recorded)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("HUMAN-S_WALKL.MAN changed since the glTF was exported from this archive"),
        "{err}"
    );
    assert!(std::fs::read(d.join("Anims.vdf")).unwrap() == now);
    // Against the original archive it goes back, to the same bytes as by the names.
    std::fs::write(d.join("Anims.vdf"), &original).unwrap();
    std::fs::remove_file(d.join("Anims.vdf.bak")).unwrap();
    let err = ok(d, &["gltf", "import", s(&recorded)]);
    assert!(
        err.contains("updated ANIMS/_COMPILED/HUMAN-S_WALKL.MAN in "),
        "{err}"
    );
    assert!(std::fs::read(d.join("Anims.vdf")).unwrap() == now);
}

/// `glb` (a GLB that Blender wrote) with the `asset.extras` of `from` (animkit's export),
/// written to `to`.
fn with_extras_of(glb: &Path, from: &Path, to: &Path) -> std::path::PathBuf {
    let json = |p: &Path| {
        let data = std::fs::read(p).unwrap();
        let n = u32::from_le_bytes(data[12..16].try_into().unwrap()) as usize;
        let j: serde_json::Value = serde_json::from_slice(&data[20..20 + n]).unwrap();
        (data, n, j)
    };
    let (data, n, mut j) = json(glb);
    let (_, _, f) = json(from);
    j["asset"]["extras"] = f["asset"]["extras"].clone();
    assert!(j["asset"]["extras"]["animkit"].is_object());
    let mut text = serde_json::to_vec(&j).unwrap();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let bin = &data[20 + n..];
    let total = 12 + 8 + text.len() + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&data[..8]);
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&text);
    out.extend_from_slice(bin);
    std::fs::write(to, out).unwrap();
    to.to_path_buf()
}

/// `info`, `verify` and `diff` of glTF files with `--json` (valid against the reports'
/// schemas) and `--yaml`, alone and mixed with MAN/MDH files: the animation names and frame
/// counts, each animation against its MAN, and the one changed node and frame.
#[test]
fn gltf_files_in_json_and_yaml_reports_with_mixed_inputs() {
    use crate::report::assert_valid_report;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for f in ["HUMAN.MDH", "HUMAN-S_WALKL.MAN", "HUMAN-S_RUNL.MAN"] {
        std::fs::copy(sample(f), d.join(f)).unwrap();
    }
    ok(
        d,
        &[
            "gltf",
            "export",
            "HUMAN-S_WALKL.MAN",
            "HUMAN-S_RUNL.MAN",
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "h.glb",
        ],
    );
    let edited = crate::gltf::edit_first_rotation(&d.join("h.glb"), "S_WALKL", "BIP01 HEAD");
    let json = |args: &[&str], want_code: i32| {
        let (code, out, err) = run(d, args);
        assert_eq!(code, want_code, "{args:?}\n{out}\n{err}");
        let doc: serde_json::Value = serde_json::from_str(&out)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"));
        assert_valid_report(args[0], &doc);
        doc
    };
    let line = |file: &serde_json::Value, label: &str| {
        file["summary"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["label"] == label)
            .unwrap_or_else(|| panic!("{label} in {file:#}"))
            .clone()
    };

    // info: a glTF file and a MAN in one run.
    let doc = json(&["info", "--json", "h.glb", "HUMAN-S_RUNL.MAN"], 0);
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    let g = &files[0];
    assert_eq!(g["format"], "gltf");
    assert_eq!(g["description"], "glTF 2.0 (binary .glb)");
    assert_eq!(
        g["bytes"],
        std::fs::metadata(d.join("h.glb")).unwrap().len()
    );
    assert_eq!(line(g, "animations")["number"], 2);
    assert_eq!(line(g, "joints")["number"], 26);
    let walk = line(g, "animation S_WALKL");
    assert_eq!(walk["number"], 32);
    assert_eq!(
        walk["value"],
        "32 frames, 1.240 s, 52 channels, keys at 25 per second"
    );
    assert_eq!(line(g, "animation S_RUNL")["number"], 20);
    assert_eq!(
        line(g, "origin S_RUNL")["value"],
        "HUMAN-S_RUNL.MAN (25 fps)"
    );
    assert_eq!(files[1]["format"], "zengin.man");
    let frames = files[1]["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["label"] == "frames")
        .unwrap()["number"]
        .clone();
    assert_eq!(frames, 20);
    // the plain mixed form: the glTF summary and the MAN's
    let (code, out, err) = run(d, &["info", "h.glb", "HUMAN-S_RUNL.MAN"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("S_WALKL: 1.240 s, 52 channels")
            && out.contains("HUMAN-S_RUNL.MAN: zengin.man"),
        "{out}"
    );

    // verify: the edited file against its MANs, with an MDH beside it in the same run.
    let doc = json(&["verify", "--json", s(&edited), "HUMAN.MDH"], 0);
    assert_eq!(doc["totals"]["files"], 2);
    assert_eq!(doc["totals"]["ok"], 2);
    let g = &doc["files"][0];
    assert_eq!(g["format"], "gltf");
    assert_eq!(g["outcome"], "ok");
    let anims = g["animations"].as_array().unwrap();
    assert_eq!(anims.len(), 2);
    assert_eq!(anims[0]["name"], "S_WALKL");
    assert_eq!(anims[0]["unchanged"], false);
    assert_eq!(anims[0]["changed_samples"], 1);
    assert_eq!(anims[0]["frames"], 32);
    assert!(anims[0]["man"]
        .as_str()
        .unwrap()
        .ends_with("HUMAN-S_WALKL.MAN"));
    assert_eq!(anims[1]["name"], "S_RUNL");
    assert_eq!(anims[1]["unchanged"], true);
    assert_eq!(anims[1]["frames_before"], 20);
    assert_eq!(doc["files"][1]["format"], "zengin.mdh");
    let (code, out, _) = run(d, &["verify", s(&edited), "HUMAN.MDH"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("HUMAN-S_WALKL.MAN: 1 samples")
            && out.contains("ok       zengin.mdh   HUMAN.MDH")
            && out.contains("2 files: 2 ok, 0 mismatched, 0 errors"),
        "{out}"
    );
    // a glTF that does not read fails the run, the others still reported
    std::fs::write(d.join("bad.gltf"), "{\"asset\":{\"version\":\"2.0\"}").unwrap();
    let doc = json(&["verify", "--json", "bad.gltf", "HUMAN.MDH"], 1);
    assert_eq!(doc["files"][0]["outcome"], "error");
    assert_eq!(doc["totals"]["errors"], 1);
    assert_eq!(doc["totals"]["ok"], 1);

    // diff: the MAN old, the glTF new, whichever order they are given in.
    for args in [
        ["diff", "--json", s(&edited), "HUMAN-S_WALKL.MAN"],
        ["diff", "--json", "HUMAN-S_WALKL.MAN", s(&edited)],
    ] {
        let doc = json(&args, 1);
        assert_eq!(doc["format"], "zengin.man");
        assert_eq!(doc["old"], "HUMAN-S_WALKL.MAN");
        assert_eq!(doc["equal"], false);
        let items = doc["items"].as_array().unwrap();
        assert_eq!(items.len(), 1, "{doc:#}");
        assert_eq!(items[0]["node"], "BIP01 HEAD");
        assert_eq!(items[0]["node_index"], 6);
        assert_eq!(items[0]["frame"], 0);
        assert_eq!(items[0]["path"], "samples.frames[0][6]");
        assert_eq!(
            items[0]["old"]["rotation"],
            serde_json::json!([0.0, -0.055307847, 0.0, 0.99846935])
        );
    }
    let doc = json(&["diff", "--json", "h.glb", "HUMAN-S_RUNL.MAN"], 0);
    assert_eq!(doc["equal"], true);
    assert_eq!(doc["items"], serde_json::json!([]));
    // --yaml: the MAN's YAML before and after, one sample line changed
    let (code, out, _) = run(d, &["diff", "--yaml", s(&edited), "HUMAN-S_WALKL.MAN"]);
    assert_eq!(code, 1);
    assert!(out.starts_with("--- HUMAN-S_WALKL.MAN\n+++ "), "{out}");
    let minus: Vec<&str> = out.lines().filter(|l| l.starts_with("- ")).collect();
    let plus: Vec<&str> = out.lines().filter(|l| l.starts_with("+ ")).collect();
    assert_eq!(minus.len(), 1, "{out}");
    assert_eq!(plus.len(), 1, "{out}");
    assert!(
        minus[0].contains("rotation: [0.0, -0.055307847, 0.0, 0.99846935]"),
        "{out}"
    );
    let (code, out, _) = run(d, &["diff", "--yaml", "h.glb", "HUMAN-S_RUNL.MAN"]);
    assert_eq!((code, out.as_str()), (0, ""));
}
