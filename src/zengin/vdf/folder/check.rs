//! The archive's own round trips for `verify` (structure through the model and through the
//! manifest document, compared as written), and what the fuzz target runs.

use super::{
    list, manifest_piece, plan_extract, ManifestDocument, ManifestPiece, MANIFEST_TAG,
    MANIFEST_VERSION,
};
use crate::codec::{Mismatch, Stage};
use crate::exact::sink::CompareSink;
use crate::exact::{Blob, EncodeError};
use crate::zengin::vdf::yaml::{EntryDoc, HeaderDoc, PieceKindDoc};
use crate::zengin::vdf::{write_archive_in_order, Entry, PieceKind, Produced, Tree, Vdf};
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
    let mut sink = CompareSink::with_release(src, release);
    v.write(&mut sink)?;
    if let Some(d) = sink.first_difference() {
        return Ok(Some(Mismatch {
            stage: Stage::Binary,
            offset: d,
            written_len: sink.written_len(),
        }));
    }
    // Structure through YAML.
    let doc = ManifestDocument {
        format: MANIFEST_TAG.into(),
        version: MANIFEST_VERSION,
        header: HeaderDoc::of(&v.header),
        catalog: crate::zengin::vdf::yaml::catalog_docs(v),
        layout: v
            .layout
            .iter()
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
            .collect(),
    };
    let text = crate::yaml::to_string(&doc).map_err(|e| EncodeError::new(e.to_string()))?;
    let back: ManifestDocument =
        crate::yaml::from_str(&text).map_err(|e| EncodeError::new(e.to_string()))?;
    let mut header = back.header.to_header()?;
    let mut entries: Vec<Entry> = back
        .catalog
        .iter()
        .map(EntryDoc::to_entry)
        .collect::<Result<_, _>>()?;
    let placement = v.placement();
    let kinds: Vec<PieceKind> = back
        .layout
        .iter()
        .map(|p| match p.kind {
            PieceKindDoc::Catalog => PieceKind::Catalog,
            PieceKindDoc::Gap => PieceKind::Gap,
            PieceKindDoc::File => {
                let entry = p.entry.unwrap_or_default();
                let zipped = placement.get(entry).copied().flatten().is_some_and(|i| {
                    matches!(v.layout[i].kind, PieceKind::File { zipped: true, .. })
                });
                PieceKind::File { entry, zipped }
            }
        })
        .collect();
    let mut sink = CompareSink::with_release(src, release);
    // Borrowed bytes only: written in order, without threads.
    write_archive_in_order(
        &mut sink,
        &mut header,
        &mut entries,
        &kinds,
        false,
        &|i| {
            let bytes: &[u8] = match (&back.layout[i].kind, back.layout[i].entry) {
                (PieceKindDoc::Gap, _) => {
                    back.layout[i].data.as_ref().map_or(&[], |b| b.as_bytes())
                }
                (PieceKindDoc::File, Some(e)) => placement
                    .get(e)
                    .copied()
                    .flatten()
                    .map_or(&[][..], |p| &v.layout[p].bytes[..]),
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
    let Ok((v, tree)) = super::open(std::path::Path::new("fuzz.vdf"), data) else {
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
