//! One glTF animation back into a MAN: channels matched to the MDH's nodes by name, sampled at
//! the MAN's frame times, turned back into ZenGin coordinates and packed into 16-bit codes.
//! Everything glTF does not carry comes from the original MAN.
//!
//! **Untouched motion gives the original codes.** A value within half a quantisation step of
//! the original sample (what float noise of the unit and handedness conversion, or of a DCC's
//! round trip, amounts to) keeps the original code; any other value is packed the way the
//! engine packs (rotations normalised, w ≥ 0, round to nearest; positions with the header's
//! range).
//!
//! **Re-oriented bones.** A DCC may give a node another rest orientation (Blender's importer
//! turns bones to point at their children) and writes its motion relative to that. With `W`
//! the MDH's world rest matrices and `G` the file's, the MDH-local motion of node `i` (parent
//! `p`, file parent `q`) is `L = (W_p⁻¹ G_q) · L_file · (G_i⁻¹ W_i)`: identity factors for a
//! file animkit wrote, the bone corrections for a file Blender wrote.

use super::coords::{position_from_gltf, rotation_from_gltf};
use super::read::Document;
use super::skeleton::{trs_matrix, Skeleton};
use super::GltfError;
use crate::exact::F32;
use crate::zengin::man::build::{build, NewMan, Rounding};
use crate::zengin::man::{Chunk, Header, Man, Samples, Source};
use crate::zengin::quant;
use glam::{DMat4, DQuat, DVec3, Vec3};
use gltf_json as json;
use json::accessor::Type;
use json::animation::{Interpolation, Property};
use json::validation::Checked;
use std::collections::HashMap;

/// The most frames an imported animation may have.
pub const MAX_FRAMES: usize = 1_000_000;

#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Sample at this rate and store it in the header (default: the MAN's fps).
    pub fps: Option<f32>,
    /// Recompute position_min/position_scale from all positions and re-pack them.
    pub requantize: bool,
    /// The rates of every animation the file's animations go back into (for the advice on
    /// the scene rate; empty: this MAN's).
    pub rates: Vec<f32>,
}

/// The smallest rate that is a whole multiple of every rate (to 1/1000 fps), e.g. 25 and 10
/// → 50.
pub fn common_rate(rates: &[f32]) -> Option<f32> {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let mut l: u64 = 0;
    for &r in rates {
        let m = (r as f64 * 1000.0).round();
        if !(1.0..1e9).contains(&m) {
            return None;
        }
        let m = m as u64;
        l = if l == 0 { m } else { l / gcd(l, m) * m };
        if l > 1_000_000_000 {
            return None;
        }
    }
    (l > 0).then(|| l as f32 / 1000.0)
}

#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    pub animation: String,
    pub frames_before: usize,
    pub frames: usize,
    /// MAN nodes whose samples came from the file.
    pub nodes_from_file: usize,
    /// MAN nodes without a channel (samples kept).
    pub nodes_kept: Vec<String>,
    /// Samples whose codes differ from the original's.
    pub changed_samples: usize,
    /// How far the file's values of unchanged samples were from the originals, in
    /// quantisation steps (rotation component, position component): the float noise of the
    /// round trip, which must stay below one half.
    pub noise_steps: (f64, f64),
    /// Samples that lie between keys which are the original motion (a file resampled at
    /// another rate): kept as they were.
    pub kept_between_keys: usize,
    /// Samples whose frame time is no key of their node's channels.
    pub between_keys: usize,
    /// Frame times that fall between the file's keys: (count, of, key spacing in s).
    pub off_grid: Option<(usize, usize, f64)>,
    pub warnings: Vec<String>,
}

/// The animation to import: `name`, else the only one, else the one named like the MAN.
pub fn pick_animation(
    doc: &Document,
    name: Option<&str>,
    man_name: &str,
) -> Result<usize, GltfError> {
    let names: Vec<String> = doc
        .root
        .animations
        .iter()
        .enumerate()
        .map(|(i, a)| a.name.clone().unwrap_or_else(|| format!("#{i}")))
        .collect();
    if names.is_empty() {
        return Err(GltfError::at("animations", "the file has no animation"));
    }
    let list = || names.join(", ");
    if let Some(want) = name {
        return names.iter().position(|n| n == want).ok_or_else(|| {
            GltfError::at(
                "animations",
                format!("none is named {want:?} (the file has: {})", list()),
            )
        });
    }
    if names.len() == 1 {
        return Ok(0);
    }
    names.iter().position(|n| n == man_name).ok_or_else(|| {
        GltfError::at(
            "animations",
            format!(
                "the file has {} animations ({}) and none is named like the MAN ({man_name:?}); choose one with --animation NAME",
                names.len(),
                list()
            ),
        )
    })
}

#[derive(Clone, Copy, PartialEq)]
enum Interp {
    Linear,
    Step,
    Cubic,
}

/// One sampler's keys.
struct Track {
    times: Vec<f32>,
    values: Vec<f32>,
    comps: usize,
    interp: Interp,
    rotation: bool,
}

impl Track {
    fn value(&self, k: usize, part: usize) -> [f64; 4] {
        let base = match self.interp {
            Interp::Cubic => (3 * k + part) * self.comps,
            _ => k * self.comps,
        };
        let mut v = [0.0; 4];
        for (c, x) in v.iter_mut().enumerate().take(self.comps) {
            *x = self.values[base + c] as f64;
        }
        v
    }
    fn key(&self, k: usize) -> [f64; 4] {
        self.value(k, 1)
    }
    /// Whether a key lies within `eps` of `t`.
    fn has_key_at(&self, t: f64, eps: f64) -> bool {
        let idx = self.times.partition_point(|&x| (x as f64) < t - eps);
        idx < self.times.len() && (self.times[idx] as f64 - t).abs() <= eps
    }
    /// The value at time `t`; keys within `eps` of `t` are taken as they are.
    fn sample(&self, t: f64, eps: f64) -> [f64; 4] {
        let n = self.times.len();
        let idx = self.times.partition_point(|&x| (x as f64) <= t);
        if idx > 0 && t - self.times[idx - 1] as f64 <= eps {
            return self.key(idx - 1);
        }
        if idx < n && self.times[idx] as f64 - t <= eps {
            return self.key(idx);
        }
        if idx == 0 {
            return self.key(0);
        }
        if idx == n {
            return self.key(n - 1);
        }
        let (i, j) = (idx - 1, idx);
        let (ti, tj) = (self.times[i] as f64, self.times[j] as f64);
        let dt = tj - ti;
        let u = if dt > 0.0 { (t - ti) / dt } else { 0.0 };
        match self.interp {
            Interp::Step => self.key(i),
            Interp::Linear if self.rotation => {
                let a = DQuat::from_array(self.key(i)).normalize();
                let b = DQuat::from_array(self.key(j)).normalize();
                a.slerp(b, u).to_array()
            }
            Interp::Linear => {
                let (a, b) = (self.key(i), self.key(j));
                std::array::from_fn(|c| a[c] + (b[c] - a[c]) * u)
            }
            Interp::Cubic => {
                let (vi, bi) = (self.key(i), self.value(i, 2));
                let (vj, aj) = (self.key(j), self.value(j, 0));
                let (u2, u3) = (u * u, u * u * u);
                let mut r: [f64; 4] = std::array::from_fn(|c| {
                    (2.0 * u3 - 3.0 * u2 + 1.0) * vi[c]
                        + (u3 - 2.0 * u2 + u) * dt * bi[c]
                        + (-2.0 * u3 + 3.0 * u2) * vj[c]
                        + (u3 - u2) * dt * aj[c]
                });
                if self.rotation {
                    r = DQuat::from_array(r).normalize().to_array();
                }
                r
            }
        }
    }
}

/// The channels of one file node.
#[derive(Default)]
struct NodeTracks {
    rotation: Option<(usize, Track)>,
    translation: Option<(usize, Track)>,
    scale: Option<(usize, Track)>,
}

fn read_track(doc: &Document, a: usize, c: usize, path: Property) -> Result<Track, GltfError> {
    let anim = &doc.root.animations[a];
    let ch = &anim.channels[c];
    let s = ch.sampler.value();
    let spath = format!("animations[{a}].samplers[{s}]");
    let sampler = anim.samplers.get(s).ok_or_else(|| {
        GltfError::at(
            format!("animations[{a}].channels[{c}].sampler"),
            format!("sampler {s} does not exist"),
        )
    })?;
    let interp = match sampler.interpolation {
        Checked::Valid(Interpolation::Linear) => Interp::Linear,
        Checked::Valid(Interpolation::Step) => Interp::Step,
        Checked::Valid(Interpolation::CubicSpline) => Interp::Cubic,
        Checked::Invalid => {
            return Err(GltfError::at(
                format!("{spath}.interpolation"),
                "unknown interpolation",
            ))
        }
    };
    let times = doc.floats(
        sampler.input.value(),
        Type::Scalar,
        false,
        &format!("{spath}.input"),
    )?;
    let (want, rotation) = match path {
        Property::Rotation => (Type::Vec4, true),
        _ => (Type::Vec3, false),
    };
    let values = doc.floats(
        sampler.output.value(),
        want,
        rotation,
        &format!("{spath}.output"),
    )?;
    if times.is_empty() {
        return Err(GltfError::at(format!("{spath}.input"), "has no keys"));
    }
    // The glTF specification requires every key time ≥ 0 (times are seconds from the start).
    if let Some(k) = times.iter().position(|&t| t < 0.0) {
        return Err(GltfError::at(
            format!("{spath}.input"),
            format!(
                "key {k} is at {} s, but glTF key times cannot be negative",
                times[k]
            ),
        ));
    }
    if let Some(k) = times.windows(2).position(|w| w[1] <= w[0]) {
        return Err(GltfError::at(
            format!("{spath}.input"),
            format!(
                "key times must increase: key {} ({}) follows key {k} ({})",
                k + 1,
                times[k + 1],
                times[k]
            ),
        ));
    }
    let comps = if rotation { 4 } else { 3 };
    let per_key = if interp == Interp::Cubic { 3 } else { 1 };
    if values.len() != times.len() * comps * per_key {
        return Err(GltfError::at(
            &spath,
            format!(
                "input has {} keys, output has {} values ({} expected for {} keys{})",
                times.len(),
                values.len() / comps,
                times.len() * per_key,
                times.len(),
                if per_key == 3 {
                    " with in- and out-tangents"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(Track {
        times,
        values,
        comps,
        interp,
        rotation,
    })
}

fn near_identity(m: &DMat4) -> bool {
    m.abs_diff_eq(DMat4::IDENTITY, 1e-9)
}

/// A MAN column: its MDH node and the file node whose channels drive it (none: kept).
type Column = (usize, Option<usize>);

/// A sample's new position: a value (cm) to pack, or the original codes kept.
type Position = Result<DVec3, [u16; 3]>;

/// What every phase of [`import_animation`] reads.
struct Ctx<'a> {
    doc: &'a Document,
    anim: usize,
    /// `animations[i] (name)`, for messages.
    apath: String,
    sk: &'a Skeleton,
    header: &'a Header,
    samples: &'a Samples,
    fps: f32,
    /// One frame's duration, s.
    frame_dt: f64,
    /// Keys within this of a frame time are taken as they are.
    eps: f64,
}

impl Ctx<'_> {
    /// The original codes of frame `f`, column `k` (none past the original's end).
    fn orig(&self, f: usize, k: usize) -> Option<[u16; 6]> {
        let n = self.samples.node_indices.len();
        (f < self.samples.frame_count()).then(|| self.samples.codes[f * n + k])
    }
}

/// The name of the file's animation `anim` (`#N` when it has none); an error when there is
/// no such animation.
fn animation_name(doc: &Document, anim: usize) -> Result<String, GltfError> {
    let animation =
        doc.root.animations.get(anim).ok_or_else(|| {
            GltfError::at("animations", format!("animation {anim} does not exist"))
        })?;
    Ok(animation.name.clone().unwrap_or_else(|| format!("#{anim}")))
}

/// Import animation `anim` of `doc` into a copy of `man` (made for skeleton `sk`), phase by
/// phase: file nodes matched to MDH nodes by name, the channels read, the MAN's columns tied
/// to them, the frame count, the columns sampled, the rest checked, the codes packed.
pub fn import_animation(
    doc: &Document,
    anim: usize,
    sk: &Skeleton,
    man: &Man,
    opts: &ImportOptions,
) -> Result<(Man, ImportReport), GltfError> {
    let aname = animation_name(doc, anim)?;
    let header = man
        .header()
        .ok_or_else(|| GltfError::new("the MAN has no header chunk (0xA020)"))?;
    let samples = man
        .samples()
        .ok_or_else(|| GltfError::new("the MAN has no samples chunk (0xA090)"))?;
    let fps = opts.fps.unwrap_or(header.fps.get());
    if !(fps.is_finite() && fps > 0.0) {
        return Err(GltfError::new(format!(
            "the MAN's header.fps is {fps}: its frame times are unknown; pass --fps"
        )));
    }
    let frame_dt = 1.0 / fps as f64;
    let cx = Ctx {
        doc,
        anim,
        apath: format!("animations[{anim}] ({aname})"),
        sk,
        header,
        samples,
        fps,
        frame_dt,
        eps: 1e-3 * frame_dt,
    };
    let mut report = ImportReport {
        animation: aname,
        frames_before: samples.frame_count(),
        ..Default::default()
    };
    let (file_node, sk_of_file) = match_nodes(doc, sk)?;
    let (tracks, unmatched) = channel_tracks(&cx, &sk_of_file)?;
    let columns = man_columns(&cx, &file_node, &tracks)?;
    let driven: Vec<usize> = columns.iter().filter_map(|c| c.1).collect();
    if driven.is_empty() {
        return Err(nothing_driven(&cx, &columns, unmatched));
    }
    let frames = frame_count(&cx, &tracks, &driven, opts, &mut report)?;
    let (rot_codes, positions) = sample_columns(&cx, &tracks, &columns, frames, &mut report)?;
    if let Some((_, _, spacing)) = report.off_grid {
        // Frames between keys that are the original motion kept their samples; the others
        // were interpolated.
        let of = frames * columns.iter().filter(|c| c.1.is_some()).count();
        let interpolated = report.between_keys.saturating_sub(report.kept_between_keys);
        if interpolated > 0 {
            let mut rates = opts.rates.clone();
            if rates.is_empty() {
                rates.push(fps);
            }
            let scene = common_rate(&rates);
            let mut listed: Vec<String> = rates.iter().map(|r| r.to_string()).collect();
            listed.dedup();
            report.warnings.push(format!(
                "{}: {interpolated} of {of} samples fall between the file's keys (keys {spacing:.6} s apart, {:.3} per second; the MAN has {fps} fps) and are not the original motion there, so they are interpolated. A file from Blender: set Blender's frame rate to {} before importing into Blender{}",
                cx.apath,
                if spacing > 0.0 { 1.0 / spacing } else { 0.0 },
                scene.map_or_else(|| format!("a whole multiple of {}", listed.join(", ")), |r| r.to_string()),
                if listed.len() > 1 {
                    format!(" (a whole multiple of every animation's rate: {})", listed.join(", "))
                } else {
                    String::new()
                }
            ));
        }
    }
    warn_undriven(&cx, &tracks, &sk_of_file, &driven, &mut report);
    let (codes, min, scale) = pack_codes(&cx, &columns, &rot_codes, &positions, opts)?;
    let n = columns.len();
    report.changed_samples = codes
        .iter()
        .enumerate()
        .filter(|(i, c)| cx.orig(i / n, i % n).is_none_or(|o| o != **c))
        .count();
    let out = rebuilt(man, codes, frames, (min, scale), opts, &mut report);
    Ok((out, report))
}

/// What a new animation is made with (the `ani` statement's values, and the MAN's source).
#[derive(Debug, Clone)]
pub struct NewOptions {
    pub name: String,
    pub next: String,
    pub layer: u32,
    /// Sample at this rate (default: the rate of the file's keys, else 25).
    pub fps: Option<f32>,
    pub rounding: Rounding,
    /// The source chunk's path and script line.
    pub source_path: String,
    pub script: String,
}

/// What [`new_animation`] made.
#[derive(Debug, Clone, Default)]
pub struct NewReport {
    pub animation: String,
    pub frames: usize,
    pub fps: f32,
    /// The MDH nodes the MAN animates.
    pub nodes: Vec<String>,
    /// MDH nodes with channels that hold the rest pose throughout: left out.
    pub at_rest: Vec<String>,
    pub warnings: Vec<String>,
}

/// The rate of a file's keys: one over the smallest key spacing of the animation's rotation
/// and translation channels, rounded to 1/1000 (a DCC exports at its scene rate); `None`
/// without two keys.
pub fn key_rate(doc: &Document, anim: usize) -> Option<f32> {
    let a = doc.root.animations.get(anim)?;
    let mut dt = f64::INFINITY;
    for (c, ch) in a.channels.iter().enumerate() {
        let path = match ch.target.path {
            Checked::Valid(p @ (Property::Rotation | Property::Translation)) => p,
            _ => continue,
        };
        let Ok(t) = read_track(doc, anim, c, path) else {
            continue;
        };
        for w in t.times.windows(2) {
            dt = dt.min((w[1] - w[0]) as f64);
        }
    }
    (dt.is_finite() && dt > 0.0).then(|| ((1.0 / dt) * 1000.0).round() as f32 / 1000.0)
}

/// What an animation of a glTF file holds (for `info`): read and checked like an import.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationFacts {
    pub name: String,
    pub channels: usize,
    /// The last key's time, s.
    pub duration: f64,
    /// The rate of its keys ([`key_rate`]).
    pub rate: Option<f32>,
}

/// The facts of animation `anim`; a bad channel is an error with its JSON path.
pub fn facts(doc: &Document, anim: usize) -> Result<AnimationFacts, GltfError> {
    let a =
        doc.root.animations.get(anim).ok_or_else(|| {
            GltfError::at("animations", format!("animation {anim} does not exist"))
        })?;
    let mut duration = 0.0f64;
    for (c, ch) in a.channels.iter().enumerate() {
        let path = match ch.target.path {
            Checked::Valid(Property::MorphTargetWeights) => continue,
            Checked::Valid(p) => p,
            Checked::Invalid => {
                return Err(GltfError::at(
                    format!("animations[{anim}].channels[{c}].target.path"),
                    "unknown path",
                ))
            }
        };
        let t = read_track(doc, anim, c, path)?;
        duration = duration.max(*t.times.last().unwrap_or(&0.0) as f64);
    }
    Ok(AnimationFacts {
        name: a.name.clone().unwrap_or_else(|| format!("#{anim}")),
        channels: a.channels.len(),
        duration,
        rate: key_rate(doc, anim),
    })
}

/// A new MAN from animation `anim` of `doc` for skeleton `sk` (checksum `sk.checksum`), with
/// the engine's header rules: the MDH nodes whose motion leaves the rest pose (in MDH order),
/// sampled at the frame times from 0 to the last key, the position range of that motion, no
/// events, the bbox as the ASC compile makes it (node positions relative to the root).
pub fn new_animation(
    doc: &Document,
    anim: usize,
    sk: &Skeleton,
    opts: &NewOptions,
) -> Result<(Man, NewReport), GltfError> {
    let aname = animation_name(doc, anim)?;
    let fps = opts.fps.or_else(|| key_rate(doc, anim)).unwrap_or(25.0);
    if !(fps.is_finite() && fps > 0.0) {
        return Err(GltfError::new(format!("fps {fps}: needs a positive rate")));
    }
    let frame_dt = 1.0 / fps as f64;
    let mut header = Header {
        version: 12,
        name: crate::exact::Text::new(opts.name.as_bytes().to_vec()),
        layer: opts.layer,
        frame_count: 0,
        node_count: 0,
        fps: F32::new(fps),
        fps_source: F32::new(fps),
        position_min: F32::new(0.0),
        position_scale: F32::new(1.0),
        bbox: Default::default(),
        next: crate::exact::Text::new(Vec::new()),
        trailing: Default::default(),
    };
    let mut samples = Samples {
        checksum: crate::exact::Hex32(sk.checksum),
        node_indices: Vec::new(),
        codes: Vec::new(),
        trailing: Default::default(),
    };
    let apath = format!("animations[{anim}] ({aname})");
    let (file_node, sk_of_file) = match_nodes(doc, sk)?;
    let tracks = {
        let cx = Ctx {
            doc,
            anim,
            apath: apath.clone(),
            sk,
            header: &header,
            samples: &samples,
            fps,
            frame_dt,
            eps: 1e-3 * frame_dt,
        };
        channel_tracks(&cx, &sk_of_file)?.0
    };
    samples.node_indices = (0..sk.len())
        .filter(|&i| file_node[i].is_some_and(|f| tracks.contains_key(&f)))
        .map(|i| i as u32)
        .collect();
    header.node_count = samples.node_indices.len() as u32;
    let cx = Ctx {
        doc,
        anim,
        apath,
        sk,
        header: &header,
        samples: &samples,
        fps,
        frame_dt,
        eps: 1e-3 * frame_dt,
    };
    let columns = man_columns(&cx, &file_node, &tracks)?;
    let driven: Vec<usize> = columns.iter().filter_map(|c| c.1).collect();
    if driven.is_empty() {
        return Err(GltfError::at(
            &cx.apath,
            format!(
                "none of its channels drives a node of the model hierarchy {} (its nodes are named like {})",
                sk.model,
                sk.names.iter().take(4).cloned().collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let mut ir = ImportReport {
        animation: aname.clone(),
        frames_before: 1,
        ..Default::default()
    };
    let frames = frame_count(&cx, &tracks, &driven, &ImportOptions::default(), &mut ir)?;
    let file_world = doc.world_rest();
    let rot_tol = 0.5 * quant::ROT_SCALE as f64;
    let mut report = NewReport {
        animation: aname,
        frames,
        fps,
        warnings: ir.warnings,
        ..Default::default()
    };
    // Each column's values; columns at rest throughout are left out.
    let mut kept: Vec<(usize, Vec<(DQuat, DVec3)>)> = Vec::new();
    for &(node, f) in &columns {
        let Some(f) = f else { continue };
        let t = &tracks[&f];
        report.warnings.extend(scale_warning(&cx, t, node));
        let values: Vec<(DQuat, DVec3)> = column_values(&cx, t, node, f, frames, &file_world)
            .into_iter()
            .map(|(q, p)| {
                let q = q.normalize();
                (if q.w < 0.0 { -q } else { q }, p)
            })
            .collect();
        let rest = &sk.rest[node];
        let rest_q =
            rotation_from_gltf(DQuat::from_array(rest.rotation.map(f64::from)).normalize());
        let rest_p = position_from_gltf(DVec3::from_array(rest.translation.map(f64::from)));
        let moves = values
            .iter()
            .any(|(q, p)| rotation_distance(*q, rest_q) > rot_tol || p.distance(rest_p) > 1e-3);
        if moves {
            report.nodes.push(sk.names[node].clone());
            kept.push((node, values));
        } else {
            report.at_rest.push(sk.names[node].clone());
        }
    }
    if kept.is_empty() {
        return Err(GltfError::at(
            &cx.apath,
            "every node it drives holds the model's rest pose: no motion to make an animation of",
        ));
    }
    let locals: Vec<(DQuat, DVec3)> = (0..frames)
        .flat_map(|fr| kept.iter().map(move |(_, v)| v[fr]))
        .collect();
    let bbox = motion_bbox(sk, &kept, frames);
    let man = build(&NewMan {
        name: opts.name.as_bytes(),
        next: opts.next.as_bytes(),
        layer: opts.layer,
        fps,
        fps_source: fps,
        checksum: sk.checksum,
        node_indices: kept.iter().map(|(n, _)| *n as u32).collect(),
        locals: &locals,
        rounding: opts.rounding,
        position_range: None,
        bbox,
        source: Source {
            date: Default::default(),
            path: crate::exact::Text::new(opts.source_path.as_bytes().to_vec()),
            script: crate::exact::Text::new(opts.script.as_bytes().to_vec()),
            trailing: Default::default(),
        },
    })
    .map_err(|e| GltfError::at(&cx.apath, e))?;
    Ok((man, report))
}

/// The extent of the node positions relative to the root over the motion (MAN space), as the
/// ASC compile writes it.
fn motion_bbox(
    sk: &Skeleton,
    kept: &[(usize, Vec<(DQuat, DVec3)>)],
    frames: usize,
) -> crate::zengin::types::BBox {
    use super::coords::{position_to_gltf, rotation_to_gltf};
    let mut lo = DVec3::splat(f64::INFINITY);
    let mut hi = DVec3::splat(f64::NEG_INFINITY);
    let mut world = vec![DMat4::IDENTITY; sk.len()];
    for fr in 0..frames {
        for i in 0..sk.len() {
            let local = match kept.iter().find(|(n, _)| *n == i) {
                Some((_, v)) => {
                    let (q, p) = v[fr];
                    let r = rotation_to_gltf(q.as_quat().to_array()).map(f64::from);
                    let t = position_to_gltf(p.as_vec3().to_array()).map(f64::from);
                    trs_matrix(
                        DVec3::from_array(t),
                        DQuat::from_array(r).normalize(),
                        DVec3::ONE,
                    )
                }
                None => sk.rest[i].matrix(),
            };
            world[i] = match sk.parents[i] {
                // Parents come first in an MDH; a later parent uses its rest.
                Some(p) if p < i => world[p] * local,
                Some(p) => sk.world[p] * local,
                None => local,
            };
        }
        let root = sk.parents.iter().position(Option::is_none).unwrap_or(0);
        let r = world[root].w_axis.truncate();
        for (&(n, _), _) in kept.iter().zip(0..) {
            let d = position_from_gltf(world[n].w_axis.truncate() - r);
            lo = lo.min(d);
            hi = hi.max(d);
        }
    }
    let f3 = |v: DVec3| {
        [
            F32::new(v.x as f32),
            F32::new(v.y as f32),
            F32::new(v.z as f32),
        ]
    };
    if lo.x.is_finite() {
        crate::zengin::types::BBox {
            min: f3(lo),
            max: f3(hi),
        }
    } else {
        Default::default()
    }
}

/// Each MDH node's file node (by name; two file nodes of one name are refused), and each file
/// node's MDH node.
#[allow(clippy::type_complexity)]
fn match_nodes(
    doc: &Document,
    sk: &Skeleton,
) -> Result<(Vec<Option<usize>>, Vec<Option<usize>>), GltfError> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, n) in doc.root.nodes.iter().enumerate() {
        if let Some(name) = n.name.as_deref() {
            by_name.entry(name).or_default().push(i);
        }
    }
    let mut file_node = vec![None; sk.len()];
    for (i, name) in sk.names.iter().enumerate() {
        match by_name.get(name.as_str()).map(Vec::as_slice) {
            None | Some([]) => {}
            Some([one]) => file_node[i] = Some(*one),
            Some(many) => {
                return Err(GltfError::at(
                    format!("nodes[{}]", many[1]),
                    format!(
                        "nodes {} are all named {name:?}; the MDH node cannot be told apart",
                        many.iter()
                            .map(usize::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        }
    }
    let mut sk_of_file = vec![None; doc.root.nodes.len()];
    for (i, f) in file_node.iter().enumerate() {
        if let Some(f) = f {
            sk_of_file[*f] = Some(i);
        }
    }
    Ok((file_node, sk_of_file))
}

/// The channels of the animation per file node of an MDH node, and the names of the nodes
/// driven that are not in the MDH.
fn channel_tracks(
    cx: &Ctx<'_>,
    sk_of_file: &[Option<usize>],
) -> Result<(HashMap<usize, NodeTracks>, Vec<String>), GltfError> {
    let (doc, anim) = (cx.doc, cx.anim);
    let mut tracks: HashMap<usize, NodeTracks> = HashMap::new();
    let mut unmatched = Vec::new();
    for (c, ch) in doc.root.animations[anim].channels.iter().enumerate() {
        let node = ch.target.node.value();
        let cpath = format!("animations[{anim}].channels[{c}]");
        let path = match ch.target.path {
            Checked::Valid(p) => p,
            Checked::Invalid => {
                return Err(GltfError::at(
                    format!("{cpath}.target.path"),
                    "unknown path",
                ))
            }
        };
        if path == Property::MorphTargetWeights {
            continue;
        }
        if node >= doc.root.nodes.len() {
            return Err(GltfError::at(
                format!("{cpath}.target.node"),
                format!("node {node} does not exist"),
            ));
        }
        if sk_of_file[node].is_none() {
            unmatched.push(
                doc.root.nodes[node]
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("nodes[{node}]")),
            );
            continue;
        }
        let track = read_track(doc, anim, c, path)?;
        let t = tracks.entry(node).or_default();
        let slot = match path {
            Property::Rotation => &mut t.rotation,
            Property::Translation => &mut t.translation,
            _ => &mut t.scale,
        };
        if let Some((first, _)) = slot {
            return Err(GltfError::at(
                &cpath,
                format!("channels[{first}] already drives the same property of node {node}"),
            ));
        }
        *slot = Some((c, track));
    }
    Ok((tracks, unmatched))
}

/// The MAN's columns and the file node driving each.
fn man_columns(
    cx: &Ctx<'_>,
    file_node: &[Option<usize>],
    tracks: &HashMap<usize, NodeTracks>,
) -> Result<Vec<Column>, GltfError> {
    let sk = cx.sk;
    let mut columns = Vec::with_capacity(cx.samples.node_indices.len());
    for (k, &idx) in cx.samples.node_indices.iter().enumerate() {
        let node = idx as usize;
        if node >= sk.len() {
            return Err(GltfError::new(format!(
                "the MAN's samples.node_indices[{k}] = {idx}, but the MDH has only {} nodes",
                sk.len()
            )));
        }
        let f = file_node[node].filter(|f| tracks.contains_key(f));
        columns.push((node, f));
    }
    Ok(columns)
}

/// The error when no channel drives a node the MAN animates.
fn nothing_driven(cx: &Ctx<'_>, columns: &[Column], mut unmatched: Vec<String>) -> GltfError {
    let man_nodes: Vec<&str> = columns
        .iter()
        .map(|c| cx.sk.names[c.0].as_str())
        .take(8)
        .collect();
    unmatched.dedup();
    unmatched.truncate(8);
    GltfError::at(
        &cx.apath,
        format!(
            "none of its channels drives a node the MAN animates (the MAN animates {}{}; the channels drive {})",
            man_nodes.join(", "),
            if columns.len() > 8 { ", ..." } else { "" },
            if unmatched.is_empty() {
                "no node of the MDH".to_string()
            } else {
                unmatched.join(", ")
            }
        ),
    )
}

/// The frame count from the keys of the channels used (warning when the first key is late or
/// keys fall off the MAN's frame grid).
fn frame_count(
    cx: &Ctx<'_>,
    tracks: &HashMap<usize, NodeTracks>,
    driven: &[usize],
    opts: &ImportOptions,
    report: &mut ImportReport,
) -> Result<usize, GltfError> {
    let (fps, apath, frame_dt, eps) = (cx.fps, &cx.apath, cx.frame_dt, cx.eps);
    let n = cx.samples.node_indices.len();
    let (mut t_min, mut t_max) = (f64::INFINITY, f64::NEG_INFINITY);
    for f in driven {
        let t = &tracks[f];
        for (_, tr) in [&t.rotation, &t.translation].into_iter().flatten() {
            t_min = t_min.min(tr.times[0] as f64);
            t_max = t_max.max(*tr.times.last().unwrap_or(&0.0) as f64);
        }
    }
    if !t_max.is_finite() {
        // Only scale channels: no motion to take.
        t_min = 0.0;
        t_max = (report.frames_before.max(1) - 1) as f64 / fps as f64;
    }
    let frames_f = (t_max.max(0.0) * fps as f64).round() + 1.0;
    if frames_f > MAX_FRAMES as f64 || frames_f * n as f64 * 12.0 > (1u64 << 31) as f64 {
        return Err(GltfError::at(
            apath,
            format!(
                "lasts {t_max} s, {frames_f} frames at {fps} fps: more than animkit writes into a MAN"
            ),
        ));
    }
    let frames = frames_f as usize;
    report.frames = frames;
    if t_min > 0.5 * frame_dt {
        report.warnings.push(format!(
            "{apath}: its first key is at {t_min} s (frame {} at {fps} fps); frames before it hold the first key. In Blender set the scene's start frame to 0 before exporting",
            (t_min * fps as f64).round()
        ));
    }
    // Keys off the MAN's frame grid (a file from Blender imported at another scene rate):
    // the values in between are interpolated, which no longer reproduces the original codes.
    let mut off_grid = (0usize, 0usize, 0.0f64);
    for f in driven {
        for (_, tr) in [&tracks[f].rotation, &tracks[f].translation]
            .into_iter()
            .flatten()
        {
            let inside = (0..frames).map(|fr| fr as f64 * frame_dt).filter(|&t| {
                t >= tr.times[0] as f64 - eps && t <= *tr.times.last().unwrap_or(&0.0) as f64 + eps
            });
            for t in inside {
                off_grid.1 += 1;
                if !tr.has_key_at(t, eps) {
                    off_grid.0 += 1;
                }
            }
            if tr.times.len() >= 2 {
                off_grid.2 = (tr.times[1] - tr.times[0]) as f64;
            }
        }
    }
    if off_grid.0 > 0 && opts.fps.is_none() {
        report.off_grid = Some(off_grid);
        // Keys further apart than the MAN's frames (a file resampled at a lower rate) cannot
        // place the last frame: an end within one key spacing of the MAN's is the MAN's.
        let spacing = off_grid.2;
        let end = (report.frames_before.max(1) - 1) as f64 * frame_dt;
        if report.frames_before > 0
            && frames != report.frames_before
            && spacing > frame_dt + eps
            && (end - t_max).abs() < spacing - eps
        {
            report.frames = report.frames_before;
            return Ok(report.frames_before);
        }
    }
    Ok(frames)
}

/// The warning for a scale channel that changes (a MAN holds no scale).
fn scale_warning(cx: &Ctx<'_>, t: &NodeTracks, node: usize) -> Option<String> {
    let (c, s) = t.scale.as_ref()?;
    let worst = s
        .values
        .iter()
        .map(|v| (*v as f64 - 1.0).abs())
        .fold(0.0, f64::max);
    (worst > 1e-4).then(|| {
        format!(
            "animations[{}].channels[{c}]: the scale of {} changes (by up to {worst:.4}); a MAN holds no scale, it is ignored",
            cx.anim, cx.sk.names[node]
        )
    })
}

/// Every column sampled at every frame: new rotation codes, and positions (values in cm, or
/// the original codes when within half a step of them).
fn sample_columns(
    cx: &Ctx<'_>,
    tracks: &HashMap<usize, NodeTracks>,
    columns: &[Column],
    frames: usize,
    report: &mut ImportReport,
) -> Result<(Vec<[u16; 3]>, Vec<Position>), GltfError> {
    let (doc, sk, n) = (cx.doc, cx.sk, columns.len());
    let file_world = doc.world_rest();
    let old_frames = report.frames_before;
    let (min0, scale0) = (cx.header.position_min.get(), cx.header.position_scale.get());
    let pos_tol = if scale0.is_finite() && scale0 > 0.0 {
        0.5 * scale0 as f64
    } else {
        1e-3
    };
    let rot_tol = 0.5 * quant::ROT_SCALE as f64;
    let mut rot_codes: Vec<[u16; 3]> = vec![[0; 3]; frames * n];
    let mut positions: Vec<Position> = vec![Err([0; 3]); frames * n];
    for (k, &(node, f)) in columns.iter().enumerate() {
        let Some(f) = f else {
            report.nodes_kept.push(sk.names[node].clone());
            for fr in 0..frames {
                let c = cx
                    .orig(fr.min(old_frames.saturating_sub(1)), k)
                    .unwrap_or([32767, 32767, 32767, 0, 0, 0]);
                rot_codes[fr * n + k] = [c[0], c[1], c[2]];
                positions[fr * n + k] = Err([c[3], c[4], c[5]]);
            }
            continue;
        };
        report.nodes_from_file += 1;
        let t = &tracks[&f];
        report.warnings.extend(scale_warning(cx, t, node));
        let values = column_values(cx, t, node, f, frames, &file_world);
        let keys = key_matches(cx, t, node, f, k, &file_world, (rot_tol, pos_tol));
        for (fr, &(q, p)) in values.iter().enumerate() {
            let o = cx.orig(fr, k);
            // Between two keys that are the original motion (a file resampled at another
            // rate, e.g. by Blender at another scene rate): the original sample.
            let time = fr as f64 * cx.frame_dt;
            if !keys.is_empty() && !on_key(&keys, time, cx.eps) {
                report.between_keys += 1;
            }
            if let Some(o) = o.filter(|_| between_original_keys(&keys, time, cx.eps, cx.frame_dt)) {
                rot_codes[fr * n + k] = [o[0], o[1], o[2]];
                positions[fr * n + k] = Err([o[3], o[4], o[5]]);
                report.kept_between_keys += 1;
                continue;
            }
            let code = rotation_code(q, o.map(|c| [c[0], c[1], c[2]]), rot_tol);
            if let (Ok(c), Some(o)) = (&code, o) {
                if c[..] == o[..3] {
                    let d = rotation_distance(q, quant::engine_rotation(*c).as_dquat());
                    report.noise_steps.0 = report.noise_steps.0.max(d / quant::ROT_SCALE as f64);
                }
            }
            rot_codes[fr * n + k] = code.map_err(|m| {
                GltfError::new(format!(
                    "{}: frame {fr}, node {} ({}): {m}",
                    cx.apath, node, sk.names[node]
                ))
            })?;
            positions[fr * n + k] = match o {
                Some(c)
                    if (0..3).all(|a| {
                        (quant::unpack_position(c[3 + a], min0, scale0) as f64 - p[a]).abs()
                            <= pos_tol
                    }) =>
                {
                    for a in 0..3 {
                        let d =
                            (quant::unpack_position(c[3 + a], min0, scale0) as f64 - p[a]).abs();
                        report.noise_steps.1 = report.noise_steps.1.max(d / (2.0 * pos_tol));
                    }
                    Err([c[3], c[4], c[5]])
                }
                _ => Ok(p),
            };
        }
    }
    Ok((rot_codes, positions))
}

/// The MDH-local motion (ZenGin coordinates: rotation, position in cm) of MDH node `node`,
/// driven by file node `f`, at every frame: the channels sampled at the frame times, with the
/// rest-pose compensation of the module's description.
fn column_values(
    cx: &Ctx<'_>,
    t: &NodeTracks,
    node: usize,
    f: usize,
    frames: usize,
    file_world: &[DMat4],
) -> Vec<(DQuat, DVec3)> {
    (0..frames)
        .map(|fr| value_at(cx, t, node, f, fr as f64 * cx.frame_dt, file_world))
        .collect()
}

/// [`column_values`] at one time `time` (s).
fn value_at(
    cx: &Ctx<'_>,
    t: &NodeTracks,
    node: usize,
    f: usize,
    time: f64,
    file_world: &[DMat4],
) -> (DQuat, DVec3) {
    let (doc, sk) = (cx.doc, cx.sk);
    let world_of = |f: Option<usize>| f.map_or(DMat4::IDENTITY, |f| file_world[f]);
    let kpre = sk.parents[node].map_or(DMat4::IDENTITY, |p| sk.world[p].inverse())
        * world_of(doc.parents[f]);
    let kpost = file_world[f].inverse() * sk.world[node];
    let direct = near_identity(&kpre) && near_identity(&kpost);
    let (rest_t, rest_r, rest_s) = doc.rest_trs(f);
    let tr = t.translation.as_ref().map_or(rest_t, |(_, s)| {
        let v = s.sample(time, cx.eps);
        DVec3::new(v[0], v[1], v[2])
    });
    let ro = t.rotation.as_ref().map_or(rest_r, |(_, s)| {
        DQuat::from_array(s.sample(time, cx.eps)).normalize()
    });
    let (tl, rl) = if direct {
        (tr, ro)
    } else {
        let m = kpre * trs_matrix(tr, ro, rest_s.signum()) * kpost;
        let (_, r, t) = m.to_scale_rotation_translation();
        (t, r.normalize())
    };
    (rotation_from_gltf(rl), position_from_gltf(tl))
}

/// Each key time of a column's channels (rotation and translation together, in order) and
/// whether the file's value there is the original motion: the MAN's decoded samples
/// interpolated at that time (normalised linear interpolation of rotations, as a DCC evaluates
/// them, or slerp; linear positions; the last frame held after the end), within `tol`.
fn key_matches(
    cx: &Ctx<'_>,
    t: &NodeTracks,
    node: usize,
    f: usize,
    k: usize,
    file_world: &[DMat4],
    (rot_tol, pos_tol): (f64, f64),
) -> Vec<(f64, bool)> {
    let frames = cx.samples.frame_count();
    if frames == 0 {
        return Vec::new();
    }
    let mut times: Vec<f64> = [&t.rotation, &t.translation]
        .into_iter()
        .flatten()
        .flat_map(|(_, tr)| tr.times.iter().map(|&x| x as f64))
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup_by(|a, b| (*a - *b).abs() <= cx.eps);
    let (min0, scale0) = (cx.header.position_min.get(), cx.header.position_scale.get());
    let decoded = |fr: usize| {
        let c = cx.orig(fr, k).unwrap_or([32767, 32767, 32767, 0, 0, 0]);
        let q = quant::engine_rotation([c[0], c[1], c[2]]).as_dquat();
        let p = DVec3::from_array(
            [c[3], c[4], c[5]].map(|c| quant::unpack_position(c, min0, scale0) as f64),
        );
        (q, p)
    };
    times
        .into_iter()
        .map(|time| {
            let (q, p) = value_at(cx, t, node, f, time, file_world);
            let u = time * cx.fps as f64;
            let f0 = (u.floor().max(0.0) as usize).min(frames - 1);
            let f1 = (f0 + 1).min(frames - 1);
            let w = if f1 == f0 {
                0.0
            } else {
                (u - f0 as f64).clamp(0.0, 1.0)
            };
            let ((qa, pa), (qb, pb)) = (decoded(f0), decoded(f1));
            let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
            let nlerp = (qa * (1.0 - w) + qb * w).normalize();
            let slerp = qa.slerp(qb, w);
            let po = pa.lerp(pb, w);
            let rot_ok = rotation_distance(q, nlerp).min(rotation_distance(q, slerp)) <= rot_tol;
            let pos_ok = (0..3).all(|a| (p[a] - po[a]).abs() <= pos_tol);
            (time, rot_ok && pos_ok)
        })
        .collect()
}

fn on_key(keys: &[(f64, bool)], time: f64, eps: f64) -> bool {
    let idx = keys.partition_point(|k| k.0 < time - eps);
    idx < keys.len() && (keys[idx].0 - time).abs() <= eps
}

/// Whether `time` lies strictly between two keys (or after the last, or before the first)
/// that are all the original motion, and on none of them, where the keys are at another rate
/// than the MAN's frames (their spacing no whole number of frames `frame_dt`): a resampled
/// file. Keys a whole number of frames apart (keyframes of an edit at the MAN's rate) are
/// interpolated as they are.
fn between_original_keys(keys: &[(f64, bool)], time: f64, eps: f64, frame_dt: f64) -> bool {
    if keys.len() < 2 || on_key(keys, time, eps) {
        return false;
    }
    let idx = keys.partition_point(|k| k.0 < time - eps);
    let (a, b) = match idx {
        0 => (0, 1),
        i if i >= keys.len() => (keys.len() - 2, keys.len() - 1),
        i => (i - 1, i),
    };
    let frames_apart = (keys[b].0 - keys[a].0) / frame_dt;
    if (frames_apart - frames_apart.round()).abs() < 1e-3 {
        return false;
    }
    let prev = idx.checked_sub(1).map(|i| keys[i].1);
    let next = keys.get(idx).map(|k| k.1);
    match (prev, next) {
        (Some(a), Some(b)) => a && b,
        (Some(a), None) => a,
        (None, Some(b)) => b,
        (None, None) => false,
    }
}

/// Channels of MDH nodes the MAN does not animate: ignored while they hold the rest pose,
/// else a warning.
fn warn_undriven(
    cx: &Ctx<'_>,
    tracks: &HashMap<usize, NodeTracks>,
    sk_of_file: &[Option<usize>],
    driven: &[usize],
    report: &mut ImportReport,
) {
    for (&f, t) in tracks {
        let Some(node) = sk_of_file[f] else { continue };
        if driven.contains(&f) {
            continue;
        }
        let (rest_t, rest_r, _) = cx.doc.rest_trs(f);
        let mut moves = false;
        if let Some((_, s)) = &t.rotation {
            moves |= (0..s.times.len()).any(|k| {
                DQuat::from_array(s.key(k))
                    .normalize()
                    .angle_between(rest_r)
                    > 1e-3
            });
        }
        if let Some((_, s)) = &t.translation {
            moves |= (0..s.times.len()).any(|k| {
                let v = s.key(k);
                DVec3::new(v[0], v[1], v[2]).distance(rest_t) > 1e-4
            });
        }
        if moves {
            report.warnings.push(format!(
                "{}: node {} moves in the file, but the MAN does not animate it (it is not in samples.node_indices); that motion is ignored",
                cx.apath, cx.sk.names[node]
            ));
        }
        report.warnings.extend(scale_warning(cx, t, node));
    }
}

/// The samples' codes: positions packed with the header's range, or (`requantize`) with a
/// new range computed from all positions, returned with it.
fn pack_codes(
    cx: &Ctx<'_>,
    columns: &[Column],
    rot_codes: &[[u16; 3]],
    positions: &[Position],
    opts: &ImportOptions,
) -> Result<(Vec<[u16; 6]>, f32, f32), GltfError> {
    let n = columns.len();
    let (min0, scale0) = (cx.header.position_min.get(), cx.header.position_scale.get());
    let (mut min, mut scale) = (min0, scale0);
    if opts.requantize {
        let values: Vec<Vec3> = positions
            .iter()
            .map(|p| match p {
                Ok(v) => v.as_vec3(),
                Err(c) => Vec3::from_array(c.map(|c| quant::unpack_position(c, min0, scale0))),
            })
            .collect();
        (min, scale) = quant::position_range(values.into_iter());
    }
    let mut codes = Vec::with_capacity(rot_codes.len());
    for (i, (r, p)) in rot_codes.iter().zip(positions).enumerate() {
        let (fr, k) = (i / n, i % n);
        let value = match p {
            Err(c) if !opts.requantize => {
                codes.push([r[0], r[1], r[2], c[0], c[1], c[2]]);
                continue;
            }
            Err(c) => DVec3::from_array(c.map(|c| quant::unpack_position(c, min0, scale0) as f64)),
            Ok(v) => *v,
        };
        let mut pc = [0u16; 3];
        for a in 0..3 {
            pc[a] = quant::pack_position(value[a] as f32, min, scale).ok_or_else(|| {
                let node = columns[k].0;
                GltfError::new(format!(
                    "{}: frame {fr}, node {} ({}): position {} = {} cm is outside what position_min {} and position_scale {} can hold ({} … {}); import with --requantize to recompute the range from all positions",
                    cx.apath,
                    node,
                    cx.sk.names[node],
                    ["x", "y", "z"][a],
                    value[a] as f32,
                    min,
                    scale,
                    min,
                    quant::unpack_position(65535, min, scale)
                ))
            })?;
        }
        codes.push([r[0], r[1], r[2], pc[0], pc[1], pc[2]]);
    }
    Ok((codes, min, scale))
}

/// `man` with the new samples and header (a warning for events past the new end).
fn rebuilt(
    man: &Man,
    mut codes: Vec<[u16; 6]>,
    frames: usize,
    (min, scale): (f32, f32),
    opts: &ImportOptions,
    report: &mut ImportReport,
) -> Man {
    let mut out = man.clone();
    for c in &mut out.chunks {
        match c {
            Chunk::Header(h) => {
                h.frame_count = frames as u32;
                if let Some(f) = opts.fps {
                    h.fps = F32::new(f);
                }
                if opts.requantize {
                    h.position_min = F32::new(min);
                    h.position_scale = F32::new(scale);
                }
            }
            Chunk::Samples(s) => s.codes = std::mem::take(&mut codes),
            _ => {}
        }
    }
    if frames != report.frames_before {
        let late = out
            .events()
            .iter()
            .filter(|e| e.frame >= frames as i32)
            .count();
        if late > 0 {
            report.warnings.push(format!(
                "{late} event(s) lie at or after frame {frames}, past the new end of the animation; kept as they are"
            ));
        }
    }
    out
}

/// The rotation code of `q` (ZenGin coordinates): the original code when `q` is within `tol`
/// of what it decodes to, else the engine's packing.
fn rotation_code(q: DQuat, orig: Option<[u16; 3]>, tol: f64) -> Result<[u16; 3], String> {
    if let Some(o) = orig {
        if rotation_distance(q, quant::engine_rotation(o).as_dquat()) <= tol {
            return Ok(o);
        }
    }
    quant::pack_rotation(q.as_quat().to_array())
}

/// The largest component difference of two rotations (q and -q being the same rotation).
fn rotation_distance(q: DQuat, o: DQuat) -> f64 {
    let d = |a: DQuat, b: DQuat| {
        (a.x - b.x)
            .abs()
            .max((a.y - b.y).abs())
            .max((a.z - b.z).abs())
            .max((a.w - b.w).abs())
    };
    d(q, o).min(d(-q, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(times: &[f32], values: &[f32], interp: Interp, rotation: bool) -> Track {
        Track {
            times: times.to_vec(),
            values: values.to_vec(),
            comps: if rotation { 4 } else { 3 },
            interp,
            rotation,
        }
    }

    #[test]
    fn linear_step_and_cubic_sampling() {
        let lin = track(
            &[0.0, 1.0],
            &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0],
            Interp::Linear,
            false,
        );
        assert_eq!(lin.sample(0.25, 1e-6)[..3], [0.5, 1.0, 1.5]);
        assert_eq!(lin.sample(-1.0, 1e-6)[..3], [0.0, 0.0, 0.0]);
        assert_eq!(lin.sample(5.0, 1e-6)[..3], [2.0, 4.0, 6.0]);
        // A key within eps is taken as it is.
        assert_eq!(lin.sample(1.0 - 1e-7, 1e-6)[..3], [2.0, 4.0, 6.0]);
        let step = track(
            &[0.0, 1.0],
            &[0.0, 0.0, 0.0, 2.0, 4.0, 6.0],
            Interp::Step,
            false,
        );
        assert_eq!(step.sample(0.99, 1e-6)[..3], [0.0, 0.0, 0.0]);
        // Cubic: (in-tangent, value, out-tangent) per key; flat tangents give smoothstep.
        let cubic = track(
            &[0.0, 1.0],
            &[
                0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
                0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0,
            ],
            Interp::Cubic,
            false,
        );
        assert_eq!(cubic.sample(0.5, 1e-6)[..3], [0.5, 0.5, 0.5]);
        assert!((cubic.sample(0.25, 1e-6)[0] - 0.15625).abs() < 1e-12);
        // Rotations: slerp, the short way round.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let rot = track(
            &[0.0, 1.0],
            &[0.0, 0.0, 0.0, 1.0, 0.0, h, 0.0, h],
            Interp::Linear,
            true,
        );
        let q = DQuat::from_array(rot.sample(0.5, 1e-6));
        let want = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_4);
        assert!(q.angle_between(want) < 1e-6, "{q:?}");
    }

    /// Original samples are kept only between keys at another rate (Blender's resampling),
    /// never between keyframes a whole number of frames apart (an edit at the MAN's rate).
    #[test]
    fn original_samples_between_resampled_keys_only() {
        let dt = 0.04;
        // Keys 0.1 s apart (a 10 fps file) around a 25 fps frame at 0.12 s, both original.
        let resampled = [(0.0, true), (0.1, true), (0.2, true)];
        assert!(between_original_keys(&resampled, 0.12, 1e-6, dt));
        // After the last key: the spacing of the last two.
        assert!(between_original_keys(&resampled, 0.24, 1e-6, dt));
        // On a key: decided by the key's value.
        assert!(!between_original_keys(&resampled, 0.2, 1e-6, dt));
        // One neighbour edited: interpolated.
        assert!(!between_original_keys(
            &[(0.0, true), (0.1, false)],
            0.04,
            1e-6,
            dt
        ));
        // Keyframes 10 frames apart at the MAN's rate: interpolated as they are.
        assert!(!between_original_keys(
            &[(0.0, true), (0.4, true)],
            0.12,
            1e-6,
            dt
        ));
    }

    /// Codes whose x² + y² + z² > 1 (the engine normalises them) survive, as do ordinary ones
    /// with noise below half a step; a real edit is packed.
    #[test]
    fn rotation_codes_of_untouched_and_edited_values() {
        let tol = 0.5 * quant::ROT_SCALE as f64;
        for code in [
            [0u16, 0, 0],
            [65535, 65535, 65535],
            [1560, 63974, 40000],
            [32767; 3],
        ] {
            let q = quant::engine_rotation(code).as_dquat();
            assert_eq!(rotation_code(q, Some(code), tol), Ok(code));
            assert_eq!(rotation_code(-q, Some(code), tol), Ok(code));
            let noisy = DQuat::from_xyzw(q.x + 3e-6, q.y - 3e-6, q.z, q.w);
            assert_eq!(rotation_code(noisy, Some(code), tol), Ok(code));
        }
        let turned = DQuat::from_rotation_x(0.5);
        let code = rotation_code(turned, Some([32767; 3]), tol).unwrap();
        assert_eq!(
            code,
            quant::pack_rotation(turned.as_quat().to_array()).unwrap()
        );
        assert_ne!(code, [32767; 3]);
    }
}
