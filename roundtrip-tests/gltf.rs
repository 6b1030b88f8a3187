//! `animkit gltf export|import` end to end without Blender: exact round trips, the Khronos
//! glTF validator on every kind of export, whole models from archives and folders, edits
//! through the glTF file, and bad input.

use crate::common::{corpus_file, root, run};
use animkit::zengin::man::{Chunk, Man};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub use crate::common::missing_tool;

/// `roundtrip-tests/node/validate.js` with the Khronos validator installed beside it.
pub fn validator() -> Option<PathBuf> {
    let dir = root().join("roundtrip-tests/node");
    let node_ok = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if node_ok && dir.join("node_modules/gltf-validator").is_dir() {
        return Some(dir.join("validate.js"));
    }
    missing_tool(
        "the Khronos glTF validator",
        "run `npm install` in roundtrip-tests/node (needs node and npm; .ci/run does it)",
    )
}

/// Validate files; panics unless every one has 0 errors and 0 warnings. Returns the reports.
pub fn validate(script: &Path, files: &[PathBuf]) -> Vec<Value> {
    let out = std::process::Command::new("node")
        .arg(script)
        .args(files)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let reports: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("validator prints JSON lines"))
        .collect();
    assert_eq!(
        reports.len(),
        files.len(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for r in &reports {
        assert_eq!(r["errors"], 0, "{r}");
        assert_eq!(r["warnings"], 0, "{r}");
    }
    assert!(out.status.success(), "{text}");
    reports
}

pub fn sample(name: &str) -> PathBuf {
    root().join("samples").join(name)
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Run animkit in `dir`, expecting success; returns stderr.
pub fn ok(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(dir, args);
    assert_eq!(code, 0, "animkit {args:?}\n{out}\n{err}");
    err
}

/// Run animkit in `dir`, expecting exit 2; returns stderr.
fn fails(dir: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(dir, args);
    assert_eq!(code, 2, "animkit {args:?} should fail\n{out}\n{err}");
    err
}

/// An MDH with `names` (a chain below the first node for half of them, the rest children of
/// the root), rest poses turned and moved a little per node, and the right checksum.
pub fn generated_mdh(names: &[String]) -> Vec<u8> {
    generated_mdh_with(names, false)
}

/// [`generated_mdh`]; with `forest`, every fourth node is a root of its own.
pub fn generated_mdh_with(names: &[String], forest: bool) -> Vec<u8> {
    use animkit::exact::{Text, Writer};
    use animkit::zengin::chunk::put_chunk;
    use animkit::zengin::types::put_line;
    let mut out = Vec::new();
    put_chunk(&mut out, 0xD100, |o| {
        o.put_u32(3);
        o.put_u16(names.len() as u16);
        for (i, n) in names.iter().enumerate() {
            put_line(o, &Text::from(n.as_str()))?;
            let parent: i16 = match i {
                0 => -1,
                i if forest && i % 4 == 0 => -1,
                i if i % 2 == 1 => (i - 1) as i16,
                _ => 0,
            };
            o.put_i16(parent);
            let q = glam::Quat::from_euler(
                glam::EulerRot::YXZ,
                i as f32 * 0.3,
                (i as f32 * 0.7).sin(),
                0.2,
            );
            let m = glam::Mat4::from_rotation_translation(
                q,
                glam::Vec3::new(i as f32 * 0.5, 10.0 + i as f32, -(i as f32)),
            );
            for v in m.transpose().to_cols_array() {
                o.put_u32(v.to_bits());
            }
        }
        for _ in 0..15 {
            o.put_u32(0);
        }
        o.put_u32(animkit::zengin::node_list_checksum(
            names.iter().map(|n| n.as_bytes()),
        ));
        Ok(())
    })
    .unwrap();
    put_chunk(&mut out, 0xD120, |_| Ok(())).unwrap();
    out
}

/// The `.gltf` JSON of an export of IDLE.MAN, to break in the bad-input tests.
fn idle_gltf(dir: &Path) -> Value {
    let out = dir.join("idle.gltf");
    ok(
        dir,
        &[
            "gltf",
            "export",
            s(&sample("IDLE.MAN")),
            "--mdh",
            s(&sample("SAMPLE.MDH")),
            "-o",
            s(&out),
            "--force",
        ],
    );
    serde_json::from_slice(&std::fs::read(out).unwrap()).unwrap()
}

#[test]
#[cfg_attr(
    missing = "gltf_validator",
    ignore = "needs the glTF validator (npm install in roundtrip-tests/node)"
)]
fn samples_export_import_byte_identical_and_validate() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut files = Vec::new();
    for (mans, mdh, out) in [
        (vec!["IDLE.MAN"], "SAMPLE.MDH", "idle.glb"),
        (vec!["IDLE.MAN"], "SAMPLE.MDH", "idle.gltf"),
        (
            vec!["HUMAN-S_WALKL.MAN", "HUMAN-S_RUNL.MAN"],
            "HUMAN.MDH",
            "human.glb",
        ),
    ] {
        let o = d.join(out);
        let mut args = vec!["gltf".to_string(), "export".into()];
        args.extend(mans.iter().map(|m| s(&sample(m)).to_string()));
        args.extend([
            "--mdh".into(),
            s(&sample(mdh)).into(),
            "-o".into(),
            s(&o).into(),
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let err = ok(d, &args);
        assert!(err.contains(&format!("wrote {}", o.display())), "{err}");
        for m in &mans {
            let back = d.join(format!("back-{out}-{m}"));
            ok(
                d,
                &[
                    "gltf",
                    "import",
                    s(&o),
                    "--into",
                    s(&sample(m)),
                    "-o",
                    s(&back),
                ],
            );
            assert_eq!(
                std::fs::read(&back).unwrap(),
                std::fs::read(sample(m)).unwrap(),
                "{m} through {out}"
            );
        }
        files.push(o);
    }
    // What the file holds: the GLB's JSON names the nodes, parents and animations.
    let data = std::fs::read(d.join("human.glb")).unwrap();
    let json_len = u32::from_le_bytes(data[12..16].try_into().unwrap()) as usize;
    let j: Value = serde_json::from_slice(&data[20..20 + json_len]).unwrap();
    assert_eq!(j["nodes"].as_array().unwrap().len(), 26);
    assert_eq!(j["nodes"][0]["name"], "BIP01");
    assert_eq!(
        j["nodes"][0]["translation"],
        serde_json::json!([0.0, 0.92, 0.0])
    );
    assert_eq!(j["skins"][0]["name"], "HUMAN");
    assert_eq!(j["skins"][0]["joints"].as_array().unwrap().len(), 26);
    let names: Vec<&str> = j["animations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["S_WALKL", "S_RUNL"]);
    // S_RUNL animates 23 nodes in another order: its first channel drives node 17.
    assert_eq!(j["animations"][1]["channels"].as_array().unwrap().len(), 46);
    assert_eq!(j["animations"][1]["channels"][0]["target"]["node"], 17);
    if let Some(v) = validator() {
        validate(&v, &files);
    }
}

/// The decoded first sample of IDLE.MAN, in glTF coordinates, is what the file holds.
#[test]
fn coordinates_of_the_first_key() {
    let dir = tempfile::tempdir().unwrap();
    let j = idle_gltf(dir.path());
    let uri = j["buffers"][0]["uri"].as_str().unwrap();
    use base64::Engine as _;
    let bin = base64::engine::general_purpose::STANDARD
        .decode(uri.split_once(',').unwrap().1)
        .unwrap();
    let man = Man::read(&std::fs::read(sample("IDLE.MAN")).unwrap()).unwrap();
    let (q, p) = man.decode_samples()[1]; // frame 0, node 1 (BIP01 PELVIS)
    let ch = &j["animations"][0]["channels"];
    assert_eq!(ch[2]["target"]["node"], 1);
    assert_eq!(ch[2]["target"]["path"], "rotation");
    let acc = |i: usize| -> (usize, usize) {
        let a = &j["accessors"][i];
        let v = &j["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
        (
            (v["byteOffset"].as_u64().unwrap() + a["byteOffset"].as_u64().unwrap()) as usize,
            a["count"].as_u64().unwrap() as usize,
        )
    };
    let f = |at: usize| f32::from_le_bytes(bin[at..at + 4].try_into().unwrap());
    let sampler = &j["animations"][0]["samplers"][ch[2]["sampler"].as_u64().unwrap() as usize];
    let (rot_at, count) = acc(sampler["output"].as_u64().unwrap() as usize);
    assert_eq!(count, 10);
    assert_eq!(
        [f(rot_at), f(rot_at + 4), f(rot_at + 8), f(rot_at + 12)],
        // the conjugate (the engine's convention), mirrored in x
        [-q.x, q.y, q.z, q.w]
    );
    let sampler = &j["animations"][0]["samplers"][ch[3]["sampler"].as_u64().unwrap() as usize];
    let (pos_at, _) = acc(sampler["output"].as_u64().unwrap() as usize);
    let m = |v: f32| (v as f64 / 100.0) as f32;
    assert_eq!(
        [f(pos_at), f(pos_at + 4), f(pos_at + 8)],
        [m(-p.x), m(p.y), m(p.z)]
    );
    // Key times are frame / fps.
    let (t_at, _) = acc(sampler["input"].as_u64().unwrap() as usize);
    assert_eq!(f(t_at + 4 * 9), 9.0 / 25.0);
}

/// A generated 100-node animation and the corpus MAN (with a generated 34-node skeleton and
/// --force: the corpus has no HUMANS.MDH) validate and come back byte for byte.
#[test]
#[cfg_attr(
    any(missing = "corpus", missing = "gltf_validator"),
    ignore = "needs ../shared/corpus and the glTF validator (npm install in roundtrip-tests/node)"
)]
fn generated_and_corpus_animations_validate_and_round_trip() {
    use animkit::zengin::man::synth::{synthesize_bytes, Synth};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let names: Vec<String> = (0..100).map(|n| format!("BIP01 NODE{n}")).collect();
    std::fs::write(d.join("NODES.MDH"), generated_mdh(&names)).unwrap();
    std::fs::write(
        d.join("BIG.MAN"),
        synthesize_bytes(&Synth {
            events: 3,
            ..Synth::new("S_BIG", 100, 120)
        }),
    )
    .unwrap();
    ok(
        d,
        &[
            "gltf",
            "export",
            "BIG.MAN",
            "--mdh",
            "NODES.MDH",
            "-o",
            "big.glb",
        ],
    );
    ok(
        d,
        &[
            "gltf", "import", "big.glb", "--into", "BIG.MAN", "-o", "BACK.MAN",
        ],
    );
    assert_eq!(
        std::fs::read(d.join("BACK.MAN")).unwrap(),
        std::fs::read(d.join("BIG.MAN")).unwrap()
    );
    // The same nodes as a forest of 25 trees: one common parent for the skin's joints.
    std::fs::write(d.join("FOREST.MDH"), generated_mdh_with(&names, true)).unwrap();
    ok(
        d,
        &[
            "gltf",
            "export",
            "BIG.MAN",
            "--mdh",
            "FOREST.MDH",
            "-o",
            "forest.glb",
        ],
    );
    ok(
        d,
        &[
            "gltf",
            "import",
            "forest.glb",
            "--into",
            "BIG.MAN",
            "--mdh",
            "FOREST.MDH",
            "-o",
            "BACK2.MAN",
        ],
    );
    assert_eq!(
        std::fs::read(d.join("BACK2.MAN")).unwrap(),
        std::fs::read(d.join("BIG.MAN")).unwrap()
    );
    let mut files = vec![d.join("big.glb"), d.join("forest.glb")];
    if let Some(man) = corpus_file("zengin/G1_HUMANS-S_FISTRUN.MAN") {
        std::fs::write(d.join("FISTRUN.MAN"), &man).unwrap();
        let names: Vec<String> = (0..34).map(|n| format!("NODE {n}")).collect();
        std::fs::write(d.join("H34.MDH"), generated_mdh(&names)).unwrap();
        let err = fails(
            d,
            &[
                "gltf",
                "export",
                "FISTRUN.MAN",
                "--mdh",
                "H34.MDH",
                "-o",
                "f.glb",
            ],
        );
        assert!(
            err.contains(
                "checksum mismatch: the MAN was made for the skeleton with checksum 0xc63488c2"
            ) && err.contains("pass --force"),
            "{err}"
        );
        assert!(!d.join("f.glb").exists());
        ok(
            d,
            &[
                "gltf",
                "export",
                "FISTRUN.MAN",
                "--mdh",
                "H34.MDH",
                "-o",
                "f.glb",
                "--force",
            ],
        );
        ok(
            d,
            &[
                "gltf",
                "import",
                "f.glb",
                "--into",
                "FISTRUN.MAN",
                "--mdh",
                "H34.MDH",
                "-o",
                "F2.MAN",
            ],
        );
        assert_eq!(std::fs::read(d.join("F2.MAN")).unwrap(), man);
        files.push(d.join("f.glb"));
    }
    if let Some(v) = validator() {
        validate(&v, &files);
    }
}

#[test]
fn missing_mdh_names_the_checksum_and_the_mdh_beside() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for f in ["HUMAN-S_WALKL.MAN", "HUMAN.MDH", "SAMPLE.MDH"] {
        std::fs::copy(sample(f), d.join(f)).unwrap();
    }
    let err = fails(d, &["gltf", "export", "HUMAN-S_WALKL.MAN", "-o", "x.glb"]);
    assert!(
        err.contains("pass --mdh MODEL.MDH (the MAN's checksum is 0x")
            && err.contains("HUMAN.MDH has it"),
        "{err}"
    );
    assert!(!err.contains("SAMPLE.MDH"), "{err}");
    let err = fails(
        d,
        &[
            "gltf",
            "export",
            "HUMAN-S_WALKL.MAN",
            "--mdh",
            "SAMPLE.MDH",
            "-o",
            "x.glb",
        ],
    );
    assert!(
        err.contains("samples.node_indices[3] = 3: the MDH has only 3 nodes"),
        "{err}"
    );
    let err = fails(
        d,
        &[
            "gltf",
            "export",
            "HUMAN-S_WALKL.MAN",
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "x.obj",
        ],
    );
    assert!(err.contains("must end in .glb"), "{err}");
    assert!(!d.join("x.glb").exists());
    // Import finds the MDH beside the MAN by its checksum.
    ok(
        d,
        &[
            "gltf",
            "export",
            "HUMAN-S_WALKL.MAN",
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "w.glb",
        ],
    );
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            "w.glb",
            "--into",
            "HUMAN-S_WALKL.MAN",
            "-o",
            "W.MAN",
        ],
    );
    assert!(err.contains("0 samples changed"), "{err}");
}

/// `--model` in an archive and in an unpacked folder; `--into` the folder, then repack.
#[test]
fn whole_model_from_archive_and_folder_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let src = d.join("src/ANIMS/_COMPILED");
    std::fs::create_dir_all(&src).unwrap();
    for f in [
        "HUMAN-S_WALKL.MAN",
        "HUMAN-S_RUNL.MAN",
        "HUMAN.MDH",
        "SAMPLE.MDH",
        "IDLE.MAN",
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
    let err = fails(d, &["gltf", "export", "Anims.vdf", "-o", "h.glb"]);
    assert!(
        err.contains("pass --model NAME")
            && err.contains("ANIMS/_COMPILED/HUMAN.MDH (0x")
            && err.contains("SAMPLE.MDH (0x0519cb77)"),
        "{err}"
    );
    let err = ok(
        d,
        &[
            "gltf",
            "export",
            "Anims.vdf",
            "--model",
            "HUMAN",
            "-o",
            "h.glb",
            "--no-origin",
        ],
    );
    assert!(
        err.contains("26 nodes, 2 animations (S_RUNL, S_WALKL)"),
        "{err}"
    );
    let err = ok(
        d,
        &[
            "gltf",
            "export",
            "Anims.vdf",
            "--model",
            "sample",
            "-o",
            "s.glb",
        ],
    );
    assert!(err.contains("3 nodes, 1 animation (S_IDLE)"), "{err}");
    ok(d, &["unpack", "Anims.vdf", "-o", "work"]);
    let err = ok(
        d,
        &[
            "gltf",
            "export",
            "work",
            "--model",
            "HUMAN",
            "-o",
            "h2.glb",
            "--no-origin",
        ],
    );
    assert!(err.contains("2 animations"), "{err}");
    assert_eq!(
        std::fs::read(d.join("h.glb")).unwrap(),
        std::fs::read(d.join("h2.glb")).unwrap()
    );

    // Untouched: nothing changes, repack gives the same archive.
    let err = ok(d, &["gltf", "import", "h.glb", "--into", "work"]);
    assert!(
        err.contains("unchanged") && !err.contains("updated"),
        "{err}"
    );
    // An edited file (the run's first key of BIP01 turned): the run is updated, its stale
    // YAML removed, the archive repacked with only that change.
    let edited = edit_first_rotation(&d.join("h.glb"), "S_RUNL", "BIP01");
    let err = ok(d, &["gltf", "import", s(&edited), "--into", "work"]);
    assert!(
        err.contains("updated") && err.contains("HUMAN-S_RUNL.MAN"),
        "{err}"
    );
    assert!(
        err.contains("removed") && err.contains("HUMAN-S_RUNL.MAN.yaml"),
        "{err}"
    );
    assert!(
        !err.contains("updated work/ANIMS/_COMPILED/HUMAN-S_WALKL"),
        "{err}"
    );
    // A YAML edited by hand beside a MAN the file changes too: refused, nothing written.
    let walk_yaml = d.join("work/ANIMS/_COMPILED/HUMAN-S_WALKL.MAN.yaml");
    let text = std::fs::read_to_string(&walk_yaml).unwrap();
    std::fs::write(&walk_yaml, text.replace("layer: 1", "layer: 2")).unwrap();
    let walk_bin = std::fs::read(d.join("work/ANIMS/_COMPILED/HUMAN-S_WALKL.MAN")).unwrap();
    let edited_walk = edit_first_rotation(&d.join("h.glb"), "S_WALKL", "BIP01");
    let err = fails(d, &["gltf", "import", s(&edited_walk), "--into", "work"]);
    assert!(
        err.contains("HUMAN-S_WALKL.MAN.yaml: was edited") && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(d.join("work/ANIMS/_COMPILED/HUMAN-S_WALKL.MAN")).unwrap(),
        walk_bin
    );
    std::fs::write(&walk_yaml, text).unwrap();
    ok(d, &["repack", "work", "-o", "edited.vdf"]);
    let (code, out, _) = run(d, &["diff", "Anims.vdf", "edited.vdf"]);
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(
        lines[1].starts_with("ANIMS/_COMPILED/HUMAN-S_RUNL.MAN: samples node"),
        "{out}"
    );
    assert!(lines[1].contains("1 of 20 frames changed"), "{out}");
}

/// Turn the first rotation key of `node` in animation `anim` of a GLB by 90° about x; write
/// the result beside it.
pub fn edit_first_rotation(glb: &Path, anim: &str, node: &str) -> PathBuf {
    let data = std::fs::read(glb).unwrap();
    let json_len = u32::from_le_bytes(data[12..16].try_into().unwrap()) as usize;
    let j: Value = serde_json::from_slice(&data[20..20 + json_len]).unwrap();
    let node_index = j["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == node)
        .unwrap();
    let a = j["animations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == anim)
        .unwrap();
    let ch = a["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["node"] == node_index && c["target"]["path"] == "rotation")
        .unwrap();
    let sampler = &a["samplers"][ch["sampler"].as_u64().unwrap() as usize];
    let acc = &j["accessors"][sampler["output"].as_u64().unwrap() as usize];
    let view = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let bin_start = 20 + json_len + 8;
    let at = bin_start
        + (view["byteOffset"].as_u64().unwrap() + acc["byteOffset"].as_u64().unwrap()) as usize;
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let mut out = data.clone();
    for (i, v) in [h, 0.0, 0.0, h].iter().enumerate() {
        out[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    let p = glb.with_file_name(format!("edited-{anim}-{node}.glb"));
    std::fs::write(&p, out).unwrap();
    p
}

/// Frame counts follow the file; positions outside the range fail unless --requantize.
#[test]
fn longer_and_shorter_animations_and_position_range() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let walk = std::fs::read(sample("HUMAN-S_WALKL.MAN")).unwrap();
    let man = Man::read(&walk).unwrap();
    // The first 20 frames as a MAN of their own, exported, imported into the 32-frame walk.
    let mut short = man.clone();
    for c in &mut short.chunks {
        match c {
            Chunk::Header(h) => h.frame_count = 20,
            Chunk::Samples(s) => s.codes.truncate(20 * 26),
            _ => {}
        }
    }
    let mut bytes = Vec::new();
    short.write(&mut bytes).unwrap();
    std::fs::write(d.join("SHORT.MAN"), &bytes).unwrap();
    std::fs::copy(sample("HUMAN.MDH"), d.join("HUMAN.MDH")).unwrap();
    std::fs::write(d.join("WALK.MAN"), &walk).unwrap();
    ok(
        d,
        &[
            "gltf",
            "export",
            "SHORT.MAN",
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "short.glb",
        ],
    );
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            "short.glb",
            "--into",
            "WALK.MAN",
            "-o",
            "W20.MAN",
        ],
    );
    assert!(err.contains("20 frames (was 32)"), "{err}");
    assert_eq!(std::fs::read(d.join("W20.MAN")).unwrap(), bytes);
    // And back: the 32 frames into the 20-frame MAN give the walk again.
    ok(
        d,
        &[
            "gltf",
            "export",
            "WALK.MAN",
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "walk.glb",
        ],
    );
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            "walk.glb",
            "--into",
            "SHORT.MAN",
            "-o",
            "W32.MAN",
        ],
    );
    assert!(err.contains("32 frames (was 20)"), "{err}");
    assert_eq!(std::fs::read(d.join("W32.MAN")).unwrap(), walk);
    // --fps samples at another rate and stores it.
    let err = ok(
        d,
        &[
            "gltf", "import", "walk.glb", "--into", "WALK.MAN", "-o", "W50.MAN", "--fps", "50",
        ],
    );
    assert!(err.contains("63 frames (was 32)"), "{err}");
    let w50 = Man::read(&std::fs::read(d.join("W50.MAN")).unwrap()).unwrap();
    assert_eq!(w50.header().unwrap().fps.get(), 50.0);
    let s50 = w50.samples().unwrap();
    let s25 = man.samples().unwrap();
    // Every other frame is an original key, unchanged.
    for f in 0..32 {
        assert_eq!(s50.frame(2 * f), s25.frame(f), "frame {f}");
    }

    // A MAN at 24 fps and keys at 25 per second (Blender left at its default rate): said.
    let mut w24 = man.clone();
    for c in &mut w24.chunks {
        if let Chunk::Header(h) = c {
            h.fps = animkit::exact::F32::new(24.0);
        }
    }
    let mut b24 = Vec::new();
    w24.write(&mut b24).unwrap();
    std::fs::write(d.join("W24.MAN"), &b24).unwrap();
    let err = ok(
        d,
        &[
            "gltf", "import", "walk.glb", "--into", "W24.MAN", "-o", "W24B.MAN",
        ],
    );
    assert!(
        err.contains("samples fall between the file's keys (keys 0.040000 s apart, 25.000 per second; the MAN has 24 fps)")
            && err.contains("set Blender's frame rate to 24 before importing"),
        "{err}"
    );

    // The root lifted by 2 m at the first key: outside the header's position range.
    let lifted = {
        let data = std::fs::read(d.join("walk.glb")).unwrap();
        let json_len = u32::from_le_bytes(data[12..16].try_into().unwrap()) as usize;
        let j: Value = serde_json::from_slice(&data[20..20 + json_len]).unwrap();
        let a = &j["animations"][0];
        let ch = &a["channels"][1];
        assert_eq!(ch["target"]["path"], "translation");
        assert_eq!(ch["target"]["node"], 0);
        let acc = &j["accessors"][a["samplers"][1]["output"].as_u64().unwrap() as usize];
        let view = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
        let at = 20
            + json_len
            + 8
            + (view["byteOffset"].as_u64().unwrap() + acc["byteOffset"].as_u64().unwrap()) as usize
            + 4;
        let mut out = data.clone();
        let y = f32::from_le_bytes(out[at..at + 4].try_into().unwrap()) + 2.0;
        out[at..at + 4].copy_from_slice(&y.to_le_bytes());
        std::fs::write(d.join("lifted.glb"), out).unwrap();
        y
    };
    let err = fails(
        d,
        &[
            "gltf",
            "import",
            "lifted.glb",
            "--into",
            "WALK.MAN",
            "-o",
            "L.MAN",
        ],
    );
    assert!(
        err.contains("frame 0, node 0 (BIP01): position y = ")
            && err.contains("import with --requantize"),
        "{err}"
    );
    assert!(!d.join("L.MAN").exists());
    ok(
        d,
        &[
            "gltf",
            "import",
            "lifted.glb",
            "--into",
            "WALK.MAN",
            "-o",
            "L.MAN",
            "--requantize",
        ],
    );
    let l = Man::read(&std::fs::read(d.join("L.MAN")).unwrap()).unwrap();
    let y = l.decode_samples()[0].1.y;
    assert!(
        (y - lifted * 100.0).abs() < 0.01,
        "{y} vs {}",
        lifted * 100.0
    );
    let (code, out, _) = run(d, &["diff", "WALK.MAN", "L.MAN"]);
    assert_eq!(code, 1);
    assert!(out.contains("header.position_scale"), "{out}");
}

fn write_json(d: &Path, name: &str, j: &Value) -> PathBuf {
    let p = d.join(name);
    std::fs::write(&p, serde_json::to_vec(j).unwrap()).unwrap();
    p
}

/// Bad files: a clear message with the JSON path, nothing written.
#[test]
fn bad_gltf_input_is_refused_with_its_json_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = idle_gltf(d);
    let idle = s(&sample("IDLE.MAN")).to_string();
    let mdh = s(&sample("SAMPLE.MDH")).to_string();
    let try_import = |file: &Path| -> String {
        let err = fails(
            d,
            &[
                "gltf",
                "import",
                s(file),
                "--into",
                &idle,
                "--mdh",
                &mdh,
                "-o",
                "OUT.MAN",
            ],
        );
        assert!(!d.join("OUT.MAN").exists(), "{err}");
        assert!(err.contains(s(file)), "names the file: {err}");
        err
    };
    std::fs::write(d.join("text.gltf"), "hello").unwrap();
    let e = try_import(&d.join("text.gltf"));
    assert!(
        e.contains("not a valid glTF file") && e.contains("line 1 column 1"),
        "{e}"
    );
    // A GLB cut short.
    ok(
        d,
        &["gltf", "export", &idle, "--mdh", &mdh, "-o", "idle.glb"],
    );
    let glb = std::fs::read(d.join("idle.glb")).unwrap();
    std::fs::write(d.join("cut.glb"), &glb[..glb.len() - 10]).unwrap();
    let e = try_import(&d.join("cut.glb"));
    assert!(
        e.contains("not a valid GLB file: byte offset 8: the header says"),
        "{e}"
    );

    let mut j = good.clone();
    j["buffers"][0]["uri"] = "missing.bin".into();
    let e = try_import(&write_json(d, "missing.gltf", &j));
    assert!(
        e.contains("buffers[0].uri: not read: a buffer is read only from a `data:` URI"),
        "{e}"
    );

    let mut j = good.clone();
    let out = j["animations"][0]["samplers"][0]["output"]
        .as_u64()
        .unwrap() as usize;
    j["accessors"][out]["type"] = "VEC3".into();
    let e = try_import(&write_json(d, "type.gltf", &j));
    assert!(
        e.contains(&format!(
            "accessors[{out}] (animations[0].samplers[0].output): type is VEC3, this needs VEC4"
        )),
        "{e}"
    );

    let mut j = good.clone();
    j["accessors"][out]["count"] = 7.into();
    let e = try_import(&write_json(d, "count.gltf", &j));
    assert!(
        e.contains("animations[0].samplers[0]: input has 10 keys, output has 7 values"),
        "{e}"
    );

    let mut j = good.clone();
    j["animations"][0]["channels"][3]["sampler"] = 99.into();
    let e = try_import(&write_json(d, "sampler.gltf", &j));
    assert!(
        e.contains("animations[0].channels[3].sampler: Index out of bounds"),
        "{e}"
    );

    let mut j = good.clone();
    for n in j["nodes"].as_array_mut().unwrap() {
        n["name"] = "Cube".into();
    }
    let e = try_import(&write_json(d, "names.gltf", &j));
    assert!(
        e.contains("animations[0] (S_IDLE)") && e.contains("none of its channels"),
        "{e}"
    );
    let mut j = good.clone();
    j["nodes"][2]["name"] = "Cube".into();
    j["nodes"][1]["name"] = "Cube".into();
    j["nodes"][0]["name"] = "Lamp".into();
    let e = try_import(&write_json(d, "names2.gltf", &j));
    assert!(e.contains("the channels drive Lamp, Cube"), "{e}");

    // A NaN key in the binary buffer.
    use base64::Engine as _;
    let mut j = good.clone();
    let uri = j["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, payload) = uri.split_once(',').unwrap();
    let mut bin = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    let acc = &j["accessors"][out];
    let view = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let at = (view["byteOffset"].as_u64().unwrap() + acc["byteOffset"].as_u64().unwrap()) as usize
        + 16 * 3
        + 4;
    bin[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    j["buffers"][0]["uri"] = format!(
        "{head},{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    )
    .into();
    let e = try_import(&write_json(d, "nan.gltf", &j));
    assert!(
        e.contains(&format!(
            "accessors[{out}] (animations[0].samplers[0].output): element 3 component 1 is NaN"
        )),
        "{e}"
    );

    // A key time below 0 (issue 28 item 12: the glTF specification requires time ≥ 0).
    let input = j["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
    let mut j = good.clone();
    let mut bin = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    let acc = &j["accessors"][input];
    let view = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let at = (view["byteOffset"].as_u64().unwrap() + acc["byteOffset"].as_u64().unwrap()) as usize;
    bin[at..at + 4].copy_from_slice(&(-0.5f32).to_le_bytes());
    j["buffers"][0]["uri"] = format!(
        "{head},{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    )
    .into();
    let e = try_import(&write_json(d, "negative.gltf", &j));
    assert!(
        e.contains("animations[0].samplers[0].input: key 0 is at -0.5 s, but glTF key times cannot be negative"),
        "{e}"
    );

    // Not glTF 2.
    let mut j = good.clone();
    j["asset"]["version"] = "1.0".into();
    let e = try_import(&write_json(d, "v1.gltf", &j));
    assert!(
        e.contains("asset.version: \"1.0\": only glTF 2 is read"),
        "{e}"
    );

    // --into a MAN without -o, an unknown animation name.
    let e = fails(
        d,
        &["gltf", "import", "idle.glb", "--into", &idle, "--mdh", &mdh],
    );
    assert!(e.contains("needs -o OUT.MAN"), "{e}");
    let e = fails(
        d,
        &[
            "gltf",
            "import",
            "idle.glb",
            "--into",
            &idle,
            "--mdh",
            &mdh,
            "-o",
            "OUT.MAN",
            "--animation",
            "S_NONE",
        ],
    );
    assert!(
        e.contains("none is named \"S_NONE\" (the file has: S_IDLE)"),
        "{e}"
    );
    assert!(!d.join("OUT.MAN").exists());
}

/// The README picture was drawn from what `gltf export` writes today (render_poses.py records
/// the SHA-256 of the glTF it drew).
#[test]
fn the_readme_picture_is_current() {
    use sha2::Digest;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "gltf",
            "export",
            s(&sample("HUMAN-S_WALKL.MAN")),
            "--mdh",
            s(&sample("HUMAN.MDH")),
            "-o",
            "walk.glb",
            "--no-origin",
        ],
    );
    let digest = hex::encode(sha2::Sha256::digest(
        std::fs::read(d.join("walk.glb")).unwrap(),
    ));
    let recorded =
        std::fs::read_to_string(root().join("roundtrip-tests/blender/poses.png.sha256")).unwrap();
    assert_eq!(
        recorded.trim(),
        digest,
        "roundtrip-tests/blender/poses.png shows an older export; redraw it:\n  \
         animkit gltf export samples/HUMAN-S_WALKL.MAN --mdh samples/HUMAN.MDH -o walk.glb --no-origin\n  \
         blender -b --factory-startup --python roundtrip-tests/blender/render_poses.py -- walk.glb roundtrip-tests/blender/poses.png"
    );
    let png = std::fs::read(root().join("roundtrip-tests/blender/poses.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}

/// Motion the MAN cannot take is named: a node it does not animate, a scale that changes.
#[test]
fn ignored_motion_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(sample("HUMAN.MDH"), d.join("HUMAN.MDH")).unwrap();
    std::fs::copy(sample("HUMAN-S_RUNL.MAN"), d.join("RUN.MAN")).unwrap();
    ok(
        d,
        &[
            "gltf",
            "export",
            s(&sample("HUMAN-S_WALKL.MAN")),
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "w.glb",
        ],
    );
    // The walk's helmet slot turned; the run does not animate ZS_HELMET.
    let edited = edit_first_rotation(&d.join("w.glb"), "S_WALKL", "ZS_HELMET");
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            s(&edited),
            "--into",
            "RUN.MAN",
            "-o",
            "R.MAN",
        ],
    );
    assert!(
        err.contains("node ZS_HELMET moves in the file, but the MAN does not animate it"),
        "{err}"
    );
    assert!(err.contains("32 frames (was 20)"), "{err}");
    assert!(!err.contains("ZS_LEFTHAND moves"), "{err}");
    // A scale channel that is not 1 (a translation channel relabelled).
    ok(
        d,
        &[
            "gltf",
            "export",
            s(&sample("HUMAN-S_WALKL.MAN")),
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "w.gltf",
        ],
    );
    let mut j: Value = serde_json::from_slice(&std::fs::read(d.join("w.gltf")).unwrap()).unwrap();
    assert_eq!(
        j["animations"][0]["channels"][3]["target"]["path"],
        "translation"
    );
    j["animations"][0]["channels"][3]["target"]["path"] = "scale".into();
    let p = write_json(d, "scaled.gltf", &j);
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            s(&p),
            "--into",
            s(&sample("HUMAN-S_WALKL.MAN")),
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "S.MAN",
        ],
    );
    assert!(
        err.contains("animations[0].channels[3]: the scale of BIP01 PELVIS changes"),
        "{err}"
    );
}

/// Nodes without a channel keep their samples; when the animation grows, their last frame is
/// held.
#[test]
fn nodes_without_channels_keep_their_samples() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(sample("HUMAN.MDH"), d.join("HUMAN.MDH")).unwrap();
    let walk = Man::read(&std::fs::read(sample("HUMAN-S_WALKL.MAN")).unwrap()).unwrap();
    let mut short = walk.clone();
    for c in &mut short.chunks {
        match c {
            Chunk::Header(h) => h.frame_count = 10,
            Chunk::Samples(s) => s.codes.truncate(10 * 26),
            _ => {}
        }
    }
    let mut bytes = Vec::new();
    short.write(&mut bytes).unwrap();
    std::fs::write(d.join("W10.MAN"), &bytes).unwrap();
    // The run (20 frames) drives 23 of the walk's 26 nodes; the three ZS_ slots have no channel.
    ok(
        d,
        &[
            "gltf",
            "export",
            s(&sample("HUMAN-S_RUNL.MAN")),
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "run.glb",
        ],
    );
    // (The run's root rises higher than the walk's position range: --requantize.)
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            "run.glb",
            "--into",
            "W10.MAN",
            "-o",
            "OUT.MAN",
            "--requantize",
        ],
    );
    assert!(
        err.contains("20 frames (was 10), 23 nodes from the file, 3 kept (ZS_HELMET, ZS_LEFTHAND, ZS_RIGHTHAND)"),
        "{err}"
    );
    let out = Man::read(&std::fs::read(d.join("OUT.MAN")).unwrap()).unwrap();
    let (o, w) = (out.samples().unwrap(), short.samples().unwrap());
    for f in 0..20 {
        for k in 23..26 {
            // Rotation codes kept; positions re-packed with the new range.
            assert_eq!(
                o.frame(f)[k][..3],
                w.frame(f.min(9))[k][..3],
                "frame {f} column {k}"
            );
        }
    }
    // The driven nodes carry the run's motion: the walk's column 0 (BIP01) has the run's
    // BIP01 rotation codes at every frame.
    let run = Man::read(&std::fs::read(sample("HUMAN-S_RUNL.MAN")).unwrap()).unwrap();
    let rs = run.samples().unwrap();
    let col = rs.node_indices.iter().position(|&i| i == 0).unwrap();
    for f in 0..20 {
        let (a, b) = (o.frame(f)[0], rs.frame(f)[col]);
        assert_eq!(a[..3], b[..3], "rotation codes of BIP01, frame {f}");
    }
}

/// Keys that start after 0 (Blender's scene left at its default start frame 1) are named.
#[test]
fn a_late_first_key_is_named() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut j = idle_gltf(d);
    let uri = j["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, payload) = uri.split_once(',').unwrap();
    let mut bin = base64::engine::general_purpose::STANDARD
        .decode(payload)
        .unwrap();
    // Accessor 1 holds the key times (frame / 25).
    assert_eq!(j["accessors"][1]["type"], "SCALAR");
    let view = &j["bufferViews"][j["accessors"][1]["bufferView"].as_u64().unwrap() as usize];
    let at = view["byteOffset"].as_u64().unwrap() as usize;
    for k in 0..10 {
        let p = at + 4 * k;
        let t = f32::from_le_bytes(bin[p..p + 4].try_into().unwrap()) + 0.04;
        bin[p..p + 4].copy_from_slice(&t.to_le_bytes());
    }
    j["accessors"][1]["min"] = serde_json::json!([0.04]);
    j["accessors"][1]["max"] = serde_json::json!([0.4]);
    j["buffers"][0]["uri"] = format!(
        "{head},{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    )
    .into();
    let p = write_json(d, "late.gltf", &j);
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            s(&p),
            "--into",
            s(&sample("IDLE.MAN")),
            "--mdh",
            s(&sample("SAMPLE.MDH")),
            "-o",
            "L.MAN",
        ],
    );
    assert!(
        err.contains("its first key is at 0.03999999910593033 s (frame 1 at 25 fps)")
            && err.contains("set the scene's start frame to 0"),
        "{err}"
    );
    assert!(err.contains("11 frames (was 10)"), "{err}");
}

/// A position moved in glTF: `gltf import` warns that the MAN header's bbox (kept as stored)
/// did not follow; an untouched import says nothing.
#[test]
fn a_moved_position_warns_that_the_bbox_is_stale() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(sample("HUMAN-S_WALKL.MAN"), d.join("WALK.MAN")).unwrap();
    std::fs::copy(sample("HUMAN.MDH"), d.join("HUMAN.MDH")).unwrap();
    ok(
        d,
        &[
            "gltf",
            "export",
            "WALK.MAN",
            "--mdh",
            "HUMAN.MDH",
            "-o",
            "walk.glb",
        ],
    );
    let err = ok(
        d,
        &[
            "gltf", "import", "walk.glb", "--into", "WALK.MAN", "-o", "SAME.MAN",
        ],
    );
    assert!(!err.contains("warning"), "{err}");
    // the first translation key's y, 5 cm lower
    let data = std::fs::read(d.join("walk.glb")).unwrap();
    let json_len = u32::from_le_bytes(data[12..16].try_into().unwrap()) as usize;
    let j: Value = serde_json::from_slice(&data[20..20 + json_len]).unwrap();
    let a = &j["animations"][0];
    let ch = a["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["target"]["path"] == "translation")
        .unwrap();
    let sampler = &a["samplers"][ch["sampler"].as_u64().unwrap() as usize];
    let acc = &j["accessors"][sampler["output"].as_u64().unwrap() as usize];
    let view = &j["bufferViews"][acc["bufferView"].as_u64().unwrap() as usize];
    let at = 20
        + json_len
        + 8
        + 4
        + (view["byteOffset"].as_u64().unwrap_or(0) + acc["byteOffset"].as_u64().unwrap_or(0))
            as usize;
    let mut out = data.clone();
    let y = f32::from_le_bytes(out[at..at + 4].try_into().unwrap()) - 0.05;
    out[at..at + 4].copy_from_slice(&y.to_le_bytes());
    std::fs::write(d.join("edited.glb"), out).unwrap();
    let err = ok(
        d,
        &[
            "gltf",
            "import",
            "edited.glb",
            "--into",
            "WALK.MAN",
            "-o",
            "EDIT.MAN",
        ],
    );
    assert!(
        err.contains(
            "warning: EDIT.MAN: header.bbox: positions changed but header.bbox did not: it stays \
             {min: [-45.0, 0.0, -20.0], max: [45.0, 180.0, 25.0]}"
        ),
        "{err}"
    );
}

/// A member's data range in an archive (from `vdf list --json`).
pub fn member_range(dir: &Path, archive: &str, member: &str) -> (usize, usize) {
    let (code, out, err) = run(dir, &["vdf", "list", "--json", archive]);
    assert_eq!(code, 0, "{err}");
    let list: Value = serde_json::from_str(&out).unwrap();
    let e = list
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["path"] == member)
        .unwrap_or_else(|| panic!("{member} in {out}"));
    let at = e["offset"].as_u64().unwrap() as usize;
    (at, at + e["stored"].as_u64().unwrap() as usize)
}

/// `gltf import FILE.glb` alone (and the one-step drop) for a glTF exported from an archive:
/// the edited animation's MAN replaced inside the archive (the same bytes as importing into an
/// unpacked copy), every other byte of the archive as it was, the untouched animation not
/// rewritten, the archive kept once as `.bak`; a glTF older than a change of the archive is
/// refused and nothing written. Plain and Union-zipped volumes.
#[test]
fn gltf_back_into_the_archive_it_was_exported_from_in_one_step() {
    for zipped in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let src = d.join("src/ANIMS/_COMPILED");
        std::fs::create_dir_all(&src).unwrap();
        for f in [
            "HUMAN-S_WALKL.MAN",
            "HUMAN-S_RUNL.MAN",
            "HUMAN.MDH",
            "SAMPLE.MDH",
            "IDLE.MAN",
        ] {
            std::fs::copy(sample(f), src.join(f)).unwrap();
        }
        let mut pack = vec![
            "vdf",
            "pack",
            "src",
            "-o",
            "Anims.vdf",
            "--timestamp",
            "2026-01-01 00:00:00",
        ];
        if zipped {
            pack.push("--zipped");
        }
        ok(d, &pack);
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
                "h.glb",
            ],
        );
        // Untouched: nothing written, no .bak.
        let err = ok(d, &["gltf", "import", "h.glb"]);
        assert!(err.contains("nothing changed"), "{err}");
        assert!(std::fs::read(d.join("Anims.vdf")).unwrap() == original);
        assert!(!d.join("Anims.vdf.bak").exists());

        // The reference: the same edit imported into an unpacked copy.
        let edited = crate::gltf::edit_first_rotation(&d.join("h.glb"), "S_WALKL", "BIP01 HEAD");
        ok(d, &["unpack", "Anims.vdf", "-o", "work"]);
        ok(d, &["gltf", "import", s(&edited), "--into", "work"]);
        let want = std::fs::read(d.join("work/ANIMS/_COMPILED/HUMAN-S_WALKL.MAN")).unwrap();
        assert_ne!(want, std::fs::read(sample("HUMAN-S_WALKL.MAN")).unwrap());

        // Dropped on animkit (the one-step use): back into the archive.
        let (code, _, err) = run(d, &[s(&edited)]);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains("updated ANIMS/_COMPILED/HUMAN-S_WALKL.MAN in ")
                && err.contains(
                    "Anims.vdf: S_WALKL: 32 frames, 26 nodes from the file, 1 samples changed"
                )
                && err.contains("Anims.vdf.bak)")
                && err.contains("Anims.vdf/ANIMS/_COMPILED/HUMAN-S_RUNL.MAN: S_RUNL: 20 frames")
                && !err.contains("updated ANIMS/_COMPILED/HUMAN-S_RUNL.MAN"),
            "{err}"
        );
        assert!(std::fs::read(d.join("Anims.vdf.bak")).unwrap() == original);
        let now = std::fs::read(d.join("Anims.vdf")).unwrap();
        ok(
            d,
            &["vdf", "extract", "Anims.vdf", "*S_WALKL*", "-o", "out"],
        );
        assert!(std::fs::read(d.join("out/ANIMS/_COMPILED/HUMAN-S_WALKL.MAN")).unwrap() == want);
        // Every byte outside the edited member's data (and, zipped, outside the catalog's
        // offsets of the members after it) as it was.
        let (a, b) = member_range(d, "Anims.vdf.bak", "ANIMS/_COMPILED/HUMAN-S_WALKL.MAN");
        let (a2, b2) = member_range(d, "Anims.vdf", "ANIMS/_COMPILED/HUMAN-S_WALKL.MAN");
        assert_eq!(a, a2);
        if zipped {
            // the stream is compressed anew (the offsets after it follow it): the header as
            // it was, every other member's stored stream the same bytes
            assert!(now[..296] == original[..296], "the header changed");
            for m in ["HUMAN-S_RUNL.MAN", "HUMAN.MDH", "IDLE.MAN", "SAMPLE.MDH"] {
                let m = format!("ANIMS/_COMPILED/{m}");
                let (x, y) = member_range(d, "Anims.vdf.bak", &m);
                let (x2, y2) = member_range(d, "Anims.vdf", &m);
                assert!(original[x..y] == now[x2..y2], "{m} changed");
            }
        } else {
            assert_eq!((b, now.len()), (b2, original.len()));
            let differ: Vec<usize> = (0..now.len()).filter(|&i| now[i] != original[i]).collect();
            assert!(
                !differ.is_empty() && differ.iter().all(|&i| (a..b).contains(&i)),
                "bytes outside {a}..{b} changed: {:?}",
                &differ[..differ.len().min(10)]
            );
        }
        let (code, out, _) = run(d, &["verify", "Anims.vdf"]);
        assert_eq!(code, 0, "{out}");
        // The same file again: the member is no longer what it was exported from.
        let err = fails(d, &["gltf", "import", s(&edited)]);
        assert!(
            err.contains("ANIMS/_COMPILED/HUMAN-S_WALKL.MAN changed since the glTF was exported from this archive")
                && err.contains("nothing was written"),
            "{err}"
        );
        assert!(std::fs::read(d.join("Anims.vdf")).unwrap() == now);
        assert!(std::fs::read(d.join("Anims.vdf.bak")).unwrap() == original);
        // A fresh export from the changed archive goes back again; the first .bak stays.
        ok(
            d,
            &[
                "gltf",
                "export",
                "Anims.vdf",
                "--model",
                "HUMAN",
                "-o",
                "h2.glb",
            ],
        );
        let edited2 = crate::gltf::edit_first_rotation(&d.join("h2.glb"), "S_RUNL", "BIP01 HEAD");
        let err = ok(d, &["gltf", "import", s(&edited2)]);
        assert!(
            err.contains("updated ANIMS/_COMPILED/HUMAN-S_RUNL.MAN in ")
                && err.contains(
                    "Anims.vdf: S_RUNL: 20 frames, 23 nodes from the file, 1 samples changed"
                )
                && !err.contains("kept as"),
            "{err}"
        );
        assert!(std::fs::read(d.join("Anims.vdf.bak")).unwrap() == original);
        ok(
            d,
            &["vdf", "extract", "Anims.vdf", "*S_WALKL*", "-o", "out2"],
        );
        assert!(std::fs::read(d.join("out2/ANIMS/_COMPILED/HUMAN-S_WALKL.MAN")).unwrap() == want);
    }
}
