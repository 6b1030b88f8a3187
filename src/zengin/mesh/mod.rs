//! What the ZenGin mesh files share: `.MDM` (model mesh), `.MMB` (morph mesh) and `.MDL` (model
//! hierarchy + model mesh) are flat lists of chunks (`u16 id, u32 length, payload`, see
//! [`crate::zengin::chunk`]), in which the multi-resolution meshes (`zCProgMeshProto`, chunk
//! 0xB100, [`mrm`]) sit.
//!
//! A [`ChunkFile`] keeps every chunk's payload as stored, and, from the first chunk whose
//! length runs past the end of the file (some real files have one), everything after as
//! `trailing`: so every file writes back byte for byte. The geometry is read from the payloads
//! by the views in [`mrm`] and [`model`] (`info`, the glTF export).

pub mod doc;
pub mod model;
pub mod mrm;
pub mod mrm_doc;
pub mod records;

use crate::codec::{check_document_header, Finding, Severity};
use crate::exact::{Blob, DecodeError, EncodeError, ImportError, Within};
use crate::zengin::chunk;
pub use doc::{ChunkDoc, FileKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One chunk as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct RawChunk {
    pub id: u16,
    pub data: Blob,
}

/// A chunked mesh file: its chunks in file order and what follows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChunkFile {
    /// Absolute offset of the first chunk in the file (an MDL's mesh part follows its
    /// hierarchy); not stored.
    pub base: u64,
    pub chunks: Vec<RawChunk>,
    /// From the first damaged chunk header to the end of the file (empty in well-formed files).
    pub trailing: Blob,
}

impl ChunkFile {
    pub fn read(data: &[u8]) -> ChunkFile {
        Self::read_at(data, 0)
    }

    /// The chunks of `data`, which starts at absolute offset `base` of the file.
    pub fn read_at(data: &[u8], base: u64) -> ChunkFile {
        let mut chunks = Vec::new();
        let mut it = chunk::Chunks::new(data);
        let mut end = 0;
        for c in it.by_ref() {
            let Ok(c) = c else { break };
            end = c.offset as usize + chunk::HEADER_SIZE + c.payload.len();
            chunks.push(RawChunk {
                id: c.id,
                data: Blob::new(c.payload),
            });
        }
        ChunkFile {
            base,
            chunks,
            trailing: Blob::new(&data[end..]),
        }
    }

    /// Bytes that are not a chunk (kept as `trailing`, so the file still writes back byte for
    /// byte) are damage the game cannot read past: a finding for `check` and `export` naming
    /// where they start and the likely cause.
    pub fn damage(&self) -> Vec<Finding> {
        if self.trailing.is_empty() {
            return Vec::new();
        }
        let at = self.base
            + self
                .chunks
                .iter()
                .map(|c| (chunk::HEADER_SIZE + c.data.len()) as u64)
                .sum::<u64>();
        vec![Finding::new(
            Severity::Error,
            "trailing",
            format!(
                "{} bytes from byte offset {at} are not a chunk (kept as they are): a chunk before \
                 them was probably edited without fixing its length (the game cannot read past \
                 it; animkit has no repair for the mesh formats yet)",
                self.trailing.len()
            ),
        )]
    }

    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        for (i, c) in self.chunks.iter().enumerate() {
            chunk::put_chunk(out, c.id, |o| {
                o.extend_from_slice(c.data.as_bytes());
                Ok(())
            })
            .within_index(i)
            .within("chunks")?;
        }
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }

    /// Absolute file offset of each chunk's payload.
    pub fn payload_offsets(&self) -> Vec<u64> {
        let mut at = self.base;
        self.chunks
            .iter()
            .map(|c| {
                let o = at + chunk::HEADER_SIZE as u64;
                at = o + c.data.len() as u64;
                o
            })
            .collect()
    }

    pub fn field_at(&self, offset: u64) -> String {
        let mut at = self.base;
        for (i, c) in self.chunks.iter().enumerate() {
            let end = at + chunk::HEADER_SIZE as u64 + c.data.len() as u64;
            if offset < end {
                let f = if offset < at + chunk::HEADER_SIZE as u64 {
                    "header"
                } else {
                    "data"
                };
                return format!("chunks[{i}].{f}");
            }
            at = end;
        }
        "trailing".into()
    }

    /// `D000, D010, ...`: the chunk ids for `info`.
    pub fn summary(&self, kind: impl Fn(u16) -> &'static str) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut last: Option<(u16, usize)> = None;
        for c in &self.chunks {
            match &mut last {
                Some((id, n)) if *id == c.id => *n += 1,
                _ => {
                    if let Some((id, n)) = last {
                        out.push(one(id, n, &kind));
                    }
                    last = Some((c.id, 1));
                }
            }
        }
        if let Some((id, n)) = last {
            out.push(one(id, n, &kind));
        }
        fn one(id: u16, n: usize, kind: &impl Fn(u16) -> &'static str) -> String {
            if n == 1 {
                format!("{id:04X} {}", kind(id))
            } else {
                format!("{id:04X} {} ×{n}", kind(id))
            }
        }
        out.join(", ")
    }
}

/// The YAML document of a chunked mesh file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChunkFileDocument {
    pub format: String,
    pub version: u32,
    /// What the file holds (vertex counts, node names), for people; ignored on import.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summary: Vec<String>,
    pub chunks: Vec<ChunkDoc>,
    /// Bytes after a chunk that runs past the end of the file (hex).
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

impl ChunkFile {
    pub fn to_yaml(
        &self,
        tag: &str,
        version: u32,
        summary: Vec<String>,
        kind: FileKind,
    ) -> Result<String, EncodeError> {
        let doc = ChunkFileDocument {
            format: tag.into(),
            version,
            summary,
            chunks: self.docs(kind),
            trailing: self.trailing.clone(),
        };
        crate::yaml::to_string(&doc).map_err(|e| EncodeError::new(e.to_string()))
    }

    pub fn from_yaml(
        text: &str,
        tag: &str,
        version: u32,
        kind: FileKind,
    ) -> Result<ChunkFile, ImportError> {
        let doc: ChunkFileDocument = crate::yaml::from_str(text)?;
        check_document_header(&doc.format, doc.version, tag, version).map_err(EncodeError::new)?;
        Ok(ChunkFile {
            base: 0,
            chunks: doc::from_docs(&doc.chunks, kind)?,
            trailing: doc.trailing,
        })
    }

    /// The chunks as YAML documents (decoded where they write back exactly).
    pub fn docs(&self, kind: FileKind) -> Vec<ChunkDoc> {
        doc::to_docs(&self.chunks, self.base, kind, model::chunk_kind)
    }

    /// What differs from `other`, chunk by chunk, naming the decoded fields that differ.
    pub fn diff(&self, other: &ChunkFile, kind: FileKind) -> Vec<String> {
        let (mine, theirs) = (self.docs(kind), other.docs(kind));
        let mut out = Vec::new();
        let n = self.chunks.len().max(other.chunks.len());
        for i in 0..n {
            match (self.chunks.get(i), other.chunks.get(i)) {
                (Some(a), Some(b)) if a == b => {}
                (Some(a), Some(b)) if a.id != b.id => out.push(format!(
                    "chunks[{i}]: chunk 0x{:04X} became 0x{:04X}",
                    a.id, b.id
                )),
                (Some(_), Some(_)) if mine[i].data.is_none() && theirs[i].data.is_none() => {
                    doc::diff_docs(&mine[i], &theirs[i], &format!("chunks[{i}]"), 20, &mut out)
                }
                (Some(a), Some(b)) => {
                    let first = a
                        .data
                        .as_bytes()
                        .iter()
                        .zip(b.data.as_bytes())
                        .position(|(x, y)| x != y)
                        .unwrap_or(a.data.len().min(b.data.len()));
                    out.push(format!(
                        "chunks[{i}] (0x{:04X}): {} → {} bytes, first difference at payload byte {first}",
                        a.id,
                        a.data.len(),
                        b.data.len()
                    ))
                }
                (Some(a), None) => out.push(format!("chunks[{i}] (0x{:04X}): removed", a.id)),
                (None, Some(b)) => out.push(format!("chunks[{i}] (0x{:04X}): added", b.id)),
                (None, None) => {}
            }
        }
        if self.trailing != other.trailing {
            out.push(format!(
                "trailing: {} → {} bytes",
                self.trailing.len(),
                other.trailing.len()
            ));
        }
        out
    }
}

/// A chunk's payload that did not decode as its kind: the error, with the chunk named.
pub fn in_chunk(e: DecodeError, i: usize) -> DecodeError {
    match Err::<(), _>(e).within_index(i).within("chunks") {
        Err(e) => e,
        Ok(()) => unreachable!("an error stays an error"),
    }
}

#[cfg(test)]
mod tests;
