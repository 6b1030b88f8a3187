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
