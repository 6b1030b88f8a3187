//! `unpack`: an archive as a folder of files, recognised members also as YAML, and the
//! manifest.

use super::{
    make_dirs, manifest_piece, ManifestDocument, ManifestPiece, MANIFEST, MANIFEST_TAG,
    MANIFEST_VERSION, STREAMS,
};
use crate::codec::Formats;
use crate::exact::{Blob, Error, Hex32};
use crate::zengin::vdf::yaml::{HeaderDoc, PieceKindDoc};
use crate::zengin::vdf::{safe_relative_path, PieceKind, Tree, Vdf};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct UnpackOptions {
    /// Also write recognised assets as YAML.
    pub yaml: bool,
    /// Write recognised assets only as YAML (when their YAML reproduces them exactly).
    pub yaml_only: bool,
    pub force: bool,
}

#[derive(Debug, Default)]
pub struct UnpackReport {
    pub files: usize,
    pub yaml: usize,
    pub warnings: Vec<String>,
}

pub(super) fn path_text(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Recognised (non-archive) asset: its YAML text and (when `check`) whether the YAML alone
/// reproduces it.
pub(super) fn asset_yaml(formats: Formats, data: &[u8], check: bool) -> Option<(String, bool)> {
    let f = formats.detect(data)?;
    if f.container().is_some() {
        return None;
    }
    let asset = f.decode(data).ok()?;
    let yaml = asset.to_yaml(&Default::default()).ok()?;
    let exact = check
        && f.read_yaml(&yaml, &Default::default())
            .ok()
            .and_then(|a| a.encode().ok())
            .is_some_and(|b| b == data);
    Some((yaml, exact))
}

/// Unpack an archive into `out`; members of a format in `formats` are also written as YAML.
#[allow(clippy::too_many_arguments)]
pub fn unpack(
    archive: &Path,
    v: &Vdf<'_>,
    tree: &Tree,
    out: &Path,
    opts: &UnpackOptions,
    formats: Formats,
    release: &(dyn Fn(&[u8]) + Sync),
    on_done: &(dyn Fn() + Sync),
) -> Result<UnpackReport, Error> {
    let mut report = UnpackReport::default();
    let placement = v.placement();
    // Paths of placed files; every name must be safe and every path unique.
    let mut rels: HashMap<usize, PathBuf> = HashMap::new();
    let mut errors = Vec::new();
    let mut taken: HashMap<Vec<u8>, usize> = HashMap::new();
    for (i, e) in v.entries.iter().enumerate() {
        let Some(path) = tree.paths[i].as_ref() else {
            if !e.is_dir() && placement[i].is_some() {
                // No directory reaches it, but it owns data: kept beside the streams.
                rels.insert(i, PathBuf::from(STREAMS).join(format!("orphan-{i:05}.bin")));
            }
            continue;
        };
        if let Err(why) = safe_relative_path(path) {
            errors.push(format!("catalog[{i}]: {why}"));
            continue;
        }
        if let Some(j) = taken.insert(path.to_ascii_uppercase(), i) {
            errors.push(format!(
                "catalog[{i}] and catalog[{j}] have the same path {}",
                crate::exact::text::decode_cp1252(path)
            ));
        }
        if !e.is_dir() {
            match placement[i] {
                Some(_) => {
                    rels.insert(i, safe_relative_path(path).unwrap_or_default());
                }
                None => report.warnings.push(format!(
                    "catalog[{i}] {}: owns no data (see the warnings above); kept in the manifest, not extracted",
                    crate::exact::text::decode_cp1252(path)
                )),
            }
        }
    }
    for reserved in [MANIFEST, STREAMS] {
        if taken.contains_key(reserved.to_ascii_uppercase().as_bytes()) {
            errors.push(format!(
                "the archive holds {reserved} at its root, which unpack needs for itself"
            ));
        }
    }
    // An asset's YAML must not collide with another member.
    for rel in rels.values() {
        let y = format!("{}.yaml", path_text(rel)).to_ascii_uppercase();
        if taken.contains_key(y.as_bytes()) {
            errors.push(format!("{y}: clashes with the YAML file of another member"));
        }
    }
    if !errors.is_empty() {
        return Err(Error::other(
            archive,
            format!(
                "refusing to unpack: {} (nothing was written)",
                errors.join("; ")
            ),
        ));
    }
    // Whatever else lies in the folder would be added to the archive by `repack`.
    let nonempty = std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some());
    if nonempty && !opts.force {
        return Err(Error::other(
            out,
            "is not empty (repack would add every file in it); pass --force to unpack into it anyway",
        ));
    }
    if out.exists() && !out.is_dir() {
        return Err(Error::other(out, "exists and is not a folder"));
    }
    // A new (or empty) folder is filled beside its place and moved there at the end: files
    // are written directly, and no one sees the folder half-written. Into a non-empty folder
    // (--force) every file is written through its own temporary file instead.
    // (`-o .` and the like have no name to move a folder to: written in place too.)
    let staging = if nonempty || out.file_name().is_none() {
        None
    } else {
        Some(crate::fsio::Staging::new(out)?)
    };
    let root: PathBuf = staging.as_ref().map_or(out, |s| s.path()).to_path_buf();
    let final_out = out;
    let result = (|| -> Result<UnpackReport, Error> {
        let direct = staging.is_some();
        let put = |path: &Path, data: &[u8]| -> Result<(), Error> {
            if direct {
                crate::fsio::write_new(path, data)
            } else {
                crate::fsio::write_file_with(path, data, true, false)
            }
        };
        let out = root.as_path();
        make_dirs(out, rels.values().cloned())?;
        for (i, e) in v.entries.iter().enumerate() {
            if e.is_dir() {
                if let Some(Ok(rel)) = tree.paths[i].as_ref().map(|p| safe_relative_path(p)) {
                    let d = out.join(rel);
                    std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
                }
            }
        }
        if v.header.zipped() || rels.values().any(|r| r.starts_with(STREAMS)) {
            let d = out.join(STREAMS);
            std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
        }

        struct Done {
            piece: ManifestPiece,
            yaml: bool,
            warning: Option<String>,
        }
        let results: Vec<Result<Done, Error>> = v
            .layout
            .par_iter()
            .map(|p| {
                let r = (|| match p.kind {
                    PieceKind::Catalog => Ok(Done {
                        piece: manifest_piece(PieceKindDoc::Catalog),
                        yaml: false,
                        warning: None,
                    }),
                    PieceKind::Gap => Ok(Done {
                        piece: ManifestPiece {
                            data: Some(Blob::new(p.bytes.to_vec())),
                            ..manifest_piece(PieceKindDoc::Gap)
                        },
                        yaml: false,
                        warning: None,
                    }),
                    PieceKind::File { entry, zipped } => {
                        let rel = rels.get(&entry).cloned().unwrap_or_default();
                        let target = out.join(&rel);
                        let data = match v.piece_contents(placement[entry].unwrap_or_default()) {
                            Ok(d) => d,
                            Err(why) => {
                                return Err(Error::other(
                                    archive,
                                    format!(
                                        "{}: the compressed data does not inflate: {why}",
                                        path_text(&rel)
                                    ),
                                ))
                            }
                        };
                        let mut piece = ManifestPiece {
                            entry: Some(entry),
                            file: Some(path_text(&rel)),
                            crc32: Some(Hex32(crc32fast::hash(&data))),
                            ..manifest_piece(PieceKindDoc::File)
                        };
                        let mut warning = None;
                        let mut wrote_yaml = false;
                        let mut write_binary = true;
                        if opts.yaml || opts.yaml_only {
                            if let Some((yaml, exact)) = asset_yaml(formats, &data, opts.yaml_only) {
                                let ypath = yaml_path(&target);
                                put(&ypath, yaml.as_bytes())?;
                                piece.yaml = Some(Hex32(crc32fast::hash(yaml.as_bytes())));
                                wrote_yaml = true;
                                if opts.yaml_only {
                                    if exact {
                                        write_binary = false;
                                        piece.yaml_only = true;
                                    } else {
                                        warning = Some(format!(
                                            "{}: its YAML does not reproduce it exactly; the binary is kept too",
                                            path_text(&rel)
                                        ));
                                    }
                                }
                            }
                        }
                        if write_binary {
                            put(&target, &data)?;
                        }
                        if zipped {
                            let name = format!("{STREAMS}/{entry:05}.zs");
                            put(&out.join(&name), &p.bytes)?;
                            piece.stream = Some(name);
                        }
                        Ok(Done {
                            piece,
                            yaml: wrote_yaml,
                            warning,
                        })
                    }
                })();
                release(&p.bytes);
                on_done();
                r
            })
            .collect();
        let mut layout = Vec::with_capacity(results.len());
        for r in results {
            let d = r?;
            if d.piece.kind == PieceKindDoc::File {
                report.files += 1;
            }
            report.yaml += usize::from(d.yaml);
            report.warnings.extend(d.warning);
            layout.push(d.piece);
        }
        let doc = ManifestDocument {
            format: MANIFEST_TAG.into(),
            version: MANIFEST_VERSION,
            header: HeaderDoc::of(&v.header),
            catalog: crate::zengin::vdf::yaml::catalog_docs(v),
            layout,
        };
        let text = crate::yaml::to_string(&doc).map_err(|e| Error::other(out, e.to_string()))?;
        match staging {
            Some(st) => {
                crate::fsio::write_new(&out.join(MANIFEST), text.as_bytes())?;
                st.finish()?;
            }
            None => crate::fsio::write_file(&out.join(MANIFEST), text.as_bytes(), true)?,
        }
        Ok(report)
    })();
    // Errors name the files where they will be, not inside the staging folder.
    result.map_err(|mut e| {
        let file = e.file_mut();
        if let Ok(rel) = file.strip_prefix(&root) {
            if root != final_out {
                *file = final_out.join(rel);
            }
        }
        e
    })
}

pub(super) fn yaml_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".yaml");
    PathBuf::from(s)
}
