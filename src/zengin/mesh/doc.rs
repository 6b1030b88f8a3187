//! The YAML form of a mesh file's chunks: each known chunk's records as named fields (headers,
//! names, the mesh, weights, morph positions, morph animations), anything else as hex `data`.
//!
//! A chunk is shown decoded only when its fields write back to the very bytes stored; one that
//! does not (damaged, laid out otherwise than the engine writes it) stays hex, so export and
//! import are byte-exact for every file.

use super::mrm::Point;
use super::mrm_doc::MeshDoc;
use super::records::{
    Weight, MDM_HEADER, MDM_NODES, MDM_SOFTSKINS, MDM_SOURCE, MMB_ANIMATIONS, MMB_HEADER,
    MMB_SOURCES, MRM_AFTER, MRM_MESH, SKIN_HEADER,
};
use super::RawChunk;
use crate::exact::{
    Blob, Cursor, DecodeError, EncodeError, Hex32, Record, Text, Within, Writer, F32,
};
use crate::zengin::chunk::Hex16;
use crate::zengin::types::{put_line, read_line, Vec3, ZDate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which file the chunks are of (a 0xB1FF chunk holds weights in a model mesh, morph positions
/// in a morph mesh).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Model,
    Morph,
}

crate::record! {
    /// A soft-skin wedge normal: the normal and the index it belongs to.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct WedgeNormal: little plain {
        pub normal: Vec3,
        pub index: u32,
    }

    /// The model mesh's soft-skin list chunk (0xD030).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct SoftSkinList: little plain {
        /// Checksum of the hierarchy's node names (as in the MDH).
        pub checksum: Hex32,
        /// How many soft-skin meshes follow.
        pub count: u16,
    }

    /// A version word (the model mesh header 0xD000, the soft-skin header 0xE100).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct VersionHead: little plain {
        pub version: Hex32,
    }
}

/// A source file: its date and name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceDoc {
    pub date: ZDate,
    pub file: Text,
}

/// The morph mesh header (0xE020).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MorphHeaderDoc {
    pub version: u32,
    pub name: Text,
}

/// A soft-skin mesh's weights chunk (0xB1FF after its mesh).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WeightsDoc {
    /// For each vertex of the mesh before (same order as its `positions`): the bones that move
    /// it, each with its weight and the vertex position in that bone's space.
    pub weights: Vec<Vec<Weight>>,
    pub wedge_normals: Vec<WedgeNormal>,
    /// The hierarchy nodes the mesh uses (indices into the MDH's nodes).
    pub nodes: Vec<i32>,
    /// Each node's oriented bounding box (hex).
    pub bboxes: Blob,
}

/// A morph animation (a face expression or viseme).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MorphAnimationDoc {
    pub name: Text,
    pub blend_in: F32,
    pub blend_out: F32,
    /// Milliseconds.
    pub duration: F32,
    pub layer: i32,
    pub speed: F32,
    pub flags: u8,
    /// The mesh vertices the animation moves.
    pub vertices: Vec<u32>,
    /// One list per frame: for each of `vertices`, its offset `[x, y, z]`.
    pub frames: Vec<Vec<Point>>,
}

/// A chunk as written in YAML: its id, a name for people, and either its decoded fields (one
/// of the optional fields, by the chunk's id) or its payload as hex (`data`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChunkDoc {
    pub id: Hex16,
    /// What the chunk is, for people; ignored on import (`id` decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The payload as hex: a chunk animkit does not decode, or one whose bytes its fields do
    /// not reproduce.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Blob>,
    /// 0xD000 model mesh header, 0xE100 soft-skin header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<VersionHead>,
    /// 0xD010 model mesh source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceDoc>,
    /// 0xD020: the names of the nodes the node-attached meshes (the 0xB100 chunks that follow)
    /// hang on, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<Text>>,
    /// 0xD030 soft-skin list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub softskins: Option<SoftSkinList>,
    /// 0xB100 multi-resolution mesh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<MeshDoc>,
    /// 0xB1FF after a soft-skin mesh: its weights.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<WeightsDoc>,
    /// 0xB1FF in a morph mesh: the morph reference position of each vertex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub morph_positions: Option<Vec<Point>>,
    /// 0xE020 morph mesh header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub morph_header: Option<MorphHeaderDoc>,
    /// 0xE010 morph mesh sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<SourceDoc>>,
    /// 0xE030 morph animations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub animations: Option<Vec<MorphAnimationDoc>>,
}

impl ChunkDoc {
    fn hex(id: u16, kind: &str, data: &[u8]) -> ChunkDoc {
        ChunkDoc {
            id: Hex16(id),
            kind: Some(kind.into()),
            data: Some(Blob::new(data)),
            header: None,
            source: None,
            nodes: None,
            softskins: None,
            mesh: None,
            weights: None,
            morph_positions: None,
            morph_header: None,
            sources: None,
            animations: None,
        }
    }

    /// The decoded fields present, by name.
    fn bodies(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        let mut add = |present: bool, name| {
            if present {
                v.push(name)
            }
        };
        add(self.data.is_some(), "data");
        add(self.header.is_some(), "header");
        add(self.source.is_some(), "source");
        add(self.nodes.is_some(), "nodes");
        add(self.softskins.is_some(), "softskins");
        add(self.mesh.is_some(), "mesh");
        add(self.weights.is_some(), "weights");
        add(self.morph_positions.is_some(), "morph_positions");
        add(self.morph_header.is_some(), "morph_header");
        add(self.sources.is_some(), "sources");
        add(self.animations.is_some(), "animations");
        v
    }

    /// The payload the document's fields stand for. `vertices`: the position count of the
    /// last mesh before this chunk (what weights and morph positions must match).
    fn payload(&self, vertices: Option<usize>) -> Result<Vec<u8>, EncodeError> {
        let bodies = self.bodies();
        let body = match bodies.as_slice() {
            [one] => *one,
            [] => {
                return Err(EncodeError::new(
                    "a chunk needs its payload: `data` (hex) or its decoded fields",
                ))
            }
            more => {
                return Err(EncodeError::new(format!(
                    "a chunk holds one payload, this one has {}: keep one",
                    more.join(", ")
                )))
            }
        };
        let id = self.id.0;
        let expected = match body {
            "data" => None,
            "header" => Some(&[MDM_HEADER, SKIN_HEADER][..]),
            "source" => Some(&[MDM_SOURCE][..]),
            "nodes" => Some(&[MDM_NODES][..]),
            "softskins" => Some(&[MDM_SOFTSKINS][..]),
            "mesh" => Some(&[MRM_MESH][..]),
            "weights" | "morph_positions" => Some(&[MRM_AFTER][..]),
            "morph_header" => Some(&[MMB_HEADER][..]),
            "sources" => Some(&[MMB_SOURCES][..]),
            _ => Some(&[MMB_ANIMATIONS][..]),
        };
        if let Some(ids) = expected {
            if !ids.contains(&id) {
                return Err(EncodeError::new(format!(
                    "`{body}` is the payload of a 0x{:04X} chunk, this chunk's id is 0x{id:04X}: \
                     change the id or give `data`",
                    ids[0]
                )));
            }
        }
        let mut out = Vec::new();
        if let Some(d) = &self.data {
            out.extend_from_slice(d.as_bytes());
        } else if let Some(h) = &self.header {
            out.put_plain(h);
        } else if let Some(s) = &self.source {
            put_source(&mut out, s).within("source")?;
        } else if let Some(n) = &self.nodes {
            put_count16(&mut out, n.len()).within("nodes")?;
            for (i, t) in n.iter().enumerate() {
                put_line(&mut out, t).within_index(i).within("nodes")?;
            }
        } else if let Some(s) = &self.softskins {
            out.put_plain(s);
        } else if let Some(m) = &self.mesh {
            m.write(&mut out).within("mesh")?;
        } else if let Some(w) = &self.weights {
            put_weights(&mut out, w, vertices).within("weights")?;
        } else if let Some(p) = &self.morph_positions {
            if let Some(n) = vertices {
                if p.len() != n {
                    return Err(EncodeError::new(format!(
                        "{} morph positions, but the mesh before has {n} positions: the game \
                         reads one per position; give {n}",
                        p.len()
                    )))
                    .within("morph_positions");
                }
            }
            for x in p {
                out.put_plain(x);
            }
        } else if let Some(h) = &self.morph_header {
            out.put_u32(h.version);
            put_line(&mut out, &h.name)
                .within("name")
                .within("morph_header")?;
        } else if let Some(s) = &self.sources {
            put_count16(&mut out, s.len()).within("sources")?;
            for (i, x) in s.iter().enumerate() {
                put_source(&mut out, x).within_index(i).within("sources")?;
            }
        } else if let Some(a) = &self.animations {
            put_count16(&mut out, a.len()).within("animations")?;
            for (i, x) in a.iter().enumerate() {
                put_animation(&mut out, x)
                    .within_index(i)
                    .within("animations")?;
            }
        }
        Ok(out)
    }
}

fn put_count16(out: &mut Vec<u8>, n: usize) -> Result<(), EncodeError> {
    let n = u16::try_from(n)
        .map_err(|_| EncodeError::new(format!("{n} items; the count is 16-bit (at most 65535)")))?;
    out.put_u16(n);
    Ok(())
}

fn put_source(out: &mut Vec<u8>, s: &SourceDoc) -> Result<(), EncodeError> {
    out.put_plain(&s.date);
    put_line(out, &s.file).within("file")
}

pub(super) fn read_source(cur: &mut Cursor<'_>) -> Result<SourceDoc, DecodeError> {
    Ok(SourceDoc {
        date: cur.read::<ZDate>().within("date")?,
        file: read_line(cur).within("file")?,
    })
}

fn put_weights(
    out: &mut Vec<u8>,
    w: &WeightsDoc,
    vertices: Option<usize>,
) -> Result<(), EncodeError> {
    if let Some(n) = vertices {
        if w.weights.len() != n {
            return Err(EncodeError::new(format!(
                "weights for {} vertices, but the mesh before has {n} positions: give one list \
                 per position",
                w.weights.len()
            )))
            .within("weights");
        }
    }
    let mut block = Vec::new();
    for ws in &w.weights {
        block.put_u32(ws.len() as u32);
        for x in ws {
            block.put_plain(x);
        }
    }
    let size = u32::try_from(block.len())
        .map_err(|_| EncodeError::new("the weights pass 4 GiB"))
        .within("weights")?;
    out.put_u32(size);
    out.extend_from_slice(&block);
    out.put_u32(w.wedge_normals.len() as u32);
    for x in &w.wedge_normals {
        out.put_plain(x);
    }
    put_count16(out, w.nodes.len()).within("nodes")?;
    for &n in &w.nodes {
        out.put_i32(n);
    }
    out.extend_from_slice(w.bboxes.as_bytes());
    Ok(())
}

/// A soft-skin weights payload for a mesh of `vertices` positions. Weights that do not fill
/// the stored block size are read as the engine reads them (the rest of the block skipped);
/// such a chunk does not write back the same and so stays hex in the YAML.
pub(super) fn read_weights(
    cur: &mut Cursor<'_>,
    vertices: usize,
) -> Result<WeightsDoc, DecodeError> {
    let size = cur.u32().within("weights_size")?;
    let n = cur.check_count(u64::from(size), 1).within("weights_size")?;
    let mut block = Cursor::new(cur.bytes(n)?, cur.offset() - n as u64);
    // every vertex takes at least its 4-byte count
    block.check_count(vertices as u64, 4).within("weights")?;
    let mut weights = Vec::with_capacity(vertices);
    for v in 0..vertices {
        let r = (|| {
            let count = block.u32()?;
            let count = block.check_count(u64::from(count), Weight::SIZE)?;
            let mut w = Vec::with_capacity(count);
            for k in 0..count {
                w.push(block.read::<Weight>().within_index(k)?);
            }
            Ok::<_, DecodeError>(w)
        })();
        weights.push(r.within_index(v).within("weights")?);
    }
    let count = cur.u32().within("wedge_normal_count")?;
    let count = cur
        .check_count(u64::from(count), WedgeNormal::SIZE)
        .within("wedge_normal_count")?;
    let mut wedge_normals = Vec::with_capacity(count);
    for k in 0..count {
        wedge_normals.push(cur.read().within_index(k).within("wedge_normals")?);
    }
    let count = cur.u16().within("node_count")?;
    let count = cur.check_count(u64::from(count), 4).within("node_count")?;
    let mut nodes = Vec::with_capacity(count);
    for k in 0..count {
        nodes.push(cur.i32().within_index(k).within("nodes")?);
    }
    Ok(WeightsDoc {
        weights,
        wedge_normals,
        nodes,
        bboxes: Blob::new(cur.rest()),
    })
}

fn put_animation(out: &mut Vec<u8>, a: &MorphAnimationDoc) -> Result<(), EncodeError> {
    put_line(out, &a.name).within("name")?;
    for (f, frame) in a.frames.iter().enumerate() {
        if frame.len() != a.vertices.len() {
            return Err(EncodeError::new(format!(
                "{} offsets, but `vertices` lists {}: give one offset per vertex in every frame",
                frame.len(),
                a.vertices.len()
            )))
            .within_index(f)
            .within("frames");
        }
    }
    let too_many = |what: &str| EncodeError::new(format!("too many {what} for a 32-bit count"));
    out.put_plain(&super::records::MorphAnimationHead {
        blend_in: a.blend_in,
        blend_out: a.blend_out,
        duration: a.duration,
        layer: a.layer,
        speed: a.speed,
        flags: a.flags,
        vertex_count: u32::try_from(a.vertices.len())
            .map_err(|_| too_many("vertices"))
            .within("vertices")?,
        frame_count: u32::try_from(a.frames.len())
            .map_err(|_| too_many("frames"))
            .within("frames")?,
    });
    for &v in &a.vertices {
        out.put_u32(v);
    }
    for frame in &a.frames {
        for p in frame {
            out.put_plain(p);
        }
    }
    Ok(())
}

/// A morph animation (name, head, vertices, an offset per vertex per frame).
pub(super) fn read_animation(cur: &mut Cursor<'_>) -> Result<MorphAnimationDoc, DecodeError> {
    let name = read_line(cur).within("name")?;
    let head = cur.read::<super::records::MorphAnimationHead>()?;
    let nv = cur
        .check_count(u64::from(head.vertex_count), 4)
        .within("vertex_count")?;
    let mut vertices = Vec::with_capacity(nv);
    for k in 0..nv {
        vertices.push(cur.u32().within_index(k).within("vertices")?);
    }
    cur.check_count(
        u64::from(head.vertex_count) * u64::from(head.frame_count),
        Point::SIZE,
    )
    .within("frame_count")?;
    // (a frame of no vertices takes no bytes: the count is bounded by the line budget below)
    if nv == 0 && head.frame_count > 1 << 16 {
        return Err(cur.invalid("more than 65536 empty frames")).within("frame_count");
    }
    let mut frames = Vec::with_capacity(head.frame_count as usize);
    for f in 0..head.frame_count as usize {
        let mut frame = Vec::with_capacity(nv);
        for k in 0..nv {
            frame.push(
                cur.read::<Point>()
                    .within_index(k)
                    .within_index(f)
                    .within("frames")?,
            );
        }
        frames.push(frame);
    }
    Ok(MorphAnimationDoc {
        name,
        blend_in: head.blend_in,
        blend_out: head.blend_out,
        duration: head.duration,
        layer: head.layer,
        speed: head.speed,
        flags: head.flags,
        vertices,
        frames,
    })
}

/// The decoded form of one chunk, `None` when it is kept as hex.
fn decode(
    doc: &mut ChunkDoc,
    payload: &[u8],
    base: u64,
    after_mesh: Option<usize>,
    kind: FileKind,
    in_skins: bool,
) -> Result<bool, DecodeError> {
    let mut cur = Cursor::new(payload, base);
    let cur = &mut cur;
    match doc.id.0 {
        MDM_HEADER | SKIN_HEADER if kind == FileKind::Model => doc.header = Some(cur.read()?),
        MDM_SOURCE if kind == FileKind::Model => doc.source = Some(read_source(cur)?),
        MDM_NODES if kind == FileKind::Model => {
            let count = cur.u16().within("node_count")?;
            let count = cur.check_count(u64::from(count), 1).within("node_count")?;
            let mut names = Vec::with_capacity(count);
            for k in 0..count {
                names.push(read_line(cur).within_index(k).within("nodes")?);
            }
            doc.nodes = Some(names);
        }
        MDM_SOFTSKINS if kind == FileKind::Model => doc.softskins = Some(cur.read()?),
        MRM_MESH => {
            doc.mesh = Some(MeshDoc::read(payload, base)?);
            return Ok(true);
        }
        MRM_AFTER if kind == FileKind::Model && in_skins => {
            let Some(n) = after_mesh else {
                return Ok(false);
            };
            doc.weights = Some(read_weights(cur, n)?);
            return Ok(true);
        }
        MRM_AFTER if kind == FileKind::Morph => {
            let n = after_mesh.unwrap_or(0);
            let n = cur.check_count(n as u64, Point::SIZE)?;
            let mut p = Vec::with_capacity(n);
            for k in 0..n {
                p.push(cur.read::<Point>().within_index(k)?);
            }
            doc.morph_positions = Some(p);
        }
        MMB_HEADER if kind == FileKind::Morph => {
            let version = cur.u32().within("version")?;
            doc.morph_header = Some(MorphHeaderDoc {
                version,
                name: read_line(cur).within("name")?,
            });
        }
        MMB_SOURCES if kind == FileKind::Morph => {
            let count = cur.u16().within("count")?;
            let count = cur.check_count(u64::from(count), 17).within("count")?;
            let mut v = Vec::with_capacity(count);
            for k in 0..count {
                v.push(read_source(cur).within_index(k)?);
            }
            doc.sources = Some(v);
        }
        MMB_ANIMATIONS if kind == FileKind::Morph => {
            let count = cur.u16().within("count")?;
            let count = cur.check_count(u64::from(count), 30).within("count")?;
            let mut v = Vec::with_capacity(count);
            for k in 0..count {
                v.push(read_animation(cur).within_index(k)?);
            }
            doc.animations = Some(v);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The YAML documents of `chunks` (payloads from absolute offset `base`).
pub fn to_docs(
    chunks: &[RawChunk],
    base: u64,
    kind: FileKind,
    name: impl Fn(u16) -> &'static str,
) -> Vec<ChunkDoc> {
    let mut out = Vec::with_capacity(chunks.len());
    let mut at = base;
    let mut in_skins = false;
    let mut last_mesh: Option<usize> = None;
    for c in chunks {
        let payload = c.data.as_bytes();
        let offset = at + crate::zengin::chunk::HEADER_SIZE as u64;
        at = offset + payload.len() as u64;
        let mut doc = ChunkDoc::hex(c.id, name(c.id), payload);
        doc.data = None;
        let after_mesh = last_mesh;
        let decoded = decode(&mut doc, payload, offset, after_mesh, kind, in_skins);
        let exact =
            matches!(decoded, Ok(true)) && doc.payload(after_mesh).is_ok_and(|p| p == payload);
        if c.id == MDM_SOFTSKINS {
            in_skins = true;
        }
        last_mesh = match (&doc.mesh, c.id) {
            (Some(m), _) if exact => Some(m.positions.len()),
            (_, MRM_MESH) => super::mrm::Mrm::read(payload, offset)
                .ok()
                .map(|m| m.positions.len()),
            _ if kind == FileKind::Morph => last_mesh,
            _ => None,
        };
        if !exact {
            doc = ChunkDoc::hex(c.id, name(c.id), payload);
        }
        out.push(doc);
    }
    out
}

/// The chunks the documents stand for; an edit that cannot be written is refused with its
/// field path (`chunks[3].mesh.materials`).
pub fn from_docs(docs: &[ChunkDoc], kind: FileKind) -> Result<Vec<RawChunk>, EncodeError> {
    let mut out = Vec::with_capacity(docs.len());
    let mut last_mesh: Option<usize> = None;
    for (i, d) in docs.iter().enumerate() {
        let payload = d.payload(last_mesh).within_index(i).within("chunks")?;
        last_mesh = match (&d.mesh, d.id.0) {
            (Some(m), _) => Some(m.positions.len()),
            (None, MRM_MESH) => super::mrm::Mrm::read(&payload, 0)
                .ok()
                .map(|m| m.positions.len()),
            _ if kind == FileKind::Morph => last_mesh,
            _ => None,
        };
        out.push(RawChunk {
            id: d.id.0,
            data: Blob::new(payload),
        });
    }
    Ok(out)
}

/// Where two chunk documents differ, by field path (at most `limit` lines).
pub fn diff_docs(a: &ChunkDoc, b: &ChunkDoc, path: &str, limit: usize, out: &mut Vec<String>) {
    let (Ok(x), Ok(y)) = (serde_json::to_value(a), serde_json::to_value(b)) else {
        return;
    };
    let mut lines = Vec::new();
    walk(&x, &y, path.to_string(), &mut lines);
    let n = lines.len();
    out.extend(lines.into_iter().take(limit));
    if n > limit {
        out.push(format!("{path}: … and {} more differences", n - limit));
    }
}

fn walk(a: &serde_json::Value, b: &serde_json::Value, path: String, out: &mut Vec<String>) {
    use serde_json::Value as V;
    if a == b {
        return;
    }
    let short = |v: &V| {
        let mut s = String::new();
        show(v, &mut s);
        if s.chars().count() > 60 {
            format!("{}…", s.chars().take(60).collect::<String>())
        } else {
            s
        }
    };
    match (a, b) {
        (V::Object(x), V::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => walk(va, vb, format!("{path}.{k}"), out),
                    None => out.push(format!("{path}.{k}: removed")),
                }
            }
            for k in y.keys().filter(|k| !x.contains_key(*k)) {
                out.push(format!("{path}.{k}: added"));
            }
        }
        (V::Array(x), V::Array(y)) if x.len() == y.len() && !x.iter().all(|v| v.is_number()) => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                walk(va, vb, format!("{path}[{i}]"), out);
            }
        }
        (V::Array(x), V::Array(y)) if x.len() != y.len() => {
            out.push(format!("{path}: {} → {} items", x.len(), y.len()));
        }
        _ => out.push(format!("{path}: {} → {}", short(a), short(b))),
    }
}

/// A value as in the YAML (floats in their shortest `f32` spelling).
fn show(v: &serde_json::Value, out: &mut String) {
    use serde_json::Value as V;
    match v {
        V::Number(n) if n.is_f64() => {
            crate::exact::float::write_f32(out, F32::new(n.as_f64().unwrap_or(0.0) as f32))
        }
        V::Array(x) => {
            out.push('[');
            for (i, e) in x.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                show(e, out);
            }
            out.push(']');
        }
        V::Object(x) => {
            out.push('{');
            for (i, (k, e)) in x.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(k);
                out.push_str(": ");
                show(e, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}
