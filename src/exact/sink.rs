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
    pending: Vec<(u64, Pending)>,
    /// Up to where (a page boundary) `expected` was handed to `release`.
    released: u64,
}

/// The page size `release` works in ([`crate::fsio::Mapped::release`]).
const RELEASE_PAGE: u64 = 4096;

/// What a differing write left at its place until a later write covers it.
enum Pending {
    /// Its bytes.
    Bytes(Vec<u8>),
    /// This many zero bytes (a placeholder, such as an archive's catalog before it is known:
    /// kept as its length, not as megabytes of zeros).
    Zeros(u64),
}

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
        for (start, pending) in &self.pending {
            let exp = self.expected.get(*start as usize..).unwrap_or_default();
            let d = match pending {
                Pending::Bytes(bytes) => {
                    super::first_difference(&exp[..exp.len().min(bytes.len())], bytes)
                }
                Pending::Zeros(len) => {
                    let exp = &exp[..exp.len().min(*len as usize)];
                    match exp.iter().position(|&b| b != 0) {
                        Some(d) => Some(d),
                        None => (exp.len() as u64 != *len).then_some(exp.len()),
                    }
                }
            };
            if let Some(d) = d {
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
        // (what this write covers of a zero run is settled by this write's own comparison
        // below: the run keeps only its parts before and after it)
        let mut after = Vec::new();
        for (ps, pending) in &mut self.pending {
            match pending {
                Pending::Bytes(pb) => {
                    let pe = *ps + pb.len() as u64;
                    let (lo, hi) = (start.max(*ps), end.min(pe));
                    if lo < hi {
                        pb[(lo - *ps) as usize..(hi - *ps) as usize]
                            .copy_from_slice(&buf[(lo - start) as usize..(hi - start) as usize]);
                    }
                }
                Pending::Zeros(len) => {
                    let pe = *ps + *len;
                    let (lo, hi) = (start.max(*ps), end.min(pe));
                    if lo < hi {
                        if hi < pe {
                            after.push((hi, Pending::Zeros(pe - hi)));
                        }
                        *len = lo - *ps;
                    }
                }
            }
        }
        self.pending
            .retain(|(_, p)| !matches!(p, Pending::Zeros(0)));
        self.pending.extend(after);
        let exp = self
            .expected
            .get(start as usize..(end as usize).min(self.expected.len()))
            .unwrap_or_default();
        // (bytes that are the expected bytes themselves, e.g. an archive member written from
        // the mapped archive, are equal without being read: their pages are not faulted in)
        let same_memory = exp.len() == buf.len() && std::ptr::eq(exp.as_ptr(), buf.as_ptr());
        if !same_memory && exp != buf {
            let pending = if buf.iter().all(|&b| b == 0) {
                Pending::Zeros(buf.len() as u64)
            } else {
                Pending::Bytes(buf.to_vec())
            };
            self.pending.push((start, pending));
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

#[cfg(test)]
mod tests {
    use super::CompareSink;
    use std::io::{Seek, SeekFrom, Write};

    /// A zero placeholder (kept as its length) settled by the later writes over it, wholly or
    /// in part; what stays of it is compared as zeros.
    #[test]
    fn a_zero_placeholder_is_settled_by_the_writes_over_it() {
        let expected: Vec<u8> = (0..100u8).map(|b| b | 1).collect();
        let run = |over: &[(u64, usize, usize)]| {
            let mut s = CompareSink::new(&expected);
            s.write_all(&[0; 10]).unwrap();
            s.write_all(&[0; 80]).unwrap();
            s.write_all(&expected[90..]).unwrap();
            for &(at, from, to) in over {
                s.seek(SeekFrom::Start(at)).unwrap();
                s.write_all(&expected[from..to]).unwrap();
            }
            s.seek(SeekFrom::End(0)).unwrap();
            (s.first_difference(), s.written_len())
        };
        assert_eq!(run(&[]), (Some(0), 100));
        assert_eq!(run(&[(0, 0, 90)]), (None, 100));
        // covered in two writes, out of order, across the two placeholder writes
        assert_eq!(run(&[(40, 40, 90), (0, 0, 40)]), (None, 100));
        // a hole left in the middle of the second placeholder
        assert_eq!(run(&[(0, 0, 30), (55, 55, 90)]), (Some(30), 100));
        assert_eq!(
            run(&[(0, 0, 30), (30, 30, 50), (60, 60, 90)]),
            (Some(50), 100)
        );
        // zeros where zeros are expected are equal (nothing pending)
        let zeros = [0u8; 8];
        let mut s = CompareSink::new(&zeros);
        s.write_all(&[0; 8]).unwrap();
        assert_eq!(s.first_difference(), None);
        // a placeholder longer than what was expected: different from the expected end on
        let mut s = CompareSink::new(&expected[..5]);
        s.write_all(&[0; 8]).unwrap();
        s.seek(SeekFrom::Start(0)).unwrap();
        s.write_all(&expected[..5]).unwrap();
        assert_eq!(s.first_difference(), Some(5));
    }
}
