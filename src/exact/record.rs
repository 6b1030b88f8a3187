//! Declared records: the one way a fixed on-disk record is read and written.
//!
//! A record is one declaration inside [`record!`](crate::record): a struct whose byte order is
//! stated once (`struct Name: little { ... }`; a record without it does not compile). From it
//! follow deku's reader and writer, the field table ([`Record::FIELDS`]: each field's name,
//! offset and size, in order), the size ([`Record::SIZE`], asserted against deku's), and for a
//! record of plain little-endian values (`struct Name: little plain { ... }`) a generated
//! one-copy reader and writer ([`Plain`]) that a test per record ties to deku's.
//!
//! [`Cursor::read`](super::Cursor::read) reads a record and [`Writer::put`](super::Writer::put)
//! appends one; errors name the field from the table: a cut-short record is reported at the
//! field it ends in, a refused value (an unterminated string) at its field, both with the
//! field's name (and item index for a list or matrix field).

use super::{Cursor, DecodeError, FieldPath, Hex32, Within, F32};
use deku::{DekuReader, DekuSize, DekuWriter};

/// One field of a declared record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    /// Byte offset inside the record.
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
    /// Bytes per item when the field is a list of numbers (0: one value).
    pub item: usize,
    /// Items per row when the field is a matrix (0: a plain list).
    pub cols: usize,
    /// The fields of the value (of each item, for a list) when it is itself a record.
    pub sub: &'static [Field],
}

/// A fixed on-disk record declared with [`record!`](crate::record).
pub trait Record: for<'r> DekuReader<'r, ()> + DekuWriter<()> + DekuSize + Sized {
    /// The fields in order, with offsets and sizes.
    const FIELDS: &'static [Field];
    /// Size in bytes.
    const SIZE: usize;
    /// The one-copy reader of a plain record from exactly [`Self::SIZE`] bytes; `None` for a
    /// record read through deku.
    #[inline(always)]
    fn load(_bytes: &[u8]) -> Option<Self> {
        None
    }
    /// The one-copy writer of a plain record; `false` for a record written through deku.
    #[inline(always)]
    fn store(&self, _out: &mut Vec<u8>) -> bool {
        false
    }
}

/// How a field's bytes split into items in an error path (a list `[i]`, a matrix `[row][col]`).
pub trait Shape {
    /// Bytes per item (0: one value).
    const ITEM: usize = 0;
    /// Items per row (0: a list).
    const COLS: usize = 0;
    /// The fields of the value (of each item, for a list) when it is a record.
    const SUB: &'static [Field] = &[];
}

macro_rules! one_value {
    ($($t:ty),*) => { $(impl Shape for $t {})* };
}
one_value!(u8, u16, i16, u32, i32, u64, i64, f32);
impl<const N: usize> Shape for [u8; N] {}
impl<const N: usize> Shape for [F32; N] {
    const ITEM: usize = 4;
}
impl<const N: usize> Shape for [f32; N] {
    const ITEM: usize = 4;
}
impl<const N: usize> Shape for [u16; N] {
    const ITEM: usize = 2;
}
impl<const N: usize> Shape for [u32; N] {
    const ITEM: usize = 4;
}
impl<const N: usize> Shape for [i32; N] {
    const ITEM: usize = 4;
}
impl<const N: usize> Shape for [Hex32; N] {
    const ITEM: usize = 4;
}
/// A list of records: each item's fields.
impl<T: Record, const N: usize> Shape for [T; N] {
    const ITEM: usize = T::SIZE;
    const SUB: &'static [Field] = T::FIELDS;
}
impl<const R: usize, const C: usize> Shape for [[F32; C]; R] {
    const ITEM: usize = 4;
    const COLS: usize = C;
}
impl<const N: usize, const NODE: bool> Shape for super::fixed_str::Str<N, NODE> {}

/// A value stored as plain little-endian bytes, loaded and stored without deku.
pub trait Plain: Sized {
    /// Size in bytes.
    const BYTES: usize;
    /// The value from the first [`Self::BYTES`] bytes of `b` (which holds at least that many).
    fn from_le(b: &[u8]) -> Self;
    /// The value into the first [`Self::BYTES`] bytes of `b`.
    fn to_le(&self, b: &mut [u8]);
}

#[inline(always)]
fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    match b.first_chunk::<N>() {
        Some(a) => *a,
        None => [0; N],
    }
}

macro_rules! plain_number {
    ($($t:ty),*) => {$(
        impl Plain for $t {
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn from_le(b: &[u8]) -> Self {
                <$t>::from_le_bytes(array(b))
            }
            #[inline(always)]
            fn to_le(&self, b: &mut [u8]) {
                b[..Self::BYTES].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
plain_number!(u8, u16, i16, u32, i32, u64, i64, f32);

// (exact floats, hex words and other newtypes over a number: `deku_like_raw!`)

impl<const N: usize> Plain for [u8; N] {
    const BYTES: usize = N;
    #[inline(always)]
    fn from_le(b: &[u8]) -> Self {
        array(b)
    }
    #[inline(always)]
    fn to_le(&self, b: &mut [u8]) {
        b[..N].copy_from_slice(self);
    }
}

impl<T: Plain + Copy + Default, const N: usize> Plain for [T; N]
where
    [T; N]: NotBytes,
{
    const BYTES: usize = N * T::BYTES;
    #[inline(always)]
    fn from_le(b: &[u8]) -> Self {
        std::array::from_fn(|i| T::from_le(&b[i * T::BYTES..]))
    }
    #[inline(always)]
    fn to_le(&self, b: &mut [u8]) {
        for (i, v) in self.iter().enumerate() {
            v.to_le(&mut b[i * T::BYTES..]);
        }
    }
}

/// Arrays of anything but bytes (bytes have their own one-copy [`Plain`]).
pub trait NotBytes {}
impl<const N: usize> NotBytes for [F32; N] {}
impl<const R: usize, const C: usize> NotBytes for [[F32; C]; R] {}
impl<const N: usize> NotBytes for [u16; N] {}
impl<const N: usize> NotBytes for [f32; N] {}

/// The field table of a record from its fields' names, types' sizes and shapes (used by
/// [`record!`](crate::record)).
pub const fn table<const N: usize>(
    names: [&'static str; N],
    sizes: [usize; N],
    shapes: [(usize, usize, &'static [Field]); N],
) -> [Field; N] {
    let mut out = [Field {
        name: "",
        offset: 0,
        size: 0,
        item: 0,
        cols: 0,
        sub: &[],
    }; N];
    let mut i = 0;
    let mut offset = 0;
    while i < N {
        // a raw identifier (`r#type`) names the field without its prefix
        let name = match names[i].as_bytes() {
            [b'r', b'#', ..] => names[i].split_at(2).1,
            _ => names[i],
        };
        out[i] = Field {
            name,
            offset,
            size: sizes[i],
            item: shapes[i].0,
            cols: shapes[i].1,
            sub: shapes[i].2,
        };
        offset += sizes[i];
        i += 1;
    }
    out
}

/// The sum of the fields' sizes.
pub const fn total(fields: &[Field]) -> usize {
    let mut i = 0;
    let mut n = 0;
    while i < fields.len() {
        n += fields[i].size;
        i += 1;
    }
    n
}

/// The byte size of a deku type (whole bytes).
pub const fn size_of<T: DekuSize>() -> usize {
    assert!(T::SIZE_BITS % 8 == 0, "a record field must be whole bytes");
    T::SIZE_BITS / 8
}

/// The truncation error of a record laid out as `fields` that does not fit in `cur`: at the
/// field (and item) it ends in, with its name.
#[cold]
#[inline(never)]
pub fn short(cur: &Cursor<'_>, fields: &[Field]) -> DecodeError {
    let mut cur = cur.clone();
    for f in fields {
        if f.item == 0 {
            if let Err(e) = cur.bytes(f.size).within(f.name) {
                return e;
            }
            continue;
        }
        for k in 0..f.size / f.item {
            let r = cur.bytes(f.item);
            let r = if f.cols == 0 {
                r.within_index(k)
            } else {
                r.within_index(k % f.cols).within_index(k / f.cols)
            };
            if let Err(e) = r.within(f.name) {
                return e;
            }
        }
    }
    cur.invalid("internal: a record's field table is shorter than the record")
}

/// The field path of byte `rel` inside a record laid out as `fields` (prefixed by `p`), down
/// to the innermost declared field, or `None` past its end.
pub fn field_at(fields: &[Field], rel: usize, p: &FieldPath) -> Option<FieldPath> {
    leaf_at(fields, rel, p.clone()).map(|(p, _)| p)
}

/// [`field_at`], with the offset of the innermost field (or item) inside the record.
pub fn leaf_at(fields: &[Field], rel: usize, p: FieldPath) -> Option<(FieldPath, usize)> {
    let f = fields
        .iter()
        .find(|f| rel >= f.offset && rel < f.offset + f.size)?;
    let inner = rel - f.offset;
    let p = p.field(f.name);
    let (p, start) = match (f.item, f.cols) {
        (0, _) => (p, f.offset),
        (i, 0) => (p.index(inner / i), f.offset + inner / i * i),
        (i, c) => (
            p.index(inner / i / c).index(inner / i % c),
            f.offset + inner / i * i,
        ),
    };
    if f.sub.is_empty() {
        return Some((p, start));
    }
    // a nested record: down to its field
    let (p2, at) = leaf_at(f.sub, rel - start, p.clone())?;
    Some((p2, start + at))
}

/// For a type whose byte order is its own (a record, a value type declared with its
/// `endian`): inside a record, deku passes the outer record's byte order as context; the type
/// keeps its own.
#[macro_export]
macro_rules! own_byte_order {
    ($name:ty) => {
        impl<'a> ::deku::DekuReader<'a, ::deku::ctx::Endian> for $name {
            #[inline(always)]
            fn from_reader_with_ctx<R: ::deku::no_std_io::Read + ::deku::no_std_io::Seek>(
                reader: &mut ::deku::reader::Reader<R>,
                _: ::deku::ctx::Endian,
            ) -> Result<Self, ::deku::DekuError> {
                <Self as ::deku::DekuReader<'a, ()>>::from_reader_with_ctx(reader, ())
            }
        }
        impl ::deku::DekuWriter<::deku::ctx::Endian> for $name {
            #[inline(always)]
            fn to_writer<W: ::deku::no_std_io::Write + ::deku::no_std_io::Seek>(
                &self,
                writer: &mut ::deku::writer::Writer<W>,
                _: ::deku::ctx::Endian,
            ) -> Result<(), ::deku::DekuError> {
                <Self as ::deku::DekuWriter<()>>::to_writer(self, writer, ())
            }
        }
    };
}

/// Declare fixed on-disk records: each a struct with its byte order stated once
/// (`struct Name: little { ... }` or `: big`), and `plain` after the byte order for a record of
/// plain little-endian values (numbers, exact floats, byte arrays, other plain records), which
/// gets the one-copy reader and writer. See [`crate::exact::record`].
#[macro_export]
macro_rules! record {
    () => {};
    (@decl little, $($decl:tt)*) => { $crate::record!(@decl "little", $($decl)*); };
    (@decl big, $($decl:tt)*) => { $crate::record!(@decl "big", $($decl)*); };
    (@decl $endian:literal, $(#[$attr:meta])* $vis:vis struct $name:ident {
        $( $(#[$fattr:meta])* $fvis:vis $field:ident : $fty:ty ),*
    }) => {
        $(#[$attr])*
        #[derive(::deku::DekuRead, ::deku::DekuWrite, ::deku::DekuSize)]
        #[deku(endian = $endian)]
        $vis struct $name {
            $( $(#[$fattr])* $fvis $field : $fty ),*
        }
        impl $crate::exact::record::Shape for $name {
            const SUB: &'static [$crate::exact::record::Field] =
                <$name as $crate::exact::record::Record>::FIELDS;
        }
        $crate::own_byte_order!($name);
    };
    (@record $name:ident, $plain:tt, $( $field:ident : $fty:ty ),*) => {
        impl $crate::exact::record::Record for $name {
            const FIELDS: &'static [$crate::exact::record::Field] = &$crate::exact::record::table(
                [$( stringify!($field) ),*],
                [$( $crate::exact::record::size_of::<$fty>() ),*],
                [$( (
                    <$fty as $crate::exact::record::Shape>::ITEM,
                    <$fty as $crate::exact::record::Shape>::COLS,
                    <$fty as $crate::exact::record::Shape>::SUB,
                ) ),*],
            );
            const SIZE: usize = $crate::exact::record::size_of::<Self>();
            $crate::record!(@fast $plain);
        }
        const _: () = assert!(
            $crate::exact::record::total(<$name as $crate::exact::record::Record>::FIELDS)
                == <$name as $crate::exact::record::Record>::SIZE,
            "a record's field table must cover it"
        );
    };
    (@fast false) => {};
    (@fast true) => {
        #[inline(always)]
        fn load(bytes: &[u8]) -> Option<Self> {
            match bytes.len() == <Self as $crate::exact::record::Record>::SIZE {
                true => Some(<Self as $crate::exact::record::Plain>::from_le(bytes)),
                false => None,
            }
        }
        #[inline(always)]
        fn store(&self, out: &mut Vec<u8>) -> bool {
            let mut b = [0u8; <Self as $crate::exact::record::Record>::SIZE];
            <Self as $crate::exact::record::Plain>::to_le(self, &mut b);
            out.extend_from_slice(&b);
            true
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident : little plain {
            $( $(#[$fattr:meta])* $fvis:vis $field:ident : $fty:ty ),* $(,)?
        }
        $($rest:tt)*
    ) => {
        $crate::record!(@decl "little", $(#[$attr])* $vis struct $name {
            $( $(#[$fattr])* $fvis $field : $fty ),*
        });
        impl $crate::exact::record::Plain for $name {
            const BYTES: usize = <Self as $crate::exact::record::Record>::SIZE;
            #[inline(always)]
            #[allow(unused_variables)]
            fn from_le(b: &[u8]) -> Self {
                let mut _at = 0;
                Self { $( $field: {
                    let v = <$fty as $crate::exact::record::Plain>::from_le(&b[_at..]);
                    _at += <$fty as $crate::exact::record::Plain>::BYTES;
                    v
                } ),* }
            }
            #[inline(always)]
            #[allow(unused_variables)]
            fn to_le(&self, b: &mut [u8]) {
                let mut _at = 0;
                $(
                    <$fty as $crate::exact::record::Plain>::to_le(&self.$field, &mut b[_at..]);
                    _at += <$fty as $crate::exact::record::Plain>::BYTES;
                )*
            }
        }
        const _: () = assert!(
            0 $( + <$fty as $crate::exact::record::Plain>::BYTES )*
                == <$name as $crate::exact::record::Record>::SIZE,
            "a plain record's values must fill it"
        );
        $crate::record!(@record $name, true, $( $field : $fty ),*);
        $crate::record!($($rest)*);
    };
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident : $endian:ident {
            $( $(#[$fattr:meta])* $fvis:vis $field:ident : $fty:ty ),* $(,)?
        }
        $($rest:tt)*
    ) => {
        $crate::record!(@decl $endian, $(#[$attr])* $vis struct $name {
            $( $(#[$fattr])* $fvis $field : $fty ),*
        });
        $crate::record!(@record $name, false, $( $field : $fty ),*);
        $crate::record!($($rest)*);
    };
}

/// Test helper: `T`'s plain reader and writer (when it has them) give what deku's give for
/// `bytes`, and its field table matches its size.
#[cfg(test)]
pub fn same_as_deku<T: Record + std::fmt::Debug + PartialEq>(bytes: &[u8]) {
    let b = &bytes[..T::SIZE];
    assert_eq!(total(T::FIELDS), T::SIZE);
    let mut c = Cursor::new(b, 0);
    let by_deku: T = super::deku_impls::read_record(&mut c).unwrap();
    if let Some(v) = T::load(b) {
        assert_eq!(v, by_deku);
        let mut out = vec![7u8];
        assert!(v.store(&mut out));
        assert_eq!(out[1..], *b);
    }
    assert!(T::load(&b[..T::SIZE - 1]).is_none());
    let mut w = Vec::new();
    super::deku_impls::write_record(&mut w, &by_deku).unwrap();
    assert_eq!(w, b);
}

/// Test helper, the shape of every format's `(value, bytes)` table: each value writes to
/// exactly its bytes (`write`), and its bytes read back to exactly the value (`read`, which
/// must use them all). The bytes are hex, spaces ignored.
#[cfg(test)]
pub fn both_ways_with<T: std::fmt::Debug + PartialEq>(
    table: &[(T, &str)],
    read: impl Fn(&mut Cursor<'_>) -> Result<T, DecodeError>,
    write: impl Fn(&T, &mut Vec<u8>) -> Result<(), super::EncodeError>,
) {
    for (i, (value, hex_bytes)) in table.iter().enumerate() {
        let bytes = hex::decode(hex_bytes.replace(' ', "")).expect("test table: hex bytes");
        let mut out = Vec::new();
        write(value, &mut out).unwrap_or_else(|e| panic!("row {i}: {e}"));
        assert_eq!(hex::encode(&out), hex::encode(&bytes), "row {i} written");
        let mut c = Cursor::new(&bytes, 0);
        let back = read(&mut c).unwrap_or_else(|e| panic!("row {i}: {e}"));
        assert_eq!(&back, value, "row {i} read");
        assert!(c.is_empty(), "row {i}: {} bytes left unread", c.remaining());
    }
}

/// [`both_ways_with`] for a declared record, through [`Cursor::read`] and
/// [`super::Writer::put`], and the plain fast path (if any) against deku.
#[cfg(test)]
pub fn both_ways<T: Record + std::fmt::Debug + PartialEq>(table: &[(T, &str)]) {
    both_ways_with(
        table,
        |c| c.read::<T>(),
        |v, out| super::Writer::put(out, v),
    );
    for (_, hex_bytes) in table {
        same_as_deku::<T>(&hex::decode(hex_bytes.replace(' ', "")).expect("hex"));
    }
}
