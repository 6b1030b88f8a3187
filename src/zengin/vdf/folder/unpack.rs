//! `unpack`: an archive as a folder of files, recognised members also as YAML, and the
//! manifest.

use super::{
    key_hash, manifest_piece, ManifestDocument, ManifestPiece, MANIFEST, MANIFEST_TAG,
    MANIFEST_VERSION, STREAMS,
};
use crate::codec::Formats;
use crate::exact::{Blob, Error, Hex32};
use crate::zengin::vdf::yaml::{HeaderDoc, PieceKindDoc};
use crate::zengin::vdf::{
    case_key, path_case_key, safe_relative_path, Piece, PieceKind, Placement, Tree, Vdf,
};
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
/// `data` is the archive's bytes the pieces borrow from (mapped): after each batch of pieces,
/// its pages up to there go to `release`.
#[allow(clippy::too_many_arguments)]
pub fn unpack(
    archive: &Path,
    v: &Vdf<'_>,
    tree: &Tree,
    out: &Path,
    opts: &UnpackOptions,
    formats: Formats,
    data: &[u8],
    release: &(dyn Fn(&[u8]) + Sync),
    on_done: &(dyn Fn() + Sync),
) -> Result<UnpackReport, Error> {
    let mut report = UnpackReport::default();
    let placement = v.placement();
    let rels = plan_paths(archive, out, v, tree, &placement, &mut report)?;
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
    if nonempty {
        // Written in place: every target checked before the first write (links, a file
        // where a folder goes and the reverse).
        // (the one plan of every path held: only when writing into a folder in use)
        let files: Vec<PathBuf> = rels.iter().map(|(_, r)| r).collect();
        let files: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        let dirs: Vec<PathBuf> = v
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| e.is_dir())
            .filter_map(|(i, _)| tree.path(i).and_then(|p| safe_relative_path(&p).ok()))
            .chain([PathBuf::from(STREAMS)])
            .collect();
        let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
        let mut problems = crate::fsio::check_output_tree(out, &files, &dirs, true);
        let placed: Vec<(usize, PathBuf)> = rels.iter().collect();
        let yamls: Vec<(usize, PathBuf)> = placed
            .iter()
            .map(|(i, r)| (*i, yaml_path(r)))
            .chain([(usize::MAX, PathBuf::from(MANIFEST))])
            .collect();
        problems.extend(super::list::input_among_outputs(
            archive,
            out,
            placed
                .iter()
                .map(|(i, r)| (*i, r.as_path()))
                .chain(yamls.iter().map(|(i, r)| (*i, r.as_path()))),
        ));
        let manifest = out.join(MANIFEST);
        if std::fs::symlink_metadata(&manifest).is_ok_and(|m| m.file_type().is_symlink()) {
            problems.push(format!(
                "{}: is a symbolic link or junction inside the output folder; refusing to replace it",
                manifest.display()
            ));
        }
        super::refuse_any(archive, "unpack", &problems)?;
    }
    let staging = if nonempty || out.file_name().is_none() {
        None
    } else {
        Some(crate::fsio::Staging::new(out)?)
    };
    let root: PathBuf = staging.as_ref().map_or(out, |s| s.path()).to_path_buf();
    let tree_out = crate::fsio::OutTree::open(&root)?;
    let job = Job {
        tree_out: &tree_out,
        archive,
        v,
        placement: &placement,
        rels: &rels,
        opts,
        formats,
        out: &root,
        direct: staging.is_some(),
    };
    let result = (|| -> Result<(UnpackReport, Option<crate::fsio::Staging>), Error> {
        job.make_folders(tree)?;
        let staging = job.pieces_and_manifest(data, release, on_done, &mut report, staging)?;
        Ok((report, staging))
    })();
    // The staging folder moves into place only after every handle into it is closed: Windows
    // refuses to rename a folder that a process holds open (a sharing violation).
    drop(tree_out);
    let result = result.and_then(|(report, staging)| {
        if let Some(st) = staging {
            st.finish()?;
        }
        Ok(report)
    });
    // Errors name the files where they will be, not inside the staging folder.
    result.map_err(|mut e| {
        let file = e.file_mut();
        if let Ok(rel) = file.strip_prefix(&root) {
            if root != out {
                *file = out.join(rel);
            }
        }
        e
    })
}

/// Where each placed file goes (relative paths), worked out from the tree when asked rather
/// than kept a path per member: a member's path in the tree, or for a file no directory
/// reaches that owns data, `vdf-streams/orphan-NNNNN.bin` beside the streams. Made by
/// [`plan_paths`], which checked every path.
struct Rels<'j, 'a> {
    v: &'j Vdf<'a>,
    tree: &'j Tree<'j>,
    placement: &'j Placement,
}

impl Rels<'_, '_> {
    /// Where file entry `i` goes (`None`: not a file that owns data, or no safe path).
    fn get(&self, i: usize) -> Option<PathBuf> {
        let e = self.v.entries.get(i)?;
        if e.is_dir() || self.placement.get(i).is_none() {
            return None;
        }
        match self.tree.path(i) {
            None => Some(PathBuf::from(STREAMS).join(format!("orphan-{i:05}.bin"))),
            Some(p) => safe_relative_path(&p).ok(),
        }
    }

    /// Every placed file with where it goes, in catalog order.
    fn iter(&self) -> impl Iterator<Item = (usize, PathBuf)> + '_ {
        (0..self.v.entries.len()).filter_map(|i| self.get(i).map(|r| (i, r)))
    }
}

/// The catalog's paths as NTFS compares names (case-insensitive, Unicode-aware), wherever
/// this runs: the hash of each entry's key, the key itself kept only for the rare entry whose
/// hash another key has already (a hit is confirmed by working out the other entry's key).
struct Taken<'j> {
    /// Entry `j`'s case key.
    key_of: &'j dyn Fn(usize) -> Option<String>,
    hash: fn(&str) -> u64,
    by_hash: HashMap<u64, usize>,
    by_key: HashMap<String, usize>,
}

impl<'j> Taken<'j> {
    /// For about `entries` keys (room made once: a map grown by doubling held up to three
    /// times its entries while it moved, and the allocator keeps that).
    fn new(
        key_of: &'j dyn Fn(usize) -> Option<String>,
        hash: fn(&str) -> u64,
        entries: usize,
    ) -> Self {
        Taken {
            key_of,
            hash,
            by_hash: HashMap::with_capacity(entries),
            by_key: HashMap::new(),
        }
    }

    /// The entry whose path has the case key `key`.
    fn get(&self, key: &str) -> Option<usize> {
        let j = *self.by_hash.get(&(self.hash)(key))?;
        match (self.key_of)(j).as_deref() == Some(key) {
            true => Some(j),
            false => self.by_key.get(key).copied(),
        }
    }

    /// Entry `i` has the case key `key` now; the entry that had it before, if one did.
    fn insert(&mut self, key: String, i: usize) -> Option<usize> {
        let h = (self.hash)(&key);
        match self.by_hash.get(&h).copied() {
            None => self.by_hash.insert(h, i),
            Some(j) if (self.key_of)(j).as_deref() == Some(&key) => self.by_hash.insert(h, i),
            Some(_) => self.by_key.insert(key, i),
        }
    }
}

/// Where each placed file goes below `out`: every name must be safe, every path unique and
/// short enough to open, or nothing is written.
fn plan_paths<'j, 'a>(
    archive: &Path,
    out: &Path,
    v: &'j Vdf<'a>,
    tree: &'j Tree<'j>,
    placement: &'j Placement,
    report: &mut UnpackReport,
) -> Result<Rels<'j, 'a>, Error> {
    let mut errors = Vec::new();
    let key_of = |j: usize| tree.path(j).map(|p| path_case_key(&p));
    let mut taken = Taken::new(&key_of, key_hash, v.entries.len());
    for (i, e) in v.entries.iter().enumerate() {
        let Some(path) = tree.path(i) else {
            // (one no directory reaches but that owns data is kept beside the streams)
            continue;
        };
        let path = &path[..];
        if let Err(why) = safe_relative_path(path) {
            errors.push(format!("catalog[{i}]: {why}"));
            continue;
        }
        if let Some(j) = taken.insert(path_case_key(path), i) {
            errors.push(format!(
                "catalog[{i}] and catalog[{j}] have the same path {}",
                crate::exact::text::decode_cp1252(path)
            ));
        }
        if !e.is_dir() && placement.get(i).is_none() {
            report.warnings.push(format!(
                "catalog[{i}] {}: owns no data (see the warnings above); kept in the manifest, not extracted",
                crate::exact::text::decode_cp1252(path)
            ));
        }
    }
    for reserved in [MANIFEST, STREAMS] {
        if taken.get(&case_key(reserved)).is_some() {
            errors.push(format!(
                "the archive holds {reserved} at its root, which unpack needs for itself"
            ));
        }
    }
    let rels = Rels { v, tree, placement };
    // An asset's YAML must not collide with another member; paths no program could open are
    // refused before anything (a folder) is made (the YAML beside a file is the longest
    // name). One pass over the members for both.
    let long = super::list::too_long_paths(
        out,
        rels.iter().map(|(i, rel)| {
            let yaml = yaml_path(&rel);
            let y = case_key(&path_text(&yaml));
            if taken.get(&y).is_some() {
                errors.push(format!("{y}: clashes with the YAML file of another member"));
            }
            (i, yaml)
        }),
    );
    for problems in [errors, long] {
        super::refuse_any(archive, "unpack", &problems)?;
    }
    Ok(rels)
}

/// One unpack, as the worker threads share it.
struct Job<'j, 'a> {
    archive: &'j Path,
    v: &'j Vdf<'a>,
    placement: &'j Placement,
    rels: &'j Rels<'j, 'a>,
    opts: &'j UnpackOptions,
    formats: Formats,
    /// Where files go (the staging folder, or the output itself).
    out: &'j Path,
    /// Whether files are new in a staging folder (else each replaces its file safely).
    direct: bool,
    /// `out`, opened: every file is written through folder handles that never follow a link.
    tree_out: &'j crate::fsio::OutTree,
}

/// What unpacking one layout piece gave.
struct Done {
    piece: ManifestPiece,
    yaml: bool,
    warning: Option<String>,
}

impl Job<'_, '_> {
    /// Write `rel` (below the output) through folder handles.
    fn put(&self, rel: &Path, data: &[u8]) -> Result<(), Error> {
        if self.direct {
            self.tree_out.write_new(rel, data)
        } else {
            self.tree_out.write_replace(rel, data)
        }
    }

    /// Every folder the files need, the catalog's (empty) directories, and the streams'.
    fn make_folders(&self, tree: &Tree) -> Result<(), Error> {
        let mut made = std::collections::HashSet::new();
        let mut orphans = false;
        for (_, r) in self.rels.iter() {
            orphans |= r.starts_with(STREAMS);
            if let Some(parent) = r.parent() {
                if made.insert(parent.to_path_buf()) {
                    self.tree_out.folder(parent)?;
                }
            }
        }
        for (i, e) in self.v.entries.iter().enumerate() {
            if e.is_dir() {
                if let Some(Ok(rel)) = tree.path(i).map(|p| safe_relative_path(&p)) {
                    self.tree_out.folder(&rel)?;
                }
            }
        }
        if self.v.header.zipped() || orphans {
            self.tree_out.folder(Path::new(STREAMS))?;
        }
        Ok(())
    }

    /// Unpack one layout piece (on a worker thread): its manifest entry, and for a file its
    /// binary, YAML and original stream.
    fn piece(&self, p: &Piece<'_>) -> Result<Done, Error> {
        let (entry, zipped) = match p.kind {
            PieceKind::Catalog => return Ok(Done::piece(manifest_piece(PieceKindDoc::Catalog))),
            PieceKind::Gap => {
                return Ok(Done::piece(ManifestPiece {
                    data: Some(Blob::new(p.bytes.to_vec())),
                    ..manifest_piece(PieceKindDoc::Gap)
                }))
            }
            PieceKind::File { entry, zipped } => (entry, zipped),
        };
        let rel = self.rels.get(entry).unwrap_or_default();
        let target = rel.clone();
        let data = self
            .v
            .piece_contents(self.placement.get(entry).unwrap_or_default())
            .map_err(|why| {
                Error::other(
                    self.archive,
                    format!(
                        "{}: the compressed data does not inflate: {why}",
                        path_text(&rel)
                    ),
                )
            })?;
        let mut done = Done::piece(ManifestPiece {
            entry: Some(entry),
            file: Some(path_text(&rel)),
            crc32: Some(Hex32(crc32fast::hash(&data))),
            ..manifest_piece(PieceKindDoc::File)
        });
        let mut write_binary = true;
        let yaml = match self.opts.yaml || self.opts.yaml_only {
            true => asset_yaml(self.formats, &data, self.opts.yaml_only),
            false => None,
        };
        if let Some((yaml, exact)) = yaml {
            self.put(&yaml_path(&target), yaml.as_bytes())?;
            done.piece.yaml = Some(Hex32(crc32fast::hash(yaml.as_bytes())));
            done.yaml = true;
            if self.opts.yaml_only {
                if exact {
                    write_binary = false;
                    done.piece.yaml_only = true;
                } else {
                    done.warning = Some(format!(
                        "{}: its YAML does not reproduce it exactly; the binary is kept too",
                        path_text(&rel)
                    ));
                }
            }
        }
        if write_binary {
            self.put(&target, &data)?;
        }
        if zipped {
            let name = format!("{STREAMS}/{entry:05}.zs");
            self.put(Path::new(&name), &p.bytes)?;
            done.piece.stream = Some(name);
        }
        Ok(done)
    }

    /// Every layout piece unpacked, in batches in archive order (the archive's pages released
    /// after each batch), while the manifest is written: each piece's manifest entry goes out
    /// with a run of the layout as soon as the run is done, none is held until the end (they
    /// were about 0.5 KB a member). A staging folder is handed back to be moved into place once
    /// the folder handles are closed. The manifest so written is the whole document (test
    /// `the_manifest_in_runs_is_the_whole_document`).
    fn pieces_and_manifest(
        &self,
        data: &[u8],
        release: &(dyn Fn(&[u8]) + Sync),
        on_done: &(dyn Fn() + Sync),
        report: &mut UnpackReport,
        staging: Option<crate::fsio::Staging>,
    ) -> Result<Option<crate::fsio::Staging>, Error> {
        // (a piece's error, or the manifest's YAML failing: the writing stops, the partial
        // manifest is removed with its temporary file or staging folder)
        let mut failed: Option<Error> = None;
        let mut yaml_failed: Option<String> = None;
        let whole = manifest_whole(self.v);
        let mut fill = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
            let stop = || std::io::Error::other("the unpack stopped");
            let mut put = |part: &str| w.write_all(part.as_bytes());
            let mut yaml_err = |e: ManifestError| match e {
                ManifestError::Io(io) => io,
                ManifestError::Yaml(m) => {
                    yaml_failed = Some(m);
                    std::io::Error::other("the manifest could not be written as YAML")
                }
            };
            if !whole {
                manifest_head(self.v, MANIFEST_RUN, &mut put).map_err(&mut yaml_err)?;
            }
            // (pending pieces: written once twice the shortest run are waiting, keeping the
            // shortest back so the last run is never shorter)
            let mut layout: Vec<ManifestPiece> = Vec::new();
            let mut written: Result<(), ManifestError> = Ok(());
            crate::fsio::in_batches_releasing(
                data,
                &self.v.layout,
                |p| &p.bytes,
                release,
                |batch| {
                    if failed.is_some() || written.is_err() {
                        return;
                    }
                    let mut results: Vec<Result<Done, Error>> = Vec::with_capacity(batch.len());
                    results.par_extend(batch.par_iter().map(|p| {
                        let r = self.piece(p);
                        on_done();
                        r
                    }));
                    for r in results {
                        let d = match r {
                            Ok(d) => d,
                            Err(e) => {
                                failed = Some(e);
                                return;
                            }
                        };
                        if d.piece.kind == PieceKindDoc::File {
                            report.files += 1;
                        }
                        report.yaml += usize::from(d.yaml);
                        report.warnings.extend(d.warning);
                        layout.push(d.piece);
                    }
                    if !whole && layout.len() >= 2 * WHOLE_BELOW {
                        let rest = layout.split_off(layout.len() - WHOLE_BELOW);
                        written = layout_run(&layout, &mut put);
                        layout = rest;
                    }
                },
            );
            if failed.is_some() {
                return Err(stop());
            }
            written.map_err(&mut yaml_err)?;
            match whole {
                true => manifest_text(self.v, &layout, MANIFEST_RUN, &mut put),
                false => layout_run(&layout, &mut put),
            }
            .map_err(&mut yaml_err)
        };
        let done = match staging {
            Some(st) => self
                .tree_out
                .write_new_with(Path::new(MANIFEST), &mut fill)
                .map(|()| Some(st)),
            None => self
                .tree_out
                .write_replace_with(Path::new(MANIFEST), &mut fill)
                .map(|()| None),
        };
        if let Some(e) = failed {
            return Err(e);
        }
        match yaml_failed {
            Some(m) => Err(Error::other(self.out, m)),
            None => done,
        }
    }
}

/// Catalog entries or layout pieces of the manifest written at a time.
const MANIFEST_RUN: usize = 4096;

/// Lists shorter than this are written as part of the whole document. A longer list never
/// fits the emitter's one-line budget (160 characters; an item is at least 11, `{kind: gap}`,
/// plus its separator), so the whole document writes it item by item, as the runs do.
const WHOLE_BELOW: usize = 64;

pub(crate) enum ManifestError {
    Io(std::io::Error),
    Yaml(String),
}

/// The manifest's first fields, written before its lists (the same names and order as
/// [`ManifestDocument`]'s).
#[derive(serde::Serialize)]
struct ManifestHead<'h> {
    format: &'h str,
    version: u32,
    header: &'h HeaderDoc,
}

/// The text of the manifest of `v` with `layout`, handed to `put` in parts: its first fields,
/// then its catalog and layout a run of `run` items at a time (each run written as the same
/// list items). The parts together are the whole [`ManifestDocument`] written at once (test
/// `the_manifest_in_runs_is_the_whole_document`).
pub(crate) fn manifest_text(
    v: &Vdf<'_>,
    layout: &[ManifestPiece],
    run: usize,
    put: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> Result<(), ManifestError> {
    let yaml = |e: crate::yaml::EmitError| ManifestError::Yaml(e.to_string());
    if manifest_whole(v) || layout.len() < WHOLE_BELOW {
        // (a short list may be written on one line, `[..]`, in the whole document: that
        // document at once, it is small)
        let doc = ManifestDocument {
            format: MANIFEST_TAG.into(),
            version: MANIFEST_VERSION,
            header: HeaderDoc::of(&v.header),
            catalog: crate::zengin::vdf::yaml::catalog_docs(v),
            layout: layout.to_vec(),
        };
        return put(&crate::yaml::to_string(&doc).map_err(yaml)?).map_err(ManifestError::Io);
    }
    manifest_head(v, run, put)?;
    for pieces in layout.chunks(run.max(1)) {
        layout_run(pieces, put)?;
    }
    Ok(())
}

/// Whether the manifest of `v` is written as one whole document (a list shorter than
/// [`WHOLE_BELOW`]): its catalog or its layout.
fn manifest_whole(v: &Vdf<'_>) -> bool {
    v.entries.len() < WHOLE_BELOW || v.layout.len() < WHOLE_BELOW
}

/// The manifest up to its layout's items: its first fields, its catalog a run of `run` entries
/// at a time, and `layout:`.
fn manifest_head(
    v: &Vdf<'_>,
    run: usize,
    put: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> Result<(), ManifestError> {
    let yaml = |e: crate::yaml::EmitError| ManifestError::Yaml(e.to_string());
    let header = HeaderDoc::of(&v.header);
    let head = ManifestHead {
        format: MANIFEST_TAG,
        version: MANIFEST_VERSION,
        header: &header,
    };
    let io = ManifestError::Io;
    put(&crate::yaml::to_string(&head).map_err(yaml)?).map_err(io)?;
    put("catalog:\n").map_err(io)?;
    let tree = Tree::paths(&v.entries, v.header.catalog_start()).ok();
    for (k, entries) in v.entries.chunks(run.max(1)).enumerate() {
        let docs: Vec<crate::zengin::vdf::yaml::EntryDoc> = entries
            .iter()
            .enumerate()
            .map(|(j, e)| {
                let path = tree.as_ref().and_then(|t| t.path_string(k * run + j));
                crate::zengin::vdf::yaml::EntryDoc::of(e, path)
            })
            .collect();
        put(&crate::yaml::to_string(&docs).map_err(yaml)?).map_err(io)?;
    }
    put("layout:\n").map_err(io)
}

/// Layout items of the manifest (after its `layout:`), written as the same list items as in
/// the whole document.
fn layout_run(
    pieces: &[ManifestPiece],
    put: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> Result<(), ManifestError> {
    let text = crate::yaml::to_string(pieces).map_err(|e| ManifestError::Yaml(e.to_string()))?;
    put(&text).map_err(ManifestError::Io)
}

impl Done {
    fn piece(piece: ManifestPiece) -> Done {
        Done {
            piece,
            yaml: false,
            warning: None,
        }
    }
}

pub(super) fn yaml_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".yaml");
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths taken twice are found with the entry that had them last, the same whether every
    /// key has a hash of its own or all share one (each hit confirmed by the key itself).
    #[test]
    fn taken_paths_are_found_by_their_key_whatever_their_hash() {
        let keys = ["A", "B", "A", "C", "A", "\u{c4}"];
        let key_of = |j: usize| keys.get(j).map(|k| k.to_string());
        let one_hash: fn(&str) -> u64 = |_| 7;
        for hash in [key_hash, one_hash] {
            let mut taken = Taken::new(&key_of, hash, 0);
            let before: Vec<Option<usize>> = keys
                .iter()
                .enumerate()
                .map(|(i, k)| taken.insert(k.to_string(), i))
                .collect();
            assert_eq!(before, [None, None, Some(0), None, Some(2), None]);
            assert_eq!(taken.get("A"), Some(4));
            assert_eq!(taken.get("B"), Some(1));
            assert_eq!(taken.get("C"), Some(3));
            assert_eq!(taken.get("\u{c4}"), Some(5));
            assert_eq!(taken.get("D"), None);
            assert_eq!(taken.get("a"), None);
        }
    }
}
