//! `.MDS` model scripts (text). [`Mds`] is a lossless token tree of the file plus the
//! structured [`Script`] parsed from it with the engine's rules (spec §5.5): `encode` prints the
//! tokens back byte for byte (whitespace, comments, case, CRLF, quirks and all).
//!
//! **YAML and byte-exactness.** The `zengin.mds` document carries the structured view
//! (`script`) and, for exactness, the original text as `source` (a list of lines; each line
//! without its `\n`, any `\r` kept). On import, `source` is parsed again and its structured view
//! compared with the document's `script`: when they are equal (nothing edited) the original text
//! is written back unchanged; when `script` was edited (or `source` is absent) the script is
//! printed in animkit's canonical layout ([`print_canonical`]) instead. So `verify` gives the
//! exact bytes, and an edited document gives a clean, canonically formatted script.
//!
//! Parsing is tolerant of what real scripts contain and reports each quirk as a warning with
//! line and column; only a missing required argument (or a file that does not start with
//! `Model`) is an error.

pub mod compile;
pub mod lex;
pub mod parse;

use crate::codec::{Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{DecodeError, EncodeError, ImportError, F32};
use crate::zengin::script::{self, Encoding, EventBodies, NotStored, Value};
use crate::zengin::stext::ShortText as Text;
use crate::zengin::tagged::{read_list, OneOf, Variant};
use lex::Token;
use schemars::JsonSchema;
use serde::de::MapAccess;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

pub use crate::zengin::mds::parse::{parse, ParseError, Warning};

/// A parsed `.MDS` file.
#[derive(Debug, Clone)]
pub struct Mds {
    /// The file's bytes.
    pub src: Vec<u8>,
    /// The token tree: every token of `src` except whitespace runs, which are the gaps between
    /// them (so printing tokens and gaps gives every byte back).
    pub tokens: Vec<Token>,
    /// The structured view.
    pub script: Script,
    /// Quirks found while parsing.
    pub warnings: Vec<Warning>,
}

impl PartialEq for Mds {
    fn eq(&self, other: &Self) -> bool {
        self.src == other.src && self.script == other.script
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The script: `Model("name") { … }`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The model name (not stored in the MSB: the engine takes it from the file name).
    pub model: Text,
    #[serde(deserialize_with = "read_list")]
    #[schemars(with = "Vec<ModelItemDoc>")]
    pub items: Vec<ModelItem>,
}

/// A statement inside `Model { }`.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelItem {
    MeshAndTree(MeshAndTree),
    RegisterMesh(RegisterMesh),
    AniEnum(Vec<AniItem>),
}

#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
enum ModelItemDoc {
    MeshAndTree(MeshAndTree),
    RegisterMesh(RegisterMesh),
    AniEnum(Vec<AniItemDoc>),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeshAndTree {
    /// As written (`X.ASC`); the MSB stores it upper case without extension.
    pub asc: Text,
    #[serde(default, skip_serializing_if = "is_false")]
    pub dont_use_mesh: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterMesh {
    pub asc: Text,
}

/// A statement inside `aniEnum { }`.
#[derive(Debug, Clone, PartialEq)]
pub enum AniItem {
    AniMaxFps(AniMaxFps),
    Ani(Ani),
    AniAlias(AniAlias),
    AniBlend(AniBlend),
    AniSync(AniSync),
    AniBatch(AniBatch),
    AniComb(AniComb),
    AniDisable(AniDisable),
    ModelTag(ModelTag),
}

#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
enum AniItemDoc {
    AniMaxFps(AniMaxFps),
    Ani(Ani),
    AniAlias(AniAlias),
    AniBlend(AniBlend),
    AniSync(AniSync),
    AniBatch(AniBatch),
    AniComb(AniComb),
    AniDisable(AniDisable),
    ModelTag(ModelTag),
}

/// `aniBatch("name") { *aniBatch("sub") … }`: never written to the MSB.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AniBatch {
    pub name: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anis: Vec<Text>,
}

/// The text encoding of a script's statements and events: what each line wrote (an omitted
/// argument stays omitted).
#[derive(Debug, Clone, PartialEq)]
pub struct Written;

impl Encoding for Written {
    type Opt<T: Value> = Option<T>;
    type TextOnly<T: Value> = Option<T>;
    type Trailing = NotStored;
    type TagArgs = Vec<Text>;
}

/// `aniMaxFps(fps)`.
pub type AniMaxFps = script::AniMaxFps<Written>;
/// `ani("name" layer "next" blendIn blendOut FLAGS "asc" F|R first last [FPS:x] [SPD:x] [CVS:x])`
pub type Ani = script::Ani<Written>;
pub type AniAlias = script::AniAlias<Written>;
pub type AniBlend = script::AniBlend<Written>;
pub type AniSync = script::AniSync<Written>;
pub type AniComb = script::AniComb<Written>;
pub type AniDisable = script::AniDisable<Written>;
pub type ModelTag = script::ModelTag<Written>;

impl EventBodies for Written {
    type Sfx = Sfx;
    type Tag = Tag;
    type Pfx = Pfx;
    type PfxStop = PfxStop;
    type PfxGrnd = PfxGrnd;
    type SetMesh = SetMesh;
    type SwapMesh = SwapMesh;
    type MmStartAni = MmStartAni;
    type CamTremor = CamTremor;
    const EXPECTING: &'static str = "an event (eventSFX, eventTag, ...) as `kind: {...}`";
    const SCHEMA_DOC: Option<&'static str> = None;
}

/// An event line of an event block.
pub type Event = script::Event<Written>;
pub use script::EVENT_KEYWORDS;

/// `*eventSFX(frame "name" [R:range] [EMPTY_SLOT])` (also `*eventSFXGrnd`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sfx {
    pub frame: i32,
    pub name: Text,
    /// `R:`; the engine's default is 2500 (SFX) or 1000 (SFXGrnd), at most 3500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<F32>,
    /// `EMPTY_SLOT` given.
    #[serde(default, skip_serializing_if = "is_false")]
    pub empty_slot: bool,
}

/// `*eventTag([frame] "TYPE" ["a"] ["b"] … [ATTACH])`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tag {
    /// 0 when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<i32>,
    pub tag: Text,
    /// Up to four string arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<Text>,
    /// `ATTACH` given (not stored in the MSB).
    #[serde(default, skip_serializing_if = "is_false")]
    pub attach: bool,
}

/// `*eventPFX(frame [handle] "emitter" "node" [ATTACH])`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pfx {
    pub frame: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<F32>,
    pub emitter: Text,
    pub node: Text,
    #[serde(default, skip_serializing_if = "is_false")]
    pub attach: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfxStop {
    pub frame: i32,
    pub handle: F32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PfxGrnd {
    pub frame: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetMesh {
    pub frame: i32,
    pub mesh: Text,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwapMesh {
    pub frame: i32,
    pub slot1: Text,
    pub slot2: Text,
}

/// `*eventMMStartAni(frame "ani" ["node"] [I:intensity] [H:holdTime])`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MmStartAni {
    pub frame: i32,
    pub ani: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intensity: Option<F32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_time: Option<F32>,
}

/// `*eventCamTremor(frame radius durationMs strengthXZ strengthY)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CamTremor {
    pub frame: i32,
    pub radius: F32,
    pub duration_ms: F32,
    pub strength_xz: F32,
    pub strength_y: F32,
}

impl AniItem {
    pub fn keyword(&self) -> &'static str {
        match self {
            AniItem::AniMaxFps(_) => "aniMaxFps",
            AniItem::Ani(_) => "ani",
            AniItem::AniAlias(_) => "aniAlias",
            AniItem::AniBlend(_) => "aniBlend",
            AniItem::AniSync(_) => "aniSync",
            AniItem::AniBatch(_) => "aniBatch",
            AniItem::AniComb(_) => "aniComb",
            AniItem::AniDisable(_) => "aniDisable",
            AniItem::ModelTag(_) => "modelTag",
        }
    }
    /// The event block of an animation statement.
    pub fn events(&self) -> Option<&Vec<Event>> {
        match self {
            AniItem::Ani(a) => a.events.as_ref(),
            AniItem::AniAlias(a) => a.events.as_ref(),
            AniItem::AniBlend(a) => a.events.as_ref(),
            AniItem::AniSync(a) => a.events.as_ref(),
            AniItem::AniComb(a) => a.events.as_ref(),
            AniItem::AniDisable(a) => a.events.as_ref(),
            _ => None,
        }
    }
    pub fn events_mut(&mut self) -> Option<&mut Option<Vec<Event>>> {
        match self {
            AniItem::Ani(a) => Some(&mut a.events),
            AniItem::AniAlias(a) => Some(&mut a.events),
            AniItem::AniBlend(a) => Some(&mut a.events),
            AniItem::AniSync(a) => Some(&mut a.events),
            AniItem::AniComb(a) => Some(&mut a.events),
            AniItem::AniDisable(a) => Some(&mut a.events),
            _ => None,
        }
    }
}

const ANI_KEYWORDS: &[&str] = &[
    "aniMaxFps",
    "ani",
    "aniAlias",
    "aniBlend",
    "aniSync",
    "aniBatch",
    "aniComb",
    "aniDisable",
    "modelTag",
];

impl Serialize for AniItem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let k = self.keyword();
        match self {
            AniItem::AniMaxFps(x) => Variant(k, x).serialize(s),
            AniItem::Ani(x) => Variant(k, x).serialize(s),
            AniItem::AniAlias(x) => Variant(k, x).serialize(s),
            AniItem::AniBlend(x) => Variant(k, x).serialize(s),
            AniItem::AniSync(x) => Variant(k, x).serialize(s),
            AniItem::AniBatch(x) => Variant(k, x).serialize(s),
            AniItem::AniComb(x) => Variant(k, x).serialize(s),
            AniItem::AniDisable(x) => Variant(k, x).serialize(s),
            AniItem::ModelTag(x) => Variant(k, x).serialize(s),
        }
    }
}

impl OneOf for AniItem {
    const EXPECTING: &'static str = "an aniEnum statement (ani, aniAlias, ...) as `kind: {...}`";
    const KINDS: &'static [&'static str] = ANI_KEYWORDS;
    fn read_variant<'de, A: MapAccess<'de>>(kind: &str, map: &mut A) -> Result<Self, A::Error> {
        Ok(match kind {
            "aniMaxFps" => AniItem::AniMaxFps(map.next_value()?),
            "ani" => AniItem::Ani(map.next_value()?),
            "aniAlias" => AniItem::AniAlias(map.next_value()?),
            "aniBlend" => AniItem::AniBlend(map.next_value()?),
            "aniSync" => AniItem::AniSync(map.next_value()?),
            "aniBatch" => AniItem::AniBatch(map.next_value()?),
            "aniComb" => AniItem::AniComb(map.next_value()?),
            "aniDisable" => AniItem::AniDisable(map.next_value()?),
            _ => AniItem::ModelTag(map.next_value()?),
        })
    }
}

struct AniList(Vec<AniItem>);
impl<'de> Deserialize<'de> for AniList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        read_list(d).map(AniList)
    }
}

impl Serialize for ModelItem {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ModelItem::MeshAndTree(x) => Variant("meshAndTree", x).serialize(s),
            ModelItem::RegisterMesh(x) => Variant("registerMesh", x).serialize(s),
            ModelItem::AniEnum(x) => Variant("aniEnum", x).serialize(s),
        }
    }
}

impl OneOf for ModelItem {
    const EXPECTING: &'static str =
        "a Model statement (meshAndTree, registerMesh, aniEnum) as `kind: ...`";
    const KINDS: &'static [&'static str] = &["meshAndTree", "registerMesh", "aniEnum"];
    fn read_variant<'de, A: MapAccess<'de>>(kind: &str, map: &mut A) -> Result<Self, A::Error> {
        Ok(match kind {
            "meshAndTree" => ModelItem::MeshAndTree(map.next_value()?),
            "registerMesh" => ModelItem::RegisterMesh(map.next_value()?),
            _ => ModelItem::AniEnum(map.next_value::<AniList>()?.0),
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Printing

/// Spell an `f32` so that the engine's reading (`atof`, then `float`) gives the same bits; never
/// uses exponent syntax (MDS has none). `None` for NaN and infinities.
pub fn mds_float(v: F32) -> Option<String> {
    let f = v.get();
    if !f.is_finite() {
        return None;
    }
    let short = format!("{f}");
    if crate::zengin::mds::parse::engine_float(short.as_bytes()).map(F32::new) == Some(v) {
        return Some(short);
    }
    Some(format!("{}", f64::from(f)))
}

fn fl(v: F32) -> String {
    mds_float(v).unwrap_or_else(|| "0".into())
}

fn q(out: &mut Vec<u8>, t: &Text) {
    out.push(b'"');
    out.extend_from_slice(t.as_bytes());
    out.push(b'"');
}

const NL: &[u8] = b"\r\n";

/// Print a script in animkit's canonical layout (tabs, one statement per line, braces on their
/// own lines, CRLF line ends).
pub fn print_canonical(script: &Script) -> Vec<u8> {
    let mut o = Vec::with_capacity(4096);
    o.extend_from_slice(b"Model (");
    q(&mut o, &script.model);
    o.extend_from_slice(b")");
    o.extend_from_slice(NL);
    o.push(b'{');
    o.extend_from_slice(NL);
    for item in &script.items {
        match item {
            ModelItem::MeshAndTree(m) => {
                o.extend_from_slice(b"\tmeshAndTree (");
                q(&mut o, &m.asc);
                if m.dont_use_mesh {
                    o.extend_from_slice(b" DONT_USE_MESH");
                }
                o.push(b')');
                o.extend_from_slice(NL);
            }
            ModelItem::RegisterMesh(r) => {
                o.extend_from_slice(b"\tregisterMesh (");
                q(&mut o, &r.asc);
                o.push(b')');
                o.extend_from_slice(NL);
            }
            ModelItem::AniEnum(items) => {
                o.extend_from_slice(NL);
                o.extend_from_slice(b"\taniEnum");
                o.extend_from_slice(NL);
                o.extend_from_slice(b"\t{");
                o.extend_from_slice(NL);
                for a in items {
                    print_ani_item(&mut o, a);
                }
                o.extend_from_slice(b"\t}");
                o.extend_from_slice(NL);
            }
        }
    }
    o.push(b'}');
    o.extend_from_slice(NL);
    o
}

fn words(o: &mut Vec<u8>, parts: &[&[u8]]) {
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            o.push(b' ');
        }
        o.extend_from_slice(p);
    }
}

fn quoted(t: &Text) -> Vec<u8> {
    let mut v = Vec::with_capacity(t.len() + 2);
    q(&mut v, t);
    v
}

fn print_ani_item(o: &mut Vec<u8>, a: &AniItem) {
    o.extend_from_slice(b"\t\t");
    o.extend_from_slice(a.keyword().as_bytes());
    o.extend_from_slice(b" (");
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let num = |v: i32| v.to_string().into_bytes();
    let f = |v: F32| fl(v).into_bytes();
    match a {
        AniItem::AniMaxFps(x) => parts.push(f(x.fps)),
        AniItem::Ani(x) => {
            parts.extend([
                quoted(&x.name),
                num(x.layer),
                quoted(&x.next),
                f(x.blend_in),
                f(x.blend_out),
                x.flags.as_bytes().to_vec(),
                quoted(&x.asc),
                x.direction.as_bytes().to_vec(),
                num(x.first_frame),
                num(x.last_frame),
            ]);
            for (k, v) in [
                ("FPS:", x.fps),
                ("SPD:", x.speed),
                ("CVS:", x.collision_volume_scale),
            ] {
                if let Some(v) = v {
                    parts.push([k.as_bytes(), fl(v).as_bytes()].concat());
                }
            }
        }
        AniItem::AniAlias(x) => {
            parts.extend([
                quoted(&x.name),
                num(x.layer),
                quoted(&x.next),
                f(x.blend_in),
                f(x.blend_out),
                x.flags.as_bytes().to_vec(),
                quoted(&x.alias_of),
            ]);
            if let Some(d) = &x.direction {
                parts.push(d.as_bytes().to_vec());
            }
        }
        AniItem::AniBlend(x) => {
            parts.push(quoted(&x.name));
            if let Some(l) = x.layer {
                parts.push(num(l));
            }
            parts.push(quoted(&x.next));
            if let Some(b) = x.blend_in {
                parts.push(f(b));
            }
            if let Some(b) = x.blend_out {
                parts.push(f(b));
            }
        }
        AniItem::AniSync(x) => parts.extend([quoted(&x.name), quoted(&x.next)]),
        AniItem::AniBatch(x) => parts.push(quoted(&x.name)),
        AniItem::AniComb(x) => parts.extend([
            quoted(&x.name),
            num(x.layer),
            quoted(&x.next),
            f(x.blend_in),
            f(x.blend_out),
            x.flags.as_bytes().to_vec(),
            quoted(&x.prefix),
            num(x.count),
        ]),
        AniItem::AniDisable(x) => parts.push(quoted(&x.name)),
        AniItem::ModelTag(x) => {
            parts.push(quoted(&x.tag));
            parts.extend(x.args.iter().map(quoted));
        }
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    words(o, &refs);
    o.push(b')');
    o.extend_from_slice(NL);
    if let AniItem::AniBatch(b) = a {
        if !b.anis.is_empty() {
            o.extend_from_slice(b"\t\t{");
            o.extend_from_slice(NL);
            for s in &b.anis {
                o.extend_from_slice(b"\t\t\t*aniBatch (");
                q(o, s);
                o.push(b')');
                o.extend_from_slice(NL);
            }
            o.extend_from_slice(b"\t\t}");
            o.extend_from_slice(NL);
        }
    }
    if let Some(events) = a.events() {
        o.extend_from_slice(b"\t\t{");
        o.extend_from_slice(NL);
        for e in events {
            print_event(o, e);
        }
        o.extend_from_slice(b"\t\t}");
        o.extend_from_slice(NL);
    }
}

fn print_event(o: &mut Vec<u8>, e: &Event) {
    o.extend_from_slice(b"\t\t\t*");
    o.extend_from_slice(e.keyword().as_bytes());
    o.extend_from_slice(b" (");
    let mut parts: Vec<Vec<u8>> = Vec::new();
    let num = |v: i32| v.to_string().into_bytes();
    let f = |v: F32| fl(v).into_bytes();
    match e {
        Event::Sfx(x) | Event::SfxGrnd(x) => {
            parts.extend([num(x.frame), quoted(&x.name)]);
            if let Some(r) = x.range {
                parts.push([b"R:".as_slice(), fl(r).as_bytes()].concat());
            }
            if x.empty_slot {
                parts.push(b"EMPTY_SLOT".to_vec());
            }
        }
        Event::Tag(x) => {
            if let Some(fr) = x.frame {
                parts.push(num(fr));
            }
            parts.push(quoted(&x.tag));
            parts.extend(x.args.iter().map(quoted));
            if x.attach {
                parts.push(b"ATTACH".to_vec());
            }
        }
        Event::Pfx(x) => {
            parts.push(num(x.frame));
            if let Some(h) = x.handle {
                parts.push(f(h));
            }
            parts.extend([quoted(&x.emitter), quoted(&x.node)]);
            if x.attach {
                parts.push(b"ATTACH".to_vec());
            }
        }
        Event::PfxStop(x) => parts.extend([num(x.frame), f(x.handle)]),
        Event::PfxGrnd(x) => parts.push(num(x.frame)),
        Event::SetMesh(x) => parts.extend([num(x.frame), quoted(&x.mesh)]),
        Event::SwapMesh(x) => parts.extend([num(x.frame), quoted(&x.slot1), quoted(&x.slot2)]),
        Event::MmStartAni(x) => {
            parts.extend([num(x.frame), quoted(&x.ani)]);
            if let Some(n) = &x.node {
                parts.push(quoted(n));
            }
            if let Some(i) = x.intensity {
                parts.push([b"I:".as_slice(), fl(i).as_bytes()].concat());
            }
            if let Some(h) = x.hold_time {
                parts.push([b"H:".as_slice(), fl(h).as_bytes()].concat());
            }
        }
        Event::CamTremor(x) => parts.extend([
            num(x.frame),
            f(x.radius),
            f(x.duration_ms),
            f(x.strength_xz),
            f(x.strength_y),
        ]),
    }
    let refs: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
    words(o, &refs);
    o.push(b')');
    o.extend_from_slice(NL);
}

// ---------------------------------------------------------------------------------------------
// YAML

/// A `zengin.mds` YAML document.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "animkit zengin.mds document")]
pub struct MdsDocument {
    /// Always `zengin.mds`.
    pub format: String,
    /// Document version; this animkit reads 1.
    pub version: u32,
    /// What the parser noticed (line:column: message); ignored on import.
    #[serde(default)]
    pub warnings: Option<Vec<String>>,
    /// The structured script.
    pub script: Script,
    /// The original text, line by line (without the `\n`s), used when `script` is unchanged so
    /// that the file comes back byte for byte; delete it to get a canonically formatted script.
    #[serde(default)]
    pub source: Option<Vec<Text>>,
}

struct DocOut<'a>(&'a Mds);

impl Serialize for DocOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut st = s.serialize_struct("MdsDocument", 5)?;
        st.serialize_field("format", Mds::TAG)?;
        st.serialize_field("version", &Mds::YAML_VERSION)?;
        if !m.warnings.is_empty() {
            let w: Vec<String> = m.warnings.iter().map(|w| w.to_string()).collect();
            st.serialize_field("warnings", &w)?;
        }
        st.serialize_field("script", &m.script)?;
        let lines: Vec<Text> = m.src.split(|&b| b == b'\n').map(Text::new).collect();
        st.serialize_field("source", &lines)?;
        st.end()
    }
}

impl Mds {
    /// Parse a script.
    pub fn parse(src: &[u8]) -> Result<Self, ParseError> {
        parse(src)
    }
    /// Print the token tree (the original bytes).
    pub fn print(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.src.len());
        let mut at = 0usize;
        for t in &self.tokens {
            // the whitespace before the token, then the token
            out.extend_from_slice(&self.src[at..t.start as usize]);
            out.extend_from_slice(t.text(&self.src));
            at = t.end as usize;
        }
        out.extend_from_slice(&self.src[at..]);
        out
    }
    /// A script printed canonically and parsed again.
    pub fn from_script(script: &Script) -> Result<Self, ParseError> {
        let src = print_canonical(script);
        let mds = parse(&src)?;
        Ok(mds)
    }
    pub fn to_yaml_text(&self) -> Result<String, EncodeError> {
        crate::yaml::to_string(&DocOut(self)).map_err(|e| EncodeError::new(e.to_string()))
    }
    pub fn from_yaml_text(text: &str) -> Result<Self, ImportError> {
        let doc: MdsDocument = crate::yaml::from_str(text)?;
        crate::codec::check_document_header(&doc.format, doc.version, Mds::TAG, 1)
            .map_err(EncodeError::new)?;
        if let Some(lines) = &doc.source {
            let mut src = Vec::new();
            for (i, l) in lines.iter().enumerate() {
                if i > 0 {
                    src.push(b'\n');
                }
                src.extend_from_slice(l.as_bytes());
            }
            if let Ok(m) = parse(&src) {
                if m.script == doc.script {
                    return Ok(m);
                }
            }
        }
        Mds::from_script(&doc.script).map_err(|e| {
            ImportError::Encode(EncodeError::new(format!(
                "the edited script does not print as a valid MDS: {e}"
            )))
        })
    }
}

/// The parse error as a [`DecodeError`] (offset, and line:column in the message).
impl From<ParseError> for DecodeError {
    fn from(e: ParseError) -> Self {
        DecodeError::text(e.offset as u64, e.line, e.column, e.message)
    }
}

impl Mds {
    /// The animation statements, as the reference check sees them (see
    /// [`crate::zengin::anirefs`]).
    pub fn ani_statements(&self) -> Vec<crate::zengin::anirefs::AniStatement<'_>> {
        use crate::zengin::anirefs::AniStatement;
        let mut statements = Vec::new();
        for (i, item) in self.script.items.iter().enumerate() {
            let ModelItem::AniEnum(items) = item else {
                continue;
            };
            for (j, a) in items.iter().enumerate() {
                let path = format!("script.items[{i}].aniEnum[{j}].{}", a.keyword());
                statements.push(match a {
                    AniItem::Ani(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    AniItem::AniAlias(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        alias_of: Some(a.alias_of.as_bytes()),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    AniItem::AniBlend(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    AniItem::AniSync(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    AniItem::AniComb(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        comb: Some((a.prefix.as_bytes(), a.count)),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    _ => continue,
                });
            }
        }
        statements
    }

    /// `check`: references to animations this script does not define (see
    /// [`crate::zengin::anirefs`]), against its base script when one is given.
    fn dangling_references(
        &self,
        ctx: &crate::codec::CheckContext<'_>,
    ) -> Vec<crate::codec::Finding> {
        use crate::zengin::anirefs::{base_names, dangling, is_overlay, Scope};
        let dont_use_mesh = self.script.items.iter().find_map(|i| match i {
            ModelItem::MeshAndTree(m) => Some(m.dont_use_mesh),
            _ => None,
        });
        let registers = self
            .script
            .items
            .iter()
            .any(|i| matches!(i, ModelItem::RegisterMesh(_)));
        let scope = Scope {
            overlay: is_overlay(dont_use_mesh, registers),
            base: ctx.companion.and_then(base_names),
            skipped: self.skipped_statements(),
        };
        dangling(&self.ani_statements(), &scope)
    }

    /// The animation statements the parser skipped (a warning `… line skipped` on a line that
    /// starts with `ani…("NAME"`), by name, with the warning.
    fn skipped_statements(&self) -> Vec<(Vec<u8>, String)> {
        let lines: Vec<&[u8]> = self.src.split(|&b| b == b'\n').collect();
        self.warnings
            .iter()
            .filter(|w| w.message.ends_with("line skipped"))
            .filter_map(|w| {
                let line = lines.get(w.line.checked_sub(1)?)?.trim_ascii();
                if !line.get(..3)?.eq_ignore_ascii_case(b"ani") {
                    return None;
                }
                let open = line.iter().position(|&b| b == b'"')?;
                let len = line[open + 1..].iter().position(|&b| b == b'"')?;
                let name = &line[open + 1..open + 1 + len];
                Some((name.to_ascii_uppercase(), w.to_string()))
            })
            .collect()
    }
}

impl Codec for Mds {
    const TAG: &'static str = "zengin.mds";
    const DESCRIPTION: &'static str = "ZenGin model script, text (.MDS)";
    const EXTENSIONS: &'static [&'static str] = &["mds"];
    const COMPANIONS: &'static [crate::codec::Companion] = crate::zengin::anirefs::BASE_SCRIPTS;
    fn defined_names(&self) -> Option<std::collections::HashSet<Vec<u8>>> {
        Some(crate::zengin::anirefs::names(&self.ani_statements()))
    }

    fn detect(data: &[u8]) -> bool {
        // Whitespace and comments, then the keyword `Model` (any case).
        let toks = lex::tokenize(&data[..data.len().min(4096)]);
        let first = toks.iter().find(|t| !t.is_trivia());
        first.is_some_and(|t| {
            t.kind == lex::Kind::Word && t.text(data).eq_ignore_ascii_case(b"model")
        })
    }
    fn decode(data: &[u8]) -> Result<Self, DecodeError> {
        Ok(parse(data)?)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.extend_from_slice(&self.print());
        Ok(())
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        self.to_yaml_text()
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        Mds::from_yaml_text(text)
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(MdsDocument)
    }
    fn check(&self, ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        self.dangling_references(ctx)
    }
    fn info(&self) -> Vec<InfoLine> {
        let mut v = vec![("model", self.script.model.to_string())];
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for item in &self.script.items {
            let mut bump = |k: &'static str| match counts.iter_mut().find(|(n, _)| *n == k) {
                Some((_, c)) => *c += 1,
                None => counts.push((k, 1)),
            };
            match item {
                ModelItem::MeshAndTree(m) => {
                    bump("meshAndTree");
                    v.push(("meshAndTree", m.asc.to_string()));
                }
                ModelItem::RegisterMesh(_) => bump("registerMesh"),
                ModelItem::AniEnum(items) => {
                    for a in items {
                        bump(a.keyword());
                        for e in a.events().into_iter().flatten() {
                            bump(e.keyword());
                        }
                    }
                }
            }
        }
        v.push((
            "statements",
            counts
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
        ));
        v.push(("warnings", self.warnings.len().to_string()));
        for w in &self.warnings {
            v.push(("warning", w.to_string()));
        }
        v
    }
    fn field_at(&self, offset: u64) -> String {
        let (l, c) = lex::line_col(&self.src, offset as usize);
        format!("line {l} column {c}")
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        self.statement_diff(other).lines
    }
    fn diff_report(
        &self,
        other: &Self,
        _ctx: &crate::codec::DiffContext<'_>,
    ) -> crate::codec::Diff {
        self.statement_diff(other)
    }
}

impl Mds {
    /// What changed, named by statement (`ani "S_RUN": fps 25.0 → 12.5`; statements added
    /// and removed), as the MSB's diff names them ([`crate::zengin::script::diff`]); when the
    /// statements are the same and only the text differs (layout, comments), the changed
    /// lines of the text.
    pub fn statement_diff(&self, other: &Mds) -> crate::codec::Diff {
        use crate::zengin::script::diff::{statements, Statement};
        if self.script == other.script {
            let a = String::from_utf8_lossy(&self.src);
            let b = String::from_utf8_lossy(&other.src);
            return crate::codec::Diff::from_lines(crate::zengin::tagged::diff_yaml(&a, &b));
        }
        let list = |m: &Mds| -> Vec<Statement> {
            #[derive(Serialize)]
            struct Model<'a> {
                name: &'a Text,
            }
            let mut out = vec![Statement::new(
                "script.model".into(),
                "model",
                &Variant(
                    "model",
                    &Model {
                        name: &m.script.model,
                    },
                ),
            )];
            for (i, item) in m.script.items.iter().enumerate() {
                let at = format!("script.items[{i}]");
                match item {
                    ModelItem::MeshAndTree(_) => out.push(Statement::new(at, "meshAndTree", item)),
                    ModelItem::RegisterMesh(_) => {
                        out.push(Statement::new(at, "registerMesh", item))
                    }
                    ModelItem::AniEnum(items) => {
                        for (j, a) in items.iter().enumerate() {
                            out.push(Statement::new(format!("{at}.aniEnum[{j}]"), a.keyword(), a));
                        }
                    }
                }
            }
            out
        };
        statements(&list(self), &list(other), false)
    }
}
