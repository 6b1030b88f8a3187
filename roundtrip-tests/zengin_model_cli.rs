//! The MDH/MSB/MDS commands end to end: exit codes, messages and files.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A file of `../shared/corpus/zengin` (see `common::corpus`: missing fails in CI).
fn corpus(name: &str) -> Option<PathBuf> {
    crate::common::corpus().map(|c| c.join("zengin").join(name))
}

fn animkit(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_animkit"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

macro_rules! run {
    ($($a:expr),* $(,)?) => { animkit(&[$(std::ffi::OsStr::new($a)),*]) };
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn checksum_mdh_matches_and_mismatches() {
    let Some(mdh) = corpus("hierarchy0.mdh") else {
        return;
    };
    let (code, out, _) = run!("checksum", "--mdh", &mdh);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("stored:   0x39935331"), "{out}");
    assert!(out.contains("computed: 0x39935331"), "{out}");
    // Change one letter of a node name: the stored checksum no longer matches.
    let mut data = std::fs::read(&mdh).unwrap();
    data[12] = b'X'; // "BIP01 MUEHLE" → "XIP01 MUEHLE"
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mdh");
    std::fs::write(&bad, &data).unwrap();
    let (code, out, _) = run!("checksum", "--mdh", &bad);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("MISMATCH"), "{out}");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn check_and_export_a_man_against_an_mdh() {
    let (Some(mdh), Some(man)) = (corpus("hierarchy0.mdh"), corpus("G1_HUMANS-S_FISTRUN.MAN"))
    else {
        return;
    };
    let (code, out, _) = run!("check", &man, "--mdh", &mdh);
    assert_eq!(code, 1);
    assert!(out.contains("checksum mismatch: the MAN was made for the skeleton with checksum 0xc63488c2, the MDH has 0x39935331"), "{out}");
    assert!(
        out.contains("samples.node_indices[24] = 33: the MDH has only 7 nodes (0..6)"),
        "{out}"
    );
    // Export refuses the skeleton of another checksum; --force uses it, with a warning.
    let (code, _, err) = run!("export", &man, "--mdh", &mdh);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the file's key (checksum) is 0xc63488c2, its companion's (zengin.mdh) is 0x39935331: they do not belong together"), "{err}");
    let (code, out, err) = run!("export", &man, "--mdh", &mdh, "--force");
    assert_eq!(code, 0);
    assert!(err.contains("warning:"), "{err}");
    assert!(
        out.contains("{node: BIP01 MUEHLE, rotation: "),
        "{}",
        &out[..3000]
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn compile_decompile_compile_gives_the_same_msb() {
    let Some(mds) = corpus("waran.mds") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let msb = dir.path().join("WARAN.MSB");
    let (code, _, err) = run!("compile", &mds, "-o", &msb);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("waran.mds:22:4: warning: eventSFX: `EMTPY_SLOT` is misspelled"),
        "{err}"
    );
    let back = dir.path().join("back.mds");
    let (code, out, err) = run!("decompile", &msb, "-o", &back);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("compiles back to the same MSB"), "{out}");
    let again = dir.path().join("again.msb");
    let (code, _, err) = run!("compile", &back, "-o", &again);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&again).unwrap(), std::fs::read(&msb).unwrap());
    let (code, out, _) = run!("verify", &mds, &msb, &back);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 ok"), "{out}");
}

#[test]
fn a_bad_script_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mds");
    std::fs::write(
        &bad,
        "Model(\"x\") {\n\taniEnum {\n\t\tani(\"a\" 1\n\t}\n}\n",
    )
    .unwrap();
    let (code, _, err) = run!("compile", &bad);
    assert_eq!(code, 2);
    let want = format!(
        "{}:3:3: error: ani: expected the next animation, found the end of the statement\n",
        bad.display()
    );
    assert_eq!(err, want);
    // The generic commands report a script's errors the same way (not as a byte offset).
    for cmd in ["info", "export", "check"] {
        let (code, _, err) = run!(cmd, &bad);
        assert_eq!((code, &err), (2, &want), "{cmd}");
    }
}

#[test]
fn with_finds_the_skeleton_by_its_checksum_in_an_archive_or_a_folder() {
    use crate::common::{root, run};
    let samples = root().join("samples");
    // IDLE.MAN (checksum 0x0519cb77) belongs to SAMPLE.MDH, which ANIMS.VDF holds too.
    let (code, out, err) = run(&samples, &["export", "IDLE.MAN", "--with", "ANIMS.VDF"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(err, "IDLE.MAN: with ANIMS.VDF:SAMPLE.MDH\n");
    assert!(
        out.contains("{node: BIP01 PELVIS, rotation: [0.13083541, "),
        "{out}"
    );
    // In a folder (walked in name order), among files of other formats and other skeletons.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("SUB")).unwrap();
    std::fs::copy(samples.join("WALK.MAN"), dir.path().join("A.MAN")).unwrap();
    std::fs::copy(samples.join("SAMPLE.MDH"), dir.path().join("SUB/X.MDH")).unwrap();
    let idle = samples.join("IDLE.MAN");
    let (code, out, err) = run(
        dir.path(),
        &["check", idle.to_str().unwrap(), "--with", "."],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with("IDLE.MAN: ok (zengin.man): 0 errors, 0 warnings\n"),
        "{out}"
    );
    assert!(
        err.ends_with(&format!(
            "IDLE.MAN: with {}\n",
            Path::new(".").join("SUB/X.MDH").display()
        )),
        "{err}"
    );
    // No skeleton with WALK.MAN's checksum: an error naming the key.
    let (code, _, err) = run(&samples, &["check", "WALK.MAN", "--with", "ANIMS.VDF"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("WALK.MAN: no ZenGin model hierarchy (.MDH) in ANIMS.VDF has this file's key 0x2dfb0782"),
        "{err}"
    );
    // A file that is nobody's companion is refused.
    let (code, _, err) = run(&samples, &["export", "IDLE.MAN", "--with", "WALK.MAN"]);
    assert_eq!(code, 2);
    assert!(err.contains("WALK.MAN: --with expects ZenGin model hierarchy (.MDH) or ZenGin compiled model script (.MSB) or ZenGin model script, text (.MDS) (or a folder or archive holding one), this is ZenGin model animation (.MAN)"), "{err}");
}
