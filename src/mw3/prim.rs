//! The building blocks every MechWarrior 3 record is made of: the [`Field`] trait (one read and
//! one mirrored write per on-disk type), fixed-size strings whose garbage tails stay data,
//! flag sets and small enums shown by name, raw byte arrays, and the [`record!`] macro that
//! declares a fixed-layout record once and derives its reader, writer and YAML form.

use crate::exact::{Blob, Cursor, DecodeError, EncodeError, Hex32, Text, F32};
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

use super::refs::RefVisitor;

/// What a writer may need besides the value itself.
#[derive(Default, Clone, Copy)]
pub struct Ctx<'a> {
    /// The name of the item an event references (lights, puffers, dynamic sounds), used to
    /// regenerate the copy of that name the event stores.
    pub item_name: Option<&'a [u8]>,
}

/// One on-disk type: a reader and the mirrored writer.
pub trait Field: Sized {
    /// Bytes on disk.
    const SIZE: usize;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError>;
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError>;
    /// Visit every reference to another array (node, light, ...) inside the value.
    fn visit_refs(&mut self, _v: &mut RefVisitor) -> Result<(), EncodeError> {
        Ok(())
    }
}

macro_rules! int_field {
    ($t:ty, $rd:ident) => {
        impl Field for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            #[inline]
            fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
                c.$rd()
            }
            #[inline]
            fn write(&self, out: &mut Vec<u8>, _: &Ctx) -> Result<(), EncodeError> {
                out.extend_from_slice(&self.to_le_bytes());
                Ok(())
            }
        }
    };
}
int_field!(u8, u8);
int_field!(u16, u16);
int_field!(i16, i16);
int_field!(u32, u32);
int_field!(i32, i32);

impl Field for F32 {
    const SIZE: usize = 4;
    #[inline]
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        c.u32().map(F32)
    }
    #[inline]
    fn write(&self, out: &mut Vec<u8>, _: &Ctx) -> Result<(), EncodeError> {
        out.extend_from_slice(&self.0.to_le_bytes());
        Ok(())
    }
}

impl Field for Hex32 {
    const SIZE: usize = 4;
    #[inline]
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        c.u32().map(Hex32)
    }
    #[inline]
    fn write(&self, out: &mut Vec<u8>, _: &Ctx) -> Result<(), EncodeError> {
        out.extend_from_slice(&self.0.to_le_bytes());
        Ok(())
    }
}

impl<T: Field + Default, const N: usize> Field for [T; N] {
    const SIZE: usize = T::SIZE * N;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let mut out: [T; N] = std::array::from_fn(|_| T::default());
        for v in out.iter_mut() {
            *v = T::read(c)?;
        }
        Ok(out)
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        for (i, v) in self.iter().enumerate() {
            crate::exact::Within::within_index(v.write(out, ctx), i)?;
        }
        Ok(())
    }
    fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        for (i, x) in self.iter_mut().enumerate() {
            crate::exact::Within::within_index(x.visit_refs(v), i)?;
        }
        Ok(())
    }
}

impl<T: Field> Field for Box<T> {
    const SIZE: usize = T::SIZE;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        T::read(c).map(Box::new)
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        (**self).write(out, ctx)
    }
    fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        (**self).visit_refs(v)
    }
}

pub type Vec2 = [F32; 2];
pub type Vec3 = [F32; 3];

/// An i16 / i32 whose usual value is -1 (placeholder indices); that is its default.
macro_rules! minus_one {
    ($name:ident, $t:ty) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
        #[serde(transparent)]
        pub struct $name(pub $t);
        impl Default for $name {
            fn default() -> Self {
                $name(-1)
            }
        }
        impl Field for $name {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
                <$t>::read(c).map($name)
            }
            fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
                self.0.write(out, ctx)
            }
        }
    };
}
minus_one!(MinusOne16, i16);
minus_one!(MinusOne32, i32);

/// `skip_serializing_if` helper: the value is its type's default (zero).
pub fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

// ---------------------------------------------------------------------------------------------
// Raw bytes

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
        s.serialize_newtype_struct(crate::yaml::RAW_SCALAR, &hex)
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

/// A fixed identifier (enum or flag name) written without quoting checks.
pub struct RawName(pub &'static str);

impl Serialize for RawName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(crate::yaml::RAW_SCALAR, self.0)
    }
}

/// `N` bytes without a known meaning, shown as hex.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bytes<const N: usize>(pub [u8; N]);

impl<const N: usize> Default for Bytes<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

impl<const N: usize> fmt::Debug for Bytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({})", hex::encode(self.0))
    }
}

impl<const N: usize> Field for Bytes<N> {
    const SIZE: usize = N;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        c.array::<N>().map(Bytes)
    }
    fn write(&self, out: &mut Vec<u8>, _: &Ctx) -> Result<(), EncodeError> {
        out.extend_from_slice(&self.0);
        Ok(())
    }
}

impl<const N: usize> Serialize for Bytes<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RawHex(&self.0).serialize(s)
    }
}

impl<'de, const N: usize> Deserialize<'de> for Bytes<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let blob = Blob::deserialize(d)?;
        let arr: [u8; N] = blob.0.as_slice().try_into().map_err(|_| {
            de::Error::custom(format!("expected {N} bytes of hex, got {}", blob.0.len()))
        })?;
        Ok(Bytes(arr))
    }
}

impl<const N: usize> JsonSchema for Bytes<N> {
    fn schema_name() -> String {
        format!("Bytes{N}")
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": format!("{N} raw bytes as hex"),
            "type": "string",
            "pattern": format!("^([0-9a-fA-F]{{2}}\\s*){{{N}}}$"),
        }))
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed-size strings

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
        Self::from_parts(text.as_bytes(), tail).unwrap_or_else(|_| Self {
            raw: Self::default_buf(),
            too_long: Some(Box::new(text.clone())),
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

impl<const N: usize, const NODE: bool> Field for Str<N, NODE> {
    const SIZE: usize = N;
    #[inline]
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let at = c.offset();
        let raw = c.array::<N>()?;
        if !raw.contains(&0) {
            return Err(DecodeError::new(
                at,
                crate::exact::DecodeErrorKind::Unterminated,
            ));
        }
        Ok(Self {
            raw,
            too_long: None,
        })
    }
    #[inline]
    fn write(&self, out: &mut Vec<u8>, _: &Ctx) -> Result<(), EncodeError> {
        out.extend_from_slice(self.encodable()?);
        Ok(())
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
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(StrParts::deserialize(d)?.build_lenient())
    }
}

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
                f.write_str("a string, or {text: ..., tail: <hex>}")
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

// ---------------------------------------------------------------------------------------------
// Flags and small enums by name

/// Declare a flag set stored as `$raw`, shown in YAML as a list of names; bits without a name
/// appear as one `0x...` entry so nothing is lost.
macro_rules! flags {
    ($(#[$m:meta])* $name:ident: $raw:ty { $($bit:literal => $fname:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name(pub $raw);

        impl $name {
            pub const NAMES: &'static [($raw, &'static str)] = &[$(($bit, $fname)),*];
            pub const KNOWN: $raw = 0 $(| $bit)*;
            #[inline]
            pub fn has(self, bit: $raw) -> bool {
                self.0 & bit != 0
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:#x})", stringify!($name), self.0)
            }
        }

        impl $crate::mw3::prim::Field for $name {
            const SIZE: usize = std::mem::size_of::<$raw>();
            fn read(c: &mut $crate::exact::Cursor) -> Result<Self, $crate::exact::DecodeError> {
                <$raw as $crate::mw3::prim::Field>::read(c).map($name)
            }
            fn write(&self, out: &mut Vec<u8>, ctx: &$crate::mw3::prim::Ctx) -> Result<(), $crate::exact::EncodeError> {
                self.0.write(out, ctx)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::mw3::prim::ser_flags(s, self.0 as u64, Self::NAMES.iter().map(|&(b, n)| (b as u64, n)))
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = $crate::mw3::prim::de_flags(d, Self::NAMES.iter().map(|&(b, n)| (b as u64, n)).collect())?;
                <$raw>::try_from(v).map($name).map_err(|_| serde::de::Error::custom("flag value too large"))
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> String {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
                $crate::mw3::prim::flags_schema(&[$($fname),*])
            }
        }
    };
}
pub(crate) use flags;

pub fn ser_flags<S: Serializer>(
    s: S,
    v: u64,
    names: impl Iterator<Item = (u64, &'static str)>,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(None)?;
    let mut rest = v;
    for (bit, name) in names {
        if v & bit == bit && bit != 0 {
            seq.serialize_element(&RawName(name))?;
            rest &= !bit;
        }
    }
    if rest != 0 {
        seq.serialize_element(&format!("0x{rest:x}"))?;
    }
    seq.end()
}

pub fn de_flags<'de, D: Deserializer<'de>>(
    d: D,
    names: Vec<(u64, &'static str)>,
) -> Result<u64, D::Error> {
    let items: Vec<String> = Vec::deserialize(d)?;
    let mut v = 0u64;
    for it in items {
        if let Some(&(bit, _)) = names.iter().find(|(_, n)| *n == it) {
            v |= bit;
        } else if let Some(x) = crate::exact::blob::parse_u32(&it).filter(|_| it.starts_with("0x"))
        {
            v |= x as u64;
        } else {
            let known: Vec<&str> = names.iter().map(|(_, n)| *n).collect();
            return Err(de::Error::custom(format!(
                "unknown flag `{it}` (known: {}; other bits as 0x...)",
                known.join(", ")
            )));
        }
    }
    Ok(v)
}

pub fn flags_schema(names: &[&str]) -> schemars::schema::Schema {
    crate::exact::schema_from_json(serde_json::json!({
        "type": "array",
        "items": {"anyOf": [{"enum": names}, {"type": "string", "pattern": "^0x[0-9a-fA-F]+$"}]}
    }))
}

/// Declare a small enum stored as `$raw`, shown by name; values without a name are shown as
/// numbers and kept.
macro_rules! named {
    ($(#[$m:meta])* $name:ident: $raw:ty { $($val:literal => $vname:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name(pub $raw);

        impl $name {
            pub const NAMES: &'static [($raw, &'static str)] = &[$(($val, $vname)),*];
            pub fn name(self) -> Option<&'static str> {
                Self::NAMES.iter().find(|(v, _)| *v == self.0).map(|(_, n)| *n)
            }
            pub fn is_known(self) -> bool {
                self.name().is_some()
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{}({})", stringify!($name), self.0),
                }
            }
        }

        impl $crate::mw3::prim::Field for $name {
            const SIZE: usize = std::mem::size_of::<$raw>();
            fn read(c: &mut $crate::exact::Cursor) -> Result<Self, $crate::exact::DecodeError> {
                <$raw as $crate::mw3::prim::Field>::read(c).map($name)
            }
            fn write(&self, out: &mut Vec<u8>, ctx: &$crate::mw3::prim::Ctx) -> Result<(), $crate::exact::EncodeError> {
                self.0.write(out, ctx)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.name() {
                    Some(n) => serde::Serialize::serialize(&$crate::mw3::prim::RawName(n), s),
                    None => s.serialize_i64(self.0 as i64),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = $crate::mw3::prim::de_named(d, Self::NAMES.iter().map(|&(b, n)| (b as i64, n)).collect())?;
                <$raw>::try_from(v).map($name).map_err(|_| serde::de::Error::custom("value out of range"))
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> String {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
                $crate::mw3::prim::named_schema(&[$($vname),*])
            }
        }
    };
}
pub(crate) use named;

pub fn de_named<'de, D: Deserializer<'de>>(
    d: D,
    names: Vec<(i64, &'static str)>,
) -> Result<i64, D::Error> {
    struct V(Vec<(i64, &'static str)>);
    impl de::Visitor<'_> for V {
        type Value = i64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            let known: Vec<&str> = self.0.iter().map(|(_, n)| *n).collect();
            write!(f, "one of {} or a number", known.join(", "))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
            self.0
                .iter()
                .find(|(_, n)| *n == v)
                .map(|(x, _)| *x)
                .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
            Ok(v)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
            i64::try_from(v).map_err(|_| E::custom("value out of range"))
        }
    }
    d.deserialize_any(V(names))
}

pub fn named_schema(names: &[&str]) -> schemars::schema::Schema {
    crate::exact::schema_from_json(serde_json::json!({
        "anyOf": [{"enum": names}, {"type": "integer"}]
    }))
}

// ---------------------------------------------------------------------------------------------
// Fixed-layout records

/// Declare a fixed-layout record: the struct (with serde and schema derives), its [`Field`]
/// reader and writer (fields in declaration order), its reference visitor, and a compile-time
/// check of its size.
macro_rules! record {
    ($(#[$m:meta])* pub struct $name:ident ($size:expr) {
        $($(#[$fm:meta])* pub $f:ident: $t:ty,)*
    }) => {
        $(#[$m])*
        ///
        /// YAML omits fields that hold their default (zero) value.
        #[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $($(#[$fm])* #[serde(skip_serializing_if = "crate::mw3::prim::is_default")] pub $f: $t,)*
        }

        const _: () = assert!(0 $(+ <$t as $crate::mw3::prim::Field>::SIZE)* == $size);

        impl $crate::mw3::prim::Field for $name {
            const SIZE: usize = $size;
            #[allow(unused_variables)]
            fn read(c: &mut $crate::exact::Cursor) -> Result<Self, $crate::exact::DecodeError> {
                #[allow(unused_imports)]
                use $crate::exact::Within;
                Ok(Self { $($f: <$t as $crate::mw3::prim::Field>::read(c).within(stringify!($f))?,)* })
            }
            #[allow(unused_variables)]
            fn write(&self, out: &mut Vec<u8>, ctx: &$crate::mw3::prim::Ctx) -> Result<(), $crate::exact::EncodeError> {
                #[allow(unused_imports)]
                use $crate::exact::Within;
                $(self.$f.write(out, ctx).within(stringify!($f))?;)*
                Ok(())
            }
            #[allow(unused_variables)]
            fn visit_refs(&mut self, v: &mut $crate::mw3::refs::RefVisitor) -> Result<(), $crate::exact::EncodeError> {
                #[allow(unused_imports)]
                use $crate::exact::Within;
                $(self.$f.visit_refs(v).within(stringify!($f))?;)*
                Ok(())
            }
        }
    };
}
pub(crate) use record;

/// Fixed slot arrays (puffer textures, colours, growth factors): YAML lists the slots up to
/// the last non-zero one; the writer pads with zero slots.
#[derive(Debug, Clone, PartialEq)]
pub struct Slots<T, const N: usize>(pub [T; N]);

impl<T: Default, const N: usize> Default for Slots<T, N> {
    fn default() -> Self {
        Self(std::array::from_fn(|_| T::default()))
    }
}

impl<T: Field + Default, const N: usize> Field for Slots<T, N> {
    const SIZE: usize = T::SIZE * N;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        <[T; N]>::read(c).map(Slots)
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.0.write(out, ctx)
    }
    fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        self.0.visit_refs(v)
    }
}

impl<T: Serialize + Default + PartialEq, const N: usize> Serialize for Slots<T, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let used = self
            .0
            .iter()
            .rposition(|v| *v != T::default())
            .map_or(0, |i| i + 1);
        self.0[..used].serialize(s)
    }
}

impl<'de, T: Deserialize<'de> + Default, const N: usize> Deserialize<'de> for Slots<T, N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v: Vec<T> = Vec::deserialize(d)?;
        if v.len() > N {
            return Err(de::Error::custom(format!(
                "at most {N} slots, got {}",
                v.len()
            )));
        }
        let mut out: [T; N] = std::array::from_fn(|_| T::default());
        for (slot, x) in out.iter_mut().zip(v) {
            *slot = x;
        }
        Ok(Slots(out))
    }
}

impl<T: JsonSchema, const N: usize> JsonSchema for Slots<T, N> {
    fn schema_name() -> String {
        format!("Slots{N}_{}", T::schema_name())
    }
    fn json_schema(g: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        let mut s = Vec::<T>::json_schema(g).into_object();
        s.array().max_items = Some(N as u32);
        s.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_that_reads_as_a_number_is_quoted() {
        let yaml = |b: &[u8]| crate::yaml::to_string(&RawHex(b)).unwrap();
        assert_eq!(yaml(&[0x30, 0x31, 0x00]), "\"303100\"\n");
        assert_eq!(yaml(&[0x00, 0x12]), "\"0012\"\n");
        assert_eq!(yaml(&[0x12, 0xe4]), "\"12e4\"\n");
        assert_eq!(yaml(&[0x0b, 0x01]), "\"0b01\"\n");
        assert_eq!(yaml(&[0xab, 0x01]), "ab01\n");
        assert_eq!(yaml(&[0x12, 0xe4, 0x0e]), "12e40e\n");
        assert_eq!(yaml(&[]), "\"\"\n");
    }

    fn roundtrip<const N: usize, const NODE: bool>(raw: &[u8], text: &str, tail: Option<&[u8]>) {
        let s = Str::<N, NODE>::from_raw(raw).expect("terminated");
        assert_eq!(s.text(), text.as_bytes());
        assert_eq!(s.tail(), tail);
        assert_eq!(&s.as_raw()[..], raw);
        // and from the value side
        let v = Str::<N, NODE>::from_parts(text.as_bytes(), tail).unwrap();
        assert_eq!(&v.as_raw()[..], raw);
        assert_eq!(v, s);
    }

    #[test]
    fn string_table_both_ways() {
        let mut node_a = [0u8; 32];
        node_a[..17].copy_from_slice(NODE_FILL);
        node_a[..2].copy_from_slice(b"a\0");
        roundtrip::<32, true>(&node_a, "a", None);

        let mut empty = [0u8; 32];
        empty[..17].copy_from_slice(NODE_FILL);
        empty[0] = 0;
        roundtrip::<32, true>(&empty, "", None);

        let mut long = [0u8; 32];
        long[..17].copy_from_slice(b"abcdefghijklmnopq");
        roundtrip::<32, true>(&long, "abcdefghijklmnopq", None);

        let mut abort = [0u8; 32];
        abort[..18].copy_from_slice(b"abort_test\0ng\0ame\0");
        roundtrip::<32, true>(&abort, "abort_test", Some(&abort[11..]));

        let mut blood = [0u8; 32];
        blood[..9].copy_from_slice(b"blood\0flt");
        roundtrip::<32, false>(&blood, "blood", Some(&blood[6..]));

        let mut clean = [0u8; 32];
        clean[..4].copy_from_slice(b"seq1");
        roundtrip::<32, false>(&clean, "seq1", None);
    }

    #[test]
    fn edited_text_keeps_the_tail_at_the_end() {
        let mut blood = [0u8; 16];
        blood[..10].copy_from_slice(b"blood\0flt!");
        let mut s = Str::<16>::from_raw(&blood).unwrap();
        s.set_text(b"bloody").unwrap();
        // the tail "flt!" + zeros is aligned to the end, the new name overwrites the start
        assert_eq!(&s.as_raw()[..], b"bloody\0lt!\0\0\0\0\0\0");
        assert!(s.set_text(b"a_name_too_long!").is_err());
        // a default fill is regenerated for the new length
        let mut n = NodeName::new("abc");
        n.set_text(b"a").unwrap();
        assert_eq!(&n.as_raw()[..17], b"a\0fault_node_name");
        assert!(n.is_clean());
    }

    #[test]
    fn strings_without_terminator_are_refused() {
        let mut c = Cursor::new(&[b'a'; 8], 40);
        let err = <Str<8>>::read(&mut c).unwrap_err();
        assert_eq!(err.offset, 40);
        assert_eq!(err.kind, crate::exact::DecodeErrorKind::Unterminated);
    }
}
