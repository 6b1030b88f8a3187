//! `.MAN` model animations (`zCModelAni`): chunked binary with packed quaternions and
//! positions. Chunks are kept in file order; unknown chunks and bytes left over inside known
//! chunks are kept verbatim, so every file that parses is written back byte for byte.

pub mod quant;
pub mod synth;
pub mod yaml;
pub mod yaml_fast;

use crate::codec::{Codec, Companion, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{
    Blob, Cursor, DecodeError, EncodeError, FieldPath, Hex32, PutLe, Text, Within, F32,
};
use crate::zengin::chunk::{self, RawChunk};
use crate::zengin::types::{put_line, read_f32, read_line, BBox, ZDate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const ID_MARKER: u16 = 0xA000;
pub const ID_SOURCE: u16 = 0xA010;
pub const ID_HEADER: u16 = 0xA020;
pub const ID_EVENTS: u16 = 0xA030;
pub const ID_SAMPLES: u16 = 0xA090;

/// A decoded `.MAN` file: its chunks in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct Man {
    pub chunks: Vec<Chunk>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    Marker(Marker),
    Header(Header),
    Source(Source),
    Events(Events),
    Samples(Samples),
    Unknown(Unknown),
}

/// 0xA000: opens the animation; normally empty.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Marker {
    /// Payload bytes (none in real files).
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// 0xA020: the animation header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// 12 in every Gothic 1 and 2 file; the engine re-converts the animation when it differs.
    pub version: u16,
    pub name: Text,
    /// Blending layer.
    pub layer: u32,
    pub frame_count: u32,
    pub node_count: u32,
    /// Playback rate.
    pub fps: F32,
    /// Rate of the source ASC.
    pub fps_source: F32,
    /// Position unpacking: `code * position_scale + position_min`.
    pub position_min: F32,
    pub position_scale: F32,
    pub bbox: BBox,
    /// Animation queued afterwards.
    pub next: Text,
    /// Bytes after the last field, inside the chunk.
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// 0xA010: where the animation came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// Usually uninitialised memory in real files; kept as stored.
    pub date: ZDate,
    pub path: Text,
    /// The MDS `ani` line that produced the file.
    pub script: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// 0xA030: animation events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Events {
    pub events: Vec<Event>,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Event {
    #[serde(rename = "type")]
    pub kind: EventType,
    pub frame: i32,
    pub tag: Text,
    pub content: [Text; 4],
    pub values: [F32; 4],
    /// Obsolete; the engine writes an uninitialised float here.
    pub probability: F32,
}

/// `zTMdl_AniEventType`. YAML: the name, or the number for a value outside the enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Tag,
    SoundEffect,
    SoundEffectGround,
    Batch,
    SwapMesh,
    Heading,
    ParticleEffect,
    ParticleEffectGround,
    ParticleEffectStop,
    SetMesh,
    MorphMeshAnimation,
    CameraTremor,
    /// A value outside the engine's enum, kept as stored.
    Other(u32),
}

const EVENT_NAMES: [&str; 12] = [
    "tag",
    "sound_effect",
    "sound_effect_ground",
    "batch",
    "swap_mesh",
    "heading",
    "particle_effect",
    "particle_effect_ground",
    "particle_effect_stop",
    "set_mesh",
    "morph_mesh_animation",
    "camera_tremor",
];

impl Serialize for EventType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EventType::Other(v) => s.serialize_u32(*v),
            named => s.serialize_str(EVENT_NAMES[named.to_u32() as usize]),
        }
    }
}

impl<'de> Deserialize<'de> for EventType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = EventType;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "an event type ({}) or a number", EVENT_NAMES.join(", "))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<EventType, E> {
                if let Some(i) = EVENT_NAMES.iter().position(|n| *n == v) {
                    return Ok(EventType::from_u32(i as u32));
                }
                crate::exact::blob::parse_u32(v)
                    .map(EventType::from_u32)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(v), &self))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<EventType, E> {
                u32::try_from(v)
                    .map(EventType::from_u32)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for EventType {
    fn schema_name() -> String {
        "EventType".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "zTMdl_AniEventType by name, or a number outside the enum",
            "anyOf": [
                {"enum": EVENT_NAMES},
                {"type": "integer", "minimum": 0, "maximum": 4294967295u64}
            ]
        }))
    }
}

impl EventType {
    const NAMED: [EventType; 12] = [
        EventType::Tag,
        EventType::SoundEffect,
        EventType::SoundEffectGround,
        EventType::Batch,
        EventType::SwapMesh,
        EventType::Heading,
        EventType::ParticleEffect,
        EventType::ParticleEffectGround,
        EventType::ParticleEffectStop,
        EventType::SetMesh,
        EventType::MorphMeshAnimation,
        EventType::CameraTremor,
    ];
    pub fn from_u32(v: u32) -> Self {
        Self::NAMED
            .get(v as usize)
            .copied()
            .unwrap_or(EventType::Other(v))
    }
    pub fn to_u32(self) -> u32 {
        match self {
            EventType::Other(v) => v,
            named => Self::NAMED.iter().position(|&n| n == named).unwrap_or(0) as u32,
        }
    }
}

/// 0xA090: checksum, node indices and the packed samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    /// CRC-32 of the model hierarchy's node names.
    pub checksum: Hex32,
    /// Index of each animated node in the hierarchy.
    pub node_indices: Vec<u32>,
    /// Frame-major: `codes[frame * node_count + node]` = rotation x, y, z then position x, y, z.
    pub codes: Vec<[u16; 6]>,
    pub trailing: Blob,
}

pub use crate::zengin::chunk::{Hex16, Unknown};

// ---------------------------------------------------------------------------------------------
// Reading

impl Header {
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(Header {
            version: cur.u16().within("version")?,
            name: read_line(cur).within("name")?,
            layer: cur.u32().within("layer")?,
            frame_count: cur.u32().within("frame_count")?,
            node_count: cur.u32().within("node_count")?,
            fps: read_f32(cur).within("fps")?,
            fps_source: read_f32(cur).within("fps_source")?,
            position_min: read_f32(cur).within("position_min")?,
            position_scale: read_f32(cur).within("position_scale")?,
            bbox: BBox::read(cur).within("bbox")?,
            next: read_line(cur).within("next")?,
            trailing: Blob::new(cur.rest()),
        })
    }
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put_u16(self.version);
        put_line(out, &self.name).within("name")?;
        out.put_u32(self.layer);
        out.put_u32(self.frame_count);
        out.put_u32(self.node_count);
        for f in [
            self.fps,
            self.fps_source,
            self.position_min,
            self.position_scale,
        ] {
            out.put_u32(f.0);
        }
        self.bbox.put(out);
        put_line(out, &self.next).within("next")?;
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
}

impl Source {
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(Source {
            date: ZDate::read(cur).within("date")?,
            path: read_line(cur).within("path")?,
            script: read_line(cur).within("script")?,
            trailing: Blob::new(cur.rest()),
        })
    }
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.date.put(out);
        put_line(out, &self.path).within("path")?;
        put_line(out, &self.script).within("script")?;
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
}

/// The smallest possible event: type, frame, five empty lines, five floats.
const MIN_EVENT_SIZE: usize = 4 + 4 + 5 + 20;

impl Event {
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let kind = EventType::from_u32(cur.u32().within("type")?);
        let frame = cur.i32().within("frame")?;
        let tag = read_line(cur).within("tag")?;
        let mut content: [Text; 4] = Default::default();
        for (i, c) in content.iter_mut().enumerate() {
            *c = read_line(cur).within_index(i).within("content")?;
        }
        let mut values = [F32::default(); 4];
        for (i, v) in values.iter_mut().enumerate() {
            *v = read_f32(cur).within_index(i).within("values")?;
        }
        let probability = read_f32(cur).within("probability")?;
        Ok(Event {
            kind,
            frame,
            tag,
            content,
            values,
            probability,
        })
    }
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put_u32(self.kind.to_u32());
        out.put_i32(self.frame);
        put_line(out, &self.tag).within("tag")?;
        for (i, c) in self.content.iter().enumerate() {
            put_line(out, c).within_index(i).within("content")?;
        }
        for v in self.values {
            out.put_u32(v.0);
        }
        out.put_u32(self.probability.0);
        Ok(())
    }
}

impl Events {
    fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let count = cur.u32().within("count")?;
        let count = cur
            .check_count(count.into(), MIN_EVENT_SIZE)
            .within("count")?;
        let mut events = Vec::with_capacity(count);
        for i in 0..count {
            events.push(Event::read(cur).within_index(i).within("events")?);
        }
        Ok(Events {
            events,
            trailing: Blob::new(cur.rest()),
        })
    }
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let count =
            u32::try_from(self.events.len()).map_err(|_| EncodeError::new("too many events"))?;
        out.put_u32(count);
        for (i, e) in self.events.iter().enumerate() {
            e.put(out).within_index(i).within("events")?;
        }
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
}

/// Frame and node counts of a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    pub frames: u32,
    pub nodes: u32,
}

impl Dims {
    pub fn of(h: &Header) -> Self {
        Dims {
            frames: h.frame_count,
            nodes: h.node_count,
        }
    }
    /// `frames * nodes`, or `None` on overflow.
    pub fn samples(self) -> Option<u64> {
        u64::from(self.frames).checked_mul(self.nodes.into())
    }
}

impl Samples {
    pub const SAMPLE_SIZE: usize = 12;

    fn read(cur: &mut Cursor<'_>, dims: Dims) -> Result<Self, DecodeError> {
        let checksum = Hex32(cur.u32().within("checksum")?);
        let nodes = cur
            .check_count(dims.nodes.into(), 4)
            .map_err(|e| DecodeError {
                kind: crate::exact::DecodeErrorKind::Invalid(format!(
                    "header.node_count {} does not fit in this chunk: {}",
                    dims.nodes, e.kind
                )),
                ..e
            })
            .within("node_indices")?;
        let raw = cur.bytes(nodes * 4)?;
        let node_indices = raw
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let total = dims.samples().ok_or_else(|| {
            cur.invalid(format!(
                "frame_count {} × node_count {} overflows",
                dims.frames, dims.nodes
            ))
        });
        let total = total.and_then(|t| {
            cur.check_count(t, Self::SAMPLE_SIZE)
                .map_err(|e| DecodeError {
                    kind: crate::exact::DecodeErrorKind::Invalid(format!(
                        "header says {} frames × {} nodes, which does not fit in this chunk: {}",
                        dims.frames, dims.nodes, e.kind
                    )),
                    ..e
                })
        });
        let total = total.within("frames")?;
        let raw = cur.bytes(total * Self::SAMPLE_SIZE)?;
        let codes = raw
            .chunks_exact(Self::SAMPLE_SIZE)
            .map(|b| {
                let u = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
                [u(0), u(2), u(4), u(6), u(8), u(10)]
            })
            .collect();
        Ok(Samples {
            checksum,
            node_indices,
            codes,
            trailing: Blob::new(cur.rest()),
        })
    }

    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put_u32(self.checksum.0);
        out.reserve(self.node_indices.len() * 4 + self.codes.len() * Self::SAMPLE_SIZE);
        for &n in &self.node_indices {
            out.put_u32(n);
        }
        for c in &self.codes {
            for v in c {
                out.put_u16(*v);
            }
        }
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }

    /// Number of frames (whole rows of `node_indices.len()` samples).
    pub fn frame_count(&self) -> usize {
        match self.node_indices.len() {
            0 => 0,
            n => self.codes.len() / n,
        }
    }

    /// The samples of one frame.
    pub fn frame(&self, f: usize) -> &[[u16; 6]] {
        let n = self.node_indices.len();
        &self.codes[f * n..(f + 1) * n]
    }
}

impl Chunk {
    pub fn id(&self) -> u16 {
        match self {
            Chunk::Marker(_) => ID_MARKER,
            Chunk::Header(_) => ID_HEADER,
            Chunk::Source(_) => ID_SOURCE,
            Chunk::Events(_) => ID_EVENTS,
            Chunk::Samples(_) => ID_SAMPLES,
            Chunk::Unknown(u) => u.id.0,
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            Chunk::Marker(_) => "marker",
            Chunk::Header(_) => "header",
            Chunk::Source(_) => "source",
            Chunk::Events(_) => "events",
            Chunk::Samples(_) => "samples",
            Chunk::Unknown(_) => "unknown",
        }
    }
    fn put_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Chunk::Marker(m) => {
                out.extend_from_slice(m.trailing.as_bytes());
                Ok(())
            }
            Chunk::Header(h) => h.put(out).within("header"),
            Chunk::Source(s) => s.put(out).within("source"),
            Chunk::Events(e) => e.put(out).within("events"),
            Chunk::Samples(s) => s.put(out).within("samples"),
            Chunk::Unknown(u) => {
                out.extend_from_slice(u.data.as_bytes());
                Ok(())
            }
        }
    }
}

/// The header a samples chunk at `index` decodes with: the last one before it, else the first
/// one after it (chunks may come in any order; the engine dispatches by id).
pub fn governing_header<'a, T>(
    items: &'a [T],
    index: usize,
    header_of: impl Fn(&'a T) -> Option<&'a Header>,
) -> Option<&'a Header> {
    items[..index]
        .iter()
        .rev()
        .find_map(&header_of)
        .or_else(|| items[index..].iter().find_map(&header_of))
}

impl Man {
    pub fn header(&self) -> Option<&Header> {
        self.chunks.iter().find_map(|c| match c {
            Chunk::Header(h) => Some(h),
            _ => None,
        })
    }
    pub fn source(&self) -> Option<&Source> {
        self.chunks.iter().find_map(|c| match c {
            Chunk::Source(s) => Some(s),
            _ => None,
        })
    }
    pub fn samples(&self) -> Option<&Samples> {
        self.chunks.iter().find_map(|c| match c {
            Chunk::Samples(s) => Some(s),
            _ => None,
        })
    }
    pub fn events(&self) -> &[Event] {
        self.chunks
            .iter()
            .find_map(|c| match c {
                Chunk::Events(e) => Some(e.events.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Decode every sample to (rotation, position) as the engine does.
    pub fn decode_samples(&self) -> Vec<(glam::Quat, glam::Vec3)> {
        let (Some(h), Some(s)) = (self.header(), self.samples()) else {
            return Vec::new();
        };
        let (min, scale) = (h.position_min.get(), h.position_scale.get());
        s.codes
            .iter()
            .map(|c| {
                let q = quant::engine_rotation([c[0], c[1], c[2]]);
                let p = glam::Vec3::new(
                    quant::unpack_position(c[3], min, scale),
                    quant::unpack_position(c[4], min, scale),
                    quant::unpack_position(c[5], min, scale),
                );
                (q, p)
            })
            .collect()
    }

    pub fn read(data: &[u8]) -> Result<Self, DecodeError> {
        if data.is_empty() {
            return Err(DecodeError::invalid(0, "the file is empty"));
        }
        let chunks = chunk::read_chunks(data, |raw, i| {
            let rc = &raw[i];
            let mut cur = rc.cursor();
            Ok(match rc.id {
                ID_MARKER => Chunk::Marker(Marker {
                    trailing: Blob::new(rc.payload),
                }),
                ID_HEADER => Chunk::Header(Header::read(&mut cur).within("header")?),
                ID_SOURCE => Chunk::Source(Source::read(&mut cur).within("source")?),
                ID_EVENTS => Chunk::Events(Events::read(&mut cur).within("events")?),
                ID_SAMPLES => {
                    let is_header = |c: &RawChunk<'_>| c.id == ID_HEADER;
                    let hc = raw[..i]
                        .iter()
                        .rposition(is_header)
                        .or_else(|| raw[i..].iter().position(is_header).map(|k| k + i))
                        .map(|k| raw[k])
                        .ok_or_else(|| {
                            DecodeError::invalid(
                                rc.offset,
                                "the samples chunk (0xA090) needs the header chunk (0xA020) for its frame and node counts, and the file has none",
                            )
                        })
                        .within_index(i)
                        .within("chunks")?;
                    let header = Header::read(&mut hc.cursor()).within("header")?;
                    Chunk::Samples(Samples::read(&mut cur, Dims::of(&header)).within("samples")?)
                }
                _ => Chunk::Unknown(Unknown::of(rc)),
            })
        })?;
        Ok(Man { chunks })
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

// ---------------------------------------------------------------------------------------------
// Field lookup for mismatch reports

impl Man {
    /// The field path of the byte at `offset` of the encoded file.
    pub fn field_at(&self, offset: u64) -> String {
        let mut pos = 0u64;
        for (i, c) in self.chunks.iter().enumerate() {
            let mut payload = Vec::new();
            if c.put_payload(&mut payload).is_err() {
                return format!("chunks[{i}]");
            }
            let start = pos;
            let body = start + chunk::HEADER_SIZE as u64;
            let end = body + payload.len() as u64;
            pos = end;
            if offset >= end {
                continue;
            }
            let base = FieldPath::new().field("chunks").index(i);
            if offset < body {
                return base.field("length").to_string();
            }
            let rel = (offset - body) as usize;
            return match c {
                Chunk::Samples(s) => samples_field_at(s, rel, base.field("samples")),
                Chunk::Header(h) => header_field_at(h, rel, base.field("header")),
                Chunk::Source(s) => {
                    let p = base.field("source");
                    let path_end = ZDate::SIZE + s.path.len() + 1;
                    let script_end = path_end + s.script.len() + 1;
                    match rel {
                        r if r < ZDate::SIZE => p.field("date"),
                        r if r < path_end => p.field("path"),
                        r if r < script_end => p.field("script"),
                        _ => p.field("trailing"),
                    }
                    .to_string()
                }
                Chunk::Events(e) => {
                    let p = base.field("events");
                    let mut at = 4usize;
                    for (k, ev) in e.events.iter().enumerate() {
                        let mut buf = Vec::new();
                        let _ = ev.put(&mut buf);
                        if rel < at + buf.len() {
                            return p.field("events").index(k).to_string();
                        }
                        at += buf.len();
                    }
                    if rel < 4 {
                        p.field("count")
                    } else {
                        p.field("trailing")
                    }
                    .to_string()
                }
                Chunk::Marker(_) => base.field("marker").to_string(),
                Chunk::Unknown(_) => base.field("unknown").field("data").to_string(),
            };
        }
        format!("<past the end, offset {offset}>")
    }
}

fn header_field_at(h: &Header, rel: usize, p: FieldPath) -> String {
    let name_end = 2 + h.name.len() + 1;
    let fixed: [(&'static str, usize); 8] = [
        ("layer", 4),
        ("frame_count", 4),
        ("node_count", 4),
        ("fps", 4),
        ("fps_source", 4),
        ("position_min", 4),
        ("position_scale", 4),
        ("bbox", BBox::SIZE),
    ];
    if rel < 2 {
        return p.field("version").to_string();
    }
    if rel < name_end {
        return p.field("name").to_string();
    }
    let mut at = name_end;
    for (name, size) in fixed {
        if rel < at + size {
            return p.field(name).to_string();
        }
        at += size;
    }
    if rel < at + h.next.len() + 1 {
        return p.field("next").to_string();
    }
    p.field("trailing").to_string()
}

fn samples_field_at(s: &Samples, rel: usize, p: FieldPath) -> String {
    const NAMES: [&str; 6] = [
        "rotation", "rotation", "rotation", "position", "position", "position",
    ];
    if rel < 4 {
        return p.field("checksum").to_string();
    }
    let nodes = s.node_indices.len();
    let idx_end = 4 + nodes * 4;
    if rel < idx_end {
        return p.field("node_indices").index((rel - 4) / 4).to_string();
    }
    let k = (rel - idx_end) / Samples::SAMPLE_SIZE;
    if k < s.codes.len() && nodes > 0 {
        let comp = (rel - idx_end) % Samples::SAMPLE_SIZE / 2;
        return p
            .field("frames")
            .index(k / nodes)
            .index(k % nodes)
            .field(NAMES[comp])
            .index(comp % 3)
            .to_string();
    }
    p.field("trailing").to_string()
}

// ---------------------------------------------------------------------------------------------
// Diff

fn push_change(
    out: &mut Vec<String>,
    path: &str,
    old: impl std::fmt::Debug,
    new: impl std::fmt::Debug,
) {
    out.push(format!("{path}: {old:?} → {new:?}"));
}

macro_rules! diff_fields {
    ($out:expr, $prefix:expr, $a:expr, $b:expr, [$($f:ident),*]) => {
        $(if $a.$f != $b.$f {
            push_change($out, &format!("{}.{}", $prefix, stringify!($f)), &$a.$f, &$b.$f);
        })*
    };
}

fn event_line(e: &Event) -> String {
    format!(
        "{:?} at frame {} tag {:?} content {:?} values {:?}",
        e.kind, e.frame, e.tag, e.content, e.values
    )
}

fn diff_samples(
    out: &mut Vec<String>,
    a: &Samples,
    b: &Samples,
    ha: Option<&Header>,
    hb: Option<&Header>,
) {
    if a.checksum != b.checksum {
        push_change(out, "samples.checksum", a.checksum, b.checksum);
    }
    if a.node_indices != b.node_indices {
        push_change(
            out,
            "samples.node_indices",
            &a.node_indices,
            &b.node_indices,
        );
    }
    if a.trailing != b.trailing {
        push_change(out, "samples.trailing", &a.trailing, &b.trailing);
    }
    let (fa, fb) = (a.frame_count(), b.frame_count());
    if fa != fb {
        out.push(format!(
            "samples: {fa} frames → {fb} frames (comparing the first {})",
            fa.min(fb)
        ));
    }
    let nodes = a.node_indices.len();
    if nodes != b.node_indices.len() || nodes == 0 {
        if a.codes != b.codes {
            out.push("samples: node lists differ; per-node comparison skipped".into());
        }
        return;
    }
    let range = |h: Option<&Header>| {
        h.map_or((0.0, 1.0), |h| {
            (h.position_min.get(), h.position_scale.get())
        })
    };
    let ((mina, sca), (minb, scb)) = (range(ha), range(hb));
    let pos = |c: &[u16; 6], min: f32, sc: f32| {
        glam::Vec3::new(
            quant::unpack_position(c[3], min, sc),
            quant::unpack_position(c[4], min, sc),
            quant::unpack_position(c[5], min, sc),
        )
    };
    for n in 0..nodes {
        let (mut changed, mut max_deg, mut max_pos) = (0usize, 0f32, 0f32);
        for f in 0..fa.min(fb) {
            let (ca, cb) = (&a.codes[f * nodes + n], &b.codes[f * nodes + n]);
            let (pa, pb) = (pos(ca, mina, sca), pos(cb, minb, scb));
            let qa = quant::engine_rotation([ca[0], ca[1], ca[2]]);
            let qb = quant::engine_rotation([cb[0], cb[1], cb[2]]);
            let deg = qa.angle_between(qb).to_degrees();
            let dist = pa.distance(pb);
            if ca != cb || pa.to_array().map(f32::to_bits) != pb.to_array().map(f32::to_bits) {
                changed += 1;
                max_deg = max_deg.max(deg);
                max_pos = max_pos.max(dist);
            }
        }
        if changed > 0 {
            out.push(format!(
                "samples node {n} (index {}): {changed} of {} frames changed, largest rotation change {max_deg:.4}°, largest position change {max_pos:.6}",
                a.node_indices[n],
                fa.min(fb)
            ));
        }
    }
}

impl Man {
    /// What changed from `self` to `other`.
    pub fn diff(&self, other: &Man) -> Vec<String> {
        let mut out = Vec::new();
        let kinds = |m: &Man| {
            m.chunks
                .iter()
                .map(|c| format!("{}(0x{:04X})", c.kind(), c.id()))
                .collect::<Vec<_>>()
        };
        let (ka, kb) = (kinds(self), kinds(other));
        if ka != kb {
            out.push(format!("chunks: [{}] → [{}]", ka.join(", "), kb.join(", ")));
        }
        match (self.header(), other.header()) {
            (Some(a), Some(b)) => {
                diff_fields!(
                    &mut out,
                    "header",
                    a,
                    b,
                    [
                        version,
                        name,
                        layer,
                        frame_count,
                        node_count,
                        fps,
                        fps_source,
                        position_min,
                        position_scale,
                        next,
                        trailing
                    ]
                );
                if a.bbox != b.bbox {
                    push_change(&mut out, "header.bbox", a.bbox, b.bbox);
                }
            }
            (a, b) if a.is_some() != b.is_some() => {
                out.push(format!("header: present {} → {}", a.is_some(), b.is_some()))
            }
            _ => {}
        }
        match (self.source(), other.source()) {
            (Some(a), Some(b)) => {
                let (da, db) = (a.date, b.date);
                diff_fields!(
                    &mut out,
                    "source.date",
                    da,
                    db,
                    [year, month, day, hour, minute, second, padding]
                );
                diff_fields!(&mut out, "source", a, b, [path, script, trailing]);
            }
            (a, b) if a.is_some() != b.is_some() => {
                out.push(format!("source: present {} → {}", a.is_some(), b.is_some()))
            }
            _ => {}
        }
        let (ea, eb) = (self.events(), other.events());
        // Compare events by their full text form (which includes every bit of every field).
        let (la, lb): (Vec<String>, Vec<String>) = (
            ea.iter().map(|e| format!("{e:?}")).collect(),
            eb.iter().map(|e| format!("{e:?}")).collect(),
        );
        for op in similar::capture_diff_slices(similar::Algorithm::Myers, &la, &lb) {
            use similar::DiffOp;
            match op {
                DiffOp::Equal { .. } => {}
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    for (k, e) in ea.iter().enumerate().skip(old_index).take(old_len) {
                        out.push(format!("events[{k}] removed: {}", event_line(e)));
                    }
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                } => {
                    for (k, e) in eb.iter().enumerate().skip(new_index).take(new_len) {
                        out.push(format!("events[{k}] added: {}", event_line(e)));
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    for k in 0..old_len.max(new_len) {
                        match (
                            ea.get(old_index + k).filter(|_| k < old_len),
                            eb.get(new_index + k).filter(|_| k < new_len),
                        ) {
                            (Some(x), Some(y)) => out.push(format!(
                                "events[{}] changed: {} → {}",
                                new_index + k,
                                event_line(x),
                                event_line(y)
                            )),
                            (Some(x), None) => out.push(format!(
                                "events[{}] removed: {}",
                                old_index + k,
                                event_line(x)
                            )),
                            (None, Some(y)) => out.push(format!(
                                "events[{}] added: {}",
                                new_index + k,
                                event_line(y)
                            )),
                            (None, None) => {}
                        }
                    }
                }
            }
        }
        match (self.samples(), other.samples()) {
            (Some(a), Some(b)) => diff_samples(&mut out, a, b, self.header(), other.header()),
            (a, b) if a.is_some() != b.is_some() => out.push(format!(
                "samples: present {} → {}",
                a.is_some(),
                b.is_some()
            )),
            _ => {}
        }
        let unknowns = |m: &Man| {
            m.chunks
                .iter()
                .filter_map(|c| match c {
                    Chunk::Unknown(u) => Some(u.clone()),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let (ua, ub) = (unknowns(self), unknowns(other));
        if ua != ub {
            out.push(format!(
                "unknown chunks changed: {} → {}",
                ua.iter()
                    .map(|u| format!("0x{:04X} ({} bytes)", u.id.0, u.data.len()))
                    .collect::<Vec<_>>()
                    .join(", "),
                ub.iter()
                    .map(|u| format!("0x{:04X} ({} bytes)", u.id.0, u.data.len()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let markers = |m: &Man| {
            m.chunks
                .iter()
                .filter_map(|c| match c {
                    Chunk::Marker(x) => Some(x.trailing.clone()),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        if markers(self) != markers(other) {
            out.push("marker payload changed".into());
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Registration

impl Codec for Man {
    const TAG: &'static str = "zengin.man";
    const DESCRIPTION: &'static str = "ZenGin model animation (.MAN)";
    const EXTENSIONS: &'static [&'static str] = &["man"];
    const COMPANIONS: &'static [Companion] = &[Companion {
        tag: crate::zengin::mdh::Mdh::TAG_STR,
        flag: "mdh",
        role: "the model hierarchy (skeleton) the animation is made for: `export` labels each \
               sample with its node's name, `check` tests the checksum and every node index",
    }];

    fn detect(data: &[u8]) -> bool {
        // First chunk is one of the MAN chunk ids and fits in the file.
        if data.len() < chunk::HEADER_SIZE {
            return false;
        }
        let id = u16::from_le_bytes([data[0], data[1]]);
        let len = u32::from_le_bytes([data[2], data[3], data[4], data[5]]) as u64;
        matches!(
            id,
            ID_MARKER | ID_HEADER | ID_SOURCE | ID_EVENTS | ID_SAMPLES
        ) && len <= (data.len() - chunk::HEADER_SIZE) as u64
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Man::read(data)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.write(out)
    }
    fn to_yaml(&self, opts: &ExportOptions) -> Result<String, EncodeError> {
        let names = opts
            .companion
            .and_then(|c| c.as_any().downcast_ref::<crate::zengin::mdh::Mdh>())
            .map(crate::zengin::mdh::Mdh::node_names);
        crate::zengin::man::yaml::to_yaml_with(self, names.as_deref())
    }
    fn from_yaml(text: &str, opts: &ImportOptions) -> Result<Self, crate::exact::ImportError> {
        crate::zengin::man::yaml::from_yaml(text, opts)
    }
    fn schema() -> schemars::schema::RootSchema {
        crate::zengin::man::yaml::schema()
    }
    fn info(&self) -> Vec<InfoLine> {
        let mut v = Vec::new();
        if let Some(h) = self.header() {
            v.push(("name", h.name.to_string()));
            v.push(("frames", h.frame_count.to_string()));
            v.push(("nodes", h.node_count.to_string()));
            v.push(("fps", format!("{} (source {})", h.fps, h.fps_source)));
            v.push(("layer", h.layer.to_string()));
            v.push(("next", h.next.to_string()));
        }
        if let Some(s) = self.samples() {
            v.push(("checksum", s.checksum.to_string()));
        }
        v.push(("events", self.events().len().to_string()));
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
        Man::field_at(self, offset)
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        Man::diff(self, other)
    }
    fn check(&self, ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        crate::zengin::mdh::check_man_findings(self, ctx)
    }
    /// The checksum of the skeleton's node names the samples were made for.
    fn companion_key(&self) -> Option<u32> {
        self.samples().map(|s| s.checksum.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(s: &str) -> Vec<u8> {
        hex::decode(s.split_whitespace().collect::<String>()).unwrap()
    }

    /// Read `bytes` with `read`, compare with `value`; write `value` with `put`, compare with
    /// `bytes`: one table, both directions.
    fn both_ways<T: PartialEq + std::fmt::Debug>(
        value: &T,
        bytes: &[u8],
        read: impl Fn(&mut Cursor<'_>) -> Result<T, DecodeError>,
        put: impl Fn(&T, &mut Vec<u8>) -> Result<(), EncodeError>,
    ) {
        let mut cur = Cursor::new(bytes, 0);
        assert_eq!(&read(&mut cur).unwrap(), value);
        assert!(cur.is_empty());
        let mut out = Vec::new();
        put(value, &mut out).unwrap();
        assert_eq!(out, bytes);
    }

    fn corpus_header() -> Header {
        Header {
            version: 12,
            name: Text::from("S_FISTRUN"),
            layer: 1,
            frame_count: 20,
            node_count: 25,
            fps: F32::new(10.0),
            fps_source: F32::new(25.0),
            position_min: F32(0xC110_29DC),
            position_scale: F32(0x3AC3_874A),
            bbox: BBox {
                min: [F32(0xC24C_5CC9), F32(0xC2BC_0B66), F32(0xC1FA_3EF0)],
                max: [F32(0x4239_5359), F32(0x4286_2FE3), F32(0x4247_8B4B)],
            },
            next: Text::from("S_FISTRUN"),
            trailing: Blob::default(),
        }
    }

    #[test]
    fn header_table() {
        let corpus = "0c00 535f4649535452554e0a 01000000 14000000 19000000 00002041 0000c841 dc2910c1 \
                      4a87c33a c95c4cc2 660bbcc2 f03efac1 59533942 e32f8642 4b8b4742 535f4649535452554e0a";
        let mut odd = corpus_header();
        odd.name = Text::new(&b"A\r\0"[..]);
        odd.next = Text::default();
        odd.fps = F32(0x7fa0_0001);
        odd.trailing = Blob::new(vec![0xde, 0xad]);
        let table = [
            (corpus_header(), h(corpus)),
            (
                odd,
                h(
                    "0c00 410d000a 01000000 14000000 19000000 0100a07f 0000c841 dc2910c1 \
                   4a87c33a c95c4cc2 660bbcc2 f03efac1 59533942 e32f8642 4b8b4742 0a dead",
                ),
            ),
        ];
        for (value, bytes) in &table {
            both_ways(value, bytes, Header::read, Header::put);
        }
    }

    #[test]
    fn source_table() {
        let value = Source {
            date: ZDate {
                year: 0,
                month: 6,
                day: 0,
                hour: 0,
                minute: 0,
                second: 57324,
                padding: 0x0123,
            },
            path: Text::from("\\A.ASC"),
            script: Text::from("\tANI"),
            trailing: Blob::default(),
        };
        both_ways(
            &value,
            &h("00000000 0600 0000 0000 0000 ecdf 2301 5c412e4153430a 09414e490a"),
            Source::read,
            Source::put,
        );
    }

    #[test]
    fn event_tables() {
        let event = Event {
            kind: EventType::SoundEffect,
            frame: -1,
            tag: Text::from("T"),
            content: [
                Text::from("C_\u{e4}"),
                Text::default(),
                Text::default(),
                Text::from("Z"),
            ],
            values: [
                F32::new(1.0),
                F32(0x8000_0000),
                F32::new(2500.0),
                F32(0x7fa0_0001),
            ],
            probability: F32(0xCDCD_CDCD),
        };
        let bytes = h("01000000 ffffffff 540a 435fe40a 0a 0a 5a0a \
                       0000803f 00000080 00401c45 0100a07f cdcdcdcd");
        both_ways(&event, &bytes, Event::read, Event::put);

        let mut other = event.clone();
        other.kind = EventType::Other(99);
        let mut events_bytes = h("02000000");
        events_bytes.extend_from_slice(&bytes);
        let mut b2 = bytes.clone();
        b2[0] = 99;
        events_bytes.extend_from_slice(&b2);
        events_bytes.extend_from_slice(&[1, 2, 3]);
        let events = Events {
            events: vec![event, other],
            trailing: Blob::new(vec![1, 2, 3]),
        };
        both_ways(&events, &events_bytes, Events::read, Events::put);
    }

    #[test]
    fn event_type_names_and_numbers() {
        for v in 0..14u32 {
            assert_eq!(EventType::from_u32(v).to_u32(), v);
        }
        assert_eq!(EventType::from_u32(11), EventType::CameraTremor);
        assert_eq!(EventType::from_u32(12), EventType::Other(12));
    }

    #[test]
    fn samples_table() {
        let dims = Dims {
            frames: 2,
            nodes: 2,
        };
        let value = Samples {
            checksum: Hex32(0xC634_88C2),
            node_indices: vec![0, 17],
            codes: vec![
                [32767, 52406, 32767, 0, 1, 2],
                [1, 2, 3, 4, 5, 6],
                [0xffff; 6],
                [0; 6],
            ],
            trailing: Blob::new(vec![0xAB]),
        };
        let bytes = h("c28834c6 00000000 11000000 \
                       ff7fb6ccff7f 000001000200 010002000300 040005000600 \
                       ffffffffffff ffffffffffff 000000000000 000000000000 ab");
        both_ways(&value, &bytes, |c| Samples::read(c, dims), Samples::put);
    }

    #[test]
    fn field_paths_of_offsets() {
        let man = Man {
            chunks: vec![
                Chunk::Marker(Marker::default()),
                Chunk::Header(corpus_header()),
                Chunk::Samples(Samples {
                    checksum: Hex32(1),
                    node_indices: vec![0; 25],
                    codes: vec![[0; 6]; 500],
                    trailing: Blob::default(),
                }),
            ],
        };
        // marker 0..6, header 6..86 (payload 12..86), samples header 86..92, payload from 92.
        assert_eq!(man.field_at(3), "chunks[0].length");
        assert_eq!(man.field_at(13), "chunks[1].header.version");
        assert_eq!(man.field_at(20), "chunks[1].header.name");
        assert_eq!(man.field_at(12 + 16), "chunks[1].header.frame_count");
        assert_eq!(man.field_at(12 + 39), "chunks[1].header.position_scale");
        assert_eq!(man.field_at(12 + 40), "chunks[1].header.bbox");
        assert_eq!(man.field_at(85), "chunks[1].header.next");
        assert_eq!(man.field_at(93), "chunks[2].samples.checksum");
        assert_eq!(
            man.field_at(96 + 4 * 7),
            "chunks[2].samples.node_indices[7]"
        );
        // frame 3, node 4, position y: 96 + 100 + (3*25+4)*12 + 8.
        assert_eq!(
            man.field_at(96 + 100 + 79 * 12 + 8),
            "chunks[2].samples.frames[3][4].position[1]"
        );
    }
}
