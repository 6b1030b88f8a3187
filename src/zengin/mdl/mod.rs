//! `.MDL` models: a model hierarchy (the chunks of an `.MDH`, up to its end chunk 0xD120) and a
//! model mesh (the chunks of an `.MDM`) in one file, as the engine compiles a model whose mesh
//! and skeleton come from one source.
//!
//! The hierarchy part is an [`Mdh`] (decoded and edited as in `zengin.mdh`); the mesh part is
//! kept as its chunks and read by [`ModelMesh`] (see [`crate::zengin::mesh`]).

#[cfg(test)]
mod tests;

use crate::codec::{check_document_header, Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{Blob, DecodeError, EncodeError, ImportError};
use crate::zengin::chunk::{self, Chunks};
use crate::zengin::mdh::{ChunkDoc as MdhChunkDoc, Mdh};
use crate::zengin::mesh::model::{chunk_kind, ModelMesh, MDH_END, MDH_HIERARCHY, MDM_HEADER};
use crate::zengin::mesh::{ChunkDoc, ChunkFile, FileKind};
use crate::zengin::tagged::read_list;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A decoded `.MDL` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mdl {
    /// The chunks up to and including the hierarchy's end chunk.
    pub hierarchy: Mdh,
    /// The chunks after it.
    pub file: ChunkFile,
    pub mesh: ModelMesh,
}

/// Where the hierarchy part ends (after its end chunk), when a model mesh header follows.
fn split(data: &[u8]) -> Option<usize> {
    let mut it = Chunks::new(data);
    while let Some(Ok(c)) = it.next() {
        if c.id == MDH_END {
            let end = c.offset as usize + chunk::HEADER_SIZE + c.payload.len();
            let next = data.get(end..end + 2)?;
            return (u16::from_le_bytes([next[0], next[1]]) == MDM_HEADER).then_some(end);
        }
    }
    None
}

/// A `zengin.mdl` YAML document.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "animkit zengin.mdl document")]
pub struct MdlDocument {
    pub format: String,
    pub version: u32,
    /// For people; ignored on import.
    #[serde(default)]
    pub summary: Vec<String>,
    /// The hierarchy's chunks, as in a `zengin.mdh` document.
    #[serde(deserialize_with = "read_list")]
    pub hierarchy: Vec<MdhChunkDoc>,
    /// The model mesh's chunks.
    pub chunks: Vec<ChunkDoc>,
    #[serde(default)]
    pub trailing: Blob,
}

#[derive(Serialize)]
struct DocOut<'a> {
    format: &'static str,
    version: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    summary: Vec<String>,
    hierarchy: Vec<MdhChunkDoc>,
    chunks: Vec<ChunkDoc>,
    #[serde(skip_serializing_if = "Blob::is_empty")]
    trailing: &'a Blob,
}

impl Codec for Mdl {
    fn check(&self, _ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        self.file.damage()
    }
    fn export_warnings(&self) -> Vec<crate::codec::Finding> {
        self.file.damage()
    }
    const TAG: &'static str = "zengin.mdl";
    const DESCRIPTION: &'static str = "ZenGin model: hierarchy and mesh (.MDL)";
    const EXTENSIONS: &'static [&'static str] = &["mdl"];

    fn detect(data: &[u8]) -> bool {
        data.len() >= 6
            && u16::from_le_bytes([data[0], data[1]]) == MDH_HIERARCHY
            && split(data).is_some()
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        let end = split(data).ok_or_else(|| {
            DecodeError::invalid(
                0,
                "not an MDL: no hierarchy end chunk (0xD120) followed by a model mesh header (0xD000)",
            )
        })?;
        let hierarchy = Mdh::read(&data[..end])?;
        let file = ChunkFile::read_at(&data[end..], end as u64);
        let mesh = ModelMesh::read(&file)?;
        Ok(Mdl {
            hierarchy,
            file,
            mesh,
        })
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.hierarchy.write(out)?;
        self.file.write(out)
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        let doc = DocOut {
            format: Self::TAG,
            version: Self::YAML_VERSION,
            summary: self
                .mesh
                .info()
                .into_iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect(),
            hierarchy: self.hierarchy.to_doc(),
            chunks: self.file.docs(FileKind::Model),
            trailing: &self.file.trailing,
        };
        crate::yaml::to_string(&doc).map_err(|e| EncodeError::new(e.to_string()))
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        let doc: MdlDocument = crate::yaml::from_str(text)?;
        check_document_header(&doc.format, doc.version, Self::TAG, Self::YAML_VERSION)
            .map_err(EncodeError::new)?;
        let hierarchy = Mdh::from_doc(doc.hierarchy);
        let mut head = Vec::new();
        hierarchy.write(&mut head)?;
        let file = ChunkFile {
            base: head.len() as u64,
            chunks: crate::zengin::mesh::doc::from_docs(&doc.chunks, FileKind::Model)?,
            trailing: doc.trailing,
        };
        let mesh = ModelMesh::read(&file).map_err(|e| EncodeError::new(e.to_string()))?;
        Ok(Mdl {
            hierarchy,
            file,
            mesh,
        })
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(MdlDocument)
    }
    fn info(&self) -> Vec<InfoLine> {
        let mut v: Vec<InfoLine> = Codec::info(&self.hierarchy)
            .into_iter()
            .map(|(k, val)| match k {
                "chunks" => ("hierarchy chunks", val),
                _ => (k, val),
            })
            .collect();
        v.retain(|(k, _)| *k != "checksum" || self.mesh.checksum.is_none());
        v.extend(self.mesh.info());
        v.push(("mesh chunks", self.file.summary(chunk_kind)));
        if !self.file.trailing.is_empty() {
            v.push(("trailing bytes", self.file.trailing.len().to_string()));
        }
        v
    }
    fn field_at(&self, offset: u64) -> String {
        if offset < self.file.base {
            format!("hierarchy.{}", self.hierarchy.field_at(offset))
        } else {
            self.file.field_at(offset)
        }
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        let mut out: Vec<String> = Codec::diff(&self.hierarchy, &other.hierarchy)
            .into_iter()
            .map(|l| format!("hierarchy: {l}"))
            .collect();
        out.extend(self.file.diff(&other.file, FileKind::Model));
        out
    }
    fn companion_key(&self) -> Option<u32> {
        Codec::companion_key(&self.hierarchy)
    }
}
