//! deku for the byte-exact types, and the bridge between deku records and the crate's
//! [`Cursor`] and output buffers, with offsets and field paths.
//!
//! A record is one [`record!`](crate::record) declaration; [`Cursor::read`] and
//! [`super::Writer::put`] run deku's reader and writer through [`read_with`] and [`write_with`],
//! which turn deku's errors into [`DecodeError`]s (absolute byte offset, kind, field) and
//! [`EncodeError`]s (field).
//!
//! Field names: deku does not say which field an error comes from. A record's size is checked
//! before it is read, so the only values that can still be refused are those whose bytes may
//! be invalid: the fixed-size strings ([`Str`]). They take their field's name as deku context
//! (`#[deku(ctx = "Name(\"name\")")]`, required: a string field without a name does not
//! compile) and leave it, with their position, for the bridge to put in the error's path.

use super::fixed_str::Str;
use super::{Cursor, DecodeError, DecodeErrorKind, EncodeError, FieldPath, Hex32, Segment, F32};
use deku::ctx::{Endian, Order};
use deku::no_std_io::{Read, Seek, Write};
use deku::reader::{Reader, ReaderRet};
use deku::writer::Writer;
use deku::{DekuError, DekuReader, DekuSize, DekuWriter};
use std::cell::Cell;

// ---------------------------------------------------------------------------------------------
// The bridge

/// The name of the field a value is read into or written from (deku context).
#[derive(Debug, Clone, Copy)]
pub struct Name(pub &'static str);

#[derive(Debug)]
struct Refusal {
    /// The refused value's path inside the record (its field name, prefixed by the nested
    /// records and items it sits in).
    path: FieldPath,
    /// Byte position of the value inside the record.
    at: usize,
}

thread_local! {
    // The named value that refused last: set just before its DekuError is returned, taken by
    // the bridge (DekuError carries only a message).
    static REFUSED: Cell<Option<Refusal>> = const { Cell::new(None) };
}

/// Refuse the value of field `field` (at byte `at` of the record being read, 0 when writing)
/// with `e`; the bridge reports it at that offset with the field's name.
#[cold]
pub fn refuse(field: Name, at: usize, e: DekuError) -> DekuError {
    let mut path = FieldPath::default();
    path.prefix(Segment::Field(field.0));
    REFUSED.with(|r| r.set(Some(Refusal { path, at })));
    e
}

/// Refuse a string field without a terminator (reported as
/// [`DecodeErrorKind::Unterminated`] at byte `at` of the record).
#[cold]
pub fn unterminated(field: Name, at: usize) -> DekuError {
    refuse(field, at, DekuError::Parse(UNTERMINATED.into()))
}

/// An error from inside a nested record or item: put `seg` in front of the refused value's
/// path (when a value refused), so the bridge reports e.g. `bounce[1].sequence`.
#[cold]
pub fn nest(e: DekuError, seg: Segment) -> DekuError {
    REFUSED.with(|r| {
        if let Some(mut refusal) = r.take() {
            refusal.path.prefix(seg);
            r.set(Some(refusal));
        }
    });
    e
}

/// Read `N` nested records or values one by one, errors prefixed with `field[i]`:
/// `#[deku(reader = "read_items(deku::reader, ctx, \"bounce\")")]`.
#[inline]
pub fn read_items<'a, R, T, C, const N: usize>(
    reader: &mut Reader<R>,
    ctx: C,
    field: &'static str,
) -> Result<[T; N], DekuError>
where
    R: Read + Seek,
    T: DekuReader<'a, C> + Default,
    C: Copy,
{
    let mut out: [T; N] = std::array::from_fn(|_| T::default());
    for (i, v) in out.iter_mut().enumerate() {
        *v = T::from_reader_with_ctx(reader, ctx)
            .map_err(|e| nest(nest(e, Segment::Index(i)), Segment::Field(field)))?;
    }
    Ok(out)
}

/// Write nested records or values one by one, errors prefixed with `field[i]`.
#[inline]
pub fn write_items<W, T, C>(
    writer: &mut Writer<W>,
    items: &[T],
    ctx: C,
    field: &'static str,
) -> Result<(), DekuError>
where
    W: Write + Seek,
    T: DekuWriter<C>,
    C: Copy,
{
    for (i, v) in items.iter().enumerate() {
        v.to_writer(writer, ctx)
            .map_err(|e| nest(nest(e, Segment::Index(i)), Segment::Field(field)))?;
    }
    Ok(())
}

/// Read one deku value at `c` with context `ctx` ([`Cursor::read_with`], and
/// [`Cursor::read`] for a record deku reads): a refused value (an unterminated string) is
/// reported at its own offset with its field name; a short input where it ends.
#[inline]
pub(crate) fn read_with<'a, T, C: Copy>(c: &mut Cursor<'a>, ctx: C) -> Result<T, DecodeError>
where
    T: for<'r> DekuReader<'r, C>,
{
    let start = c.offset();
    let mut io = SliceIo {
        data: c.unread(),
        pos: 0,
    };
    let mut reader = Reader::new(&mut io);
    match T::from_reader_with_ctx(&mut reader, ctx) {
        Ok(v) => {
            c.bytes(reader.bits_read / 8)?;
            Ok(v)
        }
        Err(e) => Err(decode_error(e, start, reader.bits_read / 8, c.remaining())),
    }
}

#[cold]
#[inline(never)]
fn decode_error(e: DekuError, start: u64, at: usize, remaining: usize) -> DecodeError {
    if let Some(r) = REFUSED.with(Cell::take) {
        let kind = match e {
            DekuError::Parse(m) if m != UNTERMINATED => DecodeErrorKind::Invalid(m.to_string()),
            _ => DecodeErrorKind::Unterminated,
        };
        let mut err = DecodeError::new(start + r.at as u64, kind);
        err.path = r.path;
        return err;
    }
    let offset = start + at as u64;
    match e {
        DekuError::Incomplete(need) => DecodeError::new(
            offset,
            DecodeErrorKind::Truncated {
                need: need.byte_size() as u64,
                have: remaining.saturating_sub(at) as u64,
            },
        ),
        other => DecodeError::invalid(offset, other.to_string()),
    }
}

/// Append one deku value to `out`, written with context `ctx` ([`super::Writer::put_with`],
/// and [`super::Writer::put`] for a record deku writes).
#[inline]
pub(crate) fn write_with<T: DekuWriter<C>, C: Copy>(
    out: &mut Vec<u8>,
    value: &T,
    ctx: C,
) -> Result<(), EncodeError> {
    let mut io = VecIo(out);
    let mut writer = Writer::new(&mut io);
    value
        .to_writer(&mut writer, ctx)
        .and_then(|()| finish(&mut writer))
        .map_err(encode_error)
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
fn encode_error(e: DekuError) -> EncodeError {
    let message = match e {
        DekuError::InvalidParam(m) | DekuError::Parse(m) => m.to_string(),
        other => other.to_string(),
    };
    let mut err = EncodeError::new(message);
    if let Some(r) = REFUSED.with(Cell::take) {
        err.path = r.path;
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

impl<'a, const N: usize, const NODE: bool> DekuReader<'a, Name> for Str<N, NODE> {
    #[inline]
    fn from_reader_with_ctx<R: Read + Seek>(
        reader: &mut Reader<R>,
        name: Name,
    ) -> Result<Self, DekuError> {
        let at = reader.bits_read / 8;
        let mut raw = [0u8; N];
        if !matches!(
            reader.read_bytes_const(&mut raw, Order::Lsb0)?,
            ReaderRet::Bytes
        ) {
            return Err(DekuError::Parse("a string must start on a byte".into()));
        }
        Str::from_array(raw).ok_or_else(|| refuse(name, at, DekuError::Parse(UNTERMINATED.into())))
    }
}

impl<const N: usize, const NODE: bool> DekuWriter<Name> for Str<N, NODE> {
    #[inline]
    fn to_writer<W: Write + Seek>(
        &self,
        writer: &mut Writer<W>,
        name: Name,
    ) -> Result<(), DekuError> {
        match self.encodable() {
            Ok(raw) => writer.write_bytes(raw),
            Err(e) => Err(refuse(name, 0, DekuError::InvalidParam(e.message.into()))),
        }
    }
}

// In a record with an endianness, deku passes it along with the name.
impl<'a, const N: usize, const NODE: bool> DekuReader<'a, (Endian, Name)> for Str<N, NODE> {
    #[inline]
    fn from_reader_with_ctx<R: Read + Seek>(
        reader: &mut Reader<R>,
        (_, name): (Endian, Name),
    ) -> Result<Self, DekuError> {
        Self::from_reader_with_ctx(reader, name)
    }
}

impl<const N: usize, const NODE: bool> DekuWriter<(Endian, Name)> for Str<N, NODE> {
    #[inline]
    fn to_writer<W: Write + Seek>(
        &self,
        writer: &mut Writer<W>,
        (_, name): (Endian, Name),
    ) -> Result<(), DekuError> {
        self.to_writer(writer, name)
    }
}

impl<const N: usize, const NODE: bool> DekuSize for Str<N, NODE> {
    const SIZE_BITS: usize = N * 8;
}

// ---------------------------------------------------------------------------------------------
// Fixed byte arrays (names, comments, signatures): one copy for the whole array. deku's own
// `[u8; N]` reads and writes one byte per call, which made the VDF catalog (a 64-byte name per
// entry) read 2× slower than by hand (measured with `benches/peers/compare`, vdf-list rows).

/// Read `N` bytes as one array: `#[deku(reader = "read_byte_array(deku::reader)")]`.
#[inline]
pub fn read_byte_array<R: Read + Seek, const N: usize>(
    reader: &mut Reader<R>,
) -> Result<[u8; N], DekuError> {
    let mut buf = [0u8; N];
    reader.read_bytes_const_into(&mut buf, Order::Msb0)?;
    Ok(buf)
}

/// Write a byte array as it is: `#[deku(writer = "write_byte_array(deku::writer, &self.f)")]`.
#[inline]
pub fn write_byte_array<W: Write + Seek>(
    writer: &mut Writer<W>,
    bytes: &[u8],
) -> Result<(), DekuError> {
    writer.write_bytes(bytes)
}

/// Read a run of `N` exact floats (a `Vec3` or `Vec2` field) with one copy:
/// `#[deku(reader = "read_f32s(deku::reader)")]`. deku reads an array one element per call,
/// which made MW3's parse of the big event payloads (PufferState, ObjectMotion) 11 % slower
/// than by hand (`mw3_anim` bench); little-endian, as every format that uses it.
#[inline]
pub fn read_f32s<R: Read + Seek, const N: usize>(
    reader: &mut Reader<R>,
) -> Result<[F32; N], DekuError> {
    const { assert!(N <= 16) };
    let mut buf = [0u8; 64];
    if !matches!(
        reader.read_bytes(4 * N, &mut buf, Order::Lsb0)?,
        ReaderRet::Bytes
    ) {
        return Err(DekuError::Parse("a float must start on a byte".into()));
    }
    Ok(std::array::from_fn(|i| {
        let b = &buf[4 * i..];
        F32(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }))
}

#[cfg(test)]
mod byte_array_tests {
    use deku::{DekuContainerRead, DekuContainerWrite, DekuRead, DekuWrite};

    #[derive(Debug, PartialEq, DekuRead, DekuWrite)]
    #[deku(endian = "little")]
    struct Named {
        #[deku(
            reader = "super::read_byte_array(deku::reader)",
            writer = "super::write_byte_array(deku::writer, &self.name)"
        )]
        name: [u8; 5],
        value: u16,
    }

    #[test]
    fn a_byte_array_reads_and_writes_in_place() {
        let bytes = b"ABCDE\x34\x12";
        let (_, n) = Named::from_bytes((bytes, 0)).unwrap();
        assert_eq!(
            n,
            Named {
                name: *b"ABCDE",
                value: 0x1234
            }
        );
        assert_eq!(n.to_bytes().unwrap(), bytes);
        // too short: an error, not a panic
        assert!(Named::from_bytes((&bytes[..4], 0)).is_err());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::Writer;
    use deku::DekuRead;

    crate::record! {
        #[derive(Debug, PartialEq)]
        struct Rec: little {
            id: u16,
            #[deku(ctx = "Name(\"label\")")]
            label: Str<6>,
            scale: F32,
            ptr: Hex32,
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
        // and a later error does not pick up an old refusal
        let e = Cursor::new(&data[..3], 0).read::<Rec>().unwrap_err();
        assert_eq!(e.path.to_string(), "label");
        let e = Cursor::new(&data[..3], 0)
            .read_with::<Rec, _>(())
            .unwrap_err();
        assert!(e.path.is_empty());
    }

    /// The one-copy float run reads what deku's own array reader reads (and is cut off alike).
    #[test]
    fn read_f32s_agrees_with_dekus_array_reader() {
        #[derive(Debug, PartialEq, DekuRead, DekuSize)]
        #[deku(endian = "little")]
        struct Fast {
            #[deku(reader = "read_f32s(deku::reader)")]
            a: [F32; 3],
            b: u8,
            #[deku(reader = "read_f32s(deku::reader)")]
            c: [F32; 2],
        }
        #[derive(Debug, PartialEq, DekuRead, DekuSize)]
        #[deku(endian = "little")]
        struct Plain {
            a: [F32; 3],
            b: u8,
            c: [F32; 2],
        }
        let data: Vec<u8> = (0..21u8).map(|i| i.wrapping_mul(97) ^ 0x5a).collect();
        let f: Fast = Cursor::new(&data, 0).read_with(()).unwrap();
        let p: Plain = Cursor::new(&data, 0).read_with(()).unwrap();
        assert_eq!((f.a, f.b, f.c), (p.a, p.b, p.c));
        assert_eq!(
            f.c[1],
            F32(u32::from_le_bytes([data[17], data[18], data[19], data[20]]))
        );
        for cut in [0, 5, 12, 13, 20] {
            let mut io = SliceIo {
                data: &data[..cut],
                pos: 0,
            };
            let mut r = Reader::new(&mut io);
            let e = Fast::from_reader_with_ctx(&mut r, ()).unwrap_err();
            let mut io = SliceIo {
                data: &data[..cut],
                pos: 0,
            };
            let mut r2 = Reader::new(&mut io);
            assert!(Plain::from_reader_with_ctx(&mut r2, ()).is_err());
            assert!(matches!(e, DekuError::Incomplete(_)), "{e:?}");
        }
    }
}
