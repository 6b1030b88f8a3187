//! Deterministic synthetic `.MAN` animations for samples, tests and benchmarks: smooth
//! rotations and positions packed with the engine's rules.

use crate::exact::{Blob, Hex32, Text, F32};
use crate::zengin::man::quant;
use crate::zengin::man::{
    Chunk, Event, EventType, Events, Header, Man, Marker, Samples, Source, Unknown,
};
use crate::zengin::types::{BBox, ZDate};
use glam::{Quat, Vec3};

/// What to put into a synthetic animation.
#[derive(Debug, Clone)]
pub struct Synth {
    pub name: String,
    pub nodes: u32,
    pub frames: u32,
    pub events: usize,
    pub unknown_chunk: bool,
    /// Garbage where real files have it: date padding, an uninitialised probability float.
    pub garbage: bool,
}

impl Synth {
    pub fn new(name: &str, nodes: u32, frames: u32) -> Self {
        Synth {
            name: name.into(),
            nodes,
            frames,
            events: 0,
            unknown_chunk: false,
            garbage: false,
        }
    }
}

/// A smooth, deterministic pose for node `n` at frame `f`.
fn pose(n: u32, f: u32) -> (Quat, Vec3) {
    let t = f as f32 * 0.1 + n as f32 * 0.37;
    let axis = Vec3::new((n as f32 * 1.3).sin(), 1.0, (n as f32 * 0.7).cos()).normalize();
    let rot = Quat::from_axis_angle(axis, t.sin() * 1.2);
    let pos = Vec3::new(
        (t * 0.5).sin() * 20.0 + n as f32,
        (t * 0.3).cos() * 5.0 + 80.0 * (n == 0) as u32 as f32,
        f as f32 * 0.25 - 10.0,
    );
    (rot, pos)
}

/// Build the animation.
pub fn synthesize(s: &Synth) -> Man {
    let poses: Vec<(Quat, Vec3)> = (0..s.frames)
        .flat_map(|f| (0..s.nodes).map(move |n| pose(n, f)))
        .collect();
    let (min, scale) = quant::position_range(poses.iter().map(|p| p.1));
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let codes: Vec<[u16; 6]> = poses
        .iter()
        .map(|(q, p)| {
            lo = lo.min(*p);
            hi = hi.max(*p);
            let r = quant::pack_rotation(q.to_array()).unwrap_or([32767, 32767, 32767]);
            let c = |v: f32| quant::pack_position(v, min, scale).unwrap_or(0);
            [r[0], r[1], r[2], c(p.x), c(p.y), c(p.z)]
        })
        .collect();
    let f3 = |v: Vec3| [F32::new(v.x), F32::new(v.y), F32::new(v.z)];
    let bbox = if poses.is_empty() {
        BBox::default()
    } else {
        BBox {
            min: f3(lo),
            max: f3(hi),
        }
    };
    let name = Text::from(s.name.as_str());
    let mut chunks = vec![
        Chunk::Marker(Marker::default()),
        Chunk::Header(Header {
            version: 12,
            name: name.clone(),
            layer: 1,
            frame_count: s.frames,
            node_count: s.nodes,
            fps: F32::new(25.0),
            fps_source: F32::new(25.0),
            position_min: F32::new(min),
            position_scale: F32::new(scale),
            bbox,
            next: name.clone(),
            trailing: Blob::default(),
        }),
        Chunk::Source(Source {
            date: ZDate {
                year: 2002,
                month: 8,
                day: 28,
                hour: 12,
                minute: 50,
                second: 52,
                padding: if s.garbage { 0xBEEF } else { 0 },
            },
            path: Text::from(format!("\\_WORK\\DATA\\ANIMS\\{}.ASC", s.name).as_str()),
            script: Text::from(
                format!(
                    "\t\tANI\t(\"{0}\"\t1\t\"{0}\"\t0.0 0.0 M.\t\"{0}.ASC\"\tF 0 {1})",
                    s.name,
                    s.frames.saturating_sub(1)
                )
                .as_str(),
            ),
            trailing: Blob::default(),
        }),
    ];
    if s.events > 0 {
        let kinds = [
            EventType::Tag,
            EventType::SoundEffect,
            EventType::ParticleEffect,
            EventType::CameraTremor,
            EventType::Other(42),
        ];
        let events = (0..s.events)
            .map(|i| Event {
                kind: kinds[i % kinds.len()],
                frame: i as i32,
                tag: Text::from(["DEF_HIT", "", "FX_SPARK", "", "WEIRD"][i % 5]),
                content: [
                    Text::from(["C1", "WHOOSH", "", "", "\u{e4}\r"][i % 5]),
                    Text::default(),
                    Text::from(if i % 2 == 0 { "BIP01 R HAND" } else { "" }),
                    Text::default(),
                ],
                values: [
                    F32::new(i as f32),
                    F32::new(-0.0),
                    F32::new(2500.0),
                    F32(0x7fa0_0001),
                ],
                probability: F32(if s.garbage { 0xCDCD_CDCD } else { 0 }),
            })
            .collect();
        chunks.push(Chunk::Events(Events {
            events,
            trailing: Blob::default(),
        }));
    }
    if s.unknown_chunk {
        chunks.push(Chunk::Unknown(Unknown {
            id: crate::zengin::man::Hex16(0xA0FF),
            data: Blob::new(*b"unknown\0data\xff"),
        }));
    }
    chunks.push(Chunk::Samples(Samples {
        checksum: Hex32(crate::zengin::node_list_checksum(
            (0..s.nodes)
                .map(|n| format!("BIP01 NODE{n}").into_bytes())
                .collect::<Vec<_>>()
                .iter()
                .map(|v| v.as_slice()),
        )),
        node_indices: (0..s.nodes).collect(),
        codes,
        trailing: Blob::new(if s.garbage { vec![0xAB, 0xCD] } else { vec![] }),
    }));
    Man { chunks }
}

/// Encode a synthetic animation to bytes.
pub fn synthesize_bytes(s: &Synth) -> Vec<u8> {
    let mut out = Vec::new();
    // Synthetic models hold no line feeds inside strings, so writing cannot fail.
    if let Err(e) = synthesize(s).write(&mut out) {
        unreachable!("synthetic MAN failed to encode: {e}");
    }
    out
}

/// The hierarchy (an MDH's bytes: the 0xD100 chunk only) that [`synthesize`]'s animations are
/// made for: `nodes` nodes `BIP01 NODE{n}` in a chain, each turned 0.1 rad more about z and
/// 5 cm along y from its parent (for benches and the peers' inputs).
pub fn chain_mdh(nodes: u16) -> Vec<u8> {
    use crate::exact::Writer;
    let names: Vec<String> = (0..nodes).map(|n| format!("BIP01 NODE{n}")).collect();
    let mut out = Vec::new();
    // Cannot fail: short ASCII names.
    let _ = crate::zengin::chunk::put_chunk(&mut out, 0xD100, |o| {
        o.put_u32(3);
        o.put_u16(nodes);
        for (i, n) in names.iter().enumerate() {
            crate::zengin::types::put_line(o, &Text::from(n.as_str()))?;
            o.put_i16(i as i16 - 1);
            let m = glam::Mat4::from_rotation_translation(
                Quat::from_rotation_z(0.1 * i as f32),
                Vec3::new(0.0, 5.0, 0.0),
            );
            for v in m.transpose().to_cols_array() {
                o.put_u32(v.to_bits());
            }
        }
        for _ in 0..15 {
            o.put_u32(0);
        }
        o.put_u32(crate::zengin::node_list_checksum(
            names.iter().map(|n| n.as_bytes()),
        ));
        Ok(())
    });
    out
}
