//! The fuzz corpus replayed on every `cargo test` (issue 12 item 12): every input that ever
//! failed (`fuzz/regressions/<target>/`) and every sample, through the same checks the fuzz
//! targets run (`fuzz/fuzz_targets/`). A file `NAME.edit` is a recipe (an input made from a
//! corpus file is kept as its edits, since the corpus is not copied into the project):
//!
//! ```text
//! # comment
//! base samples/ANIMS.VDF            (or corpus:ue3/lzo/TestAnims.upk, from ../shared/corpus)
//! set OFFSET HEXBYTES               (overwrite bytes at a decimal offset)
//! truncate LENGTH
//! ```

use crate::common::{corpus_file, root};
use std::path::Path;

/// The bytes of one regression input, or `None` (with a notice; a failure in CI) when its
/// corpus base is missing.
pub fn input(path: &Path) -> Option<Vec<u8>> {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if path.extension().is_none_or(|e| e != "edit") {
        return Some(raw);
    }
    let text = String::from_utf8(raw).unwrap();
    let mut data: Option<Vec<u8>> = None;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (op, arg) = line.split_once(' ').unwrap_or((line, ""));
        match op {
            "base" => {
                data = Some(match arg.strip_prefix("corpus:") {
                    Some(rel) => corpus_file(rel)?,
                    None => std::fs::read(root().join(arg)).unwrap(),
                })
            }
            "set" => {
                let (at, hex) = arg.split_once(' ').unwrap_or_else(|| bad(path, line));
                let at: usize = at.parse().unwrap_or_else(|_| bad(path, line));
                let bytes = hex::decode(hex.replace(' ', "")).unwrap_or_else(|_| bad(path, line));
                let d = data.as_mut().unwrap_or_else(|| bad(path, line));
                d[at..at + bytes.len()].copy_from_slice(&bytes);
            }
            "truncate" => {
                let n: usize = arg.parse().unwrap_or_else(|_| bad(path, line));
                data.as_mut().unwrap_or_else(|| bad(path, line)).truncate(n);
            }
            _ => bad(path, line),
        }
    }
    data
}

fn bad<T>(path: &Path, line: &str) -> T {
    panic!("{}: bad line {line:?}", path.display())
}

/// What fuzz target `target` checks, on `data`.
fn replay(target: &str, data: &[u8]) {
    match target {
        "zengin_vdf" => animkit::zengin::vdf::folder::fuzz_one(data),
        "vdf_extract" => animkit::zengin::vdf::folder::fuzz_extract(data),
        "ue3_package" => animkit::ue3::fuzz_package(data),
        "mw3_anim" => animkit::mw3::anim::fuzz_round_trip(data).unwrap(),
        "yaml_import" => animkit::registry::fuzz_yaml_import(data),
        "ue3_track" if data.len() >= 17 => {
            let offs: Vec<i32> = data[1..17]
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            animkit::ue3::fuzz_track(&data[17..], &offs, data[0] as usize);
        }
        // zengin_man, zengin_mdh, zengin_msb, zengin_mds: the binary round trips.
        _ => {}
    }
    animkit::registry::fuzz_binary(data);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn every_regression_input_replays_cleanly() {
    let dir = root().join("fuzz/regressions");
    let mut n = 0;
    for target in std::fs::read_dir(&dir).unwrap() {
        let target = target.unwrap();
        let name = target.file_name().to_string_lossy().into_owned();
        for f in std::fs::read_dir(target.path()).unwrap() {
            let f = f.unwrap().path();
            if let Some(data) = input(&f) {
                eprintln!(
                    "replaying {name}/{}",
                    f.file_name().unwrap().to_string_lossy()
                );
                replay(&name, &data);
                n += 1;
            }
        }
    }
    assert!(n >= 9, "only {n} regression inputs");
}

#[test]
fn every_sample_replays_cleanly_through_every_target() {
    let mut n = 0;
    for f in std::fs::read_dir(root().join("samples")).unwrap() {
        let f = f.unwrap().path();
        let data = std::fs::read(&f).unwrap();
        for target in [
            "zengin_vdf",
            "vdf_extract",
            "ue3_package",
            "ue3_track",
            "yaml_import",
        ] {
            replay(target, &data);
        }
        // Its YAML document through the import target.
        if let Some(format) = animkit::registry::detect(&data) {
            let yaml = format
                .decode(&data)
                .unwrap()
                .to_yaml(&Default::default())
                .unwrap();
            replay("yaml_import", yaml.as_bytes());
        }
        n += 1;
    }
    assert_eq!(n, 16);
}

/// The regression recipes build the inputs they describe (a recipe that no longer hits its
/// spot would replay nothing useful).
#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn the_recipes_build_the_failing_inputs() {
    let r = root().join("fuzz/regressions");
    if let Some(d) = input(&r.join("ue3_package/lzo-match-before-block-start.edit")) {
        let e = animkit::ue3::Package::read(&d).unwrap_err().to_string();
        assert!(e.contains("before the start of the block"), "{e}");
    }
    if let Some(d) = input(&r.join("ue3_package/lzo-match-past-block-end.edit")) {
        let e = animkit::ue3::Package::read(&d).unwrap_err().to_string();
        assert!(e.contains("more than its stated 2652 bytes"), "{e}");
    }
    let d = input(&r.join("zengin_vdf/cut-short-in-data.edit")).unwrap();
    assert_eq!(d.len(), 7061);
    let e = animkit::zengin::vdf::Vdf::parse(&d)
        .unwrap_err()
        .to_string();
    assert!(e.contains("member SAMPLE.MDH"), "{e}");
    for (f, why) in [
        (
            "file-and-folder-share-a-path.vdf",
            "is both a file and a folder",
        ),
        (
            "absolute-name.vdf",
            "an absolute path (starts with a path separator)",
        ),
        ("nul-in-a-name.vdf", "contains a NUL byte"),
    ] {
        let d = input(&r.join("vdf_extract").join(f)).unwrap();
        let v = animkit::zengin::vdf::folder::open(Path::new(f), &d).unwrap();
        let tree = animkit::zengin::vdf::folder::tree(Path::new(f), &v).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let e = animkit::zengin::vdf::folder::extract(
            Path::new(f),
            &d,
            &v,
            &tree,
            None,
            &tmp.path().join("out"),
            false,
            &|_| {},
            &|| {},
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains(why) && e.contains("nothing was written"),
            "{f}: {e}"
        );
    }
}
