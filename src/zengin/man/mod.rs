//! `.MAN` model animations (`zCModelAni`): chunked binary with packed quaternions and
//! positions. Chunks are kept in file order; unknown chunks and bytes left over inside known
//! chunks are kept verbatim, so every file that parses is written back byte for byte.

pub mod build;
mod chunks;
mod diff;
mod field;
pub mod quant;
pub mod synth;
#[cfg(test)]
mod tests;
mod verify;
pub mod yaml;
pub mod yaml_fast;
mod yaml_render;

pub use chunks::{governing_header, Dims};

use crate::codec::{Codec, Companion, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{Blob, DecodeError, EncodeError, Hex32, Text, F32};
use crate::zengin::chunk;
use crate::zengin::types::{BBox, ZDate};
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

// ---------------------------------------------------------------------------------------------
// Field lookup for mismatch reports

// ---------------------------------------------------------------------------------------------
// Diff

// ---------------------------------------------------------------------------------------------
// Registration

impl Codec for Man {
    fn repair(data: &[u8]) -> Option<crate::codec::Repaired> {
        crate::zengin::chunk::repair_lengths(data)
    }
    const TAG: &'static str = "zengin.man";
    const DESCRIPTION: &'static str = "ZenGin model animation (.MAN)";
    const EXTENSIONS: &'static [&'static str] = &["man"];
    const COMPANIONS: &'static [Companion] = &[Companion {
        tag: crate::zengin::mdh::Mdh::TAG_STR,
        flag: "mdh",
        role: "the model hierarchy (skeleton) the animation is made for: `export` labels each \
               sample with its node's name, `check` tests the checksum and every node index, \
               `diff` names the nodes that changed",
        beside: Some(crate::zengin::model_prefix),
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
    fn to_yaml_into(
        &self,
        opts: &ExportOptions,
        out: &mut dyn std::io::Write,
    ) -> Result<(), crate::codec::ExportError> {
        let names = opts
            .companion
            .and_then(|c| c.as_any().downcast_ref::<crate::zengin::mdh::Mdh>())
            .map(crate::zengin::mdh::Mdh::node_names);
        crate::zengin::man::yaml::to_yaml_into(self, names.as_deref(), out)
    }
    fn from_yaml(text: &str, opts: &ImportOptions) -> Result<Self, crate::exact::ImportError> {
        crate::zengin::man::yaml::from_yaml(text, opts)
    }
    /// The events read straight into their bytes ([`yaml::from_yaml_lean`]) and the file
    /// handed to the sink chunk by chunk: an event-heavy document takes about the output's
    /// size beside its text instead of the decoded list (five strings per event) and the
    /// whole output. Outside the lean reader's reach, the default path (same bytes, findings
    /// and errors; tests compare both).
    fn import_to(
        text: &str,
        opts: &ImportOptions,
        previous: Option<&[u8]>,
        sink: &mut dyn crate::codec::Sink,
    ) -> Result<crate::codec::Imported, crate::exact::ImportError> {
        let Some((new, events)) = yaml::from_yaml_lean(text, opts) else {
            return crate::codec::import_through_model::<Self>(text, opts, previous, sink);
        };
        write_lean(&new, events, sink)?;
        Ok(crate::codec::Imported {
            value_findings: new.value_findings(),
            // (the file replaced read without its events, which the warnings do not look
            // at: an event-heavy file decoded whole takes several times its size)
            edit_warnings: previous
                .filter(|old| Man::detect(old))
                .and_then(|old| Man::read_without_events(old).ok())
                .map(|old| old.edit_warnings(&new))
                .unwrap_or_default(),
        })
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
        v.push(("chunks", chunk::summary(&self.chunks)));
        v
    }
    fn field_at(&self, offset: u64) -> String {
        Man::field_at(self, offset)
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        Man::diff(self, other)
    }
    fn diff_report(&self, other: &Self, ctx: &crate::codec::DiffContext<'_>) -> crate::codec::Diff {
        let names = ctx
            .companion
            .and_then(|c| c.as_any().downcast_ref::<crate::zengin::mdh::Mdh>())
            .map(crate::zengin::mdh::Mdh::node_names);
        Man::diff_named(self, other, names.as_deref())
    }
    fn edit_warnings(&self, edited: &Self) -> Vec<crate::codec::Finding> {
        diff::edit_warnings(self, edited)
    }
    fn check(&self, ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        let mut out = self.value_findings();
        out.extend(crate::zengin::mdh::check_man_findings(self, ctx));
        out
    }
    fn value_findings(&self) -> Vec<crate::codec::Finding> {
        use crate::codec::{Finding, Severity};
        let mut out = Vec::new();
        if let Some(h) = self.header() {
            let fps = h.fps.get();
            if !(fps.is_finite() && fps > 0.0) {
                out.push(Finding::new(
                    Severity::Error,
                    "header.fps",
                    format!("fps {fps}: the playback rate must be a finite number above 0"),
                ));
            }
            if h.frame_count == 0 && self.samples().is_some_and(|s| !s.codes.is_empty()) {
                out.push(Finding::new(
                    Severity::Error,
                    "header.frame_count",
                    "frame_count 0, but the samples chunk holds samples",
                ));
            }
        }
        if let Some(s) = self.samples() {
            let mut seen = std::collections::HashMap::new();
            for (k, &idx) in s.node_indices.iter().enumerate() {
                if idx > 65535 {
                    out.push(Finding::new(
                        Severity::Error,
                        format!("samples.node_indices[{k}]"),
                        format!("{idx}: above 65,535, past any skeleton's nodes"),
                    ));
                }
                if let Some(first) = seen.insert(idx, k) {
                    out.push(Finding::new(
                        Severity::Error,
                        format!("samples.node_indices[{k}]"),
                        format!("{idx}: the same node as node_indices[{first}]"),
                    ));
                }
            }
        }
        out
    }
    /// The checksum of the skeleton's node names the samples were made for.
    fn companion_key(&self) -> Option<u32> {
        self.samples().map(|s| s.checksum.0)
    }
    /// Each distinct sample value through text once, not each sample (see `man::verify`).
    fn yaml_round_trip(&self) -> Option<Vec<u8>> {
        verify::yaml_round_trip(self)
    }
}

/// `man`'s bytes into `sink` chunk by chunk, the k-th events chunk's list (left empty in
/// `man`) taken from `events[k]`: the bytes of [`Man::write`] (a test compares them).
fn write_lean(
    man: &Man,
    events: Vec<yaml::EncodedEvents>,
    sink: &mut dyn crate::codec::Sink,
) -> Result<(), EncodeError> {
    use crate::exact::{Within, Writer};
    use chunk::ChunkBody;
    let mut events = events.into_iter();
    let mut buf = Vec::new();
    for (i, c) in man.chunks.iter().enumerate() {
        buf.clear();
        match c {
            Chunk::Events(e) if e.events.is_empty() => {
                let enc = events.next().ok_or_else(|| {
                    EncodeError::new("internal: an events chunk without its events")
                })?;
                let len = 4 + enc.len() + e.trailing.as_bytes().len();
                let length = u32::try_from(len)
                    .map_err(|_| {
                        EncodeError::new(format!("chunk 0x{ID_EVENTS:04X} is larger than 4 GiB"))
                    })
                    .within_index(i)
                    .within("chunks")?;
                buf.put(&chunk::ChunkHeader {
                    id: ID_EVENTS,
                    length,
                })?;
                buf.put_u32(enc.count);
                sink.append(&buf);
                // (each piece freed once it is written)
                for piece in enc.pieces {
                    sink.append(&piece);
                }
                sink.append(e.trailing.as_bytes());
            }
            _ => {
                chunk::put_chunk(&mut buf, c.id(), |o| c.put_payload(o))
                    .within_index(i)
                    .within("chunks")?;
                sink.append(&buf);
            }
        }
    }
    if events.next().is_some() {
        return Err(EncodeError::new("internal: events left over"));
    }
    Ok(())
}
