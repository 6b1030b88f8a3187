//! Sequence events (spec §6): the 12-byte event header and every MechWarrior 3 payload layout,
//! including the variable-size SI script and the 580-byte puffer state.
//!
//! Every payload field is kept as stored (flags as named bits, indices as references, floats by
//! their bits, deltas as stored), so any event round-trips. The copy of a light's / puffer's /
//! dynamic sound's name that some events carry is derived from the referenced item when it
//! matches it (then YAML omits it), and kept as stored when it does not.

mod dynamic;
mod fixed;
mod flag_sets;
mod puffer;

pub use dynamic::{If, Loop, SiFrame, SiRotate, SiScript, SiVec};
pub use fixed::*;
pub use flag_sets::*;
pub use puffer::*;

use super::prim::Z;
use super::ref_fields::VisitRefs;
use super::refs::{Names, RefKind, RefVisitor};
use crate::exact::record::Record;
use crate::exact::{Cursor, DecodeError, EncodeError, Within, F32};
use deku::ctx::Endian;
use deku::no_std_io::{Read, Seek, Write};
use deku::reader::Reader;
use deku::writer::Writer;
use deku::{DekuError, DekuReader, DekuSize, DekuWriter};
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

// ---------------------------------------------------------------------------------------------
// The copy of a referenced item's name

/// A name an event stores next to an index (LIGHT_STATE, LIGHT_ANIMATION, SOUND_NODE,
/// PUFFER_STATE). `None` = equal to the referenced item's name (regenerated when writing).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ItemName(pub Option<Z<32>>);

impl ItemName {
    pub fn is_derived(&self) -> bool {
        self.0.is_none()
    }
    /// Drop the stored copy when it is exactly the referenced item's name.
    fn derive(&mut self, item: Option<&[u8]>) {
        if let (Some(s), Some(t)) = (&self.0, item) {
            if s.is_clean() && s.text() == t {
                self.0 = None;
            }
        }
    }
}

// On disk: the 32-byte name buffer. A derived copy is written as zeros here and filled in by
// [`Event::write`], which knows the referenced item (the copy is each such payload's first field).
impl<'a> DekuReader<'a, Endian> for ItemName {
    #[inline]
    fn from_reader_with_ctx<R: Read + Seek>(
        reader: &mut Reader<R>,
        ctx: Endian,
    ) -> Result<Self, DekuError> {
        Z::<32>::from_reader_with_ctx(reader, ctx).map(|s| ItemName(Some(s)))
    }
}

impl DekuWriter<Endian> for ItemName {
    #[inline]
    fn to_writer<W: Write + Seek>(
        &self,
        writer: &mut Writer<W>,
        ctx: Endian,
    ) -> Result<(), DekuError> {
        match &self.0 {
            Some(s) => s.to_writer(writer, ctx),
            None => writer.write_bytes(&[0; 32]),
        }
    }
}

impl DekuSize for ItemName {
    const SIZE_BITS: usize = 32 * 8;
}

impl crate::exact::record::Shape for ItemName {}

// ---------------------------------------------------------------------------------------------
// Flags and enums

// ---------------------------------------------------------------------------------------------
// Fixed payloads

// ---------------------------------------------------------------------------------------------
// Payloads with a data-dependent layout

// ---------------------------------------------------------------------------------------------
// The event enum

macro_rules! events {
    ($($code:literal => $var:ident($ty:ty) $name:literal),* $(,)?) => {
        /// An event's payload, by type.
        #[derive(Debug, Clone, PartialEq)]
        pub enum EventData {
            $($var($ty),)*
        }

        /// The names of the event types, by code.
        pub const EVENT_TYPES: &[(u8, &str)] = &[$(($code, $name)),*];

        impl EventData {
            /// The type code.
            pub fn code(&self) -> u8 {
                match self { $(EventData::$var(_) => $code,)* }
            }
            /// The YAML name of the type.
            pub fn name(&self) -> &'static str {
                match self { $(EventData::$var(_) => $name,)* }
            }
            fn read_payload(code: u8, c: &mut Cursor) -> Result<Option<Self>, DecodeError> {
                Ok(Some(match code {
                    $($code => EventData::$var(<$ty as Payload>::read_payload(c)?),)*
                    _ => return Ok(None),
                }))
            }
            /// The payload size a type requires (`None`: variable).
            pub fn fixed_size(code: u8) -> Option<Option<usize>> {
                match code {
                    $($code => Some(<$ty as Payload>::FIXED),)*
                    _ => None,
                }
            }
            fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                match self { $(EventData::$var(p) => p.write_payload(out),)* }
            }
            pub fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
                match self { $(EventData::$var(p) => p.refs(v),)* }
            }
            fn ser_entry<M: serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                match self { $(EventData::$var(p) => m.serialize_entry($name, p),)* }
            }
            fn de_entry<'de, A: de::MapAccess<'de>>(key: &str, m: &mut A) -> Result<Option<Self>, A::Error> {
                Ok(Some(match key {
                    $($name => EventData::$var(m.next_value()?),)*
                    _ => return Ok(None),
                }))
            }
            fn schema_properties(g: &mut schemars::gen::SchemaGenerator) -> Vec<(&'static str, schemars::schema::Schema)> {
                vec![$(($name, g.subschema_for::<$ty>()),)*]
            }
        }
    };
}

/// How an event payload type is read and written inside its event.
trait Payload: Sized {
    /// The payload size, or `None` for the variable-size SI script.
    const FIXED: Option<usize>;
    fn read_payload(c: &mut Cursor) -> Result<Self, DecodeError>;
    fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;
    fn refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError>;
}

/// A payload declared as a record.
impl<T: Record + VisitRefs> Payload for T {
    const FIXED: Option<usize> = Some(<T as Record>::SIZE);
    #[inline]
    fn read_payload(c: &mut Cursor) -> Result<Self, DecodeError> {
        c.read()
    }
    #[inline]
    fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        crate::exact::Writer::put(out, self)
    }
    fn refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        self.visit_refs(v)
    }
}

/// The large payloads are boxed in [`EventData`] (small events keep the enum small: every
/// event is moved a few times while a document is read, a copy of the largest variant each
/// time; the six boxed last, of 128–168 bytes once a named reference took 32, made the enum
/// 176 bytes and those copies about 8 % of an MW3 import's CPU time).
macro_rules! boxed_payload {
    ($($t:ty),*) => {$(
        impl Payload for Box<$t> {
            const FIXED: Option<usize> = Some(<$t as Record>::SIZE);
            #[inline]
            fn read_payload(c: &mut Cursor) -> Result<Self, DecodeError> {
                c.read::<$t>().map(Box::new)
            }
            #[inline]
            fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
                crate::exact::Writer::put(out, &**self)
            }
            fn refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
                (**self).visit_refs(v)
            }
        }
    )*};
}
boxed_payload!(
    LightState,
    ObjectMotion,
    ObjectMotionFromTo,
    PufferState,
    SoundNode,
    LightAnimation,
    ObjectConnector,
    CallObjectConnector,
    CameraFromTo,
    CallAnimation
);

/// LOOP: its value bytes by its flags.
impl Payload for Loop {
    const FIXED: Option<usize> = Some(<dynamic::LoopRecord as Record>::SIZE);
    fn read_payload(c: &mut Cursor) -> Result<Self, DecodeError> {
        c.read().map(Loop::from_record)
    }
    fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        crate::exact::Writer::put(out, &self.record()?)
    }
    fn refs(&mut self, _: &mut RefVisitor) -> Result<(), EncodeError> {
        Ok(())
    }
}

/// The SI script is the only variable-size payload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct SiScriptPayload(pub SiScript);

impl Payload for SiScriptPayload {
    const FIXED: Option<usize> = None;
    fn read_payload(c: &mut Cursor) -> Result<Self, DecodeError> {
        SiScript::read(c).map(SiScriptPayload)
    }
    fn write_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.0.write(out)
    }
    fn refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        self.0.node.visit_refs(v).within("node")
    }
}

events! {
    1 => Sound(Sound) "sound",
    2 => SoundNode(Box<SoundNode>) "sound_node",
    3 => Effect(Effect) "effect",
    4 => LightState(Box<LightState>) "light_state",
    5 => LightAnimation(Box<LightAnimation>) "light_animation",
    6 => ObjectActiveState(ObjectActiveState) "object_active_state",
    7 => ObjectTranslateState(ObjectTranslateState) "object_translate_state",
    8 => ObjectScaleState(ObjectScaleState) "object_scale_state",
    9 => ObjectRotateState(ObjectRotateState) "object_rotate_state",
    10 => ObjectMotion(Box<ObjectMotion>) "object_motion",
    11 => ObjectMotionFromTo(Box<ObjectMotionFromTo>) "object_motion_from_to",
    12 => ObjectMotionSiScript(SiScriptPayload) "object_motion_si_script",
    13 => ObjectOpacityState(ObjectOpacityState) "object_opacity_state",
    14 => ObjectOpacityFromTo(ObjectOpacityFromTo) "object_opacity_from_to",
    15 => ObjectAddChild(ObjectChild) "object_add_child",
    16 => ObjectDeleteChild(ObjectChild) "object_delete_child",
    17 => ObjectCycleTexture(ObjectCycleTexture) "object_cycle_texture",
    18 => ObjectConnector(Box<ObjectConnector>) "object_connector",
    19 => CallObjectConnector(Box<CallObjectConnector>) "call_object_connector",
    20 => CameraState(CameraState) "camera_state",
    21 => CameraFromTo(Box<CameraFromTo>) "camera_from_to",
    22 => CallSequence(SequenceRef) "call_sequence",
    23 => StopSequence(SequenceRef) "stop_sequence",
    24 => CallAnimation(Box<CallAnimation>) "call_animation",
    25 => StopAnimation(StopAnimation) "stop_animation",
    26 => ResetAnimation(AnimationRef) "reset_animation",
    27 => InvalidateAnimation(AnimationRef) "invalidate_animation",
    28 => FogState(FogState) "fog_state",
    30 => Loop(Loop) "loop",
    31 => If(If) "if",
    32 => Else(Empty) "else",
    33 => Elseif(If) "elseif",
    34 => Endif(Empty) "endif",
    35 => Callback(Callback) "callback",
    36 => FbfxColorFromTo(FbfxColorFromTo) "fbfx_color_from_to",
    41 => DetonateWeapon(DetonateWeapon) "detonate_weapon",
    42 => PufferState(Box<PufferState>) "puffer_state",
}

impl EventData {
    /// The referenced item whose name this event keeps a copy of.
    fn item_ref(&self) -> Option<(RefKind, i32)> {
        match self {
            EventData::SoundNode(p) => Some((RefKind::DynamicSound, p.sound.index())),
            EventData::LightState(p) => Some((RefKind::Light, p.light.index())),
            EventData::LightAnimation(p) => Some((RefKind::Light, p.light.index())),
            EventData::PufferState(p) => Some((RefKind::Puffer, p.puffer.index())),
            _ => None,
        }
    }
    fn item_name(&self) -> Option<&ItemName> {
        match self {
            EventData::SoundNode(p) => Some(&p.name),
            EventData::LightState(p) => Some(&p.name),
            EventData::LightAnimation(p) => Some(&p.name),
            EventData::PufferState(p) => Some(&p.name),
            _ => None,
        }
    }
    fn item_name_mut(&mut self) -> Option<&mut ItemName> {
        match self {
            EventData::SoundNode(p) => Some(&mut p.name),
            EventData::LightState(p) => Some(&mut p.name),
            EventData::LightAnimation(p) => Some(&mut p.name),
            EventData::PufferState(p) => Some(&mut p.name),
            _ => None,
        }
    }
}

/// The size of the event header.
pub const EVENT_HEADER_SIZE: usize = 12;

crate::record! {
    /// The event header as stored (spec §6); the payload follows.
    struct EventHeader: little {
        code: u8,
        start_offset: StartOffset,
        pad: u16,
        /// Header + payload.
        size: u32,
        start_time: F32,
    }
}

const _: () = assert!(<EventHeader as Record>::SIZE == EVENT_HEADER_SIZE);

/// One event: header fields and payload. The event's size is derived from the payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub start_offset: StartOffset,
    pub pad: u16,
    pub start_time: F32,
    pub data: EventData,
}

impl Event {
    pub fn new(data: EventData) -> Self {
        Event {
            start_offset: StartOffset(1),
            pad: 0,
            start_time: F32(0),
            data,
        }
    }

    /// Read one event from an event stream (the cursor covers the rest of the stream).
    pub fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let at = c.offset();
        if c.remaining() < EVENT_HEADER_SIZE {
            return Err(DecodeError::invalid(
                at,
                format!(
                    "event header needs {EVENT_HEADER_SIZE} bytes but the stream has {} left",
                    c.remaining()
                ),
            ));
        }
        let EventHeader {
            code,
            start_offset,
            pad,
            size,
            start_time,
        } = c.read()?;
        let size_at = at + 4;
        let Some(fixed) = EventData::fixed_size(code) else {
            return Err(DecodeError::invalid(
                at,
                format!("unknown event type {code}"),
            ))
            .within("type");
        };
        let bad_size = |msg: String| Err(DecodeError::invalid(size_at, msg)).within("size");
        let Some(payload_len) = (size as usize).checked_sub(EVENT_HEADER_SIZE) else {
            return bad_size(format!(
                "event size {size} is smaller than its 12-byte header"
            ));
        };
        let name = || {
            EVENT_TYPES
                .iter()
                .find(|(c, _)| *c == code)
                .map_or("?", |(_, n)| *n)
        };
        if let Some(want) = fixed {
            if payload_len != want {
                return bad_size(format!(
                    "event size {size} disagrees with type {code} ({}), which is {} bytes",
                    name(),
                    want + EVENT_HEADER_SIZE
                ));
            }
        }
        if payload_len > c.remaining() {
            return bad_size(format!(
                "event size {size} runs past the end of its sequence ({} bytes left)",
                c.remaining() + EVENT_HEADER_SIZE
            ));
        }
        let base = c.offset();
        let bytes = c.bytes(payload_len)?;
        let mut pc = Cursor::new(bytes, base);
        let data = EventData::read_payload(code, &mut pc)
            .map_err(|mut e| {
                e.path.prefix(crate::exact::Segment::Field(name()));
                e
            })?
            .ok_or_else(|| DecodeError::invalid(at, format!("unknown event type {code}")))?;
        if !pc.is_empty() {
            return Err(DecodeError::invalid(
                pc.offset(),
                format!(
                    "the {} payload uses {} bytes but the event size says {payload_len}",
                    name(),
                    payload_len - pc.remaining()
                ),
            ))
            .within("size");
        }
        Ok(Event {
            start_offset,
            pad,
            start_time,
            data,
        })
    }

    pub fn write(&self, out: &mut Vec<u8>, names: &Names) -> Result<(), EncodeError> {
        let start = out.len();
        let header = EventHeader {
            code: self.data.code(),
            start_offset: self.start_offset,
            pad: self.pad,
            size: 0, // patched below
            start_time: self.start_time,
        };
        crate::exact::Writer::put(out, &header)?;
        self.data.write_payload(out).within(self.data.name())?;
        if let Some(ItemName(None)) = self.data.item_name() {
            // the derived copy of the referenced item's name (the payload's first 32 bytes)
            let item = self
                .data
                .item_ref()
                .and_then(|(kind, index)| names.item(kind, index))
                .ok_or_else(|| {
                    EncodeError::new(
                        "the name copy cannot be derived: the index does not resolve; give the name",
                    )
                })
                .within("name")
                .within(self.data.name())?;
            let copy = Z::<32>::from_parts(item, None)
                .within("name")
                .within(self.data.name())?;
            let at = start + EVENT_HEADER_SIZE;
            out[at..at + 32].copy_from_slice(copy.as_raw());
        }
        let size = u32::try_from(out.len() - start)
            .map_err(|_| EncodeError::new("event larger than 4 GiB"))?;
        out[start + 4..start + 8].copy_from_slice(&size.to_le_bytes());
        Ok(())
    }

    /// After decoding: drop the stored copy of the referenced item's name when it matches.
    pub fn derive_name_copy(&mut self, names: &Names) {
        let item = self
            .data
            .item_ref()
            .and_then(|(kind, index)| names.item(kind, index));
        if let Some(n) = self.data.item_name_mut() {
            n.derive(item);
        }
    }

    /// Store in every reference the name its index resolves to.
    pub fn attach_names(&mut self, names: &Names) {
        let _ = self.data.visit_refs(&mut |kind, r| {
            names.fill(kind, r);
            Ok(())
        });
    }
}

/// How many events a stream holds, from the size fields alone (an upper bound for a broken
/// stream; the reader reports the problem). Sizes the events vector exactly, since an event
/// in the model is often larger than on disk.
fn count_events(data: &[u8]) -> usize {
    let mut pos = 0usize;
    let mut n = 0usize;
    while let Some(size) = data.get(pos + 4..pos + 8) {
        n += 1;
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
        if size < EVENT_HEADER_SIZE {
            break;
        }
        pos = pos.saturating_add(size);
    }
    n
}

/// Read an event stream of exactly `data.len()` bytes starting at absolute `base`.
pub fn read_stream(data: &[u8], base: u64) -> Result<Vec<Event>, DecodeError> {
    let mut c = Cursor::new(data, base);
    let mut events = Vec::with_capacity(count_events(data));
    while !c.is_empty() {
        let i = events.len();
        events.push(Event::read(&mut c).within_index(i)?);
    }
    Ok(events)
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        // like mech3ax: no `start`/`time` for "at the start of the animation"
        if self.start_offset.0 != 1 {
            m.serialize_entry("start", &self.start_offset)?;
        }
        if self.start_time.0 != 0 {
            m.serialize_entry("time", &self.start_time)?;
        }
        if self.pad != 0 {
            m.serialize_entry("pad", &self.pad)?;
        }
        self.data.ser_entry(&mut m)?;
        m.end()
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Event;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an event: {start: ..., time: ..., <type>: {...}}")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Event, A::Error> {
                let mut start_offset = StartOffset(1);
                let mut start_time = F32(0);
                let mut pad = 0;
                let mut data = None;
                // (a borrowed key: no String per event)
                while let Some(super::prim::Key(k)) = m.next_key()? {
                    match &*k {
                        "start" => start_offset = m.next_value()?,
                        "time" => start_time = m.next_value()?,
                        "pad" => pad = m.next_value()?,
                        other => match EventData::de_entry(other, &mut m)? {
                            Some(_) if data.is_some() => {
                                return Err(de::Error::custom("an event has exactly one type"))
                            }
                            Some(x) => data = Some(x),
                            None => {
                                let known: Vec<&str> =
                                    EVENT_TYPES.iter().map(|(_, n)| *n).collect();
                                return Err(de::Error::custom(format!(
                                    "unknown event key `{other}` (start, time, pad, or a type: {})",
                                    known.join(", ")
                                )));
                            }
                        },
                    }
                }
                let data = data.ok_or_else(|| de::Error::custom("the event has no type key"))?;
                Ok(Event {
                    start_offset,
                    pad,
                    start_time,
                    data,
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl JsonSchema for Event {
    fn schema_name() -> String {
        "Event".into()
    }
    fn json_schema(g: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        use schemars::schema::{InstanceType, ObjectValidation, Schema, SchemaObject};
        let mut props = schemars::Map::new();
        props.insert("start".to_string(), g.subschema_for::<StartOffset>());
        props.insert("time".to_string(), g.subschema_for::<F32>());
        props.insert("pad".to_string(), g.subschema_for::<u16>());
        for (name, s) in EventData::schema_properties(g) {
            props.insert(name.to_string(), s);
        }
        let obj = SchemaObject {
            instance_type: Some(InstanceType::Object.into()),
            object: Some(Box::new(ObjectValidation {
                properties: props,
                additional_properties: Some(Box::new(Schema::Bool(false))),
                min_properties: Some(1),
                ..Default::default()
            })),
            metadata: Some(Box::new(schemars::schema::Metadata {
                description: Some(
                    "an event: its start (animation/sequence/event), time, and exactly one type key with the payload"
                        .into(),
                ),
                ..Default::default()
            })),
            ..Default::default()
        };
        Schema::Object(obj)
    }
}
