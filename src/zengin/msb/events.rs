//! The event chunks of an animation (SFX, PFX, tags, mesh swaps, camera tremors...): each read and
//! written side by side, and their one-key YAML form.

use super::fields::{Fields, Sink};
use super::runs::{FrameHandle, Intensity, SfxRange, Tremor};
use super::{
    ID_EVENT_CAM_TREMOR, ID_EVENT_MM_START_ANI, ID_EVENT_PFX, ID_EVENT_PFX_GRND, ID_EVENT_PFX_STOP,
    ID_EVENT_SET_MESH, ID_EVENT_SFX, ID_EVENT_SFX_GRND, ID_EVENT_SWAP_MESH, ID_EVENT_TAG,
};
use crate::exact::{Blob, Cursor, DecodeError, EncodeError, Within, Writer, F32};
use crate::zengin::script::{self, EventBodies};
use crate::zengin::stext::ShortText as Text;
use crate::zengin::types::{put_bytes_line, put_short_line as put_line};
use serde::{Deserialize, Serialize};

impl EventBodies for super::Compiled {
    type Sfx = Sfx;
    type Tag = Tag;
    type Pfx = Pfx;
    type PfxStop = PfxStop;
    type PfxGrnd = FrameOnly;
    type SetMesh = SetMesh;
    type SwapMesh = SwapMesh;
    type MmStartAni = MmStartAni;
    type CamTremor = CamTremor;
    const EXPECTING: &'static str = "an event: one of eventSFX, eventSFXGrnd, eventTag, eventPFX, eventPFXStop, eventPFXGrnd, eventSetMesh, eventSwapMesh, eventMMStartAni, eventCamTremor, as `kind: {...}`";
    const SCHEMA_DOC: Option<&'static str> =
        Some("The schema-side spelling of an event: `{eventSFX: {...}}`.");
}

/// One animation event chunk (0xF5A1–0xF5AA).
pub type Event = script::Event<super::Compiled>;

// At most 128 bytes, so pushing an event onto its list is a few inline moves and not a call to
// `memmove` (that call was 16 % of MSB parsing when the tag event was 152 bytes).
const _: () = assert!(std::mem::size_of::<Event>() <= 128);
/// The schema of an event.
pub type EventDoc = script::EventDoc<super::Compiled>;
pub use script::EVENT_KEYWORDS as EVENT_KINDS;

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
    pub args: super::Args,
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

impl script::Event<super::Compiled> {
    /// The chunk id: 0xF5A1 + the kind's position.
    pub fn id(&self) -> u16 {
        ID_EVENT_SFX + self.index() as u16
    }
    pub fn kind(&self) -> &'static str {
        self.keyword()
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
        Self::read_one(id, cur)
    }

    /// [`Event::read_into`] a single slot.
    #[inline(always)]
    pub(crate) fn read_one<'a, F: Fields<'a>>(id: u16, f: &mut F) -> Result<Option<Self>, F::Err> {
        let mut one = None;
        Self::read_into(id, f, &mut one)?;
        Ok(one)
    }

    /// The event layouts, once, for both field sources ([`Fields`]): reads the payload of event
    /// chunk `id` into `out`; `false` when `id` is not an event. The event is built where `out`
    /// keeps it (an event is 150 bytes; returning it cost two copies, 14 % of MSB parsing).
    #[inline(always)]
    pub(crate) fn read_into<'a, F: Fields<'a>>(
        id: u16,
        f: &mut F,
        out: &mut impl Sink<Event>,
    ) -> Result<bool, F::Err> {
        // Each arm puts its own variant: a copy of that variant only, not of a whole `Event`.
        match id {
            ID_EVENT_SFX | ID_EVENT_SFX_GRND => {
                let frame = f.i32("frame")?;
                let name = f.line("name")?;
                let r: SfxRange = f.record()?;
                let e = Sfx {
                    frame,
                    name,
                    range: r.range,
                    empty_slot_flag: r.empty_slot_flag,
                    trailing: f.rest(),
                };
                out.put(if id == ID_EVENT_SFX {
                    Event::Sfx(e)
                } else {
                    Event::SfxGrnd(e)
                })
            }
            ID_EVENT_TAG => out.put(Event::Tag(Tag {
                frame: f.i32("frame")?,
                tag: f.line("tag")?,
                args: f.args()?,
                trailing: f.rest(),
            })),
            ID_EVENT_PFX => {
                let h: FrameHandle = f.record()?;
                out.put(Event::Pfx(Pfx {
                    frame: h.frame,
                    handle: h.handle,
                    emitter: f.line("emitter")?,
                    node: f.line("node")?,
                    attach: f.f32("attach")?,
                    trailing: f.rest(),
                }))
            }
            ID_EVENT_PFX_STOP => {
                let h: FrameHandle = f.record()?;
                out.put(Event::PfxStop(PfxStop {
                    frame: h.frame,
                    handle: h.handle,
                    trailing: f.rest(),
                }))
            }
            ID_EVENT_PFX_GRND => out.put(Event::PfxGrnd(FrameOnly {
                frame: f.i32("frame")?,
                trailing: f.rest(),
            })),
            ID_EVENT_SET_MESH => out.put(Event::SetMesh(SetMesh {
                frame: f.i32("frame")?,
                mesh: f.line("mesh")?,
                trailing: f.rest(),
            })),
            ID_EVENT_SWAP_MESH => out.put(Event::SwapMesh(SwapMesh {
                frame: f.i32("frame")?,
                slot1: f.line("slot1")?,
                slot2: f.line("slot2")?,
                trailing: f.rest(),
            })),
            ID_EVENT_MM_START_ANI => {
                let frame = f.i32("frame")?;
                let ani = f.line("ani")?;
                let node = f.line("node")?;
                let i: Intensity = f.record()?;
                out.put(Event::MmStartAni(MmStartAni {
                    frame,
                    ani,
                    node,
                    intensity: i.intensity,
                    hold_time: i.hold_time,
                    trailing: f.rest(),
                }))
            }
            ID_EVENT_CAM_TREMOR => {
                let t: Tremor = f.record()?;
                out.put(Event::CamTremor(CamTremor {
                    frame: t.frame,
                    radius_squared: t.radius_squared,
                    duration_ms: t.duration_ms,
                    strength_xz: t.strength_xz,
                    strength_y: t.strength_y,
                    trailing: f.rest(),
                }))
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    pub fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let trailing = match self {
            Event::Sfx(e) | Event::SfxGrnd(e) => {
                out.put_i32(e.frame);
                put_line(out, &e.name).within("name")?;
                let r = SfxRange {
                    range: e.range,
                    empty_slot_flag: e.empty_slot_flag,
                };
                out.put_plain(&r);
                &e.trailing
            }
            Event::Tag(e) => {
                out.put_i32(e.frame);
                put_line(out, &e.tag).within("tag")?;
                put_args(out, &e.args)?;
                &e.trailing
            }
            Event::Pfx(e) => {
                out.put_plain(&frame_handle(e.frame, e.handle));
                put_line(out, &e.emitter).within("emitter")?;
                put_line(out, &e.node).within("node")?;
                out.put_u32(e.attach.0);
                &e.trailing
            }
            Event::PfxStop(e) => {
                out.put_plain(&frame_handle(e.frame, e.handle));
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
                let i = Intensity {
                    intensity: e.intensity,
                    hold_time: e.hold_time,
                };
                out.put_plain(&i);
                &e.trailing
            }
            Event::CamTremor(e) => {
                let t = Tremor {
                    frame: e.frame,
                    radius_squared: e.radius_squared,
                    duration_ms: e.duration_ms,
                    strength_xz: e.strength_xz,
                    strength_y: e.strength_y,
                };
                out.put_plain(&t);
                &e.trailing
            }
        };
        out.extend_from_slice(trailing.as_bytes());
        Ok(())
    }
}

fn frame_handle(frame: i32, handle: F32) -> FrameHandle {
    FrameHandle { frame, handle }
}

pub(super) fn put_args(out: &mut Vec<u8>, args: &super::Args) -> Result<(), EncodeError> {
    for (i, a) in args.iter().enumerate() {
        put_bytes_line(out, a).within_index(i).within("args")?;
    }
    Ok(())
}
