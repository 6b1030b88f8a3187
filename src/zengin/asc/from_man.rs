//! MAN + MDH → ASC, GothicSourcer's decompiler done openly (asc.md §2, §3, §4.5, §4.6).
//!
//! What is written, as GothicSourcer (GS) writes it:
//! * every MDH node as a `*HELPEROBJECT` in MDH order, Biped names in Biped case
//!   (`BIP01 L UPPERARM` → `Bip01 L UpperArm`, [`asc_name`]); `*NODE_TM` is the MDH rest pose
//!   made world (§5, the root at `root_translation`);
//! * one `*TM_ANIMATION` per node some animation samples, with one world-space position and
//!   AngAxis sample per ASC frame (§3 inverse); nodes no animation samples get no
//!   `*TM_ANIMATION` (as in GS's files), and stand at their `*NODE_TM`;
//! * `SCENE_FRAMESPEED` = the MAN's `fps_source`, `SCENE_TICKSPERFRAME` = 4800 / FRAMESPEED,
//!   ticks `FIRST + i·TICKSPERFRAME` (GS's values; every reader takes samples by index);
//! * MAN frame f at ASC frame `s + floor(f·fps_source/fps)`, `s` the start frame of the MDS
//!   line in the MAN's source chunk (§4.6); ASC frames between keys (resampled animations, gaps
//!   between the animations sharing one ASC) are interpolated in local space.
//!
//! Not GS's exact text: GS's choice between `(axis, angle)` and `(−axis, 2π − angle)` is
//! unknown (§4.5); animkit writes the sign the quaternion product gives (GS's choice in 62 %).
//! The `*COMMENT` names animkit.

use super::model::{Anim, Model, NodeTm, Object, ObjectKind, PosKey, RotKey, ScaleKey, Scene};
use super::num;
use super::pose::{self, Local, World};
use super::print::TrackLines;
use crate::zengin::man::quant;
use crate::zengin::man::Man;
use crate::zengin::mdh::Mdh;
use glam::DVec3;

/// `*3DSMAX_ASCIIEXPORT` version GS writes.
pub const EXPORT_VERSION: i64 = 110;

/// The `*COMMENT` of files animkit writes.
pub fn comment() -> String {
    format!("[ animkit {} ] - from MAN", env!("CARGO_PKG_VERSION"))
}

/// The skeleton of an MDH as the ASC needs it.
#[derive(Debug, Clone)]
pub struct Rig {
    /// Names as the ASC writes them (Biped case).
    pub names: Vec<String>,
    pub parents: Vec<Option<usize>>,
    /// Rest local transforms (the root's position is `root_translation`).
    pub rest: Vec<Local>,
    /// Rest world transforms (the `*NODE_TM`s).
    pub rest_world: Vec<World>,
    /// Parents before children.
    pub order: Vec<usize>,
}

/// Biped case for an MDH name, as GS restores it: `BIP01 L UPPERARM` → `Bip01 L UpperArm`,
/// `BIP01 ZANGE-L` → `Bip01 Zange-L`. Names that do not start with `BIP01`, or are not all
/// upper case, are kept (`ZS_RIGHTHAND`).
pub fn asc_name(mdh: &str) -> String {
    let upper = !mdh.chars().any(|c| c.is_ascii_lowercase());
    let bip = mdh
        .get(..5)
        .is_some_and(|p| p.eq_ignore_ascii_case("BIP01"));
    if !upper || !bip {
        return mdh.to_string();
    }
    mdh.split(' ')
        .map(|w| match w {
            // 3ds Max Biped part names with an inner capital.
            "UPPERARM" => "UpperArm".to_string(),
            "HORSELINK" => "HorseLink".to_string(),
            "FOOTSTEPS" => "Footsteps".to_string(),
            "L" | "R" => w.to_string(),
            _ => {
                let mut out = String::with_capacity(w.len());
                let mut start = true;
                for c in w.chars() {
                    out.push(if start {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    });
                    start = c == '-';
                }
                out
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Rig {
    pub fn from_mdh(mdh: &Mdh) -> Result<Rig, String> {
        let h = mdh
            .hierarchy()
            .ok_or("the MDH has no hierarchy chunk (0xD100)")?;
        let n = h.nodes.len();
        let mut names = Vec::with_capacity(n);
        let mut parents = Vec::with_capacity(n);
        let mut rest = Vec::with_capacity(n);
        let root_translation = h.root_translation.map(|v| v.get() as f64);
        for (i, node) in h.nodes.iter().enumerate() {
            let name = super::model::latin1(node.name.as_bytes());
            let parent = match usize::try_from(node.parent) {
                Err(_) => None,
                Ok(p) if p < n && p != i => Some(p),
                Ok(p) => {
                    return Err(format!(
                        "hierarchy.nodes[{i}] ({name}): parent {p} is not another of the {n} nodes"
                    ))
                }
            };
            let rows = node.transform.0.map(|r| r.map(|v| v.get()));
            if rows.iter().flatten().any(|v| !v.is_finite()) {
                return Err(format!(
                    "hierarchy.nodes[{i}] ({name}): the transform holds a value that is not a finite number"
                ));
            }
            let mut local = pose::local_from_mdh(rows);
            if parent.is_none() {
                local.pos = DVec3::from_array(root_translation);
            }
            names.push(asc_name(&name));
            parents.push(parent);
            rest.push(local);
        }
        // Parents before children (and no cycles).
        let mut order = Vec::with_capacity(n);
        let mut state = vec![0u8; n];
        for start in 0..n {
            let mut chain = Vec::new();
            let mut at = Some(start);
            while let Some(k) = at {
                match state[k] {
                    2 => break,
                    1 => {
                        return Err(format!(
                            "hierarchy.nodes[{k}] ({}): its parents form a cycle",
                            names[k]
                        ))
                    }
                    _ => {}
                }
                state[k] = 1;
                chain.push(k);
                at = parents[k];
            }
            for &k in chain.iter().rev() {
                state[k] = 2;
                order.push(k);
            }
        }
        let mut rest_world = vec![World::IDENTITY; n];
        for &k in &order {
            rest_world[k] = pose::world_from_local(parents[k].map(|p| rest_world[p]), rest[k]);
        }
        Ok(Rig {
            names,
            parents,
            rest,
            rest_world,
            order,
        })
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The world poses of one frame as the engine (and 3ds Max, KrxImpExp) poses the model:
    /// `local[k]` for animated nodes, the rest local transform under the parent's pose for the
    /// others.
    pub fn world(&self, local: &[Option<Local>], out: &mut [World]) {
        for &k in &self.order {
            let l = local[k].unwrap_or(self.rest[k]);
            out[k] = pose::world_from_local(self.parents[k].map(|p| out[p]), l);
        }
    }
}

/// `*NODE_TM` of a world transform, `TM_ROTAXIS`/`TM_ROTANGLE` with the angle in `0..=π`.
pub fn node_tm(w: World) -> NodeTm {
    let rows = pose::tm_rows(w).map(|r| r.to_array());
    let (mut axis, mut angle) = pose::angaxis_from_quat(w.rot);
    if angle > std::f64::consts::PI {
        axis = -axis;
        angle = std::f64::consts::TAU - angle;
    }
    let rows = rows.map(|r| r.map(num::round6));
    NodeTm {
        rows,
        pos: rows[3],
        rot_axis: axis.to_array().map(num::round6),
        rot_angle: num::round6(angle),
        scale: [1.0; 3],
        scale_axis: [0.0; 3],
        scale_axis_ang: [0.0; 3],
    }
}

fn objects(rig: &Rig) -> Vec<Object> {
    (0..rig.len())
        .map(|k| Object {
            kind: ObjectKind::Helper,
            name: rig.names[k].clone(),
            parent: rig.parents[k].map(|p| rig.names[p].clone()),
            tm: node_tm(rig.rest_world[k]),
            anim: None,
            mesh: None,
            morph: Vec::new(),
            material_ref: None,
        })
        .collect()
}

fn scene(file: &str, first: i64, last: i64, speed: f64) -> Scene {
    Scene {
        filename: format!("{}.MAX", stem(file)),
        first_frame: first,
        last_frame: last,
        frame_speed: num::round6(speed),
        ticks_per_frame: (4800.0 / speed).round() as i64,
        background: [0.0; 3],
        ambient: [0.2; 3],
    }
}

/// `HUM_RUN.ASC` → `HUM_RUN` (also for paths).
fn stem(file: &str) -> &str {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    match base.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s,
        _ => base,
    }
}

/// The skeleton alone as a mesh-and-tree ASC without a mesh (GS's scene range 0..100).
pub fn skeleton(rig: &Rig, asc_file: &str) -> Model {
    Model {
        export_version: EXPORT_VERSION,
        comment: Some(comment()),
        scene: scene(asc_file, 0, 100, 25.0),
        objects: objects(rig),
        softskins: Vec::new(),
        extra: Vec::new(),
    }
}

/// What the MDS line in a MAN's source chunk says about its ASC.
#[derive(Debug, Clone, PartialEq)]
pub struct AniLine {
    /// The ASC file name as written (`HUM_RUN.ASC`).
    pub asc: String,
    pub first_frame: i64,
    /// `-1` = the ASC's last frame.
    pub last_frame: i64,
}

/// Read the `ani (…)` statement of a MAN's source chunk (`script`), through the MDS parser.
pub fn ani_line(script: &[u8]) -> Option<AniLine> {
    use crate::zengin::mds::{AniItem, ModelItem};
    let mut src = b"Model (\"X\") { aniEnum {\n".to_vec();
    src.extend_from_slice(script);
    src.extend_from_slice(b"\n} }\n");
    let mds = crate::zengin::mds::parse::parse(&src).ok()?;
    mds.script.items.iter().find_map(|it| match it {
        ModelItem::AniEnum(items) => items.iter().find_map(|a| match a {
            AniItem::Ani(a) => Some(AniLine {
                asc: super::model::latin1(a.asc.as_bytes()),
                first_frame: a.first_frame as i64,
                last_frame: a.last_frame as i64,
            }),
            _ => None,
        }),
        _ => None,
    })
}

/// One animation's place in an ASC.
#[derive(Debug, Clone)]
pub struct Part<'a> {
    /// For messages (the MAN's path).
    pub label: String,
    pub man: &'a Man,
    /// The ASC frame of the MAN's frame 0 (`s` of `F s e`).
    pub start: i64,
    /// `e` of `F s e` when known (`-1`: the ASC's last frame).
    pub end: Option<i64>,
}

/// Which ASC frames a part's samples went to.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    pub label: String,
    /// The MAN's animation name.
    pub name: String,
    pub first: i64,
    pub last: i64,
    /// MAN frames written.
    pub frames: usize,
    /// Node samples another part had already placed at the same frame with another value
    /// (those frames keep the earlier part's values).
    pub overlapped: usize,
}

/// One part, decoded.
struct Decoded {
    /// ASC frame index (from FIRST) of each MAN frame.
    keys: Vec<i64>,
    node_indices: Vec<usize>,
    codes_min: f32,
    codes_scale: f32,
}

/// The parts of an animation ASC decoded, placed and filled: every frame of every track.
struct Prepared {
    first: i64,
    last: i64,
    speed: f64,
    count: usize,
    /// Per node: its value at every ASC frame, `None` for nodes no part samples.
    filled: Vec<Option<Vec<Key>>>,
    coverage: Vec<Coverage>,
}

fn prepare(rig: &Rig, asc_file: &str, parts: &[Part<'_>]) -> Result<Prepared, String> {
    if parts.is_empty() {
        return Err("no animation to write".into());
    }
    let n = rig.len();
    let mut speed: Option<f32> = None;
    let mut decoded = Vec::with_capacity(parts.len());
    let mut first = i64::MAX;
    let mut last = i64::MIN;
    for p in parts {
        let h = p
            .man
            .header()
            .ok_or_else(|| format!("{}: the MAN has no header chunk (0xA020)", p.label))?;
        let s = p
            .man
            .samples()
            .ok_or_else(|| format!("{}: the MAN has no samples chunk (0xA090)", p.label))?;
        let (fps, src) = (h.fps.get(), h.fps_source.get());
        if !(fps.is_finite() && fps > 0.0 && src.is_finite() && src > 0.0) {
            return Err(format!(
                "{}: header fps {fps} / fps_source {src}: an ASC needs positive rates",
                p.label
            ));
        }
        match speed {
            Some(sp) if sp != src => {
                return Err(format!(
                    "{}: fps_source {src} differs from the {sp} of the other animations of {asc_file}; one ASC has one frame rate",
                    p.label
                ))
            }
            _ => speed = Some(src),
        }
        let mut node_indices = Vec::with_capacity(s.node_indices.len());
        for (j, &i) in s.node_indices.iter().enumerate() {
            let i = i as usize;
            if i >= n {
                return Err(format!(
                    "{}: samples.node_indices[{j}] = {i}, but the MDH has {n} nodes",
                    p.label
                ));
            }
            if node_indices.contains(&i) {
                return Err(format!(
                    "{}: samples.node_indices[{j}] = {i} ({}) appears twice",
                    p.label, rig.names[i]
                ));
            }
            node_indices.push(i);
        }
        let frames = s.frame_count();
        let ratio = src as f64 / fps as f64;
        let keys: Vec<i64> = (0..frames)
            .map(|f| p.start + ((f as f64 * src as f64) / fps as f64).floor() as i64)
            .collect();
        if let (Some(&a), Some(&b)) = (keys.first(), keys.last()) {
            first = first.min(a);
            let mut end = b;
            // A resampled animation: keep the line's end frame when it gives the same frame
            // count again (the engine's ceil((e − s + 1)·fps/fps_source)).
            if ratio != 1.0 {
                if let Some(e) = p.end.filter(|&e| e > b) {
                    let count = ((e - p.start + 1) as f64 * fps as f64 / src as f64).ceil();
                    if count as usize == frames {
                        end = e;
                    }
                }
            }
            last = last.max(end);
        }
        decoded.push(Decoded {
            keys,
            node_indices,
            codes_min: h.position_min.get(),
            codes_scale: h.position_scale.get(),
        });
    }
    if first > last {
        return Err(format!(
            "{}: no frames to write (the animations are empty)",
            parts[0].label
        ));
    }
    let speed = speed.unwrap_or(25.0) as f64;
    let count = (last - first + 1) as usize;
    // Keyed local values per node and frame, with the codes they came from.
    let mut track: Vec<Option<Vec<Option<Key>>>> = vec![None; n];
    let mut coverage = Vec::with_capacity(parts.len());
    for (p, d) in parts.iter().zip(&decoded) {
        let s = p.man.samples().expect("checked above");
        let mut overlapped = 0;
        for (f, &key) in d.keys.iter().enumerate() {
            let at = (key - first) as usize;
            for (j, code) in s.frame(f).iter().enumerate() {
                let node = d.node_indices[j];
                let local = pose::man_local(code, d.codes_min, d.codes_scale);
                let t = track[node].get_or_insert_with(|| vec![None; count]);
                match t[at] {
                    None => {
                        t[at] = Some(Key {
                            local,
                            target: Some(Target {
                                code: *code,
                                min: d.codes_min as f64,
                                scale: d.codes_scale as f64,
                            }),
                        })
                    }
                    Some(had) => {
                        if (had.local.pos - local.pos).abs().max_element() > 1e-4
                            || had.local.rot.dot(local.rot).abs() < 1.0 - 1e-9
                        {
                            overlapped += 1;
                        }
                    }
                }
            }
        }
        coverage.push(Coverage {
            label: p.label.clone(),
            name: p
                .man
                .header()
                .map(|h| h.name.to_string())
                .unwrap_or_default(),
            first: d.keys.first().copied().unwrap_or(first),
            last: d.keys.last().copied().unwrap_or(first),
            frames: d.keys.len(),
            overlapped,
        });
    }
    // Fill the frames between keys.
    let filled: Vec<Option<Vec<Key>>> = track.into_iter().map(|t| t.map(|t| fill(&t))).collect();
    Ok(Prepared {
        first,
        last,
        speed,
        count,
        filled,
        coverage,
    })
}

/// Every sample of an animation ASC, frame by frame (parents before children): `emit(node,
/// tick, sample)` for every node with a track. `objects` are the rig's objects (their
/// printed `*NODE_TM`s stand for the nodes without a track).
fn run(rig: &Rig, prep: &Prepared, objects: &[Object], mut emit: impl FnMut(usize, i64, &Sampled)) {
    let n = rig.len();
    // What a reader makes of the printed `*NODE_TM` of a node without a track.
    let static_world: Vec<World> = objects
        .iter()
        .map(|o| pose::world_from_tm_rows(o.tm.rows.map(|r| DVec3::from_array(r.map(num::round6)))))
        .collect();
    let tpf = (4800.0 / prep.speed).round() as i64;
    let mut printed = vec![World::IDENTITY; n];
    let mut exact = vec![World::IDENTITY; n];
    for i in 0..prep.count {
        let tick = prep.first + i as i64 * tpf;
        for &k in &rig.order {
            let Some(t) = prep.filled[k].as_ref() else {
                printed[k] = static_world[k];
                exact[k] = rig.rest_world[k];
                continue;
            };
            let parent = rig.parents[k].map(|p| (exact[p], printed[p]));
            let before = (i > 0).then(|| exact[k].rot);
            let s = sample(parent, &t[i], before);
            exact[k] = s.exact;
            printed[k] = s.printed;
            emit(k, tick, &s);
        }
    }
}

/// The `*TM_ANIMATION` of a node with a track, without its samples.
fn empty_anim(first: i64) -> Anim {
    Anim {
        pos: Vec::new(),
        rot: Vec::new(),
        scale: vec![ScaleKey {
            tick: first,
            scale: [1.0; 3],
            axis: [0.0; 3],
            angle: 0.0,
        }],
    }
}

fn model_of(asc_file: &str, prep: &Prepared, objects: Vec<Object>) -> Model {
    Model {
        export_version: EXPORT_VERSION,
        comment: Some(comment()),
        scene: scene(asc_file, prep.first, prep.last, prep.speed),
        objects,
        softskins: Vec::new(),
        extra: Vec::new(),
    }
}

/// An animation ASC of one or more MANs (all with `fps_source` equal) of one skeleton.
pub fn animation(
    rig: &Rig,
    asc_file: &str,
    parts: &[Part<'_>],
) -> Result<(Model, Vec<Coverage>), String> {
    let prep = prepare(rig, asc_file, parts)?;
    let mut objects = objects(rig);
    let mut anims: Vec<Option<Anim>> = prep
        .filled
        .iter()
        .map(|t| {
            t.as_ref().map(|_| Anim {
                pos: Vec::with_capacity(prep.count),
                rot: Vec::with_capacity(prep.count),
                ..empty_anim(prep.first)
            })
        })
        .collect();
    run(rig, &prep, &objects, |k, tick, s| {
        if let Some(a) = anims[k].as_mut() {
            a.pos.push(PosKey { tick, pos: s.pos_v });
            a.rot.push(RotKey {
                tick,
                axis: [s.rot_v[0], s.rot_v[1], s.rot_v[2]],
                angle: s.rot_v[3],
            });
        }
    });
    for (o, a) in objects.iter_mut().zip(anims) {
        o.anim = a;
    }
    let model = model_of(asc_file, &prep, objects);
    Ok((model, prep.coverage))
}

/// [`animation`] printed ([`print_gs`](super::print_gs)), the same text, without the model's
/// sample values in between: each sample's lines are written from the decimals chosen for it.
pub fn animation_text(
    rig: &Rig,
    asc_file: &str,
    parts: &[Part<'_>],
    eol: super::Eol,
) -> Result<(String, Vec<Coverage>), String> {
    let prep = prepare(rig, asc_file, parts)?;
    let mut objects = objects(rig);
    let eol_kind = eol;
    let crlf = matches!(eol, super::Eol::CrLf);
    // Per node: the lines of its position and rotation tracks (60–80 bytes a line).
    let mut tracks: Vec<Option<TrackLines>> = prep
        .filled
        .iter()
        .map(|t| {
            t.as_ref().map(|_| {
                (
                    Vec::with_capacity(80 * prep.count),
                    Vec::with_capacity(96 * prep.count),
                )
            })
        })
        .collect();
    // A line is built in `line` and appended with one fixed-size copy where it fits (no call
    // per piece).
    const FIXED: usize = 128;
    let mut line = [0u8; 8 * num::TEXT_ROOM];
    let mut tick_text = [0u8; 20];
    let mut tick_len = 0;
    let mut tick_of = i64::MIN;
    let mut itoa = itoa::Buffer::new();
    run(rig, &prep, &objects, |k, tick, s| {
        let Some((pos, rot)) = tracks[k].as_mut() else {
            return;
        };
        if tick != tick_of {
            let t = itoa.format(tick).as_bytes();
            tick_len = t.len();
            tick_text[..tick_len].copy_from_slice(t);
            tick_of = tick;
        }
        let mut put = |out: &mut Vec<u8>, key: &[u8; 23], vals: &[(i64, i32)]| {
            line[..23].copy_from_slice(key);
            line[23..43].copy_from_slice(&tick_text);
            let mut w = 23 + tick_len;
            for &(m, e) in vals {
                line[w] = b'\t';
                w = num::put_decimal(&mut line, w + 1, m, e);
            }
            if crlf {
                line[w] = b'\r';
                w += 1;
            }
            line[w] = b'\n';
            w += 1;
            let old = out.len();
            if w <= FIXED {
                out.extend_from_slice(&line[..FIXED]);
                out.truncate(old + w);
            } else {
                out.extend_from_slice(&line[..w]);
            }
        };
        put(pos, b"\t\t\t*CONTROL_POS_SAMPLE ", &s.pos);
        put(rot, b"\t\t\t*CONTROL_ROT_SAMPLE ", &s.rot);
    });
    for (o, t) in objects.iter_mut().zip(&tracks) {
        o.anim = t.as_ref().map(|_| empty_anim(prep.first));
    }
    let model = model_of(asc_file, &prep, objects);
    let text = super::print::print_gs_tracks(&model, eol_kind, &tracks);
    Ok((text, prep.coverage))
}

/// A keyed local value and the MAN codes it was decoded from.
#[derive(Debug, Clone, Copy)]
struct Key {
    local: Local,
    /// `None` for interpolated frames.
    target: Option<Target>,
}

#[derive(Debug, Clone, Copy)]
struct Target {
    code: [u16; 6],
    min: f64,
    scale: f64,
}

/// How far (in codes) a re-import may land from a code's centre before other spellings are
/// tried.
const GOOD_ENOUGH: f64 = 0.35;

/// One sample: its exact world transform, the one a reader gets back from the text, and the
/// position and AngAxis values to print (each exactly a 6-digit `%g` decimal). `parent` is
/// the parent's exact world transform and the one a reader sees (its printed sample or
/// `*NODE_TM`); `None` for a root.
///
/// The exact world value printed to 6 digits is what GothicSourcer writes. For a keyed frame
/// whose re-import (asc.md §3 forward against the printed parent, round-to-nearest) would land
/// more than [`GOOD_ENOUGH`] from the MAN's code centres, the spellings one or two steps of the
/// last digit away are tried and the one landing nearest is taken: 6 digits of a world
/// position are worth up to ±0.6 of a position code, and the parent's rounding adds to it.
fn sample(parent: Option<(World, World)>, key: &Key, before: Option<glam::DQuat>) -> Sampled {
    let mut w = pose::world_from_local(parent.map(|p| p.0), key.local);
    // The sign of the rotation continues the previous frame's (q and −q are the same
    // rotation; KrxImpExp's keys jump where consecutive samples flip).
    if before.is_some_and(|b| b.dot(w.rot) < 0.0) {
        w.rot = -w.rot;
    }
    let parent = parent.map(|p| p.1);
    let spell = |w: World, digits: usize| {
        let (axis, angle) = pose::angaxis_from_quat(w.rot);
        (
            w.pos.to_array().map(|v| num::decimal_n(v, digits)),
            [axis.x, axis.y, axis.z, angle].map(|v| num::decimal_n(v, digits)),
        )
    };
    let (pos_d, rot_d) = spell(w, num::PRECISION);
    // Their values (kept: most samples print them).
    let (pos_dv, rot_dv) = (at(&pos_d, &[0; 3]), at(&rot_d, &[0; 4]));
    // The rotation a reader gets from the printed AngAxis, when already computed.
    let mut printed_rot = None;
    let (pos, rot) = match key.target {
        None => (pos_d, rot_d),
        Some(t) => {
            let pos_dev = |p: [f64; 3]| {
                let l = pose::local_pos_from_world(parent, DVec3::from_array(p));
                (0..3)
                    .map(|c| ((l[c] - t.min) / t.scale - t.code[3 + c] as f64).abs())
                    .fold(0.0, f64::max)
            };
            let s = quant::ROT_SCALE as f64;
            let rot_dev_q = |q: glam::DQuat| {
                let l = pose::local_rot_from_world(parent, q);
                let v = [l.x, l.y, l.z];
                (0..3)
                    .map(|c| (v[c] / s + quant::ROT_MID as f64 - t.code[c] as f64).abs())
                    .fold(0.0, f64::max)
            };
            let rot_dev = |r: [f64; 4]| rot_dev_q(angaxis_quat(r));
            let mut pos = pos_d;
            let mut rot = rot_d;
            let pos_ok = pos_dev(pos_dv) <= GOOD_ENOUGH;
            let q = angaxis_quat(rot_dv);
            let rot_ok = rot_dev_q(q) <= GOOD_ENOUGH;
            printed_rot = Some(q);
            if !(pos_ok && rot_ok) {
                // The value that compiles back exactly against the printed parent, and its
                // neighbouring spellings; with a 7th (8th, …) digit where 6 cannot land
                // within the code's cell.
                let mut exact = pose::world_from_local(parent, key.local);
                if exact.rot.dot(w.rot) < 0.0 {
                    exact.rot = -exact.rot;
                }
                if !pos_ok {
                    for digits in num::PRECISION..=9 {
                        let (p, dev) = search(&spell(exact, digits).0, pos_dev);
                        pos = p;
                        if dev <= GOOD_ENOUGH {
                            break;
                        }
                    }
                }
                if !rot_ok {
                    printed_rot = None;
                    for digits in num::PRECISION..=9 {
                        let (r, dev) = search(&spell(exact, digits).1, rot_dev);
                        rot = r;
                        if dev <= GOOD_ENOUGH {
                            break;
                        }
                    }
                }
            }
            (pos, rot)
        }
    };
    let pos_v = if pos == pos_d {
        pos_dv
    } else {
        at(&pos, &[0; 3])
    };
    let rot_v = if rot == rot_d {
        rot_dv
    } else {
        at(&rot, &[0; 4])
    };
    let printed = World {
        rot: printed_rot.unwrap_or_else(|| angaxis_quat(rot_v)),
        pos: DVec3::from_array(pos_v),
    };
    Sampled {
        exact: w,
        printed,
        pos,
        rot,
        pos_v,
        rot_v,
    }
}

/// One written sample (see [`sample`]).
struct Sampled {
    /// The exact world transform.
    exact: World,
    /// The one a reader gets back from the text.
    printed: World,
    /// The decimals printed (`(m, e)`: `m·10^e`): the position and `[ax, ay, az, angle]`.
    pos: [(i64, i32); 3],
    rot: [(i64, i32); 4],
    /// Their values.
    pos_v: [f64; 3],
    rot_v: [f64; 4],
}

/// The rotation of printed AngAxis values `[ax, ay, az, angle]`.
#[inline]
fn angaxis_quat(r: [f64; 4]) -> glam::DQuat {
    pose::quat_from_angaxis(DVec3::new(r[0], r[1], r[2]), r[3])
}

/// The values of decimals `d` with the last digit moved by `off`.
fn at<const N: usize>(d: &[(i64, i32); N], off: &[i64; N]) -> [f64; N] {
    let d = shifted(d, off);
    std::array::from_fn(|c| {
        if d[c].0 == 0 {
            0.0
        } else {
            num::from_decimal(d[c].0, d[c].1)
        }
    })
}

/// Decimals `d` with the last digit moved by `off` (zero stays zero).
fn shifted<const N: usize>(d: &[(i64, i32); N], off: &[i64; N]) -> [(i64, i32); N] {
    std::array::from_fn(|c| {
        if d[c].0 == 0 {
            (0, 0)
        } else {
            (d[c].0 + off[c], d[c].1)
        }
    })
}

/// The spelling of `d` (nearest first, then the last digit moved by up to one, then two for
/// three values) whose `dev` is least, and its `dev`; stops at the first within
/// [`GOOD_ENOUGH`].
fn search<const N: usize>(
    d: &[(i64, i32); N],
    dev: impl Fn([f64; N]) -> f64,
) -> ([(i64, i32); N], f64) {
    let mut best = *d;
    let mut best_dev = dev(at(d, &[0; N]));
    if best_dev <= GOOD_ENOUGH {
        return (best, best_dev);
    }
    let radii: &[i64] = if N <= 3 { &[1, 2] } else { &[1] };
    for &r in radii {
        let side = (2 * r + 1) as usize;
        let combos = side.pow(N as u32);
        for idx in 0..combos {
            let mut rest = idx;
            let off: [i64; N] = std::array::from_fn(|_| {
                let o = (rest % side) as i64 - r;
                rest /= side;
                o
            });
            let e = dev(at(d, &off));
            if e < best_dev {
                best_dev = e;
                best = shifted(d, &off);
            }
        }
        if best_dev <= GOOD_ENOUGH {
            break;
        }
    }
    (best, best_dev)
}

/// Every frame of a track: keys as they are, frames between two keys interpolated (slerp and
/// lerp in local space), frames before the first or after the last key held.
fn fill(t: &[Option<Key>]) -> Vec<Key> {
    let keyed: Vec<usize> = (0..t.len()).filter(|&i| t[i].is_some()).collect();
    let mut out = Vec::with_capacity(t.len());
    let mut next = 0;
    for i in 0..t.len() {
        if let Some(v) = t[i] {
            out.push(v);
            continue;
        }
        let t = |j: usize| t[j].map(|k| k.local);
        while next < keyed.len() && keyed[next] < i {
            next += 1;
        }
        let before = next.checked_sub(1).map(|j| keyed[j]);
        let after = keyed.get(next).copied();
        let v = match (before, after) {
            (Some(a), Some(b)) => {
                let (la, lb) = (t(a).expect("keyed"), t(b).expect("keyed"));
                let x = (i - a) as f64 / (b - a) as f64;
                let rb = if la.rot.dot(lb.rot) < 0.0 {
                    -lb.rot
                } else {
                    lb.rot
                };
                Local {
                    rot: la.rot.slerp(rb, x).normalize(),
                    pos: la.pos.lerp(lb.pos, x),
                }
            }
            (Some(a), None) => t(a).expect("keyed"),
            (None, Some(b)) => t(b).expect("keyed"),
            (None, None) => Local {
                rot: glam::DQuat::IDENTITY,
                pos: DVec3::ZERO,
            },
        };
        out.push(Key {
            local: v,
            target: None,
        });
    }
    out
}

#[cfg(test)]
mod tests;
