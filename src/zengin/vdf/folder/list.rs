//! `vdf list` and `vdf extract`: the archive's entries, and matching files written below a folder.

use super::{member_contents, refusal, refuse_any};
use crate::exact::Error;
use crate::zengin::vdf::{path_case_key, safe_relative_path, PieceKind, Placement, Tree, Vdf};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
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
            let piece = placement.get(i).map(|p| &v.layout[p]);
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
        let Some(path) = tree.path(i) else {
            continue;
        };
        let path = &path[..];
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
                        let j = *first.get();
                        let first_path = tree.path(j).unwrap_or_default();
                        if first_path.eq_ignore_ascii_case(path) {
                            warnings.push(format!(
                                "catalog[{i}] {}: a file with this path was already extracted; skipped",
                                crate::exact::text::decode_cp1252(path)
                            ));
                        } else {
                            errors.push(format!(
                                "catalog[{i}] {} and catalog[{j}] {}: names that differ only in case are one file on Windows",
                                crate::exact::text::decode_cp1252(path),
                                crate::exact::text::decode_cp1252(&first_path)
                            ));
                        }
                        continue;
                    }
                    Entry::Vacant(v) => {
                        v.insert(i);
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
    let (plan, warnings) =
        plan_extract(v, tree, pattern).map_err(|errs| refusal(archive, "extract", &errs))?;
    // Every target checked before the first write: all of the extraction happens or none.
    let files: Vec<&Path> = plan.iter().map(|(_, r)| r.as_path()).collect();
    let mut problems = crate::fsio::check_output_tree(out, &files, &[], force);
    problems.extend(input_among_outputs(
        archive,
        out,
        plan.iter().map(|(i, r)| (*i, r.as_path())),
    ));
    problems.extend(too_long_paths(
        out,
        plan.iter().map(|(i, r)| (*i, r.clone())),
    ));
    refuse_any(archive, "extract", &problems)?;
    // Every member is written into a staging folder (unpredictable name) inside `out` and
    // only when all are there are they moved into place, one rename each: a damaged member,
    // a full disk or a kill leaves the old files (and, after a kill, the staging folder,
    // which `pack`/`repack` recognise and skip). Folders are reached through handles that
    // never follow a link (see `OutTree`).
    let placement = v.placement();
    let existed = out.exists();
    let root = crate::fsio::OutTree::open(out)?;
    let result = extract_staged(
        archive, src, v, &plan, &placement, &root, force, release, on_done,
    );
    if result.is_err() && !existed {
        // No empty output folder left behind (nothing was written into it).
        drop(root);
        let _ = std::fs::remove_dir(out);
    }
    result.map(|()| (plan.len(), warnings))
}

/// The writing part of [`extract`]: every member into a staging folder, then moved.
#[allow(clippy::too_many_arguments)]
fn extract_staged(
    archive: &Path,
    src: &[u8],
    v: &Vdf<'_>,
    plan: &[(usize, PathBuf)],
    placement: &Placement,
    root: &crate::fsio::OutTree,
    force: bool,
    release: &(dyn Fn(&[u8]) + Sync),
    on_done: &(dyn Fn() + Sync),
) -> Result<(), Error> {
    let out = root.path();
    let staging = root.staging()?;
    let results: Vec<Result<(), Error>> = plan
        .par_iter()
        .map(|(i, rel)| {
            let r = match member_contents(v, src, placement, *i) {
                Ok(data) => staging.tree().write_new(rel, &data).map_err(|e| {
                    // Named where it was going, not inside the staging folder.
                    let mut e = e;
                    *e.file_mut() = out.join(rel);
                    e
                }),
                Err(why) => Err(Error::other(
                    archive,
                    format!(
                        "catalog[{i}] {}: {why} (the archive is damaged; nothing was extracted)",
                        super::path_text(rel)
                    ),
                )),
            };
            if let Some(p) = placement.get(*i) {
                release(&v.layout[p].bytes);
            }
            on_done();
            r
        })
        .collect();
    for r in results {
        r?;
    }
    let files: Vec<&Path> = plan.iter().map(|(_, r)| r.as_path()).collect();
    staging.move_into_place(&files, force)
}

/// Problems of target paths (catalog index, path below `out`) longer than the system opens.
pub(super) fn too_long_paths(
    out: &Path,
    targets: impl Iterator<Item = (usize, PathBuf)>,
) -> Vec<String> {
    targets
        .filter_map(|(i, rel)| {
            crate::fsio::too_long(out, &rel).map(|len| {
                format!(
                    "catalog[{i}] {}: its path below {} would be {len} characters long, more than this system's limit of {}",
                    super::path_text(&rel),
                    out.display(),
                    crate::fsio::PATH_LIMIT - 1
                )
            })
        })
        .collect()
}

/// Problems of outputs that are the input itself: `(catalog index, path below out)` pairs
/// whose target is the file `input` (through links, `..` or case-insensitive names).
pub(super) fn input_among_outputs<'p>(
    input: &Path,
    out: &Path,
    targets: impl Iterator<Item = (usize, &'p Path)>,
) -> Vec<String> {
    let Ok(input) = std::fs::canonicalize(input) else {
        return Vec::new();
    };
    let Ok(out_abs) = std::fs::canonicalize(out) else {
        return Vec::new(); // a new folder holds no input
    };
    if !input.starts_with(&out_abs) {
        return Vec::new();
    }
    targets
        .filter(|(_, rel)| crate::fsio::same_file(&out.join(rel), &input))
        .map(|(i, rel)| {
            format!(
                "catalog[{i}] {}: would replace the archive being read ({}); extract elsewhere",
                super::path_text(rel),
                input.display()
            )
        })
        .collect()
}
