//! Block style: mappings and sequences one entry per line, short values in flow style.

use super::{
    comment_of, push_indent, str_into, write_int, write_lines, write_value, At, Flow, StrSink, R,
    RAW_BLOCK, RAW_FLOW, RAW_FLOW_COMMENT, RAW_SCALAR,
};
use crate::exact::float::write_f32;
use crate::exact::F32;
use crate::yaml::write_str;
use crate::yaml::EmitError;
use serde::ser::{self, Serialize};

pub(super) struct Block<'a> {
    pub(super) out: &'a mut String,
    pub(super) indent: usize,
    pub(super) at: At,
}

impl Block<'_> {
    pub(super) fn after_scalar(self) -> R {
        // Only long scalars reach block style (everything short went on one line).
        self.out.push('\n');
        Ok(())
    }
    pub(super) fn prefix_scalar(&mut self) {
        if self.at == At::Key {
            self.out.push(' ');
        }
    }
}

/// A block mapping: entries at `indent`; the first entry may sit on the dash line.
pub(super) struct BlockMap<'a> {
    pub(super) out: &'a mut String,
    pub(super) indent: usize,
    pub(super) first_inline: bool,
    pub(super) pending_key: Option<String>,
}

impl BlockMap<'_> {
    pub(super) fn start_line(&mut self) {
        if self.first_inline {
            self.first_inline = false;
        } else {
            push_indent(self.out, self.indent);
        }
    }
    pub(super) fn entry<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) -> R {
        if let Some(c) = comment_of(v) {
            if !c.is_empty() {
                for line in c.lines() {
                    self.start_line();
                    self.out.push_str("# ");
                    self.out.push_str(line);
                    self.out.push('\n');
                }
            }
            return Ok(());
        }
        self.start_line();
        write_str(self.out, key);
        self.out.push(':');
        write_value(self.out, v, self.indent, At::Key)
    }
}

pub(super) struct BlockSeq<'a> {
    pub(super) out: &'a mut String,
    pub(super) indent: usize,
    pub(super) first_inline: bool,
}

impl BlockSeq<'_> {
    pub(super) fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        if self.first_inline {
            self.first_inline = false;
        } else {
            push_indent(self.out, self.indent);
        }
        self.out.push_str("- ");
        write_value(self.out, v, self.indent + 2, At::Dash)
    }
    pub(super) fn finish(self) -> R {
        Ok(())
    }
}

impl<'a> Block<'a> {
    pub(super) fn map(self) -> BlockMap<'a> {
        match self.at {
            At::Top => BlockMap {
                out: self.out,
                indent: 0,
                first_inline: false,
                pending_key: None,
            },
            At::Key => {
                self.out.push('\n');
                BlockMap {
                    out: self.out,
                    indent: self.indent + 2,
                    first_inline: false,
                    pending_key: None,
                }
            }
            At::Dash => BlockMap {
                out: self.out,
                indent: self.indent,
                first_inline: true,
                pending_key: None,
            },
        }
    }
    pub(super) fn seq(self) -> BlockSeq<'a> {
        match self.at {
            At::Top => BlockSeq {
                out: self.out,
                indent: 0,
                first_inline: false,
            },
            At::Key => {
                self.out.push('\n');
                BlockSeq {
                    out: self.out,
                    indent: self.indent,
                    first_inline: false,
                }
            }
            At::Dash => BlockSeq {
                out: self.out,
                indent: self.indent,
                first_inline: true,
            },
        }
    }
}

impl<'a> ser::Serializer for Block<'a> {
    type Ok = ();
    type Error = EmitError;
    type SerializeSeq = BlockSeq<'a>;
    type SerializeTuple = BlockSeq<'a>;
    type SerializeTupleStruct = BlockSeq<'a>;
    type SerializeTupleVariant = BlockSeq<'a>;
    type SerializeMap = BlockMap<'a>;
    type SerializeStruct = BlockMap<'a>;
    type SerializeStructVariant = BlockMap<'a>;

    fn serialize_bool(mut self, v: bool) -> R {
        self.prefix_scalar();
        self.out.push_str(if v { "true" } else { "false" });
        self.after_scalar()
    }
    fn serialize_i8(self, v: i8) -> R {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> R {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> R {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(mut self, v: i64) -> R {
        self.prefix_scalar();
        write_int(self.out, v);
        self.after_scalar()
    }
    fn serialize_u8(self, v: u8) -> R {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> R {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> R {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(mut self, v: u64) -> R {
        self.prefix_scalar();
        write_int(self.out, v);
        self.after_scalar()
    }
    fn serialize_f32(mut self, v: f32) -> R {
        self.prefix_scalar();
        write_f32(self.out, F32::new(v));
        self.after_scalar()
    }
    fn serialize_f64(mut self, v: f64) -> R {
        self.prefix_scalar();
        let mut b = ryu::Buffer::new();
        if v.is_finite() {
            crate::exact::float::push_finite(self.out, b.format_finite(v));
        } else {
            self.out.push_str(b.format(v));
        }
        self.after_scalar()
    }
    fn serialize_char(self, v: char) -> R {
        let mut b = [0u8; 4];
        self.serialize_str(v.encode_utf8(&mut b))
    }
    fn serialize_str(mut self, v: &str) -> R {
        self.prefix_scalar();
        write_str(self.out, v);
        self.after_scalar()
    }
    fn serialize_bytes(self, _: &[u8]) -> R {
        Err(EmitError::Custom(
            "raw bytes must be wrapped in a Blob".into(),
        ))
    }
    fn serialize_none(mut self) -> R {
        self.prefix_scalar();
        self.out.push_str("null");
        self.after_scalar()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_unit(self) -> R {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> R {
        self.serialize_none()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> R {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(mut self, name: &'static str, v: &T) -> R {
        if name == RAW_BLOCK {
            return v.serialize(StrSink(|text: &str| write_lines(self, text)));
        }
        if name == RAW_SCALAR || name == RAW_FLOW {
            self.prefix_scalar();
            let start = self.out.len();
            v.serialize(str_into(self.out))?;
            if let Some(cut) = self.out[start..].find(RAW_FLOW_COMMENT) {
                let comment = self.out[start + cut + 1..].to_string();
                self.out.truncate(start + cut);
                self.out.push_str("  # ");
                self.out.push_str(&comment);
            }
            return self.after_scalar();
        }
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> R {
        let mut m = self.map();
        m.entry(variant, v)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<BlockSeq<'a>, EmitError> {
        Ok(self.seq())
    }
    fn serialize_tuple(self, _: usize) -> Result<BlockSeq<'a>, EmitError> {
        Ok(self.seq())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<BlockSeq<'a>, EmitError> {
        Ok(self.seq())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<BlockSeq<'a>, EmitError> {
        let mut m = self.map();
        m.start_line();
        write_str(m.out, variant);
        m.out.push_str(":\n");
        Ok(BlockSeq {
            out: m.out,
            indent: m.indent,
            first_inline: false,
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<BlockMap<'a>, EmitError> {
        Ok(self.map())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<BlockMap<'a>, EmitError> {
        Ok(self.map())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<BlockMap<'a>, EmitError> {
        let mut m = self.map();
        m.start_line();
        write_str(m.out, variant);
        m.out.push_str(if len == 0 { ": {}\n" } else { ":\n" });
        Ok(BlockMap {
            out: m.out,
            indent: m.indent + 2,
            first_inline: false,
            pending_key: None,
        })
    }
}

seq_like!(BlockSeq);
impl ser::SerializeMap for BlockMap<'_> {
    type Ok = ();
    type Error = EmitError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> R {
        let mut s = String::new();
        k.serialize(Flow {
            out: &mut s,
            limit: usize::MAX,
            comments: &mut Vec::new(),
            depth: 1,
        })?;
        self.pending_key = Some(s);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        let key = self.pending_key.take().unwrap_or_default();
        self.start_line();
        self.out.push_str(&key);
        self.out.push(':');
        write_value(self.out, v, self.indent, At::Key)
    }
    fn end(self) -> R {
        Ok(())
    }
}
impl ser::SerializeStruct for BlockMap<'_> {
    type Ok = ();
    type Error = EmitError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> R {
        self.entry(k, v)
    }
    fn skip_field(&mut self, _: &'static str) -> R {
        Ok(())
    }
    fn end(self) -> R {
        Ok(())
    }
}
impl ser::SerializeStructVariant for BlockMap<'_> {
    type Ok = ();
    type Error = EmitError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> R {
        self.entry(k, v)
    }
    fn end(self) -> R {
        Ok(())
    }
}
