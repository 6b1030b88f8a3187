//! ActorX `.psa` (spec §5): export of an AnimSet exactly as UE Viewer writes it, and a reader
//! for importing keys back into a package.

use super::anim::{self, AnimSet};
use super::codec::{Quat, Vec3};
use super::package::Package;
use crate::exact::{Cursor, DecodeError, PutLe};

/// Most keys one PSA export may hold (NumFrames × tracks): 512 MiB of key records.
pub const MAX_KEYS: usize = 1 << 24;

/// ANIMHEAD TypeFlag written by UE Viewer.
pub const PSA_VERSION: u32 = 20_100_422;

fn chunk_header(out: &mut Vec<u8>, id: &str, type_flag: u32, size: i32, count: i32) {
    let mut name = [0u8; 20];
    name[..id.len()].copy_from_slice(id.as_bytes());
    out.extend_from_slice(&name);
    out.put_u32(type_flag);
    out.put_i32(size);
    out.put_i32(count);
}

fn fixed_name(out: &mut Vec<u8>, s: &str, shorten: bool) {
    let mut b: Vec<u8> = s.bytes().collect();
    if shorten && b.len() > 63 {
        let mut v = b[..30].to_vec();
        v.extend_from_slice(b"____");
        v.extend_from_slice(&b[b.len() - 29..]);
        b = v;
    }
    let mut field = [0u8; 64];
    let n = b.len().min(63);
    field[..n].copy_from_slice(&b[..n]);
    out.extend_from_slice(&field);
}

/// The coordinate conversion UE3 ↔ PSA (its own inverse).
pub fn flip_position(p: Vec3) -> Vec3 {
    [p[0], -p[1], p[2]]
}
pub fn flip_rotation(q: Quat) -> Quat {
    [q[0], -q[1], q[2], -q[3]]
}

/// The PSA of one AnimSet.
pub fn export_set(pkg: &Package, set: &AnimSet) -> Result<Vec<u8>, DecodeError> {
    let bones = set.bones.len();
    let mut infos = Vec::new();
    let mut keys = Vec::new();
    let mut first = 0i32;
    for &si in &set.sequences {
        let prefix = |mut e: DecodeError| {
            e.path.prefix(crate::exact::Segment::Index(si));
            e.path.prefix(crate::exact::Segment::Field("objects"));
            e
        };
        let Some(seq) = anim::sequence(pkg, si, Some(bones)).map_err(prefix)? else {
            continue;
        };
        // UE Viewer's formulas: its file is the reference (spec §5.3).
        let (_, tracks) = anim::decode_with(
            &seq,
            anim::stream(pkg, si),
            super::codec::Formulas::UeViewer,
        )
        .map_err(prefix)?;
        let nf = usize::try_from(seq.num_frames)
            .map_err(|_| {
                DecodeError::invalid(
                    seq.stream_base,
                    format!("{}: NumFrames {} is negative", seq.name, seq.num_frames),
                )
            })
            .map_err(prefix)?;
        if (first as usize)
            .saturating_add(nf)
            .saturating_mul(bones.max(1))
            > MAX_KEYS
        {
            return Err(DecodeError::invalid(
                seq.stream_base,
                format!(
                    "{}: NumFrames {} × {bones} tracks (with the sequences before it) exceeds the {MAX_KEYS} PSA keys animkit writes",
                    seq.name, seq.num_frames
                ),
            ));
        }
        for f in 0..nf {
            for t in &tracks {
                let p = flip_position(anim::sample_translation(&t.translations, f, nf));
                let q = flip_rotation(anim::sample_rotation(&t.rotations, f, nf));
                for v in p.iter().chain(q.iter()) {
                    keys.put_u32(v.to_bits());
                }
                keys.put_u32(1.0f32.to_bits());
            }
        }
        let mut info = Vec::with_capacity(168);
        fixed_name(&mut info, &seq.name, false);
        fixed_name(&mut info, "None", false);
        info.put_i32(bones as i32);
        info.put_i32(0);
        info.put_i32(0);
        info.put_i32(seq.num_frames * bones as i32);
        info.put_u32(0f32.to_bits());
        info.put_u32((seq.num_frames as f32).to_bits());
        let rate = seq.num_frames as f32 / seq.length * seq.rate_scale;
        info.put_u32(rate.to_bits());
        info.put_i32(0);
        info.put_i32(first);
        info.put_i32(seq.num_frames);
        first += seq.num_frames;
        infos.push(info);
    }
    let mut out = Vec::new();
    chunk_header(&mut out, "ANIMHEAD", PSA_VERSION, 0, 0);
    chunk_header(&mut out, "BONENAMES", 0, 120, bones as i32);
    for (i, b) in set.bones.iter().enumerate() {
        fixed_name(&mut out, b, true);
        out.put_u32(0); // flags
        out.put_i32(0); // children
        out.put_i32(if i == 0 { -1 } else { 0 });
        for _ in 0..7 {
            out.put_u32(0); // orientation, position
        }
        out.put_u32(1.0f32.to_bits());
        for _ in 0..3 {
            out.put_u32(0);
        }
    }
    chunk_header(&mut out, "ANIMINFO", 0, 168, infos.len() as i32);
    for i in &infos {
        out.extend_from_slice(i);
    }
    chunk_header(&mut out, "ANIMKEYS", 0, 32, (keys.len() / 32) as i32);
    out.extend_from_slice(&keys);
    chunk_header(&mut out, "SCALEKEYS", 0, 16, 0);
    Ok(out)
}

/// One sequence of a PSA file.
#[derive(Debug, Clone, PartialEq)]
pub struct PsaSequence {
    pub name: String,
    pub num_frames: usize,
    pub rate: f32,
    /// Frame-major, bone fastest, in UE3 coordinates (the PSA flip undone).
    pub keys: Vec<(Vec3, Quat)>,
}

/// A PSA file's bones and sequences.
#[derive(Debug, Clone, PartialEq)]
pub struct Psa {
    pub bones: Vec<String>,
    pub sequences: Vec<PsaSequence>,
}

fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

/// Read a PSA (chunks walked by their sizes; unknown chunks skipped).
pub fn read(data: &[u8]) -> Result<Psa, DecodeError> {
    let mut c = Cursor::new(data, 0);
    let mut bones = Vec::new();
    let mut infos: Vec<(String, usize, usize, usize, f32)> = Vec::new();
    let mut keys: Vec<(Vec3, Quat)> = Vec::new();
    while !c.is_empty() {
        let at = c.offset();
        let id = cstr(c.bytes(20)?);
        let _flag = c.u32()?;
        let size = c.i32()?;
        let count = c.i32()?;
        if size < 0 || count < 0 {
            return Err(DecodeError::invalid(
                at,
                format!("chunk {id} has negative sizes"),
            ));
        }
        let n = c.check_count(count as u64, size as usize)?;
        let body = c.bytes(n * size as usize)?;
        let mut b = Cursor::new(body, at + 32);
        match id.as_str() {
            "BONENAMES" if size >= 64 => {
                for r in body.chunks_exact(size as usize) {
                    bones.push(cstr(&r[..64]));
                }
            }
            "ANIMINFO" if size >= 168 => {
                for r in body.chunks_exact(size as usize) {
                    let mut rc = Cursor::new(&r[128..], 0);
                    let total_bones = rc.i32()?;
                    let mut rc = Cursor::new(&r[152..], 0);
                    let rate = f32::from_bits(rc.u32()?);
                    let _start = rc.i32()?;
                    let first = rc.i32()?;
                    let frames = rc.i32()?;
                    if total_bones < 0 || first < 0 || frames < 0 {
                        return Err(DecodeError::invalid(at, "ANIMINFO has negative counts"));
                    }
                    infos.push((
                        cstr(&r[..64]),
                        total_bones as usize,
                        first as usize,
                        frames as usize,
                        rate,
                    ));
                }
            }
            "ANIMKEYS" if size >= 32 => {
                keys.reserve(n);
                for _ in 0..n {
                    let mut v = [0f32; 8];
                    for x in v.iter_mut() {
                        *x = f32::from_bits(b.u32()?);
                    }
                    b.bytes(size as usize - 32)?;
                    keys.push((
                        flip_position([v[0], v[1], v[2]]),
                        flip_rotation([v[3], v[4], v[5], v[6]]),
                    ));
                }
            }
            _ => {}
        }
    }
    let mut sequences = Vec::new();
    for (name, tb, first, frames, rate) in infos {
        let start = first.checked_mul(tb);
        let end = first.checked_add(frames).and_then(|e| e.checked_mul(tb));
        let (Some(s), Some(e)) = (start, end) else {
            return Err(DecodeError::invalid(
                0,
                format!("sequence {name}: key range overflows"),
            ));
        };
        if e > keys.len() || tb != bones.len() {
            return Err(DecodeError::invalid(
                0,
                format!(
                    "sequence {name}: keys {s}..{e} of {} ({tb} bones per frame, {} bone names)",
                    keys.len(),
                    bones.len()
                ),
            ));
        }
        sequences.push(PsaSequence {
            name,
            num_frames: frames,
            rate,
            keys: keys[s..e].to_vec(),
        });
    }
    Ok(Psa { bones, sequences })
}

/// Replace the keys of the sequences of AnimSet `set_name` that the PSA names (matched by name,
/// case-insensitively; bones matched to TrackBoneNames the same way, tracks the PSA lacks keep
/// their data). Parts whose keys equal the package's decoded keys keep their original bytes;
/// the others are re-encoded in the sequence's format. Returns the replaced sequence names.
pub fn import(
    pkg: &mut Package,
    set_name: &str,
    psa: &Psa,
) -> Result<Vec<String>, crate::exact::EncodeError> {
    use crate::exact::EncodeError;
    let sets = anim::anim_sets(pkg);
    let set = sets
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(set_name))
        .ok_or_else(|| {
            EncodeError::new(format!(
                "no AnimSet `{set_name}` in the package (it has: {})",
                sets.iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?
        .clone();
    let norm = |s: &str| s.trim().to_ascii_lowercase();
    let mut bone_map = Vec::with_capacity(psa.bones.len());
    for b in &psa.bones {
        let k = set
            .bones
            .iter()
            .position(|x| norm(x) == norm(b))
            .ok_or_else(|| {
                EncodeError::new(format!("PSA bone `{b}` is not a track of {}", set.name))
            })?;
        bone_map.push(k);
    }
    let mut done = Vec::new();
    for ps in &psa.sequences {
        let mut found = None;
        for &si in &set.sequences {
            let seq = anim::sequence(pkg, si, Some(set.bones.len()))
                .map_err(|e| EncodeError::new(e.to_string()))?;
            if let Some(q) = seq.filter(|q| q.name.eq_ignore_ascii_case(&ps.name)) {
                found = Some(q);
            }
        }
        let seq = found.ok_or_else(|| {
            EncodeError::new(format!("PSA sequence `{}` is not in {}", ps.name, set.name))
        })?;
        let si = seq.export;
        let stream = anim::stream(pkg, si).to_vec();
        let (layouts, tracks) =
            anim::decode(&seq, &stream).map_err(|e| EncodeError::new(e.to_string()))?;
        let nb = psa.bones.len();
        let nf = ps.num_frames;
        let mut edits = vec![anim::TrackEdit::default(); tracks.len()];
        let mut changed = false;
        for (b, &k) in bone_map.iter().enumerate() {
            let tr: Vec<Vec3> = (0..nf).map(|f| ps.keys[f * nb + b].0).collect();
            let ro: Vec<Quat> = (0..nf).map(|f| ps.keys[f * nb + b].1).collect();
            let t = &tracks[k];
            let default_t =
                t.translations.is_empty() && tr.iter().all(|p| p.map(f32::to_bits) == [0; 3]);
            if !default_t && !anim::same_keys(&t.translations, &tr) {
                edits[k].translations = Some(tr);
                changed = true;
            }
            let ident = [0f32, 0.0, 0.0, 1.0].map(f32::to_bits);
            let default_r =
                t.rotations.is_empty() && ro.iter().all(|q| q.map(f32::to_bits) == ident);
            if !default_r && !anim::same_keys(&t.rotations, &ro) {
                edits[k].rotations = Some(ro);
                changed = true;
            }
        }
        if nf as i32 != seq.num_frames {
            let names = pkg.name_texts.clone();
            if let Some(super::package::Object::Tagged { props, .. }) = pkg.objects.get_mut(si) {
                if let Some(p) = props.find_mut(&names, "NumFrames") {
                    p.value = super::props::Value::Int(nf as i32);
                }
                if let Some(p) = props.find_mut(&names, "SequenceLength") {
                    p.value = super::props::Value::Float((nf as f32 / ps.rate).to_bits());
                }
            }
        }
        if changed {
            let (s, offs) =
                anim::rebuild(&stream, &layouts, &seq.offsets, &edits, seq.rotation_format)
                    .map_err(|mut e| {
                        e.path.prefix(crate::exact::Segment::Key(seq.name.clone()));
                        e
                    })?;
            anim::store(pkg, si, s, &offs)?;
        }
        done.push(seq.name.clone());
    }
    Ok(done)
}
