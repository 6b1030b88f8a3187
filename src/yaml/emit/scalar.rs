//! Scalars: when a string needs quotes, strings, integers, comments found in a value.

use super::{push_indent, At, Block, COMMENT, R, RAW_BLOCK, RAW_FLOW};
use crate::yaml::EmitError;
use serde::ser::{self, Serialize};

#[inline]
pub(super) fn needs_quotes(s: &str) -> bool {
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
                    // `: ` ends a key; `:?` is refused in flow context by libyaml
                    b':' => matches!(b.get(i + 1), Some(b' ' | b'?')),
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
            || (prev == ':' && (c == ' ' || c == '?'))
            || (prev == ' ' && c == '#')
        {
            return true;
        }
        prev = c;
    }
    false
}

/// ASCII bytes that force quotes (or do with the next byte: `: `, `:?`, ` #`) inside a plain
/// scalar.
pub(super) const ASCII_SPECIAL: [bool; 256] = {
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
#[inline]
pub(super) fn is_printable(c: char) -> bool {
    match c {
        ' '..='~' => true,
        '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' => c != '\u{FEFF}',
        '\u{10000}'..='\u{10FFFF}' => true,
        _ => false,
    }
}

/// Append `s` as a YAML scalar: plain when that reads back as the same string, else
/// double-quoted with escapes.
#[inline]
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
#[inline]
pub(super) fn push_upper_hex(out: &mut String, v: u32, min_digits: u32) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let needed = (32 - v.leading_zeros()).div_ceil(4).max(min_digits);
    for i in (0..needed).rev() {
        out.push(DIGITS[((v >> (i * 4)) & 15) as usize] as char);
    }
}

/// An integer in decimal (as `Display` writes it, without the formatting machinery).
pub(super) fn write_int(out: &mut String, v: impl Into<i128>) {
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
pub(super) struct StrSink<F>(pub(super) F);

/// Append the string to `out`.
pub(super) fn str_into(out: &mut String) -> StrSink<impl FnOnce(&str) -> R + '_> {
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
pub(super) fn write_lines(block: Block<'_>, text: &str) -> R {
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
pub(super) struct CommentProbe;

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
pub(super) fn comment_of<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    // Compound values make the probe bail out with TooLong: they are not comments.
    value.serialize(CommentProbe).ok().flatten()
}
