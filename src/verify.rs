//! The verify engine: for every recognised file, binary → model → binary and
//! binary → YAML → binary must both reproduce the input byte for byte.
//!
//! A format may compute the YAML round trip a cheaper way it proves equal
//! ([`Codec::yaml_round_trip`](crate::codec::Codec::yaml_round_trip)): the MAN does (most of
//! an animation archive), by turning each distinct sample value into text and back once
//! instead of once per sample — see `zengin::man::verify` for why that proves the same. A
//! file the cheaper way does not confirm goes through the ordinary round trip, which then
//! decides and reports.

pub use crate::codec::Stage;
use crate::codec::{Container, Format};
pub use crate::exact::first_difference;
use crate::exact::Error;
use crate::registry::{self, ExportOptions, ImportOptions};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

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
    // A format's cheaper, proven-equal YAML round trip (see `Codec::yaml_round_trip`; the MAN's
    // is explained in `zengin::man::verify`). Whatever it cannot confirm — including any
    // difference — is done again the ordinary way, so failures are reported exactly as before.
    if asset.yaml_round_trip().is_some_and(|w| w == data) {
        return Outcome::Ok { tag };
    }
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

/// Verify one file on disk through a memory map; a container (an archive) gives one report for
/// itself and one per member, named `ARCHIVE:MEMBER/PATH`. `progress.done()` is called for
/// each member, not for the file itself.
pub fn verify_path(path: &Path, progress: Progress<'_>) -> Vec<FileReport> {
    let mut out = Vec::new();
    verify_path_each(path, progress, &mut |r| out.push(r));
    out
}

/// [`verify_path`], each report handed to `each` as soon as it is known, in order (an
/// archive's members a batch at a time: memory stays bounded by the batch, not the archive).
pub fn verify_path_each(path: &Path, progress: Progress<'_>, each: &mut dyn FnMut(FileReport)) {
    let map = match crate::fsio::map_file(path) {
        Ok(m) => m,
        Err(error) => {
            return each(FileReport {
                path: path.to_path_buf(),
                outcome: Outcome::Failed { tag: None, error },
            })
        }
    };
    verify_data(path, &map, &|b| map.release(b), progress, each)
}

/// Verify a file's bytes: a container through [`verify_container`], any other file through
/// [`verify_bytes`].
pub fn verify_data(
    path: &Path,
    data: &[u8],
    release: &(dyn Fn(&[u8]) + Sync),
    progress: Progress<'_>,
    each: &mut dyn FnMut(FileReport),
) {
    if let Some(format) = registry::detect(data) {
        if let Some(container) = format.container() {
            return verify_container(path, data, format, container, release, progress, each);
        }
    }
    each(FileReport {
        path: path.to_path_buf(),
        outcome: verify_bytes(path, data),
    })
}

/// `verify` of a container: its own structure (see
/// [`Archive::verify_structure`](crate::codec::Archive::verify_structure)), then every member
/// (binary and YAML round trips), on all cores, each report named `ARCHIVE:MEMBER/PATH`;
/// unrecognised members are reported as such. `progress` learns the member count once the
/// container is open, and each member when it is done; `release` gets the stored bytes of each
/// member once it is verified.
pub fn verify_container(
    path: &Path,
    data: &[u8],
    format: &dyn Format,
    container: &dyn Container,
    release: &(dyn Fn(&[u8]) + Sync),
    progress: Progress<'_>,
    each: &mut dyn FnMut(FileReport),
) {
    let tag = format.tag();
    let report = |outcome| FileReport {
        path: path.to_path_buf(),
        outcome,
    };
    let decode_failed = |e| Outcome::Failed {
        tag: Some(tag),
        error: Error::Decode {
            file: path.into(),
            source: e,
        },
    };
    let archive = match container.open(data) {
        Ok(a) => a,
        Err(e) => return each(report(decode_failed(e))),
    };
    let own = report(match archive.verify_structure(release) {
        Ok(None) => Outcome::Ok { tag },
        Ok(Some(m)) => Outcome::Mismatch {
            tag,
            stage: m.stage,
            offset: m.offset,
            field: archive.field_at(m.offset),
            original_len: data.len(),
            written_len: m.written_len as usize,
        },
        Err(e) => Outcome::Failed {
            tag: Some(tag),
            error: Error::encode_in(path, e),
        },
    });
    let members = match archive.members() {
        Ok(m) => m,
        // The archive's own line says it (one report per file, not `ok` and `ERROR`): its
        // bytes round-trip, but its members cannot be found.
        Err(e) => return each(report(decode_failed(e))),
    };
    each(own);
    (progress.found)(members.len() as u64);
    let one = |m: &crate::codec::Member| {
        let mpath = registry::member_path(path, &archive.name(m.id));
        let outcome = match archive.read(m.id) {
            Ok(data) => {
                let o = verify_bytes(&mpath, &data);
                drop(data);
                // (the pages wholly inside the member, at once: a large member's)
                release(archive.stored(m.id));
                o
            }
            Err(why) => Outcome::Failed {
                tag: None,
                error: Error::other(&mpath, why),
            },
        };
        (progress.done)();
        FileReport {
            path: mpath,
            outcome,
        }
    };
    // Members in batches in archive order, the archive's pages released after each batch
    // (see `fsio::in_batches_releasing`), each batch's reports handed on before the next.
    let mut reports: Vec<FileReport> = Vec::new();
    crate::fsio::in_batches_releasing(
        data,
        members.as_slice(),
        |m| archive.stored(m.id),
        release,
        |batch| {
            reports.par_extend(batch.par_iter().map(one));
            reports.drain(..).for_each(&mut *each);
        },
    );
}

/// Files larger than this are verified one at a time, their reports handed on as they come
/// (an archive of many members); smaller ones many at once on all cores.
const ALONE: u64 = 16 << 20;

/// Verify many files on all cores. `progress` counts the files (each done when finished) and
/// archives' members (found when the archive is opened).
pub fn verify_files(files: &[PathBuf], progress: Progress<'_>) -> Vec<FileReport> {
    let mut out = Vec::new();
    verify_files_each(files, progress, &mut |r| out.push(r));
    out
}

/// [`verify_files`], each report handed to `each` in order as soon as it and those before it
/// are known: small files a batch at a time on all cores, a large file (an archive) alone,
/// its members a batch at a time. Memory stays bounded by a batch, not by the file count or
/// an archive's member count.
pub fn verify_files_each(
    files: &[PathBuf],
    progress: Progress<'_>,
    each: &mut dyn FnMut(FileReport),
) {
    let alone = |p: &PathBuf| std::fs::metadata(p).is_ok_and(|m| m.len() > ALONE);
    let mut rest = files;
    while let Some(first) = rest.first() {
        if alone(first) {
            verify_path_each(first, progress, each);
            (progress.done)();
            rest = &rest[1..];
            continue;
        }
        let n = rest
            .iter()
            .take(crate::fsio::RELEASE_BATCH)
            .take_while(|p| !alone(p))
            .count();
        let reports: Vec<Vec<FileReport>> = rest[..n]
            .par_iter()
            .map(|p| {
                let r = verify_path(p, progress);
                (progress.done)();
                r
            })
            .collect();
        reports.into_iter().flatten().for_each(&mut *each);
        rest = &rest[n..];
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn reports(path: &str, data: &[u8], progress: super::Progress<'_>) -> Vec<super::FileReport> {
        let mut out = Vec::new();
        super::verify_data(Path::new(path), data, &|_| {}, progress, &mut |r| {
            out.push(r)
        });
        out
    }

    fn outcomes(path: &str, data: &[u8]) -> Vec<(String, &'static str)> {
        reports(path, data, super::Progress::NONE)
            .iter()
            .map(|r| {
                let what = match r.outcome {
                    super::Outcome::Ok { .. } => "ok",
                    super::Outcome::Unrecognised => "unrecognised",
                    super::Outcome::Failed { .. } => "error",
                    _ => "other",
                };
                (r.path.display().to_string(), what)
            })
            .collect()
    }

    /// A member whose compressed data does not inflate: one error, for that member.
    #[test]
    fn a_damaged_member_is_one_error() {
        let (bad, _) = crate::zengin::vdf::tests::damaged_zipped_archive();
        assert_eq!(
            outcomes("D.VDF", &bad),
            [
                ("D.VDF".to_string(), "ok"),
                ("D.VDF:A.MAN".to_string(), "error"),
                ("D.VDF:B.MDH".to_string(), "unrecognised"),
            ]
        );
    }

    /// A catalog loop: the archive is reported once, as an error (not `ok`, then `ERROR`).
    #[test]
    fn a_catalog_loop_is_one_error() {
        let data = crate::zengin::vdf::tests::catalog_loop();
        assert_eq!(outcomes("L.VDF", &data), [("L.VDF".to_string(), "error")]);
    }

    #[test]
    #[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
    fn verify_reports_every_recognised_member_by_path() {
        let Some(anims) = crate::zengin::vdf::tests::archive_with_a_man() else {
            return;
        };
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
        let (found, done) = (AtomicU64::new(0), AtomicU64::new(0));
        let progress = super::Progress {
            found: &|n| {
                found.fetch_add(n, Relaxed);
            },
            done: &|| {
                done.fetch_add(1, Relaxed);
            },
        };
        let reports = reports("anims.vdf", &anims, progress);
        // Both members are announced and counted for a progress bar.
        assert_eq!((found.into_inner(), done.into_inner()), (2, 2));
        let lines: Vec<(String, bool)> = reports
            .iter()
            .map(|r| {
                (
                    r.path.display().to_string(),
                    matches!(r.outcome, super::Outcome::Ok { .. }),
                )
            })
            .collect();
        assert_eq!(
            lines,
            vec![
                ("anims.vdf".to_string(), true),
                ("anims.vdf:ANIMS/S_FISTRUN.MAN".to_string(), true),
                ("anims.vdf:README.TXT".to_string(), false),
            ]
        );
        assert!(matches!(reports[2].outcome, super::Outcome::Unrecognised));
    }
}
