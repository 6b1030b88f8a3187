//! The `zengin.msb` YAML document and the format's registration. The document reads like the
//! script: `entries` in file order, each named by its script keyword (`model`, `meshAndTree`,
//! `registerMesh`, `aniEnum`, `ani`, `aniAlias`, `aniBlend`, `aniSync`, `aniComb`,
//! `aniDisable`, `modelTag`, `aniMaxFps`, the end markers), each animation with its ordered
//! `events` list.

use crate::codec::{check_document_header, Codec, ExportOptions, ImportOptions, InfoLine};
use crate::exact::{EncodeError, ImportError};
use crate::zengin::msb::*;
use crate::zengin::tagged::{read_list, OneOf, Variant};
use schemars::JsonSchema;
use serde::de::MapAccess;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

pub const ENTRY_KINDS: &[&str] = &[
    "root",
    "source",
    "model",
    "meshAndTree",
    "registerMesh",
    "aniEnum",
    "aniMaxFps",
    "ani",
    "aniAlias",
    "aniBlend",
    "aniSync",
    "aniComb",
    "aniDisable",
    "modelTag",
    "aniEvents",
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
    "aniEventsEnd",
    "aniEnumEnd",
    "modelEnd",
    "end",
    "unknown",
];

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let k = self.kind();
        match self {
            Entry::Root(x) => Variant(k, x).serialize(s),
            Entry::Source(x) => Variant(k, x).serialize(s),
            Entry::Model(x)
            | Entry::AniEnum(x)
            | Entry::AniEventsEnd(x)
            | Entry::AniEnumEnd(x)
            | Entry::ModelEnd(x)
            | Entry::End(x) => Variant(k, x).serialize(s),
            Entry::MeshAndTree(x) => Variant(k, x).serialize(s),
            Entry::RegisterMesh(x) => Variant(k, x).serialize(s),
            Entry::AniMaxFps(x) => Variant(k, x).serialize(s),
            Entry::Ani(x) => Variant(k, x).serialize(s),
            Entry::AniAlias(x) => Variant(k, x).serialize(s),
            Entry::AniBlend(x) => Variant(k, x).serialize(s),
            Entry::AniSync(x) => Variant(k, x).serialize(s),
            Entry::AniComb(x) => Variant(k, x).serialize(s),
            Entry::AniDisable(x) => Variant(k, x).serialize(s),
            Entry::ModelTag(x) => Variant(k, x).serialize(s),
            Entry::AniEvents(x) => Variant(k, x).serialize(s),
            Entry::Event(e) => e.serialize(s),
            Entry::Unknown(x) => Variant(k, x).serialize(s),
        }
    }
}

impl OneOf for Entry {
    const EXPECTING: &'static str =
        "an entry named by its script keyword (ani, aniAlias, registerMesh, ...), as `kind: {...}`";
    const KINDS: &'static [&'static str] = ENTRY_KINDS;
    fn read_variant<'de, A: MapAccess<'de>>(kind: &str, map: &mut A) -> Result<Self, A::Error> {
        Ok(match kind {
            "root" => Entry::Root(map.next_value()?),
            "source" => Entry::Source(map.next_value()?),
            "model" => Entry::Model(map.next_value()?),
            "meshAndTree" => Entry::MeshAndTree(map.next_value()?),
            "registerMesh" => Entry::RegisterMesh(map.next_value()?),
            "aniEnum" => Entry::AniEnum(map.next_value()?),
            "aniMaxFps" => Entry::AniMaxFps(map.next_value()?),
            "ani" => Entry::Ani(map.next_value()?),
            "aniAlias" => Entry::AniAlias(map.next_value()?),
            "aniBlend" => Entry::AniBlend(map.next_value()?),
            "aniSync" => Entry::AniSync(map.next_value()?),
            "aniComb" => Entry::AniComb(map.next_value()?),
            "aniDisable" => Entry::AniDisable(map.next_value()?),
            "modelTag" => Entry::ModelTag(map.next_value()?),
            "aniEvents" => Entry::AniEvents(map.next_value()?),
            "aniEventsEnd" => Entry::AniEventsEnd(map.next_value()?),
            "aniEnumEnd" => Entry::AniEnumEnd(map.next_value()?),
            "modelEnd" => Entry::ModelEnd(map.next_value()?),
            "end" => Entry::End(map.next_value()?),
            "unknown" => Entry::Unknown(map.next_value()?),
            ev => Entry::Event(Event::read_variant(ev, map)?),
        })
    }
}

/// The schema-side spelling of an entry: `{ani: {...}}`.
#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "camelCase")]
pub enum EntryDoc {
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
    /// An event list header that is not attached to an animation.
    AniEvents(AniEvents),
    #[serde(rename = "eventSFX")]
    EventSfx(Sfx),
    #[serde(rename = "eventSFXGrnd")]
    EventSfxGrnd(Sfx),
    EventTag(Tag),
    #[serde(rename = "eventPFX")]
    EventPfx(Pfx),
    #[serde(rename = "eventPFXStop")]
    EventPfxStop(PfxStop),
    #[serde(rename = "eventPFXGrnd")]
    EventPfxGrnd(FrameOnly),
    EventSetMesh(SetMesh),
    EventSwapMesh(SwapMesh),
    #[serde(rename = "eventMMStartAni")]
    EventMmStartAni(MmStartAni),
    EventCamTremor(CamTremor),
    AniEventsEnd(Marker),
    AniEnumEnd(Marker),
    ModelEnd(Marker),
    End(Marker),
    Unknown(Unknown),
}

/// A `zengin.msb` YAML document.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "animkit zengin.msb document")]
pub struct MsbDocument {
    /// Always `zengin.msb`.
    pub format: String,
    /// Document version; this animkit reads 1.
    pub version: u32,
    /// The script's chunks in file order; animations carry their events.
    #[serde(deserialize_with = "read_list")]
    #[schemars(with = "Vec<EntryDoc>")]
    pub entries: Vec<Entry>,
}

struct DocOut<'a>(&'a Msb);

impl Serialize for DocOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("MsbDocument", 3)?;
        st.serialize_field("format", Msb::TAG)?;
        st.serialize_field("version", &Msb::YAML_VERSION)?;
        st.serialize_field("entries", &self.0.entries)?;
        st.end()
    }
}

pub fn to_yaml(msb: &Msb) -> Result<String, EncodeError> {
    crate::yaml::to_string(&DocOut(msb)).map_err(|e| EncodeError::new(e.to_string()))
}

pub fn from_yaml(text: &str) -> Result<Msb, ImportError> {
    let doc: MsbDocument = crate::yaml::from_str(text)?;
    check_document_header(&doc.format, doc.version, Msb::TAG, Msb::YAML_VERSION)
        .map_err(EncodeError::new)?;
    Ok(Msb {
        entries: doc.entries,
    })
}

impl Codec for Msb {
    fn repair(data: &[u8]) -> Option<crate::codec::Repaired> {
        crate::zengin::chunk::repair_lengths(data)
    }
    const TAG: &'static str = "zengin.msb";
    const DESCRIPTION: &'static str = "ZenGin compiled model script (.MSB)";
    const EXTENSIONS: &'static [&'static str] = &["msb"];
    const COMPANIONS: &'static [crate::codec::Companion] = crate::zengin::anirefs::BASE_SCRIPTS;
    fn defined_names(&self) -> Option<std::collections::HashSet<Vec<u8>>> {
        Some(crate::zengin::anirefs::names(&self.ani_statements()))
    }

    fn detect(data: &[u8]) -> bool {
        if data.len() < crate::zengin::chunk::HEADER_SIZE {
            return false;
        }
        let id = u16::from_le_bytes([data[0], data[1]]);
        let len = u32::from_le_bytes([data[2], data[3], data[4], data[5]]) as u64;
        id >= 0xF000 && len <= (data.len() - crate::zengin::chunk::HEADER_SIZE) as u64
    }
    fn decode(data: &[u8]) -> Result<Self, crate::exact::DecodeError> {
        Msb::read(data)
    }
    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.write(out)
    }
    fn to_yaml(&self, _opts: &ExportOptions) -> Result<String, EncodeError> {
        to_yaml(self)
    }
    fn from_yaml(text: &str, _opts: &ImportOptions) -> Result<Self, ImportError> {
        from_yaml(text)
    }
    fn schema() -> schemars::schema::RootSchema {
        schemars::schema_for!(MsbDocument)
    }
    fn info(&self) -> Vec<InfoLine> {
        let mut v = Vec::new();
        for e in &self.entries {
            match e {
                Entry::Source(s) => v.push(("source", s.path.to_string())),
                Entry::MeshAndTree(m) => v.push(("meshAndTree", m.mesh.to_string())),
                _ => {}
            }
        }
        v.push((
            "entries",
            self.census()
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
        ));
        v
    }
    fn field_at(&self, offset: u64) -> String {
        Msb::field_at(self, offset)
    }
    fn check(&self, ctx: &crate::codec::CheckContext<'_>) -> Vec<crate::codec::Finding> {
        use crate::zengin::anirefs::{base_names, dangling, is_overlay, Scope};
        let dont_use_mesh = self.entries.iter().find_map(|e| match e {
            Entry::MeshAndTree(m) => Some(m.dont_use_mesh.0 != 0),
            _ => None,
        });
        let registers = self
            .entries
            .iter()
            .any(|e| matches!(e, Entry::RegisterMesh(_)));
        let scope = Scope {
            overlay: is_overlay(dont_use_mesh, registers),
            base: ctx.companion.and_then(base_names),
            skipped: Vec::new(),
        };
        dangling(&self.ani_statements(), &scope)
    }
    fn diff(&self, other: &Self) -> Vec<String> {
        statement_diff(self, other).lines
    }
    fn diff_report(
        &self,
        other: &Self,
        _ctx: &crate::codec::DiffContext<'_>,
    ) -> crate::codec::Diff {
        statement_diff(self, other)
    }
}

impl Msb {
    /// The animation statements, as the reference check sees them (see
    /// [`crate::zengin::anirefs`]).
    pub fn ani_statements(&self) -> Vec<crate::zengin::anirefs::AniStatement<'_>> {
        use crate::zengin::anirefs::AniStatement;
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let path = format!("entries[{i}].{}", e.kind());
                Some(match e {
                    Entry::Ani(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    Entry::AniAlias(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        alias_of: Some(a.alias_of.as_bytes()),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    Entry::AniBlend(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    Entry::AniSync(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    Entry::AniComb(a) => AniStatement {
                        next: Some(a.next.as_bytes()),
                        comb: Some((a.prefix.as_bytes(), a.count)),
                        ..AniStatement::named(path.clone(), a.name.as_bytes())
                    },
                    _ => return None,
                })
            })
            .collect()
    }
}

/// The changes of two MSBs named by statement (`entries[12] ani "S_RUN": fps 25.0 → 12.5`),
/// statements added and removed (as the script diff of [`crate::zengin::script::diff`]).
fn statement_diff(old: &Msb, new: &Msb) -> crate::codec::Diff {
    use crate::zengin::script::diff::{statements, Statement};
    let list = |m: &Msb| -> Vec<Statement> {
        m.entries
            .iter()
            .enumerate()
            .map(|(i, e)| Statement::new(format!("entries[{i}]"), e.kind(), e))
            .collect()
    };
    statements(&list(old), &list(new), true)
}
