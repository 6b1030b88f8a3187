//! The one conversion core (issue 24 §2): `import`, `export`, the folder walk and the one-step
//! mode convert and warn the same way, with one warning prefix; the one-step mode calls the
//! commands' functions, never a command line of its own.

use crate::common::{root, run};
use std::path::Path;

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(root().join("samples").join(name)).unwrap()
}

/// A WALK.MAN document with one position edited (the stored bbox goes stale) and one with a
/// frame rate of 0 (a value finding).
fn edited_documents(d: &Path) -> (String, String) {
    std::fs::write(d.join("WALK.MAN"), sample("WALK.MAN")).unwrap();
    let (code, text, err) = run(d, &["export", "WALK.MAN"]);
    assert_eq!(code, 0, "{err}");
    let from = "position: [-0.00061035156, 85.0, -10.0]";
    assert!(text.contains(from));
    let moved = text.replacen(from, "position: [-0.00061035156, 84.0, -10.0]", 1);
    let fps0 = text.replace("    fps: 25.0\n", "    fps: 0.0\n");
    assert_ne!(fps0, text);
    (moved, fps0)
}

const STALE: &str = "header.bbox: positions changed but header.bbox did not: it stays";
const FPS0: &str = "header.fps: fps 0: the playback rate must be a finite number above 0";

/// `import DIR -o OUT` prints what `import FILE` prints: the edit warnings against the files
/// it replaces (it printed none before) and the documents' value findings, and writes the
/// same bytes (streamed as `import` does).
#[test]
fn the_folder_walk_warns_like_import() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (moved, fps0) = edited_documents(d);
    std::fs::create_dir_all(d.join("in/sub")).unwrap();
    std::fs::write(d.join("in/sub/EDIT.MAN.yaml"), &moved).unwrap();
    std::fs::write(d.join("in/BUG.MAN.yaml"), &fps0).unwrap();
    std::fs::create_dir_all(d.join("out/sub")).unwrap();
    std::fs::write(d.join("out/sub/EDIT.MAN"), sample("WALK.MAN")).unwrap();

    let (code, _, err) = run(d, &["import", "in", "-o", "out", "--force"]);
    assert_eq!(code, 0, "{err}");
    let walk_edit = format!(
        "animkit: warning: {}: {STALE}",
        Path::new("out/sub/EDIT.MAN").display()
    );
    let walk_fps = format!(
        "animkit: warning: {}: {FPS0}\n",
        Path::new("in/BUG.MAN.yaml").display()
    );
    assert!(err.contains(&walk_edit), "{err}");
    assert!(err.contains(&walk_fps), "{err}");
    assert!(err.contains("imported 2 files to out"), "{err}");

    // the same files one at a time: the same warnings, the same bytes
    std::fs::write(d.join("EDIT.MAN.yaml"), &moved).unwrap();
    std::fs::write(d.join("EDIT.MAN"), sample("WALK.MAN")).unwrap();
    let (code, _, err) = run(d, &["import", "EDIT.MAN.yaml", "-o", "EDIT.MAN", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("animkit: warning: EDIT.MAN: {STALE}")),
        "{err}"
    );
    assert_eq!(
        std::fs::read(d.join("EDIT.MAN")).unwrap(),
        std::fs::read(d.join("out/sub/EDIT.MAN")).unwrap()
    );
    std::fs::write(d.join("BUG.MAN.yaml"), &fps0).unwrap();
    let (code, _, err) = run(d, &["import", "BUG.MAN.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("animkit: warning: BUG.MAN.yaml: {FPS0}\n")),
        "{err}"
    );
    assert_eq!(
        std::fs::read(d.join("BUG.MAN")).unwrap(),
        std::fs::read(d.join("out/BUG.MAN")).unwrap()
    );
    // (a file the walk replaces without --force is refused, as `import` refuses it)
    let (code, _, err) = run(d, &["import", "in", "-o", "out"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("already exists; pass --force to overwrite it"),
        "{err}"
    );
}

/// Every warning of the converting commands has the one prefix (`animkit: warning: FILE: …`,
/// as errors have `animkit: error:`), whichever command prints it.
#[test]
fn every_warning_has_one_prefix() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (moved, fps0) = edited_documents(d);
    for name in ["SAMPLE.MDH", "ANIMS.VDF"] {
        std::fs::write(d.join(name), sample(name)).unwrap();
    }
    std::fs::write(d.join("EDIT.MAN.yaml"), &moved).unwrap();
    std::fs::write(d.join("BUG.MAN.yaml"), &fps0).unwrap();
    std::fs::create_dir_all(d.join("tree")).unwrap();
    std::fs::write(d.join("tree/EDIT.MAN.yaml"), &moved).unwrap();
    std::fs::create_dir_all(d.join("back")).unwrap();
    std::fs::write(d.join("back/EDIT.MAN"), sample("WALK.MAN")).unwrap();
    let runs: &[&[&str]] = &[
        &["export", "WALK.MAN", "--with", "SAMPLE.MDH", "--force"],
        &["import", "BUG.MAN.yaml"],
        &["import", "EDIT.MAN.yaml", "-o", "WALK.MAN", "--force"],
        &["import", "tree", "-o", "back", "--force"],
        &["EDIT.MAN.yaml"],
    ];
    let mut warnings = 0;
    for args in runs {
        std::fs::write(d.join("EDIT.MAN"), sample("WALK.MAN")).unwrap();
        let (code, _, err) = run(d, args);
        assert_eq!(code, 0, "{args:?}: {err}");
        for line in err.lines().filter(|l| l.contains("warning")) {
            assert!(line.starts_with("animkit: warning: "), "{args:?}: {line}");
            warnings += 1;
        }
    }
    // key mismatch, fps 0, stale bbox (import, walk, one step)
    assert_eq!(warnings, 5);
}

/// The one-step mode calls `unpack` and `repack` as functions: a name that a command line
/// would take for an option (`-x.VDF`) is a name, not a flag (a re-parsed argv failed on it).
#[test]
fn the_one_step_mode_takes_paths_as_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(d.join("-x.VDF"), sample("ANIMS.VDF")).unwrap();
    let (code, _, err) = run(d, &["--", "-x.VDF"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("ok: -x.VDF: unpacked into -x.VDF-unpacked"),
        "{err}"
    );
    assert!(d.join("-x.VDF-unpacked").is_dir());
    let (code, _, err) = run(d, &["--", "-x.VDF-unpacked"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("ok: -x.VDF-unpacked: repacked into -x.VDF"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(d.join("-x.VDF")).unwrap(),
        sample("ANIMS.VDF")
    );
}
