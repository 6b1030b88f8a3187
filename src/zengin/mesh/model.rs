//! Read-only views of what a mesh file holds, from its stored chunks: the model mesh (`.MDM`
//! and the mesh part of `.MDL`: node-attached meshes and soft-skin meshes with their weights)
//! and the morph mesh (`.MMB`: a head and its morph animations).

use super::mrm::Mrm;
use super::{in_chunk, ChunkFile};
use crate::exact::{Cursor, DecodeError, Within, F32};

pub use super::records::*;

/// A soft-skin mesh: the mesh, each vertex's weights, the hierarchy nodes it uses.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftSkin {
    pub mesh: Mrm,
    pub weights: Vec<Vec<Weight>>,
    /// The hierarchy nodes the mesh has bounding boxes for (stored after the weights).
    pub nodes: Vec<i32>,
}

/// The model mesh in a chunk list.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelMesh {
    pub version: Option<u32>,
    /// Names of the nodes the attachments hang on, in order.
    pub node_names: Vec<String>,
    /// Node-attached (rigid) meshes: the node's name and the mesh, in its space.
    pub attachments: Vec<(String, Mrm)>,
    /// Checksum of the hierarchy's node names (as in the MDH).
    pub checksum: Option<u32>,
    pub softskins: Vec<SoftSkin>,
}

fn text(b: &[u8]) -> String {
    encoding_rs::WINDOWS_1252.decode(b).0.into_owned()
}

/// A `\n`-ended line (the engine's `read_line`, `\r` dropped).
fn line(cur: &mut Cursor<'_>) -> Result<String, DecodeError> {
    let b = cur.until(b'\n')?;
    Ok(text(b.strip_suffix(b"\r").unwrap_or(b)))
}

/// [`ModelMesh::read`]'s state: the mesh so far, whether the soft-skin list has begun, the
/// soft-skin mesh waiting for its weights.
#[derive(Default)]
struct MeshReader {
    mesh: ModelMesh,
    in_skins: bool,
    pending: Option<Mrm>,
}

impl MeshReader {
    fn chunk(&mut self, id: u16, payload: &[u8], base: u64) -> Result<(), DecodeError> {
        let m = &mut self.mesh;
        let mut cur = Cursor::new(payload, base);
        match id {
            MDM_HEADER => m.version = Some(cur.u32().within("version")?),
            MDM_NODES => {
                let count = cur.u16().within("node_count")?;
                let count = cur.check_count(u64::from(count), 1).within("node_count")?;
                for k in 0..count {
                    m.node_names
                        .push(line(&mut cur).within_index(k).within("names")?);
                }
            }
            MDM_SOFTSKINS => {
                m.checksum = Some(cur.u32().within("checksum")?);
                self.in_skins = true;
            }
            MRM_MESH => {
                let mesh = Mrm::read(payload, base)?;
                if self.in_skins {
                    self.pending = Some(mesh);
                } else {
                    let k = m.attachments.len();
                    let name = m.node_names.get(k).cloned().ok_or_else(|| {
                        cur.invalid(format!(
                            "attachment mesh {k} has no node name (the node list names {})",
                            m.node_names.len()
                        ))
                    })?;
                    m.attachments.push((name, mesh));
                }
            }
            MRM_AFTER if self.in_skins => {
                if let Some(mesh) = self.pending.take() {
                    let w = super::doc::read_weights(&mut cur, mesh.positions.len())?;
                    let (weights, nodes) = (w.weights, w.nodes);
                    m.softskins.push(SoftSkin {
                        mesh,
                        weights,
                        nodes,
                    });
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl ModelMesh {
    /// The model mesh of `file`'s chunks (an MDM, or an MDL's chunks after its hierarchy).
    pub fn read(file: &ChunkFile) -> Result<ModelMesh, DecodeError> {
        let offsets = file.payload_offsets();
        let mut r = MeshReader::default();
        for (i, c) in file.chunks.iter().enumerate() {
            r.chunk(c.id, c.data.as_bytes(), offsets[i])
                .map_err(|e| in_chunk(e, i))?;
        }
        Ok(r.mesh)
    }

    pub fn vertex_count(&self) -> usize {
        self.softskins
            .iter()
            .map(|s| s.mesh.positions.len())
            .sum::<usize>()
            + self
                .attachments
                .iter()
                .map(|(_, a)| a.positions.len())
                .sum::<usize>()
    }

    /// Lines for `info`.
    pub fn info(&self) -> Vec<(&'static str, String)> {
        let mut v = Vec::new();
        if let Some(c) = self.checksum {
            v.push(("checksum", format!("0x{c:08X}")));
        }
        v.push((
            "soft-skin meshes",
            self.softskins
                .iter()
                .map(|s| {
                    format!(
                        "{} vertices, {} triangles, {} nodes",
                        s.mesh.positions.len(),
                        s.mesh.triangle_count(),
                        s.nodes.len()
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        ));
        v.push((
            "attachments",
            self.attachments
                .iter()
                .map(|(n, a)| format!("{n} ({} vertices)", a.positions.len()))
                .collect::<Vec<_>>()
                .join(", "),
        ));
        let mut tex: Vec<String> = self
            .softskins
            .iter()
            .map(|s| &s.mesh)
            .chain(self.attachments.iter().map(|(_, a)| a))
            .flat_map(|m| m.submeshes.iter().filter_map(|s| s.texture.clone()))
            .collect();
        tex.sort();
        tex.dedup();
        v.push(("textures", tex.join(", ")));
        v
    }
}

/// A morph animation: which vertices it moves, and their offsets per frame.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphAnimation {
    pub name: String,
    pub head: MorphAnimationHead,
    pub vertices: Vec<u32>,
    /// `frame_count × vertices` offsets, frame by frame.
    pub samples: Vec<[f32; 3]>,
}

/// A morph mesh (head).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphMesh {
    pub name: String,
    pub mesh: Option<Mrm>,
    pub morph_positions: Vec<[f32; 3]>,
    pub animations: Vec<MorphAnimation>,
    pub sources: Vec<String>,
}

impl MorphMesh {
    pub fn read(file: &ChunkFile) -> Result<MorphMesh, DecodeError> {
        let offsets = file.payload_offsets();
        let mut m = MorphMesh::default();
        for (i, c) in file.chunks.iter().enumerate() {
            m.chunk(c.id, c.data.as_bytes(), offsets[i])
                .map_err(|e| in_chunk(e, i))?;
        }
        Ok(m)
    }

    fn chunk(&mut self, id: u16, payload: &[u8], base: u64) -> Result<(), DecodeError> {
        let m = self;
        let mut cur = Cursor::new(payload, base);
        match id {
            MMB_HEADER => {
                cur.u32().within("version")?;
                m.name = line(&mut cur).within("name")?;
            }
            MRM_MESH => m.mesh = Some(Mrm::read(payload, base)?),
            MRM_AFTER => {
                let n = m.mesh.as_ref().map_or(0, |x| x.positions.len());
                let n = cur.check_count(n as u64, 12).within("morph_positions")?;
                for k in 0..n {
                    let p = cur
                        .read::<super::mrm::Point>()
                        .within_index(k)
                        .within("morph_positions")?;
                    m.morph_positions.push(p.xyz.map(F32::get));
                }
            }
            MMB_SOURCES => {
                let count = cur.u16().within("count")?;
                let count = cur.check_count(u64::from(count), 17).within("count")?;
                for k in 0..count {
                    let s = super::doc::read_source(&mut cur)
                        .within_index(k)
                        .within("sources")?;
                    m.sources.push(unline(s.file));
                }
            }
            MMB_ANIMATIONS => {
                let count = cur.u16().within("count")?;
                let count = cur
                    .check_count(u64::from(count), 1 + MORPH_ANIMATION_HEAD_SIZE)
                    .within("count")?;
                for k in 0..count {
                    let a = read_morph_animation(&mut cur)
                        .within_index(k)
                        .within("animations")?;
                    m.animations.push(a);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

fn read_morph_animation(cur: &mut Cursor<'_>) -> Result<MorphAnimation, DecodeError> {
    let a = super::doc::read_animation(cur)?;
    Ok(MorphAnimation {
        name: unline(a.name),
        head: MorphAnimationHead {
            blend_in: a.blend_in,
            blend_out: a.blend_out,
            duration: a.duration,
            layer: a.layer,
            speed: a.speed,
            flags: a.flags,
            vertex_count: a.vertices.len() as u32,
            frame_count: a.frames.len() as u32,
        },
        vertices: a.vertices,
        samples: a
            .frames
            .into_iter()
            .flatten()
            .map(|p| p.xyz.map(F32::get))
            .collect(),
    })
}

/// A line's text as the engine uses it (a `\r` before its end dropped).
fn unline(t: crate::exact::Text) -> String {
    let b = t.as_bytes();
    text(b.strip_suffix(b"\r").unwrap_or(b))
}
