//! Byte-exact primitives shared by every format: the error type with offsets and field paths,
//! a bounds-checked cursor, Windows-1252 text, bit-exact floats, raw blobs and hex values.

pub mod blob;
pub mod compare;
pub mod cursor;
pub mod deku_impls;
pub mod error;
pub mod float;
pub mod sink;
pub mod text;

pub use blob::{Blob, Hex32};
pub use compare::first_difference;
pub use cursor::{put_record, Cursor, PutLe};
pub use deku_impls::append_record;
pub use error::{
    DecodeError, DecodeErrorKind, EncodeError, Error, FieldPath, ImportError, Segment, Within,
    YamlError,
};
pub use float::F32;
pub use text::Text;

/// Newtype-struct name of a scalar written without quotes (hex values such as `0x0123abcd`):
/// a hint the primitives give the YAML emitter ([`crate::yaml`] re-exports it), which other
/// serialisers see as a plain string.
pub const RAW_SCALAR: &str = "$animkit::raw_scalar";

/// A JSON Schema fragment written as JSON (for the hand-written schemas of the primitives).
pub(crate) fn schema_from_json(v: serde_json::Value) -> schemars::schema::Schema {
    serde_json::from_value(v).unwrap_or(schemars::schema::Schema::Bool(true))
}
