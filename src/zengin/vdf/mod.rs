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
mod dos_time;
pub mod folder;
mod read;
mod replace;
#[cfg(test)]
pub(crate) mod tests;
mod tree;
mod write;
pub mod yaml;
pub mod zipped;

pub use container::VdfContainer;
pub use dos_time::{dos_from_string, dos_from_unix, dos_to_parts, dos_to_string};
pub use tree::{case_key, path_case_key, safe_component, safe_relative_path, Tree};
pub use write::{
    produced_in_parallel, write_archive, write_archive_in_order, Produced, VecTarget,
    STREAMING_FROM,
};

use crate::codec::{Codec, ExportOptions, Finding, ImportOptions, InfoLine, Severity};
use crate::exact::record::field_at;
use crate::exact::{DecodeError, EncodeError, FieldPath, Record};
use std::borrow::Cow;

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

crate::record! {
    /// The 296-byte header, every field as stored.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Header: little plain {
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
}

const _: () = assert!(<Header as Record>::SIZE == HEADER_SIZE);

impl Header {
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

crate::record! {
    /// One 80-byte catalog entry, as stored. (`repr(C)` of four-byte values without padding:
    /// a catalog in the input is used in place where it lies aligned, see [`entries_in`].)
    #[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    pub struct Entry: little plain {
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
}

const _: () = assert!(<Entry as Record>::SIZE == ENTRY_SIZE);

impl Entry {
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
}

/// `count` catalog entries stored in `bytes` (exactly `count` × 80 of them): the bytes
/// themselves viewed as entries when they lie aligned for them on a little-endian machine (the
/// entries' in-memory layout is then their stored one: no copy), else each entry read through
/// its declaration. Test `the_catalog_in_place_is_the_declared_read` ties the two.
pub fn entries_in(bytes: &[u8], count: usize) -> Cow<'_, [Entry]> {
    debug_assert_eq!(bytes.len(), count * ENTRY_SIZE);
    if cfg!(target_endian = "little") {
        if let Ok(view) = bytemuck::try_cast_slice::<u8, Entry>(bytes) {
            return Cow::Borrowed(view);
        }
    }
    Cow::Owned(entries_read(bytes))
}

/// Every entry in `bytes` read through its declaration (what [`entries_in`] gives).
pub(crate) fn entries_read(bytes: &[u8]) -> Vec<Entry> {
    bytes
        .chunks_exact(ENTRY_SIZE)
        .map(<Entry as crate::exact::record::Plain>::from_le)
        .collect()
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

/// Each catalog entry's layout piece ([`Vdf::placement`]): 4 bytes an entry (a layout of
/// 4,294,967,295 pieces or more, which only an archive of over 170 GB could have, 16).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    Narrow(Vec<u32>),
    Wide(Vec<Option<usize>>),
}

impl Placement {
    /// [`Placement::Narrow`]'s "no piece".
    const NONE: u32 = u32::MAX;

    /// The layout index of entry `entry`'s piece (`None`: a directory, an unplaced file, or
    /// no such entry).
    pub fn get(&self, entry: usize) -> Option<usize> {
        match self {
            Placement::Narrow(v) => v
                .get(entry)
                .filter(|&&p| p != Self::NONE)
                .map(|&p| p as usize),
            Placement::Wide(v) => v.get(entry).copied().flatten(),
        }
    }
}

/// A decoded archive. `Vdf<'static>` (owning) is the registry's model.
#[derive(Debug, Clone, PartialEq)]
pub struct Vdf<'a> {
    pub header: Header,
    /// The catalog in stored order: borrowed from the input where it can be (see
    /// [`entries_in`]), so a parsed archive keeps no copy of its catalog.
    pub entries: Cow<'a, [Entry]>,
    /// Everything after the header, in file order.
    pub layout: Vec<Piece<'a>>,
    /// Problems the game tolerates (data past the end, overlaps), for `info` and `list`.
    pub warnings: Vec<String>,
}

impl<'a> Vdf<'a> {
    /// An owning copy.
    pub fn into_owned(self) -> Vdf<'static> {
        Vdf {
            header: self.header,
            entries: Cow::Owned(self.entries.into_owned()),
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

    /// Layout index of each entry's piece (see [`Placement`]).
    pub fn placement(&self) -> Placement {
        let n = self.entries.len();
        let files = self
            .layout
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match p.kind {
                PieceKind::File { entry, .. } if entry < n => Some((entry, i)),
                _ => None,
            });
        match u32::try_from(self.layout.len()) {
            Ok(len) if len < Placement::NONE => {
                let mut out = vec![Placement::NONE; n];
                for (entry, i) in files {
                    // (below `len`: fits)
                    out[entry] = i as u32;
                }
                Placement::Narrow(out)
            }
            _ => {
                let mut out = vec![None; n];
                for (entry, i) in files {
                    out[entry] = Some(i);
                }
                Placement::Wide(out)
            }
        }
    }

    /// The contents of placed file `piece` (inflated when zipped).
    pub fn piece_contents(&self, piece: usize) -> Result<Cow<'_, [u8]>, String> {
        let p = self.layout.get(piece).ok_or("no such piece")?;
        match p.kind {
            PieceKind::File { zipped: true, .. } => zipped::decompress(&p.bytes).map(Cow::Owned),
            _ => Ok(Cow::Borrowed(&p.bytes)),
        }
    }

    /// What makes the archive unusable although its bytes round-trip (they are kept as they
    /// are): a catalog loop, and members of a zipped volume whose data does not inflate. Each
    /// an error finding naming the catalog entry, its path and the offset of its data. The
    /// streams are inflated on all cores (the work of reading every member once).
    pub fn damage(&self) -> Vec<Finding> {
        self.damaged()
            .into_iter()
            .map(|(path, message)| Finding::new(Severity::Error, path.to_string(), message))
            .collect()
    }

    /// The first damage (see [`Vdf::damage`]) as the error of a command that reads every
    /// member (`export`).
    pub fn refuse_damage(&self) -> Result<(), EncodeError> {
        match self.damaged().into_iter().next() {
            None => Ok(()),
            Some((path, message)) => Err(EncodeError {
                path,
                message: format!("{message} (`animkit check` lists every damaged member)"),
            }),
        }
    }

    fn damaged(&self) -> Vec<(FieldPath, String)> {
        use rayon::prelude::*;
        let tree = match Tree::paths(&self.entries, self.header.catalog_start()) {
            Ok(t) => t,
            Err(e) => return vec![(e.path.clone(), format!("at byte {}: {}", e.offset, e.kind))],
        };
        self.layout
            .par_iter()
            .filter_map(|p| match p.kind {
                PieceKind::File {
                    entry,
                    zipped: true,
                } => zipped::decompress(&p.bytes).err().map(|why| {
                    let name = tree.path_string(entry).unwrap_or_else(|| {
                        String::from_utf8_lossy(self.entries[entry].name_text()).into_owned()
                    });
                    (
                        FieldPath::new().field("catalog").index(entry),
                        format!(
                            "{name}: the compressed data at byte {} does not inflate: {why} (the \
                             archive is damaged: this member cannot be read)",
                            p.offset
                        ),
                    )
                }),
                _ => None,
            })
            .collect()
    }

    /// Sum of all file sizes (what the header's data size holds in the samples).
    pub fn sum_of_sizes(entries: &[Entry]) -> u64 {
        entries
            .iter()
            .filter(|e| !e.is_dir())
            .map(|e| u64::from(e.size))
            .sum()
    }

    /// Which field holds byte `offset` of the written archive.
    pub fn field_at(&self, offset: u64) -> String {
        if offset < HEADER_SIZE as u64 {
            return field_path(
                Header::FIELDS,
                offset as usize,
                FieldPath::new().field("header"),
            );
        }
        let n = self.entries.len();
        for (i, p) in self.layout.iter().enumerate() {
            let end = p.offset + p.stored_len(n);
            if offset >= p.offset && offset < end {
                let rel = offset - p.offset;
                return match p.kind {
                    PieceKind::Catalog => {
                        let e = (rel / ENTRY_SIZE as u64) as usize;
                        let p = FieldPath::new().field("catalog").index(e);
                        field_path(Entry::FIELDS, (rel % ENTRY_SIZE as u64) as usize, p)
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
        self.refuse_damage()?;
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
    fn check(&self, _ctx: &crate::codec::CheckContext<'_>) -> Vec<Finding> {
        self.damage()
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
    if let Err(e) = Tree::paths(&this.entries, h.catalog_start()) {
        v.push(("warning", e.to_string()));
    }
    v
}

/// The path of byte `rel` of a record laid out as `fields`, under `p`.
fn field_path(fields: &[crate::exact::record::Field], rel: usize, p: FieldPath) -> String {
    field_at(fields, rel, &p).unwrap_or(p).to_string()
}
