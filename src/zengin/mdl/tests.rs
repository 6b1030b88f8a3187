use super::*;
use crate::testing::corpus_file;

const DIR: &str =
    "realworld/mdl/NastasSanna+DarkSaga2_Plague-GIINoR_Mod-Resources/_work/Data/Anims/_compiled";

/// An MDL is its hierarchy (as an MDH reads it) and its mesh.
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn an_mdl_is_a_hierarchy_and_a_mesh() {
    let Some(data) = corpus_file(&format!("{DIR}/W-MAN_1.MDL")) else {
        return;
    };
    assert!(Mdl::detect(&data));
    let m = Mdl::decode(&data).unwrap();
    let names = m.hierarchy.node_names();
    assert_eq!(names.len(), 2);
    assert_eq!(names[0].to_string(), "BIP01");
    assert_eq!(m.file.base, 0x10D);
    assert_eq!(m.mesh.attachments.len(), 1);
    assert_eq!(m.mesh.attachments[0].0, "BIP01");
    assert_eq!(m.mesh.attachments[0].1.positions.len(), 64);
    assert_eq!(Codec::companion_key(&m), Some(0x64b2_b2cd));
    // the hierarchy part alone is still an MDH, not an MDL
    assert!(!Mdl::detect(&data[..0x10D]));
    // an edit of the hierarchy in YAML is written
    let yaml = m.to_yaml(&ExportOptions::default()).unwrap();
    // (YAML doubles the backslashes of `\_WORK\DATA\ANIMS\`)
    let edited = yaml.replacen("DATA\\\\ANIMS", "DATA\\\\ANIMX", 1);
    assert!(edited != yaml);
    let back = Mdl::from_yaml(&edited, &ImportOptions::default()).unwrap();
    let mut out = Vec::new();
    back.encode(&mut out).unwrap();
    assert_eq!(out.len(), data.len());
    assert!(out != data);
    assert_eq!(
        Codec::diff(&m, &back).len(),
        2,
        "{:?}",
        Codec::diff(&m, &back)
    );
}
