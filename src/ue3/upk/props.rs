//! UE3 strings, names and tagged properties at file version 573 (spec §0, §2): read generically,
//! written back byte-exactly, with typed values where the tag type and size tell the encoding.

use crate::exact::{Cursor, DecodeError, Text, Within, Writer};
use std::collections::HashMap;

/// An `FString`: length-prefixed 8-bit or UTF-16 text with its terminator.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FStr {
    /// Length 0: no bytes at all.
    Empty,
    /// Positive length: Windows-1252 bytes without the final NUL.
    Ansi(Text),
    /// Negative length: UTF-16 code units without the final 0.
    Utf16(Vec<u16>),
}

impl FStr {
    pub fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let at = c.offset();
        let len = c.i32()?;
        if len == 0 {
            return Ok(FStr::Empty);
        }
        if len > 0 {
            let n = c.check_count(len as u64, 1)?;
            let b = c.bytes(n)?;
            if b[n - 1] != 0 {
                return Err(DecodeError::invalid(
                    at,
                    "string does not end with a NUL byte",
                ));
            }
            Ok(FStr::Ansi(Text::new(&b[..n - 1])))
        } else {
            let n = c.check_count(len.unsigned_abs() as u64, 2)?;
            let b = c.bytes(2 * n)?;
            let units: Vec<u16> = b
                .chunks_exact(2)
                .map(|u| u16::from_le_bytes([u[0], u[1]]))
                .collect();
            if units[n - 1] != 0 {
                return Err(DecodeError::invalid(
                    at,
                    "UTF-16 string does not end with a 0 unit",
                ));
            }
            Ok(FStr::Utf16(units[..n - 1].to_vec()))
        }
    }
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            FStr::Empty => out.put_i32(0),
            FStr::Ansi(t) => {
                out.put_i32(t.as_bytes().len() as i32 + 1);
                out.extend_from_slice(t.as_bytes());
                out.push(0);
            }
            FStr::Utf16(u) => {
                out.put_i32(-(u.len() as i32 + 1));
                for x in u {
                    out.put_u16(*x);
                }
                out.put_u16(0);
            }
        }
    }
    /// Display text (lossy for unpaired UTF-16 surrogates).
    pub fn text(&self) -> String {
        match self {
            FStr::Empty => String::new(),
            FStr::Ansi(t) => t.to_string(),
            FStr::Utf16(u) => String::from_utf16_lossy(u),
        }
    }
}

crate::record! {
    /// An `FName`: index into the name table and instance number.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct FName: little plain {
        pub index: i32,
        pub number: i32,
    }
}

/// The name table's texts, for FName ↔ text.
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub texts: Vec<String>,
    first: HashMap<String, i32>,
}

impl Names {
    pub fn new(texts: Vec<String>) -> Self {
        let mut first = HashMap::new();
        for (i, t) in texts.iter().enumerate() {
            first.entry(t.clone()).or_insert(i as i32);
        }
        Self { texts, first }
    }
    /// The base text of a name (without its number), if the index is valid.
    pub fn base(&self, n: FName) -> Option<&str> {
        usize::try_from(n.index)
            .ok()
            .and_then(|i| self.texts.get(i))
            .map(|s| s.as_str())
    }
    /// `Name` or `Name_<number-1>`; `#index:number` when the index is invalid.
    pub fn display(&self, n: FName) -> String {
        match self.base(n) {
            Some(b) if n.number == 0 => b.to_string(),
            Some(b) => format!("{b}_{}", n.number.wrapping_sub(1)),
            None => format!("#{}:{}", n.index, n.number),
        }
    }
    /// The text form used in YAML: the display text when it reads back to the same name,
    /// else the explicit `#index:number` form.
    pub fn to_yaml(&self, n: FName) -> String {
        let d = self.display(n);
        if self.parse(&d) == Some(n) {
            d
        } else {
            format!("#{}:{}", n.index, n.number)
        }
    }
    /// Text → name: `#index:number`, an exact table entry (number 0, first match), or
    /// `Base_<k>` with `Base` in the table (number k+1, no leading zeros in k).
    pub fn parse(&self, s: &str) -> Option<FName> {
        if let Some(r) = s.strip_prefix('#') {
            let (i, n) = r.split_once(':')?;
            return Some(FName {
                index: i.parse().ok()?,
                number: n.parse().ok()?,
            });
        }
        if let Some(&i) = self.first.get(s) {
            return Some(FName {
                index: i,
                number: 0,
            });
        }
        let (b, k) = s.rsplit_once('_')?;
        if k.is_empty()
            || (k.len() > 1 && k.starts_with('0'))
            || !k.bytes().all(|c| c.is_ascii_digit())
        {
            return None;
        }
        let k: i32 = k.parse().ok()?;
        let i = *self.first.get(b)?;
        Some(FName {
            index: i,
            number: k.checked_add(1)?,
        })
    }
    pub fn is(&self, n: FName, text: &str) -> bool {
        n.number == 0 && self.base(n).is_some_and(|b| b.eq_ignore_ascii_case(text))
    }
}

/// Array properties whose elements are names (spec §3.1).
pub const NAME_ARRAYS: &[&str] = &[
    "TrackBoneNames",
    "UseTranslationBoneNames",
    "UseMovementBoneNames",
    "ForceMeshTranslationBoneNames",
    "AdjustAniScaleBoneNames",
];
/// Array properties whose elements are 32-bit integers or object references.
pub const INT_ARRAYS: &[&str] = &["Sequences", "CompressedTrackOffsets"];

/// A property value, typed where the tag tells the encoding; anything else raw.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// BoolProperty: the value is in the tag.
    Bool(i32),
    Int(i32),
    Float(u32),
    /// NameProperty, or a ByteProperty holding an enum name.
    Name(FName),
    Byte(u8),
    Object(i32),
    Names(Vec<FName>),
    Ints(Vec<i32>),
    Raw(Vec<u8>),
}

/// One tagged property.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: FName,
    pub ty: FName,
    /// DataSize as stored (for BoolProperty it is normally 0; other types recompute it).
    pub size: i32,
    pub array_index: i32,
    pub struct_name: Option<FName>,
    pub value: Value,
}

impl Property {
    /// DataSize of the value as it will be written.
    pub fn data_size(&self) -> i32 {
        match &self.value {
            Value::Bool(_) => self.size,
            Value::Int(_) | Value::Float(_) | Value::Object(_) => 4,
            Value::Name(_) => 8,
            Value::Byte(_) => 1,
            Value::Names(v) => 4 + 8 * v.len() as i32,
            Value::Ints(v) => 4 + 4 * v.len() as i32,
            Value::Raw(b) => b.len() as i32,
        }
    }
    /// Encoded size of the tag and value.
    pub fn encoded_len(&self) -> usize {
        let value = match self.value {
            Value::Bool(_) => 4,
            _ => self.data_size().max(0) as usize,
        };
        24 + if self.struct_name.is_some() { 8 } else { 0 } + value
    }
    pub fn write(&self, out: &mut Vec<u8>) {
        out.put_plain(&self.name);
        out.put_plain(&self.ty);
        out.put_i32(self.data_size());
        out.put_i32(self.array_index);
        if let Some(s) = self.struct_name {
            out.put_plain(&s);
        }
        match &self.value {
            Value::Bool(v) => out.put_i32(*v),
            Value::Int(v) | Value::Object(v) => out.put_i32(*v),
            Value::Float(v) => out.put_u32(*v),
            Value::Name(n) => out.put_plain(n),
            Value::Byte(b) => out.push(*b),
            Value::Names(v) => {
                out.put_i32(v.len() as i32);
                for n in v {
                    out.put_plain(n);
                }
            }
            Value::Ints(v) => {
                out.put_i32(v.len() as i32);
                for x in v {
                    out.put_i32(*x);
                }
            }
            Value::Raw(b) => out.extend_from_slice(b),
        }
    }
}

/// A property stream: the tags and the terminating `None` name (kept as stored).
#[derive(Debug, Clone, PartialEq)]
pub struct Properties {
    pub props: Vec<Property>,
    pub terminator: FName,
}

impl Properties {
    pub fn read(c: &mut Cursor, names: &Names) -> Result<Self, DecodeError> {
        let mut props = Vec::new();
        loop {
            let i = props.len();
            let at = c.offset();
            let name = c.read::<FName>().within("name").within_index(i)?;
            let Some(base) = names.base(name) else {
                return Err(DecodeError::invalid(
                    at,
                    format!("name index {} is outside the name table", name.index),
                ))
                .within_index(i);
            };
            if base.eq_ignore_ascii_case("None") {
                return Ok(Properties {
                    props,
                    terminator: name,
                });
            }
            let p = read_one(c, names, name, base).within_index(i)?;
            props.push(p);
        }
    }
    pub fn write(&self, out: &mut Vec<u8>) {
        for p in &self.props {
            p.write(out);
        }
        out.put_plain(&self.terminator);
    }
    /// Encoded size of the stream including the terminator.
    pub fn encoded_len(&self) -> usize {
        self.props.iter().map(Property::encoded_len).sum::<usize>() + 8
    }
    pub fn find(&self, names: &Names, name: &str) -> Option<&Property> {
        self.props.iter().find(|p| names.is(p.name, name))
    }
    /// The index of property `name` and the offset of its value from the stream's start
    /// (the tags before it, then its own 24-byte tag and struct name).
    pub fn value_offset(&self, names: &Names, name: &str) -> Option<(usize, u64)> {
        let k = self.props.iter().position(|p| names.is(p.name, name))?;
        let before: usize = self.props[..k].iter().map(Property::encoded_len).sum();
        let tag = 24
            + if self.props[k].struct_name.is_some() {
                8
            } else {
                0
            };
        Some((k, (before + tag) as u64))
    }
    pub fn find_mut(&mut self, names: &Names, name: &str) -> Option<&mut Property> {
        self.props.iter_mut().find(|p| names.is(p.name, name))
    }
}

fn read_one(
    c: &mut Cursor,
    names: &Names,
    name: FName,
    base: &str,
) -> Result<Property, DecodeError> {
    let at = c.offset();
    let ty = c.read::<FName>().within("type")?;
    let ty_text = names
        .base(ty)
        .ok_or_else(|| {
            DecodeError::invalid(
                at,
                format!("type name index {} is outside the name table", ty.index),
            )
        })
        .within("type")?
        .to_string();
    let size = c.i32().within("size")?;
    let array_index = c.i32().within("array_index")?;
    let struct_name = if ty_text == "StructProperty" {
        Some(c.read::<FName>().within("struct_name")?)
    } else {
        None
    };
    if ty_text == "BoolProperty" {
        let v = c.i32().within("value")?;
        return Ok(Property {
            name,
            ty,
            size,
            array_index,
            struct_name,
            value: Value::Bool(v),
        });
    }
    let vat = c.offset();
    let n = usize::try_from(size)
        .map_err(|_| DecodeError::invalid(vat, format!("property size {size} is negative")))
        .within("size")?;
    let bytes = c.bytes(n).within("value")?;
    let mut vc = Cursor::new(bytes, vat);
    let value = match (ty_text.as_str(), n) {
        ("IntProperty", 4) => Value::Int(vc.i32()?),
        ("FloatProperty", 4) => Value::Float(vc.u32()?),
        ("ObjectProperty", 4) => Value::Object(vc.i32()?),
        ("NameProperty", 8) | ("ByteProperty", 8) => Value::Name(vc.read::<FName>()?),
        ("ByteProperty", 1) => Value::Byte(vc.u8()?),
        ("ArrayProperty", n) if n >= 4 => {
            let count = i32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let is = |list: &[&str]| list.iter().any(|x| x.eq_ignore_ascii_case(base));
            if count >= 0 && is(NAME_ARRAYS) && n == 4 + 8 * count as usize {
                vc.i32()?;
                let mut v = Vec::with_capacity(count as usize);
                for _ in 0..count {
                    v.push(vc.read::<FName>()?);
                }
                Value::Names(v)
            } else if count >= 0 && is(INT_ARRAYS) && n == 4 + 4 * count as usize {
                vc.i32()?;
                let mut v = Vec::with_capacity(count as usize);
                for _ in 0..count {
                    v.push(vc.i32()?);
                }
                Value::Ints(v)
            } else {
                Value::Raw(bytes.to_vec())
            }
        }
        _ => Value::Raw(bytes.to_vec()),
    };
    Ok(Property {
        name,
        ty,
        size,
        array_index,
        struct_name,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        Names::new(
            [
                "None",
                "Foo",
                "Foo_1",
                "IntProperty",
                "BoolProperty",
                "TrackBoneNames",
                "ArrayProperty",
            ]
            .map(String::from)
            .to_vec(),
        )
    }

    #[test]
    fn fname_text_table_both_ways() {
        let n = names();
        for (name, text) in [
            (
                FName {
                    index: 1,
                    number: 0,
                },
                "Foo",
            ),
            (
                FName {
                    index: 1,
                    number: 13,
                },
                "Foo_12",
            ),
            (
                FName {
                    index: 2,
                    number: 0,
                },
                "Foo_1",
            ),
            // Foo number 2 displays as Foo_1, which is the table entry 2: explicit form.
            (
                FName {
                    index: 1,
                    number: 2,
                },
                "#1:2",
            ),
            (
                FName {
                    index: 99,
                    number: 0,
                },
                "#99:0",
            ),
        ] {
            assert_eq!(n.to_yaml(name), text);
            assert_eq!(n.parse(text), Some(name));
        }
    }

    #[test]
    fn fstring_table_both_ways() {
        for (s, bytes) in [
            (FStr::Empty, vec![0, 0, 0, 0]),
            (
                FStr::Ansi(Text::new(*b"None")),
                b"\x05\0\0\0None\0".to_vec(),
            ),
            (
                FStr::Utf16(vec![0x41]),
                vec![0xfe, 0xff, 0xff, 0xff, 0x41, 0, 0, 0],
            ),
        ] {
            let mut out = Vec::new();
            s.write(&mut out);
            assert_eq!(out, bytes);
            assert_eq!(FStr::read(&mut Cursor::new(&bytes, 0)).unwrap(), s);
        }
        let e = FStr::read(&mut Cursor::new(&[0x7f, 0xff, 0xff, 0x7f], 0)).unwrap_err();
        assert!(matches!(
            e.kind,
            crate::exact::DecodeErrorKind::CountTooLarge { .. }
        ));
    }

    #[test]
    fn property_stream_table_both_ways() {
        let n = names();
        let bytes: Vec<u8> = [
            &[
                1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0,
            ][..],
            &[
                1, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
            ],
            &[
                5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0,
            ],
            &[1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0],
            &[0, 0, 0, 0, 0, 0, 0, 0],
        ]
        .concat();
        let p = Properties::read(&mut Cursor::new(&bytes, 0), &n).unwrap();
        assert_eq!(p.props.len(), 3);
        assert_eq!(p.props[0].value, Value::Int(5));
        assert_eq!(p.props[1].value, Value::Bool(1));
        assert_eq!(
            p.props[2].value,
            Value::Names(vec![FName {
                index: 2,
                number: 0
            }])
        );
        let mut out = Vec::new();
        p.write(&mut out);
        assert_eq!(out, bytes);
    }

    #[test]
    fn bad_name_index_is_an_error_with_path() {
        let bytes = [40u8, 0, 0, 0, 0, 0, 0, 0];
        let e = Properties::read(&mut Cursor::new(&bytes, 500), &names()).unwrap_err();
        assert_eq!(e.offset, 500);
        assert!(e.to_string().contains("outside the name table"), "{e}");
    }
}
