//! What a model script's text (`.MDS`, [`super::mds`]) and compiled (`.MSB`, [`super::msb`])
//! encodings share, said once: the `aniEnum` statements ([`statements`]: `ani`, `aniAlias` …,
//! declared once and instantiated per encoding) and the kinds of animation events, their
//! keywords, their one-key YAML form (`{eventSFX: {...}}`) in both directions and in the JSON
//! Schema.
//!
//! Each encoding gives every event kind its own body ([`EventBodies`]): the text keeps what the
//! line wrote (an omitted argument stays omitted, `EMPTY_SLOT` is a yes/no, the tremor radius as
//! written), the compiled file what the engine stored (every value resolved, the empty-slot flag
//! and the squared radius as floats, bytes after the last field). The bodies differ because they
//! hold different facts; the event list around them, its kinds and their spelling do not.

pub mod diff;
pub mod statements;

pub use statements::{
    Ani, AniAlias, AniBlend, AniComb, AniDisable, AniMaxFps, AniSync, Convert, Encoding, ModelTag,
    NotStored, Rule, Value,
};

use crate::zengin::tagged::{read_list, OneOf, Variant};
use schemars::gen::SchemaGenerator;
use schemars::schema::{InstanceType, ObjectValidation, Schema, SchemaObject, SubschemaValidation};
use schemars::JsonSchema;
use serde::de::{DeserializeOwned, MapAccess};
use serde::{Deserializer, Serialize, Serializer};
use std::fmt::Debug;
use std::marker::PhantomData;

/// The event keywords, in the order of the kinds (and of the MSB chunk ids 0xF5A1…0xF5AA).
pub const EVENT_KEYWORDS: &[&str] = &[
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

/// Positions in [`EVENT_KEYWORDS`]: what [`Event::index`] gives and the MDS parser dispatches on.
pub mod event_kind {
    pub const SFX: usize = 0;
    pub const SFX_GRND: usize = 1;
    pub const TAG: usize = 2;
    pub const PFX: usize = 3;
    pub const PFX_STOP: usize = 4;
    pub const PFX_GRND: usize = 5;
    pub const SET_MESH: usize = 6;
    pub const SWAP_MESH: usize = 7;
    pub const MM_START_ANI: usize = 8;
    pub const CAM_TREMOR: usize = 9;
}

/// A body type of an event: compared, printed, and read from and written to YAML.
pub trait Body: Debug + Clone + PartialEq + Serialize + DeserializeOwned + JsonSchema {}
impl<T: Debug + Clone + PartialEq + Serialize + DeserializeOwned + JsonSchema> Body for T {}

/// One encoding's body for each event kind.
pub trait EventBodies: Debug + Clone + PartialEq {
    /// `eventSFX` and `eventSFXGrnd`.
    type Sfx: Body;
    type Tag: Body;
    type Pfx: Body;
    type PfxStop: Body;
    type PfxGrnd: Body;
    type SetMesh: Body;
    type SwapMesh: Body;
    type MmStartAni: Body;
    type CamTremor: Body;
    /// What a YAML reader says it expected in place of an event.
    const EXPECTING: &'static str;
    /// The description of the schema's event (`EventDoc`), if any.
    const SCHEMA_DOC: Option<&'static str>;
}

/// One animation event, in an encoding's bodies `B`.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<B: EventBodies> {
    Sfx(B::Sfx),
    SfxGrnd(B::Sfx),
    Tag(B::Tag),
    Pfx(B::Pfx),
    PfxStop(B::PfxStop),
    PfxGrnd(B::PfxGrnd),
    SetMesh(B::SetMesh),
    SwapMesh(B::SwapMesh),
    MmStartAni(B::MmStartAni),
    CamTremor(B::CamTremor),
}

impl<B: EventBodies> Event<B> {
    /// Position of the kind in [`EVENT_KEYWORDS`].
    pub fn index(&self) -> usize {
        match self {
            Event::Sfx(_) => event_kind::SFX,
            Event::SfxGrnd(_) => event_kind::SFX_GRND,
            Event::Tag(_) => event_kind::TAG,
            Event::Pfx(_) => event_kind::PFX,
            Event::PfxStop(_) => event_kind::PFX_STOP,
            Event::PfxGrnd(_) => event_kind::PFX_GRND,
            Event::SetMesh(_) => event_kind::SET_MESH,
            Event::SwapMesh(_) => event_kind::SWAP_MESH,
            Event::MmStartAni(_) => event_kind::MM_START_ANI,
            Event::CamTremor(_) => event_kind::CAM_TREMOR,
        }
    }
    /// The script keyword (and YAML key): `eventSFX`, …
    pub fn keyword(&self) -> &'static str {
        EVENT_KEYWORDS[self.index()]
    }
}

impl<B: EventBodies> Serialize for Event<B> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let k = self.keyword();
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

impl<B: EventBodies> OneOf for Event<B> {
    const EXPECTING: &'static str = B::EXPECTING;
    const KINDS: &'static [&'static str] = EVENT_KEYWORDS;
    fn read_variant<'de, A: MapAccess<'de>>(kind: &str, map: &mut A) -> Result<Self, A::Error> {
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

/// `deserialize_with` for an animation's optional event list.
pub fn read_events<'de, D: Deserializer<'de>, B: EventBodies>(
    d: D,
) -> Result<Option<Vec<Event<B>>>, D::Error> {
    read_list(d).map(Some)
}

/// The schema-side spelling of an event of bodies `B`: `{eventSFX: {...}}`, one of the kinds.
pub struct EventDoc<B>(PhantomData<B>);

impl<B: EventBodies> JsonSchema for EventDoc<B> {
    fn schema_name() -> String {
        "EventDoc".into()
    }
    fn json_schema(gen: &mut SchemaGenerator) -> Schema {
        let k = EVENT_KEYWORDS;
        let one_of = vec![
            one(k[0], gen.subschema_for::<B::Sfx>()),
            one(k[1], gen.subschema_for::<B::Sfx>()),
            one(k[2], gen.subschema_for::<B::Tag>()),
            one(k[3], gen.subschema_for::<B::Pfx>()),
            one(k[4], gen.subschema_for::<B::PfxStop>()),
            one(k[5], gen.subschema_for::<B::PfxGrnd>()),
            one(k[6], gen.subschema_for::<B::SetMesh>()),
            one(k[7], gen.subschema_for::<B::SwapMesh>()),
            one(k[8], gen.subschema_for::<B::MmStartAni>()),
            one(k[9], gen.subschema_for::<B::CamTremor>()),
        ];
        let mut schema = SchemaObject {
            subschemas: Some(Box::new(SubschemaValidation {
                one_of: Some(one_of),
                ..Default::default()
            })),
            ..Default::default()
        };
        if let Some(doc) = B::SCHEMA_DOC {
            schema.metadata().description = Some(doc.into());
        }
        Schema::Object(schema)
    }
}

/// `{variant: sub}` and nothing else, as schemars spells an externally tagged variant.
fn one(variant: &str, sub: Schema) -> Schema {
    Schema::Object(SchemaObject {
        instance_type: Some(InstanceType::Object.into()),
        object: Some(Box::new(ObjectValidation {
            properties: [(variant.to_owned(), sub)].into_iter().collect(),
            required: [variant.to_owned()].into_iter().collect(),
            additional_properties: Some(Box::new(false.into())),
            ..Default::default()
        })),
        ..Default::default()
    })
}
