//! `.MMB` morph meshes (`zCMorphMeshProto`, heads): a start chunk, a header (version, name),
//! the mesh (0xB100), the morph reference positions (0xB1FF), the sources and the morph
//! animations (which vertices move and their offsets per frame).
//!
//! The file is kept as its chunks (see [`crate::zengin::mesh`]); [`MorphMesh`] reads them.

#[cfg(test)]
mod tests;

use crate::codec::{Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{DecodeError, EncodeError, ImportError};
use crate::zengin::mesh::model::{chunk_kind, MorphMesh, MMB_HEADER, MMB_START};
use crate::zengin::mesh::{ChunkFile, FileKind};

/// A decoded `.MMB` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mmb {
    pub file: ChunkFile,
    pub morph: MorphMesh,
}

impl Mmb {
    fn summary(&self) -> Vec<String> {
        Codec::info(self)
            .into_iter()
            .filter(|(k, _)| *k != "chunks")
            .map(|(k, v)| format!("{k}: {v}"))
            .collect()
    }
}

impl Codec for Mmb {
    fn check(&self, _ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        self.file.damage()
    }
    fn export_warnings(&self) -> Vec<crate::codec::Finding> {
        self.file.damage()
    }
    const TAG: &'static str = "zengin.mmb";
    const DESCRIPTION: &'static str = "ZenGin morph mesh (.MMB)";
    const EXTENSIONS: &'static [&'static str] = &["mmb"];

    fn detect(data: &[u8]) -> bool {
        data.len() >= 6
            && matches!(
                u16::from_le_bytes([data[0], data[1]]),
                MMB_START | MMB_HEADER
            )
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        let file = ChunkFile::read(data);
        let morph = MorphMesh::read(&file)?;
        Ok(Mmb { file, morph })
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.file.write(out)
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        self.file.to_yaml(
            Self::TAG,
            Self::YAML_VERSION,
            self.summary(),
            FileKind::Morph,
        )
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        let file = ChunkFile::from_yaml(text, Self::TAG, Self::YAML_VERSION, FileKind::Morph)?;
        let morph = MorphMesh::read(&file).map_err(|e| EncodeError::new(e.to_string()))?;
        Ok(Mmb { file, morph })
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(crate::zengin::mesh::ChunkFileDocument)
    }
    fn info(&self) -> Vec<InfoLine> {
        let m = &self.morph;
        let mut v = vec![("name", m.name.clone())];
        if let Some(mesh) = &m.mesh {
            v.push(("vertices", mesh.positions.len().to_string()));
            v.push(("triangles", mesh.triangle_count().to_string()));
            let tex: Vec<String> = mesh
                .submeshes
                .iter()
                .filter_map(|s| s.texture.clone())
                .collect();
            v.push(("textures", tex.join(", ")));
        }
        v.push((
            "morph animations",
            m.animations
                .iter()
                .map(|a| {
                    format!(
                        "{} ({} vertices × {} frames)",
                        a.name,
                        a.vertices.len(),
                        a.head.frame_count
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
        ));
        v.push(("chunks", self.file.summary(chunk_kind)));
        if !self.file.trailing.is_empty() {
            v.push(("trailing bytes", self.file.trailing.len().to_string()));
        }
        v
    }
    fn field_at(&self, offset: u64) -> String {
        self.file.field_at(offset)
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        self.file.diff(&other.file, FileKind::Morph)
    }
}
