//! Raw bytes without a meaning (garbage, unknown chunks, trailing data), shown as hex, and
//! 32-bit values that read best in hex (checksums, pointers).

use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

use super::RAW_SCALAR;

/// Bytes kept verbatim; YAML shows them as lowercase hex (whitespace is ignored on input).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Blob(pub Vec<u8>);

impl Blob {
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        Self(bytes.into())
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Blob({})", hex::encode(&self.0))
    }
}

impl Serialize for Blob {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Blob {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Blob;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("hex digits, two per byte")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Blob, E> {
                // (the usual spelling, hex digits only, without the whitespace-free copy)
                // (into a buffer of its size: `hex::decode` collects through an iterator
                // that grows its vector byte by byte, 2,640 instructions per 48-byte value
                // of an 18 MB MW3 document, 19 M in all)
                // (an odd length or a character that is not a hex digit fails here and takes
                // the general path below, with its message)
                let mut bytes = vec![0; v.len() / 2];
                if hex::decode_to_slice(v, &mut bytes).is_ok() {
                    return Ok(Blob(bytes));
                }
                let compact: String = v.chars().filter(|c| !c.is_whitespace()).collect();
                hex::decode(&compact)
                    .map(Blob)
                    .map_err(|e| E::custom(format!("bad hex bytes: {e}")))
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for Blob {
    fn schema_name() -> String {
        "Blob".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "raw bytes as hex, two digits per byte",
            "type": "string",
            "pattern": "^([0-9a-fA-F]{2}|\\s)*$"
        }))
    }
}

/// A `u32` shown in YAML as `0x0123abcd`; decimal is accepted on input too.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hex32(pub u32);

impl fmt::Debug for Hex32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:08x}", self.0)
    }
}

impl fmt::Display for Hex32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:08x}", self.0)
    }
}

impl Serialize for Hex32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        // "0x" and 8 lowercase digits, without the formatting machinery
        let mut buf = *b"0x00000000";
        for (i, d) in buf[2..].iter_mut().enumerate() {
            *d = DIGITS[((self.0 >> (28 - 4 * i)) & 15) as usize];
        }
        s.serialize_newtype_struct(RAW_SCALAR, std::str::from_utf8(&buf).unwrap_or_default())
    }
}

/// Parse `0x…` hex or decimal.
pub fn parse_u32(v: &str) -> Option<u32> {
    short_hex(v).or_else(|| parse_u32_general(v))
}

/// `0x` and one to eight hex digits, nothing around them: the spelling the export writes,
/// read without the trim and the general parser's set-up (143 → about 40 instructions a
/// value, 60,000 values in an 18 MB MW3 document; `short_hex_reads_as_the_general_parser`).
#[inline]
fn short_hex(v: &str) -> Option<u32> {
    let h = v.as_bytes().strip_prefix(b"0x")?;
    if h.is_empty() || h.len() > 8 {
        return None;
    }
    h.iter()
        .try_fold(0u32, |x, &c| Some(x << 4 | char::from(c).to_digit(16)?))
}

/// [`parse_u32`] of any spelling.
fn parse_u32_general(v: &str) -> Option<u32> {
    let t = v.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

impl<'de> Deserialize<'de> for Hex32 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Hex32;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a 32-bit value, 0x-prefixed hex or decimal")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Hex32, E> {
                parse_u32(v)
                    .map(Hex32)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Hex32, E> {
                u32::try_from(v)
                    .map(Hex32)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_str(V)
    }
}

impl JsonSchema for Hex32 {
    fn schema_name() -> String {
        "Hex32".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "32-bit value: 0x-prefixed hex (as written by animkit) or decimal",
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": 4294967295u64},
                {"type": "string", "pattern": "^0[xX][0-9a-fA-F]{1,8}$"}
            ]
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The `0x` digits read directly give what the general parser gives, and every
        /// other spelling is left to it.
        #[test]
        fn short_hex_reads_as_the_general_parser(v in "(0[xX])?[0-9a-fA-F+ g-]{0,11}") {
            proptest::prop_assert_eq!(parse_u32(&v), parse_u32_general(&v));
            if let Some(x) = short_hex(&v) {
                proptest::prop_assert_eq!(Some(x), parse_u32_general(&v));
            }
        }
    }

    #[test]
    fn short_hex_values() {
        assert_eq!(short_hex("0x0300aa00"), Some(0x0300_aa00));
        assert_eq!(short_hex("0xFFFFFFFF"), Some(u32::MAX));
        assert_eq!(short_hex("0x7"), Some(7));
        // (left to the general parser: too long, no digits, a sign, spaces, decimal)
        for v in ["0x123456789", "0x", "0x+1", " 0x1", "0X1", "12"] {
            assert_eq!(short_hex(v), None, "{v}");
        }
        assert_eq!(parse_u32(" 0x1 "), Some(1));
        assert_eq!(parse_u32("0x123456789"), None);
    }

    /// Hex digits decode as `hex::decode` decodes them; odd lengths, spaces and bad digits
    /// take the general path and its message.
    #[test]
    fn blobs_decode_as_hex_decode() {
        let blob = |v: &str| serde_json::from_value::<Blob>(serde_json::json!(v));
        for v in [
            "",
            "00",
            "0a1B",
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b",
        ] {
            assert_eq!(blob(v).unwrap().0, hex::decode(v).unwrap(), "{v}");
        }
        assert_eq!(blob("0a 1b").unwrap().0, vec![0x0a, 0x1b]);
        for v in ["0", "0a1", "zz"] {
            let e = blob(v).unwrap_err().to_string();
            assert!(e.starts_with("bad hex bytes: "), "{v}: {e}");
        }
    }
}
