//! ActorX `.psa` (spec §5): export of an AnimSet exactly as UE Viewer writes it, and a reader
//! for importing keys back into a package.

use super::upk::anim::{self, AnimSet, Bits};
use super::upk::codec::{Quat, Vec3};
use super::upk::package::Package;
use crate::exact::{Cursor, DecodeError, Record, Within, Writer, F32};

pub use super::upk::anim::MAX_KEYS;

/// ANIMHEAD TypeFlag written by UE Viewer.
pub const PSA_VERSION: u32 = 20_100_422;

crate::record! {
    /// VChunkHeader (spec §5.1): a chunk's id, then `data_count` records of `data_size` bytes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct ChunkHeader: little plain {
        pub chunk_id: [u8; 20],
        pub type_flag: u32,
        pub data_size: i32,
        pub data_count: i32,
    }
}

const _: () = assert!(<ChunkHeader as Record>::SIZE == 32);

crate::record! {
    /// VBone (spec §5.2), 120 bytes: the 64-byte name field, then the bone's rest pose.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Bone: little plain {
        pub name: [u8; 64],
        pub flags: u32,
        pub num_children: i32,
        pub parent_index: i32,
        pub orientation: [F32; 4],
        pub position: [F32; 3],
        pub length: F32,
        pub size: [F32; 3],
    }
}

const _: () = assert!(<Bone as Record>::SIZE == 120);

crate::record! {
    /// AnimInfoBinary (spec §5.4), 168 bytes.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct AnimInfo: little plain {
        pub name: [u8; 64],
        pub group: [u8; 64],
        pub total_bones: i32,
        pub root_include: i32,
        pub key_compression_style: i32,
        pub key_quotum: i32,
        pub key_reduction: F32,
        pub track_time: F32,
        pub anim_rate: F32,
        pub start_bone: i32,
        pub first_raw_frame: i32,
        pub num_raw_frames: i32,
    }
}

const _: () = assert!(<AnimInfo as Record>::SIZE == 168);

crate::record! {
    /// VQuatAnimKey (spec §5.5), 32 bytes, in PSA coordinates.
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Key: little plain {
        pub position: [F32; 3],
        pub orientation: [F32; 4],
        pub time: F32,
    }
}

const _: () = assert!(<Key as Record>::SIZE == 32);

fn chunk_header(out: &mut Vec<u8>, id: &str, type_flag: u32, size: i32, count: i32) {
    let mut chunk_id = [0u8; 20];
    chunk_id[..id.len()].copy_from_slice(id.as_bytes());
    Writer::put_plain(
        out,
        &ChunkHeader {
            chunk_id,
            type_flag,
            data_size: size,
            data_count: count,
        },
    );
}

fn bits<const N: usize>(v: [f32; N]) -> [F32; N] {
    v.map(|x| F32(x.to_bits()))
}
fn floats<const N: usize>(v: [F32; N]) -> [f32; N] {
    v.map(|x| f32::from_bits(x.0))
}

/// The bytes of a name in a 64-byte PSA field, as UE Viewer writes it: the name's 8-bit text
/// (Windows-1252; UTF-8 for a name it cannot hold), cut to 63 bytes; with `shorten` (bone
/// names, UE Viewer's `CopyBoneName`) a name of 64 bytes or more becomes its first 30 bytes,
/// `____` and its last 29.
pub fn psa_name(s: &str, shorten: bool) -> Vec<u8> {
    let mut b: Vec<u8> = match crate::exact::text::encode_cp1252(s) {
        Ok(b) => b.into_owned(),
        Err(_) => s.as_bytes().to_vec(),
    };
    if shorten && b.len() > 63 {
        let mut v = b[..30].to_vec();
        v.extend_from_slice(b"____");
        v.extend_from_slice(&b[b.len() - 29..]);
        b = v;
    }
    b.truncate(63);
    b
}

fn fixed_name(s: &str, shorten: bool) -> [u8; 64] {
    let b = psa_name(s, shorten);
    let mut field = [0u8; 64];
    field[..b.len()].copy_from_slice(&b);
    field
}

/// The coordinate conversion UE3 ↔ PSA (its own inverse).
pub fn flip_position(p: Vec3) -> Vec3 {
    [p[0], -p[1], p[2]]
}
pub fn flip_rotation(q: Quat) -> Quat {
    [q[0], -q[1], q[2], -q[3]]
}

/// Why [`export_set_to`] stopped: the package (a sequence it cannot export, with its field
/// path) or the output.
#[derive(Debug)]
pub enum ExportError {
    Decode(DecodeError),
    Io(std::io::Error),
}

impl From<DecodeError> for ExportError {
    fn from(e: DecodeError) -> Self {
        ExportError::Decode(e)
    }
}

/// The PSA of one AnimSet.
pub fn export_set(pkg: &Package, set: &AnimSet) -> Result<Vec<u8>, DecodeError> {
    let mut out = Vec::new();
    match export_set_to(pkg, set, &mut out) {
        Ok(()) => Ok(out),
        Err(ExportError::Decode(e)) => Err(e),
        // (a Vec takes every write)
        Err(ExportError::Io(e)) => Err(DecodeError::invalid(0, e.to_string())),
    }
}

/// The PSA of one AnimSet, written to `out` as it is made: the headers first (from the
/// sequences' properties), then each sequence's keys as soon as its tracks are decoded, so
/// only one sequence's keys are in memory (a 500-sequence set's PSA is 288 MB). The bytes and
/// the first error are [`export_set`]'s: a sequence that cannot be exported is reported as
/// the one-pass export reports it (the sequences before it decoded first), and nothing is
/// written then (`out` may hold part of the file when the output fails or a stream does not
/// decode: the caller discards it).
pub fn export_set_to<W: std::io::Write + ?Sized>(
    pkg: &Package,
    set: &AnimSet,
    out: &mut W,
) -> Result<(), ExportError> {
    let bones = set.bones.len();
    let prefix = |si: usize| {
        move |mut e: DecodeError| {
            e.path.prefix(crate::exact::Segment::Index(si));
            e.path.prefix(crate::exact::Segment::Field("objects"));
            e
        }
    };
    // Pass 1: each sequence's header from its properties, up to the first that cannot be
    // exported (its error waits until the streams before it are decoded, as in one pass).
    let mut seqs = Vec::new();
    let mut infos = Vec::new();
    let mut stop = None;
    let mut first = 0i32;
    for &si in &set.sequences {
        let seq = match anim::sequence(pkg, si, Some(bones)).map_err(prefix(si)) {
            Ok(Some(seq)) => seq,
            Ok(None) => continue,
            Err(e) => {
                stop = Some((si, None, e));
                break;
            }
        };
        let checked = usize::try_from(seq.num_frames)
            .map_err(|_| {
                DecodeError::invalid(
                    seq.stream_base,
                    format!("{}: NumFrames {} is negative", seq.name, seq.num_frames),
                )
            })
            .and_then(|nf| {
                if (first as usize)
                    .saturating_add(nf)
                    .saturating_mul(bones.max(1))
                    > MAX_KEYS
                {
                    Err(DecodeError::invalid(
                        seq.stream_base,
                        format!(
                            "{}: NumFrames {} × {bones} tracks (with the sequences before it) exceeds the {MAX_KEYS} PSA keys animkit writes",
                            seq.name, seq.num_frames
                        ),
                    ))
                } else {
                    Ok(nf)
                }
            })
            .map_err(prefix(si));
        if let Err(e) = checked {
            // (its own stream is decoded first: a stream error of this sequence comes first)
            stop = Some((si, Some(seq), e));
            break;
        }
        let rate = seq.num_frames as f32 / seq.length * seq.rate_scale;
        infos.push(AnimInfo {
            name: fixed_name(&seq.name, false),
            group: fixed_name("None", false),
            total_bones: bones as i32,
            root_include: 0,
            key_compression_style: 0,
            key_quotum: seq.num_frames * bones as i32,
            key_reduction: F32(0f32.to_bits()),
            track_time: F32((seq.num_frames as f32).to_bits()),
            anim_rate: F32(rate.to_bits()),
            start_bone: 0,
            first_raw_frame: first,
            num_raw_frames: seq.num_frames,
        });
        first += seq.num_frames;
        seqs.push((si, seq));
    }
    let decode = |si: usize, seq: &anim::Sequence| {
        // UE Viewer's formulas: its file is the reference (spec §5.3).
        anim::decode_with(
            seq,
            anim::stream(pkg, si),
            super::upk::codec::Formulas::UeViewer,
        )
        .map(|(_, tracks)| tracks)
        .map_err(prefix(si))
    };
    if let Some((si, seq, e)) = stop {
        for (sj, s) in &seqs {
            decode(*sj, s)?;
        }
        if let Some(s) = &seq {
            decode(si, s)?;
        }
        return Err(e.into());
    }
    let io = ExportError::Io;
    let mut head = Vec::new();
    chunk_header(&mut head, "ANIMHEAD", PSA_VERSION, 0, 0);
    chunk_header(&mut head, "BONENAMES", 0, Bone::SIZE as i32, bones as i32);
    for (i, b) in set.bones.iter().enumerate() {
        Writer::put_plain(
            &mut head,
            &Bone {
                name: fixed_name(b, true),
                flags: 0,
                num_children: 0,
                parent_index: if i == 0 { -1 } else { 0 },
                orientation: [F32(0); 4],
                position: [F32(0); 3],
                length: F32(1.0f32.to_bits()),
                size: [F32(0); 3],
            },
        );
    }
    chunk_header(
        &mut head,
        "ANIMINFO",
        0,
        AnimInfo::SIZE as i32,
        infos.len() as i32,
    );
    for i in &infos {
        Writer::put_plain(&mut head, i);
    }
    let key_count = infos
        .iter()
        .map(|i| i.num_raw_frames as usize * bones)
        .sum::<usize>();
    chunk_header(&mut head, "ANIMKEYS", 0, Key::SIZE as i32, key_count as i32);
    out.write_all(&head).map_err(io)?;
    let mut keys = Vec::new();
    for (si, seq) in &seqs {
        let tracks = decode(*si, seq)?;
        let nf = seq.num_frames as usize;
        keys.clear();
        keys.reserve(nf * tracks.len() * Key::SIZE);
        for f in 0..nf {
            for t in &tracks {
                let p = flip_position(anim::sample_translation(&t.translations, f, nf));
                let q = flip_rotation(anim::sample_rotation(&t.rotations, f, nf));
                Writer::put_plain(
                    &mut keys,
                    &Key {
                        position: bits(p),
                        orientation: bits(q),
                        time: F32(1.0f32.to_bits()),
                    },
                );
            }
        }
        out.write_all(&keys).map_err(io)?;
    }
    let mut tail = Vec::new();
    chunk_header(&mut tail, "SCALEKEYS", 0, 16, 0);
    out.write_all(&tail).map_err(io)?;
    Ok(())
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

/// A NUL-terminated 8-bit name (Windows-1252, as [`psa_name`] writes it).
fn cstr(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    crate::exact::text::decode_cp1252(&b[..end]).into_owned()
}

/// The field path name of a chunk's records in errors.
fn chunk_field(id: &str) -> &'static str {
    match id {
        "BONENAMES" => "bones",
        "ANIMINFO" => "anim_infos",
        "ANIMKEYS" => "keys",
        _ => "records",
    }
}

/// Read a PSA (chunks walked by their sizes; unknown chunks skipped).
pub fn read(data: &[u8]) -> Result<Psa, DecodeError> {
    let mut c = Cursor::new(data, 0);
    let mut bones = Vec::new();
    let mut infos: Vec<(String, usize, usize, usize, f32)> = Vec::new();
    let mut keys: Vec<(Vec3, Quat)> = Vec::new();
    let mut k = 0usize;
    while !c.is_empty() {
        let at = c.offset();
        let h: ChunkHeader = c.read::<_>().within_index(k).within("chunks")?;
        let id = cstr(&h.chunk_id);
        let (size, count) = (h.data_size, h.data_count);
        if size < 0 || count < 0 {
            return Err(DecodeError::invalid(
                at,
                format!("chunk {id} has negative sizes"),
            ))
            .within("data_size")
            .within_index(k)
            .within("chunks");
        }
        let size = size as usize;
        let n = c.check_count(count as u64, size)?;
        let body = c.bytes(n * size)?;
        // Each record is read from its own slice, so a record larger than declared here
        // (size above the struct's) keeps its extra bytes unread, as UE3's importer does.
        let rec =
            |j: usize| Cursor::new(&body[j * size..(j + 1) * size], at + 32 + (j * size) as u64);
        let in_chunk = |r: Result<(), DecodeError>, j: usize| {
            r.within_index(j)
                .within(chunk_field(&id))
                .within_index(k)
                .within("chunks")
        };
        match id.as_str() {
            "BONENAMES" if size >= Bone::SIZE => {
                for j in 0..n {
                    let mut rc = rec(j);
                    let mut res = Ok(());
                    match rc.read::<Bone>() {
                        Ok(b) => bones.push(cstr(&b.name)),
                        Err(e) => res = Err(e),
                    }
                    in_chunk(res, j)?;
                }
            }
            "ANIMINFO" if size >= AnimInfo::SIZE => {
                for j in 0..n {
                    let mut rc = rec(j);
                    let res = rc.read::<AnimInfo>().and_then(|a| {
                        if a.total_bones < 0 || a.first_raw_frame < 0 || a.num_raw_frames < 0 {
                            return Err(DecodeError::invalid(
                                rc.offset() - AnimInfo::SIZE as u64,
                                "ANIMINFO has negative counts",
                            ));
                        }
                        infos.push((
                            cstr(&a.name),
                            a.total_bones as usize,
                            a.first_raw_frame as usize,
                            a.num_raw_frames as usize,
                            f32::from_bits(a.anim_rate.0),
                        ));
                        Ok(())
                    });
                    in_chunk(res, j)?;
                }
            }
            "ANIMKEYS" if size >= Key::SIZE => {
                keys.reserve(n);
                for j in 0..n {
                    let mut rc = rec(j);
                    let key = rc.read::<Key>();
                    match key {
                        Ok(key) => keys.push((
                            flip_position(floats(key.position)),
                            flip_rotation(floats(key.orientation)),
                        )),
                        Err(e) => in_chunk(Err(e), j)?,
                    }
                }
            }
            _ => {}
        }
        k += 1;
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

/// The item of `names` that PSA name `psa` stands for: equal (trimmed, case-insensitive, as
/// UE3's importer compares), else the one whose PSA spelling ([`psa_name`], shortened for
/// bones) it is. Several candidates are an error naming them.
fn match_name(
    names: &[String],
    psa: &str,
    shorten: bool,
    what: &str,
    set: &str,
) -> Result<usize, crate::exact::EncodeError> {
    let norm = |s: &str| s.trim().to_lowercase();
    let want = norm(psa);
    if let Some(i) = names.iter().position(|x| norm(x) == want) {
        return Ok(i);
    }
    let hits: Vec<usize> = (0..names.len())
        .filter(|&i| {
            norm(&String::from_utf8_lossy(&psa_name(&names[i], shorten)))
                == norm(&String::from_utf8_lossy(&psa_name(psa, false)))
        })
        .collect();
    match hits[..] {
        [i] => Ok(i),
        [] => Err(crate::exact::EncodeError::new(format!(
            "PSA {what} `{psa}` is not in {set}"
        ))),
        _ => Err(crate::exact::EncodeError::new(format!(
            "PSA {what} `{psa}` is the shortened name of several of {set}'s: {}; a PSA holds \
             63 characters of a name, rename them so that they differ there",
            hits.iter()
                .map(|&i| format!("`{}`", names[i]))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Replace the keys of the sequences of AnimSet `set_name` that the PSA names (matched by name,
/// case-insensitively, also in the shortened form a PSA holds; bones matched to
/// TrackBoneNames the same way; tracks the PSA lacks keep their data).
///
/// A track part whose PSA values are exactly what [`export_set`] writes for it keeps its
/// original bytes. An edited part is re-encoded in the sequence's format from the PSA's
/// frames, where a frame whose value is still what the export wrote takes the original key
/// (UE Viewer's decoding, which the PSA holds, does not always re-encode to the same code).
/// A changed frame count or rate sets NumFrames and SequenceLength = frames / rate ·
/// RateScale. Returns the replaced sequence names.
pub fn import(
    pkg: &mut Package,
    set_name: &str,
    psa: &Psa,
) -> Result<Vec<String>, crate::exact::EncodeError> {
    use super::upk::codec::Formulas;
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
    let mut bone_map: Vec<usize> = Vec::with_capacity(psa.bones.len());
    for (b, name) in psa.bones.iter().enumerate() {
        let k = match_name(&set.bones, name, true, "bone", &set.name)?;
        if let Some(prev) = bone_map.iter().position(|&x| x == k) {
            return Err(EncodeError::new(format!(
                "PSA bones {prev} `{}` and {b} `{name}` both stand for track `{}`",
                psa.bones[prev], set.bones[k]
            )));
        }
        bone_map.push(k);
    }
    let mut seqs = Vec::with_capacity(set.sequences.len());
    for &si in &set.sequences {
        if let Some(q) = anim::sequence(pkg, si, Some(set.bones.len()))
            .map_err(|e| EncodeError::new(e.to_string()))?
        {
            seqs.push(q);
        }
    }
    let seq_names: Vec<String> = seqs.iter().map(|q| q.name.clone()).collect();
    let mut done = Vec::new();
    for ps in &psa.sequences {
        let seq = seqs[match_name(&seq_names, &ps.name, false, "sequence", &set.name)?].clone();
        let si = seq.export;
        let stream = anim::stream(pkg, si).to_vec();
        let err = |e: crate::exact::DecodeError| EncodeError::new(format!("{}: {e}", seq.name));
        let (layouts, tracks) = anim::decode(&seq, &stream).map_err(err)?;
        let (_, uev) = anim::decode_with(&seq, &stream, Formulas::UeViewer).map_err(err)?;
        let nb = psa.bones.len();
        let nf = ps.num_frames;
        let old_nf = usize::try_from(seq.num_frames).ok();
        let mut edits = vec![anim::TrackEdit::default(); tracks.len()];
        let mut changed = false;
        for (b, &k) in bone_map.iter().enumerate() {
            let tr: Vec<Vec3> = (0..nf).map(|f| ps.keys[f * nb + b].0).collect();
            let ro: Vec<Quat> = (0..nf).map(|f| ps.keys[f * nb + b].1).collect();
            // What the export wrote for frame f (while the frame count is unchanged), and the
            // original key standing for it.
            let ex_t =
                |f: usize| old_nf.map(|n| anim::sample_translation(&uev[k].translations, f, n));
            let ex_r = |f: usize| old_nf.map(|n| anim::sample_rotation(&uev[k].rotations, f, n));
            let same = |a: Option<Vec<u32>>, b: Vec<u32>| a.is_some_and(|a| a == b);
            let t = &tracks[k];
            let unchanged_t = Some(nf) == old_nf
                && (0..nf).all(|f| same(ex_t(f).map(|v| v.bits()), tr[f].bits()));
            if !unchanged_t {
                edits[k].translations = Some(
                    (0..nf)
                        .map(|f| match original_key(&t.translations, f, nf, old_nf) {
                            Some(o) if same(ex_t(f).map(|v| v.bits()), tr[f].bits()) => o,
                            _ => tr[f],
                        })
                        .collect(),
                );
                changed = true;
            }
            let unchanged_r = Some(nf) == old_nf
                && (0..nf).all(|f| same(ex_r(f).map(|v| v.bits()), ro[f].bits()));
            if !unchanged_r {
                let mut keys = Vec::with_capacity(nf);
                for (f, r) in ro.iter().enumerate() {
                    keys.push(match original_key(&t.rotations, f, nf, old_nf) {
                        Some(o) if same(ex_r(f).map(|v| v.bits()), r.bits()) => o,
                        _ => {
                            super::upk::codec::check_rotation(r).map_err(|m| {
                                EncodeError::new(format!(
                                    "sequence {}, bone `{}`, frame {f}: {m}",
                                    ps.name, psa.bones[b]
                                ))
                            })?;
                            *r
                        }
                    });
                }
                edits[k].rotations = Some(keys);
                changed = true;
            }
        }
        set_frames_and_rate(pkg, &seq, nf, ps.rate)?;
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

/// A PSA sequence whose frame count or rate differs from the sequence's sets NumFrames and
/// SequenceLength = frames / rate · RateScale (both must exist with their types).
fn set_frames_and_rate(
    pkg: &mut Package,
    seq: &anim::Sequence,
    nf: usize,
    rate: f32,
) -> Result<(), crate::exact::EncodeError> {
    use crate::exact::EncodeError;
    let si = seq.export;
    let old_nf = usize::try_from(seq.num_frames).ok();
    let old_rate = seq.num_frames as f32 / seq.length * seq.rate_scale;
    if Some(nf) != old_nf || rate.to_bits() != old_rate.to_bits() {
        let frames = i32::try_from(nf).map_err(|_| {
            EncodeError::new(format!("{}: {nf} frames do not fit NumFrames", seq.name))
        })?;
        let length = nf as f32 / rate * seq.rate_scale;
        if !(length.is_finite() && length >= 0.0) {
            return Err(EncodeError::new(format!(
                "{}: PSA rate {} gives no usable SequenceLength ({length})",
                seq.name, rate
            )));
        }
        let names = pkg.name_texts.clone();
        let Some(super::upk::package::Object::Tagged { props, .. }) = pkg.objects.get_mut(si)
        else {
            return Err(EncodeError::new(format!(
                "{}: not a sequence record",
                seq.name
            )));
        };
        for (prop, value) in [
            ("NumFrames", super::upk::props::Value::Int(frames)),
            (
                "SequenceLength",
                super::upk::props::Value::Float(length.to_bits()),
            ),
        ] {
            let old = props.find_mut(&names, prop).ok_or_else(|| {
                EncodeError::new(format!(
                    "{}: the PSA changes the frame count or rate, but the sequence has no \
                     {prop} property to hold it",
                    seq.name
                ))
            })?;
            if std::mem::discriminant(&old.value) != std::mem::discriminant(&value) {
                return Err(EncodeError::new(format!(
                    "{}: {prop} is not stored as a {} property",
                    seq.name,
                    if prop == "NumFrames" { "Int" } else { "Float" }
                )));
            }
            old.value = value;
        }
    }
    Ok(())
}

/// The original key that frame `f` of `nf` stands for: key `f` of a part with one key per
/// frame, the only key of a one-key part (frame count unchanged), else none.
fn original_key<T: Copy>(keys: &[T], f: usize, nf: usize, old_nf: Option<usize>) -> Option<T> {
    if old_nf != Some(nf) {
        return None;
    }
    match keys.len() {
        1 => Some(keys[0]),
        n if n == nf => keys.get(f).copied(),
        _ => None,
    }
}

/// Fuzzing entry point of the package reader: the package pipeline
/// ([`upk::fuzz_package`](super::upk::fuzz_package)), then the PSA export of every AnimSet,
/// read back and imported into the package. Never panics.
pub fn fuzz_package(data: &[u8]) {
    super::upk::fuzz_package(data);
    let Ok(pkg) = Package::read(data) else { return };
    for set in anim::anim_sets(&pkg) {
        if let Ok(bytes) = export_set(&pkg, &set) {
            if let Ok(p) = read(&bytes) {
                let _ = import(&mut pkg.clone(), &set.name, &p);
            }
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_uev;
