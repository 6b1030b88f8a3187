//! Byte-exact primitives shared by every format: the error type with offsets and field paths,
//! a bounds-checked cursor, Windows-1252 text, bit-exact floats, raw blobs and hex values.

pub mod blob;
pub mod cursor;
pub mod error;
pub mod float;
pub mod text;

pub use blob::{Blob, Hex32};
pub use cursor::{put_record, Cursor, PutLe};
pub use error::{
    DecodeError, DecodeErrorKind, EncodeError, Error, FieldPath, ImportError, Segment, Within,
    YamlError,
};
pub use float::F32;
pub use text::Text;

/// A JSON Schema fragment written as JSON (for the hand-written schemas of the primitives).
pub(crate) fn schema_from_json(v: serde_json::Value) -> schemars::schema::Schema {
    serde_json::from_value(v).unwrap_or(schemars::schema::Schema::Bool(true))
}
