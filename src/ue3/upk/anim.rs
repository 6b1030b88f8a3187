//! AnimSet and AnimSequence objects (spec §3): typed access to their properties, the track
//! table of a sequence's compressed stream, decoding every track, and rebuilding a stream in
//! which only the edited parts are re-encoded (spec §4.9).

use super::codec::{self, Quat, RotFormat, TrackLayout, TrackOffsets, Vec3, PAD};
use super::package::{Object, Package};
use super::props::{Properties, Value};
use crate::exact::{DecodeError, EncodeError};

/// Most keys one PSA export may hold (NumFrames × tracks): 512 MiB of key records. Declared
/// here, below `ue3::psa`, because `damaged` also measures sequences against it.
pub const MAX_KEYS: usize = 1 << 24;

/// An AnimSet export.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimSet {
    pub export: usize,
    pub name: String,
    pub bones: Vec<String>,
    /// Export indices of the sequences, in the `Sequences` property's order.
    pub sequences: Vec<usize>,
    /// `bAnimRotationOnly` (UE3 default true when absent).
    pub anim_rotation_only: bool,
    pub use_translation_bone_names: Vec<String>,
    /// BnS-specific (face sets).
    pub use_movement_bone_names: Vec<String>,
    pub force_mesh_translation_bone_names: Vec<String>,
    /// BnS-specific, meaning unknown.
    pub adjust_ani_scale_bone_names: Vec<String>,
    pub preview_skel_mesh_name: Option<String>,
    /// BnS-specific `bServiced`.
    pub serviced: Option<bool>,
}

/// The typed properties of an AnimSequence and where its stream lies.
#[derive(Debug, Clone, PartialEq)]
pub struct Sequence {
    pub export: usize,
    pub name: String,
    pub length: f32,
    pub num_frames: i32,
    pub rate_scale: f32,
    pub rotation_format: RotFormat,
    pub translation_format: String,
    pub offsets: Vec<TrackOffsets>,
    /// Absolute image offset of the first stream byte.
    pub stream_base: u64,
    pub no_looping_interpolation: bool,
    pub is_additive: bool,
    pub additive_ref_name: Option<String>,
    /// BnS-specific `bServiced`.
    pub serviced: Option<bool>,
    /// Number of `Notifies` entries (the structs are kept verbatim in the property).
    pub notifies: usize,
}

/// The decoded keys of one track.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Track {
    pub translations: Vec<Vec3>,
    pub rotations: Vec<Quat>,
}

/// The AnimSets of a package, in export order.
pub fn anim_sets(pkg: &Package) -> Vec<AnimSet> {
    let names = pkg.names();
    let mut out = Vec::new();
    for i in 0..pkg.exports.len() {
        if pkg.class_of(i) != "AnimSet" {
            continue;
        }
        let Some(Object::Tagged { props, .. }) = pkg.objects.get(i) else {
            continue;
        };
        let bones = match props.find(names, "TrackBoneNames").map(|p| &p.value) {
            Some(Value::Names(v)) => v.iter().map(|n| names.display(*n)).collect(),
            _ => Vec::new(),
        };
        let mut sequences: Vec<usize> = match props.find(names, "Sequences").map(|p| &p.value) {
            Some(Value::Ints(v)) => v
                .iter()
                .filter(|&&r| r > 0)
                .map(|&r| r as usize - 1)
                .collect(),
            _ => Vec::new(),
        };
        if sequences.is_empty() {
            sequences = (0..pkg.exports.len())
                .filter(|&j| {
                    pkg.exports[j].outer == i as i32 + 1 && pkg.class_of(j) == "AnimSequence"
                })
                .collect();
        }
        let list = |prop: &str| match props.find(names, prop).map(|p| &p.value) {
            Some(Value::Names(v)) => v.iter().map(|n| names.display(*n)).collect(),
            _ => Vec::new(),
        };
        out.push(AnimSet {
            export: i,
            name: pkg.export_name(i),
            bones,
            sequences,
            anim_rotation_only: bool_prop(pkg, props, "bAnimRotationOnly").unwrap_or(true),
            use_translation_bone_names: list("UseTranslationBoneNames"),
            use_movement_bone_names: list("UseMovementBoneNames"),
            force_mesh_translation_bone_names: list("ForceMeshTranslationBoneNames"),
            adjust_ani_scale_bone_names: list("AdjustAniScaleBoneNames"),
            preview_skel_mesh_name: name_prop(pkg, props, "PreviewSkelMeshName"),
            serviced: bool_prop(pkg, props, "bServiced"),
        });
    }
    out
}

/// The AnimSet that owns sequence export `i` (by its Sequences list, else by outer).
pub fn set_of(sets: &[AnimSet], pkg: &Package, i: usize) -> Option<usize> {
    sets.iter()
        .position(|s| s.sequences.contains(&i))
        .or_else(|| {
            let outer = pkg.exports.get(i)?.outer;
            sets.iter().position(|s| s.export as i32 + 1 == outer)
        })
}

fn bool_prop(pkg: &Package, props: &Properties, prop: &str) -> Option<bool> {
    match props.find(pkg.names(), prop).map(|p| &p.value) {
        Some(Value::Bool(v)) => Some(*v != 0),
        _ => None,
    }
}

fn name_prop(pkg: &Package, props: &Properties, prop: &str) -> Option<String> {
    match props.find(pkg.names(), prop).map(|p| &p.value) {
        Some(Value::Name(n)) => Some(pkg.names().display(*n)),
        _ => None,
    }
}

/// The sequence view of export `i`, or `None` when it is not an AnimSequence.
pub fn sequence(
    pkg: &Package,
    i: usize,
    num_tracks: Option<usize>,
) -> Result<Option<Sequence>, DecodeError> {
    if pkg.class_of(i) != "AnimSequence" {
        return Ok(None);
    }
    let Some(Object::Tagged { props, tail, .. }) = pkg.objects.get(i) else {
        return Ok(None);
    };
    let e = &pkg.exports[i];
    let base = e.serial_offset as u64;
    let err = |msg: String| DecodeError::invalid(base, msg);
    let names = pkg.names();
    let f32p = |prop: &str, default: f32| match props.find(names, prop).map(|p| &p.value) {
        Some(Value::Float(b)) => f32::from_bits(*b),
        _ => default,
    };
    let num_frames = match props.find(names, "NumFrames").map(|p| &p.value) {
        Some(Value::Int(v)) => *v,
        _ => 0,
    };
    let rot =
        name_prop(pkg, props, "RotationCompressionFormat").unwrap_or_else(|| "ACF_None".into());
    let rotation_format = RotFormat::from_name(&rot)
        .ok_or_else(|| err(format!("unknown RotationCompressionFormat `{rot}`")))?;
    let translation_format =
        name_prop(pkg, props, "TranslationCompressionFormat").unwrap_or_else(|| "ACF_None".into());
    if !["ACF_None", "ACF_Float96NoW"].contains(&translation_format.as_str()) {
        return Err(err(format!(
            "TranslationCompressionFormat `{translation_format}` is not supported"
        )));
    }
    if let Some(k) = name_prop(pkg, props, "KeyEncodingFormat") {
        if k != "AKF_ConstantKeyLerp" {
            return Err(err(format!(
                "KeyEncodingFormat `{k}` is not supported (BnS uses AKF_ConstantKeyLerp)"
            )));
        }
    }
    let ints = match props
        .find(names, "CompressedTrackOffsets")
        .map(|p| &p.value)
    {
        Some(Value::Ints(v)) => v.clone(),
        Some(_) => {
            return Err(err(
                "CompressedTrackOffsets is not an array of integers".into()
            ))
        }
        None => Vec::new(),
    };
    if ints.len() % 4 != 0 || num_tracks.is_some_and(|n| n * 4 != ints.len()) {
        return Err(err(format!(
            "CompressedTrackOffsets has {} entries, expected 4 per track ({} tracks)",
            ints.len(),
            num_tracks.map_or("?".into(), |n| n.to_string())
        )));
    }
    let offsets = ints
        .chunks_exact(4)
        .map(|c| TrackOffsets {
            trans_offset: c[0],
            trans_keys: c[1],
            rot_offset: c[2],
            rot_keys: c[3],
        })
        .collect();
    let nb = tail
        .get(..4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let body_len = 4 + props.encoded_len();
    if nb != Some(tail.len() as i32 - 4) {
        return Err(DecodeError::invalid(
            base + body_len as u64,
            format!(
                "native data is {} bytes but does not hold `i32 NumBytes` + NumBytes stream bytes",
                tail.len()
            ),
        ));
    }
    let name = name_prop(pkg, props, "SequenceName").unwrap_or_else(|| pkg.export_name(i));
    Ok(Some(Sequence {
        export: i,
        name,
        length: f32p("SequenceLength", 0.0),
        num_frames,
        rate_scale: f32p("RateScale", 1.0),
        rotation_format,
        translation_format,
        offsets,
        stream_base: base + body_len as u64 + 4,
        no_looping_interpolation: bool_prop(pkg, props, "bNoLoopingInterpolation").unwrap_or(false),
        is_additive: bool_prop(pkg, props, "bIsAdditive").unwrap_or(false),
        additive_ref_name: name_prop(pkg, props, "AdditiveRefName"),
        serviced: bool_prop(pkg, props, "bServiced"),
        notifies: match props.find(names, "Notifies").map(|p| &p.value) {
            Some(Value::Raw(b)) if b.len() >= 4 => {
                i32::from_le_bytes([b[0], b[1], b[2], b[3]]).max(0) as usize
            }
            _ => 0,
        },
    }))
}

/// The stream bytes of sequence export `i`.
pub fn stream(pkg: &Package, i: usize) -> &[u8] {
    match pkg.objects.get(i) {
        Some(Object::Tagged { tail, .. }) if tail.len() >= 4 => &tail[4..],
        _ => &[],
    }
}

/// Locate and decode every track of a sequence (the engine's formulas).
pub fn decode(
    seq: &Sequence,
    stream: &[u8],
) -> Result<(Vec<TrackLayout>, Vec<Track>), DecodeError> {
    decode_with(seq, stream, codec::Formulas::Engine)
}

/// Locate and decode every track of a sequence with the engine's or UE Viewer's formulas.
pub fn decode_with(
    seq: &Sequence,
    stream: &[u8],
    formulas: codec::Formulas,
) -> Result<(Vec<TrackLayout>, Vec<Track>), DecodeError> {
    let mut layouts = Vec::with_capacity(seq.offsets.len());
    let mut tracks = Vec::with_capacity(seq.offsets.len());
    for (k, o) in seq.offsets.iter().enumerate() {
        let l =
            codec::layout(stream, seq.stream_base, o, seq.rotation_format).map_err(|mut e| {
                e.path.prefix(crate::exact::Segment::Index(k));
                e.path.prefix(crate::exact::Segment::Field("tracks"));
                e
            })?;
        let t = Track {
            translations: codec::decode_translations(stream, &l),
            rotations: codec::decode_rotations_with(
                stream,
                &l,
                o.rot_keys.max(0) as usize,
                seq.rotation_format,
                formulas,
            ),
        };
        layouts.push(l);
        tracks.push(t);
    }
    Ok((layouts, tracks))
}

/// What to write for one track: `None` keeps the part's original bytes.
#[derive(Debug, Clone, Default)]
pub struct TrackEdit {
    pub translations: Option<Vec<Vec3>>,
    pub rotations: Option<Vec<Quat>>,
}

/// Keys reduced to one when all are bit-identical (spec §4.9).
pub fn reduce<T: Copy + PartialEq + Bits>(keys: &[T]) -> Vec<T> {
    match keys.first() {
        Some(k0) if keys.iter().all(|k| k.bits() == k0.bits()) => vec![*k0],
        _ => keys.to_vec(),
    }
}

pub trait Bits {
    fn bits(&self) -> Vec<u32>;
}
impl<const N: usize> Bits for [f32; N] {
    fn bits(&self) -> Vec<u32> {
        self.iter().map(|f| f.to_bits()).collect()
    }
}

/// Rebuild a stream: untouched parts are copied from `stream` (with their padding), edited
/// parts are encoded in `format`. Returns the new stream and track offsets.
pub fn rebuild(
    stream: &[u8],
    layouts: &[TrackLayout],
    offsets: &[TrackOffsets],
    edits: &[TrackEdit],
    format: RotFormat,
) -> Result<(Vec<u8>, Vec<TrackOffsets>), EncodeError> {
    let mut out = Vec::with_capacity(stream.len());
    let mut new_offsets = Vec::with_capacity(offsets.len());
    for (k, ((l, o), e)) in layouts.iter().zip(offsets).zip(edits).enumerate() {
        let with_path = |r: Result<(), EncodeError>| {
            r.map_err(|mut err| {
                err.path.prefix(crate::exact::Segment::Index(k));
                err.path.prefix(crate::exact::Segment::Field("tracks"));
                err
            })
        };
        let t_start = out.len();
        let tn = match &e.translations {
            None => {
                out.extend_from_slice(&stream[l.trans.clone()]);
                o.trans_keys
            }
            Some(keys) => {
                let keys = reduce(keys);
                codec::encode_translations(&keys, &mut out);
                keys.len() as i32
            }
        };
        let r_start = out.len();
        let rn = match &e.rotations {
            None => {
                out.extend_from_slice(&stream[l.rot.clone()]);
                let padded = out.len() + l.pad.len();
                if padded % 4 == 0 {
                    out.extend_from_slice(&stream[l.pad.clone()]);
                } else {
                    codec::pad(&mut out);
                }
                o.rot_keys
            }
            Some(keys) => {
                let keys = reduce(keys);
                with_path(codec::encode_rotations(&keys, format, &mut out))?;
                codec::pad(&mut out);
                keys.len() as i32
            }
        };
        let too_big = |_| EncodeError::new("stream exceeds 2 GiB");
        new_offsets.push(TrackOffsets {
            trans_offset: if tn == 0 { r_start } else { t_start }
                .try_into()
                .map_err(too_big)?,
            trans_keys: tn,
            rot_offset: r_start.try_into().map_err(too_big)?,
            rot_keys: rn,
        });
    }
    Ok((out, new_offsets))
}

/// Whether a part given per frame (`frames`, 1-key parts repeated) equals the original keys.
pub fn same_keys<T: Bits>(orig: &[T], frames: &[T]) -> bool {
    if orig.len() == frames.len() {
        return orig.iter().zip(frames).all(|(a, b)| a.bits() == b.bits());
    }
    orig.len() == 1 && !frames.is_empty() && frames.iter().all(|f| f.bits() == orig[0].bits())
}

/// Replace the stream and the properties that describe it in sequence export `i`.
pub fn store(
    pkg: &mut Package,
    i: usize,
    stream: Vec<u8>,
    offsets: &[TrackOffsets],
) -> Result<(), EncodeError> {
    let names = pkg.name_texts.clone();
    let Some(Object::Tagged { props, tail, .. }) = pkg.objects.get_mut(i) else {
        return Err(EncodeError::new(format!(
            "export {i} is not an AnimSequence record"
        )));
    };
    let flat: Vec<i32> = offsets
        .iter()
        .flat_map(|o| [o.trans_offset, o.trans_keys, o.rot_offset, o.rot_keys])
        .collect();
    match props.find_mut(&names, "CompressedTrackOffsets") {
        Some(p) => p.value = Value::Ints(flat),
        None if flat.is_empty() => {}
        None => {
            return Err(EncodeError::new(
                "the sequence has no CompressedTrackOffsets property to update",
            ))
        }
    }
    let mut t = Vec::with_capacity(stream.len() + 4);
    t.extend_from_slice(&(stream.len() as i32).to_le_bytes());
    t.extend_from_slice(&stream);
    *tail = t;
    Ok(())
}

/// Where UE Viewer samples frame `f` of `num_frames` in `n` evenly spaced keys
/// (`CAnimTrack::GetBonePosition`, no looping): the keys before and after and the fraction
/// between them, all in f32: position `f / num_frames · n`, floored; past the last key the
/// last key with fraction 0. Frame 0 and one-frame sequences take key 0. This is not the
/// identity when `n == num_frames`: `7 / 23 · 23` is just below 7.
fn uev_position(f: usize, num_frames: usize, n: usize) -> (usize, usize, f32) {
    if n <= 1 || f == 0 || num_frames == 1 {
        return (0, 0, 0.0);
    }
    let pos = f as f32 / num_frames as f32 * n as f32;
    let x = (pos.floor() as usize).min(n - 1);
    let frac = pos - x as f32;
    if x + 1 >= n {
        (x, n - 1, 0.0)
    } else {
        (x, x + 1, frac)
    }
}

/// The translation UE Viewer exports for frame `f` (`(0, 0, 0)` without keys): linear
/// interpolation `a + t · (b − a)` between the keys of `uev_position`.
pub fn sample_translation(keys: &[Vec3], f: usize, num_frames: usize) -> Vec3 {
    if keys.is_empty() {
        return [0.0; 3];
    }
    let (x, y, t) = uev_position(f, num_frames, keys.len());
    let (a, b) = (keys[x], keys[y]);
    if t > 0.0 {
        [0, 1, 2].map(|c| a[c] + t * (b[c] - a[c]))
    } else {
        a
    }
}

/// The rotation UE Viewer exports for frame `f` (`(0, 0, 0, 1)` without keys): its slerp
/// between the keys of `uev_position`.
pub fn sample_rotation(keys: &[Quat], f: usize, num_frames: usize) -> Quat {
    if keys.is_empty() {
        return [0.0, 0.0, 0.0, 1.0];
    }
    let (x, y, t) = uev_position(f, num_frames, keys.len());
    if t > 0.0 {
        slerp_uev(keys[x], keys[y], t)
    } else {
        keys[x]
    }
}

/// UE Viewer's `Slerp` (`Core/Math3D.cpp`), operation for operation in f32: the shorter arc
/// (B negated when the dot product is negative), `ω = atan2(f / √f, |cos|)` with
/// `f = 1 − cos²`, weights `sin((1 − t)·ω) / √f` and `sin(t·ω) / √f`, and plain linear weights
/// when `1 − cos ≤ 10⁻⁶`; the result is not renormalised. `sin` and `atan2` are the C
/// library's `sinf`/`atan2f`, as UE Viewer calls them.
pub fn slerp_uev(a: Quat, b: Quat, t: f32) -> Quat {
    if t <= 0.0 {
        return a;
    }
    if t >= 1.0 {
        return b;
    }
    let mut cosom = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    let mut sign = 1.0f32;
    if cosom < 0.0 {
        cosom = -cosom;
        sign = -1.0;
    }
    let (scale_a, mut scale_b) = if 1.0 - cosom > 1e-6 {
        let f = 1.0 - cosom * cosom;
        let inv = 1.0 / f.sqrt();
        let omega = (f * inv).atan2(cosom.abs());
        (((1.0 - t) * omega).sin() * inv, (t * omega).sin() * inv)
    } else {
        (1.0 - t, t)
    };
    scale_b *= sign;
    [0, 1, 2, 3].map(|c| scale_a * a[c] + scale_b * b[c])
}

/// A sequence the engine cannot play as stored: its `check` error and `export` warning.
#[derive(Debug, Clone, PartialEq)]
pub struct Damage {
    /// Field path in the package, e.g. `objects[1].tracks[0]`.
    pub path: String,
    pub message: String,
}

/// Every damaged AnimSequence: properties or track table that cannot be read, a stream that
/// does not hold what its offsets and key counts say (such a sequence is kept as raw bytes,
/// `native` in the YAML), or a NumFrames that is negative or too large for any PSA
/// ([`MAX_KEYS`] keys) while the tracks hold only a few keys.
pub fn damaged(pkg: &Package) -> Vec<Damage> {
    let sets = anim_sets(pkg);
    let mut out = Vec::new();
    for i in 0..pkg.exports.len() {
        let set = set_of(&sets, pkg, i);
        let tracks = set.map(|s| sets[s].bones.len());
        let at = |e: &DecodeError| {
            if e.path.is_empty() {
                format!("objects[{i}]")
            } else {
                format!("objects[{i}].{}", e.path)
            }
        };
        let raw =
            "; the sequence is kept as raw bytes (`native` in the YAML, written back as it is)";
        let seq = match sequence(pkg, i, tracks) {
            Ok(Some(s)) => s,
            Ok(None) => continue,
            Err(e) => {
                out.push(Damage {
                    path: at(&e),
                    message: format!(
                        "{} cannot be read at byte offset {}: {}{raw}",
                        pkg.export_name(i),
                        e.offset,
                        e.kind
                    ),
                });
                continue;
            }
        };
        let label = format!("{} ({})", pkg.export_name(i), seq.name);
        let decoded = match decode(&seq, stream(pkg, i)) {
            Ok((_, t)) => t,
            Err(e) => {
                out.push(Damage {
                    path: at(&e),
                    message: format!(
                        "{label} cannot be decoded at byte offset {} (0x{:x}): {}{raw}",
                        e.offset, e.offset, e.kind
                    ),
                });
                continue;
            }
        };
        let keys = decoded
            .iter()
            .map(|t| t.translations.len().max(t.rotations.len()))
            .max()
            .unwrap_or(0);
        let limit = MAX_KEYS / decoded.len().max(1);
        let bad = if seq.num_frames < 0 {
            Some("is negative")
        } else if seq.num_frames as usize > limit {
            Some("is more than any PSA holds")
        } else {
            None
        };
        if let Some(why) = bad {
            // Where the value is: the object's record (NetIndex, then the tags).
            let at = match pkg.objects.get(i) {
                Some(Object::Tagged { props, .. }) => props.value_offset(pkg.names(), "NumFrames"),
                _ => None,
            };
            let (path, offset) = match at {
                Some((k, rel)) => (
                    format!("objects[{i}].properties[{k}].value"),
                    format!(
                        " at byte offset {0} (0x{0:x})",
                        pkg.exports[i].serial_offset as u64 + 4 + rel
                    ),
                ),
                None => (format!("objects[{i}]"), String::new()),
            };
            out.push(Damage {
                path,
                message: format!(
                    "{label}: NumFrames {}{offset} {why} ({} tracks, at most {limit} frames), \
                     while its tracks hold at most {keys} keys: set NumFrames to the sequence's \
                     frame count",
                    seq.num_frames,
                    decoded.len()
                ),
            });
        }
    }
    out
}

/// `animkit check` findings for every sequence: for each ZOnlyRLE track with a run table, how
/// many stored values its bytes hold and whether that fits UE Viewer's reading (inclusive run
/// ends: `keys − Σ(end − start)` values) or the article's (exclusive ends: that `+ pairs`),
/// spec §4.6; and gaps ("holes") between consecutive track parts.
pub fn check(pkg: &Package) -> Vec<String> {
    let sets = anim_sets(pkg);
    let mut out = Vec::new();
    for i in 0..pkg.exports.len() {
        let set = set_of(&sets, pkg, i);
        // Sequences that cannot be read or decoded are reported by `damaged`.
        let Ok(Some(seq)) = sequence(pkg, i, set.map(|s| sets[s].bones.len())) else {
            continue;
        };
        let stream = stream(pkg, i);
        let label = format!("{} ({})", pkg.export_name(i), seq.name);
        let Ok((layouts, _)) = decode(&seq, stream) else {
            continue;
        };
        let bone = |k: usize| {
            set.and_then(|s| sets[s].bones.get(k).cloned())
                .unwrap_or_else(|| format!("track{k}"))
        };
        // Start offsets of all non-empty parts, to find where each part's successor begins.
        let mut starts: Vec<usize> = layouts
            .iter()
            .flat_map(|l| [l.trans.clone(), l.rot.clone()])
            .filter(|r| !r.is_empty())
            .map(|r| r.start)
            .collect();
        starts.sort_unstable();
        let next_after = |pos: usize| {
            starts
                .iter()
                .copied()
                .find(|&s| s > pos)
                .unwrap_or(stream.len())
        };
        for (k, (l, o)) in layouts.iter().zip(&seq.offsets).enumerate() {
            if let Some(t) = &l.rle {
                let vstart = l.rot.start + 32 + 4 * t.pairs.len();
                let mut end = next_after(vstart.saturating_sub(1));
                while end > vstart
                    && stream.get(end - 1) == Some(&PAD)
                    && (end - vstart) % t.value_size() != 0
                {
                    end -= 1;
                }
                let bytes = end.saturating_sub(vstart);
                let n = bytes / t.value_size();
                let uev = t.stored_inclusive(o.rot_keys.max(0) as usize);
                let art = uev + t.pairs.len() as i64;
                let verdict = match (n as i64 == uev, n as i64 == art) {
                    (true, true) => "fits both readings (no runs)",
                    (true, false) => "fits UE Viewer's reading (inclusive run ends)",
                    (false, true) => "fits the article's reading (exclusive run ends)",
                    (false, false) => "fits neither reading",
                };
                // Value meaning (spec §4.6): a single-axis value above 1 in magnitude cannot be
                // a quaternion component, only the article's half angle.
                let meaning = if t.mode == 0 {
                    String::new()
                } else {
                    let vals = &stream[vstart..(vstart + 4 * n).min(stream.len())];
                    let max = vals
                        .chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]).abs())
                        .fold(0.0f32, f32::max);
                    if max > 1.0 {
                        format!("; largest |value| {max} > 1: only the article's half-angle reading can hold it")
                    } else {
                        format!("; largest |value| {max} ≤ 1: both value readings possible")
                    }
                };
                out.push(format!(
                    "{label} track {k} ({}): ZOnlyRLE mode {}, {} runs, {} keys, {bytes} value bytes = {n} values; UE Viewer predicts {uev}, article predicts {art}: {verdict}{meaning}",
                    bone(k),
                    t.mode,
                    t.pairs.len(),
                    o.rot_keys
                ));
            }
        }
        let mut parts: Vec<std::ops::Range<usize>> = layouts
            .iter()
            .flat_map(|l| [l.trans.clone(), l.rot.start..l.pad.end])
            .filter(|r| !r.is_empty())
            .collect();
        parts.sort_by_key(|r| r.start);
        let mut pos = 0;
        for r in &parts {
            if r.start > pos {
                out.push(format!(
                    "{label}: hole of {} bytes before stream offset {}",
                    r.start - pos,
                    r.start
                ));
            }
            pos = pos.max(r.end);
        }
        if pos < stream.len() {
            out.push(format!(
                "{label}: {} bytes after the last track",
                stream.len() - pos
            ));
        }
    }
    out
}
