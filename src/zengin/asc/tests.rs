use super::*;
use crate::testing::{corpus, corpus_file};
use std::path::PathBuf;

const BODIES: &str = "realworld/asc-pairs/CarnageMarkus+gothic-animations-decompiled/bodies";

/// Every `.ASC` under the corpus (any case of the extension).
pub(crate) fn corpus_ascs() -> Option<Vec<PathBuf>> {
    let root = corpus()?;
    let mut v: Vec<PathBuf> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_type().is_file()
                && e.path()
                    .extension()
                    .is_some_and(|x| x.eq_ignore_ascii_case("asc"))
        })
        .map(|e| e.into_path())
        .collect();
    v.sort();
    assert!(
        v.len() >= 56,
        "the corpus holds 56 ASC files, found {}",
        v.len()
    );
    Some(v)
}

fn crlf(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 20);
    for &b in data {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_corpus_asc_prints_back_byte_exact_lf_and_crlf() {
    let Some(files) = corpus_ascs() else { return };
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let asc = Asc::parse(&data).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(asc.print(), data, "{}", f.display());
        assert_eq!(asc.eol(), Eol::Lf);
        let c = crlf(&data);
        let asc2 = Asc::parse(&c).unwrap_or_else(|e| panic!("{} (CRLF): {e}", f.display()));
        assert_eq!(asc2.print(), c, "{} (CRLF)", f.display());
        assert_eq!(asc2.eol(), Eol::CrLf);
        assert_eq!(asc2.model, asc.model);
        // With a BOM and without a final newline.
        let mut b = b"\xEF\xBB\xBF".to_vec();
        b.extend_from_slice(&data[..data.len() - 1]);
        assert_eq!(Asc::parse(&b).unwrap().print(), b);
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_gs_file_is_printed_again_by_print_gs_byte_exact() {
    // GothicSourcer's layout and numbers: the typed model printed in GS layout gives the
    // file's bytes (animations and the mesh-and-tree bodies with their material lists).
    let Some(files) = corpus_ascs() else { return };
    let mut checked = 0;
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let asc = Asc::parse(&data).unwrap();
        let text = print_gs(&asc.model, Eol::Lf);
        assert!(
            text.as_bytes() == data.as_slice(),
            "{}: first difference at byte {}",
            f.display(),
            text.bytes()
                .zip(data.iter())
                .position(|(a, b)| a != *b)
                .unwrap_or(text.len().min(data.len()))
        );
        checked += 1;
    }
    assert!(checked >= 56, "{checked}");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn hum_body_naked0_decodes_as_the_spec_says() {
    let Some(data) = corpus_file(&format!("{BODIES}/HUM_BODY_NAKED0.ASC")) else {
        return;
    };
    let asc = Asc::parse(&data).unwrap();
    let m = &asc.model;
    assert_eq!(m.export_version, 110);
    // 34 skeleton nodes (Bip01*/ZS_*), 4 Dummy helpers, zm_Skin: 39 objects.
    assert_eq!(m.objects.len(), 39);
    let skel = m
        .objects
        .iter()
        .filter(|o| {
            let n = o.name.to_ascii_uppercase();
            n.starts_with("BIP01") || n.starts_with("ZS_")
        })
        .count();
    assert_eq!(skel, 34);
    assert_eq!(
        m.objects
            .iter()
            .filter(|o| o.name.starts_with("Dummy"))
            .count(),
        4
    );
    let root = &m.objects[0];
    assert_eq!(root.name, "Bip01");
    assert_eq!(root.parent, None);
    // spec §5: root TM_ROW3 (0, −7.37745, 99.9496).
    assert_eq!(root.tm.rows[3], [0.0, -7.37745, 99.9496]);
    let skin = m.objects.iter().find(|o| o.name == "zm_Skin").unwrap();
    assert_eq!(skin.kind, ObjectKind::Geom);
    let mesh = skin.mesh.as_ref().unwrap();
    assert!(mesh.softskin);
    assert_eq!(mesh.vertices.len(), 296);
    assert_eq!(mesh.faces.len(), 568);
    assert_eq!(mesh.tverts.len(), 322);
    assert_eq!(mesh.vertices[0], [0.04018, -21.9167, 115.335]);
    assert_eq!(mesh.faces[0].v, [137, 190, 50]);
    assert_eq!(mesh.faces[0].smoothing, "1");
    assert_eq!(mesh.faces[0].mtlid, Some(0));
    assert_eq!(m.softskins.len(), 1);
    assert_eq!(m.softskins[0].mesh, "zm_Skin");
    assert_eq!(m.softskins[0].verts.len(), 296);
    assert_eq!(
        m.softskins[0].verts[0],
        vec![
            ("Bip01 Spine".to_string(), 0.5),
            ("Bip01 Spine1".to_string(), 0.5)
        ]
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn an_animation_file_decodes_world_samples() {
    let Some(data) = corpus_file(
        "realworld/asc-pairs/CarnageMarkus+gothic-animations-decompiled/Gothic_2/ORC/ORC/ORC_DRUMNOMOVE_JUE02.ASC",
    ) else {
        return;
    };
    let m = Asc::parse(&data).unwrap().model;
    assert_eq!(
        m.comment.as_deref(),
        Some("[ GothicSourcer v3.10 ] - August 2006")
    );
    assert_eq!(m.scene.filename, "ORC_DRUMNOMOVE_JUE02.MAX");
    assert_eq!((m.scene.first_frame, m.scene.last_frame), (30, 164));
    assert_eq!(m.scene.frame_speed, 25.0);
    assert_eq!(m.scene.ticks_per_frame, 192);
    let a = m.objects[0].anim.as_ref().unwrap();
    assert_eq!(a.pos.len(), 135);
    assert_eq!(a.rot.len(), 135);
    // GS's tick bug: FIRST + i·TPF.
    assert_eq!(a.pos[1].tick, 222);
    assert_eq!(a.pos[0].pos, [6.81896, -63.4837, 19.2789]);
    assert_eq!(a.rot[0].axis, [0.276895, 0.276895, 0.92014]);
    assert_eq!(a.rot[0].angle, 1.65399);
    assert_eq!(a.scale.len(), 1);
    assert_eq!(a.scale[0].scale, [1.0, 1.0, 1.0]);
}

fn err(text: &str) -> AscError {
    Asc::parse(text.as_bytes()).expect_err("must fail")
}

const SMALL: &str = "*3DSMAX_ASCIIEXPORT\t110\n*SCENE {\n\t*SCENE_FIRSTFRAME 0\n\t*SCENE_LASTFRAME 1\n}\n*HELPEROBJECT {\n\t*NODE_NAME \"Bip01\"\n\t*TM_ANIMATION {\n\t\t*NODE_NAME  \"Bip01\"\n\t\t*CONTROL_POS_TRACK {\n\t\t\t*CONTROL_POS_SAMPLE 0\t1\t2\t3\n\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\n\t\t}\n\t}\n}\n";

#[test]
fn small_file_parses() {
    let a = Asc::parse(SMALL.as_bytes()).unwrap();
    assert_eq!(a.model.objects[0].anim.as_ref().unwrap().pos.len(), 2);
    assert_eq!(a.print(), SMALL.as_bytes());
}

#[test]
fn bad_input_names_line_column_and_block() {
    // A sample count that disagrees with the scene range.
    let e = err(&SMALL.replace("\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\n", ""));
    assert_eq!((e.line, e.column), (10, 1), "{e}");
    assert_eq!(
        e.path,
        "*HELPEROBJECT \"Bip01\"/*TM_ANIMATION/*CONTROL_POS_TRACK"
    );
    assert!(e.message.contains("1 samples"), "{e}");
    // Text that is not a number.
    let e = err(&SMALL.replace("192\t1\t2\t3", "192\t1\tx2\t3"));
    assert_eq!((e.line, e.column), (12, 30), "{e}");
    assert!(e.message.contains("`x2` is not a number"), "{e}");
    assert_eq!(
        e.to_string(),
        "12:30: in *HELPEROBJECT \"Bip01\"/*TM_ANIMATION/*CONTROL_POS_TRACK: `*CONTROL_POS_SAMPLE`: value `x2` is not a number"
    );
    // A truncated file.
    let e = err(&SMALL[..SMALL.len() - 8]);
    assert!(e.message.contains("the file ends inside"), "{e}");
    assert!(e.message.contains("(a `}` is missing)"), "{e}");
    // A missing brace: the track's `}` is gone, the next line is not a sample.
    let e = err(&SMALL.replace(
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\n\t\t}\n",
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\n",
    ));
    assert_eq!(e.line, 13, "{e}");
    assert!(
        e.message.contains(
            "this `}` closes `*CONTROL_POS_TRACK` of line 10 but is not indented like it"
        ),
        "{e}"
    );
    // A missing value.
    let e = err(&SMALL.replace("192\t1\t2\t3", "192\t1\t2"));
    assert!(e.message.contains("lacks its value"), "{e}");
    // An unclosed quote.
    let e = err(&SMALL.replace("\"Bip01\"\n\t*TM", "\"Bip01\n\t*TM"));
    assert_eq!((e.line, e.column), (7, 13), "{e}");
    // Not an ASC.
    let e = err("*SCENE {\n}\n");
    assert!(
        e.message.contains("starts with `*3DSMAX_ASCIIEXPORT`"),
        "{e}"
    );
}

#[test]
fn detects_by_content() {
    assert!(parse::detect(b"*3DSMAX_ASCIIEXPORT\t110\n"));
    assert!(parse::detect(
        b"\xEF\xBB\xBF\r\n  *3dsmax_asciiexport 110\r\n"
    ));
    assert!(!parse::detect(b"*3DSMAX_ASCIIEXPORTX 110\n"));
    assert!(!parse::detect(b"Model(\"x\") {}"));
}

#[test]
fn numbers_parse_exactly() {
    for s in [
        "0",
        "-0",
        "1",
        "6.27438e-006",
        "1e-005",
        "0.8803620338439941",
        "-63.4837",
        "100.39",
        "1.5e+010",
        "123456789012345678901234",
        "3.4028234663852886e+38",
        ".5",
        "5.",
    ] {
        let want: f64 = s.parse().unwrap();
        let got = model::parse_f64(s.as_bytes()).unwrap();
        assert_eq!(got.to_bits(), want.to_bits(), "{s}");
    }
    for s in ["", "-", "e5", "1e", "1x", "1.2.3", "--1", "nan", "inf"] {
        assert_eq!(model::parse_f64(s.as_bytes()), None, "{s}");
    }
}

#[test]
fn kerrax_layout_round_trips() {
    // KrxImpExp's Blender build: Python repr numbers, spaces in the scale sample, one space
    // before the TM_ANIMATION name, correct ticks.
    let text = "*3DSMAX_ASCIIEXPORT\t110\n*COMMENT \"[ Kerrax ASCII Model Exporter ] - Jan  1 2010\"\n*SCENE {\n\t*SCENE_FILENAME \"x.max\"\n\t*SCENE_FIRSTFRAME 0\n\t*SCENE_LASTFRAME 0\n\t*SCENE_FRAMESPEED 25\n\t*SCENE_TICKSPERFRAME 192\n}\n*HELPEROBJECT {\n\t*NODE_NAME \"Bip01\"\n\t*NODE_TM {\n\t\t*NODE_NAME \"Bip01\"\n\t\t*TM_ROW0 0.8803620338439941\t-1.0\t0.0\n\t}\n\t*TM_ANIMATION {\n\t\t*NODE_NAME \"Bip01\"\n\t\t*CONTROL_ROT_TRACK {\n\t\t\t*CONTROL_ROT_SAMPLE 0\t0.0\t0.0\t1.0\t1.5707963267948966\n\t\t}\n\t\t*CONTROL_SCALE_TRACK {\n\t\t\t*CONTROL_SCALE_SAMPLE 0 1 1 1 0 0 0 0\n\t\t}\n\t}\n}\n";
    let a = Asc::parse(text.as_bytes()).unwrap();
    assert_eq!(a.print(), text.as_bytes());
    assert_eq!(
        a.model.objects[0].tm.rows[0],
        [0.8803620338439941, -1.0, 0.0]
    );
    let an = a.model.objects[0].anim.as_ref().unwrap();
    assert_eq!(an.rot[0].angle, std::f64::consts::FRAC_PI_2);
}

fn yaml_round_trip(data: &[u8]) -> Vec<u8> {
    let asc = Asc::parse(data).unwrap();
    let text = yaml::to_yaml(&asc);
    let back = yaml::from_yaml(&text).unwrap_or_else(|e| panic!("{e}"));
    back.print()
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_corpus_asc_round_trips_through_yaml_byte_exact() {
    let Some(files) = corpus_ascs() else { return };
    for f in &files {
        let data = std::fs::read(f).unwrap();
        assert!(yaml_round_trip(&data) == data, "{}", f.display());
        let asc = Asc::parse(&data).unwrap();
        // GothicSourcer's layout: no `source` needed.
        assert!(
            !yaml::to_yaml(&asc).contains("\nsource:"),
            "{}",
            f.display()
        );
    }
    // CRLF and a BOM, still without `source`.
    let data = std::fs::read(&files[0]).unwrap();
    let mut c = b"\xEF\xBB\xBF".to_vec();
    c.extend_from_slice(&crlf(&data));
    let asc = Asc::parse(&c).unwrap();
    let text = yaml::to_yaml(&asc);
    assert!(text.contains("line_end: crlf\nbom: true\n"));
    assert!(!text.contains("\nsource:"));
    assert_eq!(yaml_round_trip(&c), c);
}

#[test]
fn other_layouts_round_trip_through_yaml_with_their_source() {
    let kerrax = "*3DSMAX_ASCIIEXPORT\t110\n*SCENE {\n\t*SCENE_FIRSTFRAME 0\n\t*SCENE_LASTFRAME 0\n}\n*HELPEROBJECT {\n\t*NODE_NAME \"Bip01\"\n\t*TM_ANIMATION {\n\t\t*NODE_NAME \"Bip01\"\n\t\t*CONTROL_ROT_TRACK {\n\t\t\t*CONTROL_ROT_SAMPLE 0\t0.0\t0.0\t1.0\t1.5707963267948966\n\t\t}\n\t\t*CONTROL_SCALE_TRACK {\n\t\t\t*CONTROL_SCALE_SAMPLE 0 1 1 1 0 0 0 0\n\t\t}\n\t}\n}";
    let asc = Asc::parse(kerrax.as_bytes()).unwrap();
    let text = yaml::to_yaml(&asc);
    assert!(text.contains("\nsource:\n"), "{text}");
    // The value keeps every digit in the document.
    assert!(
        text.contains("- [0, 0, 0, 1, 1.5707963267948966]"),
        "{text}"
    );
    assert_eq!(yaml_round_trip(kerrax.as_bytes()), kerrax.as_bytes());
    // An edit with `source` is refused, naming what to do...
    let edited = text.replace("1.5707963267948966]", "1.5]");
    let e = yaml::from_yaml(&edited).err().unwrap().to_string();
    assert!(e.contains("delete the `source:` list"), "{e}");
    // ... and without it, honoured in GothicSourcer's layout.
    let cut = edited[..edited.find("# The file's own layout").unwrap()].to_string();
    let out = yaml::from_yaml(&cut).unwrap();
    assert_eq!(
        out.model.objects[0].anim.as_ref().unwrap().rot[0].angle,
        1.5
    );
    assert!(String::from_utf8(out.print())
        .unwrap()
        .contains("\t\t\t*CONTROL_ROT_SAMPLE 0\t0\t0\t1\t1.5\n"));
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn yaml_edits_are_honoured_or_refused() {
    let Some(data) = corpus_file(
        "realworld/asc-pairs/CarnageMarkus+gothic-animations-decompiled/Gothic_2/ORC/ORC/ORC_FISTTURN.ASC",
    ) else {
        return;
    };
    let asc = Asc::parse(&data).unwrap();
    let text = yaml::to_yaml(&asc);
    // A changed sample value is printed as %g with MSVC exponents, nothing else changes.
    let edited = text.replacen(
        "- [192, 0.0010216, 0.0010216, 91.3677]",
        "- [192, 0.0000012345, 0.0010216, 91.3677]",
        1,
    );
    assert_ne!(edited, text);
    let out = yaml::from_yaml(&edited).unwrap().print();
    let want = String::from_utf8(data.clone()).unwrap().replacen(
        "*CONTROL_POS_SAMPLE 192\t0.0010216\t0.0010216\t91.3677",
        "*CONTROL_POS_SAMPLE 192\t1.2345e-006\t0.0010216\t91.3677",
        1,
    );
    assert_eq!(String::from_utf8(out).unwrap(), want);
    // A removed sample: the count no longer matches the scene's range.
    let e = yaml::from_yaml(&text.replacen("    - [192, 0.0010216, 0.0010216, 91.3677]\n", "", 1))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("objects[0].anim.pos: 24 samples, but the scene's range 0..=24 has 25 frames"),
        "{e}"
    );
    // Text that is not a number.
    let e = yaml::from_yaml(&text.replacen("91.3677]", "9x]", 1))
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("objects[0].anim.pos[1][3]: `9x` is not a number"),
        "{e}"
    );
    // A parent that does not exist.
    let e = yaml::from_yaml(&text.replacen("parent: 'Bip01'", "parent: 'Bip02'", 1))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("`Bip02` is not an object of this file"), "{e}");
}

/// `Model::parse` (the text read a line at a time, sample lines read straight from it where
/// plain) against `Model::from_doc` (every line through the tokenizer) on `text`.
fn both_readers_agree(text: &[u8]) {
    let typed = Model::parse(text);
    let doc = Doc::parse(text).and_then(|d| Model::from_doc(&d));
    match (&typed, &doc) {
        (Ok(a), Ok(b)) => assert!(a == b, "the models differ"),
        (Err(a), Err(b)) => assert_eq!(
            (a.line, a.column, &a.path, &a.message),
            (b.line, b.column, &b.path, &b.message)
        ),
        _ => panic!("one reader failed: {typed:?} / {doc:?}"),
    }
}

#[test]
fn plain_sample_lines_read_as_the_tokenizer_reads_them() {
    let line = "\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\n";
    let variants = [
        line.to_string(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\textra tokens \"even quoted\"\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\t\"unclosed\n".into(),
        "  *CONTROL_POS_SAMPLE \x0b192 \x0c1.5e+002\r2  -3.25 \r\n".into(),
        "\t\t\t*control_pos_sample 192\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLEX 192\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE\t192\t1\t2\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1\tx2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192.5\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 1e16\t1\t2\t3\n".into(),
        // (the whole-number test of the tick at its edges)
        "\t\t\t*CONTROL_POS_SAMPLE 9e15\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 9000000000000001\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE -9e15\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE -192\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE -0.5\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE -0\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 1e999\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE \"192\"\t1\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\"\t3\n".into(),
        "\n\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\n\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t-0\t+2\t.3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1.5x\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\"q\"\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1e\t2\t3\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t0.1234567890123456789012345\t2e-0000009\t3e400\n".into(),
        "\t\t\t*CONTROL_ROT_SAMPLE 192\t1\t2\t3\t4\n".into(),
        "\t\t\t*CONTROL_POS_SAMPLE 192\t1\t2\t3\n\t\t\t*CONTROL_POS_SAMPLE 384\t1\t2\t3\n".into(),
    ];
    for v in &variants {
        let text = SMALL.replace(line, v);
        both_readers_agree(text.as_bytes());
        both_readers_agree(crlf(text.as_bytes()).as_slice());
        // (the last line of the file without its line end)
        both_readers_agree(text.trim_end_matches('\n').as_bytes());
    }
    // The fast path is taken (and gives the tokenizer's values) for a plain line.
    let m = Model::parse(SMALL.as_bytes()).unwrap();
    let a = m.objects[0].anim.as_ref().unwrap();
    assert_eq!(a.pos[1].tick, 192);
    assert_eq!(a.pos[1].pos, [1.0, 2.0, 3.0]);
    let rot = SMALL
        .replace("POS_TRACK", "ROT_TRACK")
        .replace("POS_SAMPLE 0\t1\t2\t3", "ROT_SAMPLE 0\t0\t0\t1\t0.5")
        .replace("POS_SAMPLE 192\t1\t2\t3", "ROT_SAMPLE 192\t0\t1\t0\t-1.25");
    both_readers_agree(rot.as_bytes());
    let m = Model::parse(rot.as_bytes()).unwrap();
    let a = m.objects[0].anim.as_ref().unwrap();
    assert_eq!((a.rot[1].axis, a.rot[1].angle), ([0.0, 1.0, 0.0], -1.25));
    let scale = SMALL
        .replace("POS_TRACK", "SCALE_TRACK")
        .replace(
            "POS_SAMPLE 0\t1\t2\t3",
            "SCALE_SAMPLE 0\t1\t1\t1\t0\t0\t1\t0",
        )
        .replace(
            "POS_SAMPLE 192\t1\t2\t3",
            "SCALE_SAMPLE 192\t2\t2\t2\t1\t0\t0\t0.5",
        );
    both_readers_agree(scale.as_bytes());
    let m = Model::parse(scale.as_bytes()).unwrap();
    let a = m.objects[0].anim.as_ref().unwrap();
    assert_eq!(a.scale[1].scale, [2.0; 3]);
    assert_eq!((a.scale[1].axis, a.scale[1].angle), ([1.0, 0.0, 0.0], 0.5));
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_corpus_asc_reads_the_same_through_both_readers() {
    let Some(files) = corpus_ascs() else { return };
    for f in files {
        let data = std::fs::read(&f).unwrap();
        both_readers_agree(&data);
        both_readers_agree(&crlf(&data));
    }
}

proptest::proptest! {
    /// `parse_f64` gives the standard parser's value (the same bits) for any decimal
    /// spelling: up to 24 digits, a point anywhere, a sign, an exponent.
    #[test]
    fn parse_f64_is_the_standard_parse(
        sign in proptest::sample::select(vec!["", "-", "+"]),
        digits in "[0-9]{0,24}",
        point in proptest::option::of(0usize..25),
        exp in proptest::option::of(-40i32..40),
    ) {
        let mut s = sign.to_string();
        match point {
            Some(p) => {
                let p = p.min(digits.len());
                s.push_str(&digits[..p]);
                s.push('.');
                s.push_str(&digits[p..]);
            }
            None => s.push_str(&digits),
        }
        if let Some(e) = exp {
            s.push_str(&format!("e{e:+04}"));
        }
        let want = s.parse::<f64>().ok().filter(|_| !digits.is_empty());
        let got = model::parse_f64(s.as_bytes());
        proptest::prop_assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "{}", s);
    }
}
