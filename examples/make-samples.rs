//! Writes the project's sample files into `samples/` (or the folder given as the first
//! argument): several `.MAN` animations, and one file of every other format animkit knows.
//! Every file is deterministic, so re-running gives identical bytes.
//!
//!     cargo run --example make-samples [-- DIR]

use animkit::exact::{Text, Writer};
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
        o.put_plain(&ZDate {
            year: 0,
            month: 60480,
            day: 291,
            hour: 49946,
            minute: 2707,
            second: 35812,
            padding: 0x0EB7,
        });
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
        animkit::mw3::anim::gen::file(
            7,
            &animkit::mw3::anim::gen::Shape {
                realistic: true,
                ..Default::default()
            },
        )?,
    ));
    files.push((
        "ANIMS.UPK".into(),
        animkit::ue3::upk::synth::synthetic(3, 4, 10),
    ));
    // The humanoid and two gait cycles: every node walking; the run without the ZS_ slots,
    // in another order (a MAN may animate any subset in any order).
    files.push(("HUMAN.MDH".into(), human_mdh()?));
    let all: Vec<u32> = (0..HUMAN.len() as u32).collect();
    files.push((
        "HUMAN-S_WALKL.MAN".into(),
        human_cycle("S_WALKL", 32, 1.0, &all)?,
    ));
    let mut run: Vec<u32> = (0..23).rev().collect();
    run.swap(0, 5);
    files.push((
        "HUMAN-S_RUNL.MAN".into(),
        human_cycle("S_RUNL", 20, 1.6, &run)?,
    ));
    for (file, bytes) in files {
        let path = dir.join(&file);
        std::fs::write(&path, &bytes)?;
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// A humanoid: HUMAN.MDH (a biped skeleton whose bones point along their local x axis, as 3ds
// Max's biped makes them) with a walk and a run cycle made for it, for the glTF/Blender loop.

/// (name, parent, world position in cm: x to the model's right, y up, z forward).
const HUMAN: [(&str, i16, [f32; 3]); 26] = [
    ("BIP01", -1, [0.0, 92.0, 0.0]),
    ("BIP01 PELVIS", 0, [0.0, 92.0, 0.0]),
    ("BIP01 SPINE", 1, [0.0, 102.0, -1.0]),
    ("BIP01 SPINE1", 2, [0.0, 116.0, -1.5]),
    ("BIP01 SPINE2", 3, [0.0, 130.0, -1.0]),
    ("BIP01 NECK", 4, [0.0, 148.0, 0.0]),
    ("BIP01 HEAD", 5, [0.0, 157.0, 1.0]),
    ("BIP01 L CLAVICLE", 4, [-3.0, 145.0, 0.0]),
    ("BIP01 L UPPERARM", 7, [-18.0, 143.0, -1.0]),
    ("BIP01 L FOREARM", 8, [-21.0, 115.0, -2.0]),
    ("BIP01 L HAND", 9, [-23.0, 90.0, 2.0]),
    ("BIP01 R CLAVICLE", 4, [3.0, 145.0, 0.0]),
    ("BIP01 R UPPERARM", 11, [18.0, 143.0, -1.0]),
    ("BIP01 R FOREARM", 12, [21.0, 115.0, -2.0]),
    ("BIP01 R HAND", 13, [23.0, 90.0, 2.0]),
    ("BIP01 L THIGH", 1, [-10.0, 89.0, 0.0]),
    ("BIP01 L CALF", 15, [-10.5, 48.0, 1.0]),
    ("BIP01 L FOOT", 16, [-11.0, 8.0, -2.0]),
    ("BIP01 L TOE0", 17, [-11.0, 1.0, 12.0]),
    ("BIP01 R THIGH", 1, [10.0, 89.0, 0.0]),
    ("BIP01 R CALF", 19, [10.5, 48.0, 1.0]),
    ("BIP01 R FOOT", 20, [11.0, 8.0, -2.0]),
    ("BIP01 R TOE0", 21, [11.0, 1.0, 12.0]),
    ("ZS_HELMET", 6, [0.0, 175.0, 1.0]),
    ("ZS_LEFTHAND", 10, [-23.0, 82.0, 4.0]),
    ("ZS_RIGHTHAND", 14, [23.0, 82.0, 4.0]),
];

/// World rest rotation of node `i`: local x towards its (first) child, z as close to forward
/// as that allows; leaves take their parent's.
fn human_world_rotation(i: usize) -> glam::Quat {
    use glam::{Mat3, Vec3};
    let child = HUMAN.iter().position(|n| n.1 == i as i16);
    match child {
        Some(c) if i != 0 => {
            let x = (Vec3::from(HUMAN[c].2) - Vec3::from(HUMAN[i].2)).normalize();
            let fwd = if x.z.abs() > 0.9 { Vec3::Y } else { Vec3::Z };
            let y = fwd.cross(x).normalize();
            let z = x.cross(y);
            glam::Quat::from_mat3(&Mat3::from_cols(x, y, z)).normalize()
        }
        // The root: turned a quarter about y, as bipeds stand in their files.
        _ if i == 0 => glam::Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        _ => human_world_rotation(HUMAN[i].1 as usize),
    }
}

/// Local rest rotation and translation of node `i` (relative to its parent).
fn human_local(i: usize) -> (glam::Quat, glam::Vec3) {
    let wr = human_world_rotation(i);
    let wp = glam::Vec3::from(HUMAN[i].2);
    match HUMAN[i].1 {
        p if p < 0 => (wr, wp),
        p => {
            let (pr, pp) = (
                human_world_rotation(p as usize),
                glam::Vec3::from(HUMAN[p as usize].2),
            );
            ((pr.inverse() * wr).normalize(), pr.inverse() * (wp - pp))
        }
    }
}

fn human_names() -> Vec<&'static [u8]> {
    HUMAN.iter().map(|n| n.0.as_bytes()).collect()
}

fn human_mdh() -> Res<Vec<u8>> {
    let mut out = Vec::new();
    put_chunk(&mut out, 0xD100, |o| {
        o.put_u32(3);
        o.put_u16(HUMAN.len() as u16);
        for (i, (name, parent, _)) in HUMAN.iter().enumerate() {
            put_line(o, &Text::from(*name))?;
            o.put_i16(*parent);
            let (r, t) = human_local(i);
            let m = glam::Mat4::from_rotation_translation(r, t);
            // Rows as stored: the transpose of glam's column order.
            for v in m.transpose().to_cols_array() {
                o.put_u32(v.to_bits());
            }
        }
        for v in [
            -45.0f32, 0.0, -20.0, 45.0, 180.0, 25.0, -22.5, 0.0, -10.0, 22.5, 144.0, 12.5, 0.0,
            92.0, 0.0,
        ] {
            o.put_u32(v.to_bits());
        }
        o.put_u32(animkit::zengin::node_list_checksum(human_names()));
        Ok(())
    })?;
    put_chunk(&mut out, 0xD110, |o| {
        o.put_plain(&ZDate {
            year: 2026,
            month: 11,
            day: 24,
            hour: 12,
            minute: 0,
            second: 0,
            padding: 0,
        });
        put_line(o, &Text::from("\\_WORK\\DATA\\ANIMS\\HUMAN_BODY.ASC"))
    })?;
    put_chunk(&mut out, 0xD120, |_| Ok(()))?;
    Ok(out)
}

/// The local pose of node `i` at `phase` (radians) of a gait cycle: the rest pose turned about
/// the parent's axes. `stride` scales the swing.
fn human_pose(i: usize, phase: f32, stride: f32) -> (glam::Quat, glam::Vec3) {
    use glam::{Quat, Vec3};
    let (rest_r, rest_t) = human_local(i);
    let name = HUMAN[i].0;
    let s = phase.sin();
    // A turn about a world axis, expressed in the parent's frame at rest.
    let turn = |axis: Vec3, angle: f32| {
        let p = HUMAN[i].1;
        let pr = if p < 0 {
            Quat::IDENTITY
        } else {
            human_world_rotation(p as usize)
        };
        Quat::from_axis_angle((pr.inverse() * axis).normalize(), angle)
    };
    let side = if name.contains(" L ") { 1.0 } else { -1.0 };
    let delta = match name {
        "BIP01" => turn(Vec3::Y, 0.08 * s * stride),
        "BIP01 PELVIS" => turn(Vec3::Z, 0.05 * s * stride),
        "BIP01 SPINE" | "BIP01 SPINE1" => turn(Vec3::Y, -0.06 * s * stride),
        "BIP01 HEAD" => turn(Vec3::X, 0.05 * (2.0 * phase).sin()),
        n if n.ends_with("THIGH") => turn(Vec3::X, -0.45 * side * s * stride),
        n if n.ends_with("CALF") => {
            let bend = (0.5 + 0.5 * (phase + side * 1.4).sin()) * 0.9 * stride;
            turn(Vec3::X, bend)
        }
        n if n.ends_with("FOOT") => turn(Vec3::X, -0.2 * side * (phase + 0.5).sin() * stride),
        n if n.ends_with("UPPERARM") => turn(Vec3::X, 0.35 * side * s * stride),
        n if n.ends_with("FOREARM") => turn(Vec3::X, -0.3 - 0.15 * side * s * stride),
        _ => Quat::IDENTITY,
    };
    let mut t = rest_t;
    if name == "BIP01" {
        t.y += 2.0 * stride * (2.0 * phase).cos();
        t.x += 1.5 * s;
    }
    ((delta * rest_r).normalize(), t)
}

/// A gait cycle of `frames` frames at 25 fps over the nodes `order` (MDH indices).
fn human_cycle(name: &str, frames: u32, stride: f32, order: &[u32]) -> Res<Vec<u8>> {
    use animkit::exact::{Blob, Hex32, F32};
    use animkit::zengin::man::{Chunk, Header, Man, Marker, Samples, Source};
    use animkit::zengin::quant;
    use animkit::zengin::types::BBox;
    let poses: Vec<(glam::Quat, glam::Vec3)> = (0..frames)
        .flat_map(|f| {
            let phase = std::f32::consts::TAU * f as f32 / frames as f32;
            order
                .iter()
                .map(move |&i| human_pose(i as usize, phase, stride))
        })
        .collect();
    let (min, scale) = quant::position_range(poses.iter().map(|p| p.1));
    let mut codes = Vec::with_capacity(poses.len());
    for (q, p) in &poses {
        // (the engine stores the conjugate of the rotation its matrices hold: a MAN's
        // quaternion is the transpose of the MDH's rest matrix for a node at rest)
        let r = quant::pack_rotation(q.conjugate().to_array())?;
        let c = |v: f32| quant::pack_position(v, min, scale).ok_or("position out of range");
        codes.push([r[0], r[1], r[2], c(p.x)?, c(p.y)?, c(p.z)?]);
    }
    let f3 = |v: [f32; 3]| v.map(F32::new);
    let text = Text::from(name);
    let man = Man {
        chunks: vec![
            Chunk::Marker(Marker::default()),
            Chunk::Header(Header {
                version: 12,
                name: text.clone(),
                layer: 1,
                frame_count: frames,
                node_count: order.len() as u32,
                fps: F32::new(25.0),
                fps_source: F32::new(25.0),
                position_min: F32::new(min),
                position_scale: F32::new(scale),
                bbox: BBox {
                    min: f3([-45.0, 0.0, -20.0]),
                    max: f3([45.0, 180.0, 25.0]),
                },
                next: text,
                trailing: Blob::default(),
            }),
            Chunk::Source(Source {
                date: ZDate {
                    year: 2026,
                    month: 11,
                    day: 24,
                    hour: 12,
                    minute: 0,
                    second: 0,
                    padding: 0,
                },
                path: Text::from(format!("\\_WORK\\DATA\\ANIMS\\HUMAN_{name}.ASC").as_str()),
                script: Text::from(
                    format!(
                        "\t\tani\t(\"{name}\"\t1\t\"{name}\"\t0.1\t0.1\tM.\t\"HUMAN_{name}.ASC\"\tF\t0\t{}\tFPS:25)",
                        frames - 1
                    )
                    .as_str(),
                ),
                trailing: Blob::default(),
            }),
            Chunk::Samples(Samples {
                checksum: Hex32(animkit::zengin::node_list_checksum(human_names())),
                node_indices: order.to_vec(),
                codes,
                trailing: Blob::default(),
            }),
        ],
    };
    let mut out = Vec::new();
    man.write(&mut out)?;
    Ok(out)
}
