//! Windows-1252 text kept as its exact bytes, shown in YAML as Unicode.
//!
//! The WHATWG Windows-1252 table used by `encoding_rs` maps every one of the 256 byte values to
//! a distinct code point (the five bytes the Microsoft table leaves undefined map to the C1
//! controls U+0081, U+008D, U+008F, U+0090 and U+009D), so decoding and re-encoding is lossless
//! for any byte string, including `\0` and `\r` inside a value.

use encoding_rs::WINDOWS_1252;
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// A byte string whose meaning is Windows-1252 text.
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Text(pub Vec<u8>);

impl Text {
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self(bytes.into())
    }
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The text as Unicode (lossless, see the module docs).
    pub fn to_unicode(&self) -> Cow<'_, str> {
        decode_cp1252(&self.0)
    }
    /// Encode Unicode text to Windows-1252; `None` names the first character that has no byte.
    pub fn from_unicode(s: &str) -> Result<Self, char> {
        encode_cp1252(s).map(|b| Self(b.into_owned()))
    }
}

/// Decode Windows-1252 bytes to Unicode; never fails and never loses a byte.
pub fn decode_cp1252(bytes: &[u8]) -> Cow<'_, str> {
    if bytes.is_ascii() {
        // ASCII is valid UTF-8 and identical in Windows-1252.
        return Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default());
    }
    let (text, _had_errors) = WINDOWS_1252.decode_without_bom_handling(bytes);
    text
}

/// Encode Unicode to Windows-1252 bytes, or return the first character that has no byte.
pub fn encode_cp1252(s: &str) -> Result<Cow<'_, [u8]>, char> {
    if s.is_ascii() {
        return Ok(Cow::Borrowed(s.as_bytes()));
    }
    let (bytes, _, had_errors) = WINDOWS_1252.encode(s);
    if had_errors {
        let bad = s
            .chars()
            .find(|c| {
                let mut buf = [0u8; 4];
                WINDOWS_1252.encode(c.encode_utf8(&mut buf)).2
            })
            .unwrap_or('\u{FFFD}');
        return Err(bad);
    }
    Ok(bytes)
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_unicode())
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_unicode())
    }
}

impl From<&str> for Text {
    /// For literals in code and tests; panics on text Windows-1252 cannot hold.
    fn from(s: &str) -> Self {
        match Text::from_unicode(s) {
            Ok(t) => t,
            Err(c) => panic!("{c:?} has no Windows-1252 byte"),
        }
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_unicode())
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string of Windows-1252 characters")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Text::from_unicode(v).map_err(|c| {
                    E::custom(format!(
                        "character {c:?} (U+{:04X}) cannot be stored in Windows-1252 text",
                        c as u32
                    ))
                })
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for Text {
    fn schema_name() -> String {
        "Text".into()
    }
    fn json_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        let mut s = String::json_schema(gen).into_object();
        s.metadata().description = Some("Windows-1252 text (every byte value is allowed)".into());
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_value_round_trips() {
        let all: Vec<u8> = (0..=255).collect();
        let text = Text(all.clone());
        let unicode = text.to_unicode().into_owned();
        assert_eq!(unicode.chars().count(), 256);
        assert_eq!(Text::from_unicode(&unicode).unwrap().0, all);
    }

    #[test]
    fn the_five_undefined_bytes_map_to_c1_controls() {
        for b in [0x81u8, 0x8D, 0x8F, 0x90, 0x9D] {
            let u = decode_cp1252(&[b]).into_owned();
            assert_eq!(u.chars().next().unwrap() as u32, b as u32);
        }
        assert_eq!(decode_cp1252(&[0x80]), "€");
        assert_eq!(decode_cp1252(&[0xE4]), "ä");
    }

    #[test]
    fn characters_outside_cp1252_are_refused() {
        assert_eq!(Text::from_unicode("a\u{4E2D}b"), Err('\u{4E2D}'));
    }
}
