//! The whole-archive workflow on memory-mapped archives: `vdf list`, `vdf extract`,
//! `vdf pack`, `unpack` (archive → folder tree + YAML + manifest), `repack` (folder →
//! archive) and the archive part of `verify`.
//!
//! Every function here takes the archive as a slice (a memory map from
//! [`crate::fsio::map_file`]) and a [`Vdf`] parsed from it, so member bytes are read from the
//! map on demand; outputs are written streaming ([`crate::fsio::write_streaming`]) with piece
//! contents produced on all cores, so memory stays far below an archive's size.
//!
//! # The unpacked folder
//!
//! ```text
//! DIR/vdf-manifest.yaml        header, catalog, layout (zengin.vdf.manifest)
//! DIR/vdf-streams/NNNNN.zs     compressed volumes only: each file's original ZippedStream
//! DIR/LICENSES/MIT.MD          every file of the archive at its path
//! DIR/ANIMS/S_RUN.MAN.yaml     every recognised asset also as YAML (or only, --yaml-only)
//! ```
//!
//! `unpack` fills a staging folder beside DIR and renames it to DIR at the end (a new or
//! empty DIR; into a non-empty DIR, `--force` writes each file through its own temporary
//! file), so DIR is never seen half-written and each of thousands of files costs one create
//! and one write.
//!
//! The manifest records the CRC-32 of every file's contents and of every YAML file as
//! unpacked. `repack` reads every YAML file and takes one whose CRC changed as an edit (the
//! asset is re-encoded from it; sizes and times are not trusted, so an edit that keeps both
//! is seen), otherwise the binary file, copied file to file into the archive; a compressed
//! file whose contents still have their old CRC keeps its original stream byte for byte.
//! CRC-32 detects every change confined to 32 consecutive bits (any one edited value) and
//! misses other changes with probability 2^-32. Empty directories of the catalog (a first
//! child outside the catalog) stay while their folder does. Files missing from the folder are removed
//! from the archive, files the manifest does not know are added (a new `NAME.yaml` animkit
//! document becomes the asset `NAME`), and then the catalog is rebuilt depth-first with the
//! existing order kept and new names (upper case) at the end of their directory's block.

use crate::codec::{Formats, Mismatch, Stage};
use crate::exact::sink::CompareSink;
use crate::exact::{Blob, EncodeError, Error, Hex32};
use crate::zengin::vdf::yaml::{EntryDoc, HeaderDoc, PieceKindDoc};
use crate::zengin::vdf::zipped;
use crate::zengin::vdf::{
    safe_component, safe_relative_path, write_archive, Entry, Header, PieceKind, Produced, Tree,
    Vdf, ATTRIBUTE_ARCHIVE, HEADER_SIZE, NAME_PAD, NAME_SIZE, TYPE_DIRECTORY, TYPE_LAST,
    VOLUME_NORMAL, VOLUME_ZIPPED,
};
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

pub const MANIFEST: &str = "vdf-manifest.yaml";
pub const STREAMS: &str = "vdf-streams";
pub const MANIFEST_TAG: &str = "zengin.vdf.manifest";
pub const MANIFEST_VERSION: u32 = 1;

fn decode_err(path: &Path) -> impl Fn(crate::exact::DecodeError) -> Error + '_ {
    Error::decoding(path)
}

fn encode_err(path: &Path) -> impl Fn(EncodeError) -> Error + '_ {
    move |e| Error::encode_in(path, e)
}

/// Parse an archive and its tree (the tree's problems are errors here: without a tree there
/// are no paths).
pub fn open<'a>(path: &Path, src: &'a [u8]) -> Result<(Vdf<'a>, Tree), Error> {
    let v = Vdf::parse(src).map_err(decode_err(path))?;
    let tree = Tree::build(&v.entries, v.header.catalog_start()).map_err(decode_err(path))?;
    Ok((v, tree))
}

/// The contents of file entry `entry`: its piece's (inflated) bytes, or for an unplaced entry
/// that still lies inside the archive (overlapping data), the bytes at its stored offset.
pub fn member_contents<'s>(
    v: &'s Vdf<'_>,
    src: &'s [u8],
    placement: &[Option<usize>],
    entry: usize,
) -> Result<Cow<'s, [u8]>, String> {
    if let Some(Some(p)) = placement.get(entry) {
        return v.piece_contents(*p);
    }
    let e = v.entries.get(entry).ok_or("no such entry")?;
    let start = e.offset as usize;
    if v.header.zipped() {
        if let Some(info) = src.get(start..).and_then(zipped::probe) {
            let end = start + info.stored_len as usize;
            return zipped::decompress(&src[start..end]).map(Cow::Owned);
        }
    }
    let end = start
        .checked_add(e.size as usize)
        .filter(|&end| end <= src.len())
        .ok_or_else(|| "its data lies past the end of the archive".to_string())?;
    Ok(Cow::Borrowed(&src[start..end]))
}

// ---------------------------------------------------------------------------------------------
// list

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

// ---------------------------------------------------------------------------------------------
// extract

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
    let mut taken = HashSet::new();
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
                if !taken.insert(path.to_ascii_uppercase()) {
                    warnings.push(format!(
                        "catalog[{i}] {}: a file with this path was already extracted; skipped",
                        crate::exact::text::decode_cp1252(path)
                    ));
                    continue;
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
fn make_dirs(out: &Path, rels: impl Iterator<Item = PathBuf>) -> Result<(), Error> {
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

// ---------------------------------------------------------------------------------------------
// pack

/// Where a packed file's contents come from.
#[derive(Debug, Clone)]
pub enum Source {
    Disk(PathBuf),
    Memory(Vec<u8>),
}

impl Source {
    fn read(&self) -> Result<Cow<'_, [u8]>, EncodeError> {
        match self {
            Source::Memory(b) => Ok(Cow::Borrowed(b)),
            Source::Disk(p) => std::fs::read(p)
                .map(Cow::Owned)
                .map_err(|e| EncodeError::new(format!("{}: {e}", p.display()))),
        }
    }
    fn len(&self) -> u64 {
        match self {
            Source::Memory(b) => b.len() as u64,
            Source::Disk(p) => std::fs::metadata(p).map(|m| m.len()).unwrap_or(0),
        }
    }
}

/// A file to pack: its path as archive names (components, Windows-1252).
#[derive(Debug, Clone)]
pub struct PackFile {
    pub path: Vec<Vec<u8>>,
    pub source: Source,
}

/// Header values of a new archive.
#[derive(Debug, Clone)]
pub struct PackOptions {
    pub signature: [u8; 16],
    pub comment: Vec<u8>,
    /// DOS timestamp.
    pub timestamp: u32,
    /// Union compressed volume (sound files stay raw).
    pub zipped: bool,
}

#[derive(Default)]
struct DirNode {
    dirs: BTreeMap<Vec<u8>, DirNode>,
    /// name → (source index, entry index once emitted)
    files: BTreeMap<Vec<u8>, (usize, usize)>,
}

impl DirNode {
    fn has_files(&self) -> bool {
        !self.files.is_empty() || self.dirs.values().any(DirNode::has_files)
    }
    /// Emit this directory's block, then each sub-directory's blocks (depth-first).
    fn emit(&mut self, entries: &mut Vec<Entry>) {
        self.dirs.retain(|_, d| d.has_files());
        let start = entries.len();
        let names: Vec<Vec<u8>> = self.dirs.keys().cloned().collect();
        for name in &names {
            entries.push(new_entry(name, TYPE_DIRECTORY, 0));
        }
        for (name, f) in self.files.iter_mut() {
            f.1 = entries.len();
            entries.push(new_entry(name, 0, ATTRIBUTE_ARCHIVE));
        }
        if let Some(last) = entries.get_mut(start..).and_then(|b| b.last_mut()) {
            last.kind |= TYPE_LAST;
        }
        for (k, d) in self.dirs.values_mut().enumerate() {
            entries[start + k].offset = entries.len() as u32;
            d.emit(entries);
        }
    }
    /// Data order of the samples: sub-directories' data first, then own files.
    fn data_order(&self, out: &mut Vec<(usize, usize)>) {
        for d in self.dirs.values() {
            d.data_order(out);
        }
        out.extend(self.files.values().copied());
    }
}

fn new_entry(name: &[u8], kind: u32, attributes: u32) -> Entry {
    let mut n = [NAME_PAD; NAME_SIZE];
    let len = name.len().min(NAME_SIZE);
    n[..len].copy_from_slice(&name[..len]);
    Entry {
        name: n,
        offset: 0,
        size: 0,
        kind,
        attributes,
    }
}

/// An archive name: upper case, at most 64 bytes, safe as a file name.
pub fn archive_name(name: &[u8]) -> Result<Vec<u8>, String> {
    let upper = name.to_ascii_uppercase();
    if upper.len() > NAME_SIZE {
        return Err(format!(
            "name {:?} is longer than 64 bytes",
            crate::exact::text::decode_cp1252(name)
        ));
    }
    safe_component(&upper)?;
    Ok(upper)
}

/// Every file below `dir` (symbolic links are not followed), names upper-cased.
pub fn collect_dir(dir: &Path, skip: &dyn Fn(&Path) -> bool) -> Result<Vec<PackFile>, Error> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| Error::other(dir, e.to_string()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .map_err(|e| Error::other(entry.path(), e.to_string()))?;
        if skip(rel) {
            continue;
        }
        out.push(PackFile {
            path: rel_to_names(rel).map_err(|e| Error::other(entry.path(), e))?,
            source: Source::Disk(entry.path().to_path_buf()),
        });
    }
    Ok(out)
}

/// The folders below `dir` without a file anywhere below them (`/`-separated, relative), which
/// `vdf pack` leaves out: the catalog has no count of a directory's entries, only the index of
/// its first one and a "last" mark on the final one, so a directory must hold at least one
/// entry (a first index outside the catalog would be read as empty by animkit, but the game
/// and ZenKit would read whatever lies there as entries).
pub fn empty_folders(dir: &Path) -> Vec<String> {
    let mut dirs = Vec::new();
    let mut with_files = HashSet::new();
    for e in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        let rel = e.path().strip_prefix(dir).unwrap_or(e.path());
        if e.file_type().is_dir() && e.depth() > 0 {
            dirs.push(rel.to_path_buf());
        } else if e.file_type().is_file() {
            with_files.extend(rel.ancestors().skip(1).map(Path::to_path_buf));
        }
    }
    dirs.into_iter()
        .filter(|d| !with_files.contains(d))
        .map(|d| path_text(&d))
        .collect()
}

/// A relative path as upper-case archive names.
fn rel_to_names(rel: &Path) -> Result<Vec<Vec<u8>>, String> {
    rel.components()
        .map(|c| {
            let s = c.as_os_str().to_string_lossy();
            let b = crate::exact::text::encode_cp1252(&s)
                .map_err(|ch| format!("{ch:?} cannot be stored in an archive name"))?;
            archive_name(&b)
        })
        .collect()
}

/// Build the tree of a new archive: catalog depth-first (in each block directories then files,
/// by name), data in the samples' post-order.
#[allow(clippy::type_complexity)]
fn pack_plan(files: &[PackFile]) -> Result<(Vec<Entry>, Vec<(usize, usize)>), String> {
    let mut root = DirNode::default();
    for (si, f) in files.iter().enumerate() {
        let Some((name, dirs)) = f.path.split_last() else {
            return Err("a file without a name".into());
        };
        let mut node = &mut root;
        for d in dirs {
            if node.files.contains_key(d) {
                return Err(format!(
                    "{} is both a file and a directory",
                    crate::exact::text::decode_cp1252(d)
                ));
            }
            node = node.dirs.entry(d.clone()).or_default();
        }
        if node.dirs.contains_key(name) || node.files.insert(name.clone(), (si, 0)).is_some() {
            return Err(format!(
                "two files map to the archive path {} (names are upper case in archives)",
                f.path
                    .iter()
                    .map(|c| crate::exact::text::decode_cp1252(c).into_owned())
                    .collect::<Vec<_>>()
                    .join("/")
            ));
        }
    }
    let mut entries = Vec::new();
    root.emit(&mut entries);
    let mut order = Vec::new();
    root.data_order(&mut order);
    Ok((entries, order))
}

/// Write a new archive of `files` to `w`.
pub fn pack_to<W: Write + Seek>(
    w: &mut W,
    files: &[PackFile],
    opts: &PackOptions,
    on_piece: &(dyn Fn() + Sync),
) -> Result<u64, EncodeError> {
    let (mut entries, order) = pack_plan(files).map_err(EncodeError::new)?;
    let mut header = Header {
        comment: crate::zengin::vdf::fixed(&opts.comment, crate::zengin::vdf::COMMENT_PAD)
            .map_err(|e| EncodeError::new(format!("comment: {e}")))?,
        signature: opts.signature,
        entry_count: entries.len() as u32,
        file_count: files.len() as u32,
        timestamp: opts.timestamp,
        data_size: 0,
        catalog_offset: HEADER_SIZE as u32,
        volume: if opts.zipped {
            VOLUME_ZIPPED
        } else {
            VOLUME_NORMAL
        },
    };
    let mut kinds = vec![PieceKind::Catalog];
    let mut sources = vec![None];
    for (si, ei) in order {
        let f = &files[si];
        let name = f.path.last().map(Vec::as_slice).unwrap_or_default();
        let zipped = opts.zipped && !zipped::stored_raw(name) && f.source.len() > 0;
        kinds.push(PieceKind::File { entry: ei, zipped });
        sources.push(Some(si));
    }
    write_archive(
        w,
        &mut header,
        &mut entries,
        &kinds,
        true,
        &|i| {
            let si = sources[i].ok_or_else(|| EncodeError::new("internal: no source"))?;
            if let (Source::Disk(p), PieceKind::File { zipped: false, .. }) =
                (&files[si].source, kinds[i])
            {
                return file_piece(p);
            }
            let data = files[si].source.read()?;
            let size = Some(
                u32::try_from(data.len())
                    .map_err(|_| EncodeError::new("file larger than 4 GiB"))?,
            );
            let bytes = match kinds[i] {
                PieceKind::File { zipped: true, .. } => Cow::Owned(
                    zipped::compress(&data, zipped::DEFAULT_BLOCK_SIZE, 6)
                        .map_err(EncodeError::new)?,
                ),
                _ => Cow::Owned(data.into_owned()),
            };
            Ok(Produced::bytes(bytes, size))
        },
        on_piece,
    )
}

// ---------------------------------------------------------------------------------------------
// unpack

/// One layout piece in the manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestPiece {
    pub kind: PieceKindDoc,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<usize>,
    /// `file`: its path in the folder (`/`-separated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `file`: CRC-32 of the contents as unpacked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crc32: Option<Hex32>,
    /// CRC-32 of the asset's YAML file as unpacked (`<file>.yaml`), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yaml: Option<Hex32>,
    /// Ignored (written by earlier versions: `repack` now always compares the YAML's CRC).
    #[serde(default, skip_serializing)]
    #[schemars(skip)]
    pub yaml_stamp: Option<String>,
    /// Only the YAML file was written.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub yaml_only: bool,
    /// Stored as a ZippedStream; the original stream is in this file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<String>,
    /// `gap`: the bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Blob>,
}

/// The `zengin.vdf.manifest` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ManifestDocument {
    pub format: String,
    pub version: u32,
    /// The archive's header as stored.
    pub header: HeaderDoc,
    /// The catalog in stored order (offsets of placed files follow the layout on repack).
    pub catalog: Vec<EntryDoc>,
    /// Every byte after the header in file order.
    pub layout: Vec<ManifestPiece>,
}

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

fn path_text(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Recognised (non-archive) asset: its YAML text and (when `check`) whether the YAML alone
/// reproduces it.
fn asset_yaml(formats: Formats, data: &[u8], check: bool) -> Option<(String, bool)> {
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

fn manifest_piece(kind: PieceKindDoc) -> ManifestPiece {
    ManifestPiece {
        kind,
        entry: None,
        file: None,
        crc32: None,
        yaml: None,
        yaml_stamp: None,
        yaml_only: false,
        stream: None,
        data: None,
    }
}

fn yaml_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".yaml");
    PathBuf::from(s)
}

// ---------------------------------------------------------------------------------------------
// repack

/// Where a repacked piece's contents come from.
enum Origin {
    Catalog,
    Gap(Vec<u8>),
    /// A member the manifest knows.
    Member {
        /// The binary file, when the folder has it.
        bin: Option<PathBuf>,
        /// The asset's YAML file: (path, folder key, CRC-32 as unpacked). Re-encoded from
        /// when its CRC changed, or when there is no binary. A YAML the manifest does not
        /// know (exported after an unpack without YAML) has no CRC: it is an edit when it
        /// encodes to other bytes than the binary's.
        yaml: Option<(PathBuf, String, Option<u32>)>,
        /// CRC-32 of the contents as unpacked.
        crc32: Option<u32>,
        stream: Option<PathBuf>,
    },
    /// A file the manifest does not know.
    New {
        path: PathBuf,
        from_yaml: bool,
    },
}

#[derive(Debug, Default)]
pub struct RepackReport {
    pub files: usize,
    pub from_yaml: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub warnings: Vec<String>,
}

/// A member taken as it is from its file: opened here, copied by the archive writer.
fn file_piece(p: &Path) -> Result<Produced<'static>, EncodeError> {
    let err = |e: std::io::Error| EncodeError::new(format!("{}: {e}", p.display()));
    let f = std::fs::File::open(p).map_err(err)?;
    let len = f.metadata().map_err(err)?.len();
    let size = u32::try_from(len)
        .map_err(|_| EncodeError::new(format!("{}: file larger than 4 GiB", p.display())))?;
    Ok(Produced {
        bytes: Cow::Borrowed(&[]),
        size: Some(size),
        file: Some((f, len)),
    })
}

fn read_file_enc(p: &Path) -> Result<Vec<u8>, EncodeError> {
    std::fs::read(p).map_err(|e| EncodeError::new(format!("{}: {e}", p.display())))
}

/// Encode an animkit YAML document to its binary.
fn encode_yaml(formats: Formats, p: &Path) -> Result<Vec<u8>, EncodeError> {
    encode_yaml_text(formats, p, read_file_enc(p)?)
}

/// Encode the animkit YAML document `bytes` (read from `p`) to its binary.
fn encode_yaml_text(formats: Formats, p: &Path, bytes: Vec<u8>) -> Result<Vec<u8>, EncodeError> {
    let text = String::from_utf8(bytes)
        .map_err(|e| EncodeError::new(format!("{}: not UTF-8 text: {e}", p.display())))?;
    let tag = crate::yaml::document_tag(&text)
        .ok_or_else(|| EncodeError::new(format!("{}: no `format:` line", p.display())))?;
    let f = formats.by_tag(tag).ok_or_else(|| {
        EncodeError::new(format!("{}: unknown document format `{tag}`", p.display()))
    })?;
    let asset = f
        .read_yaml(&text, &Default::default())
        .map_err(|e| EncodeError::new(format!("{}: {e}", p.display())))?;
    asset
        .encode()
        .map_err(|e| EncodeError::new(format!("{}: cannot encode: {e}", p.display())))
}

fn is_animkit_yaml(formats: Formats, p: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(p) else {
        return false;
    };
    crate::yaml::document_tag(&text).is_some_and(|t| formats.by_tag(t).is_some())
}

/// Repack an unpacked folder into `output`; YAML documents of a format in `formats` are
/// encoded.
pub fn repack(
    dir: &Path,
    output: &Path,
    force: bool,
    formats: Formats,
    on_piece: &(dyn Fn() + Sync),
) -> Result<RepackReport, Error> {
    let mpath = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&mpath).map_err(|e| Error::io(&mpath, e))?;
    let doc: ManifestDocument = crate::yaml::from_str(&text).map_err(|e| Error::Yaml {
        file: mpath.clone(),
        source: e,
    })?;
    crate::codec::check_document_header(&doc.format, doc.version, MANIFEST_TAG, MANIFEST_VERSION)
        .map_err(|m| Error::other(&mpath, m))?;
    let enc = encode_err(&mpath);
    let mut header = doc.header.to_header().map_err(&enc)?;
    let mut entries: Vec<Entry> = doc
        .catalog
        .iter()
        .map(EntryDoc::to_entry)
        .collect::<Result<_, _>>()
        .map_err(&enc)?;
    if header.entry_count as usize != entries.len() {
        return Err(Error::other(
            &mpath,
            "header.entry_count does not match the catalog",
        ));
    }
    let mut report = RepackReport::default();
    let sum_was_data_size = u64::from(header.data_size) == Vdf::sum_of_sizes(&entries);
    let counts_were_consistent =
        header.file_count as usize == entries.iter().filter(|e| !e.is_dir()).count();

    // What is in the folder.
    let mut on_disk: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut disk_dirs: BTreeMap<String, PathBuf> = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.map_err(|err| Error::other(dir, err.to_string()))?;
        let rel = e.path().strip_prefix(dir).unwrap_or(e.path());
        let key = path_text(rel);
        if e.file_type().is_dir() && e.depth() > 0 && key != STREAMS {
            disk_dirs.insert(key, e.path().to_path_buf());
            continue;
        }
        if !e.file_type().is_file() {
            continue;
        }
        if key == MANIFEST || key.starts_with(&format!("{STREAMS}/")) {
            continue;
        }
        on_disk.insert(key, e.path().to_path_buf());
    }
    let mut known: HashSet<String> = HashSet::new();
    let mut kinds = Vec::with_capacity(doc.layout.len());
    let mut origins = Vec::with_capacity(doc.layout.len());
    let mut removed_entries = HashSet::new();
    for (k, p) in doc.layout.iter().enumerate() {
        match p.kind {
            PieceKindDoc::Catalog => {
                kinds.push(PieceKind::Catalog);
                origins.push(Origin::Catalog);
            }
            PieceKindDoc::Gap => {
                kinds.push(PieceKind::Gap);
                origins.push(Origin::Gap(p.data.clone().map(|b| b.0).unwrap_or_default()));
            }
            PieceKindDoc::File => {
                let bad = |m: &str| Error::other(&mpath, format!("layout[{k}]: {m}"));
                let entry = p.entry.ok_or_else(|| bad("no entry"))?;
                if entries.get(entry).is_none_or(Entry::is_dir) {
                    return Err(bad("entry is not a file of the catalog"));
                }
                let file = p.file.clone().ok_or_else(|| bad("no file"))?;
                // The manifest may have been edited: its paths must stay inside the folder.
                let file_bytes = crate::exact::text::encode_cp1252(&file)
                    .map_err(|c| bad(&format!("{c:?} in the file path")))?;
                safe_relative_path(&file_bytes).map_err(|e| bad(&e))?;
                let ykey = format!("{file}.yaml");
                known.insert(file.clone());
                // A YAML the manifest does not know, beside a member it does: exported later
                // (after `unpack --no-yaml`) to edit that member.
                let late_yaml = p.yaml.is_none()
                    && on_disk
                        .get(&ykey)
                        .is_some_and(|y| is_animkit_yaml(formats, y));
                if late_yaml {
                    known.insert(ykey.clone());
                }
                let yaml_here = (p.yaml.is_some() && on_disk.contains_key(&ykey)) || late_yaml;
                if p.yaml.is_some() {
                    known.insert(ykey.clone());
                }
                let bin_here = if file.starts_with(&format!("{STREAMS}/")) {
                    dir.join(&file).is_file()
                } else {
                    on_disk.contains_key(&file)
                };
                if !bin_here && !yaml_here {
                    report.removed.push(file.clone());
                    removed_entries.insert(entry);
                    continue;
                }
                // Whether the YAML was edited is decided by its content hash when the piece
                // is produced (on all cores); without a binary the YAML is the only source.
                if !bin_here {
                    report.from_yaml.push(ykey.clone());
                }
                let zipped = p.stream.is_some();
                let stream = match &p.stream {
                    Some(s) => {
                        let sb = crate::exact::text::encode_cp1252(s)
                            .map_err(|c| bad(&format!("{c:?} in the stream path")))?;
                        safe_relative_path(&sb).map_err(|e| bad(&e))?;
                        Some(dir.join(s))
                    }
                    None => None,
                };
                kinds.push(PieceKind::File { entry, zipped });
                origins.push(Origin::Member {
                    bin: bin_here.then(|| dir.join(&file)),
                    yaml: yaml_here.then(|| (dir.join(&ykey), ykey.clone(), p.yaml.map(|c| c.0))),
                    crc32: p.crc32.map(|c| c.0),
                    stream,
                });
            }
        }
    }
    // Empty directories (a directory entry whose first child lies outside the catalog: the
    // only way the catalog can hold one) stay while their folder does; a new empty folder
    // cannot be added (see `vdf pack`).
    let mut keep_empty = HashSet::new();
    let mut catalog_dirs = HashSet::new();
    if let Ok(tree) = Tree::build(&entries, header.catalog_start()) {
        for (i, e) in entries.iter().enumerate() {
            let (true, Some(p)) = (e.is_dir(), tree.path_string(i)) else {
                continue;
            };
            if e.offset as usize >= entries.len() {
                if disk_dirs.contains_key(&p) {
                    keep_empty.insert(i);
                } else {
                    report.removed.push(format!("{p}/"));
                    removed_entries.insert(i);
                }
            }
            catalog_dirs.insert(p);
        }
    }
    for key in disk_dirs.keys() {
        let prefix = format!("{key}/");
        if !catalog_dirs.contains(key) && !on_disk.keys().any(|k| k.starts_with(&prefix)) {
            report.warnings.push(format!(
                "{key}/: an empty folder is not added (an archive directory that is not in the manifest needs a file)"
            ));
        }
    }
    // New files.
    let mut added: Vec<(Vec<Vec<u8>>, PathBuf, bool)> = Vec::new();
    for (key, path) in &on_disk {
        if known.contains(key) {
            continue;
        }
        let mut name_key = key.clone();
        let mut from_yaml = false;
        if let Some(stem) = key.strip_suffix(".yaml") {
            if is_animkit_yaml(formats, path) {
                if on_disk.contains_key(stem) || known.contains(stem) {
                    report.warnings.push(format!(
                        "{key}: ignored, the folder also holds {stem} (pack one of them)"
                    ));
                    continue;
                }
                name_key = stem.to_string();
                from_yaml = true;
            }
        }
        let names = rel_to_names(Path::new(&name_key)).map_err(|e| Error::other(path, e))?;
        report.added.push(name_key);
        added.push((names, path.clone(), from_yaml));
    }

    if !added.is_empty() || !removed_entries.is_empty() {
        let tree = Tree::build(&entries, header.catalog_start()).map_err(decode_err(&mpath))?;
        let (new_entries, remap, new_indices) =
            rebuild_catalog(&entries, &tree, &removed_entries, &keep_empty, &added)
                .map_err(|m| Error::other(&mpath, m))?;
        let mut k = 0;
        while k < kinds.len() {
            if let PieceKind::File { entry, .. } = &mut kinds[k] {
                match remap[*entry] {
                    Some(n) => *entry = n,
                    None => {
                        report.warnings.push(format!(
                            "catalog[{entry}]: no directory reaches it; dropped with the rebuilt catalog"
                        ));
                        kinds.remove(k);
                        origins.remove(k);
                        continue;
                    }
                }
            }
            k += 1;
        }
        // New files go after the last file's data.
        let at = kinds
            .iter()
            .rposition(|k| matches!(k, PieceKind::File { .. } | PieceKind::Catalog))
            .map_or(kinds.len(), |p| p + 1);
        for (j, ((names, path, from_yaml), ei)) in added.into_iter().zip(new_indices).enumerate() {
            let name = names.last().cloned().unwrap_or_default();
            let zipped = header.zipped() && !zipped::stored_raw(&name);
            kinds.insert(at + j, PieceKind::File { entry: ei, zipped });
            origins.insert(at + j, Origin::New { path, from_yaml });
        }
        if counts_were_consistent {
            header.file_count = new_entries.iter().filter(|e| !e.is_dir()).count() as u32;
        }
        header.entry_count = new_entries.len() as u32;
        entries = new_entries;
    }

    let edited_yaml: std::sync::Mutex<Vec<(usize, String)>> = Default::default();
    let produce = |i: usize| -> Result<Produced<'static>, EncodeError> {
        let zipped = matches!(kinds[i], PieceKind::File { zipped: true, .. });
        let (contents, crc, stream) = match &origins[i] {
            Origin::Catalog => unreachable!("the writer produces no catalog"),
            Origin::Gap(b) => return Ok(Produced::bytes(Cow::Owned(b.clone()), None)),
            Origin::Member {
                bin,
                yaml,
                crc32,
                stream,
            } => {
                // An unchanged YAML keeps the binary's bytes verbatim; an edited one (any
                // change of content, whatever its size and time) is re-encoded.
                let edited = match yaml {
                    Some((ypath, ykey, recorded)) => {
                        let text = read_file_enc(ypath)?;
                        if bin.is_none() || recorded.is_none_or(|r| crc32fast::hash(&text) != r) {
                            Some((text, ypath, ykey, recorded.is_none()))
                        } else {
                            None
                        }
                    }
                    None => None,
                };
                let c = match (edited, bin) {
                    (Some((text, ypath, ykey, late)), bin) => {
                        let encoded = encode_yaml_text(formats, ypath, text)?;
                        let binary = bin.as_deref().map(read_file_enc).transpose()?;
                        // A YAML exported after unpacking and not edited stands for the binary.
                        let unedited = late && binary.as_deref() == Some(&encoded[..]);
                        if !unedited {
                            if let (Some(b), Some(bytes), Some(c)) = (bin, &binary, crc32) {
                                if crc32fast::hash(bytes) != *c {
                                    return Err(EncodeError::new(format!(
                                        "{}: both this file and {ykey} were edited; keep only one of the edits",
                                        b.display()
                                    )));
                                }
                            }
                            if bin.is_some() {
                                edited_yaml
                                    .lock()
                                    .map_err(|_| EncodeError::new("internal: lock"))?
                                    .push((i, ykey.clone()));
                            }
                        }
                        encoded
                    }
                    (None, Some(b)) if !zipped => return file_piece(b),
                    (None, Some(b)) => read_file_enc(b)?,
                    (None, None) => {
                        return Err(EncodeError::new("internal: a member without a source"))
                    }
                };
                (c, *crc32, stream.as_ref())
            }
            Origin::New { path, from_yaml } => {
                if !*from_yaml && !zipped {
                    return file_piece(path);
                }
                let c = if *from_yaml {
                    encode_yaml(formats, path)?
                } else {
                    read_file_enc(path)?
                };
                (c, None, None)
            }
        };
        let size = Some(
            u32::try_from(contents.len())
                .map_err(|_| EncodeError::new("file larger than 4 GiB"))?,
        );
        match kinds[i] {
            PieceKind::File { zipped: true, .. } => {
                let unchanged = crc.is_some_and(|c| c == crc32fast::hash(&contents));
                let old = match stream {
                    Some(s) => Some(read_file_enc(s)?),
                    None => None,
                };
                if unchanged {
                    if let Some(old) = old {
                        return Ok(Produced::bytes(Cow::Owned(old), None));
                    }
                }
                if contents.is_empty() {
                    return Ok(Produced::bytes(Cow::Owned(contents), size));
                }
                let bs = old
                    .as_deref()
                    .and_then(zipped::probe)
                    .map_or(zipped::DEFAULT_BLOCK_SIZE, |s| s.block_size);
                let z = zipped::compress(&contents, bs, 6).map_err(EncodeError::new)?;
                Ok(Produced::bytes(Cow::Owned(z), size))
            }
            _ => Ok(Produced::bytes(Cow::Owned(contents), size)),
        }
    };
    report.files = kinds
        .iter()
        .filter(|k| matches!(k, PieceKind::File { .. }))
        .count();
    let before: Vec<u32> = entries.iter().map(|e| e.offset).collect();
    crate::fsio::write_streaming(output, force, |w| {
        write_archive(
            w,
            &mut header,
            &mut entries,
            &kinds,
            sum_was_data_size,
            &produce,
            on_piece,
        )
        .map_err(encode_err(output))
    })?;
    let mut edited = edited_yaml.into_inner().unwrap_or_default();
    edited.sort();
    report.from_yaml.extend(edited.into_iter().map(|(_, k)| k));
    let moved = entries
        .iter()
        .zip(&before)
        .any(|(e, b)| !e.is_dir() && e.offset != *b);
    let mut placed = vec![false; entries.len()];
    for k in &kinds {
        if let PieceKind::File { entry, .. } = k {
            placed[*entry] = true;
        }
    }
    if moved {
        for (i, e) in entries.iter().enumerate() {
            if !e.is_dir() && !placed[i] {
                report.warnings.push(format!(
                    "catalog[{i}] {}: owns no data and keeps its stored offset {}, but the data around it moved",
                    e.display_name(),
                    e.offset
                ));
            }
        }
    }
    Ok(report)
}

/// The deepest directory nesting `repack` rebuilds.
const MAX_DEPTH: usize = 1000;

/// A new catalog without `removed` and with `added` (names upper case) at the end of their
/// directories' blocks, blocks depth-first, directories left without files dropped. Returns
/// the entries, the old → new index map and the new files' indices.
#[allow(clippy::type_complexity)]
fn rebuild_catalog(
    entries: &[Entry],
    tree: &Tree,
    removed: &HashSet<usize>,
    keep_empty: &HashSet<usize>,
    added: &[(Vec<Vec<u8>>, PathBuf, bool)],
) -> Result<(Vec<Entry>, Vec<Option<usize>>, Vec<usize>), String> {
    #[derive(Clone)]
    struct Node {
        entry: Entry,
        old: Option<usize>,
        new_file: Option<usize>,
        children: Vec<usize>,
        /// An empty directory of the catalog that stays.
        keep_empty: bool,
    }
    let mut nodes: Vec<Node> = vec![Node {
        entry: new_entry(b"", TYPE_DIRECTORY, 0),
        old: None,
        new_file: None,
        children: Vec::new(),
        keep_empty: false,
    }];
    let mut node_of = vec![None; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        if tree.paths[i].is_none() || removed.contains(&i) {
            continue;
        }
        node_of[i] = Some(nodes.len());
        nodes.push(Node {
            entry: *e,
            old: Some(i),
            new_file: None,
            children: Vec::new(),
            keep_empty: keep_empty.contains(&i),
        });
    }
    for (i, e) in entries.iter().enumerate() {
        let _ = e;
        let Some(n) = node_of[i] else { continue };
        let parent = match tree.parent[i] {
            None => 0,
            Some(p) => match node_of[p] {
                Some(pn) => pn,
                None => continue,
            },
        };
        nodes[parent].children.push(n);
    }
    for (k, (names, _, _)) in added.iter().enumerate() {
        let Some((name, dirs)) = names.split_last() else {
            return Err("an added file without a name".into());
        };
        let mut cur = 0;
        for d in dirs {
            let found = nodes[cur].children.iter().copied().find(|&c| {
                nodes[c].entry.is_dir() && nodes[c].entry.path_name().eq_ignore_ascii_case(d)
            });
            cur = match found {
                Some(c) => c,
                None => {
                    let id = nodes.len();
                    nodes.push(Node {
                        entry: new_entry(d, TYPE_DIRECTORY, 0),
                        old: None,
                        new_file: None,
                        children: Vec::new(),
                        keep_empty: false,
                    });
                    nodes[cur].children.push(id);
                    id
                }
            };
        }
        let id = nodes.len();
        nodes.push(Node {
            entry: new_entry(name, 0, ATTRIBUTE_ARCHIVE),
            old: None,
            new_file: Some(k),
            children: Vec::new(),
            keep_empty: false,
        });
        nodes[cur].children.push(id);
    }
    // Drop directories without files (or kept empty directories).
    fn has_files(nodes: &[Node], n: usize, depth: usize) -> bool {
        depth < 10_000
            && (nodes[n].keep_empty
                || nodes[n]
                    .children
                    .iter()
                    .any(|&c| !nodes[c].entry.is_dir() || has_files(nodes, c, depth + 1)))
    }
    // The recursive steps below need a bounded depth.
    let mut depth = vec![0usize; nodes.len()];
    let mut queue = std::collections::VecDeque::from([0usize]);
    while let Some(n) = queue.pop_front() {
        for &c in &nodes[n].children {
            depth[c] = depth[n] + 1;
            queue.push_back(c);
        }
    }
    if depth.iter().any(|&d| d > MAX_DEPTH) {
        return Err(format!(
            "directories are nested deeper than {MAX_DEPTH} levels"
        ));
    }
    let keep: Vec<bool> = (0..nodes.len())
        .map(|n| !nodes[n].entry.is_dir() || has_files(&nodes, n, 0))
        .collect();
    for node in nodes.iter_mut() {
        node.children.retain(|&c| keep[c]);
    }
    // Emit depth-first.
    let mut out: Vec<Entry> = Vec::new();
    let mut remap = vec![None; entries.len()];
    let mut new_indices = vec![0; added.len()];
    let mut stack = vec![0usize];
    // Blocks in pre-order: a block, then each sub-directory's blocks in order.
    fn emit(
        nodes: &[Node],
        n: usize,
        out: &mut Vec<Entry>,
        remap: &mut [Option<usize>],
        new_indices: &mut [usize],
        empty: &mut Vec<usize>,
    ) {
        let start = out.len();
        let kids = &nodes[n].children;
        for (k, &c) in kids.iter().enumerate() {
            let mut e = nodes[c].entry;
            e.kind &= !TYPE_LAST;
            if k + 1 == kids.len() {
                e.kind |= TYPE_LAST;
            }
            if let Some(o) = nodes[c].old {
                remap[o] = Some(out.len());
            }
            if let Some(f) = nodes[c].new_file {
                new_indices[f] = out.len();
            }
            out.push(e);
        }
        for (k, &c) in kids.iter().enumerate() {
            if nodes[c].entry.is_dir() {
                if nodes[c].children.is_empty() {
                    empty.push(start + k);
                } else {
                    out[start + k].offset = out.len() as u32;
                    emit(nodes, c, out, remap, new_indices, empty);
                }
            }
        }
    }
    stack.clear();
    let mut empty = Vec::new();
    emit(
        &nodes,
        0,
        &mut out,
        &mut remap,
        &mut new_indices,
        &mut empty,
    );
    // An empty directory's first child lies outside the catalog: its stored value while it
    // still does, else the catalog's length.
    let len = u32::try_from(out.len()).map_err(|_| "too many catalog entries".to_string())?;
    for i in empty {
        out[i].offset = out[i].offset.max(len);
    }
    Ok((out, remap, new_indices))
}

// ---------------------------------------------------------------------------------------------
// verify

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
    write_archive(
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
