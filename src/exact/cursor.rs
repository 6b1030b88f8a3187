//! A bounds-checked little-endian reader over a byte slice that knows its absolute offset,
//! and its mirror-image [`Writer`].

use super::error::EncodeError;
use super::error::{DecodeError, DecodeErrorKind};
use super::record::{Plain, Record};

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
    /// Read a declared record ([`super::record`]): one copy for a plain record, deku
    /// otherwise. A cut-short record is reported at the field it ends in, with its name.
    #[inline(always)]
    pub fn read<T: Record>(&mut self) -> Result<T, DecodeError> {
        match self.peek(T::SIZE) {
            Ok(bytes) => match T::load(bytes) {
                Some(v) => {
                    self.pos += T::SIZE;
                    Ok(v)
                }
                None => super::deku_impls::read_record(self),
            },
            Err(_) => Err(super::record::short(self, T::FIELDS)),
        }
    }
    le_reader!(u8, u8);
    le_reader!(u16, u16);
    le_reader!(i16, i16);
    le_reader!(u32, u32);
    le_reader!(i32, i32);
    le_reader!(u64, u64);
}

/// Appends little-endian values and declared records to an output buffer: the write-side
/// mirror of [`Cursor`].
pub trait Writer {
    fn put_u16(&mut self, v: u16);
    fn put_i16(&mut self, v: i16);
    fn put_u32(&mut self, v: u32);
    fn put_i32(&mut self, v: i32);
    fn put_u64(&mut self, v: u64);
    /// Append a declared record ([`super::record`]): one copy for a plain record, deku
    /// otherwise. A refused value (a text too long for its field) names its field.
    fn put<T: Record>(&mut self, value: &T) -> Result<(), EncodeError>;
    /// [`Writer::put`] for a plain record, which cannot refuse.
    fn put_plain<T: Record + Plain>(&mut self, value: &T);
}

impl Writer for Vec<u8> {
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
    #[inline(always)]
    fn put<T: Record>(&mut self, value: &T) -> Result<(), EncodeError> {
        if value.store(self) {
            return Ok(());
        }
        super::deku_impls::write_record(self, value)
    }
    #[inline(always)]
    fn put_plain<T: Record + Plain>(&mut self, value: &T) {
        let at = self.len();
        self.resize(at + <T as Record>::SIZE, 0);
        value.to_le(&mut self[at..]);
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
