//! What changed between two MAN files, field by field, event by event, and per node of the
//! samples.

use super::{quant, Chunk, Event, Header, Man, Samples, Source};
use crate::codec::{Change, Diff};
use crate::exact::Text;
use crate::zengin::chunk::ChunkBody as _;
use serde::Serialize;

/// `path: old → new` (values as Rust prints them), with both values as data.
fn push_change<T: std::fmt::Debug + Serialize + ?Sized>(
    out: &mut Diff,
    path: &str,
    old: &T,
    new: &T,
) {
    out.push(Change::new(
        path,
        Some(Change::value(old)),
        Some(Change::value(new)),
        format!("{path}: {old:?} → {new:?}"),
    ));
}

macro_rules! diff_fields {
    ($out:expr, $prefix:expr, $a:expr, $b:expr, [$($f:ident),*]) => {
        $(if $a.$f != $b.$f {
            push_change($out, &format!("{}.{}", $prefix, stringify!($f)), &$a.$f, &$b.$f);
        })*
    };
}

pub(super) fn event_line(e: &Event) -> String {
    format!(
        "{:?} at frame {} tag {:?} content {:?} values {:?}",
        e.kind, e.frame, e.tag, e.content, e.values
    )
}

/// One sample as the YAML shows it: `{rotation: [x, y, z, w], position: [x, y, z]}`.
fn sample_value(c: &[u16; 6], min: f32, scale: f32) -> serde_json::Value {
    #[derive(Serialize)]
    struct Sample {
        rotation: [f32; 4],
        position: [f32; 3],
    }
    Change::value(&Sample {
        rotation: quant::unpack_rotation([c[0], c[1], c[2]]),
        position: [c[3], c[4], c[5]].map(|p| quant::unpack_position(p, min, scale)),
    })
}

pub(super) fn diff_samples(
    out: &mut Diff,
    a: &Samples,
    b: &Samples,
    ha: Option<&Header>,
    hb: Option<&Header>,
    names: Option<&[Text]>,
) {
    if a.checksum != b.checksum {
        push_change(out, "samples.checksum", &a.checksum, &b.checksum);
    }
    if a.node_indices != b.node_indices {
        push_change(
            out,
            "samples.node_indices",
            &a.node_indices,
            &b.node_indices,
        );
    }
    if a.trailing != b.trailing {
        push_change(out, "samples.trailing", &a.trailing, &b.trailing);
    }
    let (fa, fb) = (a.frame_count(), b.frame_count());
    if fa != fb {
        out.push(Change::new(
            "samples.frames",
            Some(fa.into()),
            Some(fb.into()),
            format!(
                "samples: {fa} frames → {fb} frames (comparing the first {})",
                fa.min(fb)
            ),
        ));
    }
    let nodes = a.node_indices.len();
    if nodes != b.node_indices.len() || nodes == 0 {
        if a.codes != b.codes {
            out.push_line("samples: node lists differ; per-node comparison skipped");
        }
        return;
    }
    let range = |h: Option<&Header>| {
        h.map_or((0.0, 1.0), |h| {
            (h.position_min.get(), h.position_scale.get())
        })
    };
    let ((mina, sca), (minb, scb)) = (range(ha), range(hb));
    let pos = |c: &[u16; 6], min: f32, sc: f32| {
        glam::Vec3::new(
            quant::unpack_position(c[3], min, sc),
            quant::unpack_position(c[4], min, sc),
            quant::unpack_position(c[5], min, sc),
        )
    };
    for n in 0..nodes {
        let index = a.node_indices[n];
        // The skeleton's name of the node, when a skeleton was given and has the index.
        let name = names
            .and_then(|names| names.get(index as usize))
            .map(|t| t.to_string());
        let (mut max_deg, mut max_pos) = (0f64, 0f64);
        let (mut turned, mut moved) = (false, false);
        let mut frames = Vec::new();
        let mut per_frame = Vec::new();
        for f in 0..fa.min(fb) {
            let (ca, cb) = (&a.codes[f * nodes + n], &b.codes[f * nodes + n]);
            let (pa, pb) = (pos(ca, mina, sca), pos(cb, minb, scb));
            let rotation_changed = ca[..3] != cb[..3];
            let position_changed =
                pa.to_array().map(f32::to_bits) != pb.to_array().map(f32::to_bits);
            if !(rotation_changed || position_changed || ca != cb) {
                continue;
            }
            // Equal codes are the same rotation: 0, not an f32 rounding artefact.
            let deg = if rotation_changed {
                rotation_change_degrees([ca[0], ca[1], ca[2]], [cb[0], cb[1], cb[2]])
            } else {
                0.0
            };
            let dist = if position_changed {
                pa.as_dvec3().distance(pb.as_dvec3())
            } else {
                0.0
            };
            frames.push(f);
            max_deg = max_deg.max(deg);
            max_pos = max_pos.max(dist);
            turned |= rotation_changed;
            moved |= position_changed;
            let what = motion_text(rotation_changed, position_changed, deg, dist, "");
            let at = match &name {
                Some(name) => format!("{name}: frame {f}: {what}"),
                None => format!("samples node {n} (index {index}): frame {f}: {what}"),
            };
            per_frame.push(Change {
                node: name.clone(),
                node_index: Some(index.into()),
                frame: Some(f as u64),
                ..Change::new(
                    format!("samples.frames[{f}][{n}]"),
                    Some(sample_value(ca, mina, sca)),
                    Some(sample_value(cb, minb, scb)),
                    at,
                )
            });
        }
        if frames.is_empty() {
            continue;
        }
        // One line per node: the frames as ranges and the largest change.
        out.lines.push(match &name {
            Some(_) if frames.len() == 1 => per_frame[0].text.clone(),
            Some(name) => format!(
                "{name}: {} ({} of {}): {}",
                frame_ranges(&frames),
                frames.len(),
                fa.min(fb),
                motion_text(turned, moved, max_deg, max_pos, "up to ")
            ),
            None => format!(
                "samples node {n} (index {index}): {} of {} frames changed ({}), largest rotation change {max_deg:.4}°, largest position change {max_pos:.6}",
                frames.len(),
                fa.min(fb),
                frame_ranges(&frames)
            ),
        });
        out.changes.extend(per_frame);
    }
}

/// `rotation 29.9993°, position 0.500000` (the angle turned, the distance moved): the parts
/// that changed.
fn motion_text(turned: bool, moved: bool, deg: f64, dist: f64, up_to: &str) -> String {
    let mut parts = Vec::new();
    if turned {
        parts.push(format!("rotation {up_to}{deg:.4}°"));
    }
    if moved {
        parts.push(format!("position {up_to}{dist:.6}"));
    }
    if parts.is_empty() {
        // (codes that differ but decode to the same values)
        parts.push("codes changed".into());
    }
    parts.join(", ")
}

/// `frame 10`, `frames 0–5, 9, 12–31`: ascending frame numbers as ranges (at most 8 ranges
/// shown, then `…`).
fn frame_ranges(frames: &[usize]) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &f in frames {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == f => *end = f,
            _ => ranges.push((f, f)),
        }
    }
    const SHOWN: usize = 8;
    let mut parts: Vec<String> = ranges
        .iter()
        .take(SHOWN)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    if ranges.len() > SHOWN {
        parts.push("…".into());
    }
    let word = if frames.len() == 1 { "frame" } else { "frames" };
    format!("{word} {}", parts.join(", "))
}

/// The angle in degrees between the rotations the engine reads from two code triples,
/// computed in f64 (`4·atan2(|a − b|, |a + b|)` = the rotation angle, with b's sign chosen
/// nearest to a: exact for tiny angles, unlike `acos` of a dot product).
fn rotation_change_degrees(a: [u16; 3], b: [u16; 3]) -> f64 {
    let qa = quant::engine_rotation(a).as_dquat();
    let qb = quant::engine_rotation(b).as_dquat();
    let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
    let (qa, qb) = (glam::DVec4::from(qa), glam::DVec4::from(qb));
    (4.0 * (qa - qb).length().atan2((qa + qb).length())).to_degrees()
}

impl Man {
    /// What changed from `self` to `other`, one line per change.
    pub fn diff(&self, other: &Man) -> Vec<String> {
        self.diff_named(other, None).lines
    }

    /// What changed from `self` to `other`: the lines `diff` prints and every change as data
    /// (each changed sample with its node and frame); with the skeleton's node names
    /// (`names`, indexed by MDH node), a changed node is named (`BIP01 L FOREARM: frame 10:
    /// rotation 29.9993°`).
    pub fn diff_named(&self, other: &Man, names: Option<&[Text]>) -> Diff {
        let mut out = Diff::default();
        let kinds = |m: &Man| {
            m.chunks
                .iter()
                .map(|c| format!("{}(0x{:04X})", c.kind(), c.id()))
                .collect::<Vec<_>>()
        };
        let (ka, kb) = (kinds(self), kinds(other));
        if ka != kb {
            out.push(Change::new(
                "chunks",
                Some(Change::value(&ka)),
                Some(Change::value(&kb)),
                format!("chunks: [{}] → [{}]", ka.join(", "), kb.join(", ")),
            ));
        }
        diff_header(&mut out, self.header(), other.header());
        diff_source(&mut out, self.source(), other.source());
        diff_events(&mut out, self.events(), other.events());
        match (self.samples(), other.samples()) {
            (Some(a), Some(b)) => {
                diff_samples(&mut out, a, b, self.header(), other.header(), names)
            }
            (a, b) if a.is_some() != b.is_some() => out.push(present("samples", a, b)),
            _ => {}
        }
        diff_other_chunks(&mut out, self, other);
        out
    }
}

/// `part: present true → false`.
fn present<T>(part: &str, a: Option<T>, b: Option<T>) -> Change {
    Change::new(
        part,
        Some(a.is_some().into()),
        Some(b.is_some().into()),
        format!("{part}: present {} → {}", a.is_some(), b.is_some()),
    )
}

fn diff_header(out: &mut Diff, a: Option<&Header>, b: Option<&Header>) {
    match (a, b) {
        (Some(a), Some(b)) => {
            diff_fields!(
                out,
                "header",
                a,
                b,
                [
                    version,
                    name,
                    layer,
                    frame_count,
                    node_count,
                    fps,
                    fps_source,
                    position_min,
                    position_scale,
                    next,
                    trailing
                ]
            );
            if a.bbox != b.bbox {
                // As the YAML shows it (not Rust's `BBox { .. }`).
                let flow = |b: &crate::zengin::types::BBox| {
                    format!("{{min: {:?}, max: {:?}}}", b.min, b.max)
                };
                out.push(Change::new(
                    "header.bbox",
                    Some(Change::value(&a.bbox)),
                    Some(Change::value(&b.bbox)),
                    format!("header.bbox: {} → {}", flow(&a.bbox), flow(&b.bbox)),
                ));
            }
        }
        (a, b) if a.is_some() != b.is_some() => out.push(present("header", a, b)),
        _ => {}
    }
}

fn diff_source(out: &mut Diff, a: Option<&Source>, b: Option<&Source>) {
    match (a, b) {
        (Some(a), Some(b)) => {
            let (da, db) = (a.date, b.date);
            diff_fields!(
                out,
                "source.date",
                da,
                db,
                [year, month, day, hour, minute, second, padding]
            );
            diff_fields!(out, "source", a, b, [path, script, trailing]);
        }
        (a, b) if a.is_some() != b.is_some() => out.push(present("source", a, b)),
        _ => {}
    }
}

/// Events added, removed and changed, aligned by their full text form (which includes every
/// bit of every field).
fn diff_events(out: &mut Diff, ea: &[Event], eb: &[Event]) {
    let (la, lb): (Vec<String>, Vec<String>) = (
        ea.iter().map(|e| format!("{e:?}")).collect(),
        eb.iter().map(|e| format!("{e:?}")).collect(),
    );
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, &la, &lb) {
        use similar::DiffOp;
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                for (k, e) in ea.iter().enumerate().skip(old_index).take(old_len) {
                    out.push(event_change(k, Some(e), None));
                }
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                for (k, e) in eb.iter().enumerate().skip(new_index).take(new_len) {
                    out.push(event_change(k, None, Some(e)));
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                for k in 0..old_len.max(new_len) {
                    match (
                        ea.get(old_index + k).filter(|_| k < old_len),
                        eb.get(new_index + k).filter(|_| k < new_len),
                    ) {
                        (Some(x), Some(y)) => {
                            out.push(event_change(new_index + k, Some(x), Some(y)))
                        }
                        (Some(x), None) => out.push(event_change(old_index + k, Some(x), None)),
                        (None, Some(y)) => out.push(event_change(new_index + k, None, Some(y))),
                        (None, None) => {}
                    }
                }
            }
        }
    }
}

/// `events[k] changed: old → new` (or `removed: old`, `added: new`).
fn event_change(k: usize, old: Option<&Event>, new: Option<&Event>) -> Change {
    let text = match (old, new) {
        (Some(x), Some(y)) => format!("events[{k}] changed: {} → {}", event_line(x), event_line(y)),
        (Some(x), None) => format!("events[{k}] removed: {}", event_line(x)),
        (None, Some(y)) => format!("events[{k}] added: {}", event_line(y)),
        (None, None) => format!("events[{k}]"),
    };
    Change::new(
        format!("events[{k}]"),
        old.map(Change::value),
        new.map(Change::value),
        text,
    )
}

/// Unknown chunks and marker payloads.
fn diff_other_chunks(out: &mut Diff, a: &Man, b: &Man) {
    let unknowns = |m: &Man| {
        m.chunks
            .iter()
            .filter_map(|c| match c {
                Chunk::Unknown(u) => Some(u.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let (ua, ub) = (unknowns(a), unknowns(b));
    if ua != ub {
        let list = |us: &[crate::zengin::chunk::Unknown]| {
            us.iter()
                .map(|u| format!("0x{:04X} ({} bytes)", u.id.0, u.data.len()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out.push_line(format!(
            "unknown chunks changed: {} → {}",
            list(&ua),
            list(&ub)
        ));
    }
    let markers = |m: &Man| {
        m.chunks
            .iter()
            .filter_map(|c| match c {
                Chunk::Marker(x) => Some(x.trailing.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    if markers(a) != markers(b) {
        out.push_line("marker payload changed");
    }
}

/// The decoded positions (x, y, z of every sample, frame-major) as bits, if the file has a
/// header and samples.
fn position_bits(m: &Man) -> Option<Vec<u32>> {
    let (h, s) = (m.header()?, m.samples()?);
    let (min, scale) = (h.position_min.get(), h.position_scale.get());
    Some(
        s.codes
            .iter()
            .flat_map(|c| [c[3], c[4], c[5]])
            .map(|c| quant::unpack_position(c, min, scale).to_bits())
            .collect(),
    )
}

/// An edit moved positions but left the header's bbox as it was: the box cannot be recomputed
/// (real files' boxes are not derivable from their samples, e.g. G1 HUMANS-S_FISTRUN's root
/// reaches y 88.75 with a box max y of 67.09), so say it is stale.
pub(super) fn edit_warnings(old: &Man, new: &Man) -> Vec<crate::codec::Finding> {
    let (Some(ha), Some(hb)) = (old.header(), new.header()) else {
        return Vec::new();
    };
    if ha.bbox != hb.bbox || position_bits(old) == position_bits(new) {
        return Vec::new();
    }
    vec![crate::codec::Finding::new(
        crate::codec::Severity::Warning,
        "header.bbox",
        format!(
            "positions changed but header.bbox did not: it stays {{min: {:?}, max: {:?}}} \
             (animkit cannot recompute it); edit it if the new positions leave that box",
            hb.bbox.min, hb.bbox.max
        ),
    )]
}

#[cfg(test)]
mod frame_range_tests {
    #[test]
    fn frames_as_ranges() {
        for (frames, text) in [
            (&[10][..], "frame 10"),
            (&[0, 1, 2, 3, 4, 5, 9, 12, 13], "frames 0–5, 9, 12–13"),
            (
                &[0, 2, 4, 6, 8, 10, 12, 14, 16],
                "frames 0, 2, 4, 6, 8, 10, 12, 14, …",
            ),
        ] {
            assert_eq!(super::frame_ranges(frames), text);
        }
    }
}
