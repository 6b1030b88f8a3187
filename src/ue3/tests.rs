//! Corpus tests: the four container variants of `../shared/corpus/ue3/`.

use super::package::Package;
use std::path::PathBuf;

pub(crate) fn corpus(rel: &str) -> Option<Vec<u8>> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/ue3")
        .join(rel);
    match std::fs::read(&p) {
        Ok(d) => Some(d),
        Err(e) => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("corpus file {} missing: {e}", p.display());
            }
            eprintln!(
                "notice: corpus file {} not found, test skipped",
                p.display()
            );
            None
        }
    }
}

pub(crate) const VARIANTS: [&str; 4] = ["plain", "obf", "xor", "lzo"];

#[test]
fn every_variant_round_trips_byte_for_byte() {
    for v in VARIANTS {
        let Some(data) = corpus(&format!("{v}/TestAnims.upk")) else {
            return;
        };
        let pkg = Package::read(&data).unwrap_or_else(|e| panic!("{v}: {e}"));
        let mut out = Vec::new();
        pkg.write(&mut out).unwrap();
        assert_eq!(out.len(), data.len(), "{v}");
        assert!(out == data, "{v}: rewritten bytes differ");
        assert_eq!(pkg.names.len(), 33);
        assert_eq!(pkg.exports.len(), 4);
        assert_eq!(pkg.gaps.len(), 0, "{v}: {:?}", pkg.gaps);
        let sizes: Vec<(i32, i32)> = pkg
            .exports
            .iter()
            .map(|e| (e.serial_offset, e.serial_size))
            .collect();
        assert_eq!(
            sizes,
            [(1249, 168), (1417, 492), (1909, 436), (2345, 416)],
            "{v}"
        );
        assert_eq!(pkg.whole_file_xor, v == "xor");
        assert_eq!(pkg.compressed.is_some(), v == "lzo");
    }
}

#[test]
fn psa_export_equals_ue_viewer_output() {
    for v in VARIANTS {
        let Some(data) = corpus(&format!("{v}/TestAnims.upk")) else {
            return;
        };
        let Some(want) = corpus(&format!("{v}/MyAnimSet.psa")) else {
            return;
        };
        let pkg = Package::read(&data).unwrap();
        let sets = super::anim::anim_sets(&pkg);
        assert_eq!(sets.len(), 1);
        assert_eq!(sets[0].name, "MyAnimSet");
        assert_eq!(sets[0].bones, ["root", "pelvis", "spine"]);
        let got = super::psa::export_set(&pkg, &sets[0]).unwrap();
        assert_eq!(got.len(), want.len(), "{v}");
        let diff: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
        assert!(diff.is_empty(), "{v}: PSA differs at {diff:?}");
    }
}
