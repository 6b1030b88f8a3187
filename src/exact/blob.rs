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
                if v.bytes().all(|b| b.is_ascii_hexdigit()) {
                    if let Ok(bytes) = hex::decode(v) {
                        return Ok(Blob(bytes));
                    }
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
