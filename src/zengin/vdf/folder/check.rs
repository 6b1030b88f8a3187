//! The archive's own round trips for `verify` (structure through the model and through the
//! manifest document, compared as written), and what the fuzz target runs.

use super::{list, manifest_piece, plan_extract, ManifestPiece};
use crate::codec::{Mismatch, Stage};
use crate::exact::sink::CompareSink;
use crate::exact::{Blob, EncodeError};
use crate::zengin::vdf::yaml::{EntryDoc, HeaderDoc, PieceKindDoc};
use crate::zengin::vdf::{write_archive_in_order, Entry, Piece, PieceKind, Produced, Tree, Vdf};
use std::borrow::Cow;

/// The archive-level round trips on a mapped archive, without copying its data: binary →
/// model → binary, and binary → YAML (the archive's structure: header, catalog, layout, gaps;
/// the document `unpack` writes) → binary with each file's stored bytes taken from the model.
/// Returns the stage and first differing offset of a mismatch.
pub fn verify_archive_structure(
    src: &[u8],
    v: &Vdf<'_>,
    release: &(dyn Fn(&[u8]) + Sync),
) -> Result<Option<Mismatch>, EncodeError> {
    structure_round_trips(src, v, release, true)
}

/// [`verify_archive_structure`]; with `shortcut`, the YAML round trip is written only when
/// something comes back from YAML different from the model: otherwise it would write the
/// same header, entries, piece kinds and bytes as the binary round trip, which compared equal
/// (test `the_shortcut_decides_as_the_written_round_trip`).
fn structure_round_trips(
    src: &[u8],
    v: &Vdf<'_>,
    release: &(dyn Fn(&[u8]) + Sync),
    shortcut: bool,
) -> Result<Option<Mismatch>, EncodeError> {
    let mut sink = CompareSink::with_release(src, release);
    v.write(&mut sink)?;
    if let Some(d) = sink.first_difference() {
        return Ok(Some(Mismatch {
            stage: Stage::Binary,
            offset: d,
            written_len: sink.written_len(),
        }));
    }
    // Structure through YAML: the manifest `unpack` writes, a piece at a time (its header,
    // then its catalog and layout lists a run of items at a time, each run written as the
    // same list items and read back), so the text and documents in memory stay a run's, not
    // an archive of 100,000 members' (about 0.5 KB a member).
    let mut header = through_yaml(&HeaderDoc::of(&v.header))?.to_header()?;
    let tree = Tree::paths(&v.entries, v.header.catalog_start()).ok();
    // The entries read back, kept from the first one that differs from the model's on (all
    // of them without the shortcut).
    let mut back: Option<Vec<Entry>> = (!shortcut).then(|| Vec::with_capacity(v.entries.len()));
    for (k, run) in v.entries.chunks(YAML_RUN).enumerate() {
        let docs: Vec<EntryDoc> = run
            .iter()
            .enumerate()
            .map(|(j, e)| {
                let i = k * YAML_RUN + j;
                EntryDoc::of(e, tree.as_ref().and_then(|t| t.path_string(i)))
            })
            .collect();
        for (j, d) in through_yaml(&docs)?.into_iter().enumerate() {
            let e = d.to_entry()?;
            let i = k * YAML_RUN + j;
            if back.is_none() && v.entries.get(i) != Some(&e) {
                let mut all = Vec::with_capacity(v.entries.len());
                all.extend_from_slice(&v.entries[..i.min(v.entries.len())]);
                back = Some(all);
            }
            if let Some(all) = &mut back {
                all.push(e);
            }
        }
    }
    drop(tree);
    if back.is_none() && header == v.header && layout_comes_back(v)? {
        return Ok(None);
    }
    let mut entries = back.unwrap_or_else(|| v.entries.to_vec());
    // The layout read back kept as what writing needs: each piece's kind (its entry's
    // stored bytes are the model's), and the bytes of the gaps (not a document per piece).
    let placement = v.placement();
    let mut kinds: Vec<PieceKind> = Vec::with_capacity(v.layout.len());
    let mut gaps: Vec<(usize, Vec<u8>)> = Vec::new();
    // File pieces whose entry did not come back (written empty, as the document would be).
    let mut without_entry: Vec<usize> = Vec::new();
    for run in v.layout.chunks(YAML_RUN) {
        for p in through_yaml(&piece_docs(run))? {
            let i = kinds.len();
            kinds.push(match p.kind {
                PieceKindDoc::Catalog => PieceKind::Catalog,
                PieceKindDoc::Gap => {
                    if let Some(b) = p.data {
                        gaps.push((i, b.0));
                    }
                    PieceKind::Gap
                }
                PieceKindDoc::File => {
                    if p.entry.is_none() {
                        without_entry.push(i);
                    }
                    let entry = p.entry.unwrap_or_default();
                    let zipped = placement.get(entry).is_some_and(|i| {
                        matches!(v.layout[i].kind, PieceKind::File { zipped: true, .. })
                    });
                    PieceKind::File { entry, zipped }
                }
            });
        }
    }
    let mut sink = CompareSink::with_release(src, release);
    // Borrowed bytes only: written in order, without threads.
    write_archive_in_order(
        &mut sink,
        &mut header,
        &mut entries,
        &kinds,
        false,
        &|i| {
            let bytes: &[u8] = match kinds[i] {
                PieceKind::Gap => gaps
                    .binary_search_by_key(&i, |g| g.0)
                    .map_or(&[][..], |k| &gaps[k].1[..]),
                PieceKind::File { entry, .. } if without_entry.binary_search(&i).is_err() => {
                    placement
                        .get(entry)
                        .map_or(&[][..], |p| &v.layout[p].bytes[..])
                }
                _ => &[],
            };
            Ok(Produced::bytes(Cow::Borrowed(bytes), None))
        },
        &|| {},
    )?;
    Ok(sink.first_difference().map(|d| Mismatch {
        stage: Stage::Yaml,
        offset: d,
        written_len: sink.written_len(),
    }))
}

/// The manifest's items for a run of layout pieces.
fn piece_docs(run: &[Piece<'_>]) -> Vec<ManifestPiece> {
    run.iter()
        .map(|p| match p.kind {
            PieceKind::Catalog => manifest_piece(PieceKindDoc::Catalog),
            PieceKind::Gap => ManifestPiece {
                data: Some(Blob::new(p.bytes.to_vec())),
                ..manifest_piece(PieceKindDoc::Gap)
            },
            PieceKind::File { entry, .. } => ManifestPiece {
                entry: Some(entry),
                ..manifest_piece(PieceKindDoc::File)
            },
        })
        .collect()
}

/// Whether every layout piece comes back from YAML as it is: the same kind, a file the same
/// entry (so the same stored bytes and compression), a gap the same bytes.
fn layout_comes_back(v: &Vdf<'_>) -> Result<bool, EncodeError> {
    for run in v.layout.chunks(YAML_RUN) {
        let back = through_yaml(&piece_docs(run))?;
        if back.len() != run.len() {
            return Ok(false);
        }
        for (p, d) in run.iter().zip(&back) {
            let same = match (p.kind, d.kind) {
                (PieceKind::Catalog, PieceKindDoc::Catalog) => true,
                (PieceKind::Gap, PieceKindDoc::Gap) => {
                    d.data.as_ref().map_or(&[][..], |b| b.as_bytes()) == &p.bytes[..]
                }
                (PieceKind::File { entry, .. }, PieceKindDoc::File) => d.entry == Some(entry),
                _ => false,
            };
            if !same {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// Catalog entries or layout pieces written and read back as YAML at once (see
/// [`verify_archive_structure`]).
const YAML_RUN: usize = 4096;

/// `value` written as YAML (as in the manifest) and read back.
fn through_yaml<T: serde::Serialize + serde::de::DeserializeOwned>(
    value: &T,
) -> Result<T, EncodeError> {
    let text = crate::yaml::to_string(value).map_err(|e| EncodeError::new(e.to_string()))?;
    crate::yaml::from_str(&text).map_err(|e| EncodeError::new(e.to_string()))
}

/// What the fuzz target (`fuzz/fuzz_targets/zengin_vdf.rs`) runs on any input: no panic;
/// whatever parses is written back byte for byte (through the model and, for inputs below
/// 64 KiB, through the `zengin.vdf` YAML document), and its tree, listing and extraction plan
/// do not panic either.
pub fn fuzz_one(data: &[u8]) {
    let Ok(v) = Vdf::parse(data) else {
        return;
    };
    let mut c = std::io::Cursor::new(Vec::new());
    v.write(&mut c).expect("a parsed archive can be written");
    assert!(c.into_inner() == data, "binary → model → binary differs");
    match verify_archive_structure(data, &v, &|_| {}) {
        Ok(None) => {}
        other => panic!("structure round trip: {other:?}"),
    }
    if let Ok(tree) = Tree::build(&v.entries, v.header.catalog_start()) {
        let _ = list(&v, &tree);
        let _ = plan_extract(&v, &tree, Some("*.MAN"));
    }
    if data.len() < 1 << 16 {
        let owned = v.into_owned();
        let yaml = crate::zengin::vdf::yaml::to_yaml(&owned).expect("a parsed archive exports");
        let back = crate::zengin::vdf::yaml::from_yaml(&yaml).expect("its YAML imports");
        let mut c = std::io::Cursor::new(Vec::new());
        back.write(&mut c)
            .expect("the imported archive can be written");
        assert!(c.into_inner() == data, "binary → YAML → binary differs");
    }
}

/// What the `vdf_extract` fuzz target runs: any bytes as an archive extracted into a new
/// folder. No panic; every file written lies below the folder (no link is ever made or
/// followed), and an extraction that fails writes nothing at all.
pub fn fuzz_extract(data: &[u8]) {
    let name = std::path::Path::new("fuzz.vdf");
    let Ok(v) = super::open(name, data) else {
        return;
    };
    let Ok(tree) = super::tree(name, &v) else {
        return;
    };
    let root = tempfile::tempdir().expect("a temporary folder");
    let out = root.path().join("out");
    let result = super::extract(
        std::path::Path::new("fuzz.vdf"),
        data,
        &v,
        &tree,
        None,
        &out,
        false,
        &|_| {},
        &|| {},
    );
    let mut files = 0;
    for e in walkdir::WalkDir::new(root.path()) {
        let e = e.expect("the output folder can be walked");
        assert!(
            !e.path_is_symlink(),
            "{}: a link was made",
            e.path().display()
        );
        assert!(
            e.path().starts_with(&out) || e.depth() == 0,
            "{}",
            e.path().display()
        );
        files += usize::from(e.file_type().is_file());
    }
    match result {
        Ok((n, _)) => assert_eq!(n, files, "files written vs files reported"),
        Err(e) => {
            assert_eq!(files, 0, "a failed extraction wrote files: {e}");
            assert!(!out.exists(), "a failed extraction left its folder: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::structure_round_trips;
    use crate::zengin::vdf::Vdf;

    /// The shortcut (no YAML write when everything comes back as the model has it) decides
    /// as the written YAML round trip does, on archives with gaps, compression, damaged and
    /// unplaced members, and on one whose bytes are not what the model writes.
    #[test]
    fn the_shortcut_decides_as_the_written_round_trip() {
        let mut archives = vec![
            crate::zengin::vdf::tests::damaged_zipped_archive().0,
            crate::zengin::vdf::tests::catalog_loop(),
        ];
        archives.extend(crate::zengin::vdf::tests::archive_with_a_man());
        for name in ["basic.vdf"] {
            if let Some(d) = crate::zengin::vdf::tests::corpus(name) {
                archives.push(d);
            }
        }
        // a gap between the catalog and the first file, and a trailing gap
        let mut gapped = crate::zengin::vdf::tests::catalog_loop();
        gapped.extend_from_slice(b"trailing bytes");
        archives.push(gapped);
        let mut checked = 0;
        for data in &archives {
            let Ok(v) = Vdf::parse(data) else { continue };
            let short = structure_round_trips(data, &v, &|_| {}, true).unwrap();
            let long = structure_round_trips(data, &v, &|_| {}, false).unwrap();
            assert_eq!(short, long);
            assert_eq!(short, None);
            // compared with other bytes: the same mismatch either way
            let mut other = data.clone();
            let last = other.len() - 1;
            other[last] ^= 0x55;
            let short = structure_round_trips(&other, &v, &|_| {}, true).unwrap();
            let long = structure_round_trips(&other, &v, &|_| {}, false).unwrap();
            assert_eq!(short, long);
            assert!(short.is_some());
            checked += 1;
        }
        assert!(checked >= 3, "{checked} archives checked");
    }
}
