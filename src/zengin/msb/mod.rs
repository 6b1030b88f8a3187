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

pub mod yaml;

use crate::exact::{Blob, Cursor, DecodeError, EncodeError, FieldPath, PutLe, Within, F32};
use crate::zengin::chunk::{self, put_chunk};
use crate::zengin::stext::ShortText as Text;
use crate::zengin::types::{
    put_short_line as put_line, read_f32, read_short_line as read_line, ZDate,
};
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub date: ZDate,
    pub path: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

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

/// 0xF510.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AniMaxFps {
    pub fps: F32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// Fields shared by ani, aniAlias and aniComb.
macro_rules! events_field {
    () => {
        "Events in file order; absent when the animation has no event list."
    };
}

/// 0xF520: an animation from an ASC file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ani {
    pub name: Text,
    pub layer: i32,
    pub next: Text,
    /// Seconds.
    pub blend_in: F32,
    /// Seconds.
    pub blend_out: F32,
    /// The flag word as written (`M.`, `MI`, `.`): M move, R rotate, E queue, F fly, I idle,
    /// P in place.
    pub flags: Text,
    pub asc: Text,
    /// `F` forward or `R` reverse, as written.
    pub direction: Text,
    pub first_frame: i32,
    pub last_frame: i32,
    /// `FPS:` value, else the last aniMaxFps, else 25.
    pub fps: F32,
    /// `SPD:` value, else 0.
    pub speed: F32,
    /// `CVS:` value clamped to 0..10, else 1.
    pub collision_volume_scale: F32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
    #[doc = events_field!()]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc>>")]
    pub events: Option<Vec<Event>>,
}

/// 0xF530: another name for an animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AniAlias {
    pub name: Text,
    pub layer: i32,
    pub next: Text,
    pub blend_in: F32,
    pub blend_out: F32,
    pub flags: Text,
    pub alias_of: Text,
    pub direction: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
    #[doc = events_field!()]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc>>")]
    pub events: Option<Vec<Event>>,
}

/// 0xF540: a blend animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AniBlend {
    pub name: Text,
    pub next: Text,
    pub blend_in: F32,
    pub blend_out: F32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
    #[doc = events_field!()]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc>>")]
    pub events: Option<Vec<Event>>,
}

/// 0xF550.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AniSync {
    pub name: Text,
    pub next: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
    #[doc = events_field!()]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc>>")]
    pub events: Option<Vec<Event>>,
}

/// 0xF570: combination of `count` animations `prefix1` … `prefixN`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AniComb {
    pub name: Text,
    pub layer: i32,
    pub next: Text,
    pub blend_in: F32,
    pub blend_out: F32,
    pub flags: Text,
    pub prefix: Text,
    /// Number of combined animations (ZenKit calls it `last_frame`).
    pub count: i32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
    #[doc = events_field!()]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc>>")]
    pub events: Option<Vec<Event>>,
}

/// 0xF580.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AniDisable {
    pub name: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
    #[doc = events_field!()]
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc>>")]
    pub events: Option<Vec<Event>>,
}

/// 0xF590: a model tag (engine layout: tag and four argument lines, no frame).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelTag {
    pub tag: Text,
    pub args: [Text; 4],
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
// Events

/// One animation event chunk (0xF5A1–0xF5AA).
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Sfx(Sfx),
    SfxGrnd(Sfx),
    Tag(Tag),
    Pfx(Pfx),
    PfxStop(PfxStop),
    PfxGrnd(FrameOnly),
    SetMesh(SetMesh),
    SwapMesh(SwapMesh),
    MmStartAni(MmStartAni),
    CamTremor(CamTremor),
}

/// `*eventSFX` / `*eventSFXGrnd`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sfx {
    pub frame: i32,
    pub name: Text,
    /// `R:` value; default 2500 (SFX) or 1000 (SFXGrnd), at most 3500.
    pub range: F32,
    /// The engine writes 1.0 when the line has NO `EMPTY_` and 0.0 when it has
    /// (`EMPTY_SLOT`); ZenKit reads this inverted.
    pub empty_slot_flag: F32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// `*eventTag`: the tag and always four argument lines (empty ones are empty strings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tag {
    pub frame: i32,
    pub tag: Text,
    pub args: [Text; 4],
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// `*eventPFX`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pfx {
    pub frame: i32,
    /// Effect handle, an f32 in the engine.
    pub handle: F32,
    pub emitter: Text,
    pub node: Text,
    /// 1.0 with `ATTACH`, else 0.0.
    pub attach: F32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// `*eventPFXStop`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfxStop {
    pub frame: i32,
    pub handle: F32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// `*eventPFXGrnd`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrameOnly {
    pub frame: i32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// `*eventSetMesh`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetMesh {
    pub frame: i32,
    pub mesh: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// `*eventSwapMesh`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwapMesh {
    pub frame: i32,
    pub slot1: Text,
    pub slot2: Text,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// `*eventMMStartAni`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MmStartAni {
    pub frame: i32,
    pub ani: Text,
    pub node: Text,
    /// `I:`, default 1.0.
    pub intensity: F32,
    /// `H:`, default −2.0.
    pub hold_time: F32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// `*eventCamTremor`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CamTremor {
    pub frame: i32,
    /// The script's radius, squared by the engine.
    pub radius_squared: F32,
    pub duration_ms: F32,
    pub strength_xz: F32,
    pub strength_y: F32,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

/// The schema-side spelling of an event: `{eventSFX: {...}}`.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
pub enum EventDoc {
    #[serde(rename = "eventSFX")]
    Sfx(Sfx),
    #[serde(rename = "eventSFXGrnd")]
    SfxGrnd(Sfx),
    #[serde(rename = "eventTag")]
    Tag(Tag),
    #[serde(rename = "eventPFX")]
    Pfx(Pfx),
    #[serde(rename = "eventPFXStop")]
    PfxStop(PfxStop),
    #[serde(rename = "eventPFXGrnd")]
    PfxGrnd(FrameOnly),
    #[serde(rename = "eventSetMesh")]
    SetMesh(SetMesh),
    #[serde(rename = "eventSwapMesh")]
    SwapMesh(SwapMesh),
    #[serde(rename = "eventMMStartAni")]
    MmStartAni(MmStartAni),
    #[serde(rename = "eventCamTremor")]
    CamTremor(CamTremor),
}

pub const EVENT_KINDS: &[&str] = &[
    "eventSFX",
    "eventSFXGrnd",
    "eventTag",
    "eventPFX",
    "eventPFXStop",
    "eventPFXGrnd",
    "eventSetMesh",
    "eventSwapMesh",
    "eventMMStartAni",
    "eventCamTremor",
];

impl Event {
    pub fn id(&self) -> u16 {
        match self {
            Event::Sfx(_) => ID_EVENT_SFX,
            Event::SfxGrnd(_) => ID_EVENT_SFX_GRND,
            Event::Tag(_) => ID_EVENT_TAG,
            Event::Pfx(_) => ID_EVENT_PFX,
            Event::PfxStop(_) => ID_EVENT_PFX_STOP,
            Event::PfxGrnd(_) => ID_EVENT_PFX_GRND,
            Event::SetMesh(_) => ID_EVENT_SET_MESH,
            Event::SwapMesh(_) => ID_EVENT_SWAP_MESH,
            Event::MmStartAni(_) => ID_EVENT_MM_START_ANI,
            Event::CamTremor(_) => ID_EVENT_CAM_TREMOR,
        }
    }
    pub fn kind(&self) -> &'static str {
        EVENT_KINDS[(self.id() - ID_EVENT_SFX) as usize]
    }
    pub fn frame(&self) -> i32 {
        match self {
            Event::Sfx(e) | Event::SfxGrnd(e) => e.frame,
            Event::Tag(e) => e.frame,
            Event::Pfx(e) => e.frame,
            Event::PfxStop(e) => e.frame,
            Event::PfxGrnd(e) => e.frame,
            Event::SetMesh(e) => e.frame,
            Event::SwapMesh(e) => e.frame,
            Event::MmStartAni(e) => e.frame,
            Event::CamTremor(e) => e.frame,
        }
    }

    /// Read the payload of event chunk `id`; `None` when `id` is not an event.
    #[inline]
    pub fn read(id: u16, cur: &mut Cursor<'_>) -> Result<Option<Self>, DecodeError> {
        let frame = |cur: &mut Cursor<'_>| cur.i32().within("frame");
        Ok(Some(match id {
            ID_EVENT_SFX | ID_EVENT_SFX_GRND => {
                let e = Sfx {
                    frame: frame(cur)?,
                    name: read_line(cur).within("name")?,
                    range: read_f32(cur).within("range")?,
                    empty_slot_flag: read_f32(cur).within("empty_slot_flag")?,
                    trailing: Blob::new(cur.rest()),
                };
                if id == ID_EVENT_SFX {
                    Event::Sfx(e)
                } else {
                    Event::SfxGrnd(e)
                }
            }
            ID_EVENT_TAG => Event::Tag(Tag {
                frame: frame(cur)?,
                tag: read_line(cur).within("tag")?,
                args: read_args(cur)?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_EVENT_PFX => Event::Pfx(Pfx {
                frame: frame(cur)?,
                handle: read_f32(cur).within("handle")?,
                emitter: read_line(cur).within("emitter")?,
                node: read_line(cur).within("node")?,
                attach: read_f32(cur).within("attach")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_EVENT_PFX_STOP => Event::PfxStop(PfxStop {
                frame: frame(cur)?,
                handle: read_f32(cur).within("handle")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_EVENT_PFX_GRND => Event::PfxGrnd(FrameOnly {
                frame: frame(cur)?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_EVENT_SET_MESH => Event::SetMesh(SetMesh {
                frame: frame(cur)?,
                mesh: read_line(cur).within("mesh")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_EVENT_SWAP_MESH => Event::SwapMesh(SwapMesh {
                frame: frame(cur)?,
                slot1: read_line(cur).within("slot1")?,
                slot2: read_line(cur).within("slot2")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_EVENT_MM_START_ANI => Event::MmStartAni(MmStartAni {
                frame: frame(cur)?,
                ani: read_line(cur).within("ani")?,
                node: read_line(cur).within("node")?,
                intensity: read_f32(cur).within("intensity")?,
                hold_time: read_f32(cur).within("hold_time")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_EVENT_CAM_TREMOR => Event::CamTremor(CamTremor {
                frame: frame(cur)?,
                radius_squared: read_f32(cur).within("radius_squared")?,
                duration_ms: read_f32(cur).within("duration_ms")?,
                strength_xz: read_f32(cur).within("strength_xz")?,
                strength_y: read_f32(cur).within("strength_y")?,
                trailing: Blob::new(cur.rest()),
            }),
            _ => return Ok(None),
        }))
    }

    pub fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let trailing = match self {
            Event::Sfx(e) | Event::SfxGrnd(e) => {
                out.put_i32(e.frame);
                put_line(out, &e.name).within("name")?;
                out.put_u32(e.range.0);
                out.put_u32(e.empty_slot_flag.0);
                &e.trailing
            }
            Event::Tag(e) => {
                out.put_i32(e.frame);
                put_line(out, &e.tag).within("tag")?;
                put_args(out, &e.args)?;
                &e.trailing
            }
            Event::Pfx(e) => {
                out.put_i32(e.frame);
                out.put_u32(e.handle.0);
                put_line(out, &e.emitter).within("emitter")?;
                put_line(out, &e.node).within("node")?;
                out.put_u32(e.attach.0);
                &e.trailing
            }
            Event::PfxStop(e) => {
                out.put_i32(e.frame);
                out.put_u32(e.handle.0);
                &e.trailing
            }
            Event::PfxGrnd(e) => {
                out.put_i32(e.frame);
                &e.trailing
            }
            Event::SetMesh(e) => {
                out.put_i32(e.frame);
                put_line(out, &e.mesh).within("mesh")?;
                &e.trailing
            }
            Event::SwapMesh(e) => {
                out.put_i32(e.frame);
                put_line(out, &e.slot1).within("slot1")?;
                put_line(out, &e.slot2).within("slot2")?;
                &e.trailing
            }
            Event::MmStartAni(e) => {
                out.put_i32(e.frame);
                put_line(out, &e.ani).within("ani")?;
                put_line(out, &e.node).within("node")?;
                out.put_u32(e.intensity.0);
                out.put_u32(e.hold_time.0);
                &e.trailing
            }
            Event::CamTremor(e) => {
                out.put_i32(e.frame);
                for v in [e.radius_squared, e.duration_ms, e.strength_xz, e.strength_y] {
                    out.put_u32(v.0);
                }
                &e.trailing
            }
        };
        out.extend_from_slice(trailing.as_bytes());
        Ok(())
    }
}

#[inline(always)]
fn read_args(cur: &mut Cursor<'_>) -> Result<[Text; 4], DecodeError> {
    let mut args: [Text; 4] = Default::default();
    for (i, a) in args.iter_mut().enumerate() {
        *a = read_line(cur).within_index(i).within("args")?;
    }
    Ok(args)
}

fn put_args(out: &mut Vec<u8>, args: &[Text; 4]) -> Result<(), EncodeError> {
    for (i, a) in args.iter().enumerate() {
        put_line(out, a).within_index(i).within("args")?;
    }
    Ok(())
}

fn read_events<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<Event>>, D::Error> {
    crate::zengin::tagged::read_list(d).map(Some)
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use crate::zengin::tagged::Variant;
        let k = self.kind();
        match self {
            Event::Sfx(e) | Event::SfxGrnd(e) => Variant(k, e).serialize(s),
            Event::Tag(e) => Variant(k, e).serialize(s),
            Event::Pfx(e) => Variant(k, e).serialize(s),
            Event::PfxStop(e) => Variant(k, e).serialize(s),
            Event::PfxGrnd(e) => Variant(k, e).serialize(s),
            Event::SetMesh(e) => Variant(k, e).serialize(s),
            Event::SwapMesh(e) => Variant(k, e).serialize(s),
            Event::MmStartAni(e) => Variant(k, e).serialize(s),
            Event::CamTremor(e) => Variant(k, e).serialize(s),
        }
    }
}

impl crate::zengin::tagged::OneOf for Event {
    const EXPECTING: &'static str = "an event: one of eventSFX, eventSFXGrnd, eventTag, eventPFX, eventPFXStop, eventPFXGrnd, eventSetMesh, eventSwapMesh, eventMMStartAni, eventCamTremor, as `kind: {...}`";
    const KINDS: &'static [&'static str] = EVENT_KINDS;
    fn read_variant<'de, A: serde::de::MapAccess<'de>>(
        kind: &str,
        map: &mut A,
    ) -> Result<Self, A::Error> {
        Ok(match kind {
            "eventSFX" => Event::Sfx(map.next_value()?),
            "eventSFXGrnd" => Event::SfxGrnd(map.next_value()?),
            "eventTag" => Event::Tag(map.next_value()?),
            "eventPFX" => Event::Pfx(map.next_value()?),
            "eventPFXStop" => Event::PfxStop(map.next_value()?),
            "eventPFXGrnd" => Event::PfxGrnd(map.next_value()?),
            "eventSetMesh" => Event::SetMesh(map.next_value()?),
            "eventSwapMesh" => Event::SwapMesh(map.next_value()?),
            "eventMMStartAni" => Event::MmStartAni(map.next_value()?),
            _ => Event::CamTremor(map.next_value()?),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Entries: reading and writing

impl Entry {
    pub fn id(&self) -> u16 {
        match self {
            Entry::Root(_) => ID_ROOT,
            Entry::Source(_) => ID_SOURCE,
            Entry::Model(_) => ID_MODEL,
            Entry::MeshAndTree(_) => ID_MESH_AND_TREE,
            Entry::RegisterMesh(_) => ID_REGISTER_MESH,
            Entry::AniEnum(_) => ID_ANI_ENUM,
            Entry::AniMaxFps(_) => ID_ANI_MAX_FPS,
            Entry::Ani(_) => ID_ANI,
            Entry::AniAlias(_) => ID_ANI_ALIAS,
            Entry::AniBlend(_) => ID_ANI_BLEND,
            Entry::AniSync(_) => ID_ANI_SYNC,
            Entry::AniComb(_) => ID_ANI_COMB,
            Entry::AniDisable(_) => ID_ANI_DISABLE,
            Entry::ModelTag(_) => ID_MODEL_TAG,
            Entry::AniEvents(_) => ID_ANI_EVENTS,
            Entry::Event(e) => e.id(),
            Entry::AniEventsEnd(_) => ID_ANI_EVENTS_END,
            Entry::AniEnumEnd(_) => ID_ANI_ENUM_END,
            Entry::ModelEnd(_) => ID_MODEL_END,
            Entry::End(_) => ID_END,
            Entry::Unknown(u) => u.id.0,
        }
    }

    /// The YAML key (script keyword) of this entry.
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::Root(_) => "root",
            Entry::Source(_) => "source",
            Entry::Model(_) => "model",
            Entry::MeshAndTree(_) => "meshAndTree",
            Entry::RegisterMesh(_) => "registerMesh",
            Entry::AniEnum(_) => "aniEnum",
            Entry::AniMaxFps(_) => "aniMaxFps",
            Entry::Ani(_) => "ani",
            Entry::AniAlias(_) => "aniAlias",
            Entry::AniBlend(_) => "aniBlend",
            Entry::AniSync(_) => "aniSync",
            Entry::AniComb(_) => "aniComb",
            Entry::AniDisable(_) => "aniDisable",
            Entry::ModelTag(_) => "modelTag",
            Entry::AniEvents(_) => "aniEvents",
            Entry::Event(e) => e.kind(),
            Entry::AniEventsEnd(_) => "aniEventsEnd",
            Entry::AniEnumEnd(_) => "aniEnumEnd",
            Entry::ModelEnd(_) => "modelEnd",
            Entry::End(_) => "end",
            Entry::Unknown(_) => "unknown",
        }
    }

    /// The folded event list of an animation entry.
    pub fn events(&self) -> Option<&Vec<Event>> {
        match self {
            Entry::Ani(a) => a.events.as_ref(),
            Entry::AniAlias(a) => a.events.as_ref(),
            Entry::AniBlend(a) => a.events.as_ref(),
            Entry::AniSync(a) => a.events.as_ref(),
            Entry::AniComb(a) => a.events.as_ref(),
            Entry::AniDisable(a) => a.events.as_ref(),
            _ => None,
        }
    }

    fn events_slot(&mut self) -> Option<&mut Option<Vec<Event>>> {
        match self {
            Entry::Ani(a) => Some(&mut a.events),
            Entry::AniAlias(a) => Some(&mut a.events),
            Entry::AniBlend(a) => Some(&mut a.events),
            Entry::AniSync(a) => Some(&mut a.events),
            Entry::AniComb(a) => Some(&mut a.events),
            Entry::AniDisable(a) => Some(&mut a.events),
            _ => None,
        }
    }

    /// Decode one chunk (no folding). Inlined into [`Msb::read`] so the entry is built where it
    /// is pushed rather than copied there (an entry is 200 bytes).
    #[inline(always)]
    fn read(id: u16, payload: &[u8], cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let marker = |cur: &mut Cursor<'_>| Marker {
            trailing: Blob::new(cur.rest()),
        };
        Ok(match id {
            ID_ROOT => Entry::Root(Root {
                version: cur.u32().within("version")?,
                directory: read_line(cur).within("directory")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_SOURCE => Entry::Source(Source {
                date: ZDate::read(cur).within("date")?,
                path: read_line(cur).within("path")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_MODEL => Entry::Model(marker(cur)),
            ID_MESH_AND_TREE => Entry::MeshAndTree(MeshAndTree {
                dont_use_mesh: Bool32(cur.u32().within("dont_use_mesh")?),
                mesh: read_line(cur).within("mesh")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_REGISTER_MESH => Entry::RegisterMesh(Name {
                name: read_line(cur).within("name")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_ANI_ENUM => Entry::AniEnum(marker(cur)),
            ID_ANI_MAX_FPS => Entry::AniMaxFps(AniMaxFps {
                fps: read_f32(cur).within("fps")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_ANI => Entry::Ani(Ani {
                name: read_line(cur).within("name")?,
                layer: cur.i32().within("layer")?,
                next: read_line(cur).within("next")?,
                blend_in: read_f32(cur).within("blend_in")?,
                blend_out: read_f32(cur).within("blend_out")?,
                flags: read_line(cur).within("flags")?,
                asc: read_line(cur).within("asc")?,
                direction: read_line(cur).within("direction")?,
                first_frame: cur.i32().within("first_frame")?,
                last_frame: cur.i32().within("last_frame")?,
                fps: read_f32(cur).within("fps")?,
                speed: read_f32(cur).within("speed")?,
                collision_volume_scale: read_f32(cur).within("collision_volume_scale")?,
                trailing: Blob::new(cur.rest()),
                events: None,
            }),
            ID_ANI_ALIAS => Entry::AniAlias(AniAlias {
                name: read_line(cur).within("name")?,
                layer: cur.i32().within("layer")?,
                next: read_line(cur).within("next")?,
                blend_in: read_f32(cur).within("blend_in")?,
                blend_out: read_f32(cur).within("blend_out")?,
                flags: read_line(cur).within("flags")?,
                alias_of: read_line(cur).within("alias_of")?,
                direction: read_line(cur).within("direction")?,
                trailing: Blob::new(cur.rest()),
                events: None,
            }),
            ID_ANI_BLEND => Entry::AniBlend(AniBlend {
                name: read_line(cur).within("name")?,
                next: read_line(cur).within("next")?,
                blend_in: read_f32(cur).within("blend_in")?,
                blend_out: read_f32(cur).within("blend_out")?,
                trailing: Blob::new(cur.rest()),
                events: None,
            }),
            ID_ANI_SYNC => Entry::AniSync(AniSync {
                name: read_line(cur).within("name")?,
                next: read_line(cur).within("next")?,
                trailing: Blob::new(cur.rest()),
                events: None,
            }),
            ID_ANI_COMB => Entry::AniComb(AniComb {
                name: read_line(cur).within("name")?,
                layer: cur.i32().within("layer")?,
                next: read_line(cur).within("next")?,
                blend_in: read_f32(cur).within("blend_in")?,
                blend_out: read_f32(cur).within("blend_out")?,
                flags: read_line(cur).within("flags")?,
                prefix: read_line(cur).within("prefix")?,
                count: cur.i32().within("count")?,
                trailing: Blob::new(cur.rest()),
                events: None,
            }),
            ID_ANI_DISABLE => Entry::AniDisable(AniDisable {
                name: read_line(cur).within("name")?,
                trailing: Blob::new(cur.rest()),
                events: None,
            }),
            ID_MODEL_TAG => Entry::ModelTag(ModelTag {
                tag: read_line(cur).within("tag")?,
                args: read_args(cur)?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_ANI_EVENTS => Entry::AniEvents(AniEvents {
                count: cur.u32().within("count")?,
                trailing: Blob::new(cur.rest()),
            }),
            ID_ANI_EVENTS_END => Entry::AniEventsEnd(marker(cur)),
            ID_ANI_ENUM_END => Entry::AniEnumEnd(marker(cur)),
            ID_MODEL_END => Entry::ModelEnd(marker(cur)),
            ID_END => Entry::End(marker(cur)),
            id => match Event::read(id, cur)? {
                Some(e) => Entry::Event(e),
                None => {
                    cur.rest();
                    Entry::Unknown(Unknown {
                        id: Hex16(id),
                        data: Blob::new(payload),
                    })
                }
            },
        })
    }

    /// Write this entry's own chunk payload (not the folded events).
    fn put_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let trailing = match self {
            Entry::Root(r) => {
                out.put_u32(r.version);
                put_line(out, &r.directory).within("directory")?;
                &r.trailing
            }
            Entry::Source(s) => {
                s.date.put(out);
                put_line(out, &s.path).within("path")?;
                &s.trailing
            }
            Entry::Model(m)
            | Entry::AniEnum(m)
            | Entry::AniEventsEnd(m)
            | Entry::AniEnumEnd(m)
            | Entry::ModelEnd(m)
            | Entry::End(m) => &m.trailing,
            Entry::MeshAndTree(m) => {
                out.put_u32(m.dont_use_mesh.0);
                put_line(out, &m.mesh).within("mesh")?;
                &m.trailing
            }
            Entry::RegisterMesh(n) => {
                put_line(out, &n.name).within("name")?;
                &n.trailing
            }
            Entry::AniMaxFps(a) => {
                out.put_u32(a.fps.0);
                &a.trailing
            }
            Entry::Ani(a) => {
                put_line(out, &a.name).within("name")?;
                out.put_i32(a.layer);
                put_line(out, &a.next).within("next")?;
                out.put_u32(a.blend_in.0);
                out.put_u32(a.blend_out.0);
                put_line(out, &a.flags).within("flags")?;
                put_line(out, &a.asc).within("asc")?;
                put_line(out, &a.direction).within("direction")?;
                out.put_i32(a.first_frame);
                out.put_i32(a.last_frame);
                out.put_u32(a.fps.0);
                out.put_u32(a.speed.0);
                out.put_u32(a.collision_volume_scale.0);
                &a.trailing
            }
            Entry::AniAlias(a) => {
                put_line(out, &a.name).within("name")?;
                out.put_i32(a.layer);
                put_line(out, &a.next).within("next")?;
                out.put_u32(a.blend_in.0);
                out.put_u32(a.blend_out.0);
                put_line(out, &a.flags).within("flags")?;
                put_line(out, &a.alias_of).within("alias_of")?;
                put_line(out, &a.direction).within("direction")?;
                &a.trailing
            }
            Entry::AniBlend(a) => {
                put_line(out, &a.name).within("name")?;
                put_line(out, &a.next).within("next")?;
                out.put_u32(a.blend_in.0);
                out.put_u32(a.blend_out.0);
                &a.trailing
            }
            Entry::AniSync(a) => {
                put_line(out, &a.name).within("name")?;
                put_line(out, &a.next).within("next")?;
                &a.trailing
            }
            Entry::AniComb(a) => {
                put_line(out, &a.name).within("name")?;
                out.put_i32(a.layer);
                put_line(out, &a.next).within("next")?;
                out.put_u32(a.blend_in.0);
                out.put_u32(a.blend_out.0);
                put_line(out, &a.flags).within("flags")?;
                put_line(out, &a.prefix).within("prefix")?;
                out.put_i32(a.count);
                &a.trailing
            }
            Entry::AniDisable(a) => {
                put_line(out, &a.name).within("name")?;
                &a.trailing
            }
            Entry::ModelTag(t) => {
                put_line(out, &t.tag).within("tag")?;
                put_args(out, &t.args)?;
                &t.trailing
            }
            Entry::AniEvents(e) => {
                out.put_u32(e.count);
                &e.trailing
            }
            Entry::Event(e) => return e.put(out),
            Entry::Unknown(u) => &u.data,
        };
        out.extend_from_slice(trailing.as_bytes());
        Ok(())
    }

    /// Write this entry's chunk and, for an animation with events, the event list chunks.
    fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        put_chunk(out, self.id(), |o| self.put_payload(o))?;
        if let Some(events) = self.events() {
            let count = u32::try_from(events.len())
                .map_err(|_| EncodeError::new("too many events"))
                .within("events")?;
            put_chunk(out, ID_ANI_EVENTS, |o| {
                o.put_u32(count);
                Ok(())
            })?;
            for (k, e) in events.iter().enumerate() {
                put_chunk(out, e.id(), |o| e.put(o))
                    .within_index(k)
                    .within("events")?;
            }
            put_chunk(out, ID_ANI_EVENTS_END, |_| Ok(()))?;
        }
        Ok(())
    }
}

impl Msb {
    pub fn read(data: &[u8]) -> Result<Self, DecodeError> {
        // A first pass over the chunk headers only: a damaged container is reported before any
        // payload, and the entry list is sized once. Event chunks usually fold into their
        // animation, so only the others count.
        let mut others = 0;
        for c in chunk::Chunks::new(data) {
            if !(ID_ANI_EVENTS..=ID_ANI_EVENTS_END).contains(&c?.id) {
                others += 1;
            }
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(others + 1);
        let mut chunks = chunk::Chunks::new(data);
        while let Some(c) = chunks.next() {
            let c = c?;
            let i = chunks.index() - 1;
            let mut cur = c.cursor();
            let entry = match Entry::read(c.id, c.payload, &mut cur) {
                Ok(e) => e,
                Err(e) => return Err(chunk_error(e, i, c.id)),
            };
            // Fold an engine-shaped event list into the animation before it.
            if let Entry::AniEvents(ev) = &entry {
                if let Some(n) = foldable(chunks.clone(), ev) {
                    if let Some(slot) = entries.last_mut().and_then(Entry::events_slot) {
                        if slot.is_none() {
                            let mut list = Vec::with_capacity(n);
                            for k in i + 1..=i + n {
                                let Some(e) = chunks.next().transpose()? else {
                                    break;
                                };
                                let mut cur = e.cursor();
                                let ev = Event::read(e.id, &mut cur)
                                    .map_err(|err| chunk_error(err, k, e.id))?;
                                if let Some(ev) = ev {
                                    list.push(ev);
                                }
                            }
                            // the empty ANIEVENTS_END that `foldable` saw
                            chunks.next().transpose()?;
                            *slot = Some(list);
                            continue;
                        }
                    }
                }
            }
            entries.push(entry);
        }
        Ok(Msb { entries })
    }

    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        for (i, e) in self.entries.iter().enumerate() {
            e.put(out)
                .within(e.kind())
                .within_index(i)
                .within("entries")?;
        }
        Ok(())
    }

    /// The encoded size of entry `i` (its chunk and any folded events).
    fn entry_ranges(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::with_capacity(self.entries.len());
        let mut buf = Vec::new();
        let mut at = 0;
        for e in &self.entries {
            buf.clear();
            let _ = e.put(&mut buf);
            out.push((at, at + buf.len()));
            at += buf.len();
        }
        out
    }

    pub fn field_at(&self, offset: u64) -> String {
        let offset = offset as usize;
        for (i, (start, end)) in self.entry_ranges().into_iter().enumerate() {
            if offset >= end {
                continue;
            }
            let e = &self.entries[i];
            let p = FieldPath::new().field("entries").index(i);
            let mut own = Vec::new();
            let _ = e.put_payload(&mut own);
            let own_end = start + chunk::HEADER_SIZE + own.len();
            if offset < start + chunk::HEADER_SIZE {
                return format!("{p}.{} (chunk header)", e.kind());
            }
            if offset < own_end {
                return format!("{p}.{}", e.kind());
            }
            // inside the folded event list
            let mut at = own_end + chunk::HEADER_SIZE + 4;
            if offset < at {
                return format!("{p}.{}.events (ANIEVENTS count)", e.kind());
            }
            for (k, ev) in e.events().into_iter().flatten().enumerate() {
                let mut b = Vec::new();
                let _ = ev.put(&mut b);
                at += chunk::HEADER_SIZE + b.len();
                if offset < at {
                    return format!("{p}.{}.events[{k}].{}", e.kind(), ev.kind());
                }
            }
            return format!("{p}.{}.events (ANIEVENTS_END)", e.kind());
        }
        format!("<past the end, offset {offset}>")
    }

    /// Counts of entries by kind (folded events counted by kind too).
    pub fn census(&self) -> Vec<(&'static str, usize)> {
        let mut out: Vec<(&'static str, usize)> = Vec::new();
        let mut bump = |k: &'static str| match out.iter_mut().find(|(n, _)| *n == k) {
            Some((_, c)) => *c += 1,
            None => out.push((k, 1)),
        };
        for e in &self.entries {
            bump(e.kind());
            for ev in e.events().into_iter().flatten() {
                bump(ev.kind());
            }
        }
        out
    }
}

/// `Some(n)` when the ANIEVENTS chunk `ev` (just read; `next` yields what follows it) opens
/// exactly what the engine writes: a bare 4-byte count `n`, then `n` event chunks, then an
/// empty ANIEVENTS_END.
fn foldable(mut next: chunk::Chunks<'_>, ev: &AniEvents) -> Option<usize> {
    if !ev.trailing.is_empty() {
        return None;
    }
    let n = ev.count as usize;
    for _ in 0..n {
        let c = next.next()?.ok()?;
        if !(ID_EVENT_SFX..=ID_EVENT_CAM_TREMOR).contains(&c.id) {
            return None;
        }
    }
    let end = next.next()?.ok()?;
    (end.id == ID_ANI_EVENTS_END && end.payload.is_empty()).then_some(n)
}

/// `chunks[i].<kind>.…` on an error from chunk `i`.
#[cold]
fn chunk_error(mut e: DecodeError, i: usize, id: u16) -> DecodeError {
    use crate::exact::Segment;
    e.path.prefix(Segment::Field(chunk_kind_name(id)));
    e.path.prefix(Segment::Index(i));
    e.path.prefix(Segment::Field("chunks"));
    e
}

/// The field name used in error paths for chunk `id`.
fn chunk_kind_name(id: u16) -> &'static str {
    match id {
        ID_ROOT => "root",
        ID_SOURCE => "source",
        ID_MODEL => "model",
        ID_MESH_AND_TREE => "meshAndTree",
        ID_REGISTER_MESH => "registerMesh",
        ID_ANI_ENUM => "aniEnum",
        ID_ANI_MAX_FPS => "aniMaxFps",
        ID_ANI => "ani",
        ID_ANI_ALIAS => "aniAlias",
        ID_ANI_BLEND => "aniBlend",
        ID_ANI_SYNC => "aniSync",
        ID_ANI_COMB => "aniComb",
        ID_ANI_DISABLE => "aniDisable",
        ID_MODEL_TAG => "modelTag",
        ID_ANI_EVENTS => "aniEvents",
        ID_EVENT_SFX..=ID_EVENT_CAM_TREMOR => EVENT_KINDS[(id - ID_EVENT_SFX) as usize],
        _ => "chunk",
    }
}

#[cfg(test)]
pub(crate) mod tests;
