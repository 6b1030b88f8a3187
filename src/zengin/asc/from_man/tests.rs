use super::*;
use crate::zengin::asc::{print_gs, Asc, Eol};
use crate::zengin::man::quant;

const PAIRS: &str = "realworld/asc-pairs/";
const MAN: &str = "PiotrDrozdz96+Gothic/Anims/_compiled/HUMANS_1HST3-T_1HRUNTURNR.MAN";
const MDH: &str = "PiotrDrozdz96+Gothic/Anims/_compiled/HUMANS_1HST3.MDH";
const GS: &str =
    "CarnageMarkus+gothic-animations-decompiled/Gothic_2/HUMANS/HUMANS_1HST2/HUM_1HTURNT3.ASC";

fn load(rel: &str) -> Option<Vec<u8>> {
    crate::testing::corpus_file(&format!("{PAIRS}{rel}"))
}

/// Re-compile an animation ASC's samples with round-to-nearest against the MAN's own
/// quantisation (asc.md §3 forward, `quant`); returns (codes compared, codes equal, max diff).
pub(crate) fn requantise(
    asc: &crate::zengin::asc::Model,
    rig: &Rig,
    man: &Man,
    start: i64,
) -> (usize, usize, i64) {
    let h = man.header().unwrap();
    let s = man.samples().unwrap();
    let (min, scale) = (h.position_min.get(), h.position_scale.get());
    let by_name = |name: &str| asc.objects.iter().find(|o| o.name == name).unwrap();
    let (mut total, mut same, mut max) = (0, 0, 0i64);
    for f in 0..s.frame_count() {
        let idx = (start
            + ((f as f64 * h.fps_source.get() as f64) / h.fps.get() as f64).floor() as i64
            - asc.scene.first_frame) as usize;
        let world_of = |k: usize| -> World {
            let o = by_name(&rig.names[k]);
            match &o.anim {
                Some(a) if !a.rot.is_empty() => World {
                    rot: pose::quat_from_angaxis(
                        DVec3::from_array(a.rot[idx].axis),
                        a.rot[idx].angle,
                    ),
                    pos: DVec3::from_array(a.pos[idx].pos),
                },
                _ => pose::world_from_tm_rows(o.tm.rows.map(DVec3::from_array)),
            }
        };
        for (j, code) in s.frame(f).iter().enumerate() {
            let k = s.node_indices[j] as usize;
            let l = pose::local_from_world(rig.parents[k].map(world_of), world_of(k));
            let r = quant::pack_rotation([l.rot.x, l.rot.y, l.rot.z, l.rot.w].map(|v| v as f32))
                .unwrap();
            let p = [l.pos.x, l.pos.y, l.pos.z]
                .map(|v| ((v - min as f64) / scale as f64).round() as i64);
            for c in 0..3 {
                for (got, want) in [(r[c] as i64, code[c] as i64), (p[c], code[3 + c] as i64)] {
                    total += 1;
                    let d = (got - want).abs();
                    if d == 0 {
                        same += 1;
                    }
                    max = max.max(d);
                }
            }
        }
    }
    (total, same, max)
}

#[test]
fn biped_case_as_gothicsourcer_writes_it() {
    for (mdh, gs) in [
        ("BIP01", "Bip01"),
        ("BIP01 L UPPERARM", "Bip01 L UpperArm"),
        ("BIP01 R FOREARM", "Bip01 R Forearm"),
        ("BIP01 L FINGER01", "Bip01 L Finger01"),
        ("BIP01 PONYTAIL1", "Bip01 Ponytail1"),
        ("BIP01 R HORSELINK", "Bip01 R HorseLink"),
        ("BIP01 ZANGE-L", "Bip01 Zange-L"),
        ("BIP01 L CLAW2", "Bip01 L Claw2"),
        ("ZS_RIGHTHAND", "ZS_RIGHTHAND"),
        ("Bip01 Already Mixed", "Bip01 Already Mixed"),
    ] {
        assert_eq!(asc_name(mdh), gs);
    }
}

#[test]
fn ani_line_of_a_real_source_chunk() {
    let script = b"\t\t\tANI\t\t\t(\"T_1HRUNTURNR\"\t\t\t\t20\t\"T_1HRUNTURNR\"\t\t0.1\t0.2\tM.\t\"HUM_1HTURNT3.ASC\"\t\tF\t26\t49)";
    assert_eq!(
        ani_line(script),
        Some(AniLine {
            asc: "HUM_1HTURNT3.ASC".into(),
            first_frame: 26,
            last_frame: 49
        })
    );
    assert_eq!(ani_line(b"not a statement"), None);
}

/// The MAN GothicSourcer decompiled into HUM_1HTURNT3.ASC, written again: GS's layout, the
/// same objects, tracks and frame range (FIRST 26..49 of GS's 1..49), values equal to GS's
/// to its 6 digits, and round-to-nearest gives back every code (±1 at most).
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn real_man_as_gothicsourcer_wrote_it() {
    let (Some(man), Some(mdh), Some(gs)) = (load(MAN), load(MDH), load(GS)) else {
        return;
    };
    let man = Man::read(&man).unwrap();
    let mdh = Mdh::read(&mdh).unwrap();
    let gs = Asc::parse(&gs).unwrap().model;
    let rig = Rig::from_mdh(&mdh).unwrap();
    let line = ani_line(man.source().unwrap().script.as_bytes()).unwrap();
    assert_eq!(line.asc, "HUM_1HTURNT3.ASC");
    let part = Part {
        label: "T_1HRUNTURNR".into(),
        man: &man,
        start: line.first_frame,
        end: Some(line.last_frame),
    };
    let (model, cov) = animation(&rig, &line.asc, &[part]).unwrap();
    assert_eq!(cov[0].first, 26);
    assert_eq!(cov[0].last, 49);
    assert_eq!(cov[0].frames, 24);
    let text = print_gs(&model, Eol::Lf);
    assert!(text.starts_with("*3DSMAX_ASCIIEXPORT\t110\n*COMMENT \"[ animkit "));
    for want in [
        "\t*SCENE_FILENAME \"HUM_1HTURNT3.MAX\"\n\t*SCENE_FIRSTFRAME 26\n\t*SCENE_LASTFRAME 49\n\t*SCENE_FRAMESPEED 25\n\t*SCENE_TICKSPERFRAME 192\n",
        "\t\t*NODE_NAME  \"Bip01 Spine\"\n\t\t*CONTROL_POS_TRACK {\n\t\t\t*CONTROL_POS_SAMPLE 26\t",
        "\t\t\t*CONTROL_SCALE_SAMPLE\t26\t1\t1\t1\t0\t0\t0\t0\n",
        "*HELPEROBJECT {\n\t*NODE_NAME \"Bip01 L UpperArm\"\n\t*NODE_PARENT \"Bip01 L Clavicle\"\n",
        // The last sample: tick FIRST + 23·192 (GS's tick values).
        "*CONTROL_POS_SAMPLE 4442\t",
    ] {
        assert!(text.contains(want), "missing {want:?}");
    }
    // Parsed again: the same objects as GS's file, in the same order, with tracks on the
    // same nodes (Bip01, the pelvis and the unused slots have none).
    let back = Asc::parse(text.as_bytes()).unwrap().model;
    assert_eq!(print_gs(&back, Eol::Lf), text);
    let names = |m: &crate::zengin::asc::Model| -> Vec<(String, Option<String>, bool)> {
        m.objects
            .iter()
            .map(|o| (o.name.clone(), o.parent.clone(), o.anim.is_some()))
            .collect()
    };
    assert_eq!(names(&back), names(&gs));
    // Values: GS frames 26..49 are its samples 25..48.
    let scale = man.header().unwrap().position_scale.get() as f64;
    let mut pos_tokens = (0, 0);
    let (mut max_pos, mut max_rot, mut max_tm) = (0.0f64, 0.0f64, 0.0f64);
    for (o, g) in back.objects.iter().zip(&gs.objects) {
        for r in 0..4 {
            for c in 0..3 {
                // Rotation rows absolute, TM_ROW3 relative to GS's 6 digits.
                let d = (o.tm.rows[r][c] - g.tm.rows[r][c]).abs();
                max_tm = max_tm.max(if r == 3 {
                    d / g.tm.rows[r][c].abs().max(1.0)
                } else {
                    d
                });
            }
        }
        let (Some(a), Some(b)) = (&o.anim, &g.anim) else {
            continue;
        };
        assert_eq!(a.pos.len(), 24);
        for i in 0..24 {
            let (p, q) = (a.pos[i].pos, b.pos[25 + i].pos);
            for c in 0..3 {
                // In position codes, less GS's rounding and animkit's choice of spelling (up
                // to 2.5 steps of the 6th digit).
                let step = 10f64.powi(q[c].abs().max(1e-30).log10().floor() as i32 - 5);
                let d = ((p[c] - q[c]).abs() - 2.5 * step).max(0.0) / scale;
                max_pos = max_pos.max(d);
                pos_tokens.0 += 1;
                if super::super::num::g(p[c]) == super::super::num::g(q[c]) {
                    pos_tokens.1 += 1;
                }
            }
            let qa = pose::quat_from_angaxis(DVec3::from_array(a.rot[i].axis), a.rot[i].angle);
            let qb =
                pose::quat_from_angaxis(DVec3::from_array(b.rot[25 + i].axis), b.rot[25 + i].angle);
            max_rot = max_rot.max(2.0 * qa.dot(qb).abs().min(1.0).acos());
        }
    }
    // Measured: positions within 1.7 codes of GS's (GS's frames 6 and 19 hold another MAN's
    // values of the same ASC, one code off; and animkit places a child relative to its
    // parent's *printed* sample, so the parents' 6-digit rounding moves the world values a
    // little, never the local ones), rotations 1.1e-5 rad, NODE_TM 1.3e-5.
    assert!(max_pos < 2.0, "positions differ by {max_pos} codes");
    assert!(max_rot < 5e-5, "rotations differ by {max_rot} rad");
    assert!(max_tm < 3e-5, "NODE_TM differs by {max_tm}");
    let share = pos_tokens.1 as f64 / pos_tokens.0 as f64;
    assert!(
        share > 0.4,
        "{} of {} position numbers as GS",
        pos_tokens.1,
        pos_tokens.0
    );
    eprintln!(
        "T_1HRUNTURNR vs GS: positions {max_pos:.3} codes, rotations {max_rot:e} rad, NODE_TM {max_tm:e}, {:.1} % of position numbers identical",
        share * 100.0
    );
    // Round-to-nearest of the written text gives back the MAN's codes.
    let (total, same, max) = requantise(&back, &rig, &man, 26);
    assert_eq!(total, 24 * 25 * 6);
    assert!(max <= 1, "a code off by {max}");
    assert!(same * 1000 >= total * 999, "{same} of {total} codes equal");
    eprintln!("T_1HRUNTURNR round trip: {same} of {total} codes equal, max diff {max}");
    let long = text
        .lines()
        .filter(|l| l.contains("_SAMPLE "))
        .flat_map(|l| l.split('\t').skip(1))
        .filter(|t| {
            let digits: String = t
                .chars()
                .take_while(|c| *c != 'e')
                .filter(|c| c.is_ascii_digit())
                .collect();
            digits.trim_start_matches('0').len() > 6
        })
        .count();
    eprintln!("T_1HRUNTURNR: {long} of 4200 sample numbers need more than 6 digits");
    // Measured: 179 (4.3 %); GS's %g everywhere else.
    assert!(long * 10 < 4200, "{long} numbers with more than 6 digits");
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn skeleton_has_every_mdh_node_and_no_track() {
    let Some(mdh) = load(MDH) else { return };
    let mdh = Mdh::read(&mdh).unwrap();
    let rig = Rig::from_mdh(&mdh).unwrap();
    let text = print_gs(&skeleton(&rig, "HUMANS_1HST3.ASC"), Eol::Lf);
    let back = Asc::parse(text.as_bytes()).unwrap().model;
    assert_eq!(back.objects.len(), 34);
    assert!(back.objects.iter().all(|o| o.anim.is_none()));
    assert_eq!(back.scene.filename, "HUMANS_1HST3.MAX");
    assert_eq!((back.scene.first_frame, back.scene.last_frame), (0, 100));
    // The root stands at root_translation (−0, 99.94956, 7.37745) made Max: (0, −7.37745, 99.9496).
    assert!(
        text.contains("\t\t*TM_ROW3 0\t-7.37745\t99.9496\n"),
        "{}",
        &text[..900]
    );
}

/// The codes of `b` against `a`'s, per (frame, node index): (compared, equal, max diff).
fn compare_codes(a: &Man, b: &Man) -> (usize, usize, i64) {
    let (sa, sb) = (a.samples().unwrap(), b.samples().unwrap());
    assert_eq!(sa.frame_count(), sb.frame_count(), "frames");
    let (mut total, mut same, mut max) = (0, 0, 0i64);
    for f in 0..sa.frame_count() {
        for (j, code) in sa.frame(f).iter().enumerate() {
            let node = sa.node_indices[j];
            let k = sb
                .node_indices
                .iter()
                .position(|&n| n == node)
                .expect("node kept");
            let other = sb.frame(f)[k];
            for c in 0..6 {
                total += 1;
                let d = (code[c] as i64 - other[c] as i64).abs();
                if d == 0 {
                    same += 1;
                }
                max = max.max(d);
            }
        }
    }
    (total, same, max)
}

/// Every MAN of the corpus whose MDH is there (by checksum): `asc export`, then asc's import
/// (`asc import --rounding nearest`) into the MAN's position range gives back ≥ 99.9 % of the
/// codes, none off by more than 1 (measured: all); into the engine's range from the ASC,
/// ≥ 90 % (measured 94.7 %).
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_corpus_man_compiles_back() {
    let Some(root) = crate::testing::corpus() else {
        return;
    };
    let files: Vec<std::path::PathBuf> = ["realworld/man", "realworld/mdh", "realworld/asc-pairs"]
        .iter()
        .flat_map(|d| {
            walkdir::WalkDir::new(root.join(d))
                .into_iter()
                .filter_map(|e| e.ok())
        })
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    let ext =
        |p: &std::path::Path, x: &str| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(x));
    let mut rigs = std::collections::HashMap::new();
    for p in files.iter().filter(|p| ext(p, "mdh")) {
        let Ok(mdh) = Mdh::read(&std::fs::read(p).unwrap()) else {
            continue;
        };
        if let (Some(h), Ok(rig)) = (mdh.hierarchy(), Rig::from_mdh(&mdh)) {
            let names: Vec<Vec<u8>> = h.nodes.iter().map(|n| n.name.as_bytes().to_vec()).collect();
            rigs.entry(h.checksum.0).or_insert((rig, names));
        }
    }
    let (mut mans, mut total, mut same, mut max) = (0, 0usize, 0usize, 0i64);
    let (mut total_e, mut same_e, mut max_e) = (0usize, 0usize, 0i64);
    let mut frame_mismatch = 0;
    let mut seen = std::collections::HashSet::new();
    for p in files.iter().filter(|p| ext(p, "man")) {
        let data = std::fs::read(p).unwrap();
        if !seen.insert(data.clone()) {
            continue;
        }
        let Ok(man) = Man::read(&data) else { continue };
        let Some(s) = man.samples() else { continue };
        let Some((rig, names)) = rigs.get(&s.checksum.0) else {
            continue;
        };
        if s.frame_count() == 0 || s.node_indices.iter().any(|&i| i as usize >= rig.len()) {
            continue;
        }
        let line = ani_line(man.source().map_or(&[][..], |s| s.script.as_bytes()));
        let start = line.as_ref().map_or(1, |l| l.first_frame);
        let part = Part {
            label: p.display().to_string(),
            man: &man,
            start,
            end: line.map(|l| l.last_frame),
        };
        let (model, cov) = animation(rig, "X.ASC", std::slice::from_ref(&part)).unwrap();
        let text = print_gs(&model, Eol::Lf);
        // `asc export`'s writer (samples printed from their decimals) gives the same text.
        let eol = if mans % 2 == 0 { Eol::Lf } else { Eol::CrLf };
        let (direct, cov2) = animation_text(rig, "X.ASC", &[part], eol).unwrap();
        assert_eq!(cov, cov2);
        if direct != print_gs(&model, eol) {
            let want = print_gs(&model, eol);
            let at = direct
                .bytes()
                .zip(want.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(direct.len().min(want.len()));
            panic!(
                "{}: animation_text differs at byte {at}: {:?} against {:?}",
                p.display(),
                &direct[at.saturating_sub(80)..(at + 40).min(direct.len())],
                &want[at.saturating_sub(80)..(at + 40).min(want.len())]
            );
        }
        let back = Asc::parse(text.as_bytes()).unwrap().model;
        // asc's import (`asc import --rounding nearest`) into the MAN's position range, and
        // into the range the engine would choose from the ASC.
        let script = man
            .source()
            .map(|s| s.script.to_string())
            .unwrap_or_default();
        let Ok(ani) = crate::zengin::asc::to_man::parse_ani(&script) else {
            continue;
        };
        let h = man.header().unwrap();
        let compile = |range| {
            let input = crate::zengin::asc::to_man::AniInput {
                ani: &ani,
                line: &script,
                asc_path: "X.ASC",
                nodes: names,
                checksum: s.checksum.0,
                rounding: crate::zengin::asc::to_man::Rounding::Nearest,
                position_range: range,
            };
            crate::zengin::asc::to_man::compile(&back, &input)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
                .0
        };
        let own = compile(Some((h.position_min.get(), h.position_scale.get())));
        if own.samples().unwrap().frame_count() != s.frame_count() {
            eprintln!(
                "frame count differs: {} (fps {} / source {}, {script:?}): {} frames, re-compiled {}",
                p.display(),
                h.fps.get(),
                h.fps_source.get(),
                s.frame_count(),
                own.samples().unwrap().frame_count()
            );
            frame_mismatch += 1;
            continue;
        }
        let (t, sm, mx) = compare_codes(&man, &own);
        let engine_range = compile(None);
        let (t2, sm2, mx2) = compare_codes(&man, &engine_range);
        total_e += t2;
        same_e += sm2;
        max_e = max_e.max(mx2);
        // The spec's own recompile (§3 forward against the printed parents) agrees.
        let (t3, sm3, _) = requantise(&back, rig, &man, start);
        assert_eq!((t3, sm3), (t, sm), "{}", p.display());
        assert!(mx <= 1, "{}: a code off by {mx}", p.display());
        total += t;
        same += sm;
        max = max.max(mx);
        mans += 1;
    }
    eprintln!(
        "{mans} corpus MANs: {same} of {total} codes equal after MAN → ASC → MAN, max diff {max}"
    );
    assert!(mans >= 150, "only {mans} MANs with their MDH");
    // Measured: 1 (a resampled animation whose frame count the engine's rule gives one less).
    assert!(
        frame_mismatch <= 1,
        "{frame_mismatch} MANs re-compile to another frame count"
    );
    assert!(same as f64 >= total as f64 * 0.999, "{same} of {total}");
    // Into the range the engine computes from the ASC's positions the share is lower: that
    // range differs from the MAN's stored f32 min/scale by a fraction of a code (measured:
    // 94.7 %). The figure is printed; only the MAN's range is the round-trip promise.
    assert!(
        same_e as f64 >= total_e as f64 * 0.9,
        "{same_e} of {total_e}"
    );
}
