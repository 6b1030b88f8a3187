//! `vdf pack`: a new archive from a folder (catalog depth-first, directories then files by name).

use super::{file_piece, path_text};
use crate::exact::{EncodeError, Error};
use crate::zengin::vdf::zipped;
use crate::zengin::vdf::{
    safe_component, write_archive, write_archive_in_order, Entry, Header, PieceKind, Produced,
    ATTRIBUTE_ARCHIVE, ENTRY_SIZE, HEADER_SIZE, NAME_PAD, NAME_SIZE, TYPE_DIRECTORY, TYPE_LAST,
    VOLUME_NORMAL, VOLUME_ZIPPED,
};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

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
pub(super) struct DirNode {
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

pub(super) fn new_entry(name: &[u8], kind: u32, attributes: u32) -> Entry {
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

/// Every file below `dir` (symbolic links are not followed), names upper-cased, without
/// animkit's own temporary files and staging folders (see [`own_temps`]).
pub fn collect_dir(dir: &Path, skip: &dyn Fn(&Path) -> bool) -> Result<Vec<PackFile>, Error> {
    let mut out = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !crate::fsio::is_own_temp(e.file_name()));
    for entry in walk {
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

/// The symbolic links (and junctions) below `dir`, which [`collect_dir`] does not follow and
/// so leaves out: `vdf pack` names each one (as `repack` does).
pub fn links_below(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !crate::fsio::is_own_temp(e.file_name()))
        .filter_map(|e| e.ok())
        .filter(|e| e.depth() > 0 && e.path_is_symlink())
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// animkit's own temporary files and staging folders below `dir` (left by an interrupted run),
/// which [`collect_dir`] leaves out.
pub fn own_temps(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut walk = walkdir::WalkDir::new(dir).sort_by_file_name().into_iter();
    while let Some(Ok(e)) = walk.next() {
        if e.depth() > 0 && crate::fsio::is_own_temp(e.file_name()) {
            found.push(e.path().to_path_buf());
            if e.file_type().is_dir() {
                walk.skip_current_dir();
            }
        }
    }
    found
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
        .filter_entry(|e| e.depth() == 0 || !crate::fsio::is_own_temp(e.file_name()))
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
pub(super) fn rel_to_names(rel: &Path) -> Result<Vec<Vec<u8>>, String> {
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
pub(super) fn pack_plan(files: &[PackFile]) -> Result<(Vec<Entry>, Vec<(usize, usize)>), String> {
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

/// Write a new archive of `files` at the end of `out` ([`pack_to`] into a
/// [`VecTarget`](crate::zengin::vdf::VecTarget): room reserved once for the whole archive,
/// members copied straight into it); returns the archive's length.
pub fn pack_to_vec(
    out: &mut Vec<u8>,
    files: &[PackFile],
    opts: &PackOptions,
    on_piece: &(dyn Fn() + Sync),
) -> Result<u64, EncodeError> {
    // A capacity hint only: pack_to refuses what a VDF cannot hold.
    let members = files
        .iter()
        .fold(0u64, |a, f| a.saturating_add(f.source.len()));
    let expected = usize::try_from(members)
        .unwrap_or(usize::MAX)
        .saturating_add(HEADER_SIZE + files.len() * 2 * ENTRY_SIZE);
    let start = out.len();
    // Zipped members shrink: reserve for the stored bytes only when they are stored raw.
    let reserve = if opts.zipped { expected / 2 } else { expected };
    let mut w = crate::zengin::vdf::VecTarget::for_archive(out, reserve);
    let n = pack_to(&mut w, files, opts, on_piece)?;
    debug_assert_eq!(out.len() - start, n as usize);
    Ok(n)
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
    let in_memory = files.iter().all(|f| matches!(f.source, Source::Memory(_)));
    // Members in memory stored raw are only borrowed: producing them is no work, so they are
    // written in order without threads, however many (a thread pool, a channel and windows
    // only cost here; the copy into the output is the whole job).
    let parallel = !in_memory || opts.zipped;
    let produce = |i: usize| -> Result<Produced<'_>, EncodeError> {
        let si = sources[i].ok_or_else(|| EncodeError::new("internal: no source"))?;
        if let (Source::Disk(p), PieceKind::File { zipped: false, .. }) =
            (&files[si].source, kinds[i])
        {
            return file_piece(p);
        }
        let data = files[si].source.read()?;
        let size = Some(
            u32::try_from(data.len()).map_err(|_| EncodeError::new("file larger than 4 GiB"))?,
        );
        let bytes = match kinds[i] {
            PieceKind::File { zipped: true, .. } => Cow::Owned(
                zipped::compress(&data, zipped::DEFAULT_BLOCK_SIZE, 6).map_err(EncodeError::new)?,
            ),
            // Members in memory are borrowed, in parallel too: a copy on the other core (once
            // measured 1.3× faster on a quieter machine) cost fresh pages per member (perf: half
            // the time clearing pages) and was 1.3–2.5× slower, alternated, at load 4.
            _ => data,
        };
        Ok(Produced::bytes(bytes, size))
    };
    if parallel {
        write_archive(
            w,
            &mut header,
            &mut entries,
            &kinds,
            true,
            &produce,
            on_piece,
        )
    } else {
        write_archive_in_order(
            w,
            &mut header,
            &mut entries,
            &kinds,
            true,
            &produce,
            on_piece,
        )
    }
}
