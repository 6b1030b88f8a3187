//! Where a value is in a YAML document's text: the line and column of the node a field path
//! (`chunks[3].samples.frames[0][0].rotation`) names, for errors found after reading (while
//! encoding the document), so they point into the document as reading errors do.
//!
//! The document is read once more with serde-saphyr (only on the error path), following the
//! path and skipping everything else; at the node the walk stops with an error, and the
//! position serde-saphyr gives that error is the node's.

use crate::exact::error::Segment;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// What the walk stops with at the node it looks for.
const FOUND: &str = "\u{0}animkit: the node looked for";

/// The line and column (1-based) of the node at `path` in `text`; `None` when the document
/// has no such node (or is not readable YAML).
pub fn locate(text: &str, path: &[Segment]) -> Option<(usize, usize)> {
    if path.is_empty() {
        return None;
    }
    let text = super::strip_bom(text);
    match super::read::from_str_seed(text, Walk(path)) {
        Err(e) if e.message.contains(FOUND) => Some((e.line?, e.column.unwrap_or(1))),
        _ => None,
    }
}

/// Follow `.0` from the node being read.
struct Walk<'p>(&'p [Segment]);

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        match self.0.first() {
            None => d.deserialize_any(Found),
            Some(Segment::Index(_)) => d.deserialize_seq(self),
            Some(_) => d.deserialize_map(self),
        }
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map or a list")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let name = match &self.0[0] {
            Segment::Field(n) => *n,
            Segment::Key(n) => n.as_str(),
            Segment::Index(_) => return Ok(()),
        };
        while let Some(key) = map.next_key::<KeyText>()? {
            if key.0.as_deref() == Some(name) {
                return map.next_value_seed(Walk(&self.0[1..]));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Segment::Index(i) = self.0[0] else {
            return Ok(());
        };
        for _ in 0..i {
            if seq.next_element::<IgnoredAny>()?.is_none() {
                return Ok(());
            }
        }
        seq.next_element_seed(Walk(&self.0[1..]))?;
        Ok(())
    }
    // Any other node is not on the path: nothing found.
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// A map key as text (`None` for a key that is not a scalar).
struct KeyText(Option<String>);

impl<'de> de::Deserialize<'de> for KeyText {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyText;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<KeyText, E> {
                Ok(KeyText(Some(v.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<KeyText, E> {
                Ok(KeyText(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<KeyText, A::Error> {
                while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(KeyText(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<KeyText, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(KeyText(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The node looked for: stop here (the error carries its position).
struct Found;

impl<'de> Visitor<'de> for Found {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any node")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Err(E::custom(FOUND))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(de::Error::custom(FOUND))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_path_is_found_at_its_line_and_column() {
        let doc = "format: zengin.man\nchunks:\n- marker: {}\n- samples:\n    frames:\n    - - {rotation: [0.0, 0.0, 0.0, 1.0], position: [1.0, 2.0, 3.0]}\n      - {rotation: [0.0, 0.0, 0.0, 0.0], position: [1.0, 2.0, 3.0]}\n";
        let path = [
            Segment::Field("chunks"),
            Segment::Index(1),
            Segment::Field("samples"),
            Segment::Field("frames"),
            Segment::Index(0),
            Segment::Index(1),
            Segment::Field("rotation"),
        ];
        assert_eq!(locate(doc, &path), Some((7, 20)));
        assert_eq!(locate(doc, &[Segment::Field("format")]), Some((1, 9)));
        assert_eq!(locate(doc, &[Segment::Field("nothing")]), None);
        assert_eq!(locate(doc, &path[..2]), Some((4, 3)));
    }
}
