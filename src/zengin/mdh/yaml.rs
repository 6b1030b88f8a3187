//! The `zengin.mdh` YAML document: the hierarchy as a node list, other chunks as they are.

use super::{Chunk, End, Hierarchy, Mdh, Node, Source};
use crate::codec::{check_document_header, Codec};
use crate::exact::{Blob, EncodeError, Hex32, ImportError};
use crate::yaml::Comment;
use crate::zengin::chunk::Unknown;
use crate::zengin::stext::ShortText;
use crate::zengin::tagged::{read_list, OneOf, Variant};
use crate::zengin::types::{BBox, Mat4, Vec3};
use schemars::JsonSchema;
use serde::de::MapAccess;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

/// A node as written in YAML.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeDoc {
    pub name: ShortText,
    /// Index of the parent node in `nodes`; `-1` for a root.
    pub parent: i16,
    /// The parent's name, for people; ignored on import (`parent` decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<ShortText>,
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
    pub(super) fn of(h: &Hierarchy) -> Self {
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
    pub(super) fn into_model(self) -> Hierarchy {
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

pub(super) struct DocOut<'a>(Vec<ChunkDoc>, std::marker::PhantomData<&'a ()>);

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
    pub(crate) fn to_doc(&self) -> Vec<ChunkDoc> {
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
        Ok(Mdh::from_doc(doc.chunks))
    }
    /// The model of a document's chunk list (also an MDL's hierarchy part).
    pub(crate) fn from_doc(chunks: Vec<ChunkDoc>) -> Mdh {
        Mdh {
            chunks: chunks
                .into_iter()
                .map(|c| match c {
                    ChunkDoc::Hierarchy(h) => Chunk::Hierarchy(h.into_model()),
                    ChunkDoc::Source(s) => Chunk::Source(s),
                    ChunkDoc::End(e) => Chunk::End(e),
                    ChunkDoc::Unknown(u) => Chunk::Unknown(u),
                })
                .collect(),
        }
    }
}
