//! `animkit export DIR -o OUTDIR` / `animkit import DIR -o OUTDIR`: every recognised file of a
//! folder tree converted on all cores, the tree mirrored in OUTDIR, with a progress bar (on a
//! terminal only) and a summary.

use super::{Input, Status};
use crate::convert::{self, Existing, ExportJob, Output};
use crate::exact::Error;
use crate::registry::ImportOptions;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Which way a tree is converted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Binaries → `NAME.yaml`.
    Export,
    /// animkit YAML documents → the binary named without `.yaml`.
    Import,
}

/// What became of one file.
enum Outcome {
    Done,
    /// Not a file of this direction (not recognised, or not an animkit document).
    Skipped,
    /// A container: not converted as one YAML document (use `unpack`).
    Archive,
}

/// Convert every file of `dir` into `out`, mirroring the tree.
pub fn run(
    dir: &Path,
    out: Option<&Path>,
    force: bool,
    direction: Direction,
    opts: &ImportOptions,
) -> Result<Status, Error> {
    let out = out.ok_or_else(|| {
        Error::other(
            dir,
            "a folder: pass -o OUTDIR (the tree is mirrored there, one output per file)",
        )
    })?;
    let out_abs = std::path::absolute(out).map_err(|e| Error::io(out, e))?;
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| Error::other(dir, e.to_string()))?;
        // An output folder inside the input folder is not read again.
        if entry.file_type().is_dir()
            && std::path::absolute(entry.path()).is_ok_and(|p| p == out_abs)
        {
            continue;
        }
        if entry.file_type().is_file() && !inside(entry.path(), &out_abs) {
            files.push(entry.into_path());
        }
    }
    let bar = super::progress::bar(files.len(), "files");
    let results: Vec<(PathBuf, Result<Outcome, Error>)> = files
        .par_iter()
        .map(|file| {
            let rel = file.strip_prefix(dir).unwrap_or(file);
            let r = one(file, &out.join(rel), force, direction, opts);
            bar.inc(1);
            (file.clone(), r)
        })
        .collect();
    bar.finish_and_clear();
    let (mut done, mut skipped, mut archives, mut failed) = (0, 0, 0, 0);
    for (_, r) in &results {
        match r {
            Ok(Outcome::Done) => done += 1,
            Ok(Outcome::Skipped) => skipped += 1,
            Ok(Outcome::Archive) => archives += 1,
            Err(e) => {
                super::report(e);
                failed += 1;
            }
        }
    }
    eprintln!(
        "{} {done} file{} to {}; {skipped} not {}{}{}",
        if direction == Direction::Export {
            "exported"
        } else {
            "imported"
        },
        if done == 1 { "" } else { "s" },
        out.display(),
        if direction == Direction::Export {
            "recognised"
        } else {
            "animkit documents"
        },
        if archives > 0 {
            format!("; {archives} archive(s) left as they are (`animkit unpack` converts one)")
        } else {
            String::new()
        },
        if failed > 0 {
            format!("; {failed} failed")
        } else {
            String::new()
        }
    );
    if failed > 0 {
        return Err(Error::other(
            dir,
            format!("{failed} of {} files failed (see above)", files.len()),
        ));
    }
    Ok(Status::Ok)
}

fn inside(path: &Path, dir_abs: &Path) -> bool {
    std::path::absolute(path).is_ok_and(|p| p.starts_with(dir_abs))
}

fn one(
    file: &Path,
    target: &Path,
    force: bool,
    direction: Direction,
    opts: &ImportOptions,
) -> Result<Outcome, Error> {
    let input = match Input::read(file) {
        Ok(i) => i,
        Err(_) => return Ok(Outcome::Skipped),
    };
    let existing = if force {
        Existing::Replace
    } else {
        Existing::Refuse
    };
    let make_parent = |output: &Path| -> Result<(), Error> {
        if let Some(parent) = output.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        Ok(())
    };
    match direction {
        Direction::Export => {
            if input.from_yaml {
                return Ok(Outcome::Skipped);
            }
            if input.format.container().is_some() {
                return Ok(Outcome::Archive);
            }
            let opened = input.open(opts)?;
            let mut name = target.as_os_str().to_owned();
            name.push(".yaml");
            let output = PathBuf::from(name);
            make_parent(&output)?;
            let to = Output::File {
                path: &output,
                existing,
                backup: false,
            };
            convert::export_opened(&input, &opened, &ExportJob::default(), to)?;
        }
        Direction::Import => {
            if !input.from_yaml {
                return Ok(Outcome::Skipped);
            }
            let is_yaml = file
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
            if !is_yaml {
                return Ok(Outcome::Skipped);
            }
            let output = target.with_extension("");
            make_parent(&output)?;
            convert::import_input(&input, opts, &output, existing, false)?;
        }
    }
    Ok(Outcome::Done)
}
