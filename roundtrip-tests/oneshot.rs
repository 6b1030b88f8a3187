//! `animkit PATH...` without a subcommand (drag-and-drop use), on the samples, in folders
//! whose names have spaces and non-ASCII letters.

use crate::common::{root, run};
use std::path::{Path, PathBuf};

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(root().join("samples").join(name)).unwrap()
}

/// A scratch folder with a space and non-ASCII letters in its name, holding `files`.
fn scratch(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("Mods Übung ß");
    std::fs::create_dir(&dir).unwrap();
    for (sample_name, as_name) in files {
        std::fs::write(dir.join(as_name), sample(sample_name)).unwrap();
    }
    (tmp, dir)
}

fn last_run(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("animkit-last-run.txt")).unwrap()
}

#[test]
fn a_binary_becomes_yaml_and_the_yaml_becomes_the_binary_with_the_original_kept_once() {
    let (_tmp, dir) = scratch(&[("WALK.MAN", "Gehen Ä.MAN")]);
    let man = dir.join("Gehen Ä.MAN");
    let yaml = dir.join("Gehen Ä.MAN.yaml");
    let original = sample("WALK.MAN");

    // binary → YAML beside it, the same document `export` writes
    let (code, _, err) = run(&dir, &[man.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&yaml).unwrap();
    let (_, exported, _) = run(&dir, &["export", man.to_str().unwrap()]);
    assert_eq!(text, exported);
    assert!(text.contains("\n    fps: 25.0\n"), "{text}");
    assert!(err.contains("wrote "), "{err}");
    let log = last_run(&dir);
    assert!(
        log.contains("ok: ") && log.contains("1 of 1 path done"),
        "{log}"
    );

    // again: nothing to do
    let (code, _, err) = run(&dir, &[man.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("is up to date"), "{err}");

    // the untouched YAML gives the same bytes: nothing written, no .bak
    let (code, _, err) = run(&dir, &[yaml.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("is unchanged"), "{err}");
    assert!(!dir.join("Gehen Ä.MAN.bak").exists());
    assert_eq!(std::fs::read(&man).unwrap(), original);

    // an edit: the binary changes, the original is kept as .bak
    std::fs::write(&yaml, text.replace("    fps: 25.0\n", "    fps: 30.0\n")).unwrap();
    let (code, _, err) = run(&dir, &[yaml.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("the original kept as"), "{err}");
    let bak = dir.join("Gehen Ä.MAN.bak");
    assert_eq!(std::fs::read(&bak).unwrap(), original);
    let edited = std::fs::read(&man).unwrap();
    assert_ne!(edited, original);
    let (_, info, _) = run(&dir, &["export", man.to_str().unwrap()]);
    assert!(info.contains("\n    fps: 30.0\n"), "{info}");

    // a second edit: the .bak still holds the first original
    std::fs::write(&yaml, text.replace("    fps: 25.0\n", "    fps: 12.5\n")).unwrap();
    let (code, _, err) = run(&dir, &[yaml.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&bak).unwrap(), original);
    assert_ne!(std::fs::read(&man).unwrap(), edited);

    // dropping the binary again while the YAML differs from it: refused, the YAML kept
    std::fs::write(&yaml, text.replace("    fps: 25.0\n", "    fps: 99.0\n")).unwrap();
    let (code, _, err) = run(&dir, &[man.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("may hold your edits"), "{err}");
    assert!(std::fs::read_to_string(&yaml)
        .unwrap()
        .contains("fps: 99.0"));
}

#[test]
fn an_archive_is_unpacked_beside_it_and_the_folder_repacked_with_the_original_kept() {
    let (_tmp, dir) = scratch(&[("ANIMS.VDF", "Animationen ö.VDF")]);
    let vdf = dir.join("Animationen ö.VDF");
    let unpacked = dir.join("Animationen ö.VDF-unpacked");
    let original = sample("ANIMS.VDF");

    let (code, _, err) = run(&dir, &[vdf.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(unpacked.join("vdf-manifest.yaml").is_file(), "{err}");
    assert!(err.contains("unpacked into"), "{err}");

    // again: the folder (maybe edited) is not overwritten
    let (code, _, err) = run(&dir, &[vdf.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("drop the folder to pack it"), "{err}");

    // the folder, untouched: the same archive, the original kept as .bak
    let (code, _, err) = run(&dir, &[unpacked.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("repacked into"), "{err}");
    assert_eq!(std::fs::read(&vdf).unwrap(), original);
    assert_eq!(
        std::fs::read(dir.join("Animationen ö.VDF.bak")).unwrap(),
        original
    );
}

#[test]
fn unknown_paths_are_reported_the_others_still_done_and_the_exit_code_is_2() {
    let (_tmp, dir) = scratch(&[("IDLE.MAN", "IDLE.MAN"), ("SAMPLE.MDH", "SAMPLE.MDH")]);
    std::fs::write(dir.join("notes.txt"), "not an asset\r\n").unwrap();
    std::fs::create_dir(dir.join("plain folder")).unwrap();
    let args = [
        dir.join("notes.txt"),
        dir.join("IDLE.MAN"),
        dir.join("plain folder"),
        dir.join("missing.MAN"),
        dir.join("SAMPLE.MDH"),
    ];
    let args: Vec<&str> = args.iter().map(|p| p.to_str().unwrap()).collect();
    let (code, _, err) = run(&dir, &args);
    assert_eq!(code, 2, "{err}");
    assert!(dir.join("IDLE.MAN.yaml").is_file());
    assert!(dir.join("SAMPLE.MDH.yaml").is_file());
    assert!(err.contains("notes.txt: not a recognised format"), "{err}");
    assert!(
        err.contains("only a folder made by dropping an archive"),
        "{err}"
    );
    assert!(err.contains("missing.MAN: no such file or folder"), "{err}");
    // the summary beside the first path, readable without a console
    let log = last_run(&dir);
    assert!(log.starts_with("animkit "), "{log}");
    assert_eq!(log.matches("FAILED: ").count(), 3, "{log}");
    assert_eq!(log.matches("ok: ").count(), 2, "{log}");
    assert!(log.contains("2 of 5 paths done, 3 failed"), "{log}");
}

#[test]
fn no_path_and_no_subcommand_shows_the_help_with_exit_code_2() {
    let (code, out, _) = run(&root(), &[]);
    assert_eq!(code, 2);
    assert!(
        out.contains("Without a subcommand: files or folders to convert in one step"),
        "{out}"
    );
    let (code, out, _) = run(&root(), &["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("One step: `animkit PATH...`"), "{out}");
}

#[test]
fn an_animkit_gltf_goes_back_into_the_animation_it_was_exported_from() {
    let (_tmp, dir) = scratch(&[("IDLE.MAN", "Stehen.MAN"), ("SAMPLE.MDH", "SAMPLE.MDH")]);
    let (code, _, err) = run(
        &dir,
        &[
            "gltf",
            "export",
            "Stehen.MAN",
            "--mdh",
            "SAMPLE.MDH",
            "-o",
            "Stehen.glb",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&dir, &[dir.join("Stehen.glb").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("imported into"), "{err}");
    // untouched motion: the same bytes; the original kept
    assert_eq!(
        std::fs::read(dir.join("Stehen.MAN")).unwrap(),
        sample("IDLE.MAN")
    );
    assert_eq!(
        std::fs::read(dir.join("Stehen.MAN.bak")).unwrap(),
        sample("IDLE.MAN")
    );

    // a glTF from another program is refused by name
    std::fs::write(
        dir.join("other.gltf"),
        r#"{"asset":{"version":"2.0","generator":"Khronos glTF Blender I/O"}}"#,
    )
    .unwrap();
    let (code, _, err) = run(&dir, &[dir.join("other.gltf").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not written by animkit"), "{err}");
}
