//! Writes the project's sample files into `samples/` (or the folder given as the first
//! argument): several `.MAN` animations, and one file of every other format animkit knows.
//! Every file is deterministic, so re-running gives identical bytes.
//!
//!     cargo run --example make-samples [-- DIR]

use animkit::exact::{PutLe, Text};
use animkit::zengin::chunk::put_chunk;
use animkit::zengin::man::synth::{synthesize_bytes, Synth};
use animkit::zengin::mds::compile::{compile, CompileOptions};
use animkit::zengin::mds::parse::parse;
use animkit::zengin::types::{put_line, ZDate};
use animkit::zengin::vdf;
use animkit::zengin::vdf::folder::{pack_to, PackFile, PackOptions, Source};
use std::path::PathBuf;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// A small model script of our own: every statement kind and several event kinds.
const SCRIPT: &str = "// animkit sample model script\r
Model (\"SAMPLE\")\r
{\r
\tmeshAndTree (\"SAMPLE_BODY.ASC\" DONT_USE_MESH)\r
\tregisterMesh (\"SAMPLE_BODY.ASC\")\r
\taniEnum\r
\t{\r
\t\taniMaxFps (25)\r
\t\tani (\"S_WALK\" 1 \"S_WALK\" 0.1 0.1 M. \"SAMPLE_WALK.ASC\" F 0 29 FPS:25)\r
\t\t{\r
\t\t\t*eventSFX (5 \"STEP\" R:1500 EMPTY_SLOT)\r
\t\t\t*eventSFXGrnd (20 \"STEP\")\r
\t\t\t*eventTag (0 \"DEF_HIT_LIMB\" \"BIP01 R HAND\")\r
\t\t\t*eventPFX (10 1 \"FX_DUST\" \"BIP01 R FOOT\" ATTACH)\r
\t\t\t*eventPFXStop (25 1)\r
\t\t\t*eventCamTremor (12 500 300 2 4)\r
\t\t}\r
\t\taniAlias (\"S_RUN\" 1 \"S_RUN\" 0.1 0.1 M. \"S_WALK\" F)\r
\t\taniBlend (\"T_WALK_2_RUN\" \"S_RUN\" 0.2 0.2)\r
\t\taniSync (\"T_RUN_2_WALK\" \"S_WALK\")\r
\t\taniComb (\"C_LOOK\" 9 \"C_LOOK\" 0.3 0.3 M. \"C_LOOK_\" 9)\r
\t\taniDisable (\"S_FALL\")\r
\t\tmodelTag (\"DEF_HIT_LIMB\" \"BIP01 HEAD\")\r
\t}\r
}\r
";

/// A three-node hierarchy (chunks 0xD100, 0xD110, 0xD120) with a garbage date and a -0.0.
fn mdh() -> Res<Vec<u8>> {
    let names = ["BIP01", "BIP01 PELVIS", "BIP01 HEAD"];
    let mut out = Vec::new();
    put_chunk(&mut out, 0xD100, |o| {
        o.put_u32(3);
        o.put_u16(names.len() as u16);
        for (i, n) in names.iter().enumerate() {
            put_line(o, &Text::from(*n))?;
            o.put_i16(i as i16 - 1);
            let mut m = [0f32; 16];
            for d in 0..4 {
                m[d * 5] = 1.0;
            }
            m[7] = 10.0 * i as f32;
            m[9] = -0.0;
            for v in m {
                o.put_u32(v.to_bits());
            }
        }
        for v in [
            -20.0f32, 0.0, -10.0, 20.0, 90.0, 10.0, -10.0, 0.0, -5.0, 10.0, 72.0, 5.0, -0.0, 0.0,
            15.0,
        ] {
            o.put_u32(v.to_bits());
        }
        let crc = animkit::zengin::node_list_checksum(names.iter().map(|n| n.as_bytes()));
        o.put_u32(crc);
        Ok(())
    })?;
    put_chunk(&mut out, 0xD110, |o| {
        ZDate {
            year: 0,
            month: 60480,
            day: 291,
            hour: 49946,
            minute: 2707,
            second: 35812,
            padding: 0x0EB7,
        }
        .put(o);
        put_line(o, &Text::from("\\_WORK\\DATA\\ANIMS\\SAMPLE.ASC"))
    })?;
    put_chunk(&mut out, 0xD120, |_| Ok(()))?;
    Ok(out)
}

fn main() -> Res<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "samples".into()));
    std::fs::create_dir_all(&dir)?;
    let mans = [
        (
            "WALK.MAN",
            Synth {
                ..Synth::new("S_WALK", 12, 30)
            },
        ),
        (
            "EVENTS.MAN",
            Synth {
                events: 10,
                ..Synth::new("T_EVENTS", 4, 16)
            },
        ),
        (
            "UNKNOWN-CHUNK.MAN",
            Synth {
                unknown_chunk: true,
                ..Synth::new("S_UNKNOWN", 3, 5)
            },
        ),
        (
            "GARBAGE.MAN",
            Synth {
                garbage: true,
                events: 2,
                ..Synth::new("S_GARBAGE", 5, 8)
            },
        ),
        ("ONE-FRAME.MAN", Synth::new("S_POSE", 25, 1)),
        ("LARGE.MAN", Synth::new("S_LARGE", 60, 400)),
    ];
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (file, synth) in &mans {
        files.push((file.to_string(), synthesize_bytes(synth)));
    }
    files.push(("SAMPLE.MDH".into(), mdh()?));
    // An animation of SAMPLE.MDH's skeleton (its checksum ties the two together).
    let mut idle = animkit::zengin::man::synth::synthesize(&Synth::new("S_IDLE", 3, 10));
    for c in &mut idle.chunks {
        if let animkit::zengin::man::Chunk::Samples(s) = c {
            let names: [&[u8]; 3] = [b"BIP01", b"BIP01 PELVIS", b"BIP01 HEAD"];
            s.checksum = animkit::exact::Hex32(animkit::zengin::node_list_checksum(names));
        }
    }
    let mut idle_bytes = Vec::new();
    idle.write(&mut idle_bytes)?;
    files.push(("IDLE.MAN".into(), idle_bytes));
    files.push(("SAMPLE.MDS".into(), SCRIPT.as_bytes().to_vec()));
    let mds = parse(SCRIPT.as_bytes()).map_err(|e| e.to_string())?;
    let opts = CompileOptions {
        file_name: Some("SAMPLE.MDS".into()),
        date: Some(ZDate {
            year: 2026,
            month: 11,
            day: 22,
            hour: 12,
            minute: 0,
            second: 0,
            padding: 0,
        }),
    };
    let mut msb = Vec::new();
    compile(&mds.script, SCRIPT.as_bytes(), &opts).write(&mut msb)?;
    files.push(("SAMPLE.MSB".into(), msb));
    // A Gothic 2 archive holding some of the animations in a folder tree.
    let members = [
        ("ANIMS/WALK.MAN", 0usize),
        ("ANIMS/EXTRA/EVENTS.MAN", 1),
        ("SAMPLE.MDH", 6),
    ];
    let pack: Vec<PackFile> = members
        .iter()
        .map(|(path, k)| PackFile {
            path: path.split('/').map(|p| p.as_bytes().to_vec()).collect(),
            source: Source::Memory(files[*k].1.clone()),
        })
        .collect();
    let mut cur = std::io::Cursor::new(Vec::new());
    pack_to(
        &mut cur,
        &pack,
        &PackOptions {
            signature: *vdf::SIGNATURE_GOTHIC2,
            comment: b"animkit sample archive".to_vec(),
            timestamp: 0x5B76_6000,
            zipped: false,
        },
        &|| {},
    )?;
    files.push(("ANIMS.VDF".into(), cur.into_inner()));
    files.push((
        "ANIM.ZBD".into(),
        animkit::mw3::gen::file(
            7,
            &animkit::mw3::gen::Shape {
                realistic: true,
                ..Default::default()
            },
        )?,
    ));
    files.push(("ANIMS.UPK".into(), animkit::ue3::synth::synthetic(3, 4, 10)));
    for (file, bytes) in files {
        let path = dir.join(&file);
        std::fs::write(&path, &bytes)?;
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
    Ok(())
}
