//! `.MDH` model hierarchies (`zCModelHierarchy`, the skeleton): a hierarchy chunk (0xD100) with
//! the node list, bounding boxes, root translation and node-list checksum, a source chunk
//! (0xD110) and an end chunk (0xD120).
//!
//! Chunks are kept in file order; unknown chunks, bytes after the last field of a known chunk
//! and bytes after the end chunk (the engine stops reading there) are kept verbatim. Parent
//! indices are kept as their 16 stored bits (shown as `i16`, the root is `-1`), floats to the bit
//! (`-0.0` survives), and the zDATE with its garbage.

use crate::codec::{check_document_header, Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{
    Blob, Cursor, DecodeError, EncodeError, FieldPath, Hex32, ImportError, PutLe, Text, Within,
};
use crate::yaml::Comment;
use crate::zengin::chunk;
use crate::zengin::tagged::{read_list, OneOf, Variant};
use crate::zengin::types::{put_line, read_f32, read_line, BBox, Mat4, Vec3, ZDate};
use schemars::JsonSchema;
use serde::de::MapAccess;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

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
    pub name: Text,
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
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(Node {
            name: read_line(cur).within("name")?,
            parent: cur.i16().within("parent")?,
            transform: Mat4::read(cur).within("transform")?,
        })
    }
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        put_line(out, &self.name).within("name")?;
        out.put_i16(self.parent);
        self.transform.put(out);
        Ok(())
    }
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
        self.nodes.iter().map(|n| n.name.clone()).collect()
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

/// A node as written in YAML.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeDoc {
    pub name: Text,
    /// Index of the parent node in `nodes`; `-1` for a root.
    pub parent: i16,
    /// The parent's name, for people; ignored on import (`parent` decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<Text>,
    /// Local transform, four rows of four floats (translation in the last column).
    pub transform: Mat4,
}

/// 0xD100 as written in YAML.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HierarchyDoc {
    pub version: u32,
    pub nodes: Vec<NodeDoc>,
    pub bbox: BBox,
    pub collision_bbox: BBox,
    pub root_translation: Vec3,
    /// CRC-32 of the concatenated node names; written as given (it is not recomputed).
    pub checksum: Hex32,
    #[serde(default, skip_deserializing, skip_serializing_if = "Comment::is_empty")]
    #[schemars(skip)]
    pub checksum_note: Comment,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

impl HierarchyDoc {
    fn of(h: &Hierarchy) -> Self {
        let computed = h.computed_checksum();
        HierarchyDoc {
            version: h.version,
            nodes: h
                .nodes
                .iter()
                .map(|n| NodeDoc {
                    name: n.name.clone(),
                    parent: n.parent,
                    parent_name: usize::try_from(n.parent)
                        .ok()
                        .and_then(|p| h.nodes.get(p))
                        .map(|p| p.name.clone()),
                    transform: n.transform,
                })
                .collect(),
            bbox: h.bbox,
            collision_bbox: h.collision_bbox,
            root_translation: h.root_translation,
            checksum: h.checksum,
            checksum_note: if computed == h.checksum.0 {
                Comment::default()
            } else {
                Comment(format!(
                    "does not match the CRC-32 of the node names, {}",
                    Hex32(computed)
                ))
            },
            trailing: h.trailing.clone(),
        }
    }
    fn into_model(self) -> Hierarchy {
        Hierarchy {
            version: self.version,
            nodes: self
                .nodes
                .into_iter()
                .map(|n| Node {
                    name: n.name,
                    parent: n.parent,
                    transform: n.transform,
                })
                .collect(),
            bbox: self.bbox,
            collision_bbox: self.collision_bbox,
            root_translation: self.root_translation,
            checksum: self.checksum,
            trailing: self.trailing,
        }
    }
}

/// A chunk as written in YAML: `- hierarchy: {...}`.
#[derive(Debug, Clone, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChunkDoc {
    Hierarchy(HierarchyDoc),
    Source(Source),
    End(End),
    Unknown(Unknown),
}

impl Serialize for ChunkDoc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ChunkDoc::Hierarchy(h) => Variant("hierarchy", h).serialize(s),
            ChunkDoc::Source(x) => Variant("source", x).serialize(s),
            ChunkDoc::End(x) => Variant("end", x).serialize(s),
            ChunkDoc::Unknown(x) => Variant("unknown", x).serialize(s),
        }
    }
}

impl OneOf for ChunkDoc {
    const EXPECTING: &'static str =
        "a chunk: one of hierarchy, source, end or unknown, as `kind: {...}`";
    const KINDS: &'static [&'static str] = &["hierarchy", "source", "end", "unknown"];
    fn read_variant<'de, A: MapAccess<'de>>(kind: &str, map: &mut A) -> Result<Self, A::Error> {
        Ok(match kind {
            "hierarchy" => ChunkDoc::Hierarchy(map.next_value()?),
            "source" => ChunkDoc::Source(map.next_value()?),
            "end" => ChunkDoc::End(map.next_value()?),
            _ => ChunkDoc::Unknown(map.next_value()?),
        })
    }
}

/// A `zengin.mdh` YAML document.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "animkit zengin.mdh document")]
pub struct MdhDocument {
    /// Always `zengin.mdh`.
    pub format: String,
    /// Document version; this animkit reads 1.
    pub version: u32,
    /// The file's chunks in file order.
    #[serde(deserialize_with = "read_list")]
    pub chunks: Vec<ChunkDoc>,
}

struct DocOut<'a>(Vec<ChunkDoc>, std::marker::PhantomData<&'a ()>);

impl Serialize for DocOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("MdhDocument", 3)?;
        st.serialize_field("format", Mdh::TAG)?;
        st.serialize_field("version", &Mdh::YAML_VERSION)?;
        st.serialize_field("chunks", &self.0)?;
        st.end()
    }
}

impl Mdh {
    fn to_doc(&self) -> Vec<ChunkDoc> {
        self.chunks
            .iter()
            .map(|c| match c {
                Chunk::Hierarchy(h) => ChunkDoc::Hierarchy(HierarchyDoc::of(h)),
                Chunk::Source(s) => ChunkDoc::Source(s.clone()),
                Chunk::End(e) => ChunkDoc::End(e.clone()),
                Chunk::Unknown(u) => ChunkDoc::Unknown(u.clone()),
            })
            .collect()
    }
    pub fn to_yaml_text(&self) -> Result<String, EncodeError> {
        crate::yaml::to_string(&DocOut(self.to_doc(), std::marker::PhantomData))
            .map_err(|e| EncodeError::new(e.to_string()))
    }
    pub fn from_yaml_text(text: &str) -> Result<Self, ImportError> {
        let doc: MdhDocument = crate::yaml::from_str(text)?;
        check_document_header(&doc.format, doc.version, Mdh::TAG, Mdh::YAML_VERSION)
            .map_err(EncodeError::new)?;
        Ok(Mdh {
            chunks: doc
                .chunks
                .into_iter()
                .map(|c| match c {
                    ChunkDoc::Hierarchy(h) => Chunk::Hierarchy(h.into_model()),
                    ChunkDoc::Source(s) => Chunk::Source(s),
                    ChunkDoc::End(e) => Chunk::End(e),
                    ChunkDoc::Unknown(u) => Chunk::Unknown(u),
                })
                .collect(),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Checking a MAN against its skeleton

/// Why an animation does not belong to a hierarchy; empty when it does.
pub fn check_man(man: &crate::zengin::man::Man, mdh: &Mdh) -> Vec<String> {
    let mut out = Vec::new();
    let Some(h) = mdh.hierarchy() else {
        out.push("the MDH has no hierarchy chunk (0xD100)".into());
        return out;
    };
    let computed = h.computed_checksum();
    if computed != h.checksum.0 {
        out.push(format!(
            "the MDH's stored checksum {} is not the CRC-32 of its node names ({})",
            h.checksum,
            Hex32(computed)
        ));
    }
    let Some(s) = man.samples() else {
        out.push("the MAN has no raw-data chunk (0xA090), so no checksum or node indices".into());
        return out;
    };
    if s.checksum != h.checksum {
        out.push(format!(
            "checksum mismatch: the MAN was made for the skeleton with checksum {}, the MDH has {} (CRC-32 of its names {})",
            s.checksum,
            h.checksum,
            Hex32(computed)
        ));
    }
    for (k, &idx) in s.node_indices.iter().enumerate() {
        if idx as usize >= h.nodes.len() {
            out.push(format!(
                "samples.node_indices[{k}] = {idx}: the MDH has only {} nodes (0..{})",
                h.nodes.len(),
                h.nodes.len().saturating_sub(1)
            ));
        }
    }
    out
}

/// `animkit check FILE.MAN --mdh FILE.MDH` for [`Codec::check`].
pub fn check_man_findings(
    man: &crate::zengin::man::Man,
    ctx: &crate::codec::CheckContext<'_>,
) -> Vec<crate::codec::Finding> {
    let Some(reference) = ctx.companion else {
        return Vec::new();
    };
    let finding =
        |message: String| crate::codec::Finding::new(crate::codec::Severity::Error, "mdh", message);
    match reference.as_any().downcast_ref::<Mdh>() {
        Some(mdh) => check_man(man, mdh).into_iter().map(finding).collect(),
        None => vec![finding(format!(
            "a .MAN is checked against a .MDH, not against a {} file",
            reference.tag()
        ))],
    }
}

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
        v.push((
            "chunks",
            self.chunks
                .iter()
                .map(|c| format!("{:04X} {}", c.id(), c.kind()))
                .collect::<Vec<_>>()
                .join(", "),
        ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::F32;

    fn m(rows: [[f32; 4]; 4]) -> Mat4 {
        Mat4(rows.map(|r| r.map(F32::new)))
    }

    /// (value, bytes) pairs for the node record, both directions.
    #[test]
    fn node_table() {
        let mut identity_neg_zero = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, f32::from_bits(0xC3C5052E)],
            [0.0, 0.0, 0.0, 1.0],
        ];
        identity_neg_zero[2][1] = -0.0;
        let table: Vec<(Node, String)> = vec![
            (
                Node {
                    name: Text::from("BIP01 NABE"),
                    parent: 0,
                    transform: m(identity_neg_zero),
                },
                "424950303120 4e414245 0a 0000 \
                 0000803f 00000000 00000000 00000000 \
                 00000000 0000803f 00000000 00000000 \
                 00000000 00000080 0000803f 2e05c5c3 \
                 00000000 00000000 00000000 0000803f"
                    .into(),
            ),
            (
                Node {
                    name: Text::new(&b"\xe4"[..]),
                    parent: -1,
                    transform: Mat4::default(),
                },
                format!("e4 0a ffff {}", "00".repeat(64)),
            ),
        ];
        for (value, hex_bytes) in table {
            let bytes = hex::decode(hex_bytes.replace(' ', "")).unwrap();
            let mut out = Vec::new();
            value.put(&mut out).unwrap();
            assert_eq!(out, bytes);
            let mut cur = Cursor::new(&bytes, 0);
            assert_eq!(Node::read(&mut cur).unwrap(), value);
            assert!(cur.is_empty());
        }
    }

    /// Hierarchy and source records, both directions.
    #[test]
    fn hierarchy_and_source_table() {
        let h = Hierarchy {
            version: 3,
            nodes: vec![Node {
                name: Text::from("A"),
                parent: -1,
                transform: Mat4::default(),
            }],
            bbox: BBox::default(),
            collision_bbox: BBox::default(),
            root_translation: [F32(0x8000_0000), F32::new(0.0), F32::new(2.0)],
            checksum: Hex32(0xD3D99E8B),
            trailing: Blob::new(vec![0xAA]),
        };
        let bytes = [
            "03000000 0100 41 0a ffff",
            &"00".repeat(64 + 48),
            "00000080 00000000 00000040 8b9ed9d3 aa",
        ]
        .concat();
        let bytes = hex::decode(bytes.replace(' ', "")).unwrap();
        let mut out = Vec::new();
        h.put(&mut out).unwrap();
        assert_eq!(out, bytes);
        assert_eq!(Hierarchy::read(&mut Cursor::new(&bytes, 0)).unwrap(), h);
        assert_eq!(h.computed_checksum(), 0xD3D99E8B); // crc32("A")

        let s = Source {
            date: ZDate {
                year: 0,
                month: 60480,
                day: 291,
                hour: 49946,
                minute: 2707,
                second: 35812,
                padding: 0x0EB7,
            },
            path: Text::from("X.ASC"),
            trailing: Blob::default(),
        };
        let bytes =
            hex::decode("00000000 40ec 2301 1ac3 930a e48b b70e 582e415343 0a".replace(' ', ""))
                .unwrap();
        let mut out = Vec::new();
        s.put(&mut out).unwrap();
        assert_eq!(out, bytes);
        assert_eq!(Source::read(&mut Cursor::new(&bytes, 0)).unwrap(), s);
    }

    #[test]
    fn truncated_node_list_names_the_field() {
        // version 3, 2 nodes claimed but only one node's bytes
        let mut payload = hex::decode("03000000 0200".replace(' ', "")).unwrap();
        payload.extend_from_slice(b"A\n\xff\xff");
        payload.extend_from_slice(&[0; 64 + 70]);
        let mut data = Vec::new();
        chunk::put_chunk(&mut data, ID_HIERARCHY, |o| {
            o.extend_from_slice(&payload);
            Ok(())
        })
        .unwrap();
        let err = Mdh::read(&data).unwrap_err();
        assert!(
            err.path.to_string().starts_with("hierarchy.nodes[1]"),
            "{err}"
        );
    }

    fn corpus() -> Option<Vec<u8>> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus/zengin/hierarchy0.mdh");
        match std::fs::read(&p) {
            Ok(d) => Some(d),
            Err(_) if std::env::var("CI").as_deref() == Ok("true") => {
                panic!("corpus file {} missing", p.display())
            }
            Err(_) => {
                eprintln!("notice: {} not found, skipping corpus test", p.display());
                None
            }
        }
    }

    #[test]
    fn corpus_hierarchy0_values_and_round_trips() {
        let Some(data) = corpus() else { return };
        let mdh = Mdh::read(&data).unwrap();
        let ids: Vec<u16> = mdh.chunks.iter().map(Chunk::id).collect();
        assert_eq!(ids, [0xD100, 0xD110, 0xD120]);
        let h = mdh.hierarchy().unwrap();
        assert_eq!(h.version, 3);
        let names: Vec<String> = h.nodes.iter().map(|n| n.name.to_string()).collect();
        assert_eq!(
            names,
            [
                "BIP01 MUEHLE",
                "BIP01 NABE",
                "BIP01 ROLLERL",
                "BIP01 ROLLERR",
                "ZM_MUEHLE01",
                "ZM_RING",
                "ZS_POS0"
            ]
        );
        let parents: Vec<i16> = h.nodes.iter().map(|n| n.parent).collect();
        assert_eq!(parents, [-1, 0, 1, 1, 1, 1, 0]);
        assert_eq!(h.checksum, Hex32(965956401));
        assert_eq!(h.computed_checksum(), 965956401);
        // node 0: rows (-1 0 0 0) (0 1 0 0) (0 0 -1 0) (0 0 0 1)
        let n0 = h.nodes[0].transform.0.map(|r| r.map(F32::get));
        assert_eq!(
            n0,
            [
                [-1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, -1.0, 0.0],
                [0.0, 0.0, 0.0, 1.0]
            ]
        );
        let n1 = h.nodes[1].transform.0;
        assert_eq!(n1[2][3], F32(0xC3C5052E));
        assert_eq!(n1[2][1], F32(0x8000_0000), "-0.0 at file float index 9");
        assert_eq!(
            h.bbox.min,
            [F32(0xC3F8967E), F32(0xBF135A00), F32(0xC2D3CB1C)]
        );
        assert_eq!(
            h.bbox.max,
            [F32(0x4400EDE9), F32(0x43B678D1), F32(0x445F625A)]
        );
        assert_eq!(
            h.collision_bbox.min,
            [F32(0xC378967E), F32(0xBECE4ACD), F32(0xC253CB1C)]
        );
        assert_eq!(
            h.collision_bbox.max,
            [F32(0x4380EDE9), F32(0x4391FA41), F32(0x43DF625A)]
        );
        assert_eq!(
            h.root_translation,
            [F32(0x8000_0000), F32(0), F32(0xC3C5052E)]
        );
        let s = mdh.source().unwrap();
        assert_eq!(s.date.padding, 0x0EB7);
        assert_eq!(s.date.month, 60480);
        assert_eq!(
            s.path.to_string(),
            r"\_WORK\DATA\ANIMS\\_WORK\DATA\ANIMS\ASC_MOBSI\ANIMATED\STONEMILL_OM.ASC"
        );

        let mut out = Vec::new();
        mdh.write(&mut out).unwrap();
        assert_eq!(out, data);
        let yaml = mdh.to_yaml_text().unwrap();
        assert!(yaml.contains("parent_name: BIP01 NABE"), "{yaml}");
        assert!(yaml.contains("-0.0"), "{yaml}");
        let back = Mdh::from_yaml_text(&yaml).unwrap();
        assert_eq!(back, mdh);
        let mut out = Vec::new();
        back.write(&mut out).unwrap();
        assert_eq!(out, data);
        assert_eq!(mdh.field_at(6 + 6), "chunks[0].hierarchy.nodes[0].name");
        assert_eq!(mdh.field_at(0x262 + 4), "chunks[0].hierarchy.checksum");
    }

    #[test]
    fn check_man_against_corpus_skeleton() {
        let Some(data) = corpus() else { return };
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpus/zengin/G1_HUMANS-S_FISTRUN.MAN");
        let Ok(man_data) = std::fs::read(p) else {
            return;
        };
        let mdh = Mdh::read(&data).unwrap();
        let mut man = crate::zengin::man::Man::read(&man_data).unwrap();
        let found = check_man(&man, &mdh);
        // The human animation does not belong to the stone mill: wrong checksum, and 18 of
        // its 25 node indices (8..33) are beyond the mill's 7 nodes.
        assert_eq!(found.len(), 19, "{found:#?}");
        assert!(found[0].contains("0xc63488c2") && found[0].contains("0x39935331"));
        assert!(found[1].starts_with("samples.node_indices[7] = 8"));
        for c in &mut man.chunks {
            if let crate::zengin::man::Chunk::Samples(s) = c {
                s.checksum = Hex32(0x39935331);
                for i in &mut s.node_indices {
                    *i %= 7;
                }
            }
        }
        assert_eq!(check_man(&man, &mdh), Vec::<String>::new());
        // and the names reach the MAN export
        let opts = ExportOptions {
            companion: Some(&mdh),
        };
        let yaml = Codec::to_yaml(&man, &opts).unwrap();
        assert!(
            yaml.contains("{node: BIP01 MUEHLE, rotation: "),
            "{}",
            &yaml[..2000]
        );
        let back = crate::zengin::man::yaml::from_yaml(&yaml, &ImportOptions::default()).unwrap();
        assert_eq!(back, man);
    }
}
