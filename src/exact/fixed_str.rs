//! Fixed-size string buffers whose bytes after the terminator (garbage from the game's tools)
//! stay data, and the raw-hex scalar they and other raw bytes are shown with.

use super::{Blob, EncodeError, Text};
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Lowercase hex of `bytes` (table-driven; the YAML export writes a lot of it).
pub fn hex_string(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = vec![0u8; bytes.len() * 2];
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair[0] = DIGITS[(b >> 4) as usize];
        pair[1] = DIGITS[(b & 15) as usize];
    }
    // Only ASCII hex digits were pushed.
    String::from_utf8(out).unwrap_or_default()
}

/// Serialises hex digits as an unquoted YAML scalar, quoted where a YAML reader would take the
/// digits for a number (`3031`, `0012` (octal in YAML 1.1), `12e4`, `0b01`): animkit reads the
/// scalar's text with `deserialize_str` either way, but other readers (PyYAML, JSON Schema
/// validation) must see a string.
pub struct RawHex<'a>(pub &'a [u8]);

impl Serialize for RawHex<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let hex = hex_string(self.0);
        // (an empty plain scalar would read back as null)
        if hex.is_empty() || hex_reads_as_number(&hex) {
            return s.serialize_str(&hex);
        }
        s.serialize_newtype_struct(super::RAW_SCALAR, &hex)
    }
}

/// Whether lowercase hex digits `hex` would be a number to a YAML 1.1 or 1.2 reader: decimal
/// digits (ints, YAML 1.1 octal), `DIGITS e DIGITS` (a YAML 1.2 float), `0b` + binary digits
/// (a YAML 1.1 int). No other hex text is a number (floats need `.`, hex ints `x`).
pub fn hex_reads_as_number(hex: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if digits(hex) {
        return true;
    }
    if let Some((m, e)) = hex.split_once('e') {
        if digits(m) && digits(e) {
            return true;
        }
    }
    hex.strip_prefix("0b")
        .is_some_and(|b| !b.is_empty() && b.bytes().all(|c| c == b'0' || c == b'1'))
}

/// The 17 bytes the engine fills NODE-kind name buffers with before writing the name.
pub const NODE_FILL: &[u8; 17] = b"Default_node_name";

/// A NUL-terminated string in an `N`-byte buffer, held inline as its exact bytes (no
/// allocation). The text is the bytes before the first NUL; the bytes after it (the *tail*)
/// are garbage kept verbatim. YAML shows a plain string when the tail is the default fill for
/// the field's kind (zeros, or for `NODE = true` the `Default_node_name` template) and
/// `{text: ..., tail: <hex>}` otherwise; [`Str::tail`] is `None` in the default case.
///
/// Editing the text ([`Str::set_text`]) regenerates a default fill, and keeps any other tail
/// aligned to the end of the buffer with the new text and its terminator written over the
/// start. A document may give a text too long for the buffer: it is kept (`too_long`) so the
/// writer can report it with the field's path.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Str<const N: usize, const NODE: bool = false> {
    /// Always holds a NUL.
    raw: [u8; N],
    /// A text of `N` or more bytes from a document (never set when decoding).
    too_long: Option<Box<Text>>,
}

/// A zero-padded (or garbage-tailed) name buffer.
pub type Z<const N: usize> = Str<N, false>;
/// A `Default_node_name`-filled name buffer.
pub type NodeName = Str<32, true>;

impl<const N: usize, const NODE: bool> Default for Str<N, NODE> {
    fn default() -> Self {
        Self {
            raw: Self::default_buf(),
            too_long: None,
        }
    }
}

impl<const N: usize, const NODE: bool> fmt::Debug for Str<N, NODE> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = crate::exact::text::decode_cp1252(self.text());
        match self.tail() {
            None => write!(f, "{text:?}"),
            Some(t) => write!(f, "{text:?}+{}", hex::encode(t)),
        }
    }
}

impl<const N: usize, const NODE: bool> Str<N, NODE> {
    /// The buffer of an empty name: the default fill.
    fn default_buf() -> [u8; N] {
        let mut buf = [0u8; N];
        if NODE {
            let n = NODE_FILL.len().min(N);
            buf[..n].copy_from_slice(&NODE_FILL[..n]);
            if N > 0 {
                buf[0] = 0;
            }
        }
        buf
    }
    /// A name from a literal in code and tests; panics on text the field cannot hold.
    pub fn new(text: &str) -> Self {
        let t = Text::from(text);
        match Self::from_parts(t.as_bytes(), None) {
            Ok(s) => s,
            Err(e) => panic!("{e}"),
        }
    }
    /// The buffer as it is stored. `None` when it has no terminator.
    #[inline]
    pub fn from_array(raw: [u8; N]) -> Option<Self> {
        raw.contains(&0).then_some(Self {
            raw,
            too_long: None,
        })
    }
    /// The buffer as it is stored. `None` when `raw` is not `N` bytes or has no terminator.
    pub fn from_raw(raw: &[u8]) -> Option<Self> {
        let raw: [u8; N] = raw.try_into().ok()?;
        raw.contains(&0).then_some(Self {
            raw,
            too_long: None,
        })
    }
    /// Build the buffer from a text and an optional tail: the default fill (or the tail
    /// aligned to the end of the buffer), then the text and its terminator over the start.
    pub fn from_parts(text: &[u8], tail: Option<&[u8]>) -> Result<Self, EncodeError> {
        let len = text.len();
        if len >= N {
            return Err(Self::too_long_error(text));
        }
        let mut raw = match tail {
            None => Self::default_buf(),
            Some(t) => {
                let mut buf = [0u8; N];
                let t = &t[..t.len().min(N)];
                buf[N - t.len()..].copy_from_slice(t);
                buf
            }
        };
        raw[..len].copy_from_slice(text);
        raw[len] = 0;
        Ok(Self {
            raw,
            too_long: None,
        })
    }
    fn too_long_error(text: &[u8]) -> EncodeError {
        EncodeError::new(format!(
            "text {:?} is {} bytes; this field holds at most {}",
            crate::exact::text::decode_cp1252(text),
            text.len(),
            N.saturating_sub(1)
        ))
    }
    /// Like [`Str::from_parts`], but a text too long for the buffer is kept, and the writer
    /// reports it (documents are read this way, so the error names the field).
    pub fn from_parts_lenient(text: &Text, tail: Option<&[u8]>) -> Self {
        Self::from_bytes_lenient(text.as_bytes(), tail)
    }
    /// [`Str::from_parts_lenient`] of the text's bytes.
    fn from_bytes_lenient(text: &[u8], tail: Option<&[u8]>) -> Self {
        Self::from_parts(text, tail).unwrap_or_else(|_| Self {
            raw: Self::default_buf(),
            too_long: Some(Box::new(Text::new(text))),
        })
    }
    fn text_len(&self) -> usize {
        self.raw.iter().position(|&b| b == 0).unwrap_or(N)
    }
    /// The text bytes (Windows-1252), up to the terminator.
    pub fn text(&self) -> &[u8] {
        match &self.too_long {
            Some(t) => t.as_bytes(),
            None => &self.raw[..self.text_len()],
        }
    }
    /// The text as an owned [`Text`].
    pub fn to_text(&self) -> Text {
        Text::new(self.text())
    }
    /// The bytes after the terminator, when they are not the kind's default fill.
    pub fn tail(&self) -> Option<&[u8]> {
        if self.too_long.is_some() {
            return None;
        }
        let len = self.text_len();
        let tail = self.raw.get(len + 1..).unwrap_or_default();
        (!Self::is_default_tail(len, tail)).then_some(tail)
    }
    fn is_default_tail(len: usize, tail: &[u8]) -> bool {
        if NODE {
            let fill = NODE_FILL.get(len + 1..).unwrap_or_default();
            let (head, rest) = tail.split_at(fill.len().min(tail.len()));
            head == &fill[..head.len()] && rest.iter().all(|&b| b == 0)
        } else {
            tail.iter().all(|&b| b == 0)
        }
    }
    /// Replace the text (see the type's docs for what happens to the tail).
    pub fn set_text(&mut self, text: &[u8]) -> Result<(), EncodeError> {
        *self = Self::from_parts(text, self.tail())?;
        Ok(())
    }
    /// The stored buffer (meaningless while the text is too long, see [`Str::encodable`]).
    pub fn as_raw(&self) -> &[u8; N] {
        &self.raw
    }
    /// `Err` when the text does not fit the buffer.
    pub fn encodable(&self) -> Result<&[u8; N], EncodeError> {
        match &self.too_long {
            Some(t) => Err(Self::too_long_error(t.as_bytes())),
            None => Ok(&self.raw),
        }
    }
    /// Whether the buffer holds exactly this text with the kind's default fill.
    pub fn is_clean(&self) -> bool {
        self.tail().is_none()
    }
}

impl<const N: usize, const NODE: bool> Serialize for Str<N, NODE> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let text = crate::exact::text::decode_cp1252(self.text());
        match self.tail() {
            None => s.serialize_str(&text),
            Some(t) => {
                let mut st = s.serialize_struct("Str", 2)?;
                st.serialize_field("text", &*text)?;
                st.serialize_field("tail", &RawHex(t))?;
                st.end()
            }
        }
    }
}

impl<'de, const N: usize, const NODE: bool> Deserialize<'de> for Str<N, NODE> {
    /// As [`StrParts`] then [`StrParts::build_lenient`], but a string, the usual spelling,
    /// is laid out straight from its bytes: no `Text` made and dropped per name (60,000 in
    /// the 18 MB MW3 document). Every other spelling, and a string with a character
    /// Windows-1252 lacks (for its message), goes through `StrParts` as before;
    /// `a_name_reads_as_through_its_parts` ties the two.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const N: usize, const NODE: bool>;
        impl<'de, const N: usize, const NODE: bool> de::Visitor<'de> for V<N, NODE> {
            type Value = Str<N, NODE>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(STR_EXPECTING)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                match crate::exact::text::encode_cp1252(v) {
                    Ok(b) => Ok(Str::from_bytes_lenient(&b, None)),
                    Err(_) => parts(de::value::StrDeserializer::<E>::new(v)),
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                parts(de::value::U64Deserializer::<E>::new(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                parts(de::value::I64Deserializer::<E>::new(v))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                parts(de::value::BoolDeserializer::<E>::new(v))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, m: A) -> Result<Self::Value, A::Error> {
                parts(de::value::MapAccessDeserializer::new(m))
            }
        }
        fn parts<'de, D: Deserializer<'de>, const N: usize, const NODE: bool>(
            d: D,
        ) -> Result<Str<N, NODE>, D::Error> {
            Ok(StrParts::deserialize(d)?.build_lenient())
        }
        d.deserialize_any(V::<N, NODE>)
    }
}

/// What a name's reader expects (the same words in both readers' messages).
const STR_EXPECTING: &str = "a string, or {text: ..., tail: <hex>}";

/// A name as a document gives it: text and optional tail, not yet laid out in a buffer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StrParts {
    pub text: Text,
    pub tail: Option<Blob>,
}

impl StrParts {
    /// Lay out in an `N`-byte buffer (see [`Str::from_parts`]).
    pub fn build<const N: usize, const NODE: bool>(&self) -> Result<Str<N, NODE>, EncodeError> {
        Str::from_parts(
            self.text.as_bytes(),
            self.tail.as_ref().map(|b| b.as_bytes()),
        )
    }
    /// Lay out, keeping a text too long for the buffer for the writer to report.
    pub fn build_lenient<const N: usize, const NODE: bool>(&self) -> Str<N, NODE> {
        Str::from_parts_lenient(&self.text, self.tail.as_ref().map(|b| b.as_bytes()))
    }
}

impl<'de> Deserialize<'de> for StrParts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl V {
            fn text<E: de::Error>(v: &str) -> Result<StrParts, E> {
                let text = Text::deserialize(de::value::StrDeserializer::<E>::new(v))?;
                Ok(StrParts { text, tail: None })
            }
        }
        impl<'de> de::Visitor<'de> for V {
            type Value = StrParts;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(STR_EXPECTING)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Self::text(v)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Self::text(&v.to_string())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Self::text(&v.to_string())
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Self::text(&v.to_string())
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
                let mut text = None;
                let mut tail = None;
                while let Some(k) = m.next_key::<String>()? {
                    match k.as_str() {
                        "text" => text = Some(m.next_value::<Text>()?),
                        "tail" => tail = Some(m.next_value::<Blob>()?),
                        other => return Err(de::Error::unknown_field(other, &["text", "tail"])),
                    }
                }
                Ok(StrParts {
                    text: text.ok_or_else(|| de::Error::missing_field("text"))?,
                    tail,
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl<const N: usize, const NODE: bool> JsonSchema for Str<N, NODE> {
    fn schema_name() -> String {
        format!("Str{N}{}", if NODE { "Node" } else { "" })
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": format!(
                "a name in a {N}-byte buffer (at most {} bytes); `tail` holds the bytes after the terminator when they are not the default {} fill",
                N - 1, if NODE { "Default_node_name" } else { "zero" }),
            "anyOf": [
                {"type": "string"},
                {"type": "object", "required": ["text"], "additionalProperties": false,
                 "properties": {"text": {"type": "string"}, "tail": {"type": "string", "pattern": "^([0-9a-fA-F]{2}|\\s)*$"}}}
            ]
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every spelling a document may give a name, read by `Str`'s reader and by `StrParts`
    /// then `build_lenient` (the reader before its shortcut for strings): the same buffers
    /// (too long texts kept), the same messages.
    #[test]
    fn a_name_reads_as_through_its_parts() {
        fn both<const N: usize, const NODE: bool>(json: &str) -> Result<Str<N, NODE>, String> {
            let direct = serde_json::from_str::<Str<N, NODE>>(json).map_err(|e| e.to_string());
            let parts = serde_json::from_str::<StrParts>(json)
                .map(|p| p.build_lenient::<N, NODE>())
                .map_err(|e| e.to_string());
            assert_eq!(direct, parts, "{json}");
            direct
        }
        let cases = [
            r#""abc""#,
            r#""""#,
            r#""sevench""#,
            r#""eight ch""#,
            r#""much too long for it""#,
            r#""caf\u00e9 \u20ac""#,
            r#""\u0100 not in 1252""#,
            r#""a\u0000b""#,
            "17",
            "-3",
            "true",
            "1.5",
            "null",
            "[1]",
            r#"{"text": "ab", "tail": "0102"}"#,
            r#"{"text": "ab"}"#,
            r#"{"tail": "01"}"#,
            r#"{"text": "ab", "other": 1}"#,
        ];
        let mut read = 0;
        for json in cases {
            read += usize::from(both::<8, false>(json).is_ok());
            let _ = both::<8, true>(json);
            let _ = both::<32, false>(json);
        }
        // (the seven Windows-1252 strings, the two numbers, the boolean and the two good
        // maps read; the rest fail)
        assert_eq!(read, 12);
        let z = both::<8, false>(r#""abc""#).unwrap();
        assert_eq!((z.text(), z.tail()), (&b"abc"[..], None));
        let long = both::<8, false>(r#""much too long for it""#).unwrap();
        assert_eq!(long.text(), b"much too long for it");
        let e = both::<8, false>(r#""\u0100 not in 1252""#).unwrap_err();
        assert!(e.contains("cannot be stored in Windows-1252"), "{e}");
        let e = both::<8, false>("1.5").unwrap_err();
        assert!(e.contains("a string, or {text: ..., tail: <hex>}"), "{e}");
    }
}
