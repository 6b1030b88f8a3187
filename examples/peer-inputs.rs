//! Writes the generated inputs of the side-by-side comparison with other tools
//! (`benches/peers/compare`) into DIR. Every file is deterministic (same bytes on every run).
//!
//!     cargo run --release --example peer-inputs -- DIR
//!
//! * `MODEL_1500.MDS`: a model script with 1,500 animations (1,125 `ani` with 18 events each,
//!   375 `aniAlias`), CRLF line ends, about 0.93 MB.
//! * `MODEL_1500.MSB`: the same script compiled as the engine would (`animkit compile`),
//!   about 0.71 MB.
//! * `LARGE.MAN`: a 100-node × 2,000-frame animation (2.4 MB, 4 events).
//! * `HUGE.MAN`, only with `PEER_INPUTS_HUGE_MAN=1`: 100 nodes × 12,200 frames (14.6 MB; its
//!   YAML export is the 139.6 MB import of the README's memory table).
//! * `EVENTS.MAN`, only with `PEER_INPUTS_EVENTS_MAN=1`: 2 nodes × 10 frames and 500,000
//!   events (about 22 MB; its YAML export, about 71 MB, is the event-heavy import of issue 27
//!   §4 and issue 28 item 8).
//! * `MANS_1000.VDF`: an archive of 1,000 different MANs of about 101 KB (50 nodes × 168-170
//!   frames), 102 MB.
//! * `ANIM_10MB.ZBD`: a MechWarrior 3 `anim.zbd` of about 10 MB: 2,430 copies of the anim def
//!   of `../shared/corpus/mw3/synthetic.zbd`, each under its own anim name.
//! * `NODES.MDH`: the 100-node hierarchy `LARGE.MAN`/`HUGE.MAN` are made for (nodes
//!   `BIP01 NODE{n}`, a chain; as in `benches/gltf.rs`), for `gltf export`.
//! * `UE3_SMALL.UPK` and `UE3_LARGE.UPK`: Blade & Soul packages of one AnimSet with 60 bones
//!   and 20 / 500 sequences of 300 frames (`animkit::ue3::upk::synth::synthetic`, the package
//!   of `benches/ue3.rs`): 2.7 MB and 69 MB, for `animkit psa` against UE Viewer's export.
//!
//! The real files (`hierarchy0.mdh`, `basic.vdf`, `G1_HUMANS-S_FISTRUN.MAN`) are read from
//! `../shared/corpus/zengin/` by the script itself.

use animkit::mw3::Anim;
use animkit::ue3::upk::synth::synthetic;
use animkit::zengin::man::synth::{synthesize_bytes, Synth};
use animkit::zengin::mds::compile::{compile, CompileOptions};
use animkit::zengin::mds::parse::parse;
use animkit::zengin::stext::ShortText;
use animkit::zengin::vdf::folder::{pack_to, PackFile, PackOptions, Source};
use animkit::zengin::vdf::SIGNATURE_GOTHIC2;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Animations in the model script; every fourth one is an alias of the one before.
const ANIMATIONS: usize = 1500;
/// Rounds of 9 events in every `ani` block.
const EVENT_ROUNDS: usize = 2;
/// MAN files in the archive.
const ARCHIVE_MANS: usize = 1000;
/// Copies of the corpus anim def (4.1 KB each): about 10 MB.
const MW3_DEFS: usize = 2430;

/// A model script of `n` animations, events in every `ani` block.
fn script(n: usize) -> Res<String> {
    let mut s = String::with_capacity(n * 1024);
    s.push_str("// animkit peer comparison: generated model script\r\n");
    s.push_str("Model (\"HUMANS\")\r\n{\r\n");
    s.push_str("\tmeshAndTree (\"HUM_BODY_NAKED0.ASC\")\r\n");
    s.push_str("\tregisterMesh (\"HUM_BODY_NAKED0.ASC\")\r\n");
    s.push_str("\taniEnum\r\n\t{\r\n");
    for i in 0..n {
        if i % 4 == 3 {
            writeln!(
                s,
                "\t\taniAlias (\"S_RUNL_ALIAS{i:04}\" 1 \"S_RUNL{i:04}\" 0.1 0.1 M. \"S_RUNL{:04}\" F)\r",
                i - 1
            )?;
            continue;
        }
        writeln!(
            s,
            "\t\tani (\"S_RUNL{i:04}\" 1 \"S_RUNL{i:04}\" 0.1 0.1 M. \"HUM_RUNLOOP_M{i:04}.ASC\" F 1 24 FPS:25)\r"
        )?;
        s.push_str("\t\t{\r\n");
        for k in 0..EVENT_ROUNDS {
            let f = i % 7 + k * 24;
            writeln!(
                s,
                "\t\t\t*eventTag ({} \"DEF_HIT_LIMB\" \"ZS_RIGHTHAND\")\r",
                f + 1
            )?;
            writeln!(
                s,
                "\t\t\t*eventTag ({} \"DEF_OPT_FRAME\" \"{}\")\r",
                f + 2,
                f + 8
            )?;
            writeln!(
                s,
                "\t\t\t*eventSFX ({} \"WHOOSH{k}\" R:1500 EMPTY_SLOT)\r",
                f + 3
            )?;
            writeln!(s, "\t\t\t*eventSFXGrnd ({} \"RUN\")\r", f + 4)?;
            writeln!(
                s,
                "\t\t\t*eventPFX ({} {k} \"FX_DUST{i:04}\" \"BIP01 R FOOT\" ATTACH)\r",
                f + 5
            )?;
            writeln!(s, "\t\t\t*eventPFXStop ({} {k})\r", f + 12)?;
            writeln!(s, "\t\t\t*eventCamTremor ({} 500 300 2 4)\r", f + 6)?;
            writeln!(s, "\t\t\t*eventSFXGrnd ({} \"RUN\")\r", f + 16)?;
            writeln!(
                s,
                "\t\t\t*eventTag ({} \"DEF_FIGHTMODE\" \"FIST\")\r",
                f + 20
            )?;
        }
        s.push_str("\t\t}\r\n");
    }
    s.push_str("\t}\r\n}\r\n");
    Ok(s)
}

/// A MechWarrior 3 `anim.zbd` of [`MW3_DEFS`] anim defs, each a copy of the one in the
/// corpus's `synthetic.zbd` (every array kind, 36 event kinds) under its own anim name. Built
/// from the corpus file, not with `animkit::mw3::anim::gen`: the generator's values are valid for the
/// format but fail checks of mech3ax's reader (e.g. a zero anim pointer), and the comparison
/// needs one file both tools read.
fn mw3_file() -> Res<Vec<u8>> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/mw3/synthetic.zbd");
    let bytes = std::fs::read(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let mut anim = Anim::read(&bytes).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let Some(def) = anim.anim_defs.first().cloned() else {
        return Err(format!("{}: no anim def", corpus.display()).into());
    };
    anim.anim_defs = (0..MW3_DEFS)
        .map(|i| {
            let mut d = def.clone();
            d.anim_name.set_text(format!("blood{i:04}").as_bytes())?;
            Ok(d)
        })
        .collect::<Res<_>>()?;
    let mut out = Vec::new();
    anim.write(&mut out, None)?;
    Ok(out)
}

/// `count` different MANs of about 101 KB as archive members.
fn archive_members(count: usize) -> Vec<PackFile> {
    (0..count)
        .map(|i| {
            let name = format!("S_ANI{i:04}");
            let bytes = synthesize_bytes(&Synth {
                events: i % 5,
                ..Synth::new(&name, 50, 168 + (i % 3) as u32)
            });
            PackFile {
                path: vec![
                    b"_WORK".to_vec(),
                    b"DATA".to_vec(),
                    b"ANIMS".to_vec(),
                    format!("GROUP{:02}", i / 250).into_bytes(),
                    format!("HUMANS-{name}.MAN").into_bytes(),
                ],
                source: Source::Memory(bytes),
            }
        })
        .collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Res<()> {
    let path = dir.join(name);
    std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{:>12} bytes  {}", bytes.len(), path.display());
    Ok(())
}

fn main() -> Res<()> {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        return Err("usage: peer-inputs DIR".into());
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;

    let mds = script(ANIMATIONS)?;
    let parsed = parse(mds.as_bytes()).map_err(|e| format!("generated MDS: {e}"))?;
    let opts = CompileOptions {
        file_name: Some(ShortText::from("MODEL_1500.MDS")),
        date: None,
    };
    let mut msb = Vec::new();
    compile(&parsed.script, mds.as_bytes(), &opts).write(&mut msb)?;
    write(&dir, "MODEL_1500.MDS", mds.as_bytes())?;
    write(&dir, "MODEL_1500.MSB", &msb)?;

    let man = synthesize_bytes(&Synth {
        events: 4,
        ..Synth::new("S_LARGE", 100, 2000)
    });
    write(&dir, "LARGE.MAN", &man)?;
    write(
        &dir,
        "NODES.MDH",
        &animkit::zengin::man::synth::chain_mdh(100),
    )?;
    if std::env::var_os("PEER_INPUTS_HUGE_MAN").is_some() {
        // The whole-process import memory figure of the README (export it to YAML first).
        let man = synthesize_bytes(&Synth {
            events: 4,
            ..Synth::new("S_HUGE", 100, 12_200)
        });
        write(&dir, "HUGE.MAN", &man)?;
    }
    if std::env::var_os("PEER_INPUTS_EVENTS_MAN").is_some() {
        // The event-heavy import of issue 27 §4 / issue 28 item 8 (export it to YAML first).
        let man = synthesize_bytes(&Synth {
            events: 500_000,
            ..Synth::new("S_EVENTS", 2, 10)
        });
        write(&dir, "EVENTS.MAN", &man)?;
    }

    let opts = PackOptions {
        signature: *SIGNATURE_GOTHIC2,
        comment: b"animkit peer comparison".to_vec(),
        timestamp: 0x529B_5B1D,
        zipped: false,
    };
    let mut vdf = std::io::Cursor::new(Vec::new());
    pack_to(&mut vdf, &archive_members(ARCHIVE_MANS), &opts, &|| {})?;
    write(&dir, "MANS_1000.VDF", vdf.get_ref())?;

    write(&dir, "ANIM_10MB.ZBD", &mw3_file()?)?;
    write(&dir, "UE3_SMALL.UPK", &synthetic(20, 60, 300))?;
    write(&dir, "UE3_LARGE.UPK", &synthetic(500, 60, 300))?;
    Ok(())
}
