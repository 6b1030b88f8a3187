//! The Blender add-on (blender/animkit_blender) in the real Blender, headless: installed from
//! its zip as a user does, File > Import > Gothic model/animation (animkit) of MANs beside
//! their MDH and of a model in a VDF archive (mixed frame rates), one bone keyed at one
//! frame, File > Export > Gothic animation (animkit): exactly that node at that frame changes,
//! every other animation stays byte-identical, and a refusal of animkit reaches Blender as an
//! error report with animkit's message, changing nothing. Each test runs in Debian's Blender 3.4
//! and in Blender 4.5 (PyPI's `bpy` module, roundtrip-tests/blender/bpy_run.py): the add-on's
//! oldest and current API.

use crate::common::{animkit, root, run};
use crate::gltf::{missing_tool, ok, s, sample};
use crate::gltf_blender::blender;
use animkit::zengin::man::Man;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// One add-on test run twice: in Debian's Blender 3.4 and in Blender 4.5 LTS (PyPI's `bpy`
/// module); `corpus` when it needs ../shared/corpus too. Each shows as ignored, saying what to
/// install, when its Blender (or the corpus) is missing.
macro_rules! in_both_blenders {
    (corpus, $name:ident, $name4:ident, $body:ident) => {
        #[test]
        #[cfg_attr(
            any(missing = "corpus", missing = "blender"),
            ignore = "needs ../shared/corpus and Blender (apt-get install blender python3-numpy)"
        )]
        fn $name() {
            $body(Blender::Debian);
        }

        #[test]
        #[cfg_attr(
            any(missing = "corpus", missing = "bpy"),
            ignore = "needs ../shared/corpus and Blender 4.5 as bpy in roundtrip-tests/bpy/venv (.ci/run)"
        )]
        fn $name4() {
            $body(Blender::Bpy45);
        }
    };
    ($name:ident, $name4:ident, $body:ident) => {
        #[test]
        #[cfg_attr(
            missing = "blender",
            ignore = "needs Blender: apt-get install blender python3-numpy"
        )]
        fn $name() {
            $body(Blender::Debian);
        }

        #[test]
        #[cfg_attr(
            missing = "bpy",
            ignore = "needs Blender 4.5 as bpy in roundtrip-tests/bpy/venv (.ci/run)"
        )]
        fn $name4() {
            $body(Blender::Bpy45);
        }
    };
}

/// The add-on's zip, built by its script (as release/build does).
fn addon_zip(dir: &Path) -> Option<PathBuf> {
    let out = std::process::Command::new("python3")
        .arg(root().join("blender/build_zip.py"))
        .arg(dir)
        .output();
    let Ok(out) = out else {
        return missing_tool("python3", "apt-get install python3");
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let zip = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(
        zip.ends_with(format!("animkit_blender-{}.zip", env!("CARGO_PKG_VERSION"))),
        "{}",
        zip.display()
    );
    Some(zip)
}

/// A Blender the add-on test runs in: Debian's `blender` (3.4), or Blender 4.5 as PyPI's `bpy`
/// module in the venv .ci/run makes (`python3 -m venv roundtrip-tests/bpy/venv` and
/// `pip install bpy==4.5.15` in it).
#[derive(Clone, Copy)]
enum Blender {
    Debian,
    Bpy45,
}

impl Blender {
    /// The command that runs `script` headless with `args` after `--`, or None (a skip, a
    /// failure in CI) when this Blender is missing.
    fn command(self, script: &Path) -> Option<std::process::Command> {
        match self {
            Blender::Debian => {
                let mut c = std::process::Command::new(blender()?);
                c.args(["-b", "--factory-startup", "--python"]).arg(script);
                Some(c)
            }
            Blender::Bpy45 => {
                let bin = if cfg!(windows) {
                    "Scripts/python.exe"
                } else {
                    "bin/python"
                };
                let python = root().join("roundtrip-tests/bpy/venv").join(bin);
                if !python.is_file() {
                    return missing_tool(
                        "Blender 4.5 (the bpy module)",
                        "python3 -m venv roundtrip-tests/bpy/venv && \
                         roundtrip-tests/bpy/venv/bin/pip install bpy==4.5.15 (.ci/run does it)",
                    );
                }
                let mut c = std::process::Command::new(python);
                c.arg(root().join("roundtrip-tests/blender/bpy_run.py"))
                    .arg(script);
                Some(c)
            }
        }
    }
}

/// Run roundtrip-tests/blender/addon_test.py; returns its report and Blender's stdout.
fn blender_addon(
    exe: std::process::Command,
    tmp: &Path,
    mode: &str,
    source: &Path,
    model: &str,
    run_fps: u32,
    blender: Blender,
) -> (Value, String) {
    let zip = addon_zip(&tmp.join("zip")).expect("python3 is there when Blender is");
    let report = tmp.join(format!("{mode}.json"));
    // The add-on goes into a scripts folder of this test, not the user's.
    let mut exe = exe;
    let out = exe
        .env("BLENDER_USER_SCRIPTS", tmp.join("scripts"))
        .env("BLENDER_USER_CONFIG", tmp.join("config"))
        .env("RUN_FPS", run_fps.to_string())
        .arg("--")
        .arg(&zip)
        .arg(env!("CARGO_BIN_EXE_animkit"))
        .arg(&report)
        .arg(mode)
        .arg(source)
        .arg(model)
        .output()
        .expect("blender runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && text.contains("animkit-addon-test: ok"),
        "blender failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    // It ran in the Blender it was meant for.
    let version = report["blender"].as_str().unwrap_or_default();
    let want = match blender {
        Blender::Debian => "3.4",
        Blender::Bpy45 => "4.5",
    };
    assert!(version.starts_with(want), "Blender {version}, not {want}");
    (report, text)
}

/// The (frame, column) pairs whose decoded sample differs.
fn changed_samples(old: &[u8], new: &[u8]) -> Vec<(usize, usize)> {
    let (old, new) = (Man::read(old).unwrap(), Man::read(new).unwrap());
    let n = old.samples().unwrap().node_indices.len();
    assert_eq!(n, new.samples().unwrap().node_indices.len());
    let (a, b) = (old.decode_samples(), new.decode_samples());
    assert_eq!(a.len(), b.len());
    (0..a.len())
        .filter(|&i| a[i] != b[i])
        .map(|i| (i / n, i % n))
        .collect()
}

fn sha256(path: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(path).unwrap()))
}

/// The refused second export (BIP01 keyed 1 km away): animkit's message, nothing written.
fn check_refusal(report: &Value, files: &[PathBuf]) {
    let refused = report["refused"].as_str().expect("the export was refused");
    assert!(
        refused.starts_with("Error: animkit: ")
            && refused.contains("frame 5, node 0 (BIP01)")
            && refused.contains("--requantize"),
        "{refused}"
    );
    for f in files {
        let key = f.to_str().unwrap();
        assert_eq!(report["after_export"][key], sha256(f), "{key} changed");
    }
}

fn addon_script() -> PathBuf {
    root().join("roundtrip-tests/blender/addon_test.py")
}

in_both_blenders!(
    addon_imports_mans_and_writes_one_keyed_bone_back,
    addon_imports_mans_and_writes_one_keyed_bone_back_blender4,
    mans_and_one_keyed_bone
);

fn mans_and_one_keyed_bone(blender: Blender) {
    let Some(exe) = blender.command(&addon_script()) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("Mods Ä ß");
    std::fs::create_dir(&work).unwrap();
    for name in [
        "HUMAN.MDH",
        "HUMAN-S_WALKL.MAN",
        "HUMAN-S_RUNL.MAN",
        "SAMPLE.MDH",
        "WALK.MAN",
    ] {
        std::fs::copy(sample(name), work.join(name)).unwrap();
    }
    let (report, stdout) = blender_addon(exe, tmp.path(), "mans", &work, "", 25, blender);
    // The scene as the README's loop sets it: the MANs' 25 fps, frames 0 .. 31 (the walk).
    assert_eq!(report["fps"], 25, "{report}");
    assert_eq!(report["frame_range"], serde_json::json!([0, 31]));
    assert_eq!(report["nla"], serde_json::json!(["S_RUNL", "S_WALKL"]));
    assert_eq!(report["origin"]["kind"], "mans");
    assert_eq!(report["origin"]["mdh"], s(&work.join("HUMAN.MDH")));

    // Only BIP01 L FOREARM (MDH node 9, column 9 of the walk) at frame 10 changed.
    let walk = work.join("HUMAN-S_WALKL.MAN");
    let bak = work.join("HUMAN-S_WALKL.MAN.bak");
    assert_eq!(
        std::fs::read(&bak).unwrap(),
        std::fs::read(sample("HUMAN-S_WALKL.MAN")).unwrap()
    );
    assert_eq!(
        changed_samples(
            &std::fs::read(&bak).unwrap(),
            &std::fs::read(&walk).unwrap()
        ),
        vec![(10, 9)]
    );
    let (code, diff, _) = run(&work, &["diff", s(&bak), s(&walk)]);
    assert_eq!(code, 1);
    assert_eq!(diff.lines().count(), 1, "{diff}");
    // (named by HUMAN.MDH beside the files)
    assert!(
        diff.starts_with("BIP01 L FOREARM: frame 10: rotation "),
        "{diff}"
    );
    // The add-on showed the same diff in Blender's reports.
    assert!(
        stdout.contains("Info:   BIP01 L FOREARM: frame 10: rotation "),
        "{stdout}"
    );
    assert!(
        stdout.contains("Info: HUMAN-S_RUNL.MAN: unchanged"),
        "{stdout}"
    );
    // Everything else: byte-identical, no backup written.
    for name in ["HUMAN-S_RUNL.MAN", "WALK.MAN", "HUMAN.MDH"] {
        assert_eq!(
            std::fs::read(work.join(name)).unwrap(),
            std::fs::read(sample(name)).unwrap(),
            "{name}"
        );
    }
    assert!(!work.join("HUMAN-S_RUNL.MAN.bak").exists());
    check_refusal(&report, &[walk, work.join("HUMAN-S_RUNL.MAN")]);
}

in_both_blenders!(
    addon_imports_a_mixed_rate_model_from_an_archive_and_writes_it_back,
    addon_imports_a_mixed_rate_model_from_an_archive_and_writes_it_back_blender4,
    mixed_rate_archive
);

fn mixed_rate_archive(blender: Blender) {
    let Some(exe) = blender.command(&addon_script()) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // A model whose run is stored at 10 fps and walk at 25 fps, in an archive.
    let pack = d.join("pack");
    std::fs::create_dir(&pack).unwrap();
    std::fs::copy(sample("HUMAN.MDH"), pack.join("HUMAN.MDH")).unwrap();
    std::fs::copy(sample("HUMAN-S_WALKL.MAN"), pack.join("HUMAN-S_WALKL.MAN")).unwrap();
    let out = animkit()
        .args(["export", s(&sample("HUMAN-S_RUNL.MAN"))])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\n    fps: 25.0\n"));
    std::fs::write(
        d.join("run10.yaml"),
        text.replacen("\n    fps: 25.0\n", "\n    fps: 10.0\n", 1),
    )
    .unwrap();
    ok(
        d,
        &[
            "import",
            "run10.yaml",
            "-o",
            s(&pack.join("HUMAN-S_RUNL.MAN")),
        ],
    );
    let archive = d.join("Änims Mod.vdf");
    ok(d, &["vdf", "pack", "pack", "-o", s(&archive)]);
    let original = std::fs::read(&archive).unwrap();

    let (report, stdout) = blender_addon(exe, d, "archive", &archive, "HUMAN", 10, blender);
    // 25 and 10 fps: the scene at 50, where both rates' frames are whole frames; the run's
    // 19th frame is scene frame 95.
    assert_eq!(report["fps"], 50, "{report}");
    assert_eq!(report["frame_range"], serde_json::json!([0, 95]));
    assert_eq!(report["edited_scene_frame"], 20);
    assert_eq!(report["origin"]["kind"], "archive");
    assert_eq!(report["origin"]["model"], "HUMAN");

    // The archive: only the walk changed, only node 9 at frame 10.
    let bak = d.join("Änims Mod.vdf.bak");
    assert_eq!(std::fs::read(&bak).unwrap(), original);
    for (vdf, dir) in [(&bak, "old"), (&archive, "new")] {
        ok(d, &["vdf", "extract", s(vdf), "-o", dir]);
    }
    let member = |dir: &str, name: &str| std::fs::read(d.join(dir).join(name)).unwrap();
    assert_eq!(
        changed_samples(
            &member("old", "HUMAN-S_WALKL.MAN"),
            &member("new", "HUMAN-S_WALKL.MAN")
        ),
        vec![(10, 9)]
    );
    for name in ["HUMAN-S_RUNL.MAN", "HUMAN.MDH"] {
        assert_eq!(member("old", name), member("new", name), "{name}");
    }
    assert_eq!(
        member("new", "HUMAN-S_RUNL.MAN"),
        std::fs::read(pack.join("HUMAN-S_RUNL.MAN")).unwrap()
    );
    let (code, diff, _) = run(d, &["diff", s(&bak), s(&archive)]);
    assert_eq!(code, 1, "{diff}");
    assert!(
        diff.contains("HUMAN-S_WALKL.MAN")
            && diff.contains("samples node 9 (index 9): 1 of 32 frames changed")
            && !diff.contains("HUMAN-S_RUNL.MAN"),
        "{diff}"
    );
    assert!(stdout.contains("Info: Änims Mod.vdf: changed"), "{stdout}");
    check_refusal(&report, &[archive]);
}

in_both_blenders!(
    corpus,
    addon_imports_an_asc_and_writes_its_man,
    addon_imports_an_asc_and_writes_its_man_blender4,
    asc_to_man
);

/// A real GothicSourcer ASC (the molerat's jump) with its model's MDH beside it: File > Import
/// compiles it (animkit's `asc import`), one bone keyed, File > Export writes
/// SWAMPRAT-MOL_JUMP_M01.MAN beside the ASC: the ASC's animation with exactly that change; the
/// ASC itself is left as it was.
fn asc_to_man(blender: Blender) {
    let Some(mut exe) = blender.command(&addon_script()) else {
        return;
    };
    let Some(pairs) = crate::common::corpus_path("realworld/asc-pairs") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("Mod ASC");
    std::fs::create_dir(&work).unwrap();
    let asc_src = pairs.join(
        "CarnageMarkus+gothic-animations-decompiled/Gothic_2/MONSTER/MOLERAT/MOL_JUMP_M01.ASC",
    );
    let asc = work.join("MOL_JUMP_M01.ASC");
    let mdh = work.join("SWAMPRAT.MDH");
    std::fs::copy(&asc_src, &asc).unwrap();
    std::fs::copy(
        pairs.join("PiotrDrozdz96+Gothic/Anims/_compiled/SWAMPRAT.MDH"),
        &mdh,
    )
    .unwrap();
    exe.env("KEY_TRACK", "MOL_JUMP_M01")
        .env("KEY_BONE", "BIP01 NECK");
    let (report, stdout) = blender_addon(exe, tmp.path(), "asc", &asc, "", 25, blender);
    assert_eq!(report["origin"]["kind"], "asc");
    assert_eq!(report["origin"]["mdh"], s(&mdh));
    assert_eq!(report["frame_range"], serde_json::json!([0, 22]));

    // The same compile by hand: the add-on's MAN differs from it in BIP01 NECK (node 5) at
    // frame 10 only.
    let plain = tmp.path().join("plain.MAN");
    ok(
        &work,
        &[
            "asc",
            "import",
            s(&asc),
            "--mdh",
            s(&mdh),
            "--ani",
            "ani (\"MOL_JUMP_M01\" 1 \"\" 0.0 0.0 M. \"MOL_JUMP_M01.ASC\" F 0 -1)",
            "-o",
            s(&plain),
        ],
    );
    let man = work.join("SWAMPRAT-MOL_JUMP_M01.MAN");
    assert_eq!(
        changed_samples(
            &std::fs::read(&plain).unwrap(),
            &std::fs::read(&man).unwrap()
        ),
        vec![(10, 5)]
    );
    assert!(
        stdout.contains("Info: SWAMPRAT-MOL_JUMP_M01.MAN: new, from MOL_JUMP_M01.ASC"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Info:   samples node 5 (index 5): 1 of 23 frames changed"),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(&asc).unwrap(),
        std::fs::read(&asc_src).unwrap()
    );
    let (code, _, err) = run(&work, &["verify", s(&man)]);
    assert_eq!(code, 0, "{err}");
    check_refusal(&report, &[man]);
}

in_both_blenders!(
    corpus,
    addon_imports_a_models_mesh_skinned_to_its_armature,
    addon_imports_a_models_mesh_skinned_to_its_armature_blender4,
    model_mesh
);

/// A model folder with the real swamp rat (SWAMPRAT.MDH, its body as SWAMPRAT.MDM, one MAN):
/// the add-on's import brings the mesh (the model's own NAME.MDM, as `gltf export --model`
/// takes it), skinned to the armature: a mesh object under it with an Armature modifier on it
/// and the body's 692 vertices; a human (HUMANS_RUN.MDH, the armour HUM_DMB_ARMOR_TPL.MDM
/// chosen as the body, the textures' folder in the import's texture chooser) whose materials
/// get the three textures the corpus has.
fn model_mesh(blender: Blender) {
    let script = root().join("roundtrip-tests/blender/addon_mesh.py");
    let Some(exe) = blender.command(&script) else {
        return;
    };
    let Some(real) = crate::common::corpus_path("realworld") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("model");
    std::fs::create_dir(&model).unwrap();
    for (from, to) in [
        (
            "mdh/PiotrDrozdz96+Gothic/Anims/_compiled/SWAMPRAT.MDH",
            "SWAMPRAT.MDH",
        ),
        (
            "mesh/PiotrDrozdz96+Gothic/Anims/_compiled/SWAMPRAT_BODY.MDM",
            "SWAMPRAT.MDM",
        ),
        (
            "man/PiotrDrozdz96+Gothic/Anims/_compiled/SWAMPRAT-S_FISTRUN.MAN",
            "SWAMPRAT-S_FISTRUN.MAN",
        ),
    ] {
        std::fs::copy(real.join(from), model.join(to)).unwrap();
    }
    let (report, _) = blender_mesh(exe, tmp.path(), &model, "SWAMPRAT", &[], "mesh");
    let skinned = skinned_meshes(&report);
    assert_eq!(skinned.len(), 1, "{report}");
    assert_eq!(skinned[0]["vertices"], 692, "{report}");
    assert_eq!(skinned[0]["images"], serde_json::json!([]), "{report}");

    // A human with the import's texture chooser set to the compiled textures' folder: the
    // armour's materials (skinned and node-attached meshes) get their images: the three
    // ORCMERS textures the corpus has of its six.
    let human = tmp.path().join("human");
    std::fs::create_dir(&human).unwrap();
    for (from, to) in [
        (
            "mdh/PiotrDrozdz96+Gothic/Anims/_compiled/HUMANS_RUN.MDH",
            "HUMANS_RUN.MDH",
        ),
        (
            "mesh/PiotrDrozdz96+Gothic/Anims/_compiled/HUM_DMB_ARMOR_TPL.MDM",
            "HUM_DMB_ARMOR_TPL.MDM",
        ),
        (
            "asc-pairs/PiotrDrozdz96+Gothic/Anims/_compiled/HUMANS_1HST3-T_1HPARADE_O.MAN",
            "HUMANS_RUN-T_1HPARADE_O.MAN",
        ),
    ] {
        std::fs::copy(real.join(from), human.join(to)).unwrap();
    }
    let textures = format!(
        "textures={}",
        real.join("mesh/PiotrDrozdz96+Gothic/Textures").display()
    );
    let exe = blender.command(&script).unwrap();
    let (report, stdout) = blender_mesh(
        exe,
        tmp.path(),
        &human,
        "HUMANS_RUN",
        &["HUM_DMB_ARMOR_TPL", &textures],
        "textured",
    );
    assert!(!skinned_meshes(&report).is_empty(), "{report}");
    let mut images: Vec<String> = report["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["type"] == "MESH")
        .flat_map(|m| m["images"].as_array().unwrap().clone())
        .map(|i| i.as_str().unwrap().to_string())
        .collect();
    images.sort();
    images.dedup();
    assert_eq!(
        images,
        [
            "ORCMERS_M_ARMOR_Z1.TGA",
            "ORCMERS_VH_ARMOR_Z1.TGA",
            "ORCMERS_VH_ARMOR_Z2.TGA"
        ],
        "{report}\n{stdout}"
    );
}

/// Run roundtrip-tests/blender/addon_mesh.py (the import of SOURCE, model MODEL, with the
/// body and head chosen in `choices`); returns its report and Blender's stdout.
fn blender_mesh(
    mut exe: std::process::Command,
    tmp: &Path,
    source: &Path,
    model: &str,
    choices: &[&str],
    tag: &str,
) -> (Value, String) {
    let zip = addon_zip(&tmp.join("zip")).expect("python3 is there when Blender is");
    let report = tmp.join(format!("{tag}.json"));
    let out = exe
        .env("BLENDER_USER_SCRIPTS", tmp.join("scripts"))
        .env("BLENDER_USER_CONFIG", tmp.join("config"))
        .arg("--")
        .arg(&zip)
        .arg(env!("CARGO_BIN_EXE_animkit"))
        .arg(&report)
        .arg(source)
        .arg(model)
        .args(choices)
        .output()
        .expect("blender runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && text.contains("animkit-addon-mesh: ok"),
        "blender failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    (report, text)
}

/// The mesh objects under the armature with an Armature modifier on it.
fn skinned_meshes(report: &Value) -> Vec<Value> {
    let objects = report["objects"].as_array().unwrap();
    let arm = objects
        .iter()
        .find(|o| o["type"] == "ARMATURE")
        .expect("an armature");
    let arm_name = arm["name"].as_str().unwrap();
    objects
        .iter()
        .filter(|o| {
            o["type"] == "MESH"
                && o["parent"] == arm_name
                && o["modifiers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|m| m["type"] == "ARMATURE" && m["object"] == arm_name)
        })
        .cloned()
        .collect()
}

in_both_blenders!(
    corpus,
    addon_imports_a_body_named_unlike_its_model,
    addon_imports_a_body_named_unlike_its_model_blender4,
    body_named_unlike_model
);

/// The real boar (KEILER.MDH, two of its MANs) in a folder with its body under its real name
/// KEILER_BODY.MDM, another model's body (SWAMPRAT_BODY.MDM) and a head (ORCSTONE_HEAD.MMB):
/// without a choice the import finds the body by the MDH's source chunk (both were compiled
/// from KEILER_BODY.ASC) and says so; with the body and head chosen from the import's lists,
/// the body is skinned to the armature and the head hangs on BIP01 HEAD (473 and 92 vertices in
/// Blender, the swamp rat's body has 692). And the human case: HUMANS_1HST1.MDH with three
/// meshes of its skeleton, HUM_BODY_NAKED0.MDM found by the MDH's source.
fn body_named_unlike_model(blender: Blender) {
    let script = root().join("roundtrip-tests/blender/addon_mesh.py");
    let (Some(exe), Some(exe2)) = (blender.command(&script), blender.command(&script)) else {
        return;
    };
    let Some(real) = crate::common::corpus_path("realworld") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("Keiler Mod");
    std::fs::create_dir(&model).unwrap();
    for (kind, name) in [
        ("mdh", "KEILER.MDH"),
        ("man", "KEILER-T_WARN.MAN"),
        ("man", "KEILER-S_FISTRUN.MAN"),
        ("mesh", "KEILER_BODY.MDM"),
        ("mesh", "SWAMPRAT_BODY.MDM"),
        ("mesh", "ORCSTONE_HEAD.MMB"),
    ] {
        let from = real
            .join(kind)
            .join("PiotrDrozdz96+Gothic/Anims/_compiled")
            .join(name);
        std::fs::copy(from, model.join(name)).unwrap();
    }
    // animkit's own glTF of the same meshes: 520 and 93 vertices (one per position, normal and
    // texture coordinate of each triangle list); Blender's importer merges the vertices that
    // are equal in every attribute: 473 and 92.
    let glb = tmp.path().join("keiler.glb");
    ok(
        tmp.path(),
        &[
            "gltf",
            "export",
            s(&model),
            "--model",
            "KEILER",
            "--mesh",
            "KEILER_BODY",
            "--head",
            "ORCSTONE_HEAD",
            "-o",
            s(&glb),
        ],
    );
    let doc = crate::gltf_mesh::glb_json(&glb);
    let vertices = |mesh: &str| -> u64 {
        let m = doc["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == mesh)
            .unwrap_or_else(|| panic!("no mesh {mesh}"));
        m["primitives"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let a = p["attributes"]["POSITION"].as_u64().unwrap() as usize;
                doc["accessors"][a]["count"].as_u64().unwrap()
            })
            .sum()
    };
    assert_eq!(
        (vertices("KEILER_BODY"), vertices("ORCSTONE_HEAD")),
        (520, 93)
    );
    let (body, head) = (473, 92);

    // Nothing chosen: the body found by the MDH's source, no head.
    let (report, stdout) = blender_mesh(exe, tmp.path(), &model, "KEILER", &[], "auto");
    assert!(
        stdout.contains(
            "Info: animkit: body KEILER_BODY (compiled from KEILER_BODY.ASC like KEILER.MDH)"
        ),
        "{stdout}"
    );
    let skinned = skinned_meshes(&report);
    assert_eq!(skinned.len(), 1, "{report}");
    assert_eq!(
        (&skinned[0]["name"], &skinned[0]["vertices"]),
        (&Value::from("KEILER_BODY"), &Value::from(body))
    );
    // No head, not the other body.
    assert!(
        report["objects"]
            .as_array()
            .unwrap()
            .iter()
            .all(|o| o["name"] != "ORCSTONE_HEAD" && o["name"] != "SWAMPRAT_BODY"),
        "{report}"
    );

    // Chosen from the lists: the body skinned, the head on the head bone.
    let (report, _) = blender_mesh(
        exe2,
        tmp.path(),
        &model,
        "KEILER",
        &["KEILER_BODY", "ORCSTONE_HEAD"],
        "chosen",
    );
    let skinned = skinned_meshes(&report);
    assert_eq!(skinned.len(), 1, "{report}");
    assert_eq!(skinned[0]["vertices"], body, "{report}");
    let heads: Vec<&Value> = report["objects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["name"] == "ORCSTONE_HEAD")
        .collect();
    assert_eq!(heads.len(), 1, "{report}");
    assert_eq!(heads[0]["type"], "MESH");
    assert_eq!(heads[0]["parent_bone"], "BIP01 HEAD");
    assert_eq!(heads[0]["vertices"], head);

    // The human case: a model named HUMANS_1HST1 whose body is HUM_BODY_NAKED0.MDM, beside a
    // slave's body and an armour of the same skeleton (all three have its checksum
    // 0xc63488c2); no MAN of it yet. The MDH's source (HUM_BODY_NAKED0.ASC) picks the body.
    let Some(exe3) = blender.command(&script) else {
        return;
    };
    let humans = tmp.path().join("humans");
    std::fs::create_dir(&humans).unwrap();
    let nastas = "NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled";
    let piotr = "PiotrDrozdz96+Gothic/Anims/_compiled";
    for (kind, repo, name) in [
        ("mdh", piotr, "HUMANS_1HST1.MDH"),
        ("mesh", nastas, "HUM_BODY_NAKED0.MDM"),
        ("mesh", nastas, "HUM_BODY_SLAVE0.MDM"),
        ("mesh", piotr, "HUM_DHTL_ARMOR.MDM"),
    ] {
        std::fs::copy(real.join(kind).join(repo).join(name), humans.join(name)).unwrap();
    }
    let (report, stdout) = blender_mesh(
        exe3,
        tmp.path(),
        &humans.join("HUMANS_1HST1.MDH"),
        "",
        &[],
        "humans",
    );
    assert!(
        stdout.contains(
            "Info: animkit: body HUM_BODY_NAKED0 (compiled from HUM_BODY_NAKED0.ASC like \
             HUMANS_1HST1.MDH)"
        ),
        "{stdout}"
    );
    let skinned = skinned_meshes(&report);
    assert_eq!(skinned.len(), 1, "{report}");
    assert_eq!(skinned[0]["name"], "HUM_BODY_NAKED0", "{report}");
}

/// The real swamp rat (its MDH, compiled script, body mesh and three of its MANs) as the game
/// lays it out: `SOURCE/_COMPILED/…`, with `extra` beside `_COMPILED` (the text script).
fn swamprat_model(dir: &Path) -> Option<()> {
    let real = crate::common::corpus_path("realworld")?;
    let compiled = dir.join("_COMPILED");
    std::fs::create_dir_all(&compiled).unwrap();
    let piotr = |kind: &str, name: &str| {
        real.join(kind)
            .join("PiotrDrozdz96+Gothic/Anims/_compiled")
            .join(name)
    };
    for (kind, name) in [
        ("mdh", "SWAMPRAT.MDH"),
        ("msb", "SWAMPRAT.MSB"),
        ("mesh", "SWAMPRAT_BODY.MDM"),
        ("man", "SWAMPRAT-S_FISTRUN.MAN"),
        ("man", "SWAMPRAT-T_WARN.MAN"),
        ("man", "SWAMPRAT-T_STAND_2_SLEEP.MAN"),
    ] {
        std::fs::copy(piotr(kind, name), compiled.join(name)).unwrap();
    }
    Some(())
}

/// Run roundtrip-tests/blender/addon_new.py on SOURCE (model MODEL) making NAME; returns its
/// report and Blender's stdout.
fn blender_new(
    mut exe: std::process::Command,
    tmp: &Path,
    source: &Path,
    model: &str,
    name: &str,
    blender: Blender,
) -> (Value, String) {
    let zip = addon_zip(&tmp.join("zip")).expect("python3 is there when Blender is");
    let report = tmp.join("new.json");
    let out = exe
        .env("BLENDER_USER_SCRIPTS", tmp.join("scripts"))
        .env("BLENDER_USER_CONFIG", tmp.join("config"))
        .arg("--")
        .arg(&zip)
        .arg(env!("CARGO_BIN_EXE_animkit"))
        .arg(&report)
        .arg(source)
        .arg(name)
        .arg(model)
        .output()
        .expect("blender runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && text.contains("animkit-addon-new: ok"),
        "blender failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    let want = match blender {
        Blender::Debian => "3.4",
        Blender::Bpy45 => "4.5",
    };
    let version = report["blender"].as_str().unwrap_or_default();
    assert!(version.starts_with(want), "Blender {version}, not {want}");
    (report, text)
}

/// The angle in degrees between two rotations.
fn degrees(a: glam::Quat, b: glam::Quat) -> f32 {
    a.angle_between(b).to_degrees()
}

/// The new MAN the add-on made from addon_new.py's action: the engine's header (9 frames at
/// 25 fps, the model's checksum), exactly the two keyed bones (`nodes`: the MDH indices of
/// BIP01 HEAD and BIP01 L UPPERARM; the swamp rat's 7 and 10), the head turned 30° at frame 4 and the arm 20° at frame 8 from
/// their frame-0 pose; `verify` and `check --mdh` pass.
fn check_new_man(dir: &Path, man: &Path, mdh: &Path, checksum: u32, nodes: [u32; 2]) {
    let bytes = std::fs::read(man).unwrap();
    let m = Man::read(&bytes).unwrap();
    let h = m.header().unwrap();
    assert_eq!(
        (h.name.as_bytes(), h.frame_count, h.fps.get()),
        (&b"S_MYWAVE"[..], 9, 25.0)
    );
    let samples = m.samples().unwrap();
    assert_eq!(samples.checksum.0, checksum);
    assert_eq!(samples.node_indices, nodes.to_vec());
    let decoded = m.decode_samples();
    let at = |frame: usize, column: usize| decoded[frame * 2 + column].0;
    let head = degrees(at(0, 0), at(4, 0));
    let arm = degrees(at(0, 1), at(8, 1));
    assert!((head - 30.0).abs() < 0.1, "head turned {head}°");
    assert!((arm - 20.0).abs() < 0.1, "arm turned {arm}°");
    assert!(degrees(at(0, 0), at(8, 0)) < 0.1);
    let (code, out, err) = run(dir, &["verify", s(man)]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(dir, &["check", s(man), "--mdh", s(mdh)]);
    assert_eq!(code, 0, "{out}{err}");
}

/// The swamp rat's checksum and the MDH indices of its BIP01 HEAD and BIP01 L UPPERARM.
const SWAMPRAT: u32 = 0xc445840f;
const SWAMPRAT_NODES: [u32; 2] = [7, 10];

/// The add-on's report of the export, and the refusal of the second one.
fn check_new_reports(report: &Value, stdout: &str) {
    assert_eq!(report["fps"], 25, "{report}");
    // The body found beside the model, skinned to the armature; the imported animations on
    // their tracks, unmuted again after the export, the new action still the active one.
    assert_eq!(
        report["nla"],
        serde_json::json!(["S_FISTRUN", "T_STAND_2_SLEEP", "T_WARN"])
    );
    assert_eq!(
        report["strips_muted"],
        serde_json::json!([false, false, false])
    );
    assert_eq!(report["active_action"], "MyWave");
    // The body SWAMPRAT_BODY.MDM, found by the MDH's source (the swamp rat's 692 vertices).
    assert_eq!(report["skinned"], serde_json::json!([692]), "{report}");
    assert!(
        stdout.contains("Info: animkit: new animation S_MYWAVE from the action MyWave"),
        "{stdout}"
    );
    assert!(
        stdout.contains("9 frames at 25 fps, 2 nodes animated"),
        "{stdout}"
    );
    let refused = report["refused"]
        .as_str()
        .expect("the second export was refused");
    assert!(
        refused.starts_with("Error: animkit: ")
            && refused.contains("SWAMPRAT-S_MYWAVE.MAN: exists already"),
        "{refused}"
    );
    assert_eq!(report["after_refusal"], report["after_export"]);
}

in_both_blenders!(
    corpus,
    addon_exports_a_new_animation_into_the_model_script,
    addon_exports_a_new_animation_into_the_model_script_blender4,
    new_into_script
);

/// The real swamp rat in the game's layout (ANIMS/SWAMPRAT.MDS, ANIMS/_COMPILED/ with its MDH,
/// MSB, body and three MANs): File > Import of the MDS, a new action keying two bones, File >
/// Export with "New animation" S_MYWAVE: `_COMPILED/SWAMPRAT-S_MYWAVE.MAN` (see
/// check_new_man), the MDS with exactly the new `ani` line before the aniEnum's end (kept once
/// as .bak), every other file byte-identical; the same export again is refused with animkit's
/// message and changes nothing.
fn new_into_script(blender: Blender) {
    let Some(exe) = blender.command(&root().join("roundtrip-tests/blender/addon_new.py")) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let anims = tmp.path().join("Mod Änims");
    let Some(()) = swamprat_model(&anims) else {
        return;
    };
    let real = crate::common::corpus_path("realworld").unwrap();
    let mds_src = real.join(
        "mds/CarnageMarkus+gothic-animations-decompiled/Gothic_2/MONSTER/SWAMPRAT_MOLERAT/SWAMPRAT.MDS",
    );
    let mds = anims.join("SWAMPRAT.MDS");
    std::fs::copy(&mds_src, &mds).unwrap();
    let before: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(&anims)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect();
    assert_eq!(before.len(), 7);

    let (report, stdout) = blender_new(exe, tmp.path(), &mds, "", "S_MYWAVE", blender);
    check_new_reports(&report, &stdout);
    assert_eq!(report["origin"]["script"], s(&mds));

    let compiled = anims.join("_COMPILED");
    check_new_man(
        tmp.path(),
        &compiled.join("SWAMPRAT-S_MYWAVE.MAN"),
        &compiled.join("SWAMPRAT.MDH"),
        SWAMPRAT,
        SWAMPRAT_NODES,
    );
    // The script: the original kept once, the new line added before the aniEnum's closing
    // brace and nothing else changed.
    let old = std::fs::read(&mds_src).unwrap();
    assert_eq!(std::fs::read(anims.join("SWAMPRAT.MDS.bak")).unwrap(), old);
    let new = std::fs::read(&mds).unwrap();
    let line = b"ani (\"S_MYWAVE\" 1 \"\" 0.1 0.1 . \"S_MYWAVE.ASC\" F 0 8)";
    let at = new
        .windows(line.len())
        .position(|w| w == line)
        .expect("the ani line is in the script");
    // The line and its line end (this MDS's: LF).
    assert_eq!(new[at + line.len()], b'\n');
    let added_end = at + line.len() + 1;
    let start = new[..at].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    let mut without = new[..start].to_vec();
    without.extend_from_slice(&new[added_end..]);
    assert_eq!(without, old);
    let (code, out, err) = run(tmp.path(), &["verify", s(&mds)]);
    assert_eq!(code, 0, "{out}{err}");
    // Every other file: byte-identical.
    for (path, bytes) in &before {
        if path != &mds {
            assert_eq!(&std::fs::read(path).unwrap(), bytes, "{}", path.display());
        }
    }
    let files = report["after_export"].as_object().unwrap();
    assert_eq!(files.len(), 9, "{report}"); // the 7, the new MAN and the script's .bak
}

in_both_blenders!(
    corpus,
    addon_exports_a_new_animation_into_an_archive,
    addon_exports_a_new_animation_into_an_archive_blender4,
    new_into_archive
);

/// The same model packed in a VDF (its compiled script SWAMPRAT.MSB in `_COMPILED`): the
/// export unpacks it, adds the MAN and the MSB's `ani` statement, repacks it and keeps the
/// original once as .bak; every other member is byte-identical.
fn new_into_archive(blender: Blender) {
    let Some(exe) = blender.command(&root().join("roundtrip-tests/blender/addon_new.py")) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let Some(()) = swamprat_model(&d.join("pack")) else {
        return;
    };
    let mod_dir = d.join("mod");
    std::fs::create_dir(&mod_dir).unwrap();
    let archive = mod_dir.join("Anims Ä.vdf");
    ok(d, &["vdf", "pack", "pack", "-o", s(&archive)]);
    let original = std::fs::read(&archive).unwrap();

    let (report, stdout) = blender_new(exe, d, &archive, "SWAMPRAT", "S_MYWAVE", blender);
    check_new_reports(&report, &stdout);
    assert_eq!(report["origin"]["kind"], "archive");
    assert!(stdout.contains("Info: Anims Ä.vdf: changed"), "{stdout}");

    assert_eq!(
        std::fs::read(mod_dir.join("Anims Ä.vdf.bak")).unwrap(),
        original
    );
    for (vdf, dir) in [
        (mod_dir.join("Anims Ä.vdf.bak"), "old"),
        (archive.clone(), "new"),
    ] {
        ok(d, &["vdf", "extract", s(&vdf), "-o", dir]);
    }
    let compiled = d.join("new/_COMPILED");
    check_new_man(
        d,
        &compiled.join("SWAMPRAT-S_MYWAVE.MAN"),
        &compiled.join("SWAMPRAT.MDH"),
        SWAMPRAT,
        SWAMPRAT_NODES,
    );
    // The MSB: one entry more, the new ani; verified byte-exact.
    let old = animkit::zengin::msb::Msb::read(
        &std::fs::read(d.join("old/_COMPILED/SWAMPRAT.MSB")).unwrap(),
    )
    .unwrap();
    let new_bytes = std::fs::read(compiled.join("SWAMPRAT.MSB")).unwrap();
    let new = animkit::zengin::msb::Msb::read(&new_bytes).unwrap();
    assert_eq!(new.entries.len(), old.entries.len() + 1);
    let added: Vec<_> = new
        .entries
        .iter()
        .filter(|e| !old.entries.contains(e))
        .collect();
    let [animkit::zengin::msb::Entry::Ani(a)] = added.as_slice() else {
        panic!("{added:?}")
    };
    assert_eq!(
        (a.name.as_bytes(), a.layer, a.first_frame, a.last_frame),
        (&b"S_MYWAVE"[..], 1, 0, 8)
    );
    let (code, out, err) = run(d, &["verify", s(&compiled.join("SWAMPRAT.MSB"))]);
    assert_eq!(code, 0, "{out}{err}");
    // Every other member: byte-identical; no .bak of the MSB went into the archive.
    let members = |dir: &str| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d.join(dir).join("_COMPILED"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let mut want = members("old");
    want.push("SWAMPRAT-S_MYWAVE.MAN".into());
    want.sort();
    assert_eq!(members("new"), want);
    for name in members("old") {
        if name != "SWAMPRAT.MSB" {
            assert_eq!(
                std::fs::read(d.join("old/_COMPILED").join(&name)).unwrap(),
                std::fs::read(compiled.join(&name)).unwrap(),
                "{name}"
            );
        }
    }
}

in_both_blenders!(
    corpus,
    addon_exports_a_new_animation_beside_mans_without_a_script,
    addon_exports_a_new_animation_beside_mans_without_a_script_blender4,
    new_beside_mans
);

/// MANs imported from a folder that has the model's MDH but no model script: the new MAN is
/// written beside the MDH alone (see check_new_man) and the info area says to add the `ani`
/// line; every other file byte-identical; the same export again refused, nothing changed.
fn new_beside_mans(blender: Blender) {
    let Some(exe) = blender.command(&root().join("roundtrip-tests/blender/addon_new.py")) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let model = tmp.path().join("model");
    let Some(()) = swamprat_model(&model) else {
        return;
    };
    let folder = model.join("_COMPILED");
    std::fs::remove_file(folder.join("SWAMPRAT.MSB")).unwrap();
    let before: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    assert_eq!(before.len(), 5);
    let man = folder.join("SWAMPRAT-T_WARN.MAN");
    let (report, stdout) = blender_new(exe, tmp.path(), &man, "", "S_MYWAVE", blender);
    assert_eq!(report["origin"]["kind"], "mans");
    assert_eq!(report["nla"], serde_json::json!(["T_WARN"]));
    assert!(
        stdout.contains(
            "Info: no model script SWAMPRAT.MDS or .MSB beside SWAMPRAT.MDH: add an ani line \
             for S_MYWAVE to the model's script yourself"
        ),
        "{stdout}"
    );
    check_new_man(
        tmp.path(),
        &folder.join("SWAMPRAT-S_MYWAVE.MAN"),
        &folder.join("SWAMPRAT.MDH"),
        SWAMPRAT,
        SWAMPRAT_NODES,
    );
    for (path, bytes) in &before {
        assert_eq!(&std::fs::read(path).unwrap(), bytes, "{}", path.display());
    }
    let files = report["after_export"].as_object().unwrap();
    assert_eq!(files.len(), 6, "{report}");
    let refused = report["refused"]
        .as_str()
        .expect("the second export was refused");
    assert!(
        refused.starts_with("Error: animkit: ")
            && refused.contains("SWAMPRAT-S_MYWAVE.MAN: exists already"),
        "{refused}"
    );
    assert_eq!(report["after_refusal"], report["after_export"]);
}

in_both_blenders!(
    corpus,
    addon_makes_the_first_animation_of_a_model_without_any,
    addon_makes_the_first_animation_of_a_model_without_any_blender4,
    first_animation
);

/// The real stone orc (ORCSTONE.MDH, its body ORCSTONE_BODY.MDM and head, no MAN and no
/// script): the import of the MDH gives its skeleton and body (found by the MDH's source, its
/// two soft-skin meshes skinned to the armature) and
/// says it has no animations; a new action exported as "New animation" becomes
/// ORCSTONE-S_MYWAVE.MAN beside the MDH (the orc's BIP01 HEAD and BIP01 L UPPERARM are MDH
/// nodes 9 and 17), every other file byte-identical.
fn first_animation(blender: Blender) {
    let Some(exe) = blender.command(&root().join("roundtrip-tests/blender/addon_new.py")) else {
        return;
    };
    let Some(real) = crate::common::corpus_path("realworld") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("orc");
    std::fs::create_dir(&folder).unwrap();
    for (kind, name) in [
        ("mdh", "ORCSTONE.MDH"),
        ("mesh", "ORCSTONE_BODY.MDM"),
        ("mesh", "ORCSTONE_HEAD.MMB"),
    ] {
        let from = real
            .join(kind)
            .join("PiotrDrozdz96+Gothic/Anims/_compiled")
            .join(name);
        std::fs::copy(from, folder.join(name)).unwrap();
    }
    let mdh = folder.join("ORCSTONE.MDH");
    let before: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    let (report, stdout) = blender_new(exe, tmp.path(), &mdh, "", "S_MYWAVE", blender);
    assert!(
        stdout.contains("Info: animkit: ORCSTONE has no animations in"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "Info: animkit: body ORCSTONE_BODY (compiled from ORCSTONE_BODY.ASC like ORCSTONE.MDH)"
        ),
        "{stdout}"
    );
    assert_eq!(report["nla"], serde_json::json!([]));
    // The body's two soft-skin meshes (46 and 246 positions; 68 and 359 vertices in Blender).
    assert_eq!(report["skinned"], serde_json::json!([68, 359]), "{report}");
    check_new_man(
        tmp.path(),
        &folder.join("ORCSTONE-S_MYWAVE.MAN"),
        &mdh,
        0x0051ac74,
        [9, 17],
    );
    for (path, bytes) in &before {
        assert_eq!(&std::fs::read(path).unwrap(), bytes, "{}", path.display());
    }
    assert_eq!(
        report["after_export"].as_object().unwrap().len(),
        4,
        "{report}"
    );
    assert_eq!(report["after_refusal"], report["after_export"]);
}
