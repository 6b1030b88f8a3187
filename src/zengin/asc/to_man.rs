//! ASC → MAN, the way the engine compiles an `ani` (asc.md §3, §4.3, §4.4): world samples made
//! node-local with [`super::pose`], quantised with the engine's truncation or with
//! round-to-nearest, and the header filled from the `ani` statement, the ASC and the MDH.
//!
//! Not derivable (README): the bbox (the engine takes it from the mesh; animkit writes the
//! extent of the node positions relative to the root, in MAN space) and the source date
//! (uninitialised memory in engine files; animkit writes zero).

use super::model::Model;
use super::pose::{local_from_world, quat_from_angaxis, world_from_tm_rows, Local, World};
use crate::exact::{Blob, Text, F32};
pub use crate::zengin::man::build::Rounding;
use crate::zengin::man::build::{build, NewMan};
use crate::zengin::man::{Man, Source};
use crate::zengin::mds::Ani;
use crate::zengin::types::{BBox, ZDate};
use glam::{DQuat, DVec3, Vec3};

/// What one animation is compiled from.
pub struct AniInput<'a> {
    /// The `ani` statement.
    pub ani: &'a Ani,
    /// The MDS line it was written on (stored uppercased as the source chunk's script).
    pub line: &'a str,
    /// The ASC's path relative to the engine's anims folder, as stored after
    /// `\_WORK\DATA\ANIMS\` (normally the file name the `ani` names).
    pub asc_path: &'a str,
    /// The skeleton's node names (MDH order, upper case) and checksum.
    pub nodes: &'a [Vec<u8>],
    pub checksum: u32,
    pub rounding: Rounding,
    /// `position_min` and `position_scale` to quantise with, instead of the engine's range of
    /// this animation's positions (e.g. a vanilla MAN's own, whose range GS's ASC cannot tell).
    pub position_range: Option<(f32, f32)>,
}

/// A compile failure or a note about what was left out.
#[derive(Debug, Clone, PartialEq)]
pub struct Note(pub String);

/// The MAN of `input` from the ASC `asc`, with notes (nodes left out).
pub fn compile(asc: &Model, input: &AniInput<'_>) -> Result<(Man, Vec<Note>), String> {
    let ani = input.ani;
    let scene = &asc.scene;
    let first = scene.first_frame;
    let last = scene.last_frame;
    let fps_source = scene.frame_speed as f32;
    let mut fps: f32 = ani.fps.map(|f| f.get()).unwrap_or(25.0);
    let s = ani.first_frame as i64;
    let e = if ani.last_frame < 0 {
        last
    } else {
        ani.last_frame as i64
    };
    let start = s.max(first);
    let end = e.min(last);
    if end < start {
        return Err(format!(
            "the ani's frames {s}..{e} are outside the ASC's range {first}..={last}"
        ));
    }
    if fps != fps_source && !(fps > 0.0 && fps_source > 0.0) {
        return Err(format!("fps {fps} / source fps {fps_source}: not a rate"));
    }
    let resampled = (((e - s + 1) as f64) * fps as f64 / fps_source as f64).ceil() as i64;
    // The engine only ever drops frames: where the rate asked for would give as many frames
    // as the ASC has or more, it keeps the ASC's frames and rate (asc.md §4.4: GOLEM's
    // `FPS:12.5` on a 12-fps ASC → fps 12; a one-frame ani of a 30-fps ASC → fps 30).
    if fps != fps_source && resampled > end - start {
        fps = fps_source;
    }
    // ASC frame of each MAN frame.
    let frames: Vec<i64> = if fps == fps_source {
        (start..=end).collect()
    } else {
        (0..resampled.max(0))
            .map(|f| {
                (s + ((f as f64) * fps_source as f64 / fps as f64).floor() as i64)
                    .clamp(first, last)
            })
            .collect()
    };
    if frames.is_empty() {
        return Err("the ani covers no frame of the ASC".into());
    }
    if frames.len() > 1 << 20 {
        return Err(format!("{} frames: too many", frames.len()));
    }
    // Animated objects in ASC order, mapped to MDH indices.
    let mut notes = Vec::new();
    let mut animated: Vec<(usize, u32)> = Vec::new();
    for (i, o) in asc.objects.iter().enumerate() {
        let Some(a) = &o.anim else { continue };
        if a.pos.is_empty() && a.rot.is_empty() {
            continue;
        }
        let upper = o.name.to_ascii_uppercase();
        match input
            .nodes
            .iter()
            .position(|n| n.as_slice() == upper.as_bytes())
        {
            Some(idx) => animated.push((i, idx as u32)),
            None => notes.push(Note(format!(
                "node `{}` has samples but is not in the model's hierarchy: left out",
                o.name
            ))),
        }
    }
    if animated.is_empty() {
        return Err("no animated node of the ASC is in the model's hierarchy".into());
    }
    let index_of = |name: &str| asc.objects.iter().position(|o| o.name == name);
    let parents: Vec<Option<usize>> = asc
        .objects
        .iter()
        .map(|o| o.parent.as_deref().and_then(index_of))
        .collect();
    // The engine reads the ASC's numbers into f32 and does the arithmetic in double
    // precision (x87) from those: every input is rounded to f32 first (asc.md §4.3; measured
    // on the class B pairs, this alone lifts rotation codes from 98.97 to 99.2 % equal).
    let f32v = |v: [f64; 3]| DVec3::from_array(v.map(|x| x as f32 as f64));
    // Each object's rest pose (its `*NODE_TM`), once.
    let rest: Vec<World> = asc
        .objects
        .iter()
        .map(|o| world_from_tm_rows(o.tm.rows.map(f32v)))
        .collect();
    let world_at = |i: usize, sample: usize| -> World {
        let o = &asc.objects[i];
        match &o.anim {
            Some(a) if !a.pos.is_empty() || !a.rot.is_empty() => World {
                rot: a
                    .rot
                    .get(sample)
                    .map(|k| quat_from_angaxis(f32v(k.axis), k.angle as f32 as f64))
                    .unwrap_or(rest[i].rot),
                pos: a
                    .pos
                    .get(sample)
                    .map(|k| f32v(k.pos))
                    .unwrap_or(rest[i].pos),
            },
            _ => rest[i],
        }
    };
    // The objects whose world pose a frame needs (the animated ones, their parents and the
    // root), each computed once per frame.
    let root = asc.objects.iter().position(|o| o.parent.is_none());
    let mut needed = vec![false; asc.objects.len()];
    for &(i, _) in &animated {
        needed[i] = true;
        if let Some(p) = parents[i] {
            needed[p] = true;
        }
    }
    if let Some(r) = root {
        needed[r] = true;
    }
    let needed: Vec<usize> = (0..needed.len()).filter(|&i| needed[i]).collect();
    let mut worlds = vec![World::IDENTITY; asc.objects.len()];
    // Local values, frame-major.
    let mut locals: Vec<Local> = Vec::with_capacity(frames.len() * animated.len());
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for &fr in &frames {
        let sample = (fr - first) as usize;
        for &i in &needed {
            worlds[i] = world_at(i, sample);
        }
        let root_world = root.map(|r| worlds[r]);
        for &(i, _) in &animated {
            let parent = parents[i].map(|p| worlds[p]);
            let w = worlds[i];
            locals.push(local_from_world(parent, w));
            // bbox: node positions relative to the root, in MAN space.
            if let Some(r) = root_world {
                let d = w.pos - r.pos;
                let v = Vec3::new(-d.x as f32, d.z as f32, -d.y as f32);
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    // Local positions are kept as f32 (the engine's sample vectors); the range and the codes
    // are computed in double from those.
    for l in &mut locals {
        l.pos = l.pos.as_vec3().as_dvec3();
    }
    let position_range = Some(
        input
            .position_range
            .unwrap_or_else(|| engine_position_range(&locals)),
    );
    let f3 = |v: Vec3| [F32::new(v.x), F32::new(v.y), F32::new(v.z)];
    let bbox = if lo.x.is_finite() {
        BBox {
            min: f3(lo),
            max: f3(hi),
        }
    } else {
        BBox::default()
    };
    let source = Source {
        date: ZDate::default(),
        path: Text::new(
            format!("\\_WORK\\DATA\\ANIMS\\{}", input.asc_path)
                .to_ascii_uppercase()
                .into_bytes(),
        ),
        script: Text::new(input.line.to_ascii_uppercase().into_bytes()),
        trailing: Blob::default(),
    };
    let locals: Vec<(DQuat, DVec3)> = locals.iter().map(|l| (l.rot, l.pos)).collect();
    let man = build(&NewMan {
        name: ani.name.as_bytes(),
        next: ani.next.as_bytes(),
        layer: ani.layer as u32,
        fps,
        fps_source,
        checksum: input.checksum,
        node_indices: animated.iter().map(|&(_, idx)| idx).collect(),
        locals: &locals,
        rounding: input.rounding,
        position_range,
        bbox,
        source,
    })?;
    Ok((man, notes))
}

/// The engine's `position_min` and `position_scale`: the least and greatest f32 component of
/// all local positions, the scale `(max − min)/65535` evaluated in double and stored as f32
/// (`f32(1/65535)·f32(max − min)` misses the engine's scale by one ulp in 3 of the 30 class B
/// pairs whose extremes are exact; this formula matches all of them).
fn engine_position_range(locals: &[Local]) -> (f32, f32) {
    crate::zengin::man::build::engine_position_range(locals.iter().map(|l| l.pos.as_vec3()))
}

/// The engine's skeleton of an ASC (asc.md §5): the `Bip01…` and `ZS_…` objects (any case) in
/// file order, names upper case (`Dummy…` helpers and `zm_…` meshes are left out).
pub fn skeleton_names(asc: &Model) -> Vec<Vec<u8>> {
    asc.objects
        .iter()
        .map(|o| o.name.to_ascii_uppercase())
        .filter(|n| n.starts_with("BIP01") || n.starts_with("ZS_"))
        .map(|n| super::model::to_bytes(&n).unwrap_or_else(|| n.into_bytes()))
        .collect()
}

/// Parse one MDS `ani` statement (`ani ("S_RUN" 1 "S_RUN" 0.1 0.1 M. "HUM_RUN.ASC" F 1 50)`,
/// any case, with or without an event block).
pub fn parse_ani(text: &str) -> Result<Ani, String> {
    let src = format!("Model (\"X\")\n{{\naniEnum\n{{\n{text}\n}}\n}}\n");
    let mds = crate::zengin::mds::parse(src.as_bytes())
        .map_err(|e| format!("not an ani statement: {}", e.message))?;
    for item in &mds.script.items {
        if let crate::zengin::mds::ModelItem::AniEnum(items) = item {
            for a in items {
                if let crate::zengin::mds::AniItem::Ani(a) = a {
                    return Ok(a.clone());
                }
            }
        }
    }
    Err("not an ani statement (expected `ani (\"NAME\" layer \"NEXT\" in out FLAGS \"X.ASC\" F first last)`)".into())
}
