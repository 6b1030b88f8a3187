//! `Write + Seek` targets that keep nothing: one that counts what would be written (to lay an
//! archive out before writing it), one that compares what is written with the bytes expected
//! (a byte-exact round trip checked without holding its output).

use std::io::{Seek, SeekFrom, Write};

/// A write position and the length written so far, as every seekable sink keeps them.
#[derive(Debug, Default, Clone, Copy)]
struct Extent {
    pos: u64,
    len: u64,
}

impl Extent {
    fn seek(&mut self, to: SeekFrom) -> u64 {
        self.pos = match to {
            SeekFrom::Start(p) => p,
            SeekFrom::End(d) => self.len.saturating_add_signed(d),
            SeekFrom::Current(d) => self.pos.saturating_add_signed(d),
        };
        self.pos
    }
    fn advance(&mut self, n: usize) {
        self.pos += n as u64;
        self.len = self.len.max(self.pos);
    }
}

/// A `Write + Seek` that only counts.
#[derive(Debug, Default)]
pub struct CountingSink {
    at: Extent,
}

impl CountingSink {
    /// The length written (the largest position reached).
    pub fn written_len(&self) -> u64 {
        self.at.len
    }
}

impl Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.at.advance(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for CountingSink {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        Ok(self.at.seek(to))
    }
}

/// A `Write + Seek` that compares what is written with `expected` without keeping it (bytes
/// written more than once, like the header placeholder, are settled by their last write).
pub struct CompareSink<'a> {
    expected: &'a [u8],
    release: &'a (dyn Fn(&[u8]) + Sync),
    at: Extent,
    /// Writes that differed, as (start, bytes), updated by later overlapping writes.
    pending: Vec<(u64, Vec<u8>)>,
    /// Up to where (a page boundary) `expected` was handed to `release`.
    released: u64,
}

/// The page size `release` works in ([`crate::fsio::Mapped::release`]).
const RELEASE_PAGE: u64 = 4096;

impl<'a> CompareSink<'a> {
    pub fn new(expected: &'a [u8]) -> Self {
        Self::with_release(expected, &|_| {})
    }
    /// Compare, and hand every compared part of `expected` to `release` afterwards.
    pub fn with_release(expected: &'a [u8], release: &'a (dyn Fn(&[u8]) + Sync)) -> Self {
        Self {
            release,
            expected,
            at: Extent::default(),
            pending: Vec::new(),
            released: 0,
        }
    }
    /// The first differing offset (or the shorter length), `None` when identical.
    pub fn first_difference(&self) -> Option<u64> {
        let mut first: Option<u64> = None;
        for (start, bytes) in &self.pending {
            let exp = self.expected.get(*start as usize..).unwrap_or_default();
            if let Some(d) = super::first_difference(&exp[..exp.len().min(bytes.len())], bytes) {
                let at = start + d as u64;
                first = Some(first.map_or(at, |f| f.min(at)));
            }
        }
        if self.at.len != self.expected.len() as u64 {
            let at = self.at.len.min(self.expected.len() as u64);
            first = Some(first.map_or(at, |f| f.min(at)));
        }
        first
    }
    pub fn written_len(&self) -> u64 {
        self.at.len
    }
}

impl Write for CompareSink<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let start = self.at.pos;
        let end = start + buf.len() as u64;
        for (ps, pb) in &mut self.pending {
            let pe = *ps + pb.len() as u64;
            let (lo, hi) = (start.max(*ps), end.min(pe));
            if lo < hi {
                pb[(lo - *ps) as usize..(hi - *ps) as usize]
                    .copy_from_slice(&buf[(lo - start) as usize..(hi - start) as usize]);
            }
        }
        let exp = self
            .expected
            .get(start as usize..(end as usize).min(self.expected.len()))
            .unwrap_or_default();
        // (bytes that are the expected bytes themselves, e.g. an archive member written from
        // the mapped archive, are equal without being read: their pages are not faulted in)
        let same_memory = exp.len() == buf.len() && std::ptr::eq(exp.as_ptr(), buf.as_ptr());
        if !same_memory && exp != buf {
            self.pending.push((start, buf.to_vec()));
        }
        // (from the last page released on, so the pages two writes share are released too)
        if end > self.released {
            let from = (self.released.min(start) as usize).min(self.expected.len());
            let to = (end as usize).min(self.expected.len());
            (self.release)(&self.expected[from..to]);
            self.released = end / RELEASE_PAGE * RELEASE_PAGE;
        }
        self.at.advance(buf.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for CompareSink<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        Ok(self.at.seek(to))
    }
}
