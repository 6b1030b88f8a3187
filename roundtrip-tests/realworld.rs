//! The real files of `../shared/corpus/realworld/` (issue 27): `compile` gives the engine's
//! bytes, damaged files are named for what they are, and the reports fit real data.

use crate::common::{corpus_path, run};
use animkit::registry::Codec;
use animkit::zengin::mds::compile::{compile, decompile, CompileOptions};
use animkit::zengin::msb::{Entry, Msb};
use std::path::{Path, PathBuf};

/// A realworld folder's files (recursively), sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn ext_is(p: &Path, ext: &str) -> bool {
    p.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case(ext))
}

/// `NAME@abcdef1.EXT` → `NAME` (one of several stored versions of a path), upper case.
fn base_name(p: &Path) -> String {
    let stem = p
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .to_ascii_uppercase();
    stem.split('@').next().unwrap().to_string()
}

/// The repository folder (`owner+repo`) a realworld file comes from.
fn repo_of(p: &Path, folder: &Path) -> String {
    let rel = p.strip_prefix(folder).unwrap();
    rel.components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy()
        .into_owned()
}

fn msb_bytes(m: &Msb) -> Vec<u8> {
    let mut out = Vec::new();
    m.write(&mut out).unwrap();
    out
}

/// Compile `mds` with the root and source chunks of the engine's `msb` (the engine takes them
/// from the file's place and time; a script holds them only as the `animkit-msb` header).
fn compile_like(mds_src: &[u8], msb: &Msb) -> Vec<u8> {
    let header: Vec<u8> = decompile(msb)
        .text
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(b"// animkit-msb:"))
        .flat_map(|l| [l, b"\n"].concat())
        .collect();
    let src = [header.as_slice(), mds_src].concat();
    let parsed = animkit::zengin::mds::parse(&src).expect("the script parses");
    msb_bytes(&compile(&parsed.script, &src, &CompileOptions::default()))
}

/// MDS/MSB pairs of the corpus whose script is the one the engine compiled: `(MSB, MDS)`,
/// paths inside `realworld/`.
const ENGINE_PAIRS: &[(&str, &str)] = &[
    (
        "msb/PiotrDrozdz96+Gothic/Anims/_compiled/KEILER.MSB",
        "mds/PiotrDrozdz96+Gothic/Anims/KEILER.MDS",
    ),
    (
        "msb/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/GOBBO@cf37282.MSB",
        "mds/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/asc_gobbo/GOBBO@13e2aee.MDS",
    ),
    (
        "msb/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/GOBBO_BERSERK@34aa8ed.MSB",
        "mds/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/asc_gobbo_berserk/GOBBO_BERSERK@cf74b61.MDS",
    ),
    (
        "msb/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/GOBBO_BERSERK@7d3ec7c.MSB",
        "mds/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/asc_gobbo_berserk/GOBBO_BERSERK@cf74b61.MDS",
    ),
    (
        "msb/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/GOBBO_BERSERK@f9fd9b5.MSB",
        "mds/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/asc_gobbo_berserk/GOBBO_BERSERK@a93842f.MDS",
    ),
    (
        "msb/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS@402a39a.MSB",
        "mds/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/HumanS.mds",
    ),
];

/// MSBs with a same-named script in the same repository that is not the script compiled (no
/// stored version of the script gives the MSB), and why.
const NOT_THE_COMPILED_SCRIPT: &[(&str, &str)] = &[
    ("HUMANS_RUN.MSB", "script edited after compiling: the MSB has T_RUN_2_RUNL/S_RUNL where the script has T_WALK_2_WALKL/S_WALKL"),
    ("HUMANS_ACROBATIC.MSB", "script edited after compiling: the MSB's S_JUMP has fps 10 and an alias T_2HRUNSTRAFEL the script no longer has"),
    ("SWAMPRAT.MSB", "script edited after compiling: it registers BAGIENNYRAT_BODY.ASC, the MSB has no such registerMesh"),
    ("CHESTBIG_ORCMUMMY.MSB", "the MSB stops after meshAndTree (no aniEnum, modelEnd, end) where the script has an aniEnum"),
    ("GOBBO@54994da.MSB", "compiled from a version not stored: no stored GOBBO.MDS registers GOBBO_SKELETON_BODY.ASC's neighbours as the MSB does, and its S_FISTRUN has fps 15"),
    ("GOBBO_BERSERK@9d08314.MSB", "compiled from a version not stored: the MSB's mesh is GOB_BODY, every stored script's HGOB_BODY"),
    ("GOBBO@bfdd00f.MSB", "damaged: a name lengthened without fixing its chunk's length (see `repair`)"),
    ("HUMANS@5736635.MSB", "compiled from a version not stored: the MSB registers HUM_BODY_NAKED3500.ASC, ARMOR_PAL_L.ASC …, which HumanS.mds does not"),
];

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_engine_compiled_pair_compiles_to_the_engines_msb_byte_for_byte() {
    let Some(rw) = corpus_path("realworld") else {
        return;
    };
    for (msb_rel, mds_rel) in ENGINE_PAIRS {
        let msb_data = std::fs::read(rw.join(msb_rel)).unwrap();
        let msb = Msb::decode(&msb_data).unwrap();
        let src = std::fs::read(rw.join(mds_rel)).unwrap();
        let ours = compile_like(&src, &msb);
        assert!(
            ours == msb_data,
            "{mds_rel} → {msb_rel}: first difference at byte {:?}",
            animkit::exact::first_difference(&ours, &msb_data)
        );
    }
    // Every same-named MDS/MSB pair of one repository is listed: verified above, or excluded
    // with its reason (and then truly no stored script version gives the MSB).
    let (msb_dir, mds_dir) = (rw.join("msb"), rw.join("mds"));
    let scripts: Vec<PathBuf> = files(&mds_dir)
        .into_iter()
        .filter(|p| ext_is(p, "mds"))
        .collect();
    let mut pairs = 0;
    for m in files(&msb_dir).into_iter().filter(|p| ext_is(p, "msb")) {
        let repo = repo_of(&m, &msb_dir);
        let candidates: Vec<&PathBuf> = scripts
            .iter()
            .filter(|s| repo_of(s, &mds_dir) == repo && base_name(s) == base_name(&m))
            .collect();
        if candidates.is_empty() {
            continue;
        }
        pairs += 1;
        let rel = m
            .strip_prefix(&rw)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let name = m.file_name().unwrap().to_string_lossy().into_owned();
        let listed = ENGINE_PAIRS.iter().any(|(p, _)| *p == rel);
        let excluded = NOT_THE_COMPILED_SCRIPT.iter().any(|(n, _)| *n == name);
        assert!(
            listed != excluded,
            "{rel}: list it in ENGINE_PAIRS or NOT_THE_COMPILED_SCRIPT (exactly one)"
        );
        if excluded {
            let data = std::fs::read(&m).unwrap();
            let Ok(msb) = Msb::decode(&data) else {
                assert!(name == "GOBBO@bfdd00f.MSB", "{rel} does not decode");
                continue;
            };
            for c in candidates {
                let ours = compile_like(&std::fs::read(c).unwrap(), &msb);
                assert!(
                    ours != data,
                    "{rel} is excluded but {} gives it",
                    c.display()
                );
            }
        }
    }
    assert_eq!(pairs, ENGINE_PAIRS.len() + NOT_THE_COMPILED_SCRIPT.len());
}

/// The engine's MSBs that decode (all but the damaged GOBBO@bfdd00f.MSB): decompiled, each
/// compiles back to the same bytes, with no "cannot produce" warning.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_corpus_msb_decompiles_to_a_script_that_compiles_back_to_it() {
    let Some(dir) = corpus_path("realworld/msb") else {
        return;
    };
    let mut n = 0;
    for m in files(&dir).into_iter().filter(|p| ext_is(p, "msb")) {
        let data = std::fs::read(&m).unwrap();
        let Ok(msb) = Msb::decode(&data) else {
            assert!(m.ends_with("GOBBO@bfdd00f.MSB"), "{} fails", m.display());
            continue;
        };
        let d = decompile(&msb);
        assert!(d.losses.is_empty(), "{}: {:?}", m.display(), d.losses);
        let parsed = animkit::zengin::mds::parse(&d.text).unwrap();
        let again = msb_bytes(&compile(
            &parsed.script,
            &d.text,
            &CompileOptions::default(),
        ));
        assert!(again == data, "{}", m.display());
        n += 1;
    }
    assert_eq!(n, 54);
}

fn rw_file(rel: &str) -> Option<(PathBuf, Vec<u8>)> {
    let p = corpus_path(&format!("realworld/{rel}"))?;
    let data = std::fs::read(&p).unwrap();
    Some((p, data))
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn an_alias_without_a_direction_is_an_empty_direction_as_the_engine_stores_it() {
    let Some((_, data)) = rw_file("msb/PiotrDrozdz96+Gothic/Anims/_compiled/KEILER.MSB") else {
        return;
    };
    let msb = Msb::decode(&data).unwrap();
    let alias = msb.entries.iter().find_map(|e| match e {
        Entry::AniAlias(a) if a.name.to_string() == "T_FISTJUMPB" => Some(a),
        _ => None,
    });
    assert_eq!(
        alias.map(|a| (a.alias_of.to_string(), a.direction.to_string())),
        Some(("T_STUMBLEB".into(), String::new()))
    );
    let text = String::from_utf8(decompile(&msb).text).unwrap();
    assert!(
        text.contains("aniAlias (\"T_FISTJUMPB\" 1 \"S_FISTRUN\" 0 0 M. \"T_STUMBLEB\")\r\n"),
        "{text}"
    );
    // the original script's line `aniAlias ("t_FistJumpB" … "t_StumbleB")` compiles to it
    let Some((_, src)) = rw_file("mds/PiotrDrozdz96+Gothic/Anims/KEILER.MDS") else {
        return;
    };
    let parsed = animkit::zengin::mds::parse(&src).unwrap();
    assert!(
        !parsed
            .warnings
            .iter()
            .any(|w| w.message.contains("direction")),
        "{:?}",
        parsed.warnings
    );
    let ours = compile(&parsed.script, &src, &CompileOptions::default());
    let a = ours.entries.iter().find_map(|e| match e {
        Entry::AniAlias(a) if a.name.to_string() == "T_FISTJUMPB" => Some(a),
        _ => None,
    });
    assert_eq!(a.map(|a| a.direction.to_string()), Some(String::new()));
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn decompile_of_an_engine_msb_gives_no_cannot_produce_warning() {
    let Some(dir) = corpus_path("realworld/msb") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for (name, rel) in [
        ("KEILER", "PiotrDrozdz96+Gothic/Anims/_compiled/KEILER.MSB"),
        ("SWAMPRAT", "PiotrDrozdz96+Gothic/Anims/_compiled/SWAMPRAT.MSB"),
        (
            "ORC",
            "NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/ORC.MSB",
        ),
        (
            "CHESTBIG_ORCMUMMY",
            "NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/CHESTBIG_ORCMUMMY.MSB",
        ),
    ] {
        let input = dir.join(rel);
        let mds = tmp.path().join(format!("{name}.MDS"));
        let msb = tmp.path().join(format!("{name}.MSB"));
        let (code, out, err) = run(
            tmp.path(),
            &[
                "decompile",
                input.to_str().unwrap(),
                "-o",
                mds.to_str().unwrap(),
            ],
        );
        assert_eq!((code, err.as_str()), (0, ""), "{name}");
        assert!(out.ends_with("; compiles back to the same MSB\n"), "{out}");
        let (code, _, err) = run(
            tmp.path(),
            &["compile", mds.to_str().unwrap(), "-o", msb.to_str().unwrap()],
        );
        assert_eq!((code, err.as_str()), (0, ""), "{name}");
        assert!(
            std::fs::read(&msb).unwrap() == std::fs::read(&input).unwrap(),
            "{name}"
        );
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn flag_text_is_stored_as_written() {
    // SWAMPRAT.MSB holds the flag word `M:` (`:` for "not set"), as its script wrote it
    let Some((_, data)) = rw_file("msb/PiotrDrozdz96+Gothic/Anims/_compiled/SWAMPRAT.MSB") else {
        return;
    };
    let msb = Msb::decode(&data).unwrap();
    let flags: Vec<String> = msb
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::AniAlias(a) if a.name.to_string() == "T_FISTWALKBL_2_FISTWALK" => {
                Some(a.flags.to_string())
            }
            _ => None,
        })
        .collect();
    assert_eq!(flags, ["M:"]);
    let src = b"Model(\"M\") {\n aniEnum {\n  aniAlias(\"A\" 1 \"B\" 0 0 M: \"C\" R)\n }\n}\n";
    let parsed = animkit::zengin::mds::parse(src).unwrap();
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    let m = compile(&parsed.script, src, &CompileOptions::default());
    let a = m.entries.iter().find_map(|e| match e {
        Entry::AniAlias(a) => Some(a),
        _ => None,
    });
    assert_eq!(
        a.map(|a| (a.flags.to_string(), a.alias_of.to_string())),
        Some(("M:".into(), "C".into()))
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn an_msb_without_closing_chunks_decompiles_to_a_script_that_keeps_that() {
    let Some((_, data)) = rw_file(
        "msb/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/CHESTBIG_ORCMUMMY.MSB",
    ) else {
        return;
    };
    let msb = Msb::decode(&data).unwrap();
    let kinds: Vec<&str> = msb.entries.iter().map(Entry::kind).collect();
    assert_eq!(kinds, ["root", "source", "model", "meshAndTree"]);
    let d = decompile(&msb);
    assert!(d.losses.is_empty(), "{:?}", d.losses);
    let text = String::from_utf8(d.text.clone()).unwrap();
    assert!(
        text.contains("// animkit-msb: ends modelEnd=0 end=0\r\n"),
        "{text}"
    );
    let parsed = animkit::zengin::mds::parse(&d.text).unwrap();
    let again = msb_bytes(&compile(
        &parsed.script,
        &d.text,
        &CompileOptions::default(),
    ));
    assert!(again == data);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_string_broken_across_two_lines_is_an_unterminated_string_at_its_quote() {
    // GOLEM.MDS line 79: `ani ("t_FistWalkL_2_FistWalk" 1 "s_FistWalk" 0.0 0.0 M. "` and the
    // name's rest `.asc" F 50 64)` on line 80. The engine's reader (as ZenKit reads it) ends a
    // string at the line end and then fails on `.asc` where F or R must stand: it refuses the
    // script too.
    let Some(p) = corpus_path(
        "realworld/mds/CarnageMarkus+gothic-animations-decompiled/Gothic_2/MONSTER/GOLEM/GOLEM.MDS",
    ) else {
        return;
    };
    let src = std::fs::read(&p).unwrap();
    let e = animkit::zengin::mds::parse(&src).unwrap_err();
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (
            79,
            64,
            "ani: unterminated string: this `\"` has no closing quote on its line (a name cannot continue on the next line), so the direction F or R is missing"
        )
    );
    let (code, out, _) = run(p.parent().unwrap(), &["verify", "GOLEM.MDS"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("GOLEM.MDS:79:64: error: ani: unterminated string"),
        "{out}"
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_name_lengthened_without_its_chunk_length_is_named_and_repaired() {
    let Some(rw) = corpus_path("realworld") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut mans_with_samples = 0;
    for rel in crate::common::DAMAGED_READ_AS_MDL {
        let data = std::fs::read(rw.join(rel)).unwrap();
        let format = animkit::registry::detect(&data).expect("detected");
        assert_eq!(format.tag(), "zengin.mdl", "{rel}");
        let asset = format
            .decode(&data)
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(asset.encode().unwrap() == data, "{rel}: not byte-exact");
        // ... but the damage is said: the bytes after the overrun chunk are not a chunk
        let found = asset.check(&Default::default());
        assert_eq!(found.len(), 1, "{rel}: {found:?}");
        assert_eq!(found[0].path, "trailing");
        assert!(
            found[0].message.ends_with("are not a chunk (kept as they are): a chunk before them was probably edited without fixing its length (the game cannot read past it; animkit has no repair for the mesh formats yet)")
                && found[0].message.contains("from byte offset 348"),
            "{rel}: {}",
            found[0].message
        );
        let (code, _, err) = run(
            tmp.path(),
            &["repair", rw.join(rel).to_str().unwrap(), "-o", "x.mdl"],
        );
        assert_eq!(code, 2, "{rel}");
        assert!(
            err.contains(
                "reads as zengin.mdl, keeping damage animkit knows no repair for: trailing:"
            ),
            "{rel}: {err}"
        );
    }
    for (rel, offset, old, new) in crate::common::DAMAGED {
        let input = rw.join(rel);
        let data = std::fs::read(&input).unwrap();
        let format = animkit::registry::detect(&data).expect("detected");
        let e = format.decode(&data).err().expect("damaged");
        assert_eq!(
            (e.offset, e.to_string().contains(&format!(
                "at byte offset {offset}: its fields take {new} bytes but its length says {old}: a string edited without fixing the length?"
            ))),
            (*offset as u64 + 2, true),
            "{rel}: {e}"
        );
        // repair: the same bytes with the lengths that agree, and what changed
        let out = tmp.path().join("repaired");
        let (code, stdout, err) = run(
            tmp.path(),
            &[
                "repair",
                input.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--force",
            ],
        );
        assert_eq!((code, err.as_str()), (0, ""), "{rel}");
        assert!(
            stdout.contains(&format!("at byte offset {offset}: length {old} → {new}")),
            "{rel}: {stdout}"
        );
        let fixed = std::fs::read(&out).unwrap();
        assert_eq!(fixed.len(), data.len(), "{rel}");
        // only the length fields of the chunks it names changed
        let fixed_headers: Vec<usize> = stdout
            .lines()
            .filter_map(|l| {
                l.split("at byte offset ")
                    .nth(1)?
                    .split(':')
                    .next()?
                    .parse()
                    .ok()
            })
            .collect();
        assert!(fixed_headers.contains(offset), "{rel}: {stdout}");
        let changed: Vec<usize> = (0..data.len()).filter(|&i| data[i] != fixed[i]).collect();
        assert!(!changed.is_empty());
        assert!(
            changed
                .iter()
                .all(|&i| fixed_headers.iter().any(|h| (h + 2..h + 6).contains(&i))),
            "{rel}: {changed:?} {stdout}"
        );
        let asset = format.decode(&fixed).expect("the repaired file reads");
        assert!(asset.encode().unwrap() == fixed, "{rel}: round trip");
        if rel.ends_with(".MAN") {
            let man = animkit::zengin::man::Man::decode(&fixed).unwrap();
            let (frames, nodes) = man.header().map(|h| (h.frame_count, h.node_count)).unwrap();
            let s = man.samples().unwrap();
            assert!(frames > 0 && nodes > 0, "{rel}");
            assert_eq!(s.codes.len(), (frames * nodes) as usize, "{rel}");
            mans_with_samples += 1;
        }
    }
    // ZenKit reads 7 of these 9 MANs with their samples; animkit repairs all 9
    assert_eq!(mans_with_samples, 9);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn repair_refuses_a_sound_file_and_damage_it_cannot_name() {
    let Some(rw) = corpus_path("realworld") else {
        return;
    };
    let sound = rw.join("msb/PiotrDrozdz96+Gothic/Anims/_compiled/KEILER.MSB");
    let tmp = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        tmp.path(),
        &["repair", sound.to_str().unwrap(), "-o", "out.MSB"],
    );
    assert_eq!(code, 2);
    assert!(
        err.ends_with("KEILER.MSB: reads as zengin.msb without damage; nothing to repair\n"),
        "{err}"
    );
    assert!(!tmp.path().join("out.MSB").exists());
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn info_and_check_take_folders_like_verify() {
    let Some(dir) = corpus_path("realworld/msb/PiotrDrozdz96+Gothic/Anims/_compiled") else {
        return;
    };
    let (code, out, err) = run(&dir, &["info", "."]);
    assert_eq!((code, err.as_str()), (0, ""));
    // the folder's four MSBs, each with its summary
    let heads: Vec<&str> = out.lines().filter(|l| !l.starts_with("  ")).collect();
    assert_eq!(heads.len(), 4, "{out}");
    assert!(
        heads
            .iter()
            .any(|l| l.starts_with("./KEILER.MSB: zengin.msb (")),
        "{out}"
    );
    let (code, out, err) = run(&dir, &["check", "--json", "."]);
    assert!(code == 0 || code == 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"].as_array().map(Vec::len), Some(4), "{out}");
}

#[test]
fn an_empty_file_and_a_missing_output_folder_are_said_so() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("EMPTY.MAN"), b"").unwrap();
    for cmd in ["info", "export", "import", "check"] {
        let (code, out, err) = run(tmp.path(), &[cmd, "EMPTY.MAN"]);
        assert!(code != 0, "{cmd}");
        assert!(
            err.contains("EMPTY.MAN: empty file") || out.contains("EMPTY.MAN: empty file"),
            "{cmd}: {out}{err}"
        );
    }
    let walk = crate::common::root().join("samples/WALK.MAN");
    let (code, _, err) = run(
        tmp.path(),
        &["export", walk.to_str().unwrap(), "-o", "nodir/WALK.yaml"],
    );
    assert_eq!(
        (code, err.as_str()),
        (
            2,
            "animkit: error: nodir/WALK.yaml: the output folder nodir does not exist\n"
        )
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_document_whose_keys_were_sorted_is_read() {
    // PyYAML's default dump sorts the keys: `format:` comes after `entries:`
    let Some(msb) = corpus_path("realworld/msb/PiotrDrozdz96+Gothic/Anims/_compiled/KEILER.MSB")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (code, yaml, _) = run(tmp.path(), &["export", msb.to_str().unwrap()]);
    assert_eq!(code, 0);
    let mut lines: Vec<&str> = yaml.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("format:")).unwrap();
    let format = lines.remove(at);
    lines.push(format);
    std::fs::write(tmp.path().join("sorted.yaml"), lines.join("\n") + "\n").unwrap();
    let (code, _, err) = run(tmp.path(), &["import", "sorted.yaml", "-o", "K.MSB"]);
    assert_eq!(
        (code, err.as_str()),
        (0, "wrote K.MSB (10710 bytes, zengin.msb)\n")
    );
    assert!(std::fs::read(tmp.path().join("K.MSB")).unwrap() == std::fs::read(&msb).unwrap());
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn values_that_make_no_sense_are_findings_and_import_warnings() {
    let Some(man) =
        corpus_path("realworld/man/PiotrDrozdz96+Gothic/Anims/_compiled/GIANT_BUG-S_DEAD.MAN")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (code, yaml, _) = run(tmp.path(), &["export", man.to_str().unwrap()]);
    assert_eq!(code, 0);
    let edited = yaml
        .replace("    fps: 25.0\n", "    fps: 0.0\n")
        .replace("node_indices: [0, 1, 2,", "node_indices: [0, 1, 1,");
    assert_ne!(edited, yaml);
    std::fs::write(tmp.path().join("BUG.MAN.yaml"), edited).unwrap();
    let (code, _, err) = run(tmp.path(), &["import", "BUG.MAN.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: BUG.MAN.yaml: header.fps: fps 0: the playback rate must be a finite number above 0\n"),
        "{err}"
    );
    assert!(
        err.contains(
            "warning: BUG.MAN.yaml: samples.node_indices[2]: 1: the same node as node_indices[1]\n"
        ),
        "{err}"
    );
    let (code, out, _) = run(tmp.path(), &["check", "BUG.MAN"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("header.fps"), "{out}");
    assert!(out.contains("samples.node_indices[2]"), "{out}");
    // the original has none
    let (code, out, _) = run(tmp.path(), &["check", man.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn gltf_export_takes_the_model_as_a_path_inside_the_folder() {
    let Some(rw) = corpus_path("realworld") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("mod/ANIMS/_COMPILED");
    std::fs::create_dir_all(&dir).unwrap();
    for (from, name) in [
        (
            "mdh/PiotrDrozdz96+Gothic/Anims/_compiled/GIANT_BUG.MDH",
            "GIANT_BUG.MDH",
        ),
        (
            "man/PiotrDrozdz96+Gothic/Anims/_compiled/GIANT_BUG-S_DEAD.MAN",
            "GIANT_BUG-S_DEAD.MAN",
        ),
    ] {
        std::fs::copy(rw.join(from), dir.join(name)).unwrap();
    }
    for model in [
        "ANIMS/_COMPILED/GIANT_BUG.MDH",
        "anims\\_compiled\\giant_bug",
        "GIANT_BUG",
    ] {
        let (code, out, err) = run(
            tmp.path(),
            &[
                "gltf", "export", "mod", "--model", model, "-o", "bug.glb", "--force",
            ],
        );
        assert_eq!(code, 0, "{model}: {err}");
        assert!(
            format!("{out}{err}").contains("33 nodes, 1 animation (S_DEAD)"),
            "{model}: {out}{err}"
        );
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn diff_of_two_msbs_names_the_statement() {
    let Some(msb) = corpus_path("realworld/msb/PiotrDrozdz96+Gothic/Anims/_compiled/KEILER.MSB")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let (_, yaml, _) = run(tmp.path(), &["export", msb.to_str().unwrap()]);
    let edited = yaml.replacen("    fps: 25.0\n", "    fps: 12.5\n", 1);
    std::fs::write(tmp.path().join("K.yaml"), edited).unwrap();
    let (code, _, err) = run(tmp.path(), &["import", "K.yaml", "-o", "K.MSB"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(tmp.path(), &["diff", msb.to_str().unwrap(), "K.MSB"]);
    assert_eq!(
        (code, out.as_str()),
        (1, "entries[7] ani \"S_FISTRUN\": fps 25.0 → 12.5\n")
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn info_json_carries_numbers_as_numbers() {
    let Some(man) =
        corpus_path("realworld/man/PiotrDrozdz96+Gothic/Anims/_compiled/GIANT_BUG-S_DEAD.MAN")
    else {
        return;
    };
    let (code, out, _) = run(
        man.parent().unwrap(),
        &["info", "--json", "GIANT_BUG-S_DEAD.MAN"],
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let summary = v["files"][0]["summary"].as_array().unwrap();
    let number = |label: &str| {
        summary
            .iter()
            .find(|l| l["label"] == label)
            .map(|l| l["number"].clone())
    };
    assert_eq!(number("frames"), Some(serde_json::json!(1)));
    assert_eq!(number("nodes"), Some(serde_json::json!(33)));
    assert_eq!(number("fps"), Some(serde_json::json!(25.0)));
    // text stays text only
    assert_eq!(number("name"), Some(serde_json::Value::Null));
}

/// The MAN document `yaml` with the rotation of node column `n` at each frame of `frames` set
/// to `to`; also the rotations it had there.
fn set_rotations(yaml: &str, n: usize, frames: &[usize], to: &str) -> (String, Vec<[f64; 4]>) {
    let (mut frame, mut node) = (usize::MAX, 0);
    let mut old = Vec::new();
    let mut out = String::new();
    for line in yaml.split_inclusive('\n') {
        if line.starts_with("    - - {") {
            frame = frame.wrapping_add(1);
            node = 0;
        } else if line.starts_with("      - {") {
            node += 1;
        }
        let sample = line.starts_with("    - - {") || line.starts_with("      - {");
        if sample && node == n && frames.contains(&frame) {
            let at = line.find("rotation: [").unwrap() + "rotation: [".len();
            let end = at + line[at..].find(']').unwrap();
            let q: Vec<f64> = line[at..end]
                .split(", ")
                .map(|v| v.parse().unwrap())
                .collect();
            old.push([q[0], q[1], q[2], q[3]]);
            out.push_str(&format!("{}{to}{}", &line[..at], &line[end..]));
        } else {
            out.push_str(line);
        }
    }
    assert_eq!(old.len(), frames.len());
    (out, old)
}

/// The angle from `q` to the identity rotation, in degrees.
fn angle_to_identity(q: [f64; 4]) -> f64 {
    let v = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
    (2.0 * v.atan2(q[3].abs())).to_degrees()
}

#[test]
fn diff_of_two_mans_names_the_nodes_by_the_skeleton_beside_them() {
    // The mod's own folder holds KEILER.MDH beside KEILER-S_FISTWALK.MAN.
    let Some(dir) = corpus_path("realworld/asc-pairs/PiotrDrozdz96+Gothic/Anims/_compiled") else {
        return;
    };
    let (man, mdh) = (dir.join("KEILER-S_FISTWALK.MAN"), dir.join("KEILER.MDH"));
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    let (_, yaml, _) = run(p, &["export", man.to_str().unwrap()]);
    // Node column 12 is BIP01 L FOREARM (turned at frame 10), column 8 BIP01 HEAD (at 20–23).
    let (yaml, forearm) = set_rotations(&yaml, 12, &[10], "0.0, 0.0, 0.0, 1.0");
    let (yaml, head) = set_rotations(&yaml, 8, &[20, 21, 22, 23], "0.0, 0.0, 0.0, 1.0");
    std::fs::write(p.join("K.yaml"), yaml).unwrap();
    let (code, _, err) = run(p, &["import", "K.yaml", "-o", "E.MAN"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(p, &["diff", man.to_str().unwrap(), "E.MAN"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("with ") && err.contains("KEILER.MDH"), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let degrees = |line: &str, prefix: &str| -> f64 {
        assert!(line.starts_with(prefix), "{out}");
        line[prefix.len()..].trim_end_matches('°').parse().unwrap()
    };
    let head_max = head
        .iter()
        .map(|&q| angle_to_identity(q))
        .fold(0.0, f64::max);
    let d = degrees(
        lines[0],
        "BIP01 HEAD: frames 20–23 (4 of 49): rotation up to ",
    );
    assert!((d - head_max).abs() < 0.01, "{d} vs {head_max}: {out}");
    let d = degrees(lines[1], "BIP01 L FOREARM: frame 10: rotation ");
    let want = angle_to_identity(forearm[0]);
    assert!(
        want > 20.0 && (d - want).abs() < 0.01,
        "{d} vs {want}: {out}"
    );

    // Given as --mdh, for files whose folder holds no skeleton; without one, by index.
    std::fs::copy(&man, p.join("KEILER-S_FISTWALK.MAN")).unwrap();
    let (_, plain, _) = run(p, &["diff", "KEILER-S_FISTWALK.MAN", "E.MAN"]);
    assert!(
        plain.starts_with("samples node 8 (index 8): 4 of 49 frames changed (frames 20–23)"),
        "{plain}"
    );
    let (_, given, _) = run(
        p,
        &[
            "diff",
            "--mdh",
            mdh.to_str().unwrap(),
            "KEILER-S_FISTWALK.MAN",
            "E.MAN",
        ],
    );
    assert_eq!(given, out);
    // As data (diff --json, valid by its schema): one item per changed sample, with its node,
    // frame, and old and new value as the YAML writes them.
    let (_, json, _) = run(p, &["diff", "--json", man.to_str().unwrap(), "E.MAN"]);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    crate::report::assert_valid_report("diff", &doc);
    let items = doc["items"].as_array().unwrap();
    assert_eq!(items.len(), 5, "{json}");
    let forearm_item = &items[4];
    assert_eq!(
        (
            &forearm_item["path"],
            &forearm_item["node"],
            &forearm_item["node_index"],
            &forearm_item["frame"],
            &forearm_item["new"]["rotation"],
        ),
        (
            &serde_json::json!("samples.frames[10][12]"),
            &serde_json::json!("BIP01 L FOREARM"),
            &serde_json::json!(12),
            &serde_json::json!(10),
            &serde_json::json!([0.0, 0.0, 0.0, 1.0]),
        )
    );
    let old: Vec<f64> = forearm_item["old"]["rotation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(old, forearm[0].to_vec());
    // A skeleton of another checksum beside the file is not used.
    let other =
        corpus_path("realworld/mdh/PiotrDrozdz96+Gothic/Anims/_compiled/SWAMPRAT.MDH").unwrap();
    std::fs::copy(other, p.join("keiler.mdh")).unwrap();
    let (_, wrong, _) = run(p, &["diff", "KEILER-S_FISTWALK.MAN", "E.MAN"]);
    assert_eq!(wrong, plain);
    // ... nor one given (said on stderr).
    let (_, wrong, err) = run(
        p,
        &[
            "diff",
            "--mdh",
            "keiler.mdh",
            "KEILER-S_FISTWALK.MAN",
            "E.MAN",
        ],
    );
    assert_eq!(wrong, plain);
    assert!(
        err.contains("0xea83e513") && err.contains("not used"),
        "{err}"
    );
    // ... and the right one is, whatever the case of its name.
    std::fs::copy(&mdh, p.join("keiler.mdh")).unwrap();
    let (_, found, _) = run(p, &["diff", "KEILER-S_FISTWALK.MAN", "E.MAN"]);
    assert_eq!(found, out);
}

#[test]
fn diff_of_two_mds_scripts_names_the_statement() {
    let Some(mds) = corpus_path(
        "realworld/mds/CarnageMarkus+gothic-animations-decompiled/Gothic_2/HUMANS/HUMANS.MDS",
    ) else {
        return;
    };
    let text = std::fs::read(&mds).unwrap();
    // The original Gothic 2 human script: s_Sneak at 12.5 fps instead of 10, blending out
    // over 0.3 s; the aniBlend t_RunR_2_Run replaced by a new aniAlias.
    let replace_once = |text: &[u8], from: &str, to: &str| -> Vec<u8> {
        let at = text
            .windows(from.len())
            .position(|w| w == from.as_bytes())
            .unwrap_or_else(|| panic!("{from}"));
        [&text[..at], to.as_bytes(), &text[at + from.len()..]].concat()
    };
    let edited = replace_once(
        &text,
        "(\"s_Sneak\"\t\t\t\t1\t\"s_Sneak\"\t\t0.1\t0.0\tMI\t\"Hum_Sneak_M01.asc\"\t\t\t\tF\t10\t60\tFPS:10)",
        "(\"s_Sneak\"\t\t\t\t1\t\"s_Sneak\"\t\t0.1\t0.3\tMI\t\"Hum_Sneak_M01.asc\"\t\t\t\tF\t10\t60\tFPS:12.5)",
    );
    let edited = replace_once(
        &edited,
        "aniBlend\t(\"t_RunR_2_Run\"\t\t\t\t\"s_Run\"\t\t\t0.2\t0.2)",
        "aniAlias\t(\"s_RunFast\"\t1\t\"s_Run\"\t0.1\t0.1\tM.\t\"s_Run\"\tF)",
    );
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("H.MDS"), &edited).unwrap();
    let (code, out, err) = run(tmp.path(), &["diff", mds.to_str().unwrap(), "H.MDS"]);
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "aniBlend \"t_RunR_2_Run\": removed\n\
             aniAlias \"s_RunFast\": added {\"alias_of\":\"s_Run\",\"blend_in\":0.1,\"blend_out\":0.1,\"direction\":\"F\",\"flags\":\"M.\",\"layer\":1,\"name\":\"s_RunFast\",\"next\":\"s_Run\"}\n\
             ani \"s_Sneak\": blend_out 0.0 → 0.3\n\
             ani \"s_Sneak\": fps 10.0 → 12.5\n"
        ),
        "{err}"
    );
    // As data: where, which statement, old and new.
    let (_, json, _) = run(
        tmp.path(),
        &["diff", "--json", mds.to_str().unwrap(), "H.MDS"],
    );
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let fps = &doc["items"][3];
    assert_eq!(
        (&fps["node"], &fps["old"], &fps["new"]),
        (
            &serde_json::json!("ani \"s_Sneak\""),
            &serde_json::json!(10.0),
            &serde_json::json!(12.5)
        )
    );
    assert!(fps["path"].as_str().unwrap().ends_with("].fps"), "{json}");
}

#[test]
fn an_encoding_error_of_an_imported_document_points_at_its_line_and_column() {
    let Some(man) = corpus_path(
        "realworld/asc-pairs/PiotrDrozdz96+Gothic/Anims/_compiled/KEILER-S_FISTWALK.MAN",
    ) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    let (_, yaml, _) = run(p, &["export", man.to_str().unwrap()]);
    // A zero rotation at frame 10, node column 12 (found only when the sample is packed).
    let (edited, _) = set_rotations(&yaml, 12, &[10], "0.0, 0.0, 0.0, 0.0");
    std::fs::write(p.join("K.yaml"), &edited).unwrap();
    let line = 1 + edited
        .lines()
        .position(|l| l.contains("rotation: [0.0, 0.0, 0.0, 0.0]"))
        .unwrap();
    let column = 1 + edited.lines().nth(line - 1).unwrap().find('[').unwrap();
    let (code, out, err) = run(p, &["import", "K.yaml", "-o", "K.MAN"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "K.yaml:{line}:{column}: error: chunks[3].samples.frames[10][12].rotation: frame 10, \
             node 12: rotation [0.0, 0.0, 0.0, 0.0] is not a unit quaternion (|q| = 0): a \
             rotation must have length 1 (|q|² within 5 % of 1), e.g. [0.0, 0.0, 0.0, 1.0] for \
             no rotation\n"
        )
    );
    assert!(!p.join("K.MAN").exists());
    // The same in another format's document (UE3 rotation keys), and in diff and verify,
    // which read documents the same way.
    let upk = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/ANIMS.UPK");
    let (_, yaml, _) = run(p, &["export", upk.to_str().unwrap()]);
    let from = "      - {translation: [1.0, 0.0, 0.0], rotation: [0.0, 0.0, 0.0, 1.0]}\n";
    let line = 1 + yaml.lines().position(|l| format!("{l}\n") == from).unwrap();
    std::fs::write(
        p.join("U.yaml"),
        yaml.replacen(from, &from.replace("0.0, 1.0]", "0.0, 0.0]"), 1),
    )
    .unwrap();
    let (code, _, err) = run(p, &["diff", upk.to_str().unwrap(), "U.yaml"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!(
            "U.yaml:{line}:50: error: objects[1].animation.tracks[0].keys[1].rotation: rotation \
             [0.0, 0.0, 0.0, 0.0] is not a unit quaternion"
        )),
        "{err}"
    );
}

#[test]
fn check_strict_passes_the_original_scripts_but_their_real_defects() {
    let Some(dir) = corpus_path("realworld/mds/CarnageMarkus+gothic-animations-decompiled") else {
        return;
    };
    let (code, out, _) = run(&dir, &["check", "--strict", "--json", "."]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    crate::report::assert_valid_report("check", &doc);
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 186);
    // What fails, and why: each a defect of the script itself.
    let tab = "a tab inside the quotes (\"t_Fallen_2_Stand\" is defined)";
    let mut failed: Vec<(String, String)> = files
        .iter()
        .filter(|f| f["ok"] == false)
        .map(|f| {
            let why = match f["error"].as_str() {
                Some(e) => e.to_string(),
                None => f["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|x| x["severity"] != "info")
                    .map(|x| x["message"].as_str().unwrap().to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            };
            (f["path"].as_str().unwrap().to_string(), why)
        })
        .collect();
    failed.sort();
    let expected = [
        (
            "./Gothic_1/MDS_MOBSI/PILLAR_7M.MDS",
            "\"s_S1\" names no animation of this script: the statement that defines it was \
             skipped by the parser (18:4: unknown statement `ani` in Model; line skipped): \
             aniEnum ended before it (a stray `}`?)",
        ),
        ("./Gothic_1/SCAVENGER.MDS", tab),
        ("./Gothic_2/MONSTER/GOLEM/GOLEM.MDS", "unterminated string"),
        ("./Gothic_2/MONSTER/ORCBITER_SCAVENGER/ORCBITER.MDS", tab),
        ("./Gothic_2/MONSTER/SCAVENGER/SCAVENGER.MDS", tab),
        (
            "./Gothic_2/MONSTER/SCA_SCAVENGERGL_SCAVENGER/SCAVENGERGL.MDS",
            tab,
        ),
    ];
    assert_eq!(failed.len(), expected.len(), "{failed:#?}");
    for ((path, why), (want_path, want)) in failed.iter().zip(expected) {
        assert_eq!(path, want_path);
        assert!(why.contains(want), "{path}: {why}");
    }

    // An overlay's names from its base: info without the base, resolved with it (MDS or MSB).
    let overlay = "Gothic_1/MDS_OVERLAY/HUMANS_SPRINT.MDS";
    let (code, out, _) = run(&dir, &["check", "--strict", overlay]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches(": info: ").count(), 14, "{out}");
    assert!(out.contains(
        "HUMANS_SPRINT.MDS: info: script.items[1].aniEnum[2].ani.next: \"s_Run\" names no \
         animation of this overlay script: its base script may define it (check --with \
         BASE.MDS or BASE.MSB resolves it)"
    ));
    let (code, out, _) = run(
        &dir,
        &[
            "check",
            "--strict",
            "--with",
            "Gothic_1/HUMANS@7043fab.MDS",
            overlay,
        ],
    );
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "Gothic_1/MDS_OVERLAY/HUMANS_SPRINT.MDS: ok (zengin.mds): 0 errors, 0 warnings\n"
        )
    );
    // A base that lacks a name: a warning again.
    let (code, out, _) = run(
        &dir,
        &[
            "check",
            "--strict",
            "--with",
            "Gothic_1/SCAVENGER.MDS",
            overlay,
        ],
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"s_Run\" names no animation of this script or of its base script"));
    let msb = corpus_path("realworld/msb").unwrap();
    let base = msb.join(
        "NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/HUMANS@402a39a.MSB",
    );
    let acrobatic = msb.join("PiotrDrozdz96+Gothic/Anims/_compiled/HUMANS_ACROBATIC.MSB");
    let (_, alone, _) = run(&dir, &["check", acrobatic.to_str().unwrap()]);
    assert!(alone.contains(": info: "), "{alone}");
    let (code, out, _) = run(
        &dir,
        &[
            "check",
            "--strict",
            "--base",
            base.to_str().unwrap(),
            acrobatic.to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0);
    assert!(!out.contains(": info: "), "{out}");
}

#[test]
fn gltf_export_of_a_model_whose_animations_move_no_node_says_so_and_writes_nothing() {
    // The mod's anvil: four MANs, each with frames but no node (the engine animates nothing).
    let Some(man_dir) = corpus_path(
        "realworld/man/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled",
    ) else {
        return;
    };
    let mdh = corpus_path(
        "realworld/mdh/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled/BSANVIL_OC_1.MDH",
    )
    .unwrap();
    let mans: Vec<String> = ["S_S0", "S_S1", "T_S0_2_S1", "T_S1_2_S0"]
        .iter()
        .map(|n| {
            let p = man_dir.join(format!("BSANVIL_OC_1-{n}.MAN"));
            assert!(p.is_file(), "{}", p.display());
            p.to_str().unwrap().to_string()
        })
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path();
    let mut args: Vec<&str> = vec!["gltf", "export"];
    args.extend(mans.iter().map(String::as_str));
    args.extend(["--mdh", mdh.to_str().unwrap(), "-o", "anvil.glb"]);
    let (code, out, err) = run(p, &args);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains(&format!(
            "{}, {}, {}, {}: no frames or no nodes: no animation to export, and a glTF file \
             without animations would not go back in with `gltf import`",
            mans[0], mans[1], mans[2], mans[3]
        )),
        "{err}"
    );
    assert!(!p.join("anvil.glb").exists());
    // The skeleton alone still exports (a file with nothing to take back).
    let (code, _, err) = run(
        p,
        &[
            "gltf",
            "export",
            "--mdh",
            mdh.to_str().unwrap(),
            "-o",
            "s.glb",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 animations"), "{err}");
}
