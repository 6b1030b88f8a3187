//! Blade & Soul UE3 packages end to end through the CLI: verify, export → import, `psa` export
//! equal to UE Viewer's file, `psa --import`, `check`, and bad input.

use crate::common::{corpus, run};

const VARIANTS: [&str; 4] = ["plain", "obf", "xor", "lzo"];

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn verify_export_import_and_psa_on_every_corpus_variant() {
    let Some(c) = corpus() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    for v in VARIANTS {
        let upk = c.join("ue3").join(v).join("TestAnims.upk");
        let upk = upk.to_str().unwrap();
        let (code, out, err) = run(p, &["verify", upk]);
        assert_eq!(code, 0, "{v}: {out}{err}");
        let yaml = format!("{v}.yaml");
        let back = format!("{v}.upk");
        assert_eq!(run(p, &["export", upk, "-o", &yaml]).0, 0);
        let (code, _, err) = run(p, &["import", &yaml, "-o", &back]);
        assert_eq!(code, 0, "{err}");
        assert!(
            std::fs::read(p.join(&back)).unwrap() == std::fs::read(upk).unwrap(),
            "{v}"
        );
        let dir = format!("psa-{v}");
        let (code, out, _) = run(p, &["psa", upk, "-o", &dir]);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            format!("wrote {dir}/MyAnimSet.psa (3 bones, 3 sequences)\n")
        );
        let want = std::fs::read(c.join("ue3").join(v).join("MyAnimSet.psa")).unwrap();
        assert!(
            std::fs::read(p.join(&dir).join("MyAnimSet.psa")).unwrap() == want,
            "{v}"
        );
        // Importing UE Viewer's own PSA back changes nothing.
        let psa = c.join("ue3").join(v).join("MyAnimSet.psa");
        let re = format!("re-{v}.upk");
        let (code, out, err) = run(
            p,
            &[
                "psa",
                "--import",
                psa.to_str().unwrap(),
                "--into",
                upk,
                "--set",
                "MyAnimSet",
                "-o",
                &re,
            ],
        );
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("replaced walk, run, idle"), "{out}");
        assert!(
            std::fs::read(p.join(&re)).unwrap() == std::fs::read(upk).unwrap(),
            "{v}"
        );
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn check_reports_the_zonly_reading_of_each_track() {
    let Some(c) = corpus() else { return };
    let (code, out, _) = run(&c, &["check", "ue3/plain/TestAnims.upk"]);
    assert_eq!(code, 0);
    assert!(
        out.ends_with("ue3/plain/TestAnims.upk: ok (ue3.upk): 0 errors, 0 warnings\n"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.contains("ue3/plain/TestAnims.upk: info: AnimSequence_2 (idle) track 0 (root): ZOnlyRLE mode 3, 1 runs, 5 keys, 12 value bytes = 3 values; UE Viewer predicts 3, article predicts 4: fits UE Viewer's reading (inclusive run ends); largest |value| 0.2 ≤ 1: both value readings possible\n"), "{out}");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_truncated_package_is_a_clear_error() {
    let Some(c) = corpus() else { return };
    let d = tempfile::tempdir().unwrap();
    let data = std::fs::read(c.join("ue3/obf/TestAnims.upk")).unwrap();
    std::fs::write(d.path().join("cut.upk"), &data[..2000]).unwrap();
    let (code, _, err) = run(d.path(), &["info", "cut.upk"]);
    assert_eq!(code, 2);
    // The offset is the export entry's SerialSize field (export table at 961, 68-byte entries).
    assert_eq!(
        err,
        "animkit: error: cut.upk: byte offset 1129 (0x469), field exports[2].serial_offset: object 1909+436 (SerialOffset+SerialSize) lies past the end of the 2000-byte package\n"
    );
}

/// Issue 11 item 13: a package with an undecodable sequence exports (the sequence kept as raw
/// bytes) with a warning naming file, offset and field path; `check` fails it.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_damaged_sequence_warns_on_export_and_fails_check() {
    let Some(c) = corpus() else { return };
    let d = tempfile::tempdir().unwrap();
    let mut data = std::fs::read(c.join("ue3/plain/TestAnims.upk")).unwrap();
    // walk's track 0 rotation offset (60) → 6000, past its 252-byte stream.
    assert_eq!(&data[1577..1581], &60i32.to_le_bytes());
    data[1577..1581].copy_from_slice(&6000i32.to_le_bytes());
    std::fs::write(d.path().join("bad.upk"), &data).unwrap();
    let (code, _, err) = run(d.path(), &["export", "bad.upk", "-o", "bad.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("animkit: warning: bad.upk: objects[1].tracks[0]: AnimSequence_0 (walk) cannot be decoded at byte offset 1657")
            && err.contains("kept as raw bytes"),
        "{err}"
    );
    let (code, out, _) = run(d.path(), &["check", "bad.upk"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("bad.upk: FAILED (ue3.upk): 1 errors, 0 warnings"),
        "{out}"
    );
    // The untouched good file exports silently.
    let good = c.join("ue3/plain/TestAnims.upk");
    let (code, _, err) = run(
        d.path(),
        &["export", good.to_str().unwrap(), "-o", "good.yaml"],
    );
    assert_eq!((code, err.as_str()), (0, ""));
}
