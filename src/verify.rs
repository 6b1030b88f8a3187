//! The verify engine: for every recognised file, binary → model → binary and
//! binary → YAML → binary must both reproduce the input byte for byte.

pub use crate::exact::first_difference;
use crate::exact::Error;
use crate::registry::{self, ExportOptions, ImportOptions};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Which round trip failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Binary,
    Yaml,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::Binary => "binary → model → binary",
            Stage::Yaml => "binary → YAML → binary",
        })
    }
}

/// The result for one file.
#[derive(Debug)]
pub enum Outcome {
    Ok {
        tag: &'static str,
    },
    Mismatch {
        tag: &'static str,
        stage: Stage,
        offset: u64,
        field: String,
        original_len: usize,
        written_len: usize,
    },
    Failed {
        tag: Option<&'static str>,
        error: Error,
    },
    Unrecognised,
}

#[derive(Debug)]
pub struct FileReport {
    pub path: PathBuf,
    pub outcome: Outcome,
}

/// Verify one file's bytes.
pub fn verify_bytes(path: &Path, data: &[u8]) -> Outcome {
    let Some(format) = registry::detect(data) else {
        return Outcome::Unrecognised;
    };
    let tag = format.tag();
    let failed = |error| Outcome::Failed {
        tag: Some(tag),
        error,
    };
    let asset = match format.decode(data) {
        Ok(a) => a,
        Err(e) => {
            return failed(Error::Decode {
                file: path.into(),
                source: e,
            })
        }
    };
    let mismatch = |stage, written: &[u8]| {
        first_difference(data, written).map(|offset| Outcome::Mismatch {
            tag,
            stage,
            offset: offset as u64,
            field: asset.field_at(offset as u64),
            original_len: data.len(),
            written_len: written.len(),
        })
    };
    let encoded = match asset.encode() {
        Ok(b) => b,
        Err(e) => {
            return failed(Error::Encode {
                file: path.into(),
                source: e,
            })
        }
    };
    if let Some(m) = mismatch(Stage::Binary, &encoded) {
        return m;
    }
    drop(encoded);
    let yaml = match asset.to_yaml(&ExportOptions::default()) {
        Ok(y) => y,
        Err(e) => {
            return failed(Error::Encode {
                file: path.into(),
                source: e,
            })
        }
    };
    let reread = match format.read_yaml(&yaml, &ImportOptions::default()) {
        Ok(a) => a,
        Err(e) => {
            return failed(Error::other(
                path,
                format!("the exported YAML does not import again: {e}"),
            ))
        }
    };
    let written = match reread.encode() {
        Ok(b) => b,
        Err(e) => {
            return failed(Error::Encode {
                file: path.into(),
                source: e,
            })
        }
    };
    mismatch(Stage::Yaml, &written).unwrap_or(Outcome::Ok { tag })
}

/// Verify one file on disk.
pub fn verify_file(path: &Path) -> FileReport {
    let outcome = match crate::fsio::read_file(path) {
        Ok(data) => verify_bytes(path, &data),
        Err(error) => Outcome::Failed { tag: None, error },
    };
    FileReport {
        path: path.to_path_buf(),
        outcome,
    }
}

/// The files to look at: files as given, directories walked recursively (sorted).
pub fn collect_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            for entry in walkdir::WalkDir::new(p).sort_by_file_name() {
                let entry = entry.map_err(|e| Error::other(p, e.to_string()))?;
                if entry.file_type().is_file() {
                    out.push(entry.into_path());
                }
            }
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(Error::other(p, "no such file or directory"));
        }
    }
    Ok(out)
}

/// Progress of a verify run, for a progress bar: `found(n)` when `n` more items turn up (an
/// archive's members), `done()` once per finished item (a file, an archive, a member).
#[derive(Clone, Copy)]
pub struct Progress<'a> {
    pub found: &'a (dyn Fn(u64) + Sync),
    pub done: &'a (dyn Fn() + Sync),
}

impl Progress<'_> {
    /// No progress reporting.
    pub const NONE: Progress<'static> = Progress {
        found: &|_| {},
        done: &|| {},
    };
}

/// Verify one file on disk through a memory map; an archive (VDF) gives one report for
/// itself and one per recognised member, named `ARCHIVE:MEMBER/PATH`. `progress.done()` is
/// called for each member, not for the file itself.
pub fn verify_path(path: &Path, progress: Progress<'_>) -> Vec<FileReport> {
    let map = match crate::fsio::map_file(path) {
        Ok(m) => m,
        Err(error) => {
            return vec![FileReport {
                path: path.to_path_buf(),
                outcome: Outcome::Failed { tag: None, error },
            }]
        }
    };
    if crate::zengin::vdf_folder::is_archive(&map) {
        return crate::zengin::vdf_folder::verify_archive(
            path,
            &map,
            &|b| map.release(b),
            progress,
        );
    }
    vec![FileReport {
        path: path.to_path_buf(),
        outcome: verify_bytes(path, &map),
    }]
}

/// Verify many files on all cores. `progress` counts the files (each done when finished) and
/// archives' members (found when the archive is opened).
pub fn verify_files(files: &[PathBuf], progress: Progress<'_>) -> Vec<FileReport> {
    files
        .par_iter()
        .flat_map_iter(|p| {
            let r = verify_path(p, progress);
            (progress.done)();
            r
        })
        .collect()
}
