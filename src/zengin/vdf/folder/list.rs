//! `vdf list` and `vdf extract`: the archive's entries, and matching files written below a folder.

use super::member_contents;
use crate::exact::Error;
use crate::zengin::vdf::{path_case_key, safe_relative_path, PieceKind, Tree, Vdf};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// One line of `vdf list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListItem {
    pub index: usize,
    /// `/`-separated; directories end in `/`. `None` for entries no directory reaches.
    pub path: Option<String>,
    pub directory: bool,
    /// File: data offset; directory: first child index.
    pub offset: u32,
    /// Uncompressed size.
    pub size: u32,
    /// Bytes stored in the archive (the stream's length when compressed).
    pub stored: Option<u64>,
    pub zipped: bool,
    /// Whether the file owns its data (see [`Vdf`]).
    pub placed: bool,
}

pub fn list(v: &Vdf<'_>, tree: &Tree) -> Vec<ListItem> {
    let placement = v.placement();
    v.entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let piece = placement[i].map(|p| &v.layout[p]);
            ListItem {
                index: i,
                path: tree
                    .path_string(i)
                    .map(|p| if e.is_dir() { p + "/" } else { p }),
                directory: e.is_dir(),
                offset: e.offset,
                size: e.size,
                stored: piece.map(|p| p.bytes.len() as u64),
                zipped: matches!(
                    piece.map(|p| p.kind),
                    Some(PieceKind::File { zipped: true, .. })
                ),
                placed: piece.is_some(),
            }
        })
        .collect()
}

/// `*` and `?` wildcards, ASCII case-insensitive, over whole strings.
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p].eq_ignore_ascii_case(&text[t])) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some(p);
            mark = t;
            p += 1;
        } else if let Some(s) = star {
            p = s + 1;
            mark += 1;
            t = mark;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// (entry, relative path) pairs to extract, and warnings.
pub type ExtractPlan = (Vec<(usize, PathBuf)>, Vec<String>);

/// The file entries to extract and where (relative paths, every name checked). Unsafe names
/// are errors (nothing is written then); entries without a path, past the end or with a
/// path already taken are skipped with a warning.
pub fn plan_extract(
    v: &Vdf<'_>,
    tree: &Tree,
    pattern: Option<&str>,
) -> Result<ExtractPlan, Vec<String>> {
    let pat = pattern.map(|p| {
        crate::exact::text::encode_cp1252(p)
            .map(|c| c.into_owned())
            .unwrap_or_else(|_| p.as_bytes().to_vec())
    });
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let mut errors = Vec::new();
    let mut taken = HashMap::new();
    for (i, e) in v.entries.iter().enumerate() {
        if e.is_dir() {
            continue;
        }
        let Some(path) = tree.paths[i].as_ref() else {
            continue;
        };
        if let Some(pat) = &pat {
            let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
            if !glob_match(pat, path) && !glob_match(pat, name) {
                continue;
            }
        }
        match safe_relative_path(path) {
            Ok(rel) => {
                // One file on Windows (NTFS ignores case, Unicode-aware): the game's own
                // duplicates (equal ignoring ASCII case) are skipped as the game skips
                // them; names equal only ignoring other letters' case are refused, since
                // the second would overwrite the first where the archive is extracted.
                match taken.entry(path_case_key(path)) {
                    Entry::Occupied(first) => {
                        let (j, first_path): &(usize, &[u8]) = first.get();
                        if first_path.eq_ignore_ascii_case(path) {
                            warnings.push(format!(
                                "catalog[{i}] {}: a file with this path was already extracted; skipped",
                                crate::exact::text::decode_cp1252(path)
                            ));
                        } else {
                            errors.push(format!(
                                "catalog[{i}] {} and catalog[{j}] {}: names that differ only in case are one file on Windows",
                                crate::exact::text::decode_cp1252(path),
                                crate::exact::text::decode_cp1252(first_path)
                            ));
                        }
                        continue;
                    }
                    Entry::Vacant(v) => {
                        v.insert((i, path.as_slice()));
                    }
                }
                out.push((i, rel));
            }
            Err(why) => errors.push(format!("catalog[{i}]: {why}")),
        }
    }
    if errors.is_empty() {
        Ok((out, warnings))
    } else {
        Err(errors)
    }
}

/// Create `out` and every folder below it that `rels` need.
pub(super) fn make_dirs(out: &Path, rels: impl Iterator<Item = PathBuf>) -> Result<(), Error> {
    let mut made = HashSet::new();
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    for r in rels {
        if let Some(parent) = r.parent() {
            if made.insert(parent.to_path_buf()) {
                let d = out.join(parent);
                std::fs::create_dir_all(&d).map_err(|e| Error::io(&d, e))?;
            }
        }
    }
    Ok(())
}

/// Extract matching files below `out`. Returns (files written, warnings).
#[allow(clippy::too_many_arguments)]
pub fn extract(
    archive: &Path,
    src: &[u8],
    v: &Vdf<'_>,
    tree: &Tree,
    pattern: Option<&str>,
    out: &Path,
    force: bool,
    release: &(dyn Fn(&[u8]) + Sync),
    on_done: &(dyn Fn() + Sync),
) -> Result<(usize, Vec<String>), Error> {
    let (plan, mut warnings) = plan_extract(v, tree, pattern).map_err(|errs| {
        Error::other(
            archive,
            format!(
                "refusing to extract: {} (nothing was written)",
                errs.join("; ")
            ),
        )
    })?;
    // Every target checked before the first write: all of the extraction happens or none.
    let files: Vec<&Path> = plan.iter().map(|(_, r)| r.as_path()).collect();
    let problems = crate::fsio::check_output_tree(out, &files, &[], force);
    if !problems.is_empty() {
        return Err(Error::other(
            archive,
            format!(
                "refusing to extract: {} (nothing was written)",
                problems.join("; ")
            ),
        ));
    }
    let placement = v.placement();
    make_dirs(out, plan.iter().map(|(_, r)| r.clone()))?;
    let results: Vec<Result<Option<String>, Error>> =
        plan.par_iter()
            .map(|(i, rel)| {
                let r = match member_contents(v, src, &placement, *i) {
                    Ok(data) => crate::fsio::write_file_with(&out.join(rel), &data, force, false)
                        .map(|_| None),
                    Err(why) => Ok(Some(format!("{}: not extracted: {why}", rel.display()))),
                };
                if let Some(p) = placement[*i] {
                    release(&v.layout[p].bytes);
                }
                on_done();
                r
            })
            .collect();
    let mut n = 0;
    for r in results {
        match r? {
            None => n += 1,
            Some(w) => warnings.push(w),
        }
    }
    Ok((n, warnings))
}
