//! The multi-resolution mesh (`zCProgMeshProto`) in a 0xB100 chunk: a head (version, size of
//! the data block), the data block (positions, normals and each sub-mesh's arrays), the table
//! of where each array lies in the block (offset, item count), the materials as a ZenGin
//! archive, then (0x905) an alpha-test byte, the bounding box, the oriented box and padding.
//!
//! This is a read-only view over the stored payload (the payload itself is kept as stored).

use crate::exact::{Cursor, DecodeError, Within, F32};
use crate::zengin::types::Vec3;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Gothic 1 meshes.
pub const VERSION_G1: u16 = 0x305;
/// Gothic 2 meshes.
pub const VERSION_G2: u16 = 0x905;

crate::record! {
    /// The chunk's first fields.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Head: little plain {
        pub version: u16,
        /// Bytes of the data block that follows.
        pub data_size: u32,
    }
}
pub const HEAD_SIZE: usize = 6;

crate::record! {
    /// Where an array lies in the data block: byte offset from the block's start, item count.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub struct Section: little plain {
        pub offset: u32,
        pub count: u32,
    }
}

crate::record! {
    /// After the data block: the sub-mesh count and the shared arrays (byte order: [`Section`]'s).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Table: little plain {
        pub submesh_count: u8,
        pub positions: Section,
        pub normals: Section,
    }
}
pub const TABLE_SIZE: usize = 17;

crate::record! {
    /// A sub-mesh's arrays, in the stored order (byte order: [`Section`]'s).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct SubmeshTable: little plain {
        pub triangles: Section,
        pub wedges: Section,
        pub colors: Section,
        pub triangle_plane_indices: Section,
        pub triangle_planes: Section,
        pub wedge_map: Section,
        pub vertex_updates: Section,
        pub triangle_edges: Section,
        pub edges: Section,
        pub edge_scores: Section,
    }
}
pub const SUBMESH_TABLE_SIZE: usize = 80;

crate::record! {
    /// A position (x, y, z), in centimetres. YAML: `[x, y, z]`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(transparent)]
    pub struct Point: little plain {
        pub xyz: Vec3,
    }
}

crate::record! {
    /// A triangle: three wedge indices. YAML: `[a, b, c]`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(transparent)]
    pub struct Triangle: little plain {
        pub wedges: [u16; 3],
    }
}

crate::record! {
    /// A wedge: a corner's normal and texture coordinates, and the position it uses.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Wedge: little plain {
        pub normal: Vec3,
        pub uv: [F32; 2],
        /// Index into the mesh's `positions`.
        pub vertex: u16,
        /// Two bytes the engine leaves as they were in memory (shown when not 0).
        #[serde(default, skip_serializing_if = "is_zero")]
        pub padding: u16,
    }
}

fn is_zero(v: &u16) -> bool {
    *v == 0
}

crate::record! {
    /// A triangle's plane: distance from the origin, then the normal.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Plane: little plain {
        pub distance: F32,
        pub normal: Vec3,
    }

    /// A level-of-detail step: how many triangles and wedges it adds. YAML: `[triangles, wedges]`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(transparent)]
    pub struct VertexUpdate: little plain {
        pub added: [u16; 2],
    }

    /// A triangle's three edges (indices into `edges`). YAML: `[a, b, c]`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(transparent)]
    pub struct TriangleEdges: little plain {
        pub edges: [u16; 3],
    }

    /// An edge: two wedge indices. YAML: `[a, b]`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(transparent)]
    pub struct Edge: little plain {
        pub wedges: [u16; 2],
    }

    /// One number of a list of 16-bit indices (wedge map, plane indices).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(transparent)]
    pub struct Index16: little plain {
        pub value: u16,
    }

    /// One number of a list of floats (colours, edge scores).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(transparent)]
    pub struct Float: little plain {
        pub value: F32,
    }
}

/// A sub-mesh: triangles over its own wedges, and its material's texture.
#[derive(Debug, Clone, PartialEq)]
pub struct Submesh {
    pub triangles: Vec<Triangle>,
    pub wedges: Vec<Wedge>,
    /// The material's name and texture file (`.TGA` as the material names it), when the
    /// materials archive could be read.
    pub material: Option<String>,
    pub texture: Option<String>,
}

/// The decoded geometry of a 0xB100 chunk.
#[derive(Debug, Clone, PartialEq)]
pub struct Mrm {
    pub version: u16,
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub submeshes: Vec<Submesh>,
}

/// `count` records of `SIZE` bytes at `section` of the data block `block` (which starts at
/// absolute offset `base`); the count is checked against the bytes there first.
pub(super) fn array<T, const SIZE: usize>(
    block: &[u8],
    base: u64,
    section: Section,
) -> Result<Vec<T>, DecodeError>
where
    T: crate::exact::Record,
{
    let start = section.offset as usize;
    let Some(bytes) = block.get(start..) else {
        return Err(DecodeError::invalid(
            base,
            format!(
                "offset {} lies past the end of the {}-byte data block",
                section.offset,
                block.len()
            ),
        ))
        .within("offset");
    };
    let mut cur = Cursor::new(bytes, base + start as u64);
    let n = cur
        .check_count(u64::from(section.count), SIZE)
        .within("count")?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(cur.read::<T>().within_index(i)?);
    }
    Ok(out)
}

/// The fixed frame of a 0xB100 payload: its head, the data block the tables point into (and
/// where it starts in the file), the table and the sub-mesh tables, and the cursor after them
/// (at the materials). Read once for the geometry view ([`Mrm`]) and the YAML
/// ([`super::mrm_doc::MeshDoc`]).
pub(super) struct Layout<'a> {
    pub cur: Cursor<'a>,
    pub head: Head,
    pub block_base: u64,
    pub block: &'a [u8],
    pub table: Table,
    pub tables: Vec<SubmeshTable>,
}

impl<'a> Layout<'a> {
    pub fn read(payload: &'a [u8], base: u64) -> Result<Layout<'a>, DecodeError> {
        let mut cur = Cursor::new(payload, base);
        let head = cur.read::<Head>().within("head")?;
        let block_base = cur.offset();
        let n = cur
            .check_count(u64::from(head.data_size), 1)
            .within("data_size")?;
        let block = cur.bytes(n)?;
        let table = cur.read::<Table>().within("table")?;
        let count = cur
            .check_count(u64::from(table.submesh_count), SUBMESH_TABLE_SIZE)
            .within("submesh_count")?;
        let mut tables = Vec::with_capacity(count);
        for i in 0..count {
            tables.push(
                cur.read::<SubmeshTable>()
                    .within_index(i)
                    .within("submeshes")?,
            );
        }
        Ok(Layout {
            cur,
            head,
            block_base,
            block,
            table,
            tables,
        })
    }
}

impl Mrm {
    /// Read the geometry of a 0xB100 payload that starts at absolute offset `base`.
    pub fn read(payload: &[u8], base: u64) -> Result<Mrm, DecodeError> {
        let Layout {
            cur,
            head,
            block_base,
            block,
            table,
            tables,
        } = Layout::read(payload, base)?;
        let count = tables.len();
        let materials = read_materials(cur.unread(), count);
        let positions: Vec<Point> =
            array::<Point, 12>(block, block_base, table.positions).within("positions")?;
        let normals: Vec<Point> =
            array::<Point, 12>(block, block_base, table.normals).within("normals")?;
        let mut submeshes = Vec::with_capacity(count);
        for (i, t) in tables.iter().enumerate() {
            let triangles = array::<Triangle, 6>(block, block_base, t.triangles)
                .within("triangles")
                .within_index(i)
                .within("submeshes")?;
            let wedges = array::<Wedge, 24>(block, block_base, t.wedges)
                .within("wedges")
                .within_index(i)
                .within("submeshes")?;
            let (material, texture) = materials.get(i).cloned().unwrap_or((None, None));
            submeshes.push(Submesh {
                triangles,
                wedges,
                material,
                texture,
            });
        }
        Ok(Mrm {
            version: head.version,
            positions: positions.into_iter().map(|p| p.xyz.map(F32::get)).collect(),
            normals: normals.into_iter().map(|p| p.xyz.map(F32::get)).collect(),
            submeshes,
        })
    }

    pub fn triangle_count(&self) -> usize {
        self.submeshes.iter().map(|s| s.triangles.len()).sum()
    }
}

/// The (name, texture) of each material in a materials archive (BINARY or ASCII ZenGin
/// archive), as far as it can be read; what cannot be read is `None`.
pub fn read_materials(data: &[u8], count: usize) -> Vec<(Option<String>, Option<String>)> {
    let text = |b: &[u8]| encoding_rs::WINDOWS_1252.decode(b).0.into_owned();
    let mut out = vec![(None, None); count];
    let Some(kind_at) = find(data, b"zCArchiverGeneric\n").map(|p| p + 18) else {
        return out;
    };
    let rest = &data[kind_at..];
    if rest.starts_with(b"ASCII") {
        // `name=string:...` and `texture=string:...` lines, one block per material
        let end = find(rest, b"\n[]").unwrap_or(rest.len());
        let mut k = 0usize;
        for line in rest[..end].split(|&b| b == b'\n') {
            let line = line.trim_ascii();
            if let Some(v) = line.strip_prefix(b"name=string:") {
                if k < count && out[k].0.is_none() {
                    out[k].0 = Some(text(v));
                }
            } else if let Some(v) = line.strip_prefix(b"texture=string:") {
                if k < count {
                    out[k].1 = (!v.is_empty()).then(|| text(v));
                }
                k += 1;
            }
        }
        return out;
    }
    if !rest.starts_with(b"BINARY") || rest.starts_with(b"BIN_SAFE") {
        return out;
    }
    // header lines up to the second `END\n`, then an empty line
    let Some(objects) = find(rest, b"objects ") else {
        return out;
    };
    let Some(end) = find(&rest[objects..], b"END\n").map(|e| objects + e + 4) else {
        return out;
    };
    let mut at = end;
    if rest.get(at) == Some(&b'\n') {
        at += 1;
    }
    let mut cur = Cursor::new(&rest[at..], 0);
    for slot in out.iter_mut() {
        let one = |cur: &mut Cursor<'_>| -> Result<(String, String), DecodeError> {
            cur.until(0)?; // the material's name as the mesh stores it
            cur.bytes(4 + 2 + 4)?; // object chunk: size, version, index
            cur.until(0)?; // object name (`%`)
            cur.until(0)?; // class name (`zCMaterial`)
            let name = text(cur.until(0)?);
            cur.bytes(1 + 4 + 4)?; // group, colour, smoothing angle
            let texture = text(cur.until(0)?);
            Ok((name, texture))
        };
        let start = cur.clone();
        match one(&mut cur) {
            Ok((name, texture)) => {
                *slot = (Some(name), (!texture.is_empty()).then_some(texture));
                // the next material starts where the object's size (counted from its own
                // first byte) ends
                let mut c2 = start;
                let size = c2.until(0).and_then(|_| c2.u32()).map(|s| s as usize);
                let Ok(size) = size else { break };
                let from = c2.position() - 4;
                cur = Cursor::new(&rest[at..], 0);
                if cur.bytes(from.saturating_add(size)).is_err() {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}
