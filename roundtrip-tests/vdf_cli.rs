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
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
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
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
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

/// Every regular file below `dir` (links not followed), sorted.
fn files_below(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    v.sort();
    v
}

/// Issue 12 item 1: a directory link planted inside the output folder is never followed, by
/// `vdf extract` (with and without --force), `unpack --force` and `repack`; nothing is written.
#[cfg(unix)]
#[test]
fn a_planted_symlink_is_never_followed() {
    let sample = crate::common::root().join("samples/ANIMS.VDF");
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let out = tmp.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink(&outside, out.join("ANIMS")).unwrap();
    for force in [false, true] {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
            vec![&"vdf", &"extract", &sample, &"-o", &out];
        if force {
            args.push(&"--force");
        }
        let o = animkit(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "{}: is a symbolic link or junction inside the output folder",
                out.join("ANIMS").display()
            )),
            "{err}"
        );
        assert!(err.contains("nothing was written"), "{err}");
    }
    let o = animkit(&[&"unpack", &sample, &"-o", &out, &"--force"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is a symbolic link or junction"), "{err}");
    assert_eq!(files_below(tmp.path()), Vec::<PathBuf>::new());
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);

    // repack: a member replaced by a link to a file outside the folder.
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, b"not for the archive").unwrap();
    let u = tmp.path().join("u");
    let o = animkit(&[&"unpack", &sample, &"-o", &u]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let walk = u.join("ANIMS/WALK.MAN");
    std::fs::remove_file(&walk).unwrap();
    std::os::unix::fs::symlink(&secret, &walk).unwrap();
    // (two links: the first by name is the one named, whatever order the system lists them)
    std::os::unix::fs::symlink(&secret, u.join("ANIMS/ZZZ.MAN")).unwrap();
    let x = tmp.path().join("x.vdf");
    let o = animkit(&[&"repack", &u, &"-o", &x]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}: is a symbolic link or junction inside the folder",
            walk.display()
        )),
        "{err}"
    );
    assert!(!err.contains("ZZZ.MAN"), "{err}");
    assert!(!x.exists());
}

/// A crafted archive: directory `A` (holding file `B`) and a file also named `A`.
fn file_and_folder_archive() -> Vec<u8> {
    let mut data = vec![0x1A; 256];
    data.extend_from_slice(b"PSVDSC_V2.00\r\n\r\n");
    for v in [3u32, 2, 0, 8, 0, 0x50] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    for (name, offset, size, kind) in [
        (&b"A"[..], 2u32, 0u32, 0x8000_0000u32),
        (b"A", 536, 4, 0x4000_0000),
        (b"B", 540, 4, 0x4000_0000),
    ] {
        let mut n = [b' '; 64];
        n[..name.len()].copy_from_slice(name);
        data.extend_from_slice(&n);
        for v in [
            offset,
            size,
            kind,
            if kind & 0x8000_0000 != 0 { 0 } else { 0x20 },
        ] {
            data.extend_from_slice(&v.to_le_bytes());
        }
    }
    data.extend_from_slice(b"fileBBBB");
    data
}

/// Issue 12 item 2: every member path is checked before the first write: a file and a folder
/// sharing a path, or a folder already where a file goes (with --force), write nothing.
#[test]
fn a_file_and_a_folder_at_one_path_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("clash.vdf");
    std::fs::write(&a, file_and_folder_archive()).unwrap();
    let out = tmp.path().join("out");
    for force in [false, true] {
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"vdf", &"extract", &a, &"-o", &out];
        if force {
            args.push(&"--force");
        }
        let o = animkit(&args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("A: is both a file and a folder of the archive"),
            "{err}"
        );
        assert_eq!(files_below(tmp.path()), vec![a.clone()]);
    }
    // A folder already where the sample has a file: nothing written, not even the others.
    let sample = crate::common::root().join("samples/ANIMS.VDF");
    std::fs::create_dir_all(out.join("ANIMS/WALK.MAN")).unwrap();
    let o = animkit(&[&"vdf", &"extract", &sample, &"-o", &out, &"--force"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "{}: is a folder, but the archive has a file at this path",
            out.join("ANIMS/WALK.MAN").display()
        )),
        "{err}"
    );
    assert_eq!(files_below(tmp.path()), vec![a.clone()]);
    // Without --force, one existing file refuses the whole extraction.
    std::fs::remove_dir(out.join("ANIMS/WALK.MAN")).unwrap();
    std::fs::write(out.join("ANIMS/WALK.MAN"), b"mine").unwrap();
    let o = animkit(&[&"vdf", &"extract", &sample, &"-o", &out]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("WALK.MAN: already exists"), "{err}");
    assert_eq!(files_below(&out), vec![out.join("ANIMS/WALK.MAN")]);
}

/// Issue 12 item 3: an archive cut short inside a member's data is an error naming the member
/// and the offsets in every command.
#[test]
fn an_archive_cut_short_is_an_error_in_every_command() {
    let sample = std::fs::read(crate::common::root().join("samples/ANIMS.VDF")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let cut = tmp.path().join("CUT.VDF");
    std::fs::write(&cut, &sample[..sample.len() - 10]).unwrap();
    let out = tmp.path().join("out");
    let yaml = tmp.path().join("cut.yaml");
    let runs: Vec<Vec<&dyn AsRef<std::ffi::OsStr>>> = vec![
        vec![&"export", &cut, &"-o", &yaml],
        vec![&"vdf", &"extract", &cut, &"-o", &out],
        vec![&"vdf", &"list", &cut],
        vec![&"unpack", &cut, &"-o", &out],
        vec![&"check", &cut],
        vec![&"verify", &cut],
        vec![&"info", &cut],
    ];
    for args in runs {
        let o = animkit(&args);
        let (out, err) = text(&o);
        let err = out + &err;
        assert_ne!(o.status.code(), Some(0), "{err}");
        assert!(
            err.contains("runs past the end of the archive (7071 bytes)")
                && err.contains("member ")
                && err.contains("catalog["),
            "{:?}: {err}",
            args.iter()
                .map(|a| a.as_ref().to_owned())
                .collect::<Vec<_>>()
        );
    }
    assert!(!out.exists() && !yaml.exists());
}

/// Issue 12 items 4 and 5: the archive being written is never one of its members, and
/// animkit's own temporary files and staging folders (left by an interrupted run) are never
/// packed, with a warning naming each.
#[test]
fn repack_and_pack_leave_out_their_output_and_own_temp_files() {
    let sample_path = crate::common::root().join("samples/ANIMS.VDF");
    let sample = std::fs::read(&sample_path).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let u = tmp.path().join("u");
    let o = animkit(&[&"unpack", &sample_path, &"-o", &u]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    std::fs::write(u.join(".animkit-Ab12Cd"), b"half a file").unwrap();
    std::fs::create_dir(u.join(".u.animkit-4242-0")).unwrap();
    std::fs::write(u.join(".u.animkit-4242-0/X.TXT"), b"staged").unwrap();
    let x = u.join("x.vdf");
    for _ in 0..2 {
        let o = animkit(&[&"repack", &u, &"-o", &x, &"--force"]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(!err.contains("added"), "{err}");
        assert!(
            err.contains(&format!(
                "{}: left by an interrupted animkit run; not packed",
                u.join(".animkit-Ab12Cd").display()
            )) && err.contains(".u.animkit-4242-0: left by an interrupted animkit run"),
            "{err}"
        );
        assert!(
            std::fs::read(&x).unwrap() == sample,
            "repack differs from the sample"
        );
    }
    // vdf pack of a folder holding the same leftovers and its own earlier output.
    let p = tmp.path().join("p");
    std::fs::create_dir_all(p.join("D")).unwrap();
    std::fs::write(p.join("D/A.TXT"), b"a").unwrap();
    std::fs::write(p.join(".animkit-Zz9"), b"temp").unwrap();
    std::fs::create_dir(p.join(".p.animkit-1-2")).unwrap();
    std::fs::write(p.join(".p.animkit-1-2/B.TXT"), b"b").unwrap();
    let px = p.join("P.VDF");
    for _ in 0..2 {
        let o = animkit(&[
            &"vdf",
            &"pack",
            &p,
            &"-o",
            &px,
            &"--force",
            &"--timestamp",
            &"0x0",
        ]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(err.contains("(1 files,"), "{err}");
        assert!(
            err.contains(".animkit-Zz9: left by an interrupted animkit run"),
            "{err}"
        );
    }
    let o = animkit(&[&"vdf", &"list", &"--json", &px]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let paths: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["D/", "D/A.TXT"]);
}

/// A zipped archive whose first member's deflate data is damaged: `check` has an error finding
/// (exit 1), `vdf list` lists it and then says so (exit 2), `export` refuses it (exit 2, nothing
/// written), `verify` reports that member once, as an error.
#[test]
fn a_member_that_does_not_inflate_is_an_error_for_check_list_export_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("in")).unwrap();
    let samples = crate::common::root().join("samples");
    for n in ["HUMAN-S_WALKL.MAN", "HUMAN.MDH"] {
        std::fs::copy(samples.join(n), d.join("in").join(n)).unwrap();
    }
    let good = d.join("z.vdf");
    let o = animkit(&[&"vdf", &"pack", &d.join("in"), &"-o", &good, &"--zipped"]);
    assert!(o.status.success(), "{:?}", text(&o));
    // The walk's stream starts right after the catalog (296 + 2 x 80 = 456).
    let (listing, _) = text(&animkit(&[&"vdf", &"list", &good]));
    assert!(listing.contains("       456      10313"), "{listing}");
    let mut bytes = std::fs::read(&good).unwrap();
    for b in &mut bytes[456 + 200..456 + 260] {
        *b ^= 0x5A;
    }
    let bad = d.join("bad.vdf");
    std::fs::write(&bad, &bytes).unwrap();
    let what = "catalog[0]: HUMAN-S_WALKL.MAN: the compressed data at byte 456 does not inflate";

    let o = animkit(&[&"check", &bad]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).0.contains(what), "{:?}", text(&o));
    let o = animkit(&[&"vdf", &"list", &bad]);
    assert_eq!(o.status.code(), Some(2));
    let (out, err) = text(&o);
    assert!(
        out.contains("HUMAN-S_WALKL.MAN") && err.contains(what),
        "{out}{err}"
    );
    let yaml = d.join("bad.yaml");
    let o = animkit(&[&"export", &bad, &"-o", &yaml]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains(what), "{:?}", text(&o));
    assert!(!yaml.exists());
    let o = animkit(&[&"verify", &bad]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(out.matches("ERROR").count(), 1, "{out}");
    assert!(
        out.contains("ERROR    ?            ") && out.contains("HUMAN-S_WALKL.MAN"),
        "{out}"
    );
}
