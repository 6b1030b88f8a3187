//! Every real mesh file of the corpus (MDM, MMB, MDL, TEX) through its format: binary → model →
//! binary and binary → YAML → binary give the same bytes.

use crate::codec::{Codec, ExportOptions, ImportOptions};
use crate::testing::corpus_path;
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
}
