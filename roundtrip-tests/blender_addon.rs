//! The Blender add-on (blender/animkit_blender) in the real Blender, headless: installed from
//! its zip as a user does, File > Import > Gothic model/animation (animkit) of MANs beside
//! their MDH and of a model in a VDF archive (mixed frame rates), one bone keyed at one
//! frame, File > Export > Gothic animation (animkit): exactly that node at that frame changes,
//! every other animation stays byte-identical, and a refusal of animkit reaches Blender as an
//! error report with animkit's message, changing nothing.

use crate::common::{animkit, root, run};
use crate::gltf::{missing_tool, ok, s, sample};
use crate::gltf_blender::blender;
use animkit::zengin::man::Man;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

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

/// Run roundtrip-tests/blender/addon_test.py; returns its report and Blender's stdout.
fn blender_addon(
    exe: &Path,
    tmp: &Path,
    mode: &str,
    source: &Path,
    model: &str,
    run_fps: u32,
) -> (Value, String) {
    let zip = addon_zip(&tmp.join("zip")).expect("python3 is there when Blender is");
    let report = tmp.join(format!("{mode}.json"));
    // The add-on goes into a scripts folder of this test, not the user's.
    let out = std::process::Command::new(exe)
        .env("BLENDER_USER_SCRIPTS", tmp.join("scripts"))
        .env("BLENDER_USER_CONFIG", tmp.join("config"))
        .env("RUN_FPS", run_fps.to_string())
        .args(["-b", "--factory-startup", "--python"])
        .arg(root().join("roundtrip-tests/blender/addon_test.py"))
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
    (
        serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap(),
        text,
    )
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

#[test]
fn addon_imports_mans_and_writes_one_keyed_bone_back() {
    let Some(exe) = blender() else { return };
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
    let (report, stdout) = blender_addon(&exe, tmp.path(), "mans", &work, "", 25);
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
    assert!(
        diff.starts_with("samples node 9 (index 9): 1 of 32 frames changed"),
        "{diff}"
    );
    // The add-on showed the same diff in Blender's reports.
    assert!(
        stdout.contains("Info:   samples node 9 (index 9): 1 of 32 frames changed"),
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

#[test]
fn addon_imports_a_mixed_rate_model_from_an_archive_and_writes_it_back() {
    let Some(exe) = blender() else { return };
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

    let (report, stdout) = blender_addon(&exe, d, "archive", &archive, "HUMAN", 10);
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
