//! deku for the byte-exact types, and the bridge between declared records and the crate's
//! [`Cursor`] and output buffers, with offsets and field paths.
//!
//! A record is one [`record!`](crate::record) declaration; [`Cursor::read`] and
//! [`super::Writer::put`] run deku's reader and writer through [`read_record`] and
//! [`write_record`], which turn deku's errors into [`DecodeError`]s (absolute byte offset,
//! kind, field) and [`EncodeError`]s (field).
//!
//! Field names come from the declaration: deku does not say which field an error comes from,
//! but it says where it stopped, and the record's field table ([`Record::FIELDS`], nested
//! records included) says which field holds that byte. A record's size is checked before it
//! is read, so the only values that can still be refused are those whose bytes may be
//! invalid (an unterminated [`Str`]) or that do not fit (a too long text, an index too large
//! for its integer); a value refuses after reading its bytes and before writing them, so the
//! reader's last byte and the writer's next byte are in the refused field.

use super::fixed_str::Str;
use super::record::{leaf_at, Field, Record};
use super::{Cursor, DecodeError, DecodeErrorKind, EncodeError, FieldPath, Hex32, F32};
use deku::ctx::Order;
use deku::no_std_io::{Read, Seek, Write};
use deku::reader::Reader;
use deku::writer::Writer;
use deku::{DekuError, DekuReader, DekuSize, DekuWriter};

// ---------------------------------------------------------------------------------------------
// The bridge

/// Read one declared record at `c` through deku ([`Cursor::read`] for a record that is not
/// plain): a refused value (an unterminated string) is reported at its own offset with its
/// field path; a short input where it ends.
#[inline]
pub(crate) fn read_record<T: Record>(c: &mut Cursor<'_>) -> Result<T, DecodeError> {
    let start = c.offset();
    let mut io = SliceIo {
        data: c.unread(),
        pos: 0,
    };
    let mut reader = Reader::new(&mut io);
    match T::from_reader_with_ctx(&mut reader, ()) {
        Ok(v) => {
            c.bytes(reader.bits_read / 8)?;
            Ok(v)
        }
        Err(e) => Err(decode_error(
            e,
            T::FIELDS,
            start,
            reader.bits_read / 8,
            c.remaining(),
        )),
    }
}

#[cold]
#[inline(never)]
fn decode_error(
    e: DekuError,
    fields: &[Field],
    start: u64,
    at: usize,
    remaining: usize,
) -> DecodeError {
    let kind = match e {
        DekuError::Incomplete(need) => {
            return DecodeError::new(
                start + at as u64,
                DecodeErrorKind::Truncated {
                    need: need.byte_size() as u64,
                    have: remaining.saturating_sub(at) as u64,
                },
            )
        }
        DekuError::Parse(m) | DekuError::InvalidParam(m) if m == UNTERMINATED => {
            DecodeErrorKind::Unterminated
        }
        DekuError::Parse(m) | DekuError::InvalidParam(m) => DecodeErrorKind::Invalid(m.to_string()),
        other => DecodeErrorKind::Invalid(other.to_string()),
    };
    // the refused value holds the last byte read
    match leaf_at(fields, at.saturating_sub(1), FieldPath::default()) {
        Some((path, off)) => {
            let mut err = DecodeError::new(start + off as u64, kind);
            err.path = path;
            err
        }
        None => DecodeError::new(start + at as u64, kind),
    }
}

/// Append one declared record to `out` through deku ([`super::Writer::put`] for a record that
/// is not plain); a refused value names its field path.
#[inline]
pub(crate) fn write_record<T: Record>(out: &mut Vec<u8>, value: &T) -> Result<(), EncodeError> {
    let start = out.len();
    let mut io = VecIo(out);
    let mut writer = Writer::new(&mut io);
    match value
        .to_writer(&mut writer, ())
        .and_then(|()| finish(&mut writer))
    {
        Ok(()) => Ok(()),
        Err(e) => {
            let at = out.len() - start;
            out.truncate(start);
            Err(encode_error(e, T::FIELDS, at))
        }
    }
}

// deku reads and writes every field through `Read`/`Write`; with `std::io::Cursor` each small
// copy was an out-of-line call (MW3 parse and write 1.3–1.6× slower than its hand-written
// readers, perf). These two do the same with copies the compiler sees the size of.

/// The unread bytes of a [`Cursor`] as deku's input.
struct SliceIo<'a> {
    data: &'a [u8],
    pos: usize,
}

impl std::io::Read for SliceIo<'_> {
    #[inline]
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.pos += n;
        Ok(n)
    }
    #[inline(always)]
    fn read_exact(&mut self, buf: &mut [u8]) -> std::io::Result<()> {
        match self.data.get(self.pos..self.pos + buf.len()) {
            Some(src) => {
                buf.copy_from_slice(src);
                self.pos += buf.len();
                Ok(())
            }
            None => Err(std::io::ErrorKind::UnexpectedEof.into()),
        }
    }
}

impl std::io::Seek for SliceIo<'_> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        let to = match pos {
            std::io::SeekFrom::Start(n) => Some(n),
            std::io::SeekFrom::Current(d) => (self.pos as u64).checked_add_signed(d),
            std::io::SeekFrom::End(d) => (self.data.len() as u64).checked_add_signed(d),
        };
        match to.and_then(|t| usize::try_from(t).ok()) {
            Some(t) => {
                self.pos = t;
                Ok(t as u64)
            }
            None => Err(std::io::ErrorKind::InvalidInput.into()),
        }
    }
}

/// An output buffer as deku's output: appends (deku only seeks for records that ask to).
struct VecIo<'a>(&'a mut Vec<u8>);

impl std::io::Write for VecIo<'_> {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }
    #[inline(always)]
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.0.extend_from_slice(buf);
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl std::io::Seek for VecIo<'_> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        match pos {
            std::io::SeekFrom::End(0) | std::io::SeekFrom::Current(0) => Ok(self.0.len() as u64),
            _ => Err(std::io::ErrorKind::Unsupported.into()),
        }
    }
}

/// The end of a record. The records written through [`write_with`] are whole bytes (animkit
/// declares no bit fields), so there is no part byte to flush: `Writer::finalize` would run the
/// bit-level writer for nothing, which cost MW3's write 12 % (perf, `mw3_anim` bench). A record
/// with bit fields must go through `to_writer` + `finalize` itself.
#[inline]
fn finish<W: Write + Seek>(_: &mut Writer<W>) -> Result<(), DekuError> {
    Ok(())
}

#[cold]
#[inline(never)]
fn encode_error(e: DekuError, fields: &[Field], at: usize) -> EncodeError {
    let message = match e {
        DekuError::InvalidParam(m) | DekuError::Parse(m) => m.to_string(),
        other => other.to_string(),
    };
    let mut err = EncodeError::new(message);
    // the refused value is the one about to be written
    if let Some((path, _)) = leaf_at(fields, at, FieldPath::default()) {
        err.path = path;
    }
    err
}

// ---------------------------------------------------------------------------------------------
// Exact floats and hex values: their 4 bytes like a u32 (a float's bits never go through float
// arithmetic).

/// deku for a newtype over an integer (`struct Name(raw)`): its bytes are the integer's, in
/// the byte order its record gives.
macro_rules! deku_like_raw {
    ($name:ident, $raw:ty) => {
        impl<'a, C: Copy> deku::DekuReader<'a, C> for $name
        where
            $raw: deku::DekuReader<'a, C>,
        {
            #[inline]
            fn from_reader_with_ctx<R: deku::no_std_io::Read + deku::no_std_io::Seek>(
                reader: &mut deku::reader::Reader<R>,
                ctx: C,
            ) -> Result<Self, deku::DekuError> {
                <$raw>::from_reader_with_ctx(reader, ctx).map($name)
            }
        }
        impl<C: Copy> deku::DekuWriter<C> for $name
        where
            $raw: deku::DekuWriter<C>,
        {
            #[inline]
            fn to_writer<W: deku::no_std_io::Write + deku::no_std_io::Seek>(
                &self,
                writer: &mut deku::writer::Writer<W>,
                ctx: C,
            ) -> Result<(), deku::DekuError> {
                self.0.to_writer(writer, ctx)
            }
        }
        impl deku::DekuSize for $name {
            const SIZE_BITS: usize = 8 * std::mem::size_of::<$raw>();
        }
        impl $crate::exact::record::Shape for $name {}
        impl $crate::exact::record::Plain for $name {
            const BYTES: usize = std::mem::size_of::<$raw>();
            #[inline(always)]
            fn from_le(b: &[u8]) -> Self {
                $name(<$raw as $crate::exact::record::Plain>::from_le(b))
            }
            #[inline(always)]
            fn to_le(&self, b: &mut [u8]) {
                <$raw as $crate::exact::record::Plain>::to_le(&self.0, b)
            }
        }
    };
}
pub(crate) use deku_like_raw;
deku_like_raw!(F32, u32);
deku_like_raw!(Hex32, u32);

/// The message of an unterminated string (reported as [`DecodeErrorKind::Unterminated`]).
const UNTERMINATED: &str = "string has no terminator before the end of its field";

// ---------------------------------------------------------------------------------------------
// Garbage-keeping strings: the buffer as stored; it must hold a terminator (read), and a
// document's text must fit it (write).

// (whatever the context: the bytes as stored)
impl<'a, C: Copy, const N: usize, const NODE: bool> DekuReader<'a, C> for Str<N, NODE> {
    #[inline]
    fn from_reader_with_ctx<R: Read + Seek>(
        reader: &mut Reader<R>,
        _: C,
    ) -> Result<Self, DekuError> {
        let mut raw = [0u8; N];
        // (deku without `bits`: a read of whole bytes gives bytes)
        reader.read_bytes_const(&mut raw, Order::Lsb0)?;
        Str::from_array(raw).ok_or_else(unterminated)
    }
}

impl<C: Copy, const N: usize, const NODE: bool> DekuWriter<C> for Str<N, NODE> {
    #[inline]
    fn to_writer<W: Write + Seek>(&self, writer: &mut Writer<W>, _: C) -> Result<(), DekuError> {
        match self.encodable() {
            Ok(raw) => writer.write_bytes(raw),
            Err(e) => Err(DekuError::InvalidParam(e.message.into())),
        }
    }
}

/// The refusal of a string field without a terminator, once its bytes are read (reported as
/// [`DecodeErrorKind::Unterminated`] at the field).
#[cold]
fn unterminated() -> DekuError {
    DekuError::Parse(UNTERMINATED.into())
}

impl<const N: usize, const NODE: bool> DekuSize for Str<N, NODE> {
    const SIZE_BITS: usize = N * 8;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Writer;

    crate::record! {
        #[derive(Debug, PartialEq)]
        struct Rec: little {
            id: u16,
            label: Str<6>,
            scale: F32,
            ptr: Hex32,
        }

        #[derive(Debug, PartialEq)]
        struct Outer: little {
            tag: u8,
            recs: [Rec; 2],
        }
    }

    fn bytes() -> Vec<u8> {
        let mut b = vec![7, 0];
        b.extend_from_slice(b"ab\0xyz");
        b.extend_from_slice(&0x8000_0000u32.to_le_bytes()); // -0.0 keeps its sign bit
        b.extend_from_slice(&0x1234_5678u32.to_le_bytes());
        b
    }

    #[test]
    fn records_read_and_write_through_the_bridge() {
        let data = bytes();
        let mut c = Cursor::new(&data, 100);
        let r: Rec = c.read().unwrap();
        assert_eq!(r.id, 7);
        assert_eq!(r.label.text(), b"ab");
        assert_eq!(r.label.tail(), Some(&b"xyz"[..]));
        assert_eq!(r.scale, F32(0x8000_0000));
        assert_eq!(r.ptr, Hex32(0x1234_5678));
        assert!(c.is_empty());
        let mut out = vec![0xEE];
        out.put(&r).unwrap();
        assert_eq!(out[1..], data[..]);
        assert_eq!(Rec::SIZE_BYTES, Some(16));
    }

    #[test]
    fn errors_have_offsets_and_field_names() {
        let mut data = bytes();
        // short: refused before anything is read, at the field it ends in
        let e = Cursor::new(&data[..15], 100).read::<Rec>().unwrap_err();
        assert_eq!((e.offset, e.path.to_string()), (112, "ptr".to_string()));
        assert_eq!(e.kind, DecodeErrorKind::Truncated { need: 4, have: 3 });
        // an unterminated string: at the string, with its name
        data[4] = b'c';
        let e = Cursor::new(&data, 100).read::<Rec>().unwrap_err();
        assert_eq!((e.offset, e.path.to_string()), (102, "label".to_string()));
        assert_eq!(e.kind, DecodeErrorKind::Unterminated);
        // a text too long for its buffer: refused when writing, with the field's name
        let r = Rec {
            id: 1,
            label: Str::from_parts_lenient(&super::super::Text::from("toolong"), None),
            scale: F32(0),
            ptr: Hex32(0),
        };
        let e = Vec::new().put(&r).unwrap_err();
        assert_eq!(e.path.to_string(), "label");
        assert!(e.message.contains("at most 5"), "{e}");
        // cut short inside the string: at the string
        let e = Cursor::new(&data[..3], 0).read::<Rec>().unwrap_err();
        assert_eq!(e.path.to_string(), "label");
    }

    /// A refused value inside a nested record is named down to its field, from the
    /// declarations' field tables, at its own offset, reading and writing.
    #[test]
    fn nested_records_name_the_inner_field() {
        let mut data = vec![9u8];
        data.extend(bytes());
        data.extend(bytes());
        let o: Outer = Cursor::new(&data, 0).read().unwrap();
        assert_eq!((o.tag, o.recs[1].id), (9, 7));
        data[1 + 16 + 4] = b'c'; // the second record's label loses its terminator
        let e = Cursor::new(&data, 50).read::<Outer>().unwrap_err();
        assert_eq!(e.path.to_string(), "recs[1].label");
        assert_eq!(
            (e.offset, e.kind),
            (50 + 1 + 16 + 2, DecodeErrorKind::Unterminated)
        );
        let mut o = o;
        o.recs[1].label = Str::from_parts_lenient(&super::super::Text::from("toolong"), None);
        let mut out = vec![1, 2];
        let e = out.put(&o).unwrap_err();
        assert_eq!(e.path.to_string(), "recs[1].label");
        // nothing of a refused record stays in the output
        assert_eq!(out, [1, 2]);
        assert_eq!(
            super::super::record::field_at(Outer::FIELDS, 1 + 16 + 8, &FieldPath::default())
                .map(|p| p.to_string()),
            Some("recs[1].scale".into())
        );
    }
}
