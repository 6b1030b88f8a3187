//! Flow style: a short value on one line (`{rotation: [...], position: [...]}`), or nothing when it
//! does not fit (the block emitter then writes it in block style).

use super::{
    comment_of, str_into, write_int, CommentProbe, COMMENT, R, RAW_BLOCK, RAW_FLOW,
    RAW_FLOW_COMMENT, RAW_SCALAR,
};
use crate::exact::float::write_f32;
use crate::exact::F32;
use crate::yaml::write_str;
use crate::yaml::EmitError;
use serde::ser::{self, Serialize};

pub(super) struct Flow<'a> {
    pub(super) out: &'a mut String,
    pub(super) limit: usize,
    pub(super) comments: &'a mut Vec<String>,
    /// 0 for the value a flow attempt starts with; enum variants there go block style
    /// (`- header: ...` reads better than `- {header: ...}`).
    pub(super) depth: usize,
}

impl Flow<'_> {
    pub(super) fn after_scalar(self) -> R {
        Ok(())
    }
    pub(super) fn check(&self) -> R {
        if self.out.len() > self.limit {
            Err(EmitError::TooLong)
        } else {
            Ok(())
        }
    }
    pub(super) fn reborrow(&mut self) -> Flow<'_> {
        Flow {
            out: self.out,
            limit: self.limit,
            comments: self.comments,
            depth: self.depth + 1,
        }
    }
}

/// A flow collection being written; `scalars_only` sequences ignore the budget.
pub(super) struct FlowColl<'a> {
    pub(super) f: Flow<'a>,
    pub(super) first: bool,
    pub(super) close: &'static str,
    /// A sequence that has held only scalars so far (exempt from the line budget).
    pub(super) scalars_only: bool,
    /// Extra closing text (for `{variant: ...}` wrappers).
    pub(super) close_extra: &'static str,
}

impl FlowColl<'_> {
    pub(super) fn sep(&mut self) {
        if !self.first {
            self.f.out.push_str(", ");
        }
        self.first = false;
    }
    pub(super) fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        if let Some(c) = comment_of(v) {
            self.f.comments.push(c);
            return Ok(());
        }
        self.sep();
        let before = self.f.out.len();
        let compound = is_compound(v);
        v.serialize(self.f.reborrow())?;
        if compound {
            self.scalars_only = false;
        }
        let _ = before;
        if self.scalars_only {
            Ok(())
        } else {
            self.f.check()
        }
    }
    pub(super) fn key(&mut self, k: &str) -> R {
        self.sep();
        write_str(self.f.out, k);
        self.f.out.push_str(": ");
        Ok(())
    }
    pub(super) fn finish(self) -> R {
        self.f.out.push_str(self.close);
        self.f.out.push_str(self.close_extra);
        if self.scalars_only {
            Ok(())
        } else {
            self.f.check()
        }
    }
}

/// Whether a value serialises as a collection (used to apply the budget to nested values).
pub(super) fn is_compound<T: Serialize + ?Sized>(v: &T) -> bool {
    matches!(v.serialize(CommentProbe), Err(EmitError::TooLong))
}

impl<'a> ser::Serializer for Flow<'a> {
    type Ok = ();
    type Error = EmitError;
    type SerializeSeq = FlowColl<'a>;
    type SerializeTuple = FlowColl<'a>;
    type SerializeTupleStruct = FlowColl<'a>;
    type SerializeTupleVariant = FlowColl<'a>;
    type SerializeMap = FlowColl<'a>;
    type SerializeStruct = FlowColl<'a>;
    type SerializeStructVariant = FlowColl<'a>;

    scalar_methods!();

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, v: &T) -> R {
        if name == RAW_SCALAR {
            return v.serialize(str_into(self.out));
        }
        if name == RAW_BLOCK {
            return Err(EmitError::TooLong);
        }
        if name == RAW_FLOW {
            let start = self.out.len();
            v.serialize(str_into(self.out))?;
            if let Some(cut) = self.out[start..].find(RAW_FLOW_COMMENT) {
                self.comments.push(self.out[start + cut + 1..].to_string());
                self.out.truncate(start + cut);
            }
            return self.check();
        }
        if name == COMMENT {
            let mut s = String::new();
            v.serialize(str_into(&mut s))?;
            self.comments.push(s);
            return Ok(());
        }
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> R {
        if self.depth == 0 {
            return Err(EmitError::TooLong);
        }
        self.out.push('{');
        write_str(self.out, variant);
        self.out.push_str(": ");
        v.serialize(self.reborrow())?;
        self.out.push('}');
        self.check()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<FlowColl<'a>, EmitError> {
        self.out.push('[');
        Ok(FlowColl {
            f: self,
            first: true,
            close: "]",
            scalars_only: true,
            close_extra: "",
        })
    }
    fn serialize_tuple(self, n: usize) -> Result<FlowColl<'a>, EmitError> {
        self.serialize_seq(Some(n))
    }
    fn serialize_tuple_struct(self, _: &'static str, n: usize) -> Result<FlowColl<'a>, EmitError> {
        self.serialize_seq(Some(n))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<FlowColl<'a>, EmitError> {
        if self.depth == 0 {
            return Err(EmitError::TooLong);
        }
        self.out.push('{');
        write_str(self.out, variant);
        self.out.push_str(": [");
        Ok(FlowColl {
            f: self,
            first: true,
            close: "]",
            scalars_only: false,
            close_extra: "}",
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<FlowColl<'a>, EmitError> {
        self.out.push('{');
        Ok(FlowColl {
            f: self,
            first: true,
            close: "}",
            scalars_only: false,
            close_extra: "",
        })
    }
    fn serialize_struct(self, _: &'static str, n: usize) -> Result<FlowColl<'a>, EmitError> {
        self.serialize_map(Some(n))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<FlowColl<'a>, EmitError> {
        if self.depth == 0 {
            return Err(EmitError::TooLong);
        }
        self.out.push('{');
        write_str(self.out, variant);
        self.out.push_str(": {");
        Ok(FlowColl {
            f: self,
            first: true,
            close: "}",
            scalars_only: false,
            close_extra: "}",
        })
    }
}

seq_like!(FlowColl);
impl ser::SerializeMap for FlowColl<'_> {
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
        self.sep();
        self.f.out.push_str(&s);
        self.f.out.push_str(": ");
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        v.serialize(self.f.reborrow())?;
        self.f.check()
    }
    fn end(self) -> R {
        self.finish()
    }
}
impl ser::SerializeStruct for FlowColl<'_> {
    type Ok = ();
    type Error = EmitError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> R {
        if let Some(c) = comment_of(v) {
            if !c.is_empty() {
                self.f.comments.push(c);
            }
            return Ok(());
        }
        self.key(k)?;
        v.serialize(self.f.reborrow())?;
        self.f.check()
    }
    fn skip_field(&mut self, _: &'static str) -> R {
        Ok(())
    }
    fn end(self) -> R {
        self.finish()
    }
}
impl ser::SerializeStructVariant for FlowColl<'_> {
    type Ok = ();
    type Error = EmitError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, k: &'static str, v: &T) -> R {
        ser::SerializeStruct::serialize_field(self, k, v)
    }
    fn end(self) -> R {
        self.finish()
    }
}
