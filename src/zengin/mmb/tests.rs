use super::*;
use crate::testing::corpus_file;

/// ZenKit's `MorphMesh.load` expectations for its `morph0.mmb` sample.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn morph0_is_zenkits_small_bow() {
    let Some(data) = corpus_file("realworld/mesh/GothicKit+ZenKit/tests/samples/morph0.mmb") else {
        return;
    };
    let m = Mmb::decode(&data).unwrap().morph;
    assert_eq!(m.name, "ITRWSMALLBOW");
    assert_eq!(m.morph_positions.len(), 28);
    assert_eq!(m.morph_positions[0], [-40.946_14, -1.736_39, -26.751_29]);
    assert_eq!(m.morph_positions[1], [-29.614_72, -1.975_99, -9.197_57]);
    assert_eq!(m.animations.len(), 4);
    let a = &m.animations[1];
    assert_eq!(a.name, "S_SHOOT");
    assert_eq!(a.head.layer, 1);
    assert_eq!(a.head.blend_in.get(), 0.010_000_001);
    assert_eq!(a.head.blend_out.get(), -0.010_000_001);
    assert_eq!(a.head.duration.get(), 400.0);
    assert_eq!(a.head.speed.get(), 0.025);
    assert_eq!(a.head.flags, 0);
    assert_eq!(a.vertices, [25, 26, 27]);
    assert_eq!(a.head.frame_count, 10);
    assert_eq!(a.samples.len(), 30);
    assert_eq!(a.samples[0], [0.519_77, 0.0, 1.272_060_4]);
    assert_eq!(a.samples[9], [0.0, 0.0, 0.0]);
    assert_eq!(a.samples[19], [-8.511_26, 0.0, -20.829_94]);
    assert_eq!(m.sources.len(), 4);
    assert_eq!(m.sources[1], "ITRWSMALLBOWSHOOT.ASC");
}

/// A real head: its mesh, texture and facial animations.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_real_head() {
    let Some(data) =
        corpus_file("realworld/mesh/PiotrDrozdz96+Gothic/Anims/_compiled/ORCSTONE_HEAD.MMB")
    else {
        return;
    };
    let m = Mmb::decode(&data).unwrap().morph;
    assert_eq!(m.name, "ORCSTONE_HEAD");
    let mesh = m.mesh.as_ref().unwrap();
    assert_eq!((mesh.positions.len(), mesh.triangle_count()), (82, 116));
    assert_eq!(mesh.submeshes[0].texture.as_deref(), Some("MOSTHEAD01.TGA"));
    let names: Vec<&str> = m.animations.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "S_NEUTRAL",
            "S_ANGRY",
            "S_FRIENDLY",
            "S_FRIGHTENED",
            "VISEME"
        ]
    );
    assert_eq!(m.animations[4].head.frame_count, 15);
}

/// The YAML's fields are what the game reads: a vertex position and a texture name edited in
/// the YAML change exactly their bytes (the texture, one letter longer, also the chunk length
/// and the material object's size), and `diff` names the fields.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn yaml_edits_of_a_position_and_a_texture_are_written_there() {
    use crate::codec::{ExportOptions, ImportOptions};
    let Some(data) = corpus_file("realworld/mesh/GothicKit+ZenKit/tests/samples/morph0.mmb") else {
        return;
    };
    let m = Mmb::decode(&data).unwrap();
    let yaml = m.to_yaml(&ExportOptions::default()).unwrap();
    // the mesh is chunk 2 (after the start and header chunks); its first position
    assert_eq!(m.file.chunks[2].id, 0xB100);
    let edited = yaml.replacen(
        "    positions:\n    - [-40.94614, -1.73639, -26.75129]\n",
        "    positions:\n    - [-40.94614, 12.5, -26.75129]\n",
        1,
    );
    assert_ne!(edited, yaml);
    let back = Mmb::from_yaml(&edited, &ImportOptions::default()).unwrap();
    let mut out = Vec::new();
    back.encode(&mut out).unwrap();
    // position 0 is the data block's first record: after the chunk header (6) and the mesh
    // head (version, data size: 6); its y is the 4 bytes after x
    let y_at = m.file.payload_offsets()[2] as usize + 6 + 4;
    let changed: Vec<usize> = (0..data.len()).filter(|&i| data[i] != out[i]).collect();
    assert_eq!(out.len(), data.len());
    assert!(!changed.is_empty() && changed.iter().all(|i| (y_at..y_at + 4).contains(i)));
    assert_eq!(out[y_at..y_at + 4], 12.5f32.to_le_bytes());
    assert_eq!(back.morph.mesh.as_ref().unwrap().positions[0][1], 12.5);
    assert_eq!(
        back.diff(&m),
        ["chunks[2].mesh.positions[0]: [-40.94614, 12.5, -26.75129] → [-40.94614, -1.73639, -26.75129]"]
    );

    // a texture name one letter longer
    let edited = yaml.replacen(
        "texture: ITRANGEDWEAPONS.TGA",
        "texture: ITRANGEDWEAPONSX.TGA",
        1,
    );
    let back = Mmb::from_yaml(&edited, &ImportOptions::default()).unwrap();
    let mut out = Vec::new();
    back.encode(&mut out).unwrap();
    assert_eq!(out.len(), data.len() + 1);
    let tex = memchr::memmem::find(&data, b"ITRANGEDWEAPONS.TGA\0").unwrap();
    let at = tex + "ITRANGEDWEAPONS".len();
    // the same bytes before the texture's end but for the chunk length and the object size,
    // the inserted letter, the same bytes after
    let len_at = m.file.payload_offsets()[2] as usize - 4;
    let differs: Vec<usize> = (0..at).filter(|&i| data[i] != out[i]).collect();
    let old_len = u32::from_le_bytes(data[len_at..len_at + 4].try_into().unwrap());
    let new_len = u32::from_le_bytes(out[len_at..len_at + 4].try_into().unwrap());
    assert_eq!(new_len, old_len + 1);
    assert_eq!(out[at], b'X');
    assert_eq!(out[at + 1..], data[at..]);
    // the length's low byte and the material object's size (its low byte)
    assert_eq!(differs.len(), 2, "{differs:?}");
    assert_eq!(differs[0], len_at);
    assert_eq!(
        back.morph.mesh.as_ref().unwrap().submeshes[0]
            .texture
            .as_deref(),
        Some("ITRANGEDWEAPONSX.TGA")
    );
    assert_eq!(
        m.diff(&back),
        ["chunks[2].mesh.materials[0].texture: \"ITRANGEDWEAPONS.TGA\" → \"ITRANGEDWEAPONSX.TGA\""]
    );
}

/// An edit the file cannot hold is refused, naming the field: a frame with fewer offsets than
/// the animation's vertices, morph positions that do not match the mesh, fields of another
/// chunk kind.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn yaml_edits_that_cannot_be_written_are_refused_by_field() {
    use crate::codec::{ExportOptions, ImportOptions};
    let Some(data) = corpus_file("realworld/mesh/GothicKit+ZenKit/tests/samples/morph0.mmb") else {
        return;
    };
    let yaml = Mmb::decode(&data)
        .unwrap()
        .to_yaml(&ExportOptions::default())
        .unwrap();
    let refused = |from: &str, to: &str| {
        let edited = yaml.replacen(from, to, 1);
        assert_ne!(edited, yaml, "{from} not in the YAML");
        match Mmb::from_yaml(&edited, &ImportOptions::default()) {
            Err(crate::exact::ImportError::Encode(e)) => e.to_string(),
            other => panic!("not refused: {other:?}"),
        }
    };
    let e = refused(
        "    - [[0.51977, 0.0, 1.2720604], [0.51977, 0.0, 1.2720604], [0.38983, 0.0, 0.95405006]]",
        "    - [[0.51977, 0.0, 1.2720604], [0.51977, 0.0, 1.2720604]]",
    );
    assert!(
        e.starts_with("chunks[5].animations[1].frames[0]: 2 offsets, but `vertices` lists 3"),
        "{e}"
    );
    let e = refused(
        "  morph_positions:\n  - [-40.94614, -1.73639, -26.75129]\n",
        "  morph_positions:\n",
    );
    assert!(
        e.starts_with("chunks[3].morph_positions: 27 morph positions, but the mesh before has 28"),
        "{e}"
    );
    let wedge = yaml.lines().find(|l| l.contains(", vertex: ")).unwrap();
    let (head, _) = wedge.split_once(", vertex: ").unwrap();
    let e = refused(wedge, &format!("{head}, vertex: 999}}"));
    assert!(
        e.starts_with(
            "chunks[2].mesh.submeshes[0].wedges[0]: vertex 999 does not exist: the mesh has 28 positions"
        ),
        "{e}"
    );
    let e = refused(
        "- id: 0xB1FF\n  kind: mesh end / weights / morph positions\n  morph_positions:",
        "- id: 0xB1FE\n  kind: mesh end / weights / morph positions\n  morph_positions:",
    );
    assert!(
        e.starts_with("chunks[3]: `morph_positions` is the payload of a 0xB1FF chunk"),
        "{e}"
    );
}

/// The morph animations in the YAML document: ZenKit's values for `morph0.mmb` (as
/// `morph0_is_zenkits_small_bow` reads them), as fields.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn morph_animations_are_fields_of_the_document() {
    use crate::exact::F32;
    use crate::zengin::mesh::FileKind;
    let Some(data) = corpus_file("realworld/mesh/GothicKit+ZenKit/tests/samples/morph0.mmb") else {
        return;
    };
    let docs = Mmb::decode(&data).unwrap().file.docs(FileKind::Morph);
    let ids: Vec<u16> = docs.iter().map(|d| d.id.0).collect();
    assert_eq!(ids, [0xE000, 0xE020, 0xB100, 0xB1FF, 0xE010, 0xE030]);
    let head = docs[1].morph_header.as_ref().unwrap();
    assert_eq!(
        (head.version, head.name.to_string()),
        (3, "ITRWSMALLBOW".into())
    );
    let p = docs[3].morph_positions.as_ref().unwrap();
    assert_eq!(p.len(), 28);
    assert_eq!(p[1].xyz.map(F32::get), [-29.614_72, -1.975_99, -9.197_57]);
    let sources = docs[4].sources.as_ref().unwrap();
    assert_eq!(sources.len(), 4);
    assert_eq!(sources[1].file.to_string(), "ITRWSMALLBOWSHOOT.ASC");
    let a = &docs[5].animations.as_ref().unwrap()[1];
    assert_eq!(a.name.to_string(), "S_SHOOT");
    assert_eq!((a.layer, a.flags), (1, 0));
    assert_eq!(a.blend_in.get(), 0.010_000_001);
    assert_eq!(a.blend_out.get(), -0.010_000_001);
    assert_eq!(a.duration.get(), 400.0);
    assert_eq!(a.speed.get(), 0.025);
    assert_eq!(a.vertices, [25, 26, 27]);
    assert_eq!(a.frames.len(), 10);
    assert_eq!(
        a.frames[0][0].xyz.map(F32::get),
        [0.519_77, 0.0, 1.272_060_4]
    );
    assert_eq!(
        a.frames[6][1].xyz.map(F32::get),
        [-8.511_26, 0.0, -20.829_94]
    );
}
