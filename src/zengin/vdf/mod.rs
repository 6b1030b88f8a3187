//! `.VDF` archives (VDFS volumes): a 296-byte header, a catalog of 80-byte entries (a tree of
//! directory blocks) and the file data, optionally as Union "ZippedStream"s
//! ([`crate::zengin::vdf::zipped`]).
//!
//! # Model and memory
//!
//! [`Vdf<'a>`] is the whole archive as stored: the header and catalog as raw values, and the
//! *layout*: every byte after the header as a sequence of [`Piece`]s in file order (the
//! catalog, each file's stored bytes, and whatever lies between or after them as gaps). A piece
//! holds a `Cow<'a, [u8]>`: [`Vdf::parse`] borrows from the input (a memory map for the
//! archive commands), so listing, extracting, unpacking and verifying a 1 GB archive never
//! copies its data; the registry's [`Codec`] type is `Vdf<'static>` and owns its bytes (one
//! copy, acceptable for `export`/`import` of small archives).
//!
//! Catalog entries are "placed" when a layout piece holds their data, and "unplaced" otherwise
//! (data past the end of the archive, or overlapping data that already belongs to another
//! piece): unplaced entries keep their stored offset and size and own no bytes.
//!
//! # Writing
//!
//! [`write_archive`] streams the pieces in order to any `Write + Seek` target, producing piece
//! contents on all cores in small windows, and computes every placed file's offset and the
//! catalog offset from the positions it actually writes; the header and catalog are written
//! last (seeking back). For an untouched archive those positions are the stored ones, so the
//! output is byte-identical; after an edit the layout is consistent again with order kept.

mod container;
pub mod folder;
#[cfg(test)]
mod tests;
pub mod yaml;
pub mod zipped;

pub use container::VdfContainer;

use crate::codec::{Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{Cursor, DecodeError, EncodeError, PutLe, Within};
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::{Seek, SeekFrom, Write};

pub const HEADER_SIZE: usize = 296;
pub const ENTRY_SIZE: usize = 80;
pub const NAME_SIZE: usize = 64;
pub const COMMENT_SIZE: usize = 256;
pub const SIGNATURE_SIZE: usize = 16;
/// The common start of every signature.
pub const SIGNATURE_PREFIX: &[u8] = b"PSVDSC_V2.00";
pub const SIGNATURE_GOTHIC1: &[u8; 16] = b"PSVDSC_V2.00\r\n\r\n";
pub const SIGNATURE_GOTHIC2: &[u8; 16] = b"PSVDSC_V2.00\n\r\n\r";
pub const SIGNATURE_VDFS_TOOL: &[u8; 16] = b"PSVDSC_V2.00\x1A\x1A\x1A\x1A";
/// Last header field of a normal volume (the catalog entry size).
pub const VOLUME_NORMAL: u32 = 0x50;
/// Last header field of a Union compressed volume.
pub const VOLUME_ZIPPED: u32 = 0xA0;
pub const TYPE_DIRECTORY: u32 = 0x8000_0000;
pub const TYPE_LAST: u32 = 0x4000_0000;
/// FILE_ATTRIBUTE_ARCHIVE, what packers set on files.
pub const ATTRIBUTE_ARCHIVE: u32 = 0x20;
pub const COMMENT_PAD: u8 = 0x1A;
pub const NAME_PAD: u8 = 0x20;

/// The 296-byte header, every field as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub comment: [u8; COMMENT_SIZE],
    pub signature: [u8; SIGNATURE_SIZE],
    pub entry_count: u32,
    pub file_count: u32,
    /// DOS date and time.
    pub timestamp: u32,
    /// The sum of the (uncompressed) file sizes in the samples.
    pub data_size: u32,
    /// Absolute offset of the catalog; 0 means "right after the header".
    pub catalog_offset: u32,
    /// 0x50 (normal) or 0xA0 (Union compressed).
    pub volume: u32,
}

impl Header {
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(Header {
            comment: cur.array().within("comment")?,
            signature: cur.array().within("signature")?,
            entry_count: cur.u32().within("entry_count")?,
            file_count: cur.u32().within("file_count")?,
            timestamp: cur.u32().within("timestamp")?,
            data_size: cur.u32().within("data_size")?,
            catalog_offset: cur.u32().within("catalog_offset")?,
            volume: cur.u32().within("volume")?,
        })
    }
    pub fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.comment);
        out.extend_from_slice(&self.signature);
        for v in [
            self.entry_count,
            self.file_count,
            self.timestamp,
            self.data_size,
            self.catalog_offset,
            self.volume,
        ] {
            out.put_u32(v);
        }
    }
    pub fn zipped(&self) -> bool {
        self.volume == VOLUME_ZIPPED
    }
    /// Where the catalog starts.
    pub fn catalog_start(&self) -> u64 {
        match self.catalog_offset {
            0 => HEADER_SIZE as u64,
            o => u64::from(o),
        }
    }
    /// Name of the field at byte `rel` of the header.
    fn field_at(rel: usize) -> &'static str {
        match rel {
            0..=255 => "header.comment",
            256..=271 => "header.signature",
            272..=275 => "header.entry_count",
            276..=279 => "header.file_count",
            280..=283 => "header.timestamp",
            284..=287 => "header.data_size",
            288..=291 => "header.catalog_offset",
            _ => "header.volume",
        }
    }
}

/// Pad or refuse `text` into a fixed field.
pub fn fixed<const N: usize>(text: &[u8], pad: u8) -> Result<[u8; N], String> {
    if text.len() > N {
        return Err(format!(
            "{} bytes do not fit in a {N}-byte field",
            text.len()
        ));
    }
    let mut out = [pad; N];
    out[..text.len()].copy_from_slice(text);
    Ok(out)
}

/// `bytes` without the trailing run of `pad`.
pub fn trim_pad(bytes: &[u8], pad: u8) -> &[u8] {
    let end = bytes.iter().rposition(|&b| b != pad).map_or(0, |p| p + 1);
    &bytes[..end]
}

/// One 80-byte catalog entry, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Padded with spaces, no terminator.
    pub name: [u8; NAME_SIZE],
    /// File: absolute offset of its data. Directory: catalog index of its first child.
    pub offset: u32,
    /// File: size in bytes (uncompressed in zipped volumes). Directory: 0.
    pub size: u32,
    /// Type bits: [`TYPE_DIRECTORY`], [`TYPE_LAST`].
    pub kind: u32,
    pub attributes: u32,
}

impl Entry {
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(Entry {
            name: cur.array().within("name")?,
            offset: cur.u32().within("offset")?,
            size: cur.u32().within("size")?,
            kind: cur.u32().within("type")?,
            attributes: cur.u32().within("attributes")?,
        })
    }
    pub fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.name);
        out.put_u32(self.offset);
        out.put_u32(self.size);
        out.put_u32(self.kind);
        out.put_u32(self.attributes);
    }
    pub fn is_dir(&self) -> bool {
        self.kind & TYPE_DIRECTORY != 0
    }
    pub fn is_last(&self) -> bool {
        self.kind & TYPE_LAST != 0
    }
    /// The name without its space padding (what the game looks up).
    pub fn name_text(&self) -> &[u8] {
        trim_pad(&self.name, NAME_PAD)
    }
    /// The name as a path component: also without trailing NULs some packers leave.
    pub fn path_name(&self) -> &[u8] {
        let mut n = self.name.as_slice();
        while let [rest @ .., b' ' | 0] = n {
            n = rest;
        }
        n
    }
    pub fn display_name(&self) -> String {
        crate::exact::text::decode_cp1252(self.path_name()).into_owned()
    }
    fn field_at(rel: usize) -> &'static str {
        match rel {
            0..=63 => "name",
            64..=67 => "offset",
            68..=71 => "size",
            72..=75 => "type",
            _ => "attributes",
        }
    }
}

/// What a piece of the layout is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceKind {
    /// The catalog (its bytes are written from the entries).
    Catalog,
    /// A file's stored data: its contents, or a ZippedStream when `zipped`.
    File { entry: usize, zipped: bool },
    /// Bytes that belong to no file: kept verbatim.
    Gap,
}

/// A run of bytes after the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece<'a> {
    pub kind: PieceKind,
    /// Offset where the piece was read (or last laid out).
    pub offset: u64,
    /// Stored bytes (empty for the catalog).
    pub bytes: Cow<'a, [u8]>,
}

impl Piece<'_> {
    pub fn stored_len(&self, entries: usize) -> u64 {
        match self.kind {
            PieceKind::Catalog => (entries * ENTRY_SIZE) as u64,
            _ => self.bytes.len() as u64,
        }
    }
}

/// A decoded archive. `Vdf<'static>` (owning) is the registry's model.
#[derive(Debug, Clone, PartialEq)]
pub struct Vdf<'a> {
    pub header: Header,
    /// The catalog in stored order.
    pub entries: Vec<Entry>,
    /// Everything after the header, in file order.
    pub layout: Vec<Piece<'a>>,
    /// Problems the game tolerates (data past the end, overlaps), for `info` and `list`.
    pub warnings: Vec<String>,
}

fn invalid(offset: u64, msg: impl Into<String>) -> DecodeError {
    DecodeError::invalid(offset, msg)
}

impl<'a> Vdf<'a> {
    /// Parse an archive, borrowing every piece from `src`.
    pub fn parse(src: &'a [u8]) -> Result<Self, DecodeError> {
        let mut cur = Cursor::new(src, 0);
        let header = Header::read(&mut cur).within("header")?;
        if !header.signature.starts_with(SIGNATURE_PREFIX) {
            return Err(invalid(
                256,
                format!(
                    "not a VDF archive: signature {:?} does not start with PSVDSC_V2.00",
                    crate::exact::text::decode_cp1252(&header.signature)
                ),
            ))
            .within("signature")
            .within("header");
        }
        let mut warnings = Vec::new();
        if ![SIGNATURE_GOTHIC1, SIGNATURE_GOTHIC2, SIGNATURE_VDFS_TOOL].contains(&&header.signature)
        {
            warnings.push(format!(
                "unusual signature {:?}; the game may refuse the archive",
                crate::exact::text::decode_cp1252(&header.signature)
            ));
        }
        if header.volume != VOLUME_NORMAL && header.volume != VOLUME_ZIPPED {
            warnings.push(format!(
                "unknown volume value 0x{:x} (normal is 0x50, compressed 0xA0); read as uncompressed",
                header.volume
            ));
        }
        let cat = header.catalog_start();
        if cat < HEADER_SIZE as u64 {
            return Err(invalid(
                288,
                format!("catalog offset {cat} lies inside the 296-byte header"),
            ))
            .within("catalog_offset")
            .within("header");
        }
        if cat > src.len() as u64 {
            return Err(invalid(
                288,
                format!(
                    "catalog offset {cat} is past the end of the archive ({} bytes)",
                    src.len()
                ),
            ))
            .within("catalog_offset")
            .within("header");
        }
        let mut cur = Cursor::new(&src[cat as usize..], cat);
        let count = cur
            .check_count(header.entry_count.into(), ENTRY_SIZE)
            .map_err(|e| {
                invalid(
                    272,
                    format!(
                        "the catalog at {cat} cannot hold {} entries: {}",
                        header.entry_count, e.kind
                    ),
                )
            })
            .within("entry_count")
            .within("header")?;
        let mut entries = Vec::with_capacity(count);
        for i in 0..count {
            entries.push(Entry::read(&mut cur).within_index(i).within("catalog")?);
        }
        let cat_end = cat + (count * ENTRY_SIZE) as u64;

        // Candidate ranges: the catalog, then every file's stored bytes.
        struct Cand {
            start: u64,
            end: u64,
            kind: PieceKind,
        }
        let mut cands = vec![Cand {
            start: cat,
            end: cat_end,
            kind: PieceKind::Catalog,
        }];
        let len = src.len() as u64;
        for (i, e) in entries.iter().enumerate() {
            if e.is_dir() {
                continue;
            }
            let start = u64::from(e.offset);
            let mut zipped = false;
            let mut end = start + u64::from(e.size);
            // An empty file has no stream (probing would find the next file's).
            if header.zipped() && start < len && e.size > 0 {
                if let Some(info) = zipped::probe(&src[start as usize..]) {
                    zipped = true;
                    end = start + info.stored_len;
                }
            }
            let hits_catalog = if start == end {
                start > cat && start < cat_end
            } else {
                start < cat_end && end > cat
            };
            if hits_catalog && end <= len {
                warnings.push(format!(
                    "catalog[{i}] {}: data at {start}..{end} overlaps the catalog; kept as stored (unplaced)",
                    e.display_name()
                ));
                continue;
            }
            if end > len {
                warnings.push(format!(
                    "catalog[{i}] {}: data at {start}..{end} runs past the end of the archive ({len} bytes); the game skips it",
                    e.display_name()
                ));
                continue;
            }
            cands.push(Cand {
                start,
                end,
                kind: PieceKind::File { entry: i, zipped },
            });
        }
        // Stable: the catalog comes first among equal starts, then catalog order.
        cands.sort_by_key(|c| c.start);
        let mut layout = Vec::with_capacity(cands.len() * 2 + 1);
        let mut pos = HEADER_SIZE as u64;
        for c in cands {
            if c.start < pos {
                let PieceKind::File { entry, .. } = c.kind else {
                    continue;
                };
                warnings.push(format!(
                    "catalog[{entry}] {}: data at {}..{} overlaps other data or the header; kept as stored (unplaced)",
                    entries[entry].display_name(),
                    c.start,
                    c.end
                ));
                continue;
            }
            if c.start > pos {
                layout.push(Piece {
                    kind: PieceKind::Gap,
                    offset: pos,
                    bytes: Cow::Borrowed(&src[pos as usize..c.start as usize]),
                });
            }
            let bytes = match c.kind {
                PieceKind::Catalog => Cow::Borrowed(&[][..]),
                _ => Cow::Borrowed(&src[c.start as usize..c.end as usize]),
            };
            layout.push(Piece {
                kind: c.kind,
                offset: c.start,
                bytes,
            });
            pos = c.end;
        }
        if pos < len {
            layout.push(Piece {
                kind: PieceKind::Gap,
                offset: pos,
                bytes: Cow::Borrowed(&src[pos as usize..]),
            });
        }
        let vdf = Vdf {
            header,
            entries,
            layout,
            warnings,
        };
        Ok(vdf)
    }

    /// An owning copy.
    pub fn into_owned(self) -> Vdf<'static> {
        Vdf {
            header: self.header,
            entries: self.entries,
            layout: self
                .layout
                .into_iter()
                .map(|p| Piece {
                    kind: p.kind,
                    offset: p.offset,
                    bytes: Cow::Owned(p.bytes.into_owned()),
                })
                .collect(),
            warnings: self.warnings,
        }
    }

    /// Layout index of each entry's piece (`None`: directory or unplaced file).
    pub fn placement(&self) -> Vec<Option<usize>> {
        let mut out = vec![None; self.entries.len()];
        for (i, p) in self.layout.iter().enumerate() {
            if let PieceKind::File { entry, .. } = p.kind {
                if let Some(slot) = out.get_mut(entry) {
                    *slot = Some(i);
                }
            }
        }
        out
    }

    /// The contents of placed file `piece` (inflated when zipped).
    pub fn piece_contents(&self, piece: usize) -> Result<Cow<'_, [u8]>, String> {
        let p = self.layout.get(piece).ok_or("no such piece")?;
        match p.kind {
            PieceKind::File { zipped: true, .. } => zipped::decompress(&p.bytes).map(Cow::Owned),
            _ => Ok(Cow::Borrowed(&p.bytes)),
        }
    }

    /// Sum of all file sizes (what the header's data size holds in the samples).
    pub fn sum_of_sizes(entries: &[Entry]) -> u64 {
        entries
            .iter()
            .filter(|e| !e.is_dir())
            .map(|e| u64::from(e.size))
            .sum()
    }

    /// Write the archive (placed file offsets and the catalog offset follow the layout).
    pub fn write<W: Write + Seek>(&self, w: &mut W) -> Result<u64, EncodeError> {
        let mut header = self.header.clone();
        let mut entries = self.entries.clone();
        let kinds: Vec<PieceKind> = self.layout.iter().map(|p| p.kind).collect();
        write_archive(
            w,
            &mut header,
            &mut entries,
            &kinds,
            false,
            &|i| {
                Ok(Produced::bytes(
                    Cow::Borrowed(&self.layout[i].bytes[..]),
                    None,
                ))
            },
            &|| {},
        )
    }

    /// Recompute the offsets of placed files, the catalog offset and (with
    /// `recompute_data_size`) the header's data size from the layout, as writing would.
    pub fn relayout(&mut self, recompute_data_size: bool) -> Result<(), EncodeError> {
        let kinds: Vec<PieceKind> = self.layout.iter().map(|p| p.kind).collect();
        let mut sink = crate::exact::sink::CountingSink::default();
        let layout = &self.layout;
        write_archive(
            &mut sink,
            &mut self.header,
            &mut self.entries,
            &kinds,
            recompute_data_size,
            &|i| Ok(Produced::bytes(Cow::Borrowed(&layout[i].bytes[..]), None)),
            &|| {},
        )?;
        let mut pos = HEADER_SIZE as u64;
        let n = self.entries.len();
        for p in &mut self.layout {
            p.offset = pos;
            pos += p.stored_len(n);
        }
        Ok(())
    }

    /// Which field holds byte `offset` of the written archive.
    pub fn field_at(&self, offset: u64) -> String {
        if offset < HEADER_SIZE as u64 {
            return Header::field_at(offset as usize).into();
        }
        let n = self.entries.len();
        for (i, p) in self.layout.iter().enumerate() {
            let end = p.offset + p.stored_len(n);
            if offset >= p.offset && offset < end {
                let rel = offset - p.offset;
                return match p.kind {
                    PieceKind::Catalog => {
                        let e = (rel / ENTRY_SIZE as u64) as usize;
                        format!(
                            "catalog[{e}].{}",
                            Entry::field_at((rel % ENTRY_SIZE as u64) as usize)
                        )
                    }
                    PieceKind::File { entry, .. } => format!(
                        "layout[{i}] (catalog[{entry}] {}) byte {rel}",
                        self.entries
                            .get(entry)
                            .map(|e| e.display_name())
                            .unwrap_or_default()
                    ),
                    PieceKind::Gap => format!("layout[{i}] (gap) byte {rel}"),
                };
            }
        }
        "<past the end>".into()
    }
}

// ---------------------------------------------------------------------------------------------
// The catalog tree

/// Every entry's path in the directory tree, built from the catalog's blocks.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    /// Per entry: its path (components joined with `/`, raw Windows-1252 bytes); `None` for
    /// an entry no directory reaches.
    pub paths: Vec<Option<Vec<u8>>>,
    /// Per entry: the directory entry it sits in (`None` for the root block).
    pub parent: Vec<Option<usize>>,
    pub warnings: Vec<String>,
}

impl Tree {
    /// Walk the blocks from the root block at index 0. A block reached twice (a loop, or two
    /// directories sharing children) is an error; a block without a "last" entry ends at the
    /// catalog's end, a directory whose first child lies outside the catalog is empty and an
    /// entry no directory reaches is skipped, each with a warning.
    pub fn build(entries: &[Entry], catalog_start: u64) -> Result<Tree, DecodeError> {
        let n = entries.len();
        let mut t = Tree {
            paths: vec![None; n],
            parent: vec![None; n],
            warnings: Vec::new(),
        };
        let mut reached = vec![false; n];
        let mut stack: Vec<(usize, Vec<u8>, Option<usize>)> = Vec::new();
        if n > 0 {
            stack.push((0, Vec::new(), None));
        }
        while let Some((start, prefix, parent)) = stack.pop() {
            let mut i = start;
            loop {
                if i >= n {
                    t.warnings.push(format!(
                        "the block starting at catalog[{start}] has no entry marked last; it ends with the catalog"
                    ));
                    break;
                }
                let e = &entries[i];
                if reached[i] {
                    let at = catalog_start + (i * ENTRY_SIZE) as u64;
                    let by = match parent {
                        Some(p) => format!("directory catalog[{p}]"),
                        None => "the root block".into(),
                    };
                    return Err(invalid(
                        at,
                        format!(
                            "catalog loop: entry {i} ({}) is reached a second time, from {by}",
                            e.display_name()
                        ),
                    ))
                    .within_index(i)
                    .within("catalog");
                }
                reached[i] = true;
                let mut path = prefix.clone();
                path.extend_from_slice(e.path_name());
                if e.is_dir() {
                    let child = e.offset as usize;
                    if child >= n {
                        t.warnings.push(format!(
                            "directory catalog[{i}] {}: first child {child} lies outside the catalog ({n} entries); treated as empty",
                            e.display_name()
                        ));
                    } else {
                        let mut p = path.clone();
                        p.push(b'/');
                        stack.push((child, p, Some(i)));
                    }
                }
                t.paths[i] = Some(path);
                t.parent[i] = parent;
                if e.is_last() {
                    break;
                }
                i += 1;
            }
        }
        for (i, r) in reached.iter().enumerate() {
            if !r {
                t.warnings.push(format!(
                    "catalog[{i}] {}: no directory reaches this entry; it is not part of the tree",
                    entries[i].display_name()
                ));
            }
        }
        let mut seen = std::collections::HashMap::new();
        for (i, p) in t.paths.iter().enumerate() {
            if let Some(p) = p {
                if let Some(first) = seen.insert(p.to_ascii_uppercase(), i) {
                    t.warnings.push(format!(
                        "catalog[{i}] and catalog[{first}] have the same path {}; the game sees only one of them",
                        crate::exact::text::decode_cp1252(p)
                    ));
                }
            }
        }
        Ok(t)
    }

    pub fn path_string(&self, entry: usize) -> Option<String> {
        self.paths
            .get(entry)?
            .as_ref()
            .map(|p| crate::exact::text::decode_cp1252(p).into_owned())
    }
}

// ---------------------------------------------------------------------------------------------
// Safe extraction paths

const WINDOWS_RESERVED: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// A catalog name as one file-name component, or why it cannot be one: empty, `.`/`..`,
/// path separators, drive colons, control bytes, characters Windows forbids, a trailing dot
/// or space, or a reserved device name.
pub fn safe_component(name: &[u8]) -> Result<String, String> {
    let text = crate::exact::text::decode_cp1252(name);
    let bad = |why: &str| Err(format!("unsafe name {text:?}: {why}"));
    if name.is_empty() {
        return bad("empty");
    }
    if name == b"." || name == b".." {
        return bad("refers to a directory above or itself");
    }
    if let Some(&b) = name
        .iter()
        .find(|&&b| b < 0x20 || b == 0x7F || b"/\\:*?\"<>|".contains(&b))
    {
        return bad(&format!("contains byte 0x{b:02x}"));
    }
    if name.ends_with(b".") || name.ends_with(b" ") {
        return bad("ends with a dot or space");
    }
    let stem = text.split('.').next().unwrap_or("").to_ascii_uppercase();
    if WINDOWS_RESERVED.contains(&stem.as_str()) {
        return bad("a reserved device name on Windows");
    }
    Ok(text.into_owned())
}

/// The relative path (below the output folder) of an entry's path, every component checked.
pub fn safe_relative_path(path: &[u8]) -> Result<std::path::PathBuf, String> {
    let mut out = std::path::PathBuf::new();
    for comp in path.split(|&b| b == b'/') {
        out.push(safe_component(comp)?);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Writing

/// A piece's contents from a producer: the stored bytes and, when they changed, the entry's
/// new (uncompressed) size.
pub struct Produced<'s> {
    pub bytes: Cow<'s, [u8]>,
    pub size: Option<u32>,
    /// Instead of `bytes`: this many bytes from the start of this open file, copied by the
    /// writer (inside the kernel where the system can, so they never pass through memory).
    pub file: Option<(std::fs::File, u64)>,
}

impl<'s> Produced<'s> {
    /// Stored bytes; `size` as in the struct.
    pub fn bytes(bytes: Cow<'s, [u8]>, size: Option<u32>) -> Self {
        Produced {
            bytes,
            size,
            file: None,
        }
    }
}

/// How many pieces are produced in parallel before they are written in order.
const WINDOW: usize = 32;

/// Write an archive: a header placeholder, then every piece in `kinds` order (contents from
/// `produce`, called on all cores in windows of a few pieces), then the header and catalog
/// with the offsets actually written. `on_piece` is called once per written piece.
pub fn write_archive<'s, W: Write + Seek>(
    w: &mut W,
    header: &mut Header,
    entries: &mut [Entry],
    kinds: &[PieceKind],
    recompute_data_size: bool,
    produce: &(dyn Fn(usize) -> Result<Produced<'s>, EncodeError> + Sync),
    on_piece: &(dyn Fn() + Sync),
) -> Result<u64, EncodeError> {
    type E = EncodeError;
    let io = |e: std::io::Error| EncodeError::new(format!("write failed: {e}"));
    let too_big = || EncodeError::new("the archive would be larger than 4 GiB");
    w.write_all(&[0u8; HEADER_SIZE]).map_err(io)?;
    let mut pos = HEADER_SIZE as u64;
    let mut catalog_at = None;
    let n = entries.len();
    // Pieces are produced on all cores, a window at a time, while the window before is being
    // written (a bounded channel keeps at most two windows in memory).
    let windows: Vec<(usize, usize)> = (0..kinds.len())
        .step_by(WINDOW)
        .map(|s| (s, (s + WINDOW).min(kinds.len())))
        .collect();
    type Window<'s> = Vec<Result<Option<Produced<'s>>, EncodeError>>;
    let produce_window = |start: usize, end: usize| -> Window<'s> {
        (start..end)
            .into_par_iter()
            .map(|i| match kinds[i] {
                PieceKind::Catalog => Ok(None),
                _ => produce(i).map(Some),
            })
            .collect()
    };
    let mut write_window = |start: usize, end: usize, produced: Window<'s>| -> Result<(), E> {
        for (k, p) in (start..end).zip(produced) {
            match (kinds[k], p?) {
                (PieceKind::Catalog, _) => {
                    if catalog_at.is_some() {
                        return Err(EncodeError::new("the layout has two catalogs"));
                    }
                    catalog_at = Some(pos);
                    let zeros = vec![0u8; n * ENTRY_SIZE];
                    w.write_all(&zeros).map_err(io)?;
                    pos += zeros.len() as u64;
                }
                (kind, Some(p)) => {
                    let written = put_produced(w, p.bytes, p.file)?;
                    if let PieceKind::File { entry, .. } = kind {
                        let e = entries.get_mut(entry).ok_or_else(|| {
                            EncodeError::new(format!(
                                "layout[{k}] names catalog entry {entry}, but the catalog has {n}"
                            ))
                        })?;
                        e.offset = u32::try_from(pos).map_err(|_| too_big())?;
                        if let Some(s) = p.size {
                            e.size = s;
                        }
                    }
                    pos += written;
                }
                (_, None) => {}
            }
            on_piece();
        }
        Ok(())
    };
    let result: Result<(), E> = if rayon::current_thread_index().is_some() {
        // Called from a task of the thread pool (verify of many archives): waiting here for a
        // producer whose work needs the same pool could block every worker, so each window is
        // produced (still in parallel) and then written, without overlap.
        windows
            .iter()
            .try_for_each(|&(start, end)| write_window(start, end, produce_window(start, end)))
    } else {
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Window<'s>>(1);
            let windows = &windows;
            let produce_window = &produce_window;
            scope.spawn(move || {
                for &(start, end) in windows {
                    let produced = produce_window(start, end);
                    let failed = produced.iter().any(Result::is_err);
                    if tx.send(produced).is_err() || failed {
                        return;
                    }
                }
            });
            for &(start, end) in windows {
                let produced = rx
                    .recv()
                    .map_err(|_| EncodeError::new("internal: the piece producer stopped"))?;
                write_window(start, end, produced)?;
            }
            Ok(())
        })
    };
    result?;
    let total = pos;
    u32::try_from(total).map_err(|_| too_big())?;
    let cat = catalog_at.ok_or_else(|| EncodeError::new("the layout has no catalog"))?;
    if !(header.catalog_offset == 0 && cat == HEADER_SIZE as u64) {
        header.catalog_offset = cat as u32;
    }
    if recompute_data_size {
        header.data_size = u32::try_from(Vdf::sum_of_sizes(entries)).map_err(|_| too_big())?;
    }
    let mut head = Vec::with_capacity(HEADER_SIZE);
    header.put(&mut head);
    w.seek(SeekFrom::Start(0)).map_err(io)?;
    w.write_all(&head).map_err(io)?;
    let mut cat_bytes = Vec::with_capacity(n * ENTRY_SIZE);
    for e in entries.iter() {
        e.put(&mut cat_bytes);
    }
    w.seek(SeekFrom::Start(cat)).map_err(io)?;
    w.write_all(&cat_bytes).map_err(io)?;
    w.seek(SeekFrom::Start(total)).map_err(io)?;
    w.flush().map_err(io)?;
    Ok(total)
}

/// Write a produced piece (its bytes, or its file's first bytes); returns the length written.
fn put_produced<W: Write>(
    w: &mut W,
    bytes: Cow<'_, [u8]>,
    file: Option<(std::fs::File, u64)>,
) -> Result<u64, EncodeError> {
    let io = |e: std::io::Error| EncodeError::new(format!("write failed: {e}"));
    match file {
        None => {
            w.write_all(&bytes).map_err(io)?;
            Ok(bytes.len() as u64)
        }
        Some((f, len)) => {
            use std::io::Read;
            let copied = std::io::copy(&mut (&f).take(len), w).map_err(io)?;
            if copied != len {
                return Err(EncodeError::new(format!(
                    "a file shrank from {len} to {copied} bytes while it was being packed"
                )));
            }
            Ok(len)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// DOS timestamps

/// A DOS date/time as `(year, month, day, hour, minute, second)`, or `None` when a field is
/// out of range (then it cannot be written as a date and back).
pub fn dos_to_parts(v: u32) -> Option<(u32, u32, u32, u32, u32, u32)> {
    let year = 1980 + (v >> 25);
    let month = (v >> 21) & 0xF;
    let day = (v >> 16) & 0x1F;
    let hour = (v >> 11) & 0x1F;
    let minute = (v >> 5) & 0x3F;
    let second = (v & 0x1F) * 2;
    if !(1..=12).contains(&month) || day == 0 || hour > 23 || minute > 59 || second > 58 {
        return None;
    }
    Some((year, month, day, hour, minute, second))
}

/// `YYYY-MM-DD hh:mm:ss` of a DOS timestamp, when it is a valid one.
pub fn dos_to_string(v: u32) -> Option<String> {
    dos_to_parts(v)
        .map(|(y, mo, d, h, mi, s)| format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"))
}

/// Parse `YYYY-MM-DD hh:mm:ss` (seconds are stored in 2 s steps: odd seconds are refused).
pub fn dos_from_string(s: &str) -> Option<u32> {
    let s = s.trim();
    let (date, time) = s.split_once([' ', 'T'])?;
    let d: Vec<u32> = date
        .split('-')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let t: Vec<u32> = time
        .split(':')
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let ([y, mo, da], [h, mi, se]) = (d.as_slice(), t.as_slice()) else {
        return None;
    };
    if !(1980..=2107).contains(y) || se % 2 != 0 {
        return None;
    }
    let v = ((y - 1980) << 25) | (mo << 21) | (da << 16) | (h << 11) | (mi << 5) | (se / 2);
    (dos_to_parts(v) == Some((*y, *mo, *da, *h, *mi, *se))).then_some(v)
}

/// The DOS timestamp of a Unix time (UTC).
pub fn dos_from_unix(secs: i64) -> u32 {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400) as u32;
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = (yoe + era * 400 + i64::from(month <= 2)).clamp(1980, 2107) as u32;
    ((year - 1980) << 25)
        | (month << 21)
        | (day << 16)
        | ((rem / 3600) << 11)
        | (((rem / 60) % 60) << 5)
        | ((rem % 60) / 2)
}

// ---------------------------------------------------------------------------------------------
// Registration

impl Codec for Vdf<'static> {
    const TAG: &'static str = "zengin.vdf";
    const DESCRIPTION: &'static str = "ZenGin virtual disk file (.VDF archive)";
    const EXTENSIONS: &'static [&'static str] = &["vdf", "mod"];
    const CONTAINER: Option<&'static dyn crate::codec::Container> = Some(&VdfContainer);

    fn detect(data: &[u8]) -> bool {
        data.len() >= HEADER_SIZE && data[COMMENT_SIZE..].starts_with(SIGNATURE_PREFIX)
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Vdf::parse(data).map(Vdf::into_owned)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let mut c = std::io::Cursor::new(std::mem::take(out));
        self.write(&mut c)?;
        *out = c.into_inner();
        Ok(())
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        crate::zengin::vdf::yaml::to_yaml(self)
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, crate::exact::ImportError> {
        crate::zengin::vdf::yaml::from_yaml(text)
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(crate::zengin::vdf::yaml::VdfDocument)
    }
    fn info(&self) -> Vec<InfoLine> {
        info_lines(self)
    }
    fn field_at(&self, offset: u64) -> String {
        Vdf::field_at(self, offset)
    }
    /// Without what changed inside members: that needs the registry's formats, which the
    /// generic `diff` hands to [`VdfContainer`].
    fn diff(&self, other: &Self) -> Vec<String> {
        crate::zengin::vdf::yaml::diff(self, other, crate::codec::Formats(&[]))
    }
}

/// `animkit info` of an archive (borrowed, so a memory-mapped archive is never copied).
pub fn info_lines(this: &Vdf<'_>) -> Vec<InfoLine> {
    let h = &this.header;
    let mut v = vec![
        (
            "signature",
            crate::zengin::vdf::yaml::Signature::of(&h.signature).name(),
        ),
        (
            "comment",
            crate::exact::text::decode_cp1252(trim_pad(&h.comment, COMMENT_PAD)).into_owned(),
        ),
        (
            "entries",
            format!(
                "{} ({} files, {} directories)",
                this.entries.len(),
                this.entries.iter().filter(|e| !e.is_dir()).count(),
                this.entries.iter().filter(|e| e.is_dir()).count()
            ),
        ),
        (
            "timestamp",
            dos_to_string(h.timestamp).unwrap_or_else(|| format!("0x{:08x}", h.timestamp)),
        ),
        (
            "volume",
            match h.volume {
                VOLUME_NORMAL => "normal".into(),
                VOLUME_ZIPPED => "zipped (Union ZippedStream)".into(),
                o => format!("0x{o:x}"),
            },
        ),
        ("data size", h.data_size.to_string()),
    ];
    for w in &this.warnings {
        v.push(("warning", w.clone()));
    }
    if let Err(e) = Tree::build(&this.entries, h.catalog_start()) {
        v.push(("warning", e.to_string()));
    }
    v
}
