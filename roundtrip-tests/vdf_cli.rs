//! The VDF commands as a user runs them: `vdf list/extract/pack`, `unpack`, `repack`,
//! `verify`, `info`, `export`/`import`, with their exit codes.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A file of `../shared/corpus/zengin` (see `common::corpus`: missing fails in CI).
fn corpus(name: &str) -> Option<PathBuf> {
    crate::common::corpus().map(|c| c.join("zengin").join(name))
}

fn animkit(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_animkit"));
    for a in args {
        c.arg(a);
    }
    c.output().expect("animkit runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn list_text_and_json() {
    let Some(basic) = corpus("basic.vdf") else {
        return;
    };
    let o = animkit(&[&"vdf", &"list", &basic]);
    assert_eq!(o.status.code(), Some(0));
    let (out, _) = text(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 8, "{out}");
    assert_eq!(
        lines[6].split_whitespace().collect::<Vec<_>>(),
        ["856", "34915", "34915", "LICENSES/GPL/GPL-3.0.MD"]
    );
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        ["3", "0", "-", "LICENSES/"]
    );
    let o = animkit(&[&"vdf", &"list", &"--json", &basic]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[4]["path"], "LICENSES/MIT.MD");
    assert_eq!(v[4]["offset"], 43446);
    assert_eq!(v[4]["size"], 1084);
    assert_eq!(v[0]["directory"], true);
}

#[test]
fn extract_pattern_pack_unpack_repack_verify() {
    let Some(basic) = corpus("basic.vdf") else {
        return;
    };
    let Some(man) = corpus("G1_HUMANS-S_FISTRUN.MAN") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    // extract with a pattern
    let o = animkit(&[&"vdf", &"extract", &basic, &"*gpl*", &"-o", &t.join("ex")]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(t.join("ex/LICENSES/GPL/GPL-3.0.MD").exists());
    assert!(t.join("ex/LICENSES/GPL/LGPL-3.0.MD").exists());
    assert!(!t.join("ex/README.MD").exists());
    // no match: exit 1
    let o = animkit(&[&"vdf", &"extract", &basic, &"*.MAN", &"-o", &t.join("ex0")]);
    assert_eq!(o.status.code(), Some(1));
    // a folder with an animation → pack → verify lists the member
    let src = t.join("src");
    std::fs::create_dir_all(src.join("anims")).unwrap();
    std::fs::copy(&man, src.join("anims/s_fistrun.man")).unwrap();
    std::fs::write(src.join("readme.txt"), "hi").unwrap();
    let a = t.join("Anims.vdf");
    let o = animkit(&[
        &"vdf",
        &"pack",
        &src,
        &"-o",
        &a,
        &"--game",
        &"gothic1",
        &"--timestamp",
        &"2024-01-02 03:04:06",
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = animkit(&[&"vdf", &"pack", &src, &"-o", &a]);
    assert_eq!(o.status.code(), Some(2), "refuses to overwrite");
    let o = animkit(&[&"info", &a]);
    let (out, _) = text(&o);
    assert!(out.contains("signature: gothic1"), "{out}");
    assert!(out.contains("timestamp: 2024-01-02 03:04:06"), "{out}");
    let o = animkit(&[&"verify", &a]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("ok       zengin.vdf"), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("ok       zengin.man")
            && l.ends_with("Anims.vdf:ANIMS/S_FISTRUN.MAN")),
        "{out}"
    );
    // unpack → repack untouched: identical
    let work = t.join("work");
    let o = animkit(&[&"unpack", &a, &"-o", &work]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(work.join("ANIMS/S_FISTRUN.MAN.yaml").exists());
    assert!(work.join("vdf-manifest.yaml").exists());
    let b = t.join("B.vdf");
    let o = animkit(&[&"repack", &work, &"-o", &b]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // edit the YAML → repack → diff names the asset and what changed in it
    let y = work.join("ANIMS/S_FISTRUN.MAN.yaml");
    let s = std::fs::read_to_string(&y).unwrap();
    std::fs::write(&y, s.replace("layer: 1\n", "layer: 2\n")).unwrap();
    let c = t.join("C.vdf");
    let o = animkit(&[&"repack", &work, &"-o", &c]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = animkit(&[&"diff", &a, &c]);
    assert_eq!(o.status.code(), Some(1));
    let (out, _) = text(&o);
    assert_eq!(
        out.trim(),
        "ANIMS/S_FISTRUN.MAN: contents changed (6354 → 6354 bytes)\n\
         ANIMS/S_FISTRUN.MAN: header.layer: 1 → 2"
    );
    // export / import of the archive itself
    let ya = t.join("A.yaml");
    let o = animkit(&[&"export", &basic, &"-o", &ya]);
    assert_eq!(o.status.code(), Some(0));
    let back = t.join("A");
    let o = animkit(&[&"import", &ya, &"-o", &back]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(
        std::fs::read(&basic).unwrap(),
        std::fs::read(&back).unwrap()
    );
}

#[test]
fn a_crafted_archive_is_refused_with_exit_2() {
    // One entry named "..\EVIL" plus one named "../../ESCAPE.TXT".
    let mut data = vec![0x1A; 256];
    data.extend_from_slice(b"PSVDSC_V2.00\r\n\r\n");
    for v in [2u32, 2, 0, 8, 0, 0x50] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    for (k, name) in [&b"..\\EVIL"[..], b"../../ESCAPE.TXT"].iter().enumerate() {
        let mut n = [b' '; 64];
        n[..name.len()].copy_from_slice(name);
        data.extend_from_slice(&n);
        for v in [
            456 + 4 * k as u32,
            4,
            if k == 1 { 0x4000_0000 } else { 0 },
            0x20,
        ] {
            data.extend_from_slice(&v.to_le_bytes());
        }
    }
    data.extend_from_slice(b"evilevil");
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("evil.vdf");
    std::fs::write(&a, &data).unwrap();
    let out = tmp.path().join("deep/out");
    let o = animkit(&[&"vdf", &"extract", &a, &"-o", &out]);
    assert_eq!(o.status.code(), Some(2));
    let (_, err) = text(&o);
    assert!(err.contains("refusing to extract"), "{err}");
    let o = animkit(&[&"unpack", &a, &"-o", &out]);
    assert_eq!(o.status.code(), Some(2));
    let files: Vec<_> = walkdir::WalkDir::new(tmp.path())
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    assert_eq!(files, vec![a]);
}

#[test]
fn unpack_into_the_current_folder_and_repack_it() {
    let sample = crate::common::root().join("samples/ANIMS.VDF");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("here");
    std::fs::create_dir(&dir).unwrap();
    let run = |args: &[&std::ffi::OsStr]| {
        Command::new(env!("CARGO_BIN_EXE_animkit"))
            .current_dir(&dir)
            .args(args)
            .output()
            .expect("animkit runs")
    };
    let o = run(&[
        "unpack".as_ref(),
        sample.as_os_str(),
        "-o".as_ref(),
        ".".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(dir.join("ANIMS/WALK.MAN.yaml").is_file());
    let out = tmp.path().join("same.vdf");
    let o = run(&[
        "repack".as_ref(),
        ".".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&sample).unwrap()
    );
}
