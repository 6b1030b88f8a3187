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
    // untouched motion: nothing to write, the same bytes
    assert!(err.contains("nothing changed"), "{err}");
    assert_eq!(
        std::fs::read(dir.join("Stehen.MAN")).unwrap(),
        sample("IDLE.MAN")
    );
    assert!(!dir.join("Stehen.MAN.bak").exists());
    // edited (its first key of BIP01 turned): into the MAN the export recorded, the
    // original kept
    let edited = crate::gltf::edit_first_rotation(&dir.join("Stehen.glb"), "S_IDLE", "BIP01");
    let (code, _, err) = run(&dir, &[edited.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("updated") && err.contains("Stehen.MAN: S_IDLE: 10 frames"),
        "{err}"
    );
    assert_ne!(
        std::fs::read(dir.join("Stehen.MAN")).unwrap(),
        sample("IDLE.MAN")
    );
    assert_eq!(
        std::fs::read(dir.join("Stehen.MAN.bak")).unwrap(),
        sample("IDLE.MAN")
    );

    // a glTF that matches nothing here is refused, saying what to pass
    std::fs::write(
        dir.join("other.gltf"),
        r#"{"asset":{"version":"2.0","generator":"Khronos glTF Blender I/O"},"animations":[{"name":"S_ELSE","channels":[],"samplers":[]}]}"#,
    )
    .unwrap();
    let (code, _, err) = run(&dir, &[dir.join("other.gltf").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("found nothing it came from: no MAN named like its animations (S_ELSE)")
            && err.contains("Pass --into THE.MAN"),
        "{err}"
    );
}

#[test]
fn completions_are_written_for_each_shell_and_bash_loads_them() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef animkit"),
        ("fish", "complete -c animkit"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let (code, out, err) = run(&root(), &["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains(marker), "{shell}: {out}");
        for sub in ["export", "unpack", "gltf", "completions"] {
            assert!(out.contains(sub), "{shell}: no {sub}");
        }
    }
    let (code, _, err) = run(&root(), &["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");
    // the real bash sources the script and registers it
    let (_, script, _) = run(&root(), &["completions", "bash"]);
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("{script}\ncomplete -p animkit"))
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("animkit"), "{text}");
}

#[test]
fn the_man_page_comes_from_the_same_definitions() {
    use clap::CommandFactory;
    let mut page = Vec::new();
    clap_mangen::Man::new(animkit::cli::Cli::command())
        .render(&mut page)
        .unwrap();
    let page = String::from_utf8(page).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH animkit 1"),
        "{page}"
    );
    assert!(page.contains(".TH animkit 1"), "{page}");
    for sub in ["export", "import", "unpack", "repack", "completions"] {
        assert!(
            page.contains(&format!("animkit\\-{sub}")),
            "no {sub}: {page}"
        );
    }
    assert!(page.contains("One step"), "{page}");
}

/// Every sample, in a tree: `export DIR -o OUT` then `import OUT -o BACK`
/// mirror the tree and give every asset's bytes back.
#[test]
fn a_folder_tree_is_exported_and_imported_mirrored_on_all_cores() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("Spiel Ä");
    let mut assets = Vec::new();
    for (i, e) in std::fs::read_dir(root().join("samples"))
        .unwrap()
        .enumerate()
    {
        let name = e.unwrap().file_name().into_string().unwrap();
        let rel = if i % 2 == 0 {
            PathBuf::from(&name)
        } else {
            Path::new("sub dir é").join(&name)
        };
        std::fs::create_dir_all(tree.join(&rel).parent().unwrap()).unwrap();
        std::fs::write(tree.join(&rel), sample(&name)).unwrap();
        if name != "ANIMS.VDF" {
            assets.push(rel);
        }
    }
    std::fs::write(tree.join("liesmich.txt"), "text\r\n").unwrap();
    let tree_s = tree.to_str().unwrap();
    let (code, _, err) = run(tmp.path(), &["export", tree_s, "-o", "out"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "exported {} files to out; 1 not recognised; 1 archive(s) left as they are",
            assets.len()
        )),
        "{err}"
    );
    for rel in &assets {
        let mut y = tmp.path().join("out").join(rel).into_os_string();
        y.push(".yaml");
        let (_, single, _) = run(tmp.path(), &["export", tree.join(rel).to_str().unwrap()]);
        assert_eq!(std::fs::read_to_string(&y).unwrap(), single, "{rel:?}");
    }
    // again without --force: every output exists, each is an error (exit 2)
    let (code, _, err) = run(tmp.path(), &["export", tree_s, "-o", "out"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{} failed", assets.len())), "{err}");

    let (code, _, err) = run(tmp.path(), &["import", "out", "-o", "back"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("imported {} files to back; 0 not", assets.len())),
        "{err}"
    );
    for rel in &assets {
        assert_eq!(
            std::fs::read(tmp.path().join("back").join(rel)).unwrap(),
            std::fs::read(tree.join(rel)).unwrap(),
            "{rel:?}"
        );
    }
    // a damaged file: reported, the others still converted, exit 2
    std::fs::write(tree.join("KAPUTT.MAN"), &sample("WALK.MAN")[..100]).unwrap();
    let (code, _, err) = run(tmp.path(), &["export", tree_s, "-o", "out2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("KAPUTT.MAN"), "{err}");
    assert!(
        err.contains(&format!("exported {} files to out2", assets.len())),
        "{err}"
    );
    // without -o: a clear error
    let (code, _, err) = run(tmp.path(), &["export", tree_s]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pass -o OUTDIR"), "{err}");
}
