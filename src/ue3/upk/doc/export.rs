//! Package → document: the `ue3.upk` YAML document of a decoded package.

use super::super::anim::{self, TrackEdit};
use super::super::codec::{Quat, RotFormat, Vec3};
use super::super::package::{Export, Object, Package, Summary};
use super::super::props::{FName, FStr, Names, Property, Value};
use super::*;
use crate::codec::Codec;

fn fstr_y(s: &FStr) -> FStrY {
    match s {
        FStr::Empty => FStrY::default(),
        FStr::Ansi(t) => FStrY {
            text: Some(t.clone()),
            utf16: None,
        },
        FStr::Utf16(u) => FStrY {
            text: None,
            utf16: Some(Blob::new(
                u.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
            )),
        },
    }
}

fn v3(v: Vec3) -> [F32; 3] {
    v.map(F32::new)
}
fn v4(v: Quat) -> [F32; 4] {
    v.map(F32::new)
}

fn prop_y(names: &Names, p: &Property) -> PropY {
    let n = |f: FName| names.to_yaml(f);
    let mut y = PropY {
        prop: n(p.name),
        ty: n(p.ty),
        index: p.array_index,
        struct_name: p.struct_name.map(n),
        ..Default::default()
    };
    match &p.value {
        Value::Bool(v) => {
            y.bool = Some(*v);
            y.size = (p.size != 0).then_some(p.size);
        }
        Value::Int(v) => y.int = Some(*v),
        Value::Float(b) => y.float = Some(F32(*b)),
        Value::Name(f) => y.name = Some(n(*f)),
        Value::Byte(b) => y.byte = Some(*b),
        Value::Object(v) => y.object = Some(*v),
        Value::Names(v) => y.names = Some(v.iter().map(|f| n(*f)).collect()),
        Value::Ints(v) => y.ints = Some(v.clone()),
        Value::Raw(b) => y.raw = Some(Blob::new(b.clone())),
    }
    y
}

fn track_y(bone: String, t: &anim::Track) -> TrackY {
    let (nt, nr) = (t.translations.len(), t.rotations.len());
    let l = nt.max(nr);
    let fits = |n: usize| n == 0 || n == 1 || n == l;
    if fits(nt) && fits(nr) {
        let pick = |n: usize, i: usize| if n == 1 { 0 } else { i };
        let keys = (0..l)
            .map(|i| KeyY {
                translation: (nt > 0).then(|| v3(t.translations[pick(nt, i)])),
                rotation: (nr > 0).then(|| v4(t.rotations[pick(nr, i)])),
            })
            .collect();
        TrackY {
            bone,
            mins_ranges: None,
            keys: Some(keys),
            translations: None,
            rotations: None,
        }
    } else {
        TrackY {
            bone,
            mins_ranges: None,
            keys: None,
            translations: Some(t.translations.iter().map(|&v| v3(v)).collect()),
            rotations: Some(t.rotations.iter().map(|&q| v4(q)).collect()),
        }
    }
}

pub fn to_doc(pkg: &Package) -> Result<UpkDocument, EncodeError> {
    let names = pkg.names();
    let n = |f: FName| names.to_yaml(f);
    let s = &pkg.summary;
    let sets = anim::anim_sets(pkg);
    let none = names.parse("None");
    let mut objects = Vec::with_capacity(pkg.objects.len());
    for (i, o) in pkg.objects.iter().enumerate() {
        objects.push(object_y(pkg, &sets, none, i, o));
    }
    Ok(UpkDocument {
        format: Package::TAG.into(),
        version: Package::YAML_VERSION,
        container: Container {
            whole_file_xor: pkg.whole_file_xor,
            compression: pkg.compressed.as_ref().map(|c| CompressionY {
                image_size: c.image_size,
                image_crc32: Hex32(c.image_crc32),
                stored: Blob::new(c.stored.clone()),
            }),
        },
        summary: summary_y(s),
        names: pkg
            .names
            .iter()
            .map(|e| {
                let f = fstr_y(&e.name);
                NameY {
                    name: f.text,
                    utf16: f.utf16,
                    flags: Hex64(e.flags),
                }
            })
            .collect(),
        imports: pkg
            .imports
            .iter()
            .map(|im| ImportY {
                class_package: n(im.class_package),
                class_name: n(im.class_name),
                outer: im.outer,
                object_name: n(im.object_name),
            })
            .collect(),
        exports: pkg.exports.iter().map(|e| export_y(names, e)).collect(),
        depends: Blob::new(pkg.depends.clone()),
        gaps: pkg
            .gaps
            .iter()
            .map(|g| GapY {
                offset: g.offset,
                bytes: Blob::new(g.bytes.clone()),
            })
            .collect(),
        objects,
    })
}

/// One object of the package: raw bytes, or tagged properties and (for an animation
/// sequence) its decoded tracks.
fn object_y(
    pkg: &Package,
    sets: &[anim::AnimSet],
    none: Option<FName>,
    i: usize,
    o: &Object,
) -> ObjectY {
    let names = pkg.names();
    let n = |f: FName| names.to_yaml(f);
    let mut y = ObjectY {
        export: pkg.export_name(i),
        class: pkg.class_of(i),
        raw: None,
        net_index: None,
        properties: None,
        properties_end: None,
        native: None,
        animation: None,
        not_decoded: None,
    };
    match o {
        Object::Empty => {}
        Object::Raw(b) => y.raw = Some(Blob::new(b.clone())),
        Object::Tagged {
            net_index,
            props,
            tail,
        } => {
            y.net_index = Some(*net_index);
            y.properties = Some(props.props.iter().map(|p| prop_y(names, p)).collect());
            if Some(props.terminator) != none {
                y.properties_end = Some(n(props.terminator));
            }
            let set = anim::set_of(sets, pkg, i);
            let decoded = anim::sequence(pkg, i, set.map(|s| sets[s].bones.len())).and_then(
                |seq| match seq {
                    Some(seq) => {
                        let stream = anim::stream(pkg, i);
                        anim::decode(&seq, stream).map(|(_, tracks)| Some((seq, stream, tracks)))
                    }
                    None => Ok(None),
                },
            );
            match decoded {
                Ok(Some((seq, stream, tracks))) => {
                    let bones = set.map(|s| sets[s].bones.as_slice()).unwrap_or_default();
                    y.animation = Some(animation_y(&seq, stream, &tracks, bones));
                }
                other => {
                    if let Err(e) = other {
                        y.not_decoded = Some(e.to_string());
                    }
                    if !tail.is_empty() {
                        y.native = Some(Blob::new(tail.clone()));
                    }
                }
            }
        }
    }
    y
}

/// The `animation:` part of a sequence decoded from `stream`.
fn animation_y(
    seq: &anim::Sequence,
    stream: &[u8],
    tracks: &[anim::Track],
    bones: &[String],
) -> AnimY {
    let headers = reproduce(seq, stream, tracks);
    AnimY {
        sequence: Some(seq.name.clone()),
        frames: Some(seq.num_frames),
        length: Some(F32::new(seq.length)),
        rate: Some(F32::new(rate(seq))),
        translation_format: Some(seq.translation_format.clone()),
        stream_format: seq.rotation_format.name().into(),
        tracks: tracks
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let mut y = track_y(
                    bones.get(k).cloned().unwrap_or_else(|| format!("track{k}")),
                    t,
                );
                y.mins_ranges = headers
                    .as_ref()
                    .and_then(|h| h.get(k).copied().flatten())
                    .map(|h| h.map(F32));
                y
            })
            .collect(),
        stream: headers.is_none().then(|| Blob::new(stream.to_vec())),
    }
}

/// The package summary (header) as the document shows it.
fn summary_y(s: &Summary) -> SummaryY {
    SummaryY {
        file_version: s.file_version,
        licensee_version: s.licensee_version,
        headers_size: s.headers_size,
        folder_name: fstr_y(&s.folder_name),
        package_flags: Hex32(s.package_flags),
        name_offset: s.name_offset,
        import_offset: s.import_offset,
        export_offset: s.export_offset,
        depends_offset: s.depends_offset,
        guid: Blob::new(s.guid.to_vec()),
        generations: s.generations.clone(),
        engine_version: s.engine_version,
        cooker_version: s.cooker_version,
        compression_flags: s.compression_flags,
        chunks: s
            .chunks
            .iter()
            .map(|c| {
                [
                    c.uncompressed_offset,
                    c.uncompressed_size,
                    c.compressed_offset,
                    c.compressed_size,
                ]
            })
            .collect(),
        package_source: Hex32(s.package_source),
        additional_packages: s.additional_packages.iter().map(fstr_y).collect(),
    }
}

/// One export table entry.
fn export_y(names: &Names, e: &Export) -> ExportY {
    let n = |f: FName| names.to_yaml(f);
    ExportY {
        name: n(e.name),
        class: e.class,
        super_index: e.super_index,
        outer: e.outer,
        archetype: e.archetype,
        object_flags: Hex64(e.object_flags),
        serial_size: e.serial_size,
        serial_offset: e.serial_offset,
        export_flags: Hex32(e.export_flags),
        net_object_counts: e.net_object_counts.clone(),
        package_guid: Blob::new(e.package_guid.to_vec()),
        package_flags: Hex32(e.package_flags),
    }
}

/// Whether encoding the decoded keys gives back exactly `stream` and the sequence's offsets,
/// allowing the rotation Mins/Ranges of some tracks to be given explicitly: `Some(headers)`
/// (per track, the 24 header bytes as f32 bits where they differ), or `None` when the stream
/// must be kept.
fn reproduce(
    seq: &anim::Sequence,
    stream: &[u8],
    tracks: &[anim::Track],
) -> Option<Vec<Option<[u32; 6]>>> {
    let edits: Vec<TrackEdit> = tracks
        .iter()
        .map(|t| TrackEdit {
            translations: Some(t.translations.clone()),
            rotations: Some(t.rotations.clone()),
        })
        .collect();
    let layouts = vec![Default::default(); tracks.len()];
    let (mut s, o) =
        anim::rebuild(&[], &layouts, &seq.offsets, &edits, seq.rotation_format).ok()?;
    if o != seq.offsets || s.len() != stream.len() {
        return None;
    }
    let mut headers = vec![None; tracks.len()];
    if seq.rotation_format != RotFormat::IntervalFixed32NoW {
        for (k, off) in o.iter().enumerate() {
            if off.rot_keys > 1 {
                let h = off.rot_offset as usize..off.rot_offset as usize + 24;
                if s.get(h.clone()) != stream.get(h.clone()) {
                    let orig = stream.get(h.clone())?;
                    let mut v = [0u32; 6];
                    for (c, b) in v.iter_mut().zip(orig.chunks_exact(4)) {
                        *c = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    }
                    headers[k] = Some(v);
                    s[h].copy_from_slice(orig);
                }
            }
        }
    }
    (s == stream).then_some(headers)
}
