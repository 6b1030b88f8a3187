//! References from events to an anim def's arrays (nodes, lights, puffers, sounds, anim refs).
//!
//! The file stores an index. The model keeps that index (so duplicate names round-trip) and
//! also the name it resolves to, for people: YAML shows `{index: 2, name: node_b}`. When a
//! document is read back, an index and a name given together must agree (an edit of one with the
//! other left as it was is refused with both values, never silently resolved either way; an
//! index past its list given with a name is an error); a name alone is looked up (first item
//! with that name), a name that matches nothing is an error naming the path; an index alone
//! must resolve (or be the kind's "none" value, e.g. node 0). An original's index that resolves
//! to nothing (damaged files) is exported with its own spelling, `{raw_index: 17096}`, and kept
//! exactly as given (`check` reports it), so a plain `index` past its list is always an edit
//! mistake and refused.

use crate::exact::{EncodeError, Text};
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serializer};
use std::fmt;

/// The array a reference points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefKind {
    /// 1-based into `nodes`; 0 = none; -200 / -100 = the INPUT_NODE sentinel.
    Node,
    /// 1-based into `lights`.
    Light,
    /// 1-based into `puffers`.
    Puffer,
    /// 1-based into `dynamic_sounds`.
    DynamicSound,
    /// 1-based into `static_sounds`.
    StaticSound,
    /// 0-based into `anim_refs`; -1 = none.
    AnimRef,
}

impl RefKind {
    pub fn label(self) -> &'static str {
        match self {
            RefKind::Node => "node",
            RefKind::Light => "light",
            RefKind::Puffer => "puffer",
            RefKind::DynamicSound => "dynamic sound",
            RefKind::StaticSound => "static sound",
            RefKind::AnimRef => "anim ref",
        }
    }

    /// The anim def's array the reference points into.
    /// Whether `index` is this kind's "no item" value (node 0 / -1, a static sound ≤ 0, anim
    /// ref -1), which resolves to nothing and is fine.
    pub fn is_none_value(self, index: i32) -> bool {
        match self {
            RefKind::Node => matches!(index, 0 | -1),
            RefKind::StaticSound => index <= 0,
            RefKind::AnimRef => index == -1,
            _ => false,
        }
    }

    pub fn list_label(self) -> &'static str {
        match self {
            RefKind::Node => "nodes",
            RefKind::Light => "lights",
            RefKind::Puffer => "puffers",
            RefKind::DynamicSound => "dynamic_sounds",
            RefKind::StaticSound => "static_sounds",
            RefKind::AnimRef => "anim_refs",
        }
    }
}

/// The name used for the INPUT_NODE sentinels (-200 and -100).
pub const INPUT_NODE: &str = "INPUT_NODE";
/// A reference: the stored index and, for display, the name it resolves to.
#[derive(Debug, Clone)]
pub struct Ref {
    pub index: i32,
    /// Not boxed: a document names almost every reference (78,000 in an 18 MB MW3 document),
    /// and a box beside the name's own bytes was an allocation and a free more for each (about
    /// 1 % of the import's CPU time); the reference is 32 bytes instead of 16.
    pub name: Option<Text>,
    /// A document gave only the name; the index is found when the document is resolved.
    pub index_missing: bool,
    /// A document gave `raw_index`: an original's index that resolves to nothing, kept as is.
    pub raw: bool,
}

/// Index 0, as a record field the export leaves out when it is 0: a missing field reads back
/// as this and is kept as it is (like `raw_index: 0`).
impl Default for Ref {
    fn default() -> Self {
        Self {
            raw: true,
            ..Self::new(0)
        }
    }
}

/// Equal when index and name are (`raw` only says how a document spelled the index).
impl PartialEq for Ref {
    fn eq(&self, o: &Self) -> bool {
        (self.index, &self.name, self.index_missing) == (o.index, &o.name, o.index_missing)
    }
}

impl Ref {
    pub fn new(index: i32) -> Self {
        Self {
            index,
            name: None,
            index_missing: false,
            raw: false,
        }
    }
}

thread_local! {
    /// The names of the anim def being written to YAML (see [`with_names`]).
    static CURRENT: std::cell::RefCell<Option<OwnedNames>> = const { std::cell::RefCell::new(None) };
}

/// Run `f` (a YAML serialisation of one anim def) with that def's names available, so
/// references that carry no name (as decoded) are shown with the name they resolve to.
pub fn with_names<R>(names: OwnedNames, f: impl FnOnce() -> R) -> R {
    let old = CURRENT.with(|c| c.replace(Some(names)));
    let r = f();
    CURRENT.with(|c| *c.borrow_mut() = old);
    r
}

impl Ref {
    pub(super) fn serialize_as<S: Serializer>(
        &self,
        kind: RefKind,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Ref", 2)?;
        if let Some(n) = &self.name {
            st.serialize_field("index", &self.index)?;
            st.serialize_field("name", n)?;
        } else {
            // the name the index resolves to, from the def being written; an index that
            // resolves to nothing (and is not the kind's "none" value) is an original's damaged
            // index: `raw_index`, so that a plain `index` past its list can be refused
            CURRENT.with(|c| {
                let current = c.borrow();
                let Some(names) = current.as_ref() else {
                    return st.serialize_field("index", &self.index);
                };
                match names.name_of(kind, self.index) {
                    Some(n) => {
                        st.serialize_field("index", &self.index)?;
                        match n {
                            NameOf::Input => st.serialize_field("name", INPUT_NODE),
                            NameOf::Item(t) => st.serialize_field("name", t),
                        }
                    }
                    None if !kind.is_none_value(self.index) => {
                        st.serialize_field("raw_index", &self.index)
                    }
                    None => st.serialize_field("index", &self.index),
                }
            })?;
        }
        st.end()
    }
}

enum NameOf<'a> {
    Input,
    Item(&'a Text),
}

/// Owned copies of an anim def's names.
#[derive(Debug, Clone, Default)]
pub struct OwnedNames {
    pub nodes: Vec<Text>,
    pub lights: Vec<Text>,
    pub puffers: Vec<Text>,
    pub dynamic_sounds: Vec<Text>,
    pub static_sounds: Vec<Text>,
    pub anim_refs: Vec<Text>,
}

impl OwnedNames {
    fn name_of(&self, kind: RefKind, index: i32) -> Option<NameOf<'_>> {
        if kind == RefKind::Node && (index == -200 || index == -100) {
            return Some(NameOf::Input);
        }
        let list = match kind {
            RefKind::Node => &self.nodes,
            RefKind::Light => &self.lights,
            RefKind::Puffer => &self.puffers,
            RefKind::DynamicSound => &self.dynamic_sounds,
            RefKind::StaticSound => &self.static_sounds,
            RefKind::AnimRef => &self.anim_refs,
        };
        let slot = Names::slot(kind, index)?;
        list.get(slot).map(NameOf::Item)
    }

    pub fn as_names(&self) -> Names<'_> {
        Names {
            nodes: self.nodes.iter().map(Text::as_bytes).collect(),
            lights: self.lights.iter().map(Text::as_bytes).collect(),
            puffers: self.puffers.iter().map(Text::as_bytes).collect(),
            dynamic_sounds: self.dynamic_sounds.iter().map(Text::as_bytes).collect(),
            static_sounds: self.static_sounds.iter().map(Text::as_bytes).collect(),
            anim_refs: self.anim_refs.iter().map(Text::as_bytes).collect(),
        }
    }
}

impl<'de> Deserialize<'de> for Ref {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Ref;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an index, a name, or {index: ..., name: ...}")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Ref, E> {
                i32::try_from(v)
                    .map(Ref::new)
                    .map_err(|_| E::custom("index out of range"))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Ref, E> {
                i32::try_from(v)
                    .map(Ref::new)
                    .map_err(|_| E::custom("index out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Ref, E> {
                let name = Text::deserialize(de::value::StrDeserializer::<E>::new(v))?;
                Ok(Ref {
                    index: 0,
                    name: Some(name),
                    index_missing: true,
                    raw: false,
                })
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Ref, A::Error> {
                let mut r = Ref {
                    index: 0,
                    name: None,
                    index_missing: true,
                    raw: false,
                };
                let mut index_given = false;
                // (a borrowed key: no String per reference field)
                while let Some(super::prim::Key(k)) = m.next_key()? {
                    match &*k {
                        "index" => {
                            r.index = m.next_value()?;
                            r.index_missing = false;
                            index_given = true;
                        }
                        "raw_index" => {
                            r.index = m.next_value()?;
                            r.index_missing = false;
                            r.raw = true;
                        }
                        "name" => r.name = Some(m.next_value()?),
                        other => {
                            return Err(de::Error::unknown_field(
                                other,
                                &["index", "name", "raw_index"],
                            ))
                        }
                    }
                }
                if r.raw && (index_given || r.name.is_some()) {
                    return Err(de::Error::custom(
                        "`raw_index` (an original's index that resolves to nothing) stands alone: \
                         to point the reference somewhere, replace it with `index` or `name`",
                    ));
                }
                if r.index_missing && r.name.is_none() {
                    return Err(de::Error::custom(
                        "a reference needs `index`, `name` or `raw_index`",
                    ));
                }
                Ok(r)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for Ref {
    fn schema_name() -> String {
        "Ref".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "a reference into one of the anim def's arrays: the stored index and the name it resolves to (edit one and delete the other, or give both agreeing); an original's index that resolves to nothing is written {raw_index: N} and kept as is",
            "anyOf": [
                {"type": "integer"},
                {"type": "string"},
                {"type": "object", "additionalProperties": false, "minProperties": 1,
                 "properties": {"index": {"type": "integer"}, "name": {"type": "string"}}},
                {"type": "object", "additionalProperties": false, "required": ["raw_index"],
                 "properties": {"raw_index": {"type": "integer"}}}
            ]
        }))
    }
}

/// Called for every reference inside a value.
pub type RefVisitor<'a> = dyn FnMut(RefKind, &mut Ref) -> Result<(), EncodeError> + 'a;

/// The names an anim def's references resolve to (the text bytes of each item's name).
#[derive(Default)]
pub struct Names<'a> {
    pub nodes: Vec<&'a [u8]>,
    pub lights: Vec<&'a [u8]>,
    pub puffers: Vec<&'a [u8]>,
    pub dynamic_sounds: Vec<&'a [u8]>,
    pub static_sounds: Vec<&'a [u8]>,
    pub anim_refs: Vec<&'a [u8]>,
}

impl<'a> Names<'a> {
    fn list(&self, kind: RefKind) -> &[&'a [u8]] {
        match kind {
            RefKind::Node => &self.nodes,
            RefKind::Light => &self.lights,
            RefKind::Puffer => &self.puffers,
            RefKind::DynamicSound => &self.dynamic_sounds,
            RefKind::StaticSound => &self.static_sounds,
            RefKind::AnimRef => &self.anim_refs,
        }
    }
    fn slot(kind: RefKind, index: i32) -> Option<usize> {
        let i = if kind == RefKind::AnimRef {
            index
        } else {
            index.checked_sub(1)?
        };
        usize::try_from(i).ok()
    }
    /// The item an index refers to, if it resolves.
    pub fn item(&self, kind: RefKind, index: i32) -> Option<&'a [u8]> {
        Self::slot(kind, index).and_then(|i| self.list(kind).get(i).copied())
    }
    /// The display name of an index (INPUT_NODE for the node sentinels).
    pub fn name_of(&self, kind: RefKind, index: i32) -> Option<Text> {
        if kind == RefKind::Node && (index == -200 || index == -100) {
            return Some(Text::from(INPUT_NODE));
        }
        self.item(kind, index).map(Text::new)
    }
    /// Whether `index` resolves (to an item or, for nodes, the INPUT_NODE sentinels), and to
    /// `name` when one is given; no copy of the name (this runs for every reference read).
    fn resolves_to(&self, kind: RefKind, index: i32, name: Option<&[u8]>) -> bool {
        let found = if kind == RefKind::Node && (index == -200 || index == -100) {
            Some(INPUT_NODE.as_bytes())
        } else {
            self.item(kind, index)
        };
        match (found, name) {
            (Some(f), Some(n)) => f == n,
            (found, None) => found.is_some(),
            (None, Some(_)) => false,
        }
    }
    /// The index of the first item named `name`.
    pub fn index_of(&self, kind: RefKind, name: &Text) -> Option<i32> {
        let pos = self.list(kind).iter().position(|t| *t == name.as_bytes())? as i32;
        Some(if kind == RefKind::AnimRef {
            pos
        } else {
            pos + 1
        })
    }

    /// After decoding: attach names to indices.
    pub fn fill(&self, kind: RefKind, r: &mut Ref) {
        r.name = self.name_of(kind, r.index);
    }

    /// After reading a document: a `raw_index` is kept as it is (see `check`); an index alone
    /// must resolve or be the kind's "none" value; a name alone gives the index (the first item
    /// of that name); both must agree, and then the index must be inside its list (an edit of
    /// one with the other left as it was is refused, naming both values and the list's size).
    pub fn resolve(&self, kind: RefKind, r: &mut Ref) -> Result<(), EncodeError> {
        let len = self.list(kind).len();
        let past = |index: i32| {
            Self::slot(kind, index).is_some_and(|s| s >= len).then(|| {
                EncodeError::new(format!(
                    "{} index {index} is past the list of {} ({len} items)",
                    kind.label(),
                    kind.list_label(),
                ))
            })
        };
        let Some(name) = &r.name else {
            if r.index_missing {
                return Err(EncodeError::new(
                    "a reference needs `index`, `name` or `raw_index`",
                ));
            }
            // An original's index that resolves to nothing is kept as it is (`check` reports
            // it); the export spells it `raw_index`.
            if r.raw || kind.is_none_value(r.index) || self.resolves_to(kind, r.index, None) {
                return Ok(());
            }
            let hint = "(an original's index that resolves to nothing is written `raw_index`)";
            return Err(match past(r.index) {
                Some(e) => EncodeError::new(format!(
                    "{}: give an index inside it or a name {hint}",
                    e.message
                )),
                None => EncodeError::new(format!(
                    "{} index {} does not resolve (the list of {} has {len} items) {hint}",
                    kind.label(),
                    r.index,
                    kind.list_label(),
                )),
            });
        };
        if !r.index_missing {
            if self.resolves_to(kind, r.index, Some(name.as_bytes())) {
                return Ok(());
            }
            if let Some(e) = past(r.index) {
                return Err(e);
            }
            let at = match self.name_of(kind, r.index) {
                Some(n) => format!("{n:?}"),
                None => "no item".into(),
            };
            return Err(EncodeError::new(format!(
                "index {} ({at}) and name {name:?} disagree (the list of {} has {len} items): \
                 edit one and delete the other",
                r.index,
                kind.list_label(),
            )));
        }
        if kind == RefKind::Node && name.as_bytes() == INPUT_NODE.as_bytes() {
            r.index = -200;
            r.index_missing = false;
            return Ok(());
        }
        match self.index_of(kind, name) {
            Some(i) => {
                r.index = i;
                r.index_missing = false;
                Ok(())
            }
            None => Err(EncodeError::new(format!(
                "no {} named {:?} in this anim def",
                kind.label(),
                name
            ))),
        }
    }
}
