//! The command line: exit codes, safe output, and the documented behaviour of each command.

use crate::common::{corpus, root, run};
use std::path::Path;

fn workdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["WALK.MAN", "EVENTS.MAN", "GARBAGE.MAN"] {
        std::fs::copy(root().join("samples").join(f), dir.path().join(f)).unwrap();
    }
    dir
}

#[test]
fn checksum_of_the_documented_example() {
    let (code, out, _) = run(Path::new("."), &["checksum", "BIP01", "BIP01 LEVER STICK"]);
    assert_eq!((code, out.as_str()), (0, "0xea809bf7\n"));
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn info_summarises_a_man() {
    let Some(c) = corpus() else { return };
    let (code, out, _) = run(&c, &["info", "zengin/G1_HUMANS-S_FISTRUN.MAN"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "zengin/G1_HUMANS-S_FISTRUN.MAN: zengin.man (ZenGin model animation (.MAN), 6354 bytes)\n  name: S_FISTRUN\n  frames: 20\n  nodes: 25\n  fps: 10.0 (source 25.0)\n  layer: 1\n  next: S_FISTRUN\n  checksum: 0xc63488c2\n  events: 0\n  chunks: A000 marker, A020 header, A010 source, A090 samples\n"
    );
}

#[test]
fn export_import_round_trip_refuses_to_overwrite_and_never_touches_the_input() {
    let d = workdir();
    let p = d.path();
    let original = std::fs::read(p.join("WALK.MAN")).unwrap();
    assert_eq!(run(p, &["export", "WALK.MAN", "-o", "WALK.MAN.yaml"]).0, 0);
    // Importing next to the original would overwrite it: refused.
    let (code, _, err) = run(p, &["import", "WALK.MAN.yaml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("WALK.MAN: already exists; pass --force"),
        "{err}"
    );
    assert_eq!(std::fs::read(p.join("WALK.MAN")).unwrap(), original);
    // To a new name it works and is identical.
    assert_eq!(run(p, &["import", "WALK.MAN.yaml", "-o", "NEW.MAN"]).0, 0);
    assert_eq!(std::fs::read(p.join("NEW.MAN")).unwrap(), original);
    // export refuses too, and --force overwrites.
    assert_eq!(run(p, &["export", "WALK.MAN", "-o", "WALK.MAN.yaml"]).0, 2);
    assert_eq!(
        run(p, &["export", "WALK.MAN", "-o", "WALK.MAN.yaml", "--force"]).0,
        0
    );
    assert_eq!(run(p, &["import", "WALK.MAN.yaml", "--force"]).0, 0);
    assert_eq!(std::fs::read(p.join("WALK.MAN")).unwrap(), original);
    // No temporary files are left behind.
    let names: Vec<String> = std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".animkit-")),
        "{names:?}"
    );
}

#[test]
fn verify_reports_per_file_and_exit_codes() {
    let d = workdir();
    let p = d.path();
    std::fs::write(p.join("notes.txt"), "not an asset").unwrap();
    let (code, out, _) = run(p, &["verify", "."]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("ok       zengin.man   ./WALK.MAN\n"), "{out}");
    assert!(
        out.ends_with("4 files: 3 ok, 0 mismatched, 0 errors, 1 not recognised\n"),
        "{out}"
    );
    // A corrupt file: exit 1 with the offset and field.
    let mut bad = std::fs::read(p.join("WALK.MAN")).unwrap();
    bad.truncate(100);
    std::fs::write(p.join("BAD.MAN"), bad).unwrap();
    let (code, out, _) = run(p, &["verify", "."]);
    assert_eq!(code, 1);
    assert!(out.contains("ERROR    zengin.man   ./BAD.MAN: byte offset 86 (0x56), field chunks[2].length: chunk 0xA010 claims 104 payload bytes but only 14 are left"), "{out}");
    // A named file that is not an asset is an error too.
    let (code, out, _) = run(p, &["verify", "notes.txt"]);
    assert_eq!(code, 1);
    assert!(out.contains("notes.txt: not a recognised format"), "{out}");
    // A missing path is bad input.
    assert_eq!(run(p, &["verify", "missing"]).0, 2);
}

#[test]
fn diff_exit_codes_and_summaries() {
    let d = workdir();
    let p = d.path();
    let (code, out, _) = run(p, &["diff", "WALK.MAN", "WALK.MAN"]);
    assert_eq!((code, out.as_str()), (0, "no differences\n"));
    // Edit the YAML: the binary and the edited YAML compare directly.
    run(p, &["export", "WALK.MAN", "-o", "W.yaml"]);
    let yaml = std::fs::read_to_string(p.join("W.yaml"))
        .unwrap()
        .replace("    layer: 1\n", "    layer: 2\n");
    std::fs::write(p.join("W.yaml"), yaml).unwrap();
    let (code, out, _) = run(p, &["diff", "WALK.MAN", "W.yaml"]);
    assert_eq!((code, out.as_str()), (1, "header.layer: 1 → 2\n"));
    let (code, out, _) = run(p, &["diff", "--yaml", "WALK.MAN", "W.yaml"]);
    assert_eq!(code, 1);
    assert!(out.contains("-    layer: 1\n+    layer: 2\n"), "{out}");
    // Different animations: per-node summaries, not thousands of lines.
    let (code, out, _) = run(p, &["diff", "WALK.MAN", "GARBAGE.MAN"]);
    assert_eq!(code, 1);
    assert!(out.lines().count() < 40, "{out}");
    assert!(
        out.contains("header.name: \"S_WALK\" → \"S_GARBAGE\""),
        "{out}"
    );
}

#[test]
fn bad_input_and_usage_exit_2_with_the_file_named() {
    let d = workdir();
    let p = d.path();
    std::fs::write(
        p.join("broken.yaml"),
        "format: zengin.man\nversion: 1\nchunks: 5\n",
    )
    .unwrap();
    let (code, _, err) = run(p, &["import", "broken.yaml", "-o", "X.MAN"]);
    assert_eq!(code, 2);
    // A text file's error as compilers write it: FILE:LINE:COL: error: message.
    assert_eq!(
        err,
        "broken.yaml:3:9: error: chunks: expected a list, found `5`\n"
    );
    assert!(!p.join("X.MAN").exists());
    let (code, _, err) = run(p, &["export", "broken.yaml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("broken.yaml: not a recognised binary format"),
        "{err}"
    );
    assert_eq!(run(p, &["frobnicate"]).0, 2);
    let (code, out, _) = run(p, &["export", "--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("Convert a binary asset to an editable YAML document"),
        "{out}"
    );
}

#[test]
fn import_requantize_flag() {
    let d = workdir();
    let p = d.path();
    run(p, &["export", "WALK.MAN", "-o", "W.yaml"]);
    let yaml = std::fs::read_to_string(p.join("W.yaml")).unwrap();
    let at = yaml.find("position: [").unwrap() + "position: [".len();
    let end = at + yaml[at..].find(',').unwrap();
    let edited = format!("{}9999.0{}", &yaml[..at], &yaml[end..]);
    std::fs::write(p.join("W.yaml"), edited).unwrap();
    let (code, _, err) = run(p, &["import", "W.yaml", "-o", "X.MAN"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("frame 0, node 0 (node index 0): position x = 9999.0 is outside"),
        "{err}"
    );
    let (code, _, err) = run(p, &["import", "W.yaml", "-o", "X.MAN", "--requantize"]);
    assert_eq!(code, 0, "{err}");
    let (_, out, _) = run(p, &["diff", "WALK.MAN", "X.MAN"]);
    assert!(out.contains("header.position_scale"), "{out}");
}

/// Issue 12 item 8: with --force the output may be the input itself; the whole input is read
/// first, so the result is the same as writing elsewhere. Without --force it is refused.
#[test]
fn force_onto_the_input_itself_gives_the_same_output_as_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(root().join("samples/ANIMS.UPK"), d.join("A.UPK")).unwrap();
    let (code, _, err) = run(d, &["psa", "A.UPK", "-o", "."]);
    assert_eq!(code, 0, "{err}");
    let import = |out: &str, force: bool| {
        let mut args = vec![
            "psa",
            "--import",
            "MyAnimSet.psa",
            "--into",
            "A.UPK",
            "--set",
            "MyAnimSet",
            "-o",
            out,
        ];
        if force {
            args.push("--force");
        }
        run(d, &args)
    };
    let (code, _, err) = import("OTHER.UPK", false);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = import("A.UPK", false);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("already exists"), "{err}");
    let (code, _, err) = import("A.UPK", true);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(d.join("A.UPK")).unwrap() == std::fs::read(d.join("OTHER.UPK")).unwrap());
    // The same with the generic commands: export a MAN over itself (as YAML), import it back.
    std::fs::copy(root().join("samples/WALK.MAN"), d.join("W")).unwrap();
    let (code, _, err) = run(d, &["export", "W", "-o", "W", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(d.join("W"))
        .unwrap()
        .contains("format: zengin.man"));
    let (code, _, err) = run(d, &["import", "W", "-o", "W", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        std::fs::read(d.join("W")).unwrap()
            == std::fs::read(root().join("samples/WALK.MAN")).unwrap()
    );
}

/// A position edit leaves the stored header bbox stale (it cannot be recomputed): `import` onto
/// the original, the one-step use and `diff` say so with file and field; an untouched round
/// trip says nothing.
#[test]
fn a_position_edit_warns_that_the_header_bbox_is_stale() {
    let dir = workdir();
    let d = dir.path();
    let (code, _, err) = run(d, &["export", "WALK.MAN", "-o", "WALK.MAN.yaml"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(d.join("WALK.MAN.yaml")).unwrap();
    let warning = "header.bbox: positions changed but header.bbox did not: it stays";
    // untouched: written over the original, no warning, same bytes
    let (code, _, err) = run(d, &["import", "WALK.MAN.yaml", "-o", "WALK.MAN", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    let original = std::fs::read(root().join("samples/WALK.MAN")).unwrap();
    assert_eq!(std::fs::read(d.join("WALK.MAN")).unwrap(), original);
    // one position edited
    let from = "position: [-0.00061035156, 85.0, -10.0]";
    assert!(text.contains(from));
    let edited = text.replacen(from, "position: [-0.00061035156, 84.0, -10.0]", 1);
    std::fs::write(d.join("EDIT.MAN.yaml"), &edited).unwrap();
    std::fs::copy(d.join("WALK.MAN"), d.join("EDIT.MAN")).unwrap();
    let (code, _, err) = run(d, &["import", "EDIT.MAN.yaml", "-o", "EDIT.MAN", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("warning: EDIT.MAN: {warning}")),
        "{err}"
    );
    // diff prints it as a note; its stdout lists the change as before
    let (code, out, err) = run(d, &["diff", "WALK.MAN", "EDIT.MAN"]);
    assert_eq!(code, 1);
    assert!(!out.contains(warning), "{out}");
    assert!(err.contains(&format!("note: EDIT.MAN: {warning}")), "{err}");
    let (code, _, err) = run(d, &["diff", "WALK.MAN", "WALK.MAN.yaml"]);
    assert_eq!(code, 0);
    assert!(err.is_empty(), "{err}");
    // the one-step use over the existing binary
    std::fs::copy(root().join("samples/WALK.MAN"), d.join("EDIT.MAN")).unwrap();
    let (_, _, err) = run(d, &["EDIT.MAN.yaml"]);
    assert!(
        err.contains(&format!("warning: EDIT.MAN: {warning}")),
        "{err}"
    );
}

/// `--register`/`--unregister` are the Windows Explorer menu: elsewhere they say so, exit 2,
/// and are not taken with files.
#[test]
#[cfg(not(windows))]
fn register_is_windows_only() {
    for flag in ["--register", "--unregister"] {
        let (code, out, err) = run(Path::new("."), &[flag]);
        assert_eq!((code, out.as_str()), (2, ""));
        assert!(
            err.starts_with(&format!(
                "animkit {flag}: error: the Explorer context menu is Windows-only"
            )),
            "{err}"
        );
        let (code, _, err) = run(Path::new("."), &[flag, "WALK.MAN"]);
        assert_eq!(code, 2);
        assert!(err.contains("cannot be used with"), "{err}");
    }
}

/// A full disk, stood in for by a file size limit (`ulimit -f`, SIGXFSZ ignored, so a write
/// past it fails with EFBIG as one on a full disk fails with ENOSPC): `schema --out-dir` and
/// `psa -o` name the file, exit 2, and leave neither a part of their files nor a folder they
/// made for them.
#[cfg(unix)]
#[test]
fn a_failed_write_leaves_no_output_folder_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    std::fs::copy(root().join("samples/ANIMS.UPK"), p.join("ANIMS.UPK")).unwrap();
    for (args, made) in [
        ("schema --out-dir out/schemas", "out"),
        ("psa ANIMS.UPK -o sets/psa", "sets"),
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("trap '' XFSZ; ulimit -f 1; exec \"$0\" {args}"))
            .arg(env!("CARGO_BIN_EXE_animkit"))
            .current_dir(p)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args}: {err}");
        assert!(err.contains("File too large"), "{args}: {err}");
        assert!(!p.join(made).exists(), "{args} left {made}/ behind: {err}");
    }
    // without the limit both write their files
    let (code, _, err) = run(p, &["schema", "--out-dir", "out/schemas"]);
    assert_eq!(code, 0, "{err}");
    assert!(p.join("out/schemas/mw3.anim.schema.json").is_file());
    let (code, out, err) = run(p, &["psa", "ANIMS.UPK", "-o", "sets/psa"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote sets/psa/"), "{out}");
}
