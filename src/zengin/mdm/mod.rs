//! `.MDM` model meshes (`zCModelMeshLib`): a header, the source, the names of the nodes the
//! node-attached meshes hang on, those meshes (0xB100 each), then the soft-skin list (checksum
//! of the hierarchy's node names) and each soft-skin mesh (header, mesh, weights, end).
//!
//! The file is kept as its chunks (see [`crate::zengin::mesh`]); the geometry, weights and node
//! names are read from them for `info` and the glTF export ([`ModelMesh`]).

#[cfg(test)]
mod tests;

use crate::codec::{Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{DecodeError, EncodeError, ImportError};
use crate::zengin::mesh::model::{chunk_kind, ModelMesh, MDM_HEADER};
use crate::zengin::mesh::{ChunkFile, FileKind};

/// A decoded `.MDM` file.
#[derive(Debug, Clone, PartialEq)]
pub struct Mdm {
    pub file: ChunkFile,
    /// What the chunks hold (read when decoded; an imported document is read again).
    pub mesh: ModelMesh,
}

impl Mdm {
    pub fn from_file(file: ChunkFile) -> Result<Self, DecodeError> {
        let mesh = ModelMesh::read(&file)?;
        Ok(Mdm { file, mesh })
    }
    fn summary(&self) -> Vec<String> {
        self.mesh
            .info()
            .into_iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect()
    }
}

impl Codec for Mdm {
    fn check(&self, _ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        self.file.damage()
    }
    fn export_warnings(&self) -> Vec<crate::codec::Finding> {
        self.file.damage()
    }
    const TAG: &'static str = "zengin.mdm";
    const DESCRIPTION: &'static str = "ZenGin model mesh (.MDM)";
    const EXTENSIONS: &'static [&'static str] = &["mdm"];

    fn detect(data: &[u8]) -> bool {
        data.len() >= 6 && u16::from_le_bytes([data[0], data[1]]) == MDM_HEADER
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Mdm::from_file(ChunkFile::read(data))
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.file.write(out)
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        self.file.to_yaml(
            Self::TAG,
            Self::YAML_VERSION,
            self.summary(),
            FileKind::Model,
        )
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        let file = ChunkFile::from_yaml(text, Self::TAG, Self::YAML_VERSION, FileKind::Model)?;
        let mesh = ModelMesh::read(&file).map_err(|e| EncodeError::new(e.to_string()))?;
        Ok(Mdm { file, mesh })
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(crate::zengin::mesh::ChunkFileDocument)
    }
    fn info(&self) -> Vec<InfoLine> {
        let mut v = self.mesh.info();
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
        self.file.diff(&other.file, FileKind::Model)
    }
    fn companion_key(&self) -> Option<u32> {
        self.mesh.checksum
    }
}
