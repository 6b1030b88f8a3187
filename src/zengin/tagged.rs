//! One-key YAML mappings for enums (`- hierarchy: {...}`, `- eventSFX: {...}`).
//!
//! YAML readers want `!tag` syntax for externally tagged enums (serde_yaml 0.9 did), and internally tagged
//! enums buffer values through serde's `Content` (which loses `F32` bit patterns). So the read
//! side is a small map visitor: the one key names the variant, [`OneOf::read_variant`] reads the
//! value with the variant's own `Deserialize`. The write side is [`Variant`].

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Serialize, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// `{name: value}`, the externally tagged enum form.
pub struct Variant<'a, T: ?Sized>(pub &'static str, pub &'a T);

impl<T: Serialize + ?Sized> Serialize for Variant<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_variant("Entry", 0, self.0, self.1)
    }
}

/// An enum read from a one-key mapping.
pub trait OneOf: Sized {
    /// What the visitor says it expected.
    const EXPECTING: &'static str;
    /// Every accepted key.
    const KINDS: &'static [&'static str];
    /// Read the value of `kind` (one of [`OneOf::KINDS`]).
    fn read_variant<'de, A: MapAccess<'de>>(kind: &str, map: &mut A) -> Result<Self, A::Error>;
}

/// Deserialise a [`OneOf`] enum from `{kind: value}`.
pub struct OneKey<T>(pub T);

impl<'de, T: OneOf> Deserialize<'de> for OneKey<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: OneOf> Visitor<'de> for V<T> {
            type Value = OneKey<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(T::EXPECTING)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OneKey<T>, A::Error> {
                let kind: String = map
                    .next_key()?
                    .ok_or_else(|| de::Error::invalid_length(0, &T::EXPECTING))?;
                if !T::KINDS.contains(&kind.as_str()) {
                    return Err(de::Error::unknown_variant(&kind, T::KINDS));
                }
                let v = T::read_variant(&kind, &mut map)?;
                if map.next_key::<IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom(
                        "an entry names exactly one kind; start each entry with its own `- `",
                    ));
                }
                Ok(OneKey(v))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// Deserialise a list of [`OneOf`] values.
pub fn read_list<'de, D: Deserializer<'de>, T: OneOf>(d: D) -> Result<Vec<T>, D::Error> {
    let v: Vec<OneKey<T>> = Vec::deserialize(d)?;
    Ok(v.into_iter().map(|k| k.0).collect())
}

/// What changed between two YAML exports, one line per changed line (`-` old, `+` new, with
/// the line number in the new document).
pub fn diff_yaml(old: &str, new: &str) -> Vec<String> {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut out = Vec::new();
    for change in diff.iter_all_changes() {
        let line = change.value().trim_end_matches(['\n', '\r']);
        match change.tag() {
            similar::ChangeTag::Equal => {}
            similar::ChangeTag::Delete => out.push(format!(
                "line {}: - {line}",
                change.old_index().map_or(0, |i| i + 1)
            )),
            similar::ChangeTag::Insert => out.push(format!(
                "line {}: + {line}",
                change.new_index().map_or(0, |i| i + 1)
            )),
        }
    }
    out
}
