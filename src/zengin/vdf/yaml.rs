//! YAML for VDF archives. Two documents share the header and catalog types here:
//!
//! * `zengin.vdf` (the registry's `export`/`import`, and the YAML stage of `verify` on the
//!   [`Codec`] path): header, catalog and layout with every file's contents inline as hex (and,
//!   in compressed volumes, the original stream) — complete and byte-exact, meant for small
//!   archives and for looking at an archive's structure.
//! * `zengin.vdf.manifest` (written by `unpack`, read by `repack`, see
//!   [`crate::zengin::vdf::folder`]): the same header, catalog and layout, with file contents left in
//!   the folder tree beside it.

use crate::codec::{check_document_header, Codec, Formats};
use crate::exact::{Blob, EncodeError, Hex32, ImportError, Text, Within};
use crate::yaml::{Comment, RAW_SCALAR};
use crate::zengin::vdf::zipped;
use crate::zengin::vdf::{
    dos_from_string, dos_to_string, fixed, trim_pad, Entry, Header, Piece, PieceKind, Tree, Vdf,
    COMMENT_PAD, NAME_PAD, SIGNATURE_GOTHIC1, SIGNATURE_GOTHIC2, SIGNATURE_SIZE,
    SIGNATURE_VDFS_TOOL, TYPE_DIRECTORY, TYPE_LAST, VOLUME_NORMAL, VOLUME_ZIPPED,
};
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

// ---------------------------------------------------------------------------------------------
// Value types

/// The 16-byte signature: by name, or its text when it is none of the known ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signature {
    /// `PSVDSC_V2.00\r\n\r\n`
    Gothic1,
    /// `PSVDSC_V2.00\n\r\n\r`
    Gothic2,
    /// `PSVDSC_V2.00` and four 0x1A (VDFS tool output)
    VdfsTool,
    Other([u8; SIGNATURE_SIZE]),
}

impl Signature {
    pub fn of(raw: &[u8; SIGNATURE_SIZE]) -> Self {
        match raw {
            r if r == SIGNATURE_GOTHIC1 => Signature::Gothic1,
            r if r == SIGNATURE_GOTHIC2 => Signature::Gothic2,
            r if r == SIGNATURE_VDFS_TOOL => Signature::VdfsTool,
            r => Signature::Other(*r),
        }
    }
    pub fn bytes(&self) -> [u8; SIGNATURE_SIZE] {
        match self {
            Signature::Gothic1 => *SIGNATURE_GOTHIC1,
            Signature::Gothic2 => *SIGNATURE_GOTHIC2,
            Signature::VdfsTool => *SIGNATURE_VDFS_TOOL,
            Signature::Other(r) => *r,
        }
    }
    pub fn name(&self) -> String {
        match self {
            Signature::Gothic1 => "gothic1".into(),
            Signature::Gothic2 => "gothic2".into(),
            Signature::VdfsTool => "vdfs_tool".into(),
            Signature::Other(r) => crate::exact::text::decode_cp1252(r).into_owned(),
        }
    }
}

impl Serialize for Signature {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

impl<'de> Deserialize<'de> for Signature {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = String::deserialize(d)?;
        Ok(match t.as_str() {
            "gothic1" => Signature::Gothic1,
            "gothic2" => Signature::Gothic2,
            "vdfs_tool" => Signature::VdfsTool,
            other => {
                let raw = Text::from_unicode(other)
                    .map_err(|c| de::Error::custom(format!("{c:?} is not Windows-1252")))?;
                let arr: [u8; SIGNATURE_SIZE] = raw.as_bytes().try_into().map_err(|_| {
                    de::Error::custom(format!(
                        "a signature is gothic1, gothic2, vdfs_tool or exactly 16 characters, not {other:?}"
                    ))
                })?;
                Signature::of(&arr)
            }
        })
    }
}

impl JsonSchema for Signature {
    fn schema_name() -> String {
        "VdfSignature".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "gothic1 (PSVDSC_V2.00\\r\\n\\r\\n), gothic2 (PSVDSC_V2.00\\n\\r\\n\\r), vdfs_tool (four 0x1A), or any other 16 characters",
            "type": "string"
        }))
    }
}

/// A DOS timestamp: `YYYY-MM-DD hh:mm:ss` when valid, else its raw value in hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DosTime(pub u32);

impl Serialize for DosTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match dos_to_string(self.0) {
            Some(t) => s.serialize_str(&t),
            None => s.serialize_newtype_struct(RAW_SCALAR, &format!("0x{:08x}", self.0)),
        }
    }
}

impl<'de> Deserialize<'de> for DosTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = DosTime;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a date `YYYY-MM-DD hh:mm:ss` (1980–2107, even seconds) or a raw 32-bit DOS timestamp")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DosTime, E> {
                dos_from_string(v)
                    .or_else(|| crate::exact::blob::parse_u32(v))
                    .map(DosTime)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DosTime, E> {
                u32::try_from(v)
                    .map(DosTime)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for DosTime {
    fn schema_name() -> String {
        "DosTime".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "DOS timestamp: `YYYY-MM-DD hh:mm:ss` (even seconds) or a raw 0x-prefixed value",
            "anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0, "maximum": 4294967295u64}]
        }))
    }
}

/// The last header field: `normal` (0x50), `zipped` (0xA0, Union) or another number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Volume(pub u32);

impl Serialize for Volume {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            VOLUME_NORMAL => s.serialize_str("normal"),
            VOLUME_ZIPPED => s.serialize_str("zipped"),
            v => s.serialize_newtype_struct(RAW_SCALAR, &format!("0x{v:08x}")),
        }
    }
}

impl<'de> Deserialize<'de> for Volume {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Volume;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("normal, zipped or a 32-bit number")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Volume, E> {
                match v {
                    "normal" => Ok(Volume(VOLUME_NORMAL)),
                    "zipped" => Ok(Volume(VOLUME_ZIPPED)),
                    _ => crate::exact::blob::parse_u32(v)
                        .map(Volume)
                        .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Volume, E> {
                u32::try_from(v)
                    .map(Volume)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for Volume {
    fn schema_name() -> String {
        "VdfVolume".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "normal (0x50), zipped (0xA0: Union ZippedStream data) or another value",
            "anyOf": [{"enum": ["normal", "zipped"]}, {"type": "string"}, {"type": "integer"}]
        }))
    }
}

const ATTRIBUTE_NAMES: [(u32, &str); 6] = [
    (0x01, "readonly"),
    (0x02, "hidden"),
    (0x04, "system"),
    (0x10, "directory"),
    (0x20, "archive"),
    (0x80, "normal"),
];

/// Windows file attributes by name (`[archive]`); bits without a name as one hex value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attributes(pub u32);

impl Serialize for Attributes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut rest = self.0;
        let mut seq = s.serialize_seq(None)?;
        for (bit, name) in ATTRIBUTE_NAMES {
            if rest & bit != 0 {
                seq.serialize_element(name)?;
                rest &= !bit;
            }
        }
        if rest != 0 {
            seq.serialize_element(&Hex32(rest))?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Attributes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let items = Vec::<String>::deserialize(d)?;
        let mut v = 0;
        for it in items {
            let bit = ATTRIBUTE_NAMES
                .iter()
                .find(|(_, n)| *n == it)
                .map(|(b, _)| *b)
                .or_else(|| crate::exact::blob::parse_u32(&it))
                .ok_or_else(|| {
                    de::Error::custom(format!(
                        "unknown attribute {it:?} (known: readonly, hidden, system, directory, archive, normal, or a 0x number)"
                    ))
                })?;
            v |= bit;
        }
        Ok(Attributes(v))
    }
}

impl JsonSchema for Attributes {
    fn schema_name() -> String {
        "VdfAttributes".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "Windows file attributes by name; other bits as a 0x value",
            "type": "array",
            "items": {"type": "string"}
        }))
    }
}

/// A path as a YAML comment: control characters (which a comment cannot hold) escaped.
fn comment(path: String) -> Comment {
    if !path.chars().any(char::is_control) {
        return Comment(path);
    }
    Comment(
        path.chars()
            .map(|c| {
                if c.is_control() {
                    format!("\\u{{{:x}}}", c as u32)
                } else {
                    c.to_string()
                }
            })
            .collect(),
    )
}

fn is_false(b: &bool) -> bool {
    !*b
}

// ---------------------------------------------------------------------------------------------
// Header and catalog documents (shared with the unpack manifest)

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HeaderDoc {
    /// The 256-byte comment without its 0x1A padding.
    pub comment: Text,
    pub signature: Signature,
    /// Number of catalog entries (must match the catalog).
    pub entry_count: u32,
    pub file_count: u32,
    pub timestamp: DosTime,
    /// Sum of the file sizes; recomputed after edits when it held that sum before.
    pub data_size: u32,
    /// Where the catalog starts (0: right after the header); follows the layout.
    pub catalog_offset: u32,
    pub volume: Volume,
}

impl HeaderDoc {
    pub fn of(h: &Header) -> Self {
        HeaderDoc {
            comment: Text::new(trim_pad(&h.comment, COMMENT_PAD)),
            signature: Signature::of(&h.signature),
            entry_count: h.entry_count,
            file_count: h.file_count,
            timestamp: DosTime(h.timestamp),
            data_size: h.data_size,
            catalog_offset: h.catalog_offset,
            volume: Volume(h.volume),
        }
    }
    pub fn to_header(&self) -> Result<Header, EncodeError> {
        Ok(Header {
            comment: fixed(self.comment.as_bytes(), COMMENT_PAD)
                .map_err(EncodeError::new)
                .within("comment")?,
            signature: self.signature.bytes(),
            entry_count: self.entry_count,
            file_count: self.file_count,
            timestamp: self.timestamp.0,
            data_size: self.data_size,
            catalog_offset: self.catalog_offset,
            volume: self.volume.0,
        })
    }
}

/// One catalog entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryDoc {
    /// The entry's path in the tree (a comment, not read back).
    #[serde(default, skip_deserializing, skip_serializing_if = "Comment::is_empty")]
    #[schemars(skip)]
    pub path: Comment,
    /// Name without its space padding (at most 64 bytes).
    pub name: Text,
    #[serde(default, skip_serializing_if = "is_false")]
    pub directory: bool,
    /// Last entry of its directory block.
    #[serde(default, skip_serializing_if = "is_false")]
    pub last: bool,
    /// Type bits other than directory and last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_type_bits: Option<Hex32>,
    /// File: byte offset of its data (recomputed from the layout for placed files).
    /// Directory: catalog index of its first child.
    pub offset: u32,
    /// File: size (uncompressed). Directory: 0.
    pub size: u32,
    pub attributes: Attributes,
}

impl EntryDoc {
    pub fn of(e: &Entry, path: Option<String>) -> Self {
        let other = e.kind & !(TYPE_DIRECTORY | TYPE_LAST);
        EntryDoc {
            path: comment(path.unwrap_or_default()),
            name: Text::new(e.name_text()),
            directory: e.is_dir(),
            last: e.is_last(),
            other_type_bits: (other != 0).then_some(Hex32(other)),
            offset: e.offset,
            size: e.size,
            attributes: Attributes(e.attributes),
        }
    }
    pub fn to_entry(&self) -> Result<Entry, EncodeError> {
        let mut kind = self.other_type_bits.map_or(0, |h| h.0);
        if self.directory {
            kind |= TYPE_DIRECTORY;
        }
        if self.last {
            kind |= TYPE_LAST;
        }
        Ok(Entry {
            name: fixed(self.name.as_bytes(), NAME_PAD)
                .map_err(EncodeError::new)
                .within("name")?,
            offset: self.offset,
            size: self.size,
            kind,
            attributes: self.attributes.0,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PieceKindDoc {
    Catalog,
    File,
    Gap,
}

/// Compression of a file in a zipped volume.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ZippedDoc {
    /// Block size for compressing edited contents (the original's, or 8192 for new files).
    pub block_size: u32,
    /// The stored ZippedStream; written verbatim while it still inflates to `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<Blob>,
}

/// One piece of the layout, in file order from byte 296.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieceDoc {
    pub kind: PieceKindDoc,
    #[serde(default, skip_deserializing, skip_serializing_if = "Comment::is_empty")]
    #[schemars(skip)]
    pub path: Comment,
    /// `file`: its catalog index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<usize>,
    /// `file` in a zipped volume: stored as a ZippedStream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zipped: Option<ZippedDoc>,
    /// `file`: the contents (uncompressed); `gap`: the bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Blob>,
}

/// The `zengin.vdf` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VdfDocument {
    /// Always `zengin.vdf`.
    pub format: String,
    pub version: u32,
    pub header: HeaderDoc,
    /// Catalog entries in stored order.
    pub catalog: Vec<EntryDoc>,
    /// Everything after the header in file order; a catalog entry whose data no piece holds
    /// keeps its stored offset and size.
    pub layout: Vec<PieceDoc>,
}

/// Catalog documents with each entry's path as a comment.
pub fn catalog_docs(v: &Vdf<'_>) -> Vec<EntryDoc> {
    let tree = Tree::paths(&v.entries, v.header.catalog_start()).ok();
    v.entries
        .iter()
        .enumerate()
        .map(|(i, e)| EntryDoc::of(e, tree.as_ref().and_then(|t| t.path_string(i))))
        .collect()
}

pub fn to_document(v: &Vdf<'_>) -> Result<VdfDocument, EncodeError> {
    let tree = Tree::paths(&v.entries, v.header.catalog_start()).ok();
    let mut layout = Vec::with_capacity(v.layout.len());
    for (i, p) in v.layout.iter().enumerate() {
        let doc = match p.kind {
            PieceKind::Catalog => PieceDoc {
                kind: PieceKindDoc::Catalog,
                path: Comment::default(),
                entry: None,
                zipped: None,
                data: None,
            },
            PieceKind::Gap => PieceDoc {
                kind: PieceKindDoc::Gap,
                path: Comment::default(),
                entry: None,
                zipped: None,
                data: Some(Blob::new(p.bytes.to_vec())),
            },
            PieceKind::File { entry, zipped } => {
                let path = comment(
                    tree.as_ref()
                        .and_then(|t| t.path_string(entry))
                        .unwrap_or_default(),
                );
                if zipped {
                    let info = zipped::probe(&p.bytes);
                    PieceDoc {
                        kind: PieceKindDoc::File,
                        path,
                        entry: Some(entry),
                        zipped: Some(ZippedDoc {
                            block_size: info.map_or(zipped::DEFAULT_BLOCK_SIZE, |i| i.block_size),
                            stream: Some(Blob::new(p.bytes.to_vec())),
                        }),
                        // A stream that does not inflate is kept as stored, without contents.
                        data: v.piece_contents(i).ok().map(|c| Blob::new(c.into_owned())),
                    }
                } else {
                    PieceDoc {
                        kind: PieceKindDoc::File,
                        path,
                        entry: Some(entry),
                        zipped: None,
                        data: Some(Blob::new(p.bytes.to_vec())),
                    }
                }
            }
        };
        layout.push(doc);
    }
    Ok(VdfDocument {
        format: <Vdf<'static> as Codec>::TAG.into(),
        version: <Vdf<'static> as Codec>::YAML_VERSION,
        header: HeaderDoc::of(&v.header),
        catalog: v
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| EntryDoc::of(e, tree.as_ref().and_then(|t| t.path_string(i))))
            .collect(),
        layout,
    })
}

pub fn to_yaml(v: &Vdf<'_>) -> Result<String, EncodeError> {
    let doc = to_document(v)?;
    crate::yaml::to_string(&doc).map_err(|e| EncodeError::new(e.to_string()))
}

/// The stored bytes of a file in a zipped volume: the original stream while it still inflates
/// to `contents`, else a new stream. Returns (bytes, whether the stream was kept).
pub fn zipped_bytes<'s>(
    contents: &[u8],
    stream: Option<&'s [u8]>,
    block_size: u32,
) -> Result<(Cow<'s, [u8]>, bool), EncodeError> {
    if let Some(s) = stream {
        if zipped::decompress(s).is_ok_and(|d| d == contents) {
            return Ok((Cow::Borrowed(s), true));
        }
    }
    zipped::compress(contents, block_size, 6)
        .map(|b| (Cow::Owned(b), false))
        .map_err(EncodeError::new)
}

/// Build the model from a document: pieces from their data, then offsets from the layout.
pub fn from_document(doc: VdfDocument) -> Result<Vdf<'static>, EncodeError> {
    let header = doc.header.to_header().within("header")?;
    if doc.header.entry_count as usize != doc.catalog.len() {
        return Err(EncodeError::new(format!(
            "entry_count is {} but the catalog has {} entries",
            doc.header.entry_count,
            doc.catalog.len()
        )))
        .within("entry_count")
        .within("header");
    }
    let mut entries = Vec::with_capacity(doc.catalog.len());
    for (i, e) in doc.catalog.iter().enumerate() {
        entries.push(e.to_entry().within_index(i).within("catalog")?);
    }
    let data_size_was_sum = u64::from(header.data_size) == Vdf::sum_of_sizes(&entries);
    let mut layout = Vec::with_capacity(doc.layout.len());
    let mut placed = vec![false; entries.len()];
    let mut catalogs = 0;
    for (i, p) in doc.layout.into_iter().enumerate() {
        let at = |r: Result<Piece<'static>, EncodeError>| r.within_index(i).within("layout");
        let piece = match p.kind {
            PieceKindDoc::Catalog => {
                catalogs += 1;
                Piece {
                    kind: PieceKind::Catalog,
                    offset: 0,
                    bytes: Cow::Owned(Vec::new()),
                }
            }
            PieceKindDoc::Gap => Piece {
                kind: PieceKind::Gap,
                offset: 0,
                bytes: Cow::Owned(p.data.map(|b| b.0).unwrap_or_default()),
            },
            PieceKindDoc::File => at((|| {
                let entry = p
                    .entry
                    .ok_or_else(|| EncodeError::new("a file piece needs `entry`"))?;
                let e = entries.get_mut(entry).ok_or_else(|| {
                    EncodeError::new(format!("entry {entry} is not in the catalog"))
                })?;
                if e.is_dir() {
                    return Err(EncodeError::new(format!(
                        "entry {entry} is a directory, not a file"
                    )));
                }
                if std::mem::replace(&mut placed[entry], true) {
                    return Err(EncodeError::new(format!(
                        "entry {entry} has two file pieces"
                    )));
                }
                match p.zipped {
                    Some(z) => {
                        let stream = z.stream.map(|b| b.0);
                        let bytes = match (p.data, stream) {
                            (None, Some(s)) => s,
                            (None, None) => {
                                return Err(EncodeError::new("needs `data` or `zipped.stream`"))
                            }
                            (Some(d), s) => {
                                let (b, kept) = zipped_bytes(&d.0, s.as_deref(), z.block_size)?;
                                let b = b.into_owned();
                                if !kept {
                                    e.size = u32::try_from(d.0.len())
                                        .map_err(|_| EncodeError::new("file larger than 4 GiB"))?;
                                }
                                b
                            }
                        };
                        Ok(Piece {
                            kind: PieceKind::File {
                                entry,
                                zipped: true,
                            },
                            offset: 0,
                            bytes: Cow::Owned(bytes),
                        })
                    }
                    None => {
                        let d = p.data.map(|b| b.0).unwrap_or_default();
                        e.size = u32::try_from(d.len())
                            .map_err(|_| EncodeError::new("file larger than 4 GiB"))?;
                        Ok(Piece {
                            kind: PieceKind::File {
                                entry,
                                zipped: false,
                            },
                            offset: 0,
                            bytes: Cow::Owned(d),
                        })
                    }
                }
            })())?,
        };
        layout.push(piece);
    }
    if catalogs != 1 {
        return Err(EncodeError::new(format!(
            "the layout must hold exactly one `kind: catalog` piece, not {catalogs}"
        )))
        .within("layout");
    }
    let mut v = Vdf {
        header,
        entries: std::borrow::Cow::Owned(entries),
        layout,
        warnings: Vec::new(),
    };
    v.relayout(data_size_was_sum)?;
    // A file entry without a piece of its own is read where its offset points (real archives
    // share data between entries); one whose data would lie past the end (its piece lost from
    // the layout) would give an archive nothing can read.
    let end = v
        .layout
        .iter()
        .map(|p| p.offset + p.stored_len(v.entries.len()))
        .max()
        .unwrap_or(0);
    // (in a zipped volume an entry's size is the unpacked one: its stored stream, as the
    // archive is read, runs as far as the stream found at its offset says, e.g. an entry left
    // unplaced because an earlier stream overlaps it)
    let mut written: Option<Vec<u8>> = None;
    for (i, e) in v.entries.iter().enumerate() {
        let mut stop = u64::from(e.offset) + u64::from(e.size);
        if !placed[i] && !e.is_dir() && e.size > 0 && stop > end && v.header.zipped() {
            let bytes = written.get_or_insert_with(|| {
                let mut c = std::io::Cursor::new(Vec::new());
                // (a failed write leaves the refusal below as it was)
                let _ = v.write(&mut c);
                c.into_inner()
            });
            if let Some(info) = bytes.get(e.offset as usize..).and_then(zipped::probe) {
                stop = u64::from(e.offset) + info.stored_len;
            }
        }
        if !placed[i] && !e.is_dir() && e.size > 0 && stop > end {
            return Err(EncodeError::new(format!(
                "{}: no `layout` piece holds this file's data (`- kind: file` with `entry: {i}`), \
                 and its offset {} + size {} lies past the end of the archive ({end} bytes): \
                 add the piece back (`animkit export` of the original archive shows it) or \
                 remove the entry",
                String::from_utf8_lossy(e.name_text()),
                e.offset,
                e.size
            )))
            .within_index(i)
            .within("catalog");
        }
    }
    Ok(v)
}

pub fn from_yaml(text: &str) -> Result<Vdf<'static>, ImportError> {
    let doc: VdfDocument = crate::yaml::from_str(text)?;
    check_document_header(
        &doc.format,
        doc.version,
        <Vdf<'static> as Codec>::TAG,
        <Vdf<'static> as Codec>::YAML_VERSION,
    )
    .map_err(EncodeError::new)?;
    Ok(from_document(doc)?)
}

// ---------------------------------------------------------------------------------------------
// diff

/// What changed from archive `a` to `b`: header fields, members added, removed, moved or
/// changed (and inside changed members of a format in `formats`, what changed there), gaps.
pub fn diff(a: &Vdf<'_>, b: &Vdf<'_>, formats: Formats) -> Vec<String> {
    let mut out = Vec::new();
    let (ha, hb) = (HeaderDoc::of(&a.header), HeaderDoc::of(&b.header));
    macro_rules! field {
        ($f:ident) => {
            if ha.$f != hb.$f {
                out.push(format!(
                    "header.{}: {:?} → {:?}",
                    stringify!($f),
                    ha.$f,
                    hb.$f
                ));
            }
        };
    }
    field!(comment);
    field!(signature);
    field!(entry_count);
    field!(file_count);
    field!(timestamp);
    field!(data_size);
    field!(catalog_offset);
    field!(volume);
    let files = |v: &Vdf<'_>| -> std::collections::BTreeMap<String, (usize, Option<usize>)> {
        let tree = Tree::paths(&v.entries, v.header.catalog_start()).unwrap_or_default();
        let placement = v.placement();
        (0..v.entries.len())
            .map(|i| {
                let p = tree
                    .path_string(i)
                    .unwrap_or_else(|| format!("catalog[{i}]"));
                (p, (i, placement.get(i)))
            })
            .collect()
    };
    let (fa, fb) = (files(a), files(b));
    for (path, (ia, pa)) in &fa {
        match fb.get(path) {
            None => out.push(format!("removed {path}")),
            Some((ib, pb)) => {
                let (ea, eb) = (&a.entries[*ia], &b.entries[*ib]);
                if ea.kind != eb.kind || ea.attributes != eb.attributes {
                    out.push(format!("{path}: type/attributes changed"));
                }
                if ia != ib {
                    out.push(format!("{path}: catalog index {ia} → {ib}"));
                }
                let ca = pa.and_then(|p| a.piece_contents(p).ok());
                let cb = pb.and_then(|p| b.piece_contents(p).ok());
                if ca != cb {
                    out.push(format!(
                        "{path}: contents changed ({} → {} bytes)",
                        ea.size, eb.size
                    ));
                    // A recognised asset: what changed inside it, too.
                    if let (Some(x), Some(y)) = (&ca, &cb) {
                        out.extend(
                            formats
                                .diff_contents(x, y)
                                .into_iter()
                                .map(|l| format!("{path}: {l}")),
                        );
                    }
                } else if ea.offset != eb.offset && !ea.is_dir() {
                    out.push(format!("{path}: offset {} → {}", ea.offset, eb.offset));
                }
            }
        }
    }
    for path in fb.keys() {
        if !fa.contains_key(path) {
            out.push(format!("added {path}"));
        }
    }
    let gaps = |v: &Vdf<'_>| -> Vec<Vec<u8>> {
        v.layout
            .iter()
            .filter(|p| p.kind == PieceKind::Gap)
            .map(|p| p.bytes.to_vec())
            .collect()
    };
    if gaps(a) != gaps(b) {
        out.push("bytes outside files (gaps) changed".into());
    }
    out
}
