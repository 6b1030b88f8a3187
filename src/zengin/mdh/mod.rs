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

pub use check::{check_man, check_man_findings};
pub use yaml::{ChunkDoc, HierarchyDoc, MdhDocument, NodeDoc};

use crate::codec::{Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{
    Blob, Cursor, DecodeError, EncodeError, FieldPath, Hex32, ImportError, PutLe, Text, Within, F32,
};
use crate::zengin::chunk;
use crate::zengin::stext::ShortText;
use crate::zengin::types::{
    put_line, put_short_line, read_f32, read_line, read_short_line, BBox, Mat4, Vec3, ZDate,
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

/// 0xD110: where the hierarchy came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// File time of the source ASC; garbage in real files, kept as stored.
    pub date: ZDate,
    pub path: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

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
const MIN_NODE_SIZE: usize = 1 + 2 + 64;

impl Node {
    #[inline]
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let name = read_short_line(cur).within("name")?;
        // Parent and matrix in one bounds check; a short read takes the field-by-field path,
        // which names the field that runs out.
        if let Ok(b) = cur.bytes(2 + Mat4::SIZE) {
            let b: &[u8; 2 + Mat4::SIZE] = b.try_into().expect("66 bytes");
            return Ok(Node {
                name,
                parent: i16::from_le_bytes([b[0], b[1]]),
                transform: mat4_from(&b[2..]),
            });
        }
        Ok(Node {
            name,
            parent: cur.i16().within("parent")?,
            transform: Mat4::read(cur).within("transform")?,
        })
    }
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        put_short_line(out, &self.name).within("name")?;
        out.put_i16(self.parent);
        self.transform.put(out);
        Ok(())
    }
}

/// Sixteen little-endian floats, row-major, from exactly 64 bytes.
#[inline(always)]
fn mat4_from(b: &[u8]) -> Mat4 {
    let mut m = [[F32::default(); 4]; 4];
    for (row, src) in m.iter_mut().zip(b.chunks_exact(16)) {
        for (v, w) in row.iter_mut().zip(src.chunks_exact(4)) {
            *v = F32(u32::from_le_bytes([w[0], w[1], w[2], w[3]]));
        }
    }
    Mat4(m)
}

impl Hierarchy {
    pub fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let version = cur.u32().within("version")?;
        let count = cur.u16().within("node_count")?;
        let count = cur
            .check_count(count.into(), MIN_NODE_SIZE)
            .within("node_count")?;
        let mut nodes = Vec::with_capacity(count);
        for i in 0..count {
            nodes.push(Node::read(cur).within_index(i).within("nodes")?);
        }
        let bbox = BBox::read(cur).within("bbox")?;
        let collision_bbox = BBox::read(cur).within("collision_bbox")?;
        let mut root_translation = Vec3::default();
        for (i, v) in root_translation.iter_mut().enumerate() {
            *v = read_f32(cur).within_index(i).within("root_translation")?;
        }
        Ok(Hierarchy {
            version,
            nodes,
            bbox,
            collision_bbox,
            root_translation,
            checksum: Hex32(cur.u32().within("checksum")?),
            trailing: Blob::new(cur.rest()),
        })
    }
    pub fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put_u32(self.version);
        let count = u16::try_from(self.nodes.len()).map_err(|_| {
            EncodeError::new(format!(
                "{} nodes; a hierarchy holds at most 65535",
                self.nodes.len()
            ))
            .within_path("nodes")
        })?;
        out.put_u16(count);
        for (i, n) in self.nodes.iter().enumerate() {
            n.put(out).within_index(i).within("nodes")?;
        }
        self.bbox.put(out);
        self.collision_bbox.put(out);
        for v in self.root_translation {
            out.put_u32(v.0);
        }
        out.put_u32(self.checksum.0);
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

impl Source {
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(Source {
            date: ZDate::read(cur).within("date")?,
            path: read_line(cur).within("path")?,
            trailing: Blob::new(cur.rest()),
        })
    }
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.date.put(out);
        put_line(out, &self.path).within("path")?;
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
}

impl Chunk {
    pub fn id(&self) -> u16 {
        match self {
            Chunk::Hierarchy(_) => ID_HIERARCHY,
            Chunk::Source(_) => ID_SOURCE,
            Chunk::End(_) => ID_END,
            Chunk::Unknown(u) => u.id.0,
        }
    }
    pub fn kind(&self) -> &'static str {
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
        let chunks = chunk::read_chunks(data, |raw, i| {
            let c = &raw[i];
            let mut cur = c.cursor();
            Ok(match c.id {
                ID_HIERARCHY => Chunk::Hierarchy(Hierarchy::read(&mut cur).within("hierarchy")?),
                ID_SOURCE => Chunk::Source(Source::read(&mut cur).within("source")?),
                ID_END => Chunk::End(End {
                    trailing: Blob::new(c.payload),
                }),
                _ => Chunk::Unknown(Unknown::of(c)),
            })
        })?;
        Ok(Mdh { chunks })
    }

    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        chunk::put_chunks(out, &self.chunks)
    }
}

impl chunk::ChunkBody for Chunk {
    fn id(&self) -> u16 {
        Chunk::id(self)
    }
    fn kind(&self) -> &'static str {
        Chunk::kind(self)
    }
    fn put_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        Chunk::put_payload(self, out)
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
    if rel < 4 {
        return p.field("version").to_string();
    }
    if rel < 6 {
        return p.field("node_count").to_string();
    }
    let mut at = 6;
    for (i, n) in h.nodes.iter().enumerate() {
        let name_end = at + n.name.len() + 1;
        let end = name_end + 2 + 64;
        if rel < end {
            let np = p.field("nodes").index(i);
            return if rel < name_end {
                np.field("name")
            } else if rel < name_end + 2 {
                np.field("parent")
            } else {
                let k = (rel - name_end - 2) / 4;
                np.field("transform").index(k / 4).index(k % 4)
            }
            .to_string();
        }
        at = end;
    }
    let fixed: [(&'static str, usize); 4] = [
        ("bbox", BBox::SIZE),
        ("collision_bbox", BBox::SIZE),
        ("root_translation", 12),
        ("checksum", 4),
    ];
    for (name, size) in fixed {
        if rel < at + size {
            return p.field(name).to_string();
        }
        at += size;
    }
    p.field("trailing").to_string()
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
