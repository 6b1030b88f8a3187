//! `animkit compile MODEL.MDS --asc DIR` over every real model script of the corpus, with the
//! ASC files the corpus holds for its game: no error where the ASCs are there, a warning naming
//! the ani and the file for each missing ASC, and every written MSB/MDH/MAN passes `verify`
//! and `check --mdh`.

use crate::common::{corpus, run, DAMAGED_SCRIPT};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case(ext)))
        .collect();
    v.sort();
    v
}

/// `<repo>/<game>` of a corpus path below one of the realworld folders
/// (`…/mds/CarnageMarkus+…/Gothic_2/HUMANS/HUMANS.MDS` → `CarnageMarkus+…/Gothic_2`).
fn game_of(rel: &Path) -> String {
    let mut c = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string());
    let repo = c.next().unwrap_or_default();
    let game = c.next().unwrap_or_default();
    if game.starts_with("Gothic_") {
        format!("{repo}/{game}")
    } else {
        repo
    }
}

/// The quoted strings of a line `KEYWORD (…)` (any case, not commented out).
fn statement(line: &str, keyword: &str) -> Option<Vec<String>> {
    let t = line.trim_start();
    let head = t.get(..keyword.len())?;
    if !head.eq_ignore_ascii_case(keyword) || !t[keyword.len()..].trim_start().starts_with('(') {
        return None;
    }
    Some(
        t.split('"')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect(),
    )
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn compile_every_real_model_script_with_the_corpus_ascs() {
    let Some(root) = corpus() else { return };
    let rw = root.join("realworld");
    let tmp = tempfile::tempdir().unwrap();
    // The ASC folder of each game: the corpus's ASCs of that repository and game (copied into
    // a temporary folder, in their subfolders; the Gothic 1 body ASCs with Gothic 1's).
    let mut folders: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut ascs_of: HashMap<String, HashSet<String>> = HashMap::new();
    for base in ["asc-pairs", "other"] {
        for p in files(&rw.join(base), "asc") {
            let rel = p.strip_prefix(rw.join(base)).unwrap();
            let mut game = game_of(rel);
            let mut inner: PathBuf = rel.components().skip(2).collect();
            if rel
                .components()
                .nth(1)
                .is_some_and(|c| c.as_os_str() == "bodies")
            {
                game = format!("{}/Gothic_1", game);
                inner = PathBuf::from("bodies").join(p.file_name().unwrap());
            }
            let dir = folders
                .entry(game.clone())
                .or_insert_with(|| tmp.path().join(format!("asc{}", ascs_of.len())))
                .clone();
            let to = dir.join(&inner);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&p, &to).unwrap();
            ascs_of.entry(game).or_default().insert(
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .to_ascii_uppercase(),
            );
        }
    }
    let empty = tmp.path().join("none");
    std::fs::create_dir_all(&empty).unwrap();
    // MDHs by model name (for scripts whose meshAndTree ASC the corpus lacks).
    let mut mdhs: HashMap<String, PathBuf> = HashMap::new();
    for p in files(&rw.join("mdh"), "mdh") {
        let stem = p
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_ascii_uppercase();
        mdhs.entry(stem).or_insert(p);
    }
    let (mut scripts, mut with_mans, mut mans, mut warned, mut no_skeleton) = (0, 0, 0, 0, 0);
    for mds in files(&rw.join("mds"), "mds") {
        let rel = mds.strip_prefix(rw.join("mds")).unwrap();
        if rel == Path::new(DAMAGED_SCRIPT.trim_start_matches("mds/")) {
            continue; // a name broken across two lines: refused by the parser (realworld.rs)
        }
        scripts += 1;
        let game = game_of(rel);
        let asc_dir = folders.get(&game).unwrap_or(&empty);
        let present = ascs_of.get(&game).cloned().unwrap_or_default();
        let text = String::from_utf8_lossy(&std::fs::read(&mds).unwrap()).to_string();
        // The anis the script names (comment lines left out) and whether each ASC is there.
        let anis: Vec<(usize, String, String)> = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| Some((i + 1, statement(l, "ani")?)))
            .filter_map(|(i, q)| Some((i, q.first()?.clone(), q.get(2)?.clone())))
            .collect();
        let mesh = text
            .lines()
            .find_map(|l| statement(l, "meshAndTree"))
            .and_then(|q| q.first().map(|m| m.to_ascii_uppercase()));
        let stem = mds
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_ascii_uppercase();
        let stem = stem.split('@').next().unwrap().to_string();
        let out = tmp.path().join(format!("out{scripts}"));
        // The corpus names versions of one path `NAME@blob.MDS`: compiled as NAME.MDS.
        let script = tmp
            .path()
            .join(format!("mds{scripts}"))
            .join(format!("{stem}.MDS"));
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::copy(&mds, &script).unwrap();
        let mut args: Vec<String> = vec![
            "compile".into(),
            script.to_str().unwrap().into(),
            "--asc".into(),
            asc_dir.to_str().unwrap().into(),
            "-o".into(),
            out.to_str().unwrap().into(),
        ];
        let mesh_present = mesh.as_ref().is_some_and(|m| present.contains(m));
        let mdh = (!mesh_present).then(|| mdhs.get(&stem)).flatten();
        if let Some(m) = mdh {
            args.push("--mdh".into());
            args.push(m.to_str().unwrap().into());
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stdout, stderr) = run(tmp.path(), &argv);
        // No skeleton for this model in the corpus: said, and MODEL.MDH made from the skeleton
        // of its first animation ASC (GothicSourcer writes every node into each), or none
        // where no ASC of the script is there.
        let from_anim =
            !mesh_present && mdh.is_none() && stderr.contains(".MDH is made from the skeleton of");
        if !mesh_present && mdh.is_none() {
            assert!(
                from_anim || stderr.contains("no MDH written"),
                "{}: {stderr}",
                mds.display()
            );
            no_skeleton += 1;
        }
        assert_eq!(code, 0, "{}:\n{stdout}\n{stderr}", mds.display());
        // Anis the parser skipped (a script that puts them outside `aniEnum`) say so instead.
        let anis: Vec<(String, String)> = anis
            .into_iter()
            .filter(|(line, _, _)| {
                let at = format!("{}:{line}:", script.display());
                !stderr
                    .lines()
                    .any(|l| l.starts_with(&at) && l.ends_with("line skipped"))
            })
            .map(|(_, n, a)| (n, a))
            .collect();
        // A warning naming the ani and its file for every ani whose ASC is missing.
        for (name, asc) in &anis {
            if !present.contains(&asc.to_ascii_uppercase()) {
                let want = format!("ani `{name}`: its ASC `{asc}` is not under");
                assert!(
                    stderr.contains(&want),
                    "{}: no warning {want:?} in\n{stderr}",
                    mds.display()
                );
                warned += 1;
            }
        }
        // The written files: the MSB, the MDH (from the meshAndTree ASC), a MAN per ani whose
        // ASC is there (anis of the same name write the same file).
        let written: Vec<PathBuf> = files(&out, "man");
        let expected: HashSet<String> = anis
            .iter()
            .filter(|(_, a)| present.contains(&a.to_ascii_uppercase()))
            .map(|(n, _)| format!("{stem}-{}.MAN", n.to_ascii_uppercase()))
            .collect();
        let got: HashSet<String> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
            .collect();
        assert_eq!(got, expected, "{}", mds.display());
        assert!(
            out.join(format!("{stem}.MSB")).is_file(),
            "{}",
            mds.display()
        );
        if mesh_present || from_anim {
            assert!(
                out.join(format!("{stem}.MDH")).is_file(),
                "{}",
                mds.display()
            );
        }
        mans += written.len();
        if written.is_empty() {
            continue;
        }
        with_mans += 1;
        let out_s = out.to_str().unwrap();
        let (code, o, e) = run(tmp.path(), &["verify", out_s]);
        assert_eq!(code, 0, "verify {}:\n{o}\n{e}", mds.display());
        // The hierarchy to check against: the one passed, else the written MDH.
        let skeleton = match mdh {
            Some(m) => m.clone(),
            None => out.join(format!("{stem}.MDH")),
        };
        let (code, o, e) = run(
            tmp.path(),
            &[
                "check",
                "--quiet",
                "--mdh",
                skeleton.to_str().unwrap(),
                out_s,
            ],
        );
        assert_eq!(code, 0, "check {}:\n{o}\n{e}", mds.display());
    }
    eprintln!(
        "{scripts} scripts: {with_mans} compiled with {mans} MANs, {warned} missing-ASC warnings, \
         {no_skeleton} without a skeleton in the corpus (said; the MDH made from an animation ASC)"
    );
    assert!(scripts >= 230, "{scripts}");
    assert!(
        with_mans >= 20 && mans >= 296,
        "{with_mans} scripts, {mans} MANs"
    );
}

/// An ASC that does not read is reported once, with its line and column; the other anis of
/// that ASC point to it, and every other MAN is still written. With the model's meshAndTree
/// ASC there (the skeleton from it) and without it (from the first ani's ASC): in both, the
/// largest ASC, the damaged one here, is parsed while the skeleton is (`compile`'s head start).
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_broken_asc_is_reported_once_and_the_rest_is_written() {
    let Some(root) = corpus() else { return };
    let game = root.join("realworld/asc-pairs/CarnageMarkus+gothic-animations-decompiled");
    let script = root
        .join("realworld/mds/CarnageMarkus+gothic-animations-decompiled/Gothic_2/ORC/ORC/ORC.MDS");
    let text = String::from_utf8_lossy(&std::fs::read(&script).unwrap()).to_string();
    let ascs = files(&game.join("Gothic_2/ORC/ORC"), "asc");
    let largest = ascs
        .iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let broken = largest.file_name().unwrap().to_string_lossy().to_string();
    assert_eq!(broken, "ORC_DRUMNOMOVE_JUE02.ASC");
    let present: HashSet<String> = ascs
        .iter()
        .map(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .to_ascii_uppercase()
        })
        .collect();
    let anis: Vec<String> = text
        .lines()
        .filter_map(|l| statement(l, "ani"))
        .filter_map(|q| q.get(2).map(|a| a.to_ascii_uppercase()))
        .filter(|a| present.contains(a))
        .collect();
    let of_broken = anis.iter().filter(|a| **a == broken).count();
    assert_eq!((anis.len(), of_broken), (41, 3));
    for with_body in [true, false] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("asc");
        std::fs::create_dir_all(&dir).unwrap();
        for p in &ascs {
            std::fs::copy(p, dir.join(p.file_name().unwrap())).unwrap();
        }
        if with_body {
            std::fs::copy(game.join("bodies/ORC_BODY.ASC"), dir.join("ORC_BODY.ASC")).unwrap();
        }
        // (cut inside a sample line of a rotation track, line 4459)
        let bytes = std::fs::read(largest).unwrap();
        std::fs::write(dir.join(&broken), &bytes[..250_000]).unwrap();
        std::fs::copy(&script, tmp.path().join("ORC.MDS")).unwrap();
        let (code, _, err) = run(
            tmp.path(),
            &["compile", "ORC.MDS", "--asc", "asc", "-o", "out", "-q"],
        );
        assert_eq!(code, 1, "{err}");
        let at = format!("{broken}:4459:54: error: in *HELPEROBJECT \"Bip01 R Finger0\"/*TM_ANIMATION/*CONTROL_ROT_TRACK: `*CONTROL_ROT_SAMPLE` lacks its angle");
        assert_eq!(err.matches(&at).count(), 1, "{err}");
        assert_eq!(
            err.matches("its ASC does not read (above)").count(),
            of_broken - 1,
            "{err}"
        );
        let mans = files(&tmp.path().join("out"), "man").len();
        assert_eq!(mans, anis.len() - of_broken, "{err}");
        assert!(tmp.path().join("out/ORC.MDH").is_file());
        assert!(tmp.path().join("out/ORC.MSB").is_file());
    }
}
