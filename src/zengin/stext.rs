//! [`ShortText`]: Windows-1252 text like [`crate::exact::Text`] (same bytes, same YAML, same
//! schema), stored inline up to 22 bytes in a 24-byte value. MSB and MDS hold thousands of short
//! names; one heap allocation per name made parsing allocator-bound (measured: 2.4× slower MSB
//! parsing), and a smaller value means fewer fresh pages for a decoded file.

use crate::exact::text::{decode_cp1252, Text};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::fmt;

/// The longest text held inline; with the tag and length byte the value is 24 bytes, the size of
/// the boxed form.
pub const INLINE: usize = 22;

/// Windows-1252 text, inline when short.
#[derive(Clone)]
pub enum ShortText {
    /// `buf[..len]` is the text; the bytes after it mean nothing.
    Inline {
        len: u8,
        buf: [u8; INLINE],
    },
    Heap(Box<[u8]>),
}

impl ShortText {
    pub fn new<B: AsRef<[u8]>>(bytes: B) -> Self {
        let b = bytes.as_ref();
        if b.len() <= INLINE {
            let mut buf = [0u8; INLINE];
            buf[..b.len()].copy_from_slice(b);
            ShortText::Inline {
                len: b.len() as u8,
                buf,
            }
        } else {
            ShortText::Heap(b.into())
        }
    }

    /// The first `len` bytes of `window` (a window of at least [`INLINE`] bytes when `len` is
    /// short): one fixed-size copy instead of a length-dependent one. The window's bytes after
    /// `len` are copied too and ignored.
    #[inline(always)]
    pub fn from_window(window: &[u8], len: usize) -> Self {
        match window.get(..INLINE) {
            Some(w) if len <= INLINE => {
                let mut buf = [0u8; INLINE];
                buf.copy_from_slice(w);
                ShortText::Inline {
                    len: len as u8,
                    buf,
                }
            }
            _ => ShortText::new(&window[..len.min(window.len())]),
        }
    }
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            ShortText::Inline { len, buf } => &buf[..*len as usize],
            ShortText::Heap(v) => v,
        }
    }
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }
    pub fn is_empty(&self) -> bool {
        self.as_bytes().is_empty()
    }
    /// The text as Unicode (lossless).
    pub fn to_unicode(&self) -> Cow<'_, str> {
        decode_cp1252(self.as_bytes())
    }
    /// Encode Unicode to Windows-1252; `Err` names the first character that has no byte.
    pub fn from_unicode(s: &str) -> Result<Self, char> {
        Text::from_unicode(s).map(|t| ShortText::new(t.as_bytes()))
    }
}

impl Default for ShortText {
    fn default() -> Self {
        ShortText::Inline {
            len: 0,
            buf: [0; INLINE],
        }
    }
}

impl PartialEq for ShortText {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}
impl Eq for ShortText {}

impl std::hash::Hash for ShortText {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_bytes().hash(h)
    }
}

impl From<&str> for ShortText {
    /// For literals in code and tests; panics on text Windows-1252 cannot hold.
    fn from(s: &str) -> Self {
        ShortText::new(Text::from(s).as_bytes())
    }
}

impl From<&Text> for ShortText {
    fn from(t: &Text) -> Self {
        ShortText::new(t.as_bytes())
    }
}

impl From<&ShortText> for Text {
    fn from(t: &ShortText) -> Self {
        Text::new(t.as_bytes())
    }
}

impl fmt::Debug for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_unicode())
    }
}

impl fmt::Display for ShortText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_unicode())
    }
}

impl Serialize for ShortText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_unicode())
    }
}

impl<'de> Deserialize<'de> for ShortText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Text::deserialize(d).map(|t| ShortText::new(t.as_bytes()))
    }
}

impl JsonSchema for ShortText {
    fn schema_name() -> String {
        Text::schema_name()
    }
    fn json_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        Text::json_schema(gen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_and_heap_hold_the_same_bytes() {
        let short = ShortText::new(b"S_FISTRUN\r\0\xe4");
        assert!(matches!(short, ShortText::Inline { .. }));
        assert_eq!(short.as_bytes(), b"S_FISTRUN\r\0\xe4");
        assert_eq!(std::mem::size_of::<ShortText>(), 24);
        // a window: the bytes after the length are not part of the text
        let w = ShortText::from_window(b"S_RUN\nXXXXXXXXXXXXXXXXXXXXXXXXXX", 5);
        assert_eq!(w.as_bytes(), b"S_RUN");
        assert_eq!(w, ShortText::from("S_RUN"));
        let w = ShortText::from_window(b"AB", 2);
        assert_eq!(w.as_bytes(), b"AB");
        let long_window = [b'Y'; 40];
        assert_eq!(
            ShortText::from_window(&long_window, 23).as_bytes(),
            &[b'Y'; 23]
        );
        let long_bytes = [b'X'; 23];
        let long = ShortText::new(long_bytes);
        assert!(matches!(long, ShortText::Heap(_)));
        assert_eq!(long.as_bytes(), long_bytes);
        assert_eq!(ShortText::new(b""), ShortText::default());
        assert_eq!(short.to_string(), "S_FISTRUN\r\0ä");
        // same YAML text as Text
        let t = Text::new(&b"a\xe4\x81"[..]);
        let y1 = crate::yaml::to_string(&t).unwrap();
        let y2 = crate::yaml::to_string(&ShortText::from(&t)).unwrap();
        assert_eq!(y1, y2);
        let back: ShortText = crate::yaml::from_str(&y1).unwrap();
        assert_eq!(back.as_bytes(), t.as_bytes());
    }
}
