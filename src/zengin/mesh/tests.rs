//! Every real mesh file of the corpus (MDM, MMB, MDL, TEX) through its format: binary → model →
//! binary and binary → YAML → binary give the same bytes.

use crate::codec::{Codec, ExportOptions, ImportOptions};
use crate::testing::corpus_path;
use crate::zengin::mesh::FileKind;
use crate::zengin::{mdl::Mdl, mdm::Mdm, mmb::Mmb, tex::Tex};
use std::path::Path;

fn round_trip<C: Codec>(path: &Path, data: &[u8]) {
    assert!(
        C::detect(data),
        "{}: not detected as {}",
        path.display(),
        C::TAG
    );
    let m = C::decode(data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    m.encode(&mut out).unwrap();
    assert!(
        out == data,
        "{}: binary → model → binary differs",
        path.display()
    );
    let yaml = m.to_yaml(&ExportOptions::default()).unwrap();
    let back = C::from_yaml(&yaml, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut again = Vec::new();
    back.encode(&mut again).unwrap();
    assert!(
        again == data,
        "{}: binary → YAML → binary differs",
        path.display()
    );
    assert!(C::diff(&m, &back).is_empty());
}

/// Every file in the corpus folders `realworld/mesh` and `realworld/mdl`, by extension.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_real_mesh_texture_and_model_file_is_byte_exact() {
    let mut counts = [0usize; 4];
    let (mut decoded, mut hex) = (0usize, Vec::new());
    for dir in ["realworld/mesh", "realworld/mdl"] {
        let Some(dir) = corpus_path(dir) else { return };
        for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let e = e.unwrap();
            let p = e.path();
            let ext = p
                .extension()
                .and_then(|x| x.to_str())
                .unwrap_or("")
                .to_ascii_lowercase();
            if !e.file_type().is_file() || ext == "md" {
                continue;
            }
            let data = std::fs::read(p).unwrap();
            let chunks = match ext.as_str() {
                "mdm" => Some((Mdm::decode(&data).unwrap().file, FileKind::Model)),
                "mmb" => Some((Mmb::decode(&data).unwrap().file, FileKind::Morph)),
                "mdl" => Some((Mdl::decode(&data).unwrap().file, FileKind::Model)),
                _ => None,
            };
            if let Some((file, kind)) = chunks {
                for d in file.docs(kind) {
                    match &d.data {
                        None => decoded += 1,
                        Some(b) if !b.is_empty() => hex.push(format!(
                            "{} 0x{:04X}",
                            e.file_name().to_string_lossy(),
                            d.id.0
                        )),
                        Some(_) => {}
                    }
                }
            }
            match ext.as_str() {
                "mdm" => round_trip::<Mdm>(p, &data),
                "mmb" => round_trip::<Mmb>(p, &data),
                "mdl" => round_trip::<Mdl>(p, &data),
                "tex" => round_trip::<Tex>(p, &data),
                _ => panic!("{}: unexpected file in the mesh corpus", p.display()),
            }
            let k = ["mdm", "mmb", "mdl", "tex"]
                .iter()
                .position(|x| *x == ext)
                .unwrap_or(0);
            counts[k] += 1;
        }
    }
    // the corpus as listed in its SOURCES.md files
    assert_eq!(counts, [126, 9, 18, 17], "MDM, MMB, MDL, TEX files");
    // every chunk with a payload shows its fields, but for the two damaged ones (a source
    // chunk whose length runs into the next chunk's header, see `mdl::tests`)
    assert_eq!(decoded, 2084, "chunks decoded");
    assert_eq!(
        hex,
        [
            "TOMBRAIDER_DS.MDL 0xD010",
            "TREASUREOLD_ADDON_01.MDL 0xD010"
        ],
        "chunks kept as hex"
    );
}

/// The mesh records both ways, one row each, values in the layouts ZenKit reads
/// (`MultiResolutionMesh`, `SoftSkinMesh`, `MorphMesh`).
#[test]
fn record_tables() {
    use super::model::{MorphAnimationHead, Weight};
    use super::mrm::{Head, Wedge, VERSION_G2};
    use crate::exact::record::both_ways;
    use crate::exact::F32;
    both_ways(&[(
        Weight {
            weight: F32::new(1.0),
            position: [2.5, -1.0, 0.0].map(F32::new),
            node: 3,
        },
        "0000803f 00002040 000080bf 00000000 03",
    )]);
    both_ways(&[(
        Head {
            version: VERSION_G2,
            data_size: 1234,
        },
        "0509 d2040000",
    )]);
    both_ways(&[(
        Wedge {
            normal: [0.0, 1.0, -0.0].map(F32::new),
            uv: [0.5, 0.25].map(F32::new),
            vertex: 7,
            padding: 0,
        },
        "00000000 0000803f 00000080 0000003f 0000803e 0700 0000",
    )]);
    both_ways(&[(
        MorphAnimationHead {
            blend_in: F32::new(0.0),
            blend_out: F32::new(0.5),
            duration: F32::new(1000.0),
            layer: 1,
            speed: F32::new(25.0),
            flags: 1,
            vertex_count: 3,
            frame_count: 10,
        },
        "00000000 0000003f 00007a44 01000000 0000c841 01 03000000 0a000000",
    )]);
}

/// Damaged files still go through YAML byte for byte: a byte of a real head and of a real
/// soft-skin mesh changed at a time (every 29th byte inverted), each file that still decodes
/// exports (a chunk its fields no longer reproduce stays hex) and imports to the same bytes.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn damaged_chunks_fall_back_to_hex_and_stay_byte_exact() {
    use crate::testing::corpus_file;
    fn each<C: Codec>(data: &[u8]) -> (usize, usize) {
        let (mut tried, mut hex) = (0, 0);
        for i in (0..data.len()).step_by(29) {
            let mut d = data.to_vec();
            d[i] ^= 0xFF;
            let Ok(m) = C::decode(&d) else { continue };
            tried += 1;
            let yaml = m.to_yaml(&ExportOptions::default()).unwrap();
            if yaml.contains("kind: multi-resolution mesh\n  data:") {
                hex += 1;
            }
            let back = C::from_yaml(&yaml, &ImportOptions::default())
                .unwrap_or_else(|e| panic!("byte {i}: {e}"));
            let mut out = Vec::new();
            back.encode(&mut out).unwrap();
            assert!(out == d, "byte {i}: binary → YAML → binary differs");
        }
        (tried, hex)
    }
    let samples = "realworld/mesh/GothicKit+ZenKit/tests/samples";
    let (Some(head), Some(skin)) = (
        corpus_file(&format!("{samples}/morph0.mmb")),
        corpus_file(&format!("{samples}/smoke_waterpipe.mdm")),
    ) else {
        return;
    };
    let (tried, hex) = each::<Mmb>(&head);
    assert!(tried > 150 && hex > 0, "{tried} decoded, {hex} meshes hex");
    let (tried, hex) = each::<Mdm>(&skin);
    assert!(tried > 450 && hex > 0, "{tried} decoded, {hex} meshes hex");
}
