//! Byte-exact primitives shared by every format: the error type with offsets and field paths,
//! a bounds-checked cursor, Windows-1252 text, bit-exact floats, raw blobs and hex values.

pub mod blob;
pub mod compare;
pub mod cursor;
pub mod deku_impls;
pub mod error;
pub mod fixed_str;
pub mod float;
pub mod record;
pub mod sink;
pub mod text;

pub use blob::{Blob, Hex32};
pub use compare::first_difference;
pub use cursor::{Cursor, Writer};
pub use error::{
    DecodeError, DecodeErrorKind, EncodeError, Error, FieldPath, ImportError, Segment, Within,
    YamlError,
};
pub use float::F32;
pub use record::Record;
pub use text::Text;

/// Newtype-struct name of a scalar written without quotes (hex values such as `0x0123abcd`):
/// a hint the primitives give the YAML emitter ([`crate::yaml`] re-exports it), which other
/// serialisers see as a plain string.
pub const RAW_SCALAR: &str = "$animkit::raw_scalar";

/// A JSON Schema fragment written as JSON (for the hand-written schemas of the primitives).
pub(crate) fn schema_from_json(v: serde_json::Value) -> schemars::schema::Schema {
    serde_json::from_value(v).unwrap_or(schemars::schema::Schema::Bool(true))
}

/// `schema` with the range of every fixed-size integer (`format: uint16`, ...) as its `minimum`
/// and `maximum`, so an editor flags a value the type cannot hold as animkit does.
pub fn with_integer_ranges(schema: schemars::schema::RootSchema) -> schemars::schema::RootSchema {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some((lo, hi)) = m
                    .get("format")
                    .and_then(|f| f.as_str())
                    .and_then(integer_range)
                {
                    m.insert("minimum".into(), lo.into());
                    m.insert("maximum".into(), hi.into());
                }
                m.values_mut().for_each(walk);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let Ok(mut v) = serde_json::to_value(&schema) else {
        return schema;
    };
    walk(&mut v);
    serde_json::from_value(v).unwrap_or(schema)
}

/// The range of a JSON Schema integer `format` (as schemars names Rust's integer types).
pub fn integer_range(format: &str) -> Option<(f64, f64)> {
    Some(match format {
        "uint8" => (0.0, u8::MAX as f64),
        "uint16" => (0.0, u16::MAX as f64),
        "uint32" => (0.0, u32::MAX as f64),
        "uint64" | "uint" => (0.0, u64::MAX as f64),
        "int8" => (i8::MIN as f64, i8::MAX as f64),
        "int16" => (i16::MIN as f64, i16::MAX as f64),
        "int32" => (i32::MIN as f64, i32::MAX as f64),
        "int64" | "int" => (i64::MIN as f64, i64::MAX as f64),
        _ => return None,
    })
}
