//! The YAML form of a multi-resolution mesh chunk (0xB100): every array of the data block as a
//! list (one flow line per vertex, wedge, plane...), the materials with their names and
//! textures as fields, and what lies after them (bounding boxes) as hex.
//!
//! Written back, the data block is laid out as the engine writes it (positions, normals, then
//! each sub-mesh's triangles, wedges, wedge map, colours, vertex updates, plane indices, planes,
//! triangle edges, edges, edge scores), the section table and the sizes computed from the lists.
//! A chunk laid out otherwise does not come back identical, so the export keeps it as hex.

use super::mrm::{
    array, Edge, Float, Head, Index16, Layout, Plane, Point, Section, SubmeshTable, Table,
    Triangle, TriangleEdges, VertexUpdate, Wedge,
};
use crate::exact::{
    Blob, Cursor, DecodeError, EncodeError, Hex32, Record, Text, Within, Writer, F32,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

crate::record! {
    /// A BINARY archive's object head: the object's size (from this field's first byte to the
    /// object's end; computed when written), its class version and its index.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct ObjectHead: little plain {
        pub size: u32,
        pub version: u16,
        pub index: u32,
    }

    /// A material's fixed fields between its name and its texture.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct MaterialFixed: little plain {
        pub group: u8,
        pub color: Hex32,
        pub smooth_angle: F32,
    }
}

/// One sub-mesh's arrays.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmeshDoc {
    /// Three wedge indices each.
    pub triangles: Vec<Triangle>,
    /// A corner: normal, texture coordinates and the position it uses.
    pub wedges: Vec<Wedge>,
    pub wedge_map: Vec<Index16>,
    pub colors: Vec<Float>,
    /// Level-of-detail steps: triangles and wedges each adds.
    pub vertex_updates: Vec<VertexUpdate>,
    pub triangle_plane_indices: Vec<Index16>,
    pub triangle_planes: Vec<Plane>,
    pub triangle_edges: Vec<TriangleEdges>,
    pub edges: Vec<Edge>,
    pub edge_scores: Vec<Float>,
}

/// A material of the materials archive (a `zCMaterial` object of a BINARY ZenGin archive).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MaterialDoc {
    /// The name stored before the object.
    pub name: Text,
    /// The object's class version and index in the archive.
    pub version: u16,
    pub index: u32,
    /// The object's name (`%`) and class (`zCMaterial`).
    pub object: Text,
    pub class: Text,
    /// The material's own name field.
    pub material: Text,
    pub group: u8,
    pub color: Hex32,
    pub smooth_angle: F32,
    /// The texture file the material uses (`NAME.TGA`; the game loads `NAME-C.TEX`).
    pub texture: Text,
    /// The object's other fields as stored (hex).
    pub rest: Blob,
}

/// A 0xB100 chunk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeshDoc {
    /// 0x305 (773): Gothic 1; 0x905 (2309): Gothic 2.
    pub version: u16,
    /// Vertex positions `[x, y, z]` in centimetres.
    pub positions: Vec<Point>,
    pub normals: Vec<Point>,
    pub submeshes: Vec<SubmeshDoc>,
    /// The materials archive's header (hex), up to its first material.
    pub archive: Blob,
    /// One per sub-mesh, in order.
    pub materials: Vec<MaterialDoc>,
    /// After the materials: the alpha-test byte (0x905), the bounding box, the oriented box
    /// tree and padding (hex).
    pub tail: Blob,
}

impl MeshDoc {
    /// The mesh in a 0xB100 payload that starts at absolute offset `base`.
    pub fn read(payload: &[u8], base: u64) -> Result<MeshDoc, DecodeError> {
        let Layout {
            mut cur,
            head,
            block_base,
            block,
            table,
            tables,
        } = Layout::read(payload, base)?;
        let b = block_base;
        let positions = array::<Point, 12>(block, b, table.positions).within("positions")?;
        let normals = array::<Point, 12>(block, b, table.normals).within("normals")?;
        let count = tables.len();
        let mut submeshes = Vec::with_capacity(count);
        for (i, t) in tables.iter().enumerate() {
            let s = (|| {
                Ok::<_, DecodeError>(SubmeshDoc {
                    triangles: array::<_, 6>(block, b, t.triangles).within("triangles")?,
                    wedges: array::<_, 24>(block, b, t.wedges).within("wedges")?,
                    wedge_map: array::<_, 2>(block, b, t.wedge_map).within("wedge_map")?,
                    colors: array::<_, 4>(block, b, t.colors).within("colors")?,
                    vertex_updates: array::<_, 4>(block, b, t.vertex_updates)
                        .within("vertex_updates")?,
                    triangle_plane_indices: array::<_, 2>(block, b, t.triangle_plane_indices)
                        .within("triangle_plane_indices")?,
                    triangle_planes: array::<_, 16>(block, b, t.triangle_planes)
                        .within("triangle_planes")?,
                    triangle_edges: array::<_, 6>(block, b, t.triangle_edges)
                        .within("triangle_edges")?,
                    edges: array::<_, 4>(block, b, t.edges).within("edges")?,
                    edge_scores: array::<_, 4>(block, b, t.edge_scores).within("edge_scores")?,
                })
            })();
            submeshes.push(s.within_index(i).within("submeshes")?);
        }
        let (archive, materials, tail) = read_archive(&mut cur, count).within("materials")?;
        Ok(MeshDoc {
            version: head.version,
            positions,
            normals,
            submeshes,
            archive,
            materials,
            tail,
        })
    }

    /// The 0xB100 payload.
    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let mut block: Vec<u8> = Vec::new();
        fn put_all<T: Record + crate::exact::record::Plain>(
            block: &mut Vec<u8>,
            items: &[T],
        ) -> Result<Section, EncodeError> {
            let offset = u32::try_from(block.len())
                .map_err(|_| EncodeError::new("the mesh's data block passes 4 GiB"))?;
            for x in items {
                block.put_plain(x);
            }
            let count = u32::try_from(items.len())
                .map_err(|_| EncodeError::new("more items than a mesh can hold"))?;
            Ok(Section { offset, count })
        }
        self.check_indices()?;
        let positions = put_all(&mut block, &self.positions).within("positions")?;
        let normals = put_all(&mut block, &self.normals).within("normals")?;
        let mut tables = Vec::with_capacity(self.submeshes.len());
        for (i, s) in self.submeshes.iter().enumerate() {
            let t = (|| {
                let triangles = put_all(&mut block, &s.triangles)?;
                let wedges = put_all(&mut block, &s.wedges)?;
                let wedge_map = put_all(&mut block, &s.wedge_map)?;
                let colors = put_all(&mut block, &s.colors)?;
                let vertex_updates = put_all(&mut block, &s.vertex_updates)?;
                let triangle_plane_indices = put_all(&mut block, &s.triangle_plane_indices)?;
                let triangle_planes = put_all(&mut block, &s.triangle_planes)?;
                let triangle_edges = put_all(&mut block, &s.triangle_edges)?;
                let edges = put_all(&mut block, &s.edges)?;
                let edge_scores = put_all(&mut block, &s.edge_scores)?;
                Ok::<_, EncodeError>(SubmeshTable {
                    triangles,
                    wedges,
                    colors,
                    triangle_plane_indices,
                    triangle_planes,
                    wedge_map,
                    vertex_updates,
                    triangle_edges,
                    edges,
                    edge_scores,
                })
            })();
            tables.push(t.within_index(i).within("submeshes")?);
        }
        let submesh_count = u8::try_from(self.submeshes.len()).map_err(|_| {
            EncodeError::new(format!(
                "{} sub-meshes; a mesh holds at most 255",
                self.submeshes.len()
            ))
            .in_field("submeshes")
        })?;
        if self.materials.len() != self.submeshes.len() {
            return Err(EncodeError::new(format!(
                "{} materials for {} sub-meshes: the game reads one material per sub-mesh; \
                 add or remove materials to match",
                self.materials.len(),
                self.submeshes.len()
            ))
            .in_field("materials"));
        }
        out.put_plain(&Head {
            version: self.version,
            data_size: block.len() as u32,
        });
        out.extend_from_slice(&block);
        out.put_plain(&Table {
            submesh_count,
            positions,
            normals,
        });
        for t in &tables {
            out.put_plain(t);
        }
        out.extend_from_slice(self.archive.as_bytes());
        for (i, m) in self.materials.iter().enumerate() {
            m.write(out).within_index(i).within("materials")?;
        }
        out.extend_from_slice(self.tail.as_bytes());
        Ok(())
    }
}

impl MeshDoc {
    /// Every wedge uses a position, every triangle three wedges, of the lists there are.
    fn check_indices(&self) -> Result<(), EncodeError> {
        let np = self.positions.len();
        for (i, s) in self.submeshes.iter().enumerate() {
            let at = |e: EncodeError, list: &'static str, k: usize| {
                Err::<(), _>(e)
                    .within_index(k)
                    .within(list)
                    .within_index(i)
                    .within("submeshes")
            };
            for (k, w) in s.wedges.iter().enumerate() {
                if usize::from(w.vertex) >= np {
                    at(
                        EncodeError::new(format!(
                            "vertex {} does not exist: the mesh has {np} positions",
                            w.vertex
                        )),
                        "wedges",
                        k,
                    )?;
                }
            }
            let nw = s.wedges.len();
            for (k, t) in s.triangles.iter().enumerate() {
                if let Some(&bad) = t.wedges.iter().find(|&&x| usize::from(x) >= nw) {
                    at(
                        EncodeError::new(format!(
                            "wedge {bad} does not exist: the sub-mesh has {nw} wedges"
                        )),
                        "triangles",
                        k,
                    )?;
                }
            }
        }
        Ok(())
    }
}

trait InField {
    fn in_field(self, name: &'static str) -> Self;
}
impl InField for EncodeError {
    fn in_field(self, name: &'static str) -> Self {
        match Err::<(), _>(self).within(name) {
            Err(e) => e,
            Ok(()) => unreachable!("an error stays an error"),
        }
    }
}

fn put_cstr(out: &mut Vec<u8>, t: &Text, field: &'static str) -> Result<(), EncodeError> {
    if t.as_bytes().contains(&0) {
        return Err(EncodeError::new(
            "text contains a NUL character, which ends an archive string; remove it",
        )
        .in_field(field));
    }
    out.extend_from_slice(t.as_bytes());
    out.push(0);
    Ok(())
}

impl MaterialDoc {
    fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        put_cstr(out, &self.name, "name")?;
        let at = out.len();
        out.put_plain(&ObjectHead {
            size: 0,
            version: self.version,
            index: self.index,
        });
        put_cstr(out, &self.object, "object")?;
        put_cstr(out, &self.class, "class")?;
        put_cstr(out, &self.material, "material")?;
        out.put_plain(&MaterialFixed {
            group: self.group,
            color: self.color,
            smooth_angle: self.smooth_angle,
        });
        put_cstr(out, &self.texture, "texture")?;
        out.extend_from_slice(self.rest.as_bytes());
        let size = u32::try_from(out.len() - at)
            .map_err(|_| EncodeError::new("a material passes 4 GiB"))?;
        out[at..at + 4].copy_from_slice(&size.to_le_bytes());
        Ok(())
    }
}

/// The materials archive after the section tables: its header, `count` materials, the rest.
fn read_archive(
    cur: &mut Cursor<'_>,
    count: usize,
) -> Result<(Blob, Vec<MaterialDoc>, Blob), DecodeError> {
    let data = cur.unread();
    let find = |hay: &[u8], n: &[u8]| memchr::memmem::find(hay, n);
    let kind = find(data, b"zCArchiverGeneric\n").map(|p| p + 18);
    if !kind.is_some_and(|k| data[k..].starts_with(b"BINARY\n")) {
        return Err(cur.invalid("not a BINARY ZenGin archive (kept as hex)"));
    }
    let header_end = find(data, b"objects ")
        .and_then(|o| find(&data[o..], b"END\n").map(|e| o + e + 4))
        .ok_or_else(|| cur.invalid("the archive header has no `objects` line and END"))?;
    let mut at = header_end;
    if data.get(at) == Some(&b'\n') {
        at += 1;
    }
    let archive = Blob::new(cur.bytes(at)?);
    cur.check_count(count as u64, 20)?;
    let mut materials = Vec::with_capacity(count);
    for i in 0..count {
        let m = (|| {
            let name = Text::new(cur.until(0).within("name")?);
            let start = cur.position();
            let head = cur.read::<ObjectHead>()?;
            let object = Text::new(cur.until(0).within("object")?);
            let class = Text::new(cur.until(0).within("class")?);
            let material = Text::new(cur.until(0).within("material")?);
            let fixed = cur.read::<MaterialFixed>()?;
            let texture = Text::new(cur.until(0).within("texture")?);
            let end = start as u64 + u64::from(head.size);
            let now = cur.position() as u64;
            if end < now {
                return Err(cur.invalid(format!(
                    "the object's size {} ends before its texture field",
                    head.size
                )))
                .within("size");
            }
            let rest = Blob::new(cur.bytes((end - now) as usize).within("rest")?);
            Ok::<_, DecodeError>(MaterialDoc {
                name,
                version: head.version,
                index: head.index,
                object,
                class,
                material,
                group: fixed.group,
                color: fixed.color,
                smooth_angle: fixed.smooth_angle,
                texture,
                rest,
            })
        })();
        materials.push(m.within_index(i)?);
    }
    Ok((archive, materials, Blob::new(cur.rest())))
}
