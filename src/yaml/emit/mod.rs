//! The emitter. Every value first tries to fit on one line in flow style (`[..]`, `{..}`)
//! within the line budget; a sequence of scalars always fits (it may be long). A value that does
//! not fit is written in block style. Flow attempts stop as soon as they pass the budget, so the
//! cost of a failed attempt is about one line.

use super::{COMMENT, RAW_BLOCK, RAW_FLOW, RAW_FLOW_COMMENT, RAW_SCALAR};
use crate::exact::float::write_f32;
use crate::exact::F32;
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
    value.serialize(Block {
        out: &mut out,
        indent: 0,
        at: At::Top,
    })?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
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

fn needs_quotes(s: &str) -> bool {
    let Some(&first) = s.as_bytes().first() else {
        return true;
    };
    // (all of these are ASCII, so the first byte decides)
    if matches!(
        first,
        b'0'..=b'9'
            | b'-'
            | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
            | b'.'
            | b'+'
            | b' '
            | b'\t'
            | b'~'
            | b'='
    ) {
        return true;
    }
    if s.ends_with([' ', ':']) {
        return true;
    }
    // (every such word starts with n, t, f, y or o)
    if s.len() <= 5
        && matches!(first | 0x20, b'n' | b't' | b'f' | b'y' | b'o')
        && ["null", "true", "false", "yes", "no", "on", "off", "y", "n"]
            .iter()
            .any(|w| s.eq_ignore_ascii_case(w))
    {
        return true;
    }
    if s.is_ascii() {
        // one pass, no allocation (the common case: keys, names, identifiers)
        let b = s.as_bytes();
        return b.iter().enumerate().any(|(i, &c)| {
            ASCII_SPECIAL[c as usize]
                && match c {
                    b':' => b.get(i + 1) == Some(&b' '),
                    b' ' => b.get(i + 1) == Some(&b'#'),
                    _ => true,
                }
        });
    }
    // one pass: the specials, `: ` and ` #`
    let mut prev = '\0';
    for c in s.chars() {
        if matches!(c, ',' | '[' | ']' | '{' | '}' | '"' | '\\' | '\'')
            || !is_printable(c)
            || (prev == ':' && c == ' ')
            || (prev == ' ' && c == '#')
        {
            return true;
        }
        prev = c;
    }
    false
}

/// ASCII bytes that force quotes (or do with the next byte: `: `, ` #`) inside a plain scalar.
const ASCII_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = matches!(
            c as u8,
            b',' | b'[' | b']' | b'{' | b'}' | b'"' | b'\\' | b'\'' | b':' | b' '
        ) || c < 0x20
            || c > 0x7e;
        c += 1;
    }
    t
};

/// Characters YAML allows unescaped (printable set, minus the C1 block and specials).
fn is_printable(c: char) -> bool {
    match c {
        ' '..='~' => true,
        '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' => c != '\u{FEFF}',
        '\u{10000}'..='\u{10FFFF}' => true,
        _ => false,
    }
}

/// Append `s` as a YAML scalar: plain when that reads back as the same string, else
/// double-quoted with escapes.
pub fn write_str(out: &mut String, s: &str) {
    if !needs_quotes(s) {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if is_printable(c) => out.push(c),
            c if (c as u32) <= 0xFF => {
                out.push_str("\\x");
                push_upper_hex(out, c as u32, 2);
            }
            c => {
                out.push_str("\\u");
                push_upper_hex(out, c as u32, 4);
            }
        }
    }
    out.push('"');
}

/// `v` as uppercase hex with at least `min_digits` digits (like `{:0N$X}`, without the
/// formatting machinery: garbage-laden names escape many characters).
fn push_upper_hex(out: &mut String, v: u32, min_digits: u32) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let needed = (32 - v.leading_zeros()).div_ceil(4).max(min_digits);
    for i in (0..needed).rev() {
        out.push(DIGITS[((v >> (i * 4)) & 15) as usize] as char);
    }
}

/// An integer in decimal (as `Display` writes it, without the formatting machinery).
fn write_int(out: &mut String, v: impl Into<i128>) {
    let v: i128 = v.into();
    // every caller passes at most a 64-bit value, so the magnitude fits in a u64
    let mut n = v.unsigned_abs() as u64;
    let mut buf = [0u8; 21];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    for &d in &buf[i..] {
        out.push(d as char);
    }
}

/// Hands the text of a string-valued newtype ([`COMMENT`], [`RAW_SCALAR`], ...) to a closure;
/// any other value is an error.
struct StrSink<F>(F);

/// Append the string to `out`.
fn str_into(out: &mut String) -> StrSink<impl FnOnce(&str) -> R + '_> {
    StrSink(move |s: &str| {
        out.push_str(s);
        Ok(())
    })
}

macro_rules! reject {
    ($($name:ident($($t:ty),*)),* $(,)?) => {
        $(fn $name(self, $(_: $t),*) -> R { Err(EmitError::Custom("expected a string".into())) })*
    };
}

impl<F: FnOnce(&str) -> R> ser::Serializer for StrSink<F> {
    type Ok = ();
    type Error = EmitError;
    type SerializeSeq = ser::Impossible<(), EmitError>;
    type SerializeTuple = ser::Impossible<(), EmitError>;
    type SerializeTupleStruct = ser::Impossible<(), EmitError>;
    type SerializeTupleVariant = ser::Impossible<(), EmitError>;
    type SerializeMap = ser::Impossible<(), EmitError>;
    type SerializeStruct = ser::Impossible<(), EmitError>;
    type SerializeStructVariant = ser::Impossible<(), EmitError>;
    fn serialize_str(self, v: &str) -> R {
        (self.0)(v)
    }
    reject!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str)
    );
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> R {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, _: &T) -> R {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, EmitError> {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, EmitError> {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, EmitError> {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, EmitError> {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, EmitError> {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, EmitError> {
        Err(EmitError::Custom("expected a string".into()))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, EmitError> {
        Err(EmitError::Custom("expected a string".into()))
    }
}

/// Write pre-rendered block lines ([`RAW_BLOCK`]) at a block position, indenting each.
fn write_lines(block: Block<'_>, text: &str) -> R {
    let Block { out, indent, at } = block;
    let mut lines = text.split_inclusive('\n');
    match at {
        At::Dash => {
            if let Some(first) = lines.next() {
                out.push_str(first);
            }
        }
        At::Key => out.push('\n'),
        At::Top => {}
    }
    for line in lines {
        push_indent(out, indent);
        out.push_str(line);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(())
}

/// Detects a [`COMMENT`] field value without writing anything for other values.
struct CommentProbe;

impl ser::Serializer for CommentProbe {
    type Ok = Option<String>;
    type Error = EmitError;
    type SerializeSeq = ser::Impossible<Option<String>, EmitError>;
    type SerializeTuple = ser::Impossible<Option<String>, EmitError>;
    type SerializeTupleStruct = ser::Impossible<Option<String>, EmitError>;
    type SerializeTupleVariant = ser::Impossible<Option<String>, EmitError>;
    type SerializeMap = ser::Impossible<Option<String>, EmitError>;
    type SerializeStruct = ser::Impossible<Option<String>, EmitError>;
    type SerializeStructVariant = ser::Impossible<Option<String>, EmitError>;
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Option<String>, EmitError> {
        if name == RAW_FLOW || name == RAW_BLOCK {
            return Err(EmitError::TooLong);
        }
        if name != COMMENT {
            return Ok(None);
        }
        let mut s = String::new();
        value.serialize(str_into(&mut s))?;
        Ok(Some(s))
    }
    fn serialize_bool(self, _: bool) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_i8(self, _: i8) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_i16(self, _: i16) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_i32(self, _: i32) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_i64(self, _: i64) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_u8(self, _: u8) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_u16(self, _: u16) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_u32(self, _: u32) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_u64(self, _: u64) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_f32(self, _: f32) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_f64(self, _: f64) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_char(self, _: char) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_str(self, _: &str) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_none(self) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_unit(self) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Option<String>, EmitError> {
        Ok(None)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, EmitError> {
        Err(EmitError::TooLong)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, EmitError> {
        Err(EmitError::TooLong)
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, EmitError> {
        Err(EmitError::TooLong)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, EmitError> {
        Err(EmitError::TooLong)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, EmitError> {
        Err(EmitError::TooLong)
    }
    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, EmitError> {
        Err(EmitError::TooLong)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, EmitError> {
        Err(EmitError::TooLong)
    }
}

/// `Some(text)` when `value` is a [`COMMENT`].
fn comment_of<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    // Compound values make the probe bail out with TooLong: they are not comments.
    value.serialize(CommentProbe).ok().flatten()
}

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
                self.out.push_str(b.format_finite(v));
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

// ---------------------------------------------------------------------------------------------
// Flow style

struct Flow<'a> {
    out: &'a mut String,
    limit: usize,
    comments: &'a mut Vec<String>,
    /// 0 for the value a flow attempt starts with; enum variants there go block style
    /// (`- header: ...` reads better than `- {header: ...}`).
    depth: usize,
}

impl Flow<'_> {
    fn after_scalar(self) -> R {
        Ok(())
    }
    fn check(&self) -> R {
        if self.out.len() > self.limit {
            Err(EmitError::TooLong)
        } else {
            Ok(())
        }
    }
    fn reborrow(&mut self) -> Flow<'_> {
        Flow {
            out: self.out,
            limit: self.limit,
            comments: self.comments,
            depth: self.depth + 1,
        }
    }
}

/// A flow collection being written; `scalars_only` sequences ignore the budget.
struct FlowColl<'a> {
    f: Flow<'a>,
    first: bool,
    close: &'static str,
    /// A sequence that has held only scalars so far (exempt from the line budget).
    scalars_only: bool,
    /// Extra closing text (for `{variant: ...}` wrappers).
    close_extra: &'static str,
}

impl FlowColl<'_> {
    fn sep(&mut self) {
        if !self.first {
            self.f.out.push_str(", ");
        }
        self.first = false;
    }
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
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
    fn key(&mut self, k: &str) -> R {
        self.sep();
        write_str(self.f.out, k);
        self.f.out.push_str(": ");
        Ok(())
    }
    fn finish(self) -> R {
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
fn is_compound<T: Serialize + ?Sized>(v: &T) -> bool {
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

// ---------------------------------------------------------------------------------------------
// Block style

struct Block<'a> {
    out: &'a mut String,
    indent: usize,
    at: At,
}

impl Block<'_> {
    fn after_scalar(self) -> R {
        // Only long scalars reach block style (everything short went on one line).
        self.out.push('\n');
        Ok(())
    }
    fn prefix_scalar(&mut self) {
        if self.at == At::Key {
            self.out.push(' ');
        }
    }
}

/// A block mapping: entries at `indent`; the first entry may sit on the dash line.
struct BlockMap<'a> {
    out: &'a mut String,
    indent: usize,
    first_inline: bool,
    pending_key: Option<String>,
}

impl BlockMap<'_> {
    fn start_line(&mut self) {
        if self.first_inline {
            self.first_inline = false;
        } else {
            push_indent(self.out, self.indent);
        }
    }
    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) -> R {
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

struct BlockSeq<'a> {
    out: &'a mut String,
    indent: usize,
    first_inline: bool,
}

impl BlockSeq<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        if self.first_inline {
            self.first_inline = false;
        } else {
            push_indent(self.out, self.indent);
        }
        self.out.push_str("- ");
        write_value(self.out, v, self.indent + 2, At::Dash)
    }
    fn finish(self) -> R {
        Ok(())
    }
}

impl<'a> Block<'a> {
    fn map(self) -> BlockMap<'a> {
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
    fn seq(self) -> BlockSeq<'a> {
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
        self.out.push_str(b.format(v));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Sample {
        rotation: [f32; 4],
        position: [f32; 3],
    }

    #[derive(Serialize)]
    enum Chunk {
        #[serde(rename = "marker")]
        Marker {},
        #[serde(rename = "header")]
        Header { name: String, list: Vec<u32> },
        #[serde(rename = "frames")]
        Frames(Vec<Vec<Sample>>),
    }

    #[derive(Serialize)]
    struct Doc {
        format: &'static str,
        chunks: Vec<Chunk>,
        note: crate::yaml::Comment,
        weird: String,
    }

    #[test]
    fn block_document_with_one_line_values() {
        let doc = Doc {
            format: "test.doc",
            chunks: vec![
                Chunk::Marker {},
                Chunk::Header {
                    name: "S_RUN".into(),
                    list: (0..60).collect(),
                },
                Chunk::Frames(vec![(0..3)
                    .map(|_| Sample {
                        rotation: [0.0, 0.5, -0.0, 1.0],
                        position: [1.5, 2.0, 3.25],
                    })
                    .collect()]),
            ],
            note: crate::yaml::Comment("a remark".into()),
            weird: "a: b\t\u{81}".into(),
        };
        let text = to_string(&doc).unwrap();
        let list: Vec<String> = (0..60).map(|i| i.to_string()).collect();
        let expected = format!(
            "format: test.doc\nchunks:\n- marker: {{}}\n- header:\n    name: S_RUN\n    list: [{}]\n- frames:\n  - - {{rotation: [0.0, 0.5, -0.0, 1.0], position: [1.5, 2.0, 3.25]}}\n    - {{rotation: [0.0, 0.5, -0.0, 1.0], position: [1.5, 2.0, 3.25]}}\n    - {{rotation: [0.0, 0.5, -0.0, 1.0], position: [1.5, 2.0, 3.25]}}\n# a remark\nweird: \"a: b\\t\\x81\"\n",
            list.join(", ")
        );
        assert_eq!(text, expected);
        // serde_yaml reads it back.
        let v: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(v["weird"].as_str().unwrap(), "a: b\t\u{81}");
        assert_eq!(
            v["chunks"][2]["frames"][0][1]["position"][2].as_f64(),
            Some(3.25)
        );
    }

    #[test]
    fn integers_as_display_writes_them() {
        for v in [
            0i128,
            7,
            -7,
            10,
            -100,
            i64::MIN as i128,
            i64::MAX as i128,
            u64::MAX as i128,
        ] {
            let mut out = String::new();
            write_int(&mut out, v);
            assert_eq!(out, v.to_string());
        }
    }

    #[test]
    fn escapes_use_fixed_width_uppercase_hex() {
        for (s, want) in [
            ("\u{1}", r#""\x01""#),
            ("a\u{7f}b", r#""a\x7Fb""#),
            ("\u{9d}", r#""\x9D""#),
            ("\u{feff}", r#""\uFEFF""#),
            ("x\u{fffe}", r#""x\uFFFE""#),
        ] {
            let mut out = String::new();
            write_str(&mut out, s);
            assert_eq!(out, want, "{s:?}");
        }
    }

    #[test]
    fn strings_that_look_like_other_types_are_quoted() {
        for s in [
            "", "true", "No", "12", "-3", ".5", "a #b", "x: y", "[a]", " lead", "trail ",
        ] {
            let mut out = String::new();
            write_str(&mut out, s);
            assert!(out.starts_with('"'), "{s:?} -> {out}");
            let back: String = serde_yaml::from_str(&out).unwrap();
            assert_eq!(back, s);
        }
        let mut out = String::new();
        write_str(&mut out, "S_FISTRUN");
        assert_eq!(out, "S_FISTRUN");
    }

    #[test]
    fn hex32_is_written_as_0x_and_eight_lowercase_digits() {
        use crate::exact::{blob::parse_u32, Hex32};
        for (v, want) in [
            (0u32, "0x00000000"),
            (0x0500_0000, "0x05000000"),
            (0xDEAD_BEEF, "0xdeadbeef"),
            (u32::MAX, "0xffffffff"),
        ] {
            let text = to_string(&std::collections::BTreeMap::from([("p", Hex32(v))])).unwrap();
            assert_eq!(text, format!("p: {want}\n"));
            assert_eq!(parse_u32(want), Some(v));
        }
    }
}
