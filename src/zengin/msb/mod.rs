//! `.MSB` compiled model scripts (`zCModelPrototype` script, binary chunked, spec §4).
//!
//! The model is the file's chunks in file order ([`Entry`]), with one refinement that makes the
//! YAML read like the script: an event list (ANIEVENTS 0xF5A0 with its count, the event chunks,
//! ANIEVENTS_END 0xF5AF) that directly follows an animation chunk is folded into that animation's
//! `events`, as ONE ordered list (kinds interleaved as in the file). It is folded only when it is
//! exactly what the engine writes (a 4-byte count equal to the number of event chunks, an empty end
//! chunk); any other arrangement stays as separate entries, so every file is written back byte for
//! byte. Unknown chunks (and the never-written ANIBATCH 0xF560) are kept verbatim, bytes after the
//! last field of a known chunk are kept as `trailing`, and every float keeps its bits with the
//! engine's meaning (SFX empty-slot flag, PFX handles and camera-tremor values are `f32`).
//!
//! The `aniEnum` statements (`ani`, `aniAlias` …) are the ones the text script declares
//! ([`crate::zengin::script::statements`]), in the compiled encoding [`Compiled`]: every value
//! resolved, and the bytes after a chunk's last field.

mod args;
mod chunks;
mod events;
mod fields;
pub mod runs;
#[cfg(test)]
pub(crate) mod tests;
pub mod yaml;

use crate::zengin::script::{self, Encoding, NotStored, Value};
pub use args::Args;
use events::put_args;
pub use events::{
    CamTremor, Event, EventDoc, FrameOnly, MmStartAni, Pfx, PfxStop, SetMesh, Sfx, SwapMesh, Tag,
    EVENT_KINDS,
};

use crate::exact::Blob;
use crate::zengin::stext::ShortText as Text;
use serde::{Deserialize, Serialize};

pub use crate::zengin::chunk::{Hex16, Unknown};

pub const ID_ROOT: u16 = 0xF000;
pub const ID_SOURCE: u16 = 0xF100;
pub const ID_MODEL: u16 = 0xF200;
pub const ID_MESH_AND_TREE: u16 = 0xF300;
pub const ID_REGISTER_MESH: u16 = 0xF400;
pub const ID_ANI_ENUM: u16 = 0xF500;
pub const ID_ANI_MAX_FPS: u16 = 0xF510;
pub const ID_ANI: u16 = 0xF520;
pub const ID_ANI_ALIAS: u16 = 0xF530;
pub const ID_ANI_BLEND: u16 = 0xF540;
pub const ID_ANI_SYNC: u16 = 0xF550;
pub const ID_ANI_BATCH: u16 = 0xF560;
pub const ID_ANI_COMB: u16 = 0xF570;
pub const ID_ANI_DISABLE: u16 = 0xF580;
pub const ID_MODEL_TAG: u16 = 0xF590;
pub const ID_ANI_EVENTS: u16 = 0xF5A0;
pub const ID_EVENT_SFX: u16 = 0xF5A1;
pub const ID_EVENT_SFX_GRND: u16 = 0xF5A2;
pub const ID_EVENT_TAG: u16 = 0xF5A3;
pub const ID_EVENT_PFX: u16 = 0xF5A4;
pub const ID_EVENT_PFX_STOP: u16 = 0xF5A5;
pub const ID_EVENT_PFX_GRND: u16 = 0xF5A6;
pub const ID_EVENT_SET_MESH: u16 = 0xF5A7;
pub const ID_EVENT_SWAP_MESH: u16 = 0xF5A8;
pub const ID_EVENT_MM_START_ANI: u16 = 0xF5A9;
pub const ID_EVENT_CAM_TREMOR: u16 = 0xF5AA;
pub const ID_ANI_EVENTS_END: u16 = 0xF5AF;
pub const ID_ANI_ENUM_END: u16 = 0xF5FF;
pub const ID_MODEL_END: u16 = 0xF2FF;
pub const ID_END: u16 = 0xFFFF;

/// A decoded `.MSB` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Msb {
    pub entries: Vec<Entry>,
}

/// One chunk (or an animation chunk with its folded event list), in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Root(Root),
    Source(Source),
    Model(Marker),
    MeshAndTree(MeshAndTree),
    RegisterMesh(Name),
    AniEnum(Marker),
    AniMaxFps(AniMaxFps),
    Ani(Ani),
    AniAlias(AniAlias),
    AniBlend(AniBlend),
    AniSync(AniSync),
    AniComb(AniComb),
    AniDisable(AniDisable),
    ModelTag(ModelTag),
    /// An ANIEVENTS chunk not folded into an animation.
    AniEvents(AniEvents),
    /// An event chunk not folded into an animation.
    Event(Event),
    AniEventsEnd(Marker),
    AniEnumEnd(Marker),
    ModelEnd(Marker),
    End(Marker),
    Unknown(Unknown),
}

/// A chunk with no fields (model, aniEnum, the end markers).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Marker {
    /// Payload bytes (none in real files).
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// 0xF000: script version (1) and the directory of the MDS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Root {
    /// 1 (engine `zMDS_VERS`); the engine recompiles the MDS when it differs.
    pub version: u32,
    pub directory: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// 0xF100: file time and path of the MDS.
pub use crate::zengin::chunk::Source;

/// 0xF300: the skeleton's ASC (without extension) and whether its mesh is ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeshAndTree {
    /// `DONT_USE_MESH` given (1) or not (0).
    pub dont_use_mesh: Bool32,
    pub mesh: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// A chunk holding one name: registerMesh 0xF400.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Name {
    pub name: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// 0xF5A0 when it is not folded into an animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AniEvents {
    pub count: u32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// The compiled encoding of a script's statements and events: every value as the engine
/// stored it, and the bytes after a chunk's last field.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled;

impl Encoding for Compiled {
    type Opt<T: Value> = T;
    type TextOnly<T: Value> = NotStored;
    type Trailing = Blob;
    type TagArgs = Args;
}

/// 0xF510: `aniMaxFps`.
pub type AniMaxFps = script::AniMaxFps<Compiled>;
/// 0xF520: an animation from an ASC file.
pub type Ani = script::Ani<Compiled>;
/// 0xF530: another name for an animation.
pub type AniAlias = script::AniAlias<Compiled>;
/// 0xF540: a blend animation.
pub type AniBlend = script::AniBlend<Compiled>;
/// 0xF550.
pub type AniSync = script::AniSync<Compiled>;
/// 0xF570: combination of `count` animations `prefix1` … `prefixN`.
pub type AniComb = script::AniComb<Compiled>;
/// 0xF580.
pub type AniDisable = script::AniDisable<Compiled>;
/// 0xF590: a model tag (engine layout: tag and four argument lines, no frame).
pub type ModelTag = script::ModelTag<Compiled>;

/// A `u32` that is a yes/no in practice: `true`/`false` for 1/0, else the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bool32(pub u32);

impl Serialize for Bool32 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            0 => s.serialize_bool(false),
            1 => s.serialize_bool(true),
            v => s.serialize_u32(v),
        }
    }
}

impl<'de> Deserialize<'de> for Bool32 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Bool32;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true, false or a 32-bit number")
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Bool32, E> {
                Ok(Bool32(v.into()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Bool32, E> {
                u32::try_from(v)
                    .map(Bool32)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Bool32, E> {
                u32::try_from(v)
                    .map(Bool32)
                    .map_err(|_| E::invalid_value(serde::de::Unexpected::Signed(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

impl schemars::JsonSchema for Bool32 {
    fn schema_name() -> String {
        "Bool32".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "true (1), false (0) or another 32-bit value as stored",
            "anyOf": [{"type": "boolean"}, {"type": "integer", "minimum": 0, "maximum": 4294967295u64}]
        }))
    }
}

// ---------------------------------------------------------------------------------------------
// ---------------------------------------------------------------------------------------------
// Entries: reading and writing
