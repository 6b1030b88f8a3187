use super::*;
use crate::exact::DecodeErrorKind;
use crate::testing::corpus_file;

const SAMPLES: &str = "realworld/mesh/GothicKit+ZenKit/tests/samples";

/// ZenKit's `ModelMesh.load` expectations for its `secretdoor.mdm` sample.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn secretdoor_has_one_attachment_with_eight_positions() {
    let Some(data) = corpus_file(&format!("{SAMPLES}/secretdoor.mdm")) else {
        return;
    };
    let m = Mdm::decode(&data).unwrap();
    assert_eq!(m.mesh.attachments.len(), 1);
    assert_eq!(m.mesh.attachments[0].0, "BIP01 DOOR");
    assert_eq!(m.mesh.attachments[0].1.positions.len(), 8);
    assert!(m.mesh.softskins.is_empty());
    assert_eq!(
        m.mesh.attachments[0].1.submeshes[0].texture.as_deref(),
        Some("TP_F_F01_256.TGA")
    );
}

/// ZenKit's expectations for `smoke_waterpipe.mdm`: one soft skin of 115 vertices with one
/// weight each, 6 nodes.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn smoke_waterpipe_soft_skin_weights_are_zenkits() {
    let Some(data) = corpus_file(&format!("{SAMPLES}/smoke_waterpipe.mdm")) else {
        return;
    };
    let m = Mdm::decode(&data).unwrap();
    assert_eq!(m.mesh.softskins.len(), 1);
    let sk = &m.mesh.softskins[0];
    assert_eq!(sk.mesh.positions.len(), 115);
    assert_eq!(sk.mesh.normals.len(), 115);
    assert_eq!(sk.mesh.submeshes.len(), 1);
    assert_eq!(sk.weights.len(), 115);
    let w = |v: usize| {
        assert_eq!(sk.weights[v].len(), 1);
        let w = sk.weights[v][0];
        (
            w.weight.get(),
            w.position.map(crate::exact::F32::get),
            w.node,
        )
    };
    assert_eq!(w(0), (1.0, [-5.497_761, 35.086_73, -2.647_560_1], 0));
    assert_eq!(w(62), (1.0, [0.260_997_77, 18.041_271, -23.904_888], 4));
    assert_eq!(w(114), (1.0, [1.053_043_4, 71.028_496, 1.320_499_4], 0));
    assert_eq!(sk.nodes.len(), 6);
    assert_eq!(sk.nodes[..3], [0, 5, 3]);
}

/// A real body: the soft skin, its 16 attachments and its texture.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_real_body_reads_its_skin_attachments_and_texture() {
    let Some(data) =
        corpus_file("realworld/mesh/PiotrDrozdz96+Gothic/Anims/_compiled/CR3_BODY.MDM")
    else {
        return;
    };
    let m = Mdm::decode(&data).unwrap();
    assert_eq!(m.mesh.checksum, Some(0x63CC_E1A0));
    assert_eq!(m.mesh.softskins.len(), 1);
    let sk = &m.mesh.softskins[0];
    assert_eq!(
        (
            sk.mesh.positions.len(),
            sk.mesh.triangle_count(),
            sk.nodes.len()
        ),
        (171, 316, 15)
    );
    assert_eq!(m.mesh.attachments.len(), 16);
    assert_eq!(m.mesh.attachments[0].0, "BIP01 L CLAW");
    assert_eq!(
        sk.mesh.submeshes[0].texture.as_deref(),
        Some("CRQ_DS_V0.TGA")
    );
    // the weights of every vertex sum to 1
    for (v, w) in sk.weights.iter().enumerate() {
        let s: f32 = w.iter().map(|w| w.weight.get()).sum();
        assert!((s - 1.0).abs() < 1e-3, "vertex {v}: weights sum to {s}");
    }
}

/// A weight count larger than what is left is an error at its offset, with its field path;
/// nothing is allocated for it.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_huge_weight_count_is_an_error_with_offset_and_path() {
    let Some(mut data) = corpus_file(&format!("{SAMPLES}/smoke_waterpipe.mdm")) else {
        return;
    };
    let file = ChunkFile::read(&data);
    let offsets = file.payload_offsets();
    let i = file
        .chunks
        .iter()
        .rposition(|c| c.id == crate::zengin::mesh::model::MRM_AFTER)
        .unwrap();
    // the weights chunk: u32 block size, then vertex 0's u32 weight count
    let at = offsets[i] as usize + 4;
    data[at..at + 4].copy_from_slice(&0x4000_0000u32.to_le_bytes());
    let e = Mdm::decode(&data).unwrap_err();
    assert_eq!(e.offset, at as u64 + 4);
    assert_eq!(e.path.to_string(), format!("chunks[{i}].weights[0]"));
    assert!(matches!(
        e.kind,
        DecodeErrorKind::CountTooLarge {
            count: 0x4000_0000,
            ..
        }
    ));
    // the file itself still verifies: a damaged view is an error, never a panic
    let cut = &data[..data.len() / 2];
    let _ = Mdm::decode(cut);
}

/// Soft-skin weights and attachment node names are YAML fields: an edited weight's node and an
/// edited node name are written and named by `diff`; weights for fewer vertices than the mesh
/// has are refused by field.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn yaml_edits_of_weights_and_node_names() {
    use crate::codec::{ExportOptions, ImportOptions};
    let (Some(skin), Some(door)) = (
        corpus_file(&format!("{SAMPLES}/smoke_waterpipe.mdm")),
        corpus_file(&format!("{SAMPLES}/secretdoor.mdm")),
    ) else {
        return;
    };
    let m = Mdm::decode(&skin).unwrap();
    let yaml = m.to_yaml(&ExportOptions::default()).unwrap();
    let first = "    - [{weight: 1.0, position: [-5.497761, 35.08673, -2.6475601], node: 0}]\n";
    let edited = yaml.replacen(
        first,
        "    - [{weight: 1.0, position: [-5.497761, 35.08673, -2.6475601], node: 5}]\n",
        1,
    );
    assert_ne!(edited, yaml);
    let back = Mdm::from_yaml(&edited, &ImportOptions::default()).unwrap();
    assert_eq!(back.mesh.softskins[0].weights[0][0].node, 5);
    let mut out = Vec::new();
    back.encode(&mut out).unwrap();
    let differs: Vec<usize> = (0..skin.len()).filter(|&i| skin[i] != out[i]).collect();
    // the weights chunk (5): after its size (4) and vertex 0's count (4), the weight's node
    // byte (after weight and position, 16)
    let at = m.file.payload_offsets()[5] as usize + 4 + 4 + 16;
    assert_eq!(differs, [at]);
    assert_eq!(
        m.diff(&back),
        ["chunks[5].weights.weights[0][0].node: 0 → 5"]
    );
    let e = match Mdm::from_yaml(&yaml.replacen(first, "", 1), &ImportOptions::default()) {
        Err(crate::exact::ImportError::Encode(e)) => e.to_string(),
        other => panic!("not refused: {other:?}"),
    };
    assert!(
        e.starts_with(
            "chunks[5].weights.weights: weights for 114 vertices, but the mesh before has 115"
        ),
        "{e}"
    );

    let m = Mdm::decode(&door).unwrap();
    let yaml = m.to_yaml(&ExportOptions::default()).unwrap();
    let edited = yaml.replacen("nodes: [BIP01 DOOR]", "nodes: [BIP01 DOOR LEFT]", 1);
    assert_ne!(edited, yaml);
    let back = Mdm::from_yaml(&edited, &ImportOptions::default()).unwrap();
    assert_eq!(back.mesh.attachments[0].0, "BIP01 DOOR LEFT");
    let mut out = Vec::new();
    back.encode(&mut out).unwrap();
    assert_eq!(out.len(), door.len() + 5);
    assert_eq!(
        m.diff(&back),
        ["chunks[2].nodes[0]: \"BIP01 DOOR\" → \"BIP01 DOOR LEFT\""]
    );
}
