//! The emitter. Every value first tries to fit on one line in flow style (`[..]`, `{..}`)
//! within the line budget; a sequence of scalars always fits (it may be long). A value that does
//! not fit is written in block style. Flow attempts stop as soon as they pass the budget, so the
//! cost of a failed attempt is about one line.

use super::{COMMENT, RAW_BLOCK, RAW_FLOW, RAW_FLOW_COMMENT, RAW_SCALAR};
use serde::ser::{self, Serialize};
use std::fmt;

/// Line budget for one-line values (a MAN sample with long floats needs about 130).
const WIDTH: usize = 160;

#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error("{0}")]
    Custom(String),
    /// Internal: a flow attempt passed its budget.
    #[error("value too long for one line")]
    TooLong,
}

impl ser::Error for EmitError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        EmitError::Custom(msg.to_string())
    }
}

type R = Result<(), EmitError>;

/// Serialise `value` (a struct or map) as a block-style YAML document.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, EmitError> {
    to_string_with_capacity(value, 4096)
}

/// [`to_string`] with a size hint for the output buffer.
pub fn to_string_with_capacity<T: Serialize + ?Sized>(
    value: &T,
    capacity: usize,
) -> Result<String, EmitError> {
    let mut out = String::with_capacity(capacity);
    append_to_string(&mut out, value)?;
    Ok(out)
}

/// [`to_string`] appended to `out` (a caller writing a document in parts reuses one buffer).
pub fn append_to_string<T: Serialize + ?Sized>(out: &mut String, value: &T) -> R {
    value.serialize(Block {
        out: &mut *out,
        indent: 0,
        at: At::Top,
    })?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(())
}

/// Where a block value starts.
#[derive(Clone, Copy, PartialEq)]
enum At {
    /// The document root.
    Top,
    /// After `key:` (nothing written after the colon yet).
    Key,
    /// After `- ` (the cursor is right after the dash and space).
    Dash,
}

fn push_indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// Write `value` at a position: one line if it fits, block style otherwise.
fn write_value<T: Serialize + ?Sized>(out: &mut String, value: &T, indent: usize, at: At) -> R {
    let mark = out.len();
    if at == At::Key {
        out.push(' ');
    }
    let mut comments = Vec::new();
    let limit = out.len() + WIDTH.saturating_sub(indent).max(40);
    match value.serialize(Flow {
        out,
        limit,
        comments: &mut comments,
        depth: 0,
    }) {
        Ok(()) => {
            for c in comments {
                out.push_str("  # ");
                out.push_str(&c.replace('\n', " "));
            }
            out.push('\n');
            return Ok(());
        }
        Err(EmitError::TooLong) => out.truncate(mark),
        Err(e) => return Err(e),
    }
    value.serialize(Block { out, indent, at })
}

// ---------------------------------------------------------------------------------------------
// Scalars

// ---------------------------------------------------------------------------------------------
// Shared scalar writing for both styles

macro_rules! scalar_methods {
    () => {
        fn serialize_bool(self, v: bool) -> R {
            self.out.push_str(if v { "true" } else { "false" });
            self.after_scalar()
        }
        fn serialize_i8(self, v: i8) -> R {
            write_int(self.out, v);
            self.after_scalar()
        }
        fn serialize_i16(self, v: i16) -> R {
            write_int(self.out, v);
            self.after_scalar()
        }
        fn serialize_i32(self, v: i32) -> R {
            write_int(self.out, v);
            self.after_scalar()
        }
        fn serialize_i64(self, v: i64) -> R {
            write_int(self.out, v);
            self.after_scalar()
        }
        fn serialize_u8(self, v: u8) -> R {
            write_int(self.out, v);
            self.after_scalar()
        }
        fn serialize_u16(self, v: u16) -> R {
            write_int(self.out, v);
            self.after_scalar()
        }
        fn serialize_u32(self, v: u32) -> R {
            write_int(self.out, v);
            self.after_scalar()
        }
        fn serialize_u64(self, v: u64) -> R {
            write_int(self.out, v);
            self.after_scalar()
        }
        fn serialize_f32(self, v: f32) -> R {
            write_f32(self.out, F32::new(v));
            self.after_scalar()
        }
        fn serialize_f64(self, v: f64) -> R {
            if v.is_finite() {
                let mut b = ryu::Buffer::new();
                crate::exact::float::push_finite(self.out, b.format_finite(v));
            } else if v.is_nan() {
                self.out.push_str(".nan");
            } else if v > 0.0 {
                self.out.push_str(".inf");
            } else {
                self.out.push_str("-.inf");
            }
            self.after_scalar()
        }
        fn serialize_char(self, v: char) -> R {
            let mut b = [0u8; 4];
            write_str(self.out, v.encode_utf8(&mut b));
            self.after_scalar()
        }
        fn serialize_str(self, v: &str) -> R {
            write_str(self.out, v);
            self.after_scalar()
        }
        fn serialize_bytes(self, _: &[u8]) -> R {
            Err(EmitError::Custom(
                "raw bytes must be wrapped in a Blob".into(),
            ))
        }
        fn serialize_none(self) -> R {
            self.out.push_str("null");
            self.after_scalar()
        }
        fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R {
            v.serialize(self)
        }
        fn serialize_unit(self) -> R {
            self.out.push_str("null");
            self.after_scalar()
        }
        fn serialize_unit_struct(self, _: &'static str) -> R {
            self.out.push_str("null");
            self.after_scalar()
        }
        fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> R {
            write_str(self.out, variant);
            self.after_scalar()
        }
    };
}

/// The four sequence-like serde traits for a collection type with an `element` method.
macro_rules! seq_like {
    ($ty:ident) => {
        impl ser::SerializeSeq for $ty<'_> {
            type Ok = ();
            type Error = EmitError;
            fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
                self.element(v)
            }
            fn end(self) -> R {
                self.finish()
            }
        }
        impl ser::SerializeTuple for $ty<'_> {
            type Ok = ();
            type Error = EmitError;
            fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
                self.element(v)
            }
            fn end(self) -> R {
                self.finish()
            }
        }
        impl ser::SerializeTupleStruct for $ty<'_> {
            type Ok = ();
            type Error = EmitError;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
                self.element(v)
            }
            fn end(self) -> R {
                self.finish()
            }
        }
        impl ser::SerializeTupleVariant for $ty<'_> {
            type Ok = ();
            type Error = EmitError;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
                self.element(v)
            }
            fn end(self) -> R {
                self.finish()
            }
        }
    };
}

// The styles, after the macros they share.
mod scalar;
pub use scalar::write_str;
use scalar::{comment_of, str_into, write_int, write_lines, CommentProbe, StrSink};
mod flow;
use flow::Flow;
mod block;
use block::Block;
#[cfg(test)]
mod tests;
