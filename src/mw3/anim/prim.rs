//! The building blocks every MechWarrior 3 record is made of: flag sets and small enums shown
//! by name, raw byte arrays (the fixed-size strings whose garbage tails stay data live in
//! [`crate::exact::fixed_str`]), and the deku support for them.
//!
//! Every on-disk record of the format (file header, anim list entries, info block, anim def,
//! array items, sequence and event headers, event payloads) is a [`crate::record!`]
//! declaration, read with [`crate::exact::Cursor::read`] and written with
//! [`crate::exact::Writer::put`]; the types here implement deku's traits for their bytes.

use crate::exact::{Blob, F32};
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

pub use crate::exact::fixed_str::{hex_string, NodeName, RawHex, Str, StrParts, NODE_FILL, Z};

pub type Vec2 = [F32; 2];
pub type Vec3 = [F32; 3];

/// `skip_serializing_if` helper: the value is its type's default (zero).
pub fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

// ---------------------------------------------------------------------------------------------
// Raw bytes

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

// Raw bytes as stored, whatever the context.
impl<'a, C: Copy, const N: usize> deku::DekuReader<'a, C> for Bytes<N> {
    #[inline]
    fn from_reader_with_ctx<R: deku::no_std_io::Read + deku::no_std_io::Seek>(
        reader: &mut deku::reader::Reader<R>,
        _: C,
    ) -> Result<Self, deku::DekuError> {
        let mut b = [0u8; N];
        // (deku without `bits`: a read of whole bytes gives bytes)
        reader.read_bytes_const(&mut b, deku::ctx::Order::Lsb0)?;
        Ok(Bytes(b))
    }
}

impl<C: Copy, const N: usize> deku::DekuWriter<C> for Bytes<N> {
    #[inline]
    fn to_writer<W: deku::no_std_io::Write + deku::no_std_io::Seek>(
        &self,
        writer: &mut deku::writer::Writer<W>,
        _: C,
    ) -> Result<(), deku::DekuError> {
        writer.write_bytes(&self.0)
    }
}

impl<const N: usize> deku::DekuSize for Bytes<N> {
    const SIZE_BITS: usize = N * 8;
}

impl<const N: usize> crate::exact::record::Shape for Bytes<N> {}

impl<const N: usize> Serialize for Bytes<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RawHex(&self.0).serialize(s)
    }
}

impl<'de, const N: usize> Deserialize<'de> for Bytes<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const N: usize>;
        impl<const N: usize> de::Visitor<'_> for V<N> {
            type Value = Bytes<N>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                // (the same as Blob's, for the same messages)
                f.write_str("hex digits, two per byte")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes<N>, E> {
                // (the usual spelling, `2N` hex digits, straight into the array: no String
                // and Vec per value as through Blob; anything else goes through Blob)
                let mut arr = [0u8; N];
                if v.len() == 2 * N && hex::decode_to_slice(v, &mut arr).is_ok() {
                    return Ok(Bytes(arr));
                }
                let blob = Blob::deserialize(de::value::StrDeserializer::<E>::new(v))?;
                blob.0.as_slice().try_into().map(Bytes).map_err(|_| {
                    E::custom(format!("expected {N} bytes of hex, got {}", blob.0.len()))
                })
            }
        }
        d.deserialize_str(V::<N>)
    }
}

/// A map key or list item read as a string without an allocation where the reader lends it
/// (errors as `String`'s: "expected a string").
pub struct Key<'de>(pub std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v)))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Key<'de>, E> {
                match std::str::from_utf8(v) {
                    Ok(s) => self.visit_str(s),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
                }
            }
        }
        d.deserialize_string(V)
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
// Flags and small enums by name

use crate::exact::deku_impls::deku_like_raw;

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
        deku_like_raw!($name, $t);
    };
}
minus_one!(MinusOne16, i16);
minus_one!(MinusOne32, i32);

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

        $crate::exact::deku_impls::deku_like_raw!($name, $raw);

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::mw3::anim::prim::ser_flags(s, self.0 as u64, Self::NAMES.iter().map(|&(b, n)| (b as u64, n)))
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = $crate::mw3::anim::prim::de_flags(d, Self::NAMES.iter().map(|&(b, n)| (b as u64, n)))?;
                <$raw>::try_from(v).map($name).map_err(|_| serde::de::Error::custom("flag value too large"))
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> String {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
                $crate::mw3::anim::prim::flags_schema(&[$($fname),*])
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
    names: impl Iterator<Item = (u64, &'static str)> + Clone,
) -> Result<u64, D::Error> {
    // (read as `Vec<String>` would be, with its messages, but without a String per flag)
    struct V<I>(I);
    impl<'de, I: Iterator<Item = (u64, &'static str)> + Clone> de::Visitor<'de> for V<I> {
        type Value = u64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
            let mut v = 0u64;
            while let Some(Key(it)) = seq.next_element::<Key>()? {
                let it = &*it;
                if let Some((bit, _)) = self.0.clone().find(|(_, n)| *n == it) {
                    v |= bit;
                } else if let Some(x) =
                    crate::exact::blob::parse_u32(it).filter(|_| it.starts_with("0x"))
                {
                    v |= x as u64;
                } else {
                    let known: Vec<&str> = self.0.clone().map(|(_, n)| n).collect();
                    return Err(de::Error::custom(format!(
                        "unknown flag `{it}` (known: {}; other bits as 0x...)",
                        known.join(", ")
                    )));
                }
            }
            Ok(v)
        }
    }
    d.deserialize_seq(V(names))
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

        $crate::exact::deku_impls::deku_like_raw!($name, $raw);

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.name() {
                    Some(n) => serde::Serialize::serialize(&$crate::mw3::anim::prim::RawName(n), s),
                    None => s.serialize_i64(self.0 as i64),
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = $crate::mw3::anim::prim::de_named(d, Self::NAMES.iter().map(|&(b, n)| (b as i64, n)))?;
                <$raw>::try_from(v).map($name).map_err(|_| serde::de::Error::custom("value out of range"))
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> String {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
                $crate::mw3::anim::prim::named_schema(&[$($vname),*])
            }
        }
    };
}
pub(crate) use named;

pub fn de_named<'de, D: Deserializer<'de>>(
    d: D,
    names: impl Iterator<Item = (i64, &'static str)> + Clone,
) -> Result<i64, D::Error> {
    // (the names as an iterator over the type's table: no list built per value)
    struct V<I>(I);
    impl<I: Iterator<Item = (i64, &'static str)> + Clone> de::Visitor<'_> for V<I> {
        type Value = i64;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            let known: Vec<&str> = self.0.clone().map(|(_, n)| n).collect();
            write!(f, "one of {} or a number", known.join(", "))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
            self.0
                .clone()
                .find(|(_, n)| *n == v)
                .map(|(x, _)| x)
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

/// Fixed slot arrays (puffer textures, colours, growth factors): YAML lists the slots up to
/// the last non-zero one; the writer pads with zero slots.
#[derive(Debug, Clone, PartialEq)]
pub struct Slots<T, const N: usize>(pub [T; N]);

impl<T: Default, const N: usize> Default for Slots<T, N> {
    fn default() -> Self {
        Self(std::array::from_fn(|_| T::default()))
    }
}

// On disk: the N slots one after the other (an error names its slot from the record's field
// table: `textures[2].name`).
impl<'a, T, const N: usize> deku::DekuReader<'a, deku::ctx::Endian> for Slots<T, N>
where
    T: deku::DekuReader<'a, deku::ctx::Endian> + Default,
{
    #[inline]
    fn from_reader_with_ctx<R: deku::no_std_io::Read + deku::no_std_io::Seek>(
        reader: &mut deku::reader::Reader<R>,
        endian: deku::ctx::Endian,
    ) -> Result<Self, deku::DekuError> {
        let mut out: [T; N] = std::array::from_fn(|_| T::default());
        for v in out.iter_mut() {
            *v = T::from_reader_with_ctx(reader, endian)?;
        }
        Ok(Slots(out))
    }
}

impl<T: deku::DekuWriter<deku::ctx::Endian>, const N: usize> deku::DekuWriter<deku::ctx::Endian>
    for Slots<T, N>
{
    #[inline]
    fn to_writer<W: deku::no_std_io::Write + deku::no_std_io::Seek>(
        &self,
        writer: &mut deku::writer::Writer<W>,
        endian: deku::ctx::Endian,
    ) -> Result<(), deku::DekuError> {
        self.0.iter().try_for_each(|v| v.to_writer(writer, endian))
    }
}

impl<T: crate::exact::record::Shape + deku::DekuSize, const N: usize> crate::exact::record::Shape
    for Slots<T, N>
{
    const ITEM: usize = crate::exact::record::size_of::<T>();
    const SUB: &'static [crate::exact::record::Field] = T::SUB;
}

impl<T: deku::DekuSize, const N: usize> deku::DekuSize for Slots<T, N> {
    const SIZE_BITS: usize = T::SIZE_BITS * N;
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
        // (the bridge reports it with offset and field: exact::deku_impls' tests)
        assert!(Str::<8>::from_array([b'a'; 8]).is_none());
        assert!(Str::<8>::from_array(*b"abcdefg\0").is_some());
    }
}
