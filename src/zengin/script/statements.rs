//! The statements of a model script's `aniEnum` (`ani`, `aniAlias`, `aniBlend`, `aniSync`,
//! `aniComb`, `aniDisable`, `modelTag`, `aniMaxFps`), declared once for both encodings.
//!
//! The text (`.MDS`) and the compiled file (`.MSB`) hold the same fields in the same order; they
//! differ only in a few kinds of value, which each encoding names through [`Encoding`]:
//! - [`Encoding::Opt`]: a value the text may leave out (`Option`) and the compiled file always
//!   holds, resolved with the engine's default ([`Rule`]);
//! - [`Encoding::TextOnly`]: a value only the text can hold (the tolerated `aniBlend` layer);
//! - [`Encoding::Trailing`]: bytes after the last field, which only a compiled chunk can carry;
//! - [`Encoding::TagArgs`]: `modelTag`'s arguments, as written (up to four) or as stored (four
//!   lines);
//! - the events (the [`EventBodies`] each encoding already gives).
//!
//! [`Convert`] turns one encoding's statement into the other's, field by field in one place per
//! statement ([`Ani::convert`] …): compiling and decompiling are two implementations of it.

use super::{read_events, Body, Event, EventBodies, EventDoc};
use crate::exact::{Blob, F32};
use crate::zengin::stext::ShortText as Text;
use schemars::gen::SchemaGenerator;
use schemars::schema::Schema;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A statement field's value: may it be left out of the YAML?
pub trait Value: Body {
    /// `true` when the field is not written (an omitted value, no trailing bytes).
    fn is_absent(&self) -> bool {
        false
    }
}

impl<T: Body> Value for Option<T> {
    fn is_absent(&self) -> bool {
        self.is_none()
    }
}
impl Value for Blob {
    fn is_absent(&self) -> bool {
        self.is_empty()
    }
}
impl Value for Vec<Text> {
    fn is_absent(&self) -> bool {
        self.is_empty()
    }
}
impl Value for F32 {}
impl Value for i32 {}
impl Value for Text {}

/// A field an encoding has no place for: never written, and refused when a document gives it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotStored;

impl Value for NotStored {
    fn is_absent(&self) -> bool {
        true
    }
}

impl Serialize for NotStored {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_unit()
    }
}

impl<'de> Deserialize<'de> for NotStored {
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "this field exists in the other encoding only (an MSB has no aniBlend layer, an MDS \
             statement no trailing bytes); remove it",
        ))
    }
}

impl JsonSchema for NotStored {
    fn schema_name() -> String {
        "NotStored".into()
    }
    fn is_referenceable() -> bool {
        false
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::Bool(false)
    }
}

/// What an encoding holds for the values that differ between text and compiled file.
pub trait Encoding: EventBodies {
    /// A value the text may omit: `Option<T>` in the text, `T` (resolved) in the compiled file.
    type Opt<T: Value>: Value;
    /// A value only the text holds: `Option<T>` in the text, [`NotStored`] in the compiled file.
    type TextOnly<T: Value>: Value + Default;
    /// Bytes after a chunk's last field: [`Blob`] in the compiled file, [`NotStored`] in text.
    type Trailing: Value + Default;
    /// `modelTag`'s arguments.
    type TagArgs: Value + Default;
}

/// How a value left out of the text is resolved, and whether decompiling leaves it out again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule<T> {
    /// The engine's default; decompiling leaves a value equal to it out.
    Default(T),
    /// The engine's default; decompiling always writes the value.
    Written(T),
    /// The default is the last `aniMaxFps` before the statement, else 25 (`ani` fps).
    MaxFps,
    /// The default, and a given value is clamped into `lo..=hi` (`ani` CVS).
    Clamped { default: T, lo: T, hi: T },
}

/// One encoding's statement values turned into another's (compile: text → compiled file;
/// decompile: back).
pub trait Convert<A: Encoding, B: Encoding> {
    /// A name, flag word or other text (compiling upper-cases).
    fn text(&mut self, t: &Text) -> Text;
    /// A value the text may omit, with the engine's rule for it.
    fn opt(&mut self, v: &A::Opt<F32>, rule: Rule<f32>) -> B::Opt<F32>;
    /// The `aniAlias` direction (empty when omitted, as the engine stores it).
    fn opt_text(&mut self, v: &A::Opt<Text>, default: &str) -> B::Opt<Text>;
    fn text_only(&mut self, v: &A::TextOnly<i32>) -> B::TextOnly<i32>;
    fn trailing(&mut self, v: &A::Trailing) -> B::Trailing;
    fn tag_args(&mut self, v: &A::TagArgs) -> B::TagArgs;
    fn events(&mut self, v: Option<&Vec<Event<A>>>) -> Option<Vec<Event<B>>>;
}

/// `aniMaxFps(fps)` (MSB chunk 0xF510): the frame rate of the following animations that give
/// none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "AniMaxFps", bound = "")]
pub struct AniMaxFps<E: Encoding> {
    pub fps: F32,
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub trailing: E::Trailing,
}

/// `ani("name" layer "next" blendIn blendOut FLAGS "asc" F|R first last [FPS:x] [SPD:x]
/// [CVS:x])` (MSB chunk 0xF520): an animation from an ASC file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "Ani", bound = "")]
pub struct Ani<E: Encoding> {
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
    /// `FPS:`; the MSB stores it resolved: else the last aniMaxFps, else 25.
    #[serde(skip_serializing_if = "Value::is_absent")]
    pub fps: E::Opt<F32>,
    /// `SPD:`; the MSB stores it resolved: else 0.
    #[serde(skip_serializing_if = "Value::is_absent")]
    pub speed: E::Opt<F32>,
    /// `CVS:`; the MSB stores it resolved: clamped to 0..10, else 1.
    #[serde(skip_serializing_if = "Value::is_absent")]
    pub collision_volume_scale: E::Opt<F32>,
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub trailing: E::Trailing,
    /// The event block, in order; absent when there is none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc<E>>>")]
    pub events: Option<Vec<Event<E>>>,
}

/// `aniAlias("name" layer "next" blendIn blendOut FLAGS "aliasOf" [F|R])` (MSB chunk 0xF530):
/// another name for an animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "AniAlias", bound = "")]
pub struct AniAlias<E: Encoding> {
    pub name: Text,
    pub layer: i32,
    pub next: Text,
    /// Seconds.
    pub blend_in: F32,
    /// Seconds.
    pub blend_out: F32,
    pub flags: Text,
    pub alias_of: Text,
    /// `F` or `R`; the MSB stores an empty direction when the text omits it (the engine's
    /// KEILER.MSB, ORC.MSB, HUMANS.MSB hold such aliases).
    #[serde(skip_serializing_if = "Value::is_absent")]
    pub direction: E::Opt<Text>,
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub trailing: E::Trailing,
    /// The event block, in order; absent when there is none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc<E>>>")]
    pub events: Option<Vec<Event<E>>>,
}

/// `aniBlend("name" "next" [blendIn blendOut])` (MSB chunk 0xF540): a blend animation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "AniBlend", bound = "")]
pub struct AniBlend<E: Encoding> {
    pub name: Text,
    /// Not part of the engine's syntax: a text may give one (tolerated and ignored, as ZenKit
    /// does); the MSB has no place for it.
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub layer: E::TextOnly<i32>,
    pub next: Text,
    /// Seconds; the MSB stores 0 when the text omits it.
    #[serde(skip_serializing_if = "Value::is_absent")]
    pub blend_in: E::Opt<F32>,
    /// Seconds; the MSB stores 0 when the text omits it.
    #[serde(skip_serializing_if = "Value::is_absent")]
    pub blend_out: E::Opt<F32>,
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub trailing: E::Trailing,
    /// The event block, in order; absent when there is none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc<E>>>")]
    pub events: Option<Vec<Event<E>>>,
}

/// `aniSync("name" "next")` (MSB chunk 0xF550).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "AniSync", bound = "")]
pub struct AniSync<E: Encoding> {
    pub name: Text,
    pub next: Text,
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub trailing: E::Trailing,
    /// The event block, in order; absent when there is none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc<E>>>")]
    pub events: Option<Vec<Event<E>>>,
}

/// `aniComb("name" layer "next" blendIn blendOut FLAGS "prefix" count)` (MSB chunk 0xF570): a
/// combination of `count` animations `prefix1` … `prefixN`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "AniComb", bound = "")]
pub struct AniComb<E: Encoding> {
    pub name: Text,
    pub layer: i32,
    pub next: Text,
    /// Seconds.
    pub blend_in: F32,
    /// Seconds.
    pub blend_out: F32,
    pub flags: Text,
    pub prefix: Text,
    /// Number of combined animations (ZenKit calls it `last_frame`).
    pub count: i32,
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub trailing: E::Trailing,
    /// The event block, in order; absent when there is none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc<E>>>")]
    pub events: Option<Vec<Event<E>>>,
}

/// `aniDisable("name")` (MSB chunk 0xF580).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "AniDisable", bound = "")]
pub struct AniDisable<E: Encoding> {
    pub name: Text,
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub trailing: E::Trailing,
    /// The event block, in order; absent when there is none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "read_events"
    )]
    #[schemars(with = "Option<Vec<EventDoc<E>>>")]
    pub events: Option<Vec<Event<E>>>,
}

/// `modelTag("TAG" ["a"] … )` (MSB chunk 0xF590): a model tag (no frame).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, bound = "")]
#[schemars(rename = "ModelTag", bound = "")]
pub struct ModelTag<E: Encoding> {
    pub tag: Text,
    /// The text's arguments (up to four; none when absent); the MSB stores four lines (empty
    /// ones empty).
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub args: E::TagArgs,
    #[serde(default, skip_serializing_if = "Value::is_absent")]
    pub trailing: E::Trailing,
}

// ---------------------------------------------------------------------------------------------
// One encoding's statement to the other's: the field list once, the value rules per field.

impl<A: Encoding> AniMaxFps<A> {
    pub fn convert<B: Encoding>(&self, c: &mut impl Convert<A, B>) -> AniMaxFps<B> {
        AniMaxFps {
            fps: self.fps,
            trailing: c.trailing(&self.trailing),
        }
    }
}

impl<A: Encoding> Ani<A> {
    pub fn convert<B: Encoding>(&self, c: &mut impl Convert<A, B>) -> Ani<B> {
        Ani {
            name: c.text(&self.name),
            layer: self.layer,
            next: c.text(&self.next),
            blend_in: self.blend_in,
            blend_out: self.blend_out,
            flags: c.text(&self.flags),
            asc: c.text(&self.asc),
            direction: c.text(&self.direction),
            first_frame: self.first_frame,
            last_frame: self.last_frame,
            fps: c.opt(&self.fps, Rule::MaxFps),
            speed: c.opt(&self.speed, Rule::Default(0.0)),
            collision_volume_scale: c.opt(
                &self.collision_volume_scale,
                Rule::Clamped {
                    default: 1.0,
                    lo: 0.0,
                    hi: 10.0,
                },
            ),
            trailing: c.trailing(&self.trailing),
            events: c.events(self.events.as_ref()),
        }
    }
}

impl<A: Encoding> AniAlias<A> {
    pub fn convert<B: Encoding>(&self, c: &mut impl Convert<A, B>) -> AniAlias<B> {
        AniAlias {
            name: c.text(&self.name),
            layer: self.layer,
            next: c.text(&self.next),
            blend_in: self.blend_in,
            blend_out: self.blend_out,
            flags: c.text(&self.flags),
            alias_of: c.text(&self.alias_of),
            direction: c.opt_text(&self.direction, ""),
            trailing: c.trailing(&self.trailing),
            events: c.events(self.events.as_ref()),
        }
    }
}

impl<A: Encoding> AniBlend<A> {
    pub fn convert<B: Encoding>(&self, c: &mut impl Convert<A, B>) -> AniBlend<B> {
        AniBlend {
            name: c.text(&self.name),
            layer: c.text_only(&self.layer),
            next: c.text(&self.next),
            blend_in: c.opt(&self.blend_in, Rule::Written(0.0)),
            blend_out: c.opt(&self.blend_out, Rule::Written(0.0)),
            trailing: c.trailing(&self.trailing),
            events: c.events(self.events.as_ref()),
        }
    }
}

impl<A: Encoding> AniSync<A> {
    pub fn convert<B: Encoding>(&self, c: &mut impl Convert<A, B>) -> AniSync<B> {
        AniSync {
            name: c.text(&self.name),
            next: c.text(&self.next),
            trailing: c.trailing(&self.trailing),
            events: c.events(self.events.as_ref()),
        }
    }
}

impl<A: Encoding> AniComb<A> {
    pub fn convert<B: Encoding>(&self, c: &mut impl Convert<A, B>) -> AniComb<B> {
        AniComb {
            name: c.text(&self.name),
            layer: self.layer,
            next: c.text(&self.next),
            blend_in: self.blend_in,
            blend_out: self.blend_out,
            flags: c.text(&self.flags),
            prefix: c.text(&self.prefix),
            count: self.count,
            trailing: c.trailing(&self.trailing),
            events: c.events(self.events.as_ref()),
        }
    }
}

impl<A: Encoding> AniDisable<A> {
    pub fn convert<B: Encoding>(&self, c: &mut impl Convert<A, B>) -> AniDisable<B> {
        AniDisable {
            name: c.text(&self.name),
            trailing: c.trailing(&self.trailing),
            events: c.events(self.events.as_ref()),
        }
    }
}

impl<A: Encoding> ModelTag<A> {
    pub fn convert<B: Encoding>(&self, c: &mut impl Convert<A, B>) -> ModelTag<B> {
        ModelTag {
            tag: c.text(&self.tag),
            args: c.tag_args(&self.args),
            trailing: c.trailing(&self.trailing),
        }
    }
}
