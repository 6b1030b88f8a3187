//! `.MDH` model hierarchies (`zCModelHierarchy`, the skeleton): a hierarchy chunk (0xD100) with
//! the node list, bounding boxes, root translation and node-list checksum, a source chunk
//! (0xD110) and an end chunk (0xD120).
//!
//! Chunks are kept in file order; unknown chunks, bytes after the last field of a known chunk
//! and bytes after the end chunk (the engine stops reading there) are kept verbatim. Parent
//! indices are kept as their 16 stored bits (shown as `i16`, the root is `-1`), floats to the bit
//! (`-0.0` survives), and the zDATE with its garbage.

mod check;
#[cfg(test)]
mod tests;
mod yaml;

pub use check::{check_man, check_man_findings, check_pair, PairKind, PairProblem};
pub use yaml::{ChunkDoc, HierarchyDoc, MdhDocument, NodeDoc};

use crate::codec::{Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::record::{field_at, Plain};
use crate::exact::{
    Blob, Cursor, DecodeError, EncodeError, FieldPath, Hex32, ImportError, Record, Text, Within,
    Writer,
};
use crate::zengin::chunk;
use crate::zengin::chunk::ChunkBody as _;
use crate::zengin::stext::{ShortText, INLINE};
use crate::zengin::types::{
    find_newline, put_short_line, read_short_line, BBox, Mat4, Vec3, ZDate,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const ID_HIERARCHY: u16 = 0xD100;
pub const ID_SOURCE: u16 = 0xD110;
pub const ID_END: u16 = 0xD120;

/// A decoded `.MDH` file: its chunks in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Mdh {
    pub chunks: Vec<Chunk>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    Hierarchy(Hierarchy),
    Source(Source),
    End(End),
    Unknown(Unknown),
}

/// 0xD100: the skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Hierarchy {
    /// 3 in every known file (engine `zMDH_VERS`).
    pub version: u32,
    pub nodes: Vec<Node>,
    pub bbox: BBox,
    /// Derived by the engine from `bbox` at conversion time, but stored: kept as read.
    pub collision_bbox: BBox,
    pub root_translation: Vec3,
    /// CRC-32 of the concatenated node names (§1.6).
    pub checksum: Hex32,
    pub trailing: Blob,
}

/// One node of the hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Inline up to 22 bytes: one heap allocation per node made parsing allocator-bound.
    pub name: ShortText,
    /// Index of the parent node; `-1` (0xFFFF) for a root. Kept as its 16 stored bits.
    pub parent: i16,
    /// Local transform relative to the parent, row-major as stored.
    pub transform: Mat4,
}

/// 0xD110: where the hierarchy came from (the skeleton's ASC).
pub use crate::zengin::chunk::Source;

/// 0xD120: end of the hierarchy; readers stop here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct End {
    /// Payload bytes (none in real files).
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

pub use crate::zengin::chunk::{Hex16, Unknown};

// ---------------------------------------------------------------------------------------------
// Reading and writing

/// Smallest node: empty name line, parent, matrix.
const MIN_NODE_SIZE: usize = 1 + 2 + NodeFixed::SIZE;

// The hierarchy chunk's fixed-layout records, between and after the NUL/newline-ended name
// lines (which stay hand-read), each declared once: reading, writing, field names and offsets
// (truncation errors and `field_at`) follow from the declarations.

crate::record! {
    /// The hierarchy chunk's first fields.
    #[derive(Debug, PartialEq)]
    pub(crate) struct HierarchyHead: little plain {
        version: u32,
        node_count: u16,
    }

    /// A node after its name line: parent index and local transform.
    #[derive(Debug, PartialEq)]
    pub(crate) struct NodeFixed: little plain {
        parent: i16,
        transform: Mat4,
    }

    /// The hierarchy chunk's fields after the node list.
    #[derive(Debug, PartialEq)]
    pub(crate) struct HierarchyTail: little plain {
        bbox: BBox,
        collision_bbox: BBox,
        root_translation: Vec3,
        checksum: Hex32,
    }
}

impl Node {
    #[inline]
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let name = read_short_line(cur).within("name")?;
        let f: NodeFixed = cur.read()?;
        Ok(Node {
            name,
            parent: f.parent,
            transform: f.transform,
        })
    }
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        put_short_line(out, &self.name).within("name")?;
        out.put(&NodeFixed {
            parent: self.parent,
            transform: self.transform,
        })
    }
}

impl Hierarchy {
    pub fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        // The records are plain: one copy each (deku's reader was ~40 % of a real skeleton's
        // parse, perf).
        let head: HierarchyHead = cur.read()?;
        let count = cur
            .check_count(head.node_count.into(), MIN_NODE_SIZE)
            .within("node_count")?;
        let mut nodes = Vec::with_capacity(count);
        for i in 0..count {
            // The usual node (a short name, all its bytes there) built straight into the
            // list: going through `Node::read`'s results, the inline name's bytes were copied
            // with mismatched widths (a store-forwarding stall, 44 % of this function in perf).
            let rest = cur.unread();
            if let Some(n) = find_newline(rest) {
                let end = n + 1 + NodeFixed::SIZE;
                if n <= INLINE && end <= rest.len() {
                    let f = NodeFixed::from_le(&rest[n + 1..end]);
                    nodes.push(Node {
                        name: ShortText::Inline {
                            len: n as u8,
                            buf: rest[..INLINE].try_into().expect("22 bytes"),
                        },
                        parent: f.parent,
                        transform: f.transform,
                    });
                    cur.bytes(end)?;
                    continue;
                }
            }
            nodes.push(Node::read(cur).within_index(i).within("nodes")?);
        }
        let tail: HierarchyTail = cur.read()?;
        Ok(Hierarchy {
            version: head.version,
            nodes,
            bbox: tail.bbox,
            collision_bbox: tail.collision_bbox,
            root_translation: tail.root_translation,
            checksum: tail.checksum,
            trailing: Blob::new(cur.rest()),
        })
    }
    pub fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let node_count = u16::try_from(self.nodes.len()).map_err(|_| {
            EncodeError::new(format!(
                "{} nodes; a hierarchy holds at most 65535",
                self.nodes.len()
            ))
            .within_path("nodes")
        })?;
        out.put(&HierarchyHead {
            version: self.version,
            node_count,
        })?;
        for (i, n) in self.nodes.iter().enumerate() {
            n.put(out).within_index(i).within("nodes")?;
        }
        out.put(&HierarchyTail {
            bbox: self.bbox,
            collision_bbox: self.collision_bbox,
            root_translation: self.root_translation,
            checksum: self.checksum,
        })?;
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
    /// The CRC-32 of the node names, which `checksum` should equal.
    pub fn computed_checksum(&self) -> u32 {
        crate::zengin::node_list_checksum(self.nodes.iter().map(|n| n.name.as_bytes()))
    }
    /// Node names in order.
    pub fn names(&self) -> Vec<Text> {
        self.nodes.iter().map(|n| Text::from(&n.name)).collect()
    }
}

trait WithinPath {
    fn within_path(self, seg: &'static str) -> Self;
}
impl WithinPath for EncodeError {
    fn within_path(mut self, seg: &'static str) -> Self {
        self.path.prefix(crate::exact::Segment::Field(seg));
        self
    }
}

impl chunk::ChunkBody for Chunk {
    fn id(&self) -> u16 {
        match self {
            Chunk::Hierarchy(_) => ID_HIERARCHY,
            Chunk::Source(_) => ID_SOURCE,
            Chunk::End(_) => ID_END,
            Chunk::Unknown(u) => u.id.0,
        }
    }
    fn kind(&self) -> &'static str {
        match self {
            Chunk::Hierarchy(_) => "hierarchy",
            Chunk::Source(_) => "source",
            Chunk::End(_) => "end",
            Chunk::Unknown(_) => "unknown",
        }
    }
    fn put_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Chunk::Hierarchy(h) => h.put(out).within("hierarchy"),
            Chunk::Source(s) => s.put(out).within("source"),
            Chunk::End(e) => {
                out.extend_from_slice(e.trailing.as_bytes());
                Ok(())
            }
            Chunk::Unknown(u) => {
                out.extend_from_slice(u.data.as_bytes());
                Ok(())
            }
        }
    }
}

impl Mdh {
    pub fn read(data: &[u8]) -> Result<Self, DecodeError> {
        // Every chunk header is checked before any chunk is decoded (as `chunk::read_chunks`
        // does), but without building the list of raw chunks: no chunk needs another, and at
        // a real skeleton's size (718 bytes) each allocation is a visible part of the parse.
        let mut count = 0;
        for c in chunk::Chunks::new(data) {
            c?;
            count += 1;
        }
        let mut chunks = Vec::with_capacity(count);
        for c in chunk::Chunks::new(data) {
            let c = c?;
            let mut cur = c.cursor();
            chunks.push(match c.id {
                ID_HIERARCHY => Chunk::Hierarchy(Hierarchy::read(&mut cur).within("hierarchy")?),
                ID_SOURCE => Chunk::Source(Source::read(&mut cur).within("source")?),
                ID_END => Chunk::End(End {
                    trailing: Blob::new(c.payload),
                }),
                _ => Chunk::Unknown(Unknown::of(&c)),
            });
        }
        Ok(Mdh { chunks })
    }

    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        chunk::put_chunks(out, &self.chunks)
    }
}

impl Mdh {
    pub fn hierarchy(&self) -> Option<&Hierarchy> {
        self.chunks.iter().find_map(|c| match c {
            Chunk::Hierarchy(h) => Some(h),
            _ => None,
        })
    }

    pub fn source(&self) -> Option<&Source> {
        self.chunks.iter().find_map(|c| match c {
            Chunk::Source(s) => Some(s),
            _ => None,
        })
    }

    /// Node names of the (first) hierarchy chunk.
    pub fn node_names(&self) -> Vec<Text> {
        self.hierarchy().map(Hierarchy::names).unwrap_or_default()
    }

    pub fn field_at(&self, offset: u64) -> String {
        let mut at = 0u64;
        for (i, c) in self.chunks.iter().enumerate() {
            let mut payload = Vec::new();
            if c.put_payload(&mut payload).is_err() {
                return format!("chunks[{i}]");
            }
            let end = at + chunk::HEADER_SIZE as u64 + payload.len() as u64;
            if offset >= end {
                at = end;
                continue;
            }
            let base = FieldPath::new().field("chunks").index(i);
            if offset < at + chunk::HEADER_SIZE as u64 {
                return base.field("header").to_string();
            }
            let rel = (offset - at) as usize - chunk::HEADER_SIZE;
            let p = base.field(c.kind());
            return match c {
                Chunk::Hierarchy(h) => hierarchy_field_at(h, rel, p),
                Chunk::Source(s) => {
                    let path_end = ZDate::SIZE + s.path.len() + 1;
                    match rel {
                        r if r < ZDate::SIZE => p.field("date"),
                        r if r < path_end => p.field("path"),
                        _ => p.field("trailing"),
                    }
                    .to_string()
                }
                Chunk::End(_) => p.field("trailing").to_string(),
                Chunk::Unknown(_) => p.field("data").to_string(),
            };
        }
        format!("<past the end, offset {offset}>")
    }
}

fn hierarchy_field_at(h: &Hierarchy, rel: usize, p: FieldPath) -> String {
    if let Some(f) = field_at(HierarchyHead::FIELDS, rel, &p) {
        return f.to_string();
    }
    let mut at = HierarchyHead::SIZE;
    for (i, n) in h.nodes.iter().enumerate() {
        let name_end = at + n.name.len() + 1;
        let end = name_end + NodeFixed::SIZE;
        if rel < end {
            let np = p.field("nodes").index(i);
            return if rel < name_end {
                np.field("name")
            } else {
                field_at(NodeFixed::FIELDS, rel - name_end, &np).unwrap_or(np)
            }
            .to_string();
        }
        at = end;
    }
    field_at(HierarchyTail::FIELDS, rel - at, &p)
        .unwrap_or_else(|| p.field("trailing"))
        .to_string()
}

// ---------------------------------------------------------------------------------------------
// YAML

// ---------------------------------------------------------------------------------------------
// Checking a MAN against its skeleton

// ---------------------------------------------------------------------------------------------
// Registration

impl Mdh {
    /// [`Codec::TAG`] without the trait in scope.
    pub const TAG_STR: &'static str = "zengin.mdh";
}

impl Codec for Mdh {
    fn repair(data: &[u8]) -> Option<crate::codec::Repaired> {
        crate::zengin::chunk::repair_lengths(data)
    }
    const TAG: &'static str = Mdh::TAG_STR;
    const DESCRIPTION: &'static str = "ZenGin model hierarchy (.MDH)";
    const EXTENSIONS: &'static [&'static str] = &["mdh"];

    fn detect(data: &[u8]) -> bool {
        if data.len() < chunk::HEADER_SIZE {
            return false;
        }
        let id = u16::from_le_bytes([data[0], data[1]]);
        let len = u32::from_le_bytes([data[2], data[3], data[4], data[5]]) as u64;
        matches!(id, ID_HIERARCHY | ID_SOURCE) && len <= (data.len() - chunk::HEADER_SIZE) as u64
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Mdh::read(data)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.write(out)
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        self.to_yaml_text()
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        Mdh::from_yaml_text(text)
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(MdhDocument)
    }
    fn info(&self) -> Vec<InfoLine> {
        let mut v = Vec::new();
        if let Some(h) = self.hierarchy() {
            v.push(("version", h.version.to_string()));
            v.push(("nodes", h.nodes.len().to_string()));
            let computed = h.computed_checksum();
            v.push((
                "checksum",
                if computed == h.checksum.0 {
                    format!("{} (matches the node names)", h.checksum)
                } else {
                    format!("{} (node names give {})", h.checksum, Hex32(computed))
                },
            ));
            v.push((
                "roots",
                h.nodes
                    .iter()
                    .filter(|n| n.parent < 0)
                    .map(|n| n.name.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            ));
        }
        if let Some(s) = self.source() {
            v.push(("source", s.path.to_string()));
        }
        v.push(("chunks", chunk::summary(&self.chunks)));
        v
    }
    fn field_at(&self, offset: u64) -> String {
        Mdh::field_at(self, offset)
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        match (self.to_yaml_text(), other.to_yaml_text()) {
            (Ok(a), Ok(b)) => crate::zengin::tagged::diff_yaml(&a, &b),
            _ => vec!["cannot compare: a file does not convert to YAML".into()],
        }
    }
    /// The stored checksum of the node names (what a MAN made for this skeleton stores).
    fn companion_key(&self) -> Option<u32> {
        self.hierarchy().map(|h| h.checksum.0)
    }
}
