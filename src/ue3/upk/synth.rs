//! A synthetic BnS animation package generator (for benches and tests): one AnimSet with
//! `bones` tracks and `sequences` AnimSequences of `frames` frames, cycling through
//! Float96NoW, Fixed48NoW and ZOnlyRLE, laid out like the spec §7 recipe.

use super::codec::{self, Quat, RotFormat, Vec3};
use super::package::{Export, Import, NameEntry, Object, Package, Summary};
use super::props::{FName, FStr, Names, Properties, Property, Value};
use crate::exact::EncodeError;
use crate::exact::Text;

fn ansi(s: &str) -> FStr {
    FStr::Ansi(Text::new(s.as_bytes()))
}

/// Encode the package bytes.
pub fn synthetic(sequences: usize, bones: usize, frames: usize) -> Vec<u8> {
    let mut texts: Vec<String> = [
        "None",
        "Core",
        "Engine",
        "Class",
        "Package",
        "AnimSet",
        "AnimSequence",
        "TrackBoneNames",
        "ArrayProperty",
        "Sequences",
        "BoolProperty",
        "SequenceName",
        "NameProperty",
        "SequenceLength",
        "FloatProperty",
        "NumFrames",
        "IntProperty",
        "RotationCompressionFormat",
        "ByteProperty",
        "ACF_Float96NoW",
        "ACF_Fixed48NoW",
        "ACF_ZOnlyRLE",
        "CompressedTrackOffsets",
        "bServiced",
        "MyAnimSet",
        "Bench",
    ]
    .map(String::from)
    .to_vec();
    let bone0 = texts.len();
    texts.extend((0..bones).map(|b| format!("bone{b}")));
    let seq0 = texts.len();
    texts.extend((0..sequences).map(|s| format!("seq{s}")));
    let names = Names::new(texts.clone());
    let n = |s: &str| names.parse(s).unwrap_or_default();
    let idx = |i: usize| FName {
        index: i as i32,
        number: 0,
    };
    let prop = |name: &str, ty: &str, value: Value| Property {
        name: n(name),
        ty: n(ty),
        size: 0,
        array_index: 0,
        struct_name: None,
        value,
    };
    let mut objects = vec![Object::Tagged {
        net_index: -1,
        props: Properties {
            props: vec![
                prop(
                    "TrackBoneNames",
                    "ArrayProperty",
                    Value::Names((0..bones).map(|b| idx(bone0 + b)).collect()),
                ),
                prop(
                    "Sequences",
                    "ArrayProperty",
                    Value::Ints((0..sequences as i32).map(|s| s + 2).collect()),
                ),
                prop("bServiced", "BoolProperty", Value::Bool(1)),
            ],
            terminator: n("None"),
        },
        tail: Vec::new(),
    }];
    let formats = [
        RotFormat::Float96NoW,
        RotFormat::Fixed48NoW,
        RotFormat::ZOnlyRle,
    ];
    for s in 0..sequences {
        let fmt = formats[s % 3];
        let mut stream = Vec::new();
        let mut offs = Vec::new();
        for b in 0..bones {
            let t0 = stream.len() as i32;
            let tn = if b == 0 { frames } else { 1 };
            let tr: Vec<[f32; 3]> = (0..tn)
                .map(|f| [f as f32, b as f32, s as f32 * 0.5])
                .collect();
            codec::encode_translations(&tr, &mut stream);
            let r0 = stream.len() as i32;
            let rot: Vec<Quat> = (0..frames)
                .map(|f| {
                    let a = (f / 3) as f32 * 0.01 + b as f32 * 0.02;
                    let (sn, cs) = a.sin_cos();
                    if fmt == RotFormat::ZOnlyRle && b % 2 == 0 {
                        [0.0, 0.0, sn, cs]
                    } else {
                        [sn * 0.6, sn * 0.8 * 0.5, sn * 0.8 * 0.866, cs]
                    }
                })
                .collect();
            // Cannot fail: finite unit quaternions.
            let _ = codec::encode_rotations(&rot, fmt, &mut stream);
            codec::pad(&mut stream);
            offs.extend([t0, tn as i32, r0, frames as i32]);
        }
        let mut tail = (stream.len() as i32).to_le_bytes().to_vec();
        tail.extend_from_slice(&stream);
        let length = frames as f32 / 30.0;
        objects.push(Object::Tagged {
            net_index: -1,
            props: Properties {
                props: vec![
                    prop("SequenceName", "NameProperty", Value::Name(idx(seq0 + s))),
                    prop(
                        "SequenceLength",
                        "FloatProperty",
                        Value::Float(length.to_bits()),
                    ),
                    prop("NumFrames", "IntProperty", Value::Int(frames as i32)),
                    prop(
                        "RotationCompressionFormat",
                        "ByteProperty",
                        Value::Name(n(fmt.name())),
                    ),
                    prop("CompressedTrackOffsets", "ArrayProperty", Value::Ints(offs)),
                    prop("bServiced", "BoolProperty", Value::Bool(1)),
                ],
                terminator: n("None"),
            },
            tail,
        });
    }
    assemble(texts, names, objects, "MyAnimSet")
}

/// One sequence of [`package`]: its name, rotation format, NumFrames, SequenceLength, an
/// optional RateScale and per bone the translation and rotation keys (any counts).
#[derive(Debug, Clone)]
pub struct SeqSpec {
    pub name: String,
    pub format: RotFormat,
    pub frames: i32,
    pub length: f32,
    pub rate_scale: Option<f32>,
    pub tracks: Vec<(Vec<Vec3>, Vec<Quat>)>,
}

/// A package with one AnimSet `set` of tracks `bones` and the sequences `seqs`, each track
/// encoded by animkit's encoder in the sequence's format (parts laid out translation, rotation,
/// padding, track after track). Fails when a key cannot be encoded.
pub fn package(set: &str, bones: &[&str], seqs: &[SeqSpec]) -> Result<Vec<u8>, EncodeError> {
    let mut texts: Vec<String> = [
        "None",
        "Core",
        "Engine",
        "Class",
        "Package",
        "AnimSet",
        "AnimSequence",
        "TrackBoneNames",
        "ArrayProperty",
        "Sequences",
        "SequenceName",
        "NameProperty",
        "SequenceLength",
        "FloatProperty",
        "RateScale",
        "NumFrames",
        "IntProperty",
        "RotationCompressionFormat",
        "ByteProperty",
        "CompressedTrackOffsets",
    ]
    .map(String::from)
    .to_vec();
    for name in [set]
        .into_iter()
        .chain(bones.iter().copied())
        .chain(seqs.iter().map(|q| q.name.as_str()))
        .chain(seqs.iter().map(|q| q.format.name()))
    {
        if !texts.iter().any(|t| t == name) {
            texts.push(name.to_string());
        }
    }
    let names = Names::new(texts.clone());
    let n = |s: &str| names.parse(s).unwrap_or_default();
    let prop = |name: &str, ty: &str, value: Value| Property {
        name: n(name),
        ty: n(ty),
        size: 0,
        array_index: 0,
        struct_name: None,
        value,
    };
    let mut objects = vec![Object::Tagged {
        net_index: -1,
        props: Properties {
            props: vec![
                prop(
                    "TrackBoneNames",
                    "ArrayProperty",
                    Value::Names(bones.iter().map(|b| n(b)).collect()),
                ),
                prop(
                    "Sequences",
                    "ArrayProperty",
                    Value::Ints((0..seqs.len() as i32).map(|s| s + 2).collect()),
                ),
            ],
            terminator: n("None"),
        },
        tail: Vec::new(),
    }];
    for q in seqs {
        let mut stream = Vec::new();
        let mut offs = Vec::new();
        for (k, (tr, ro)) in q.tracks.iter().enumerate() {
            let t0 = stream.len() as i32;
            codec::encode_translations(tr, &mut stream);
            let r0 = stream.len() as i32;
            codec::encode_rotations(ro, q.format, &mut stream).map_err(|mut e| {
                e.message = format!("{} track {k}: {}", q.name, e.message);
                e
            })?;
            codec::pad(&mut stream);
            offs.extend([
                if tr.is_empty() { r0 } else { t0 },
                tr.len() as i32,
                r0,
                ro.len() as i32,
            ]);
        }
        let mut tail = (stream.len() as i32).to_le_bytes().to_vec();
        tail.extend_from_slice(&stream);
        let mut props = vec![
            prop("SequenceName", "NameProperty", Value::Name(n(&q.name))),
            prop(
                "SequenceLength",
                "FloatProperty",
                Value::Float(q.length.to_bits()),
            ),
        ];
        if let Some(r) = q.rate_scale {
            props.push(prop(
                "RateScale",
                "FloatProperty",
                Value::Float(r.to_bits()),
            ));
        }
        props.extend([
            prop("NumFrames", "IntProperty", Value::Int(q.frames)),
            prop(
                "RotationCompressionFormat",
                "ByteProperty",
                Value::Name(n(q.format.name())),
            ),
            prop("CompressedTrackOffsets", "ArrayProperty", Value::Ints(offs)),
        ]);
        objects.push(Object::Tagged {
            net_index: -1,
            props: Properties {
                props,
                terminator: n("None"),
            },
            tail,
        });
    }
    Ok(assemble(texts, names, objects, set))
}

/// A bone name longer than the 63 characters a PSA name holds (UE Viewer shortens it).
pub const LONG_BONE: &str = "Bip01_Spine_Upper_Chest_Twist_Helper_Bone_With_An_Extremely_Long_Name";

/// The unit quaternion of a rotation by `angle` radians about `axis`.
fn axis_angle(axis: [f32; 3], angle: f32) -> Quat {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let (s, c) = (angle * 0.5).sin_cos();
    [axis[0] / n * s, axis[1] / n * s, axis[2] / n * s, c]
}

/// The package `roundtrip-tests/data/ue3/FORMULAS.UPK`: one AnimSet `Formulas` (tracks `root`,
/// `pelvis` and [`LONG_BONE`]) whose sequences exercise every decoding formula and sampling
/// case of UE Viewer's PSA export: every rotation format (Fixed32NoW, IntervalFixed32NoW,
/// Float32NoW with zero fields, None, Identity, Fixed48NoW, ZOnlyRLE modes 0, 1 and 3), fewer
/// and more keys than frames (lerp, slerp with a negative dot and with nearly equal keys),
/// 23 keys for 23 frames (where `t / 23 · 23` rounds below `t`), one frame and a RateScale.
pub fn formulas() -> Vec<u8> {
    let mut seqs = format_sequences();
    seqs.extend(sampling_sequences());
    let mut scaled = seq(
        "ratescale",
        RotFormat::Fixed48NoW,
        5,
        vec![
            (line(5), rots(5, &|f| axis_angle([0.0, 1.0, 0.0], 0.1 * f))),
            (vec![], rots(5, &|f| axis_angle([0.5, 0.0, 0.5], 0.2 * f))),
            (vec![], rots(5, &|f| axis_angle([0.0, 0.3, 1.0], 0.15 * f))),
        ],
    );
    scaled.length = 0.2;
    scaled.rate_scale = Some(1.5);
    seqs.push(scaled);
    // Cannot fail: finite unit quaternions in every format's range.
    package("Formulas", &["root", "pelvis", LONG_BONE], &seqs).unwrap_or_default()
}

/// A sequence of `frames` frames at 30 per second.
fn seq(name: &str, format: RotFormat, frames: i32, tracks: Vec<(Vec<Vec3>, Vec<Quat>)>) -> SeqSpec {
    SeqSpec {
        name: name.into(),
        format,
        frames,
        length: frames as f32 / 30.0,
        rate_scale: None,
        tracks,
    }
}

/// `n` rotations `f(0)`, `f(1)` ….
fn rots(n: usize, f: &dyn Fn(f32) -> Quat) -> Vec<Quat> {
    (0..n).map(|i| f(i as f32)).collect()
}

/// `n` positions on a line.
fn line(n: usize) -> Vec<Vec3> {
    (0..n)
        .map(|i| [i as f32, 2.0 * i as f32 - 1.0, 0.5])
        .collect()
}

/// [`formulas`]' sequences for each rotation format's decoding.
fn format_sequences() -> Vec<SeqSpec> {
    vec![
        seq(
            "fixed32",
            RotFormat::Fixed32NoW,
            6,
            vec![
                (
                    line(6),
                    rots(6, &|f| axis_angle([0.3, 0.5, 0.8], 0.2 * f + 0.1)),
                ),
                (
                    vec![[0.0, 10.0, 0.0]],
                    rots(6, &|f| axis_angle([1.0, 0.0, 0.0], -0.15 * f)),
                ),
                (vec![], rots(6, &|f| axis_angle([0.2, -0.9, 0.1], 0.3 * f))),
            ],
        ),
        seq(
            "interval32",
            RotFormat::IntervalFixed32NoW,
            5,
            vec![
                (
                    line(5),
                    rots(5, &|f| axis_angle([0.0, 0.0, 1.0], 0.1 * f + 0.05)),
                ),
                (vec![], rots(5, &|f| axis_angle([0.5, 0.5, 0.7], 0.07 * f))),
                (vec![], vec![axis_angle([0.0, 1.0, 0.0], 0.4)]),
            ],
        ),
        seq(
            "float32",
            RotFormat::Float32NoW,
            5,
            vec![
                (
                    vec![],
                    rots(5, &|f| axis_angle([0.0, 0.0, 1.0], 0.2 * f + 0.1)),
                ),
                (
                    vec![],
                    rots(5, &|f| axis_angle([0.6, 0.8, 0.0], 0.3 * f + 0.2)),
                ),
                (
                    vec![],
                    rots(5, &|f| axis_angle([0.3, 0.3, 0.9], 0.25 * f + 0.3)),
                ),
            ],
        ),
        seq(
            "none",
            RotFormat::None,
            4,
            vec![
                (line(4), rots(4, &|f| axis_angle([0.0, 0.6, 0.8], 0.5 * f))),
                (
                    vec![],
                    vec![[0.0, 0.0, -0.6, -0.8], [0.1, 0.2, 0.3, 0.9273618]],
                ),
                (vec![], rots(4, &|f| axis_angle([1.0, 1.0, 0.0], 0.1 * f))),
            ],
        ),
        seq(
            "identity",
            RotFormat::Identity,
            3,
            vec![
                (line(3), vec![[0.0, 0.0, 0.0, 1.0]; 3]),
                (vec![], vec![[0.0, 0.0, 0.0, 1.0]; 3]),
                (vec![], vec![[0.0, 0.0, 0.0, 1.0]; 3]),
            ],
        ),
    ]
}

/// [`formulas`]' sequences for the sampling cases: sparse keys (lerp, slerp with a negative dot
/// and nearly equal keys), 23 keys for 23 frames, ZOnlyRLE, one frame, more keys than frames.
fn sampling_sequences() -> Vec<SeqSpec> {
    let near = axis_angle([0.0, 1.0, 0.0], 1.0);
    let near2 = axis_angle([0.0, 1.0, 0.0], 1.0001);
    vec![
        seq(
            "sparse",
            RotFormat::Float96NoW,
            10,
            vec![
                (
                    vec![[0.0, 0.0, 0.0], [5.0, 1.0, 0.0], [10.0, -2.0, 3.0]],
                    rots(4, &|f| axis_angle([0.0, 0.0, 1.0], 0.8 * f)),
                ),
                (
                    vec![],
                    vec![
                        axis_angle([1.0, 0.0, 0.0], 2.5),
                        axis_angle([-1.0, 0.0, 0.0], 2.5),
                        near,
                        near2,
                    ],
                ),
                (vec![[1.0, 2.0, 3.0], [-1.0, 0.5, 7.0]], vec![near, near2]),
            ],
        ),
        seq(
            "rounding",
            RotFormat::Fixed48NoW,
            23,
            vec![
                (
                    line(23),
                    rots(23, &|f| axis_angle([0.1, 0.2, 1.0], 0.05 * f)),
                ),
                (
                    vec![[0.0, 10.0, 0.0]],
                    vec![axis_angle([1.0, 0.0, 0.0], 0.3)],
                ),
                (
                    vec![],
                    rots(23, &|f| axis_angle([0.7, -0.2, 0.1], 0.09 * f + 0.2)),
                ),
            ],
        ),
        seq(
            "zonly",
            RotFormat::ZOnlyRle,
            9,
            vec![
                (
                    vec![],
                    [0.1f32, 0.1, 0.3, 0.5]
                        .iter()
                        .map(|&z| [0.0, 0.0, z, (1.0 - z * z).sqrt()])
                        .collect(),
                ),
                (
                    vec![],
                    rots(3, &|f| axis_angle([0.3, 0.4, 0.5], 0.4 * f + 0.1)),
                ),
                (
                    vec![],
                    rots(9, &|f| {
                        let x = 0.05 * (f / 2.0).floor();
                        [x, 0.0, 0.0, (1.0 - x * x).sqrt()]
                    }),
                ),
            ],
        ),
        seq(
            "single",
            RotFormat::Float96NoW,
            1,
            vec![
                (
                    vec![[1.0, 2.0, 3.0]],
                    vec![axis_angle([0.3, 0.3, 0.3], 0.7)],
                ),
                (vec![], vec![axis_angle([0.0, 1.0, 0.0], 0.2)]),
                (vec![], vec![]),
            ],
        ),
        seq(
            "morekeys",
            RotFormat::Float96NoW,
            4,
            vec![
                (line(7), rots(7, &|f| axis_angle([0.2, 0.9, 0.1], 0.3 * f))),
                (vec![], vec![]),
                (vec![], rots(7, &|f| axis_angle([1.0, 0.0, 0.2], 0.2 * f))),
            ],
        ),
    ]
}

/// Lay out a package of `objects` (the AnimSet first, then its sequences) with the name table
/// `texts`: summary, names, the three imports, exports, depends map, objects in order.
fn assemble(texts: Vec<String>, names: Names, objects: Vec<Object>, set_name: &str) -> Vec<u8> {
    let n = |s: &str| names.parse(s).unwrap_or_default();
    let imports = vec![
        Import {
            class_package: n("Core"),
            class_name: n("Package"),
            outer: 0,
            object_name: n("Engine"),
        },
        Import {
            class_package: n("Core"),
            class_name: n("Class"),
            outer: -1,
            object_name: n("AnimSet"),
        },
        Import {
            class_package: n("Core"),
            class_name: n("Class"),
            outer: -1,
            object_name: n("AnimSequence"),
        },
    ];
    let name_entries: Vec<NameEntry> = texts
        .iter()
        .map(|t| NameEntry {
            name: ansi(t),
            flags: 0x0007_0010_0000_0000,
        })
        .collect();
    let nexp = objects.len();
    let mut summary = Summary {
        file_version: 573,
        licensee_version: 1,
        headers_size: 0,
        folder_name: ansi("None"),
        package_flags: 0x8,
        name_count: name_entries.len() as i32,
        name_offset: 0,
        export_count: nexp as i32,
        export_offset: 0,
        import_count: 3,
        import_offset: 0,
        depends_offset: 0,
        guid: [0; 16],
        generations: vec![[nexp as i32, name_entries.len() as i32, 0]],
        engine_version: 3000,
        cooker_version: 100,
        compression_flags: 0,
        chunks: Vec::new(),
        package_source: 0x1234_5678,
        additional_packages: Vec::new(),
    };
    let mut tmp = Vec::new();
    summary.write(&mut tmp);
    let names_len: usize = name_entries
        .iter()
        .map(|e| {
            let mut v = Vec::new();
            e.name.write(&mut v);
            v.len() + 8
        })
        .sum();
    summary.name_offset = tmp.len() as i32;
    summary.import_offset = summary.name_offset + names_len as i32;
    summary.export_offset = summary.import_offset + 28 * 3;
    summary.depends_offset = summary.export_offset + 68 * nexp as i32;
    summary.headers_size = summary.depends_offset + 4 * nexp as i32;
    let mut off = summary.headers_size;
    let mut exports = Vec::with_capacity(nexp);
    for (i, o) in objects.iter().enumerate() {
        let mut v = Vec::new();
        o.write(&mut v);
        exports.push(Export {
            class: if i == 0 { -2 } else { -3 },
            super_index: 0,
            outer: if i == 0 { 0 } else { 1 },
            name: if i == 0 {
                n(set_name)
            } else {
                FName {
                    index: n("AnimSequence").index,
                    number: i as i32,
                }
            },
            archetype: 0,
            object_flags: 0x7_0004,
            serial_size: v.len() as i32,
            serial_offset: off,
            export_flags: 0,
            net_object_counts: Vec::new(),
            package_guid: [0; 16],
            package_flags: 0,
        });
        off += v.len() as i32;
    }
    let pkg = Package {
        whole_file_xor: false,
        compressed: None,
        summary,
        names: name_entries,
        imports,
        exports,
        depends: vec![0; 4 * nexp],
        objects,
        gaps: Vec::new(),
        name_texts: names,
    };
    let mut out = Vec::new();
    // The layout above is consistent, so writing cannot fail.
    let _ = pkg.write(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_packages_read_decode_and_round_trip() {
        let data = synthetic(4, 5, 12);
        let pkg = Package::read(&data).unwrap();
        assert_eq!(pkg.exports.len(), 5);
        let mut out = Vec::new();
        pkg.write(&mut out).unwrap();
        assert!(out == data);
        let sets = crate::ue3::upk::anim::anim_sets(&pkg);
        assert_eq!(sets[0].bones.len(), 5);
        for (k, &si) in sets[0].sequences.iter().enumerate() {
            let q = crate::ue3::upk::anim::sequence(&pkg, si, Some(5))
                .unwrap()
                .unwrap();
            assert_eq!(q.name, format!("seq{k}"));
            let (_, t) =
                crate::ue3::upk::anim::decode(&q, crate::ue3::upk::anim::stream(&pkg, si)).unwrap();
            assert_eq!(t[0].translations.len(), 12);
            assert_eq!(t[0].translations[7], [7.0, 0.0, k as f32 * 0.5]);
            assert_eq!(t[3].rotations.len(), 12);
        }
        let yaml = crate::ue3::upk::doc::to_yaml(&pkg).unwrap();
        let back = crate::ue3::upk::doc::from_yaml(&yaml).unwrap();
        let mut out2 = Vec::new();
        back.write(&mut out2).unwrap();
        assert!(out2 == data);
    }
}
