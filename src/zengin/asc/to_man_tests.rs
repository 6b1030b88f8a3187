//! ASC → MAN against the real (engine MAN, GothicSourcer ASC, MDH) pairs of PAIRS.tsv.

use super::to_man::{compile, parse_ani, skeleton_names, AniInput, Rounding};
use super::Asc;
use crate::codec::Codec;
use crate::testing::corpus_path;
use crate::zengin::man::{Chunk, Man};
use crate::zengin::mdh::Mdh;

struct Tally {
    rot: [usize; 2],
    pos: [usize; 2],
    worst: u16,
}

fn run(class: &str, rounding: Rounding, own_range: bool) -> Option<Tally> {
    let dir = corpus_path("realworld/asc-pairs")?;
    let tsv = std::fs::read_to_string(dir.join("PAIRS.tsv")).unwrap();
    let mut t = Tally {
        rot: [0, 0],
        pos: [0, 0],
        worst: 0,
    };
    let mut pairs = 0;
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f[0] != class {
            continue;
        }
        pairs += 1;
        let man = Man::decode(&std::fs::read(dir.join(f[1])).unwrap()).unwrap();
        let asc = Asc::parse(&std::fs::read(dir.join(f[2])).unwrap()).unwrap();
        // The model's MDH, or (where the pair has none) the skeleton of the ASC itself.
        let (names, checksum) = if f[3].is_empty() {
            let names = skeleton_names(&asc.model);
            let sum = crate::zengin::node_list_checksum(names.iter().map(|n| n.as_slice()));
            (names, sum)
        } else {
            let mdh = Mdh::read(&std::fs::read(dir.join(f[3])).unwrap()).unwrap();
            let h = mdh.hierarchy().unwrap();
            let names: Vec<Vec<u8>> = h.nodes.iter().map(|n| n.name.as_bytes().to_vec()).collect();
            (names, h.checksum.0)
        };
        let (mut header, mut source, mut samples) = (None, None, None);
        for c in &man.chunks {
            match c {
                Chunk::Header(x) => header = Some(x),
                Chunk::Source(x) => source = Some(x),
                Chunk::Samples(x) => samples = Some(x),
                _ => {}
            }
        }
        let (header, source, samples) = (header.unwrap(), source.unwrap(), samples.unwrap());
        let script = String::from_utf8_lossy(source.script.as_bytes()).to_string();
        let ani = parse_ani(&script).unwrap_or_else(|e| panic!("{}: {e}: {script}", f[1]));
        let path = String::from_utf8_lossy(source.path.as_bytes()).to_string();
        let asc_path = path.trim_start_matches("\\_WORK\\DATA\\ANIMS\\");
        let input = AniInput {
            ani: &ani,
            line: &script,
            asc_path,
            nodes: &names,
            checksum,
            rounding,
            position_range: None,
        };
        let (got, _notes) = compile(&asc.model, &input).unwrap_or_else(|e| panic!("{}: {e}", f[1]));
        // Class A: the vanilla MAN's position range is its own (shared ASCs, overlays), not
        // derivable from GS's ASC; its codes are compared quantised with that range (as
        // asc.md §4.3 measured), the header's range above against the derived one.
        let got = if own_range {
            let input = AniInput {
                position_range: Some((header.position_min.get(), header.position_scale.get())),
                ..input
            };
            compile(&asc.model, &input).unwrap().0
        } else {
            got
        };
        let mut gh = None;
        let mut gs = None;
        let mut gsrc = None;
        for c in &got.chunks {
            match c {
                Chunk::Header(x) => gh = Some(x),
                Chunk::Samples(x) => gs = Some(x),
                Chunk::Source(x) => gsrc = Some(x),
                _ => {}
            }
        }
        let (gh, gs, gsrc) = (gh.unwrap(), gs.unwrap(), gsrc.unwrap());
        let ctx = f[1];
        // The same chunks in the same order: marker, header, source, samples. The engine keeps
        // an ani's event block in the MSB, not in the MAN: no corpus MAN has an events chunk,
        // though 148 of them (HUMANS_1HST1-T_1HWALKL_2_1HWALK and GIANT_BUG-T_FALLDN_2_STAND
        // of these pairs among them) come from anis with `*eventSFX…`/`*eventTag` lines.
        let kinds = |m: &Man| {
            m.chunks
                .iter()
                .map(std::mem::discriminant)
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(&got), kinds(&man), "{ctx}");
        assert_eq!(gh.name, header.name, "{ctx}");
        assert_eq!(gh.layer, header.layer, "{ctx}");
        assert_eq!(gh.next, header.next, "{ctx}");
        assert_eq!(gh.fps, header.fps, "{ctx}");
        assert_eq!(gh.fps_source, header.fps_source, "{ctx}");
        assert_eq!(gh.frame_count, header.frame_count, "{ctx}");
        assert_eq!(gh.node_count, header.node_count, "{ctx}");
        assert_eq!(gsrc.path, source.path, "{ctx}");
        assert_eq!(gsrc.script, source.script, "{ctx}");
        assert_eq!(gs.checksum, samples.checksum, "{ctx}");
        let (pmin, pscale) = (gh.position_min.get(), gh.position_scale.get());
        let (wmin, wscale) = (header.position_min.get(), header.position_scale.get());
        assert!(
            (pmin - wmin).abs() <= 1e-3,
            "{ctx}: position_min {pmin} vs {wmin}"
        );
        assert!(
            ((pscale - wscale) / wscale).abs() <= 1e-4,
            "{ctx}: position_scale {pscale} vs {wscale}"
        );
        // Node order: B exact; A as a set (vanilla order is not recoverable from a GS ASC).
        let order: Vec<usize> = if class == "B" {
            assert_eq!(gs.node_indices, samples.node_indices, "{ctx}");
            (0..gs.node_indices.len()).collect()
        } else {
            let mut a = gs.node_indices.clone();
            let mut b = samples.node_indices.clone();
            a.sort();
            b.sort();
            assert_eq!(a, b, "{ctx}");
            samples
                .node_indices
                .iter()
                .map(|n| gs.node_indices.iter().position(|m| m == n).unwrap())
                .collect()
        };
        let nodes = samples.node_indices.len();
        let before = (t.rot, t.pos);
        for fr in 0..header.frame_count as usize {
            for (k, &j) in order.iter().enumerate() {
                let want = samples.codes[fr * nodes + k];
                let have = gs.codes[fr * nodes + j];
                for c in 0..6 {
                    let d = (want[c] as i32 - have[c] as i32).unsigned_abs() as u16;
                    let slot = if c < 3 { &mut t.rot } else { &mut t.pos };
                    slot[(d == 0) as usize] += 1;
                    if d > t.worst {
                        t.worst = d;
                    }
                }
            }
        }
        let r = [t.rot[0] - before.0[0], t.rot[1] - before.0[1]];
        let p = [t.pos[0] - before.1[0], t.pos[1] - before.1[1]];
        eprintln!(
            "{class} {:.4} {:.4} {ctx} (position_min off by {:.3} codes, scale ratio {:.6})",
            share(r),
            share(p),
            (pmin - wmin) / wscale,
            pscale / wscale
        );
    }
    assert_eq!(pairs, 30);
    Some(t)
}

fn share(x: [usize; 2]) -> f64 {
    x[1] as f64 / (x[0] + x[1]) as f64
}

#[test]
fn class_b_pairs_with_engine_rounding() {
    let Some(t) = run("B", Rounding::Engine, false) else {
        return;
    };
    eprintln!(
        "class B, engine rounding: rotation {:.4}, position {:.4} equal, worst {}",
        share(t.rot),
        share(t.pos),
        t.worst
    );
    // Issue goal: ≥ 98.5 % of both, every difference ±1. Measured on these 30 pairs: rotation
    // 99.17 %, position 98.70 %, with the engine's arithmetic as far as the pairs tell it: the
    // ASC's numbers read into f32, the transform in double from those, local positions kept
    // as f32, scale = f32((max − min)/65535) in double, codes in double. (Before, f64 from the
    // text and an f32 scale: 98.93 / 98.39 %.)
    assert!(share(t.rot) >= 0.9915, "{}", share(t.rot));
    assert!(share(t.pos) >= 0.9868, "{}", share(t.pos));
    assert_eq!(t.worst, 1);
}

#[test]
fn class_a_pairs_with_nearest_rounding() {
    let Some(t) = run("A", Rounding::Nearest, true) else {
        return;
    };
    eprintln!(
        "class A, nearest rounding: rotation {:.5}, position {:.5} equal, worst {}",
        share(t.rot),
        share(t.pos),
        t.worst
    );
    assert!(share(t.rot) >= 0.9999, "{}", share(t.rot));
    assert!(share(t.pos) >= 0.99, "{}", share(t.pos));
}

#[test]
fn mdh_from_the_mesh_and_tree_asc_matches_the_engines() {
    // asc.md §5: HUM_BODY_NAKED0.ASC against a real HUMANS hierarchy (checksum 0xc63488c2).
    let Some(asc) = crate::testing::corpus_file(
        "realworld/asc-pairs/CarnageMarkus+gothic-animations-decompiled/bodies/HUM_BODY_NAKED0.ASC",
    ) else {
        return;
    };
    let real = crate::testing::corpus_file(
        "realworld/asc-pairs/PiotrDrozdz96+Gothic/Anims/_compiled/HUMANS_1HST1.MDH",
    )
    .unwrap();
    let asc = Asc::parse(&asc).unwrap();
    let ours = super::model_compile::mdh_from_asc(&asc.model, "HUM_BODY_NAKED0.ASC").unwrap();
    let real = Mdh::read(&real).unwrap();
    let (a, b) = (ours.hierarchy().unwrap(), real.hierarchy().unwrap());
    assert_eq!(a.checksum.0, 0xc634_88c2);
    assert_eq!(a.checksum, b.checksum);
    assert_eq!(a.nodes.len(), 34);
    for (x, y) in a.nodes.iter().zip(&b.nodes) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.parent, y.parent);
        for r in 0..3 {
            for c in 0..4 {
                let d = (x.transform.0[r][c].get() - y.transform.0[r][c].get()).abs();
                let tol = if c < 3 { 1e-4 } else { 1e-3 };
                assert!(d <= tol, "{:?} [{r}][{c}] off by {d}", x.name);
            }
        }
    }
    for k in 0..3 {
        assert!((a.root_translation[k].get() - b.root_translation[k].get()).abs() <= 1e-3);
    }
    assert_eq!(a.root_translation[1].get(), 99.9496);
}

/// A one-node ASC of frames `first..=last` at `speed` frames per second (the root moves 1 cm
/// along x per frame, so each MAN frame tells which ASC frame it came from).
fn moving_root(first: i64, last: i64, speed: u32) -> super::Model {
    let mut t = format!(
        "*3DSMAX_ASCIIEXPORT\t110\n*SCENE {{\n\t*SCENE_FIRSTFRAME {first}\n\t*SCENE_LASTFRAME {last}\n\t*SCENE_FRAMESPEED {speed}\n\t*SCENE_TICKSPERFRAME {}\n}}\n*HELPEROBJECT {{\n\t*NODE_NAME \"Bip01\"\n\t*TM_ANIMATION {{\n\t\t*NODE_NAME  \"Bip01\"\n\t\t*CONTROL_POS_TRACK {{\n",
        4800 / speed
    );
    for f in first..=last {
        t += &format!("\t\t\t*CONTROL_POS_SAMPLE {f}\t{f}\t0\t0\n");
    }
    t += "\t\t}\n\t\t*CONTROL_ROT_TRACK {\n";
    for f in first..=last {
        t += &format!("\t\t\t*CONTROL_ROT_SAMPLE {f}\t0\t0\t1\t0\n");
    }
    t += "\t\t}\n\t}\n}\n";
    Asc::parse(t.as_bytes()).unwrap().model
}

/// fps, fps_source, and the ASC frame of each MAN frame (from the root's x code).
fn frames_of(asc: &super::Model, ani: &str) -> (f32, f32, Vec<i64>) {
    let ani = parse_ani(ani).unwrap();
    let nodes = vec![b"BIP01".to_vec()];
    let input = AniInput {
        ani: &ani,
        line: "",
        asc_path: "X.ASC",
        nodes: &nodes,
        checksum: 0,
        rounding: Rounding::Nearest,
        position_range: None,
    };
    let (man, _) = compile(asc, &input).unwrap();
    let h = man.header().unwrap();
    let s = man.samples().unwrap();
    let (min, scale) = (h.position_min.get() as f64, h.position_scale.get() as f64);
    // The root's MAN x is −(ASC x).
    let frames = (0..s.frame_count())
        .map(|f| -(s.frame(f)[0][3] as f64 * scale + min).round() as i64)
        .collect();
    (h.fps.get(), h.fps_source.get(), frames)
}

#[test]
fn fps_resampling_as_the_engine_does_it() {
    // asc.md §4.4: MAN frame f = ASC frame s + floor(f·source/fps), ceil((e−s+1)·fps/source)
    // frames (real: FPS:10/12.5/15 anis of 25-fps ASCs; BSANVIL_OC_1-T_S0_2_S1, `F 4 9` of a
    // 30-fps ASC without FPS: → 5 frames at 25).
    let a25 = moving_root(0, 49, 25);
    let (fps, src, fr) = frames_of(&a25, r#"ani ("T" 1 "" 0 0 M. "X.ASC" F 10 29 FPS:10)"#);
    assert_eq!((fps, src), (10.0, 25.0));
    assert_eq!(fr, vec![10, 12, 15, 17, 20, 22, 25, 27]);
    let (fps, _, fr) = frames_of(&a25, r#"ani ("T" 1 "" 0 0 M. "X.ASC" F 0 9 FPS:12.5)"#);
    assert_eq!(fps, 12.5);
    assert_eq!(fr, vec![0, 2, 4, 6, 8]);
    let a30 = moving_root(0, 49, 30);
    let (fps, src, fr) = frames_of(&a30, r#"ani ("T_S0_2_S1" 1 "S_S1" 0 0 M. "X.ASC" F 4 9)"#);
    assert_eq!((fps, src), (25.0, 30.0));
    assert_eq!(fr, vec![4, 5, 6, 7, 8]);
    // Never more frames than the ASC has: BSANVIL_OC_1-S_S0 (`F 3 3`, 30-fps ASC) is one frame
    // at fps 30; GOLEM's `F 0 89 FPS:12.5` on a 12-fps ASC is fps = fps_source = 12.
    let (fps, src, fr) = frames_of(&a30, r#"ani ("S_S0" 1 "S_S0" 0 0 M. "X.ASC" F 3 3)"#);
    assert_eq!((fps, src, fr), (30.0, 30.0, vec![3]));
    let a12 = moving_root(0, 89, 12);
    let (fps, src, fr) = frames_of(
        &a12,
        r#"ani ("S_X" 1 "S_X" 0 0 M. "X.ASC" F 0 89 FPS:12.5)"#,
    );
    assert_eq!((fps, src), (12.0, 12.0));
    assert_eq!(fr, (0..=89).collect::<Vec<_>>());
}
