//! A bounds-checked little-endian reader over a byte slice that knows its absolute offset,
//! and the mirror-image writer helpers.

use super::error::{DecodeError, DecodeErrorKind};
use deku::{DekuContainerRead, DekuContainerWrite, DekuReader, DekuSize};

/// Reads little-endian values from a slice. Every read is bounds-checked and returns a
/// [`DecodeError`] carrying the absolute offset of the failure.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

macro_rules! le_reader {
    ($name:ident, $t:ty) => {
        #[inline(always)]
        pub fn $name(&mut self) -> Result<$t, DecodeError> {
            let bytes = self.array::<{ std::mem::size_of::<$t>() }>()?;
            Ok(<$t>::from_le_bytes(bytes))
        }
    };
}

impl<'a> Cursor<'a> {
    /// A cursor over `data`, whose first byte lies at absolute offset `base` of the file.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Self { data, pos: 0, base }
    }
    /// Absolute file offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    #[inline]
    pub fn position(&self) -> usize {
        self.pos
    }
    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    #[cold]
    #[inline(never)]
    fn truncated(&self, need: usize) -> DecodeError {
        DecodeError::new(
            self.offset(),
            DecodeErrorKind::Truncated {
                need: need as u64,
                have: self.remaining() as u64,
            },
        )
    }
    /// An error at the current offset.
    pub fn invalid(&self, msg: impl Into<String>) -> DecodeError {
        DecodeError::invalid(self.offset(), msg)
    }
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.truncated(n));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }
    /// The next `n` bytes without consuming them (an error when fewer are left).
    #[inline]
    pub fn peek(&self, n: usize) -> Result<&'a [u8], DecodeError> {
        match self.data.get(self.pos..self.pos + n) {
            Some(b) => Ok(b),
            None => Err(self.truncated(n)),
        }
    }
    /// Everything not read yet, without consuming it.
    #[inline]
    pub fn unread(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }
    #[inline(always)]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let window = self
            .data
            .get(self.pos..)
            .and_then(|rest| rest.first_chunk::<N>());
        match window {
            Some(&out) => {
                self.pos += N;
                Ok(out)
            }
            None => Err(self.truncated(N)),
        }
    }
    /// Everything not read yet.
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.data[self.pos..];
        self.pos = self.data.len();
        out
    }
    /// Bytes up to (not including) the next `terminator`; the terminator is consumed.
    pub fn until(&mut self, terminator: u8) -> Result<&'a [u8], DecodeError> {
        let rest = &self.data[self.pos..];
        match rest.iter().position(|&b| b == terminator) {
            Some(len) => {
                self.pos += len + 1;
                Ok(&rest[..len])
            }
            None => Err(DecodeError::new(
                self.offset(),
                DecodeErrorKind::Unterminated,
            )),
        }
    }
    /// Check that `count` items of `item_size` bytes fit in what is left, before anything is
    /// allocated for them. Returns the count as `usize`.
    pub fn check_count(&self, count: u64, item_size: usize) -> Result<usize, DecodeError> {
        let need = count.checked_mul(item_size as u64);
        match need {
            Some(need) if need <= self.remaining() as u64 => Ok(count as usize),
            _ => Err(DecodeError::new(
                self.offset(),
                DecodeErrorKind::CountTooLarge {
                    count,
                    need: need.unwrap_or(u64::MAX),
                    have: self.remaining() as u64,
                },
            )),
        }
    }
    /// Read a fixed-layout record declared with deku; `SIZE` is its size in bytes.
    pub fn record<T, const SIZE: usize>(&mut self) -> Result<T, DecodeError>
    where
        T: for<'b> DekuContainerRead<'b>,
    {
        let start = self.offset();
        let bytes = self.bytes(SIZE)?;
        T::from_bytes((bytes, 0))
            .map(|(_, v)| v)
            .map_err(|e| DecodeError::invalid(start, e.to_string()))
    }
    /// Read a fixed run of fields declared with deku ([`Run`]); when the input ends inside it,
    /// the error names the field it ends in, at that field's offset
    /// ([`super::deku_impls::read_fields`]).
    #[inline]
    pub fn run<T: Run>(&mut self) -> Result<T, DecodeError> {
        super::deku_impls::read_fields(self, T::FIELDS)
    }
    le_reader!(u8, u8);
    le_reader!(u16, u16);
    le_reader!(i16, i16);
    le_reader!(u32, u32);
    le_reader!(i32, i32);
    le_reader!(u64, u64);
}

/// A fixed run of fields between a record's variable parts (lines, counted lists), declared
/// with deku: its fields' names and sizes, in order, name the field a cut-short run ends in.
/// A test per run checks `FIELDS` against the declaration
/// ([`super::deku_impls::fields_cover`]).
pub trait Run:
    for<'b> DekuContainerRead<'b> + DekuContainerWrite + for<'r> DekuReader<'r, ()> + DekuSize
{
    /// (name, size in bytes) of each field, in order.
    const FIELDS: &'static [(&'static str, usize)];
    /// The run's size: the sum of `FIELDS`' sizes.
    const SIZE: usize = field_sizes(Self::FIELDS);
}

/// A [`Run`] whose fields are all 4-byte little-endian numbers, laid out without padding
/// (`#[repr(C)]`, [`bytemuck::Pod`]): a fast reader loads it with one unaligned read on a
/// little-endian machine (deku's per-field reader cost MSB parsing 22 %), elsewhere through
/// deku; written the same way. `words_read_and_write_as_deku_does` ties the two together for
/// every such run.
pub trait WordRun: Run + bytemuck::Pod {
    /// `bytes` holds exactly `SIZE` bytes.
    #[inline(always)]
    fn from_exact(bytes: &[u8]) -> Option<Self> {
        if cfg!(target_endian = "little") && bytes.len() == std::mem::size_of::<Self>() {
            Some(bytemuck::pod_read_unaligned(bytes))
        } else {
            Self::from_bytes((bytes, 0)).ok().map(|(_, v)| v)
        }
    }
    /// Append the run to `out` (one copy on a little-endian machine; deku's per-field writer
    /// cost MSB writing 28 %).
    #[inline(always)]
    fn put(&self, out: &mut Vec<u8>) {
        if cfg!(target_endian = "little") {
            out.extend_from_slice(bytemuck::bytes_of(self));
        } else {
            put_record(out, self);
        }
    }
}

const fn field_sizes(fields: &[(&str, usize)]) -> usize {
    let mut i = 0;
    let mut n = 0;
    while i < fields.len() {
        n += fields[i].1;
        i += 1;
    }
    n
}

/// Append a deku record to `out`.
pub fn put_record<T: DekuContainerWrite>(out: &mut Vec<u8>, value: &T) {
    // Writing a plain fixed-layout record into a Vec cannot fail: deku only errors on
    // assertions and bit-size overflows, which our record types do not declare. Written in
    // place at the end of `out` (`to_bytes` would allocate a Vec per record).
    let at = out.len() as u64;
    let mut cursor = std::io::Cursor::new(out);
    cursor.set_position(at);
    let mut writer = deku::writer::Writer::new(&mut cursor);
    if let Err(e) = value
        .to_writer(&mut writer, ())
        .and_then(|()| writer.finalize())
    {
        unreachable!("fixed-layout deku record failed to serialise: {e}");
    }
}

/// Little-endian append helpers, the write-side mirror of [`Cursor`].
pub trait PutLe {
    fn put_u16(&mut self, v: u16);
    fn put_i16(&mut self, v: i16);
    fn put_u32(&mut self, v: u32);
    fn put_i32(&mut self, v: i32);
    fn put_u64(&mut self, v: u64);
}

impl PutLe for Vec<u8> {
    #[inline]
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    fn put_i16(&mut self, v: i16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    fn put_i32(&mut self, v: i32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    #[inline]
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounds_checked_with_absolute_offsets() {
        let mut c = Cursor::new(&[1, 0, 2, 0, 0, 0, 9], 100);
        assert_eq!(c.u16().unwrap(), 1);
        assert_eq!(c.u32().unwrap(), 2);
        let err = c.u16().unwrap_err();
        assert_eq!(err.offset, 106);
        assert_eq!(err.kind, DecodeErrorKind::Truncated { need: 2, have: 1 });
    }

    #[test]
    fn huge_counts_are_refused_before_allocation() {
        let c = Cursor::new(&[0; 16], 0);
        assert_eq!(c.check_count(4, 4).unwrap(), 4);
        assert!(c.check_count(5, 4).is_err());
        assert!(c.check_count(u64::MAX, 12).is_err());
    }

    #[test]
    fn until_keeps_inner_bytes_and_consumes_the_terminator() {
        let mut c = Cursor::new(b"a\r\0b\nz", 0);
        assert_eq!(c.until(b'\n').unwrap(), b"a\r\0b");
        assert_eq!(c.offset(), 5);
        assert_eq!(
            c.until(b'\n').unwrap_err().kind,
            DecodeErrorKind::Unterminated
        );
    }
}
