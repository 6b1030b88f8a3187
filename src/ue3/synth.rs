//! A synthetic BnS animation package generator (for benches and tests): one AnimSet with
//! `bones` tracks and `sequences` AnimSequences of `frames` frames, cycling through
//! Float96NoW, Fixed48NoW and ZOnlyRLE, laid out like the spec §7 recipe.

use super::codec::{self, Quat, RotFormat};
use super::package::{Export, Import, NameEntry, Object, Package, Summary};
use super::props::{FName, FStr, Names, Properties, Property, Value};
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
                n("MyAnimSet")
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
        let sets = crate::ue3::anim::anim_sets(&pkg);
        assert_eq!(sets[0].bones.len(), 5);
        for (k, &si) in sets[0].sequences.iter().enumerate() {
            let q = crate::ue3::anim::sequence(&pkg, si, Some(5))
                .unwrap()
                .unwrap();
            assert_eq!(q.name, format!("seq{k}"));
            let (_, t) = crate::ue3::anim::decode(&q, crate::ue3::anim::stream(&pkg, si)).unwrap();
            assert_eq!(t[0].translations.len(), 12);
            assert_eq!(t[0].translations[7], [7.0, 0.0, k as f32 * 0.5]);
            assert_eq!(t[3].rotations.len(), 12);
        }
        let yaml = crate::ue3::doc::to_yaml(&pkg).unwrap();
        let back = crate::ue3::doc::from_yaml(&yaml).unwrap();
        let mut out2 = Vec::new();
        back.write(&mut out2).unwrap();
        assert!(out2 == data);
    }
}
