//! Writing an archive: the pieces streamed in order, offsets taken from the positions written,
//! the header and catalog last.

use super::{Entry, Header, Piece, PieceKind, Vdf, ENTRY_SIZE, HEADER_SIZE};
use crate::exact::{EncodeError, Writer};
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::{Seek, SeekFrom, Write};

impl Vdf<'_> {
    /// Write the archive (placed file offsets and the catalog offset follow the layout).
    pub fn write<W: Write + Seek>(&self, w: &mut W) -> Result<u64, EncodeError> {
        let mut header = self.header.clone();
        // (borrowed: copied only if an offset changes, so the write of an untouched archive
        // keeps no copy of its catalog)
        let mut entries = Cow::Borrowed(&self.entries[..]);
        // The pieces are borrowed bytes: nothing to produce, so no threads.
        write_pieces(
            w,
            &mut header,
            EntriesOut::Cow(&mut entries),
            Kinds::Layout(&self.layout),
            false,
            &|i| {
                Ok(Produced::bytes(
                    Cow::Borrowed(&self.layout[i].bytes[..]),
                    None,
                ))
            },
            &|| {},
            false,
        )
    }

    /// Recompute the offsets of placed files, the catalog offset and (with
    /// `recompute_data_size`) the header's data size from the layout, as writing would.
    pub fn relayout(&mut self, recompute_data_size: bool) -> Result<(), EncodeError> {
        let kinds: Vec<PieceKind> = self.layout.iter().map(|p| p.kind).collect();
        let mut sink = crate::exact::sink::CountingSink::default();
        let layout = &self.layout;
        write_archive_in_order(
            &mut sink,
            &mut self.header,
            self.entries.to_mut(),
            &kinds,
            recompute_data_size,
            &|i| Ok(Produced::bytes(Cow::Borrowed(&layout[i].bytes[..]), None)),
            &|| {},
        )?;
        let mut pos = HEADER_SIZE as u64;
        let n = self.entries.len();
        for p in &mut self.layout {
            p.offset = pos;
            pos += p.stored_len(n);
        }
        Ok(())
    }
}

/// A piece's contents from a producer: the stored bytes and, when they changed, the entry's
/// new (uncompressed) size.
pub struct Produced<'s> {
    pub bytes: Cow<'s, [u8]>,
    pub size: Option<u32>,
    /// Instead of `bytes`: this many bytes from the start of this open file, copied by the
    /// writer (inside the kernel where the system can, so they never pass through memory).
    pub file: Option<(std::fs::File, u64)>,
}

impl<'s> Produced<'s> {
    /// Stored bytes; `size` as in the struct.
    pub fn bytes(bytes: Cow<'s, [u8]>, size: Option<u32>) -> Self {
        Produced {
            bytes,
            size,
            file: None,
        }
    }
}

/// The catalog's placeholder is written from this buffer, a run at a time.
static ZEROS: [u8; 64 << 10] = [0; 64 << 10];

/// Catalog entries written at a time at the end.
const CATALOG_RUN: usize = 1024;

/// How many pieces are produced in parallel before they are written in order.
const WINDOW: usize = 32;

/// Whether [`write_archive`] produces an archive of `pieces` pieces on all cores (more than
/// one window of them).
pub fn produced_in_parallel(pieces: usize) -> bool {
    pieces > WINDOW
}

/// The producer of piece `i`'s contents, and the callback after each written piece.
type Produce<'p, 's> = &'p (dyn Fn(usize) -> Result<Produced<'s>, EncodeError> + Sync);
type OnPiece<'p> = &'p (dyn Fn() + Sync);

/// Write an archive: a header placeholder, then every piece in `kinds` order (contents from
/// `produce`, called on all cores in windows of a few pieces), then the header and catalog
/// with the offsets actually written. `on_piece` is called once per written piece.
///
/// An archive of at most one window's pieces is written as [`write_archive_in_order`] does:
/// a thread, a channel and a parallel loop cost more than producing a few pieces.
pub fn write_archive<'s, W: Write + Seek>(
    w: &mut W,
    header: &mut Header,
    entries: &mut [Entry],
    kinds: &[PieceKind],
    recompute_data_size: bool,
    produce: Produce<'_, 's>,
    on_piece: OnPiece<'_>,
) -> Result<u64, EncodeError> {
    let parallel = produced_in_parallel(kinds.len());
    write_pieces(
        w,
        header,
        EntriesOut::Slice(entries),
        Kinds::Slice(kinds),
        recompute_data_size,
        produce,
        on_piece,
        parallel,
    )
}

/// [`write_archive`] with every piece produced on this thread just before it is written: for
/// producers that only hand out bytes already in memory (a parsed archive, members in memory),
/// where threads would cost more than they save.
pub fn write_archive_in_order<'s, W: Write + Seek>(
    w: &mut W,
    header: &mut Header,
    entries: &mut [Entry],
    kinds: &[PieceKind],
    recompute_data_size: bool,
    produce: Produce<'_, 's>,
    on_piece: OnPiece<'_>,
) -> Result<u64, EncodeError> {
    write_pieces(
        w,
        header,
        EntriesOut::Slice(entries),
        Kinds::Slice(kinds),
        recompute_data_size,
        produce,
        on_piece,
        false,
    )
}

/// The catalog entries a write updates (offsets, sizes): changed in place, or copied on the
/// first change (an untouched archive is written without a copy of its catalog).
pub(crate) enum EntriesOut<'e, 'a> {
    Slice(&'e mut [Entry]),
    Cow(&'e mut Cow<'a, [Entry]>),
}

impl EntriesOut<'_, '_> {
    fn all(&self) -> &[Entry] {
        match self {
            EntriesOut::Slice(s) => s,
            EntriesOut::Cow(c) => c,
        }
    }
    /// Entry `i`'s offset and (when given) size set; `false` when there is no entry `i`.
    fn set(&mut self, i: usize, offset: u32, size: Option<u32>) -> bool {
        let Some(e) = self.all().get(i) else {
            return false;
        };
        if e.offset == offset && size.is_none_or(|s| s == e.size) {
            return true;
        }
        let e = match self {
            EntriesOut::Slice(s) => &mut s[i],
            EntriesOut::Cow(c) => &mut c.to_mut()[i],
        };
        e.offset = offset;
        if let Some(s) = size {
            e.size = s;
        }
        true
    }
}

/// The kind of each piece to write: a list, or a parsed archive's layout (read in place, not
/// copied into a list of 16 bytes a piece).
#[derive(Clone, Copy)]
pub(crate) enum Kinds<'k, 'a> {
    Slice(&'k [PieceKind]),
    Layout(&'k [Piece<'a>]),
}

impl Kinds<'_, '_> {
    fn len(&self) -> usize {
        match self {
            Kinds::Slice(s) => s.len(),
            Kinds::Layout(l) => l.len(),
        }
    }
    fn get(&self, k: usize) -> PieceKind {
        match self {
            Kinds::Slice(s) => s[k],
            Kinds::Layout(l) => l[k].kind,
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn write_pieces<'s, W: Write + Seek>(
    w: &mut W,
    header: &mut Header,
    entries: EntriesOut<'_, '_>,
    kinds: Kinds<'_, '_>,
    recompute_data_size: bool,
    produce: Produce<'_, 's>,
    on_piece: OnPiece<'_>,
    parallel: bool,
) -> Result<u64, EncodeError> {
    w.write_all(&[0u8; HEADER_SIZE]).map_err(io_err)?;
    let mut pieces = PieceWriter {
        pos: HEADER_SIZE as u64,
        catalog_at: None,
        entries,
    };
    if parallel {
        write_parallel(w, &mut pieces, kinds, produce, on_piece)?;
    } else {
        for k in 0..kinds.len() {
            let kind = kinds.get(k);
            let p = match kind {
                PieceKind::Catalog => None,
                _ => Some(produce(k)?),
            };
            pieces.put(w, k, kind, p)?;
            on_piece();
        }
    }
    let PieceWriter {
        pos: total,
        catalog_at,
        entries,
    } = pieces;
    finish(
        w,
        header,
        entries.all(),
        total,
        catalog_at,
        recompute_data_size,
    )
}

fn io_err(e: std::io::Error) -> EncodeError {
    EncodeError::new(format!("write failed: {e}"))
}

fn too_big() -> EncodeError {
    EncodeError::new("the archive would be larger than 4 GiB")
}

/// The write position and what writing the pieces learns: where the catalog goes and each
/// file's offset (and new size).
struct PieceWriter<'e, 'a> {
    pos: u64,
    catalog_at: Option<u64>,
    entries: EntriesOut<'e, 'a>,
}

impl PieceWriter<'_, '_> {
    /// Write piece `k` (its produced contents; `None` for the catalog, zeros until the end).
    fn put<W: Write>(
        &mut self,
        w: &mut W,
        k: usize,
        kind: PieceKind,
        produced: Option<Produced<'_>>,
    ) -> Result<(), EncodeError> {
        let n = self.entries.all().len();
        match (kind, produced) {
            (PieceKind::Catalog, _) => {
                if self.catalog_at.is_some() {
                    return Err(EncodeError::new("the layout has two catalogs"));
                }
                self.catalog_at = Some(self.pos);
                // (a run of a small buffer, not a catalog-sized one: 5.5 MB for 69,000 entries)
                let mut left = n * ENTRY_SIZE;
                while left > 0 {
                    let k = left.min(ZEROS.len());
                    w.write_all(&ZEROS[..k]).map_err(io_err)?;
                    left -= k;
                }
                self.pos += (n * ENTRY_SIZE) as u64;
            }
            (kind, Some(p)) => {
                let written = put_produced(w, p.bytes, p.file)?;
                if let PieceKind::File { entry, .. } = kind {
                    let at = u32::try_from(self.pos).map_err(|_| too_big())?;
                    if !self.entries.set(entry, at, p.size) {
                        return Err(EncodeError::new(format!(
                            "layout[{k}] names catalog entry {entry}, but the catalog has {n}"
                        )));
                    }
                }
                self.pos += written;
            }
            (_, None) => {}
        }
        Ok(())
    }
}

/// The pieces produced on all cores, a window at a time, while the window before is being
/// written (a bounded channel keeps at most two windows in memory).
fn write_parallel<'s, W: Write>(
    w: &mut W,
    pieces: &mut PieceWriter<'_, '_>,
    kinds: Kinds<'_, '_>,
    produce: Produce<'_, 's>,
    on_piece: OnPiece<'_>,
) -> Result<(), EncodeError> {
    type E = EncodeError;
    let windows: Vec<(usize, usize)> = (0..kinds.len())
        .step_by(WINDOW)
        .map(|s| (s, (s + WINDOW).min(kinds.len())))
        .collect();
    type Window<'s> = Vec<Result<Option<Produced<'s>>, EncodeError>>;
    let produce_window = |start: usize, end: usize| -> Window<'s> {
        (start..end)
            .into_par_iter()
            .map(|i| match kinds.get(i) {
                PieceKind::Catalog => Ok(None),
                _ => produce(i).map(Some),
            })
            .collect()
    };
    let mut write_window = |start: usize, end: usize, produced: Window<'s>| -> Result<(), E> {
        for (k, p) in (start..end).zip(produced) {
            pieces.put(w, k, kinds.get(k), p?)?;
            on_piece();
        }
        Ok(())
    };
    if rayon::current_thread_index().is_some() {
        // Called from a task of the thread pool (verify of many archives): waiting here for a
        // producer whose work needs the same pool could block every worker, so each window is
        // produced (still in parallel) and then written, without overlap.
        windows
            .iter()
            .try_for_each(|&(start, end)| write_window(start, end, produce_window(start, end)))
    } else {
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Window<'s>>(1);
            let windows = &windows;
            let produce_window = &produce_window;
            scope.spawn(move || {
                for &(start, end) in windows {
                    let produced = produce_window(start, end);
                    let failed = produced.iter().any(Result::is_err);
                    if tx.send(produced).is_err() || failed {
                        return;
                    }
                }
            });
            for &(start, end) in windows {
                let produced = rx
                    .recv()
                    .map_err(|_| EncodeError::new("internal: the piece producer stopped"))?;
                write_window(start, end, produced)?;
            }
            Ok(())
        })
    }
}

/// The header and catalog, written last with the offsets the pieces got.
fn finish<W: Write + Seek>(
    w: &mut W,
    header: &mut Header,
    entries: &[Entry],
    total: u64,
    catalog_at: Option<u64>,
    recompute_data_size: bool,
) -> Result<u64, EncodeError> {
    let n = entries.len();
    u32::try_from(total).map_err(|_| too_big())?;
    let cat = catalog_at.ok_or_else(|| EncodeError::new("the layout has no catalog"))?;
    if !(header.catalog_offset == 0 && cat == HEADER_SIZE as u64) {
        header.catalog_offset = cat as u32;
    }
    if recompute_data_size {
        header.data_size = u32::try_from(Vdf::sum_of_sizes(entries)).map_err(|_| too_big())?;
    }
    let mut head = Vec::with_capacity(HEADER_SIZE);
    head.put_plain(&*header);
    w.seek(SeekFrom::Start(0)).map_err(io_err)?;
    w.write_all(&head).map_err(io_err)?;
    w.seek(SeekFrom::Start(cat)).map_err(io_err)?;
    // A run of entries at a time (the same bytes; no catalog-sized buffer).
    let mut cat_bytes = Vec::with_capacity(n.min(CATALOG_RUN) * ENTRY_SIZE);
    for run in entries.chunks(CATALOG_RUN) {
        cat_bytes.clear();
        for e in run {
            cat_bytes.put_plain(e);
        }
        w.write_all(&cat_bytes).map_err(io_err)?;
    }
    w.seek(SeekFrom::Start(total)).map_err(io_err)?;
    w.flush().map_err(io_err)?;
    Ok(total)
}

/// Write a produced piece (its bytes, or its file's first bytes); returns the length written.
fn put_produced<W: Write>(
    w: &mut W,
    bytes: Cow<'_, [u8]>,
    file: Option<(std::fs::File, u64)>,
) -> Result<u64, EncodeError> {
    let io = io_err;
    match file {
        None => {
            w.write_all(&bytes).map_err(io)?;
            Ok(bytes.len() as u64)
        }
        Some((f, len)) => {
            use std::io::Read;
            let copied = std::io::copy(&mut (&f).take(len), w).map_err(io)?;
            if copied != len {
                return Err(EncodeError::new(format!(
                    "a file shrank from {len} to {copied} bytes while it was being packed"
                )));
            }
            Ok(len)
        }
    }
}

/// A `Write + Seek` target over a growable buffer, for whole archives written to memory.
/// Bytes appended at the end are copied straight into the buffer's spare room (no zero-fill
/// first); with `streaming`, large appends use stores that bypass the caches, as `memcpy`
/// itself does for copies larger than the cache: an archive of many megabytes is not read
/// back soon, and the usual copy first reads every destination line it then overwrites.
pub struct VecTarget<'v> {
    out: &'v mut Vec<u8>,
    /// Where the target starts in `out` (positions and seeks count from here).
    base: usize,
    pos: usize,
    streaming: bool,
}

/// From this many bytes an archive is written to memory with streaming stores
/// ([`VecTarget::for_archive`]); below, the archive fits the caches and plain copies win.
pub const STREAMING_FROM: usize = 8 << 20;

impl<'v> VecTarget<'v> {
    /// Writes after the bytes `out` holds (they stay; position 0 is their end), with
    /// streaming stores when `streaming`.
    pub fn new(out: &'v mut Vec<u8>, streaming: bool) -> Self {
        let base = out.len();
        VecTarget {
            out,
            base,
            pos: base,
            streaming,
        }
    }

    /// For an archive of about `expected` bytes: room reserved once, streaming stores from
    /// [`STREAMING_FROM`] bytes on.
    pub fn for_archive(out: &'v mut Vec<u8>, expected: usize) -> Self {
        // a hint: a size memory cannot hold is left to grow (and fail) as the writes come
        let _ = out.try_reserve(expected);
        Self::new(out, expected >= STREAMING_FROM)
    }
}

impl Write for VecTarget<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let end = self
            .pos
            .checked_add(buf.len())
            .ok_or_else(|| std::io::Error::other("position overflow"))?;
        if self.pos > self.out.len() {
            // after a seek past the end, as a file (and `Cursor`): zeros up to the position
            self.out.resize(self.pos, 0);
        }
        if self.pos == self.out.len() {
            self.out.reserve(buf.len());
            let room = &mut self.out.spare_capacity_mut()[..buf.len()];
            if self.streaming && buf.len() >= STREAM_PIECE_FROM {
                copy_streaming(room, buf);
            } else {
                // SAFETY: `room` holds `buf.len()` bytes and is not part of `buf`.
                unsafe {
                    std::ptr::copy_nonoverlapping(buf.as_ptr(), room.as_mut_ptr().cast(), buf.len())
                };
            }
            // SAFETY: the first `buf.len()` bytes of the spare room were just written.
            unsafe { self.out.set_len(end) };
        } else {
            let inside = (self.out.len() - self.pos).min(buf.len());
            self.out[self.pos..self.pos + inside].copy_from_slice(&buf[..inside]);
            self.out.extend_from_slice(&buf[inside..]);
        }
        self.pos = end;
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Seek for VecTarget<'_> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let (len, pos) = (self.out.len() - self.base, self.pos - self.base);
        let to = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => (len as u64).checked_add_signed(d),
            SeekFrom::Current(d) => (pos as u64).checked_add_signed(d),
        };
        let p = to
            .and_then(|p| usize::try_from(p).ok())
            .and_then(|p| p.checked_add(self.base))
            .ok_or_else(|| std::io::Error::other("seek outside the buffer's range"))?;
        self.pos = p;
        Ok((p - self.base) as u64)
    }
}

/// Pieces shorter than this are copied plainly even when streaming (the fence after a
/// streaming copy and its unaligned ends cost more than they save on a few lines).
const STREAM_PIECE_FROM: usize = 4096;

/// Copy `src` into `dst[..src.len()]` with non-temporal stores where the CPU has them.
/// Hand-written because speed demands it: the plain copy of a 100 MB archive reads each
/// destination line before overwriting it (tested against the plain copy in `tests.rs`).
pub(crate) fn copy_streaming(dst: &mut [std::mem::MaybeUninit<u8>], src: &[u8]) {
    assert!(dst.len() >= src.len());
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above); lengths checked above.
            unsafe { stream_x86::copy_avx512(dst.as_mut_ptr().cast(), src) };
        } else {
            // SAFETY: SSE2 is part of x86_64; lengths checked above.
            unsafe { stream_x86::copy_sse2(dst.as_mut_ptr().cast(), src) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (d, &s) in dst.iter_mut().zip(src) {
        d.write(s);
    }
}

#[cfg(target_arch = "x86_64")]
mod stream_x86 {
    use std::arch::x86_64::*;
    use std::ptr::copy_nonoverlapping;

    /// Bytes up to the next `align`-byte boundary of `p`, at most `n`.
    fn head(p: *mut u8, align: usize, n: usize) -> usize {
        (p.align_offset(align)).min(n)
    }

    /// # Safety
    /// `dst` is valid for `src.len()` bytes of writes and does not overlap `src`; AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn copy_avx512(dst: *mut u8, src: &[u8]) {
        let n = src.len();
        let s = src.as_ptr();
        let h = head(dst, 64, n);
        copy_nonoverlapping(s, dst, h);
        let mut i = h;
        while i + 64 <= n {
            let v = _mm512_loadu_si512(s.add(i).cast());
            _mm512_stream_si512(dst.add(i).cast(), v);
            i += 64;
        }
        copy_nonoverlapping(s.add(i), dst.add(i), n - i);
        _mm_sfence();
    }

    /// # Safety
    /// `dst` is valid for `src.len()` bytes of writes and does not overlap `src`.
    pub unsafe fn copy_sse2(dst: *mut u8, src: &[u8]) {
        let n = src.len();
        let s = src.as_ptr();
        let h = head(dst, 16, n);
        copy_nonoverlapping(s, dst, h);
        let mut i = h;
        while i + 16 <= n {
            let v = _mm_loadu_si128(s.add(i).cast());
            _mm_stream_si128(dst.add(i).cast(), v);
            i += 16;
        }
        copy_nonoverlapping(s.add(i), dst.add(i), n - i);
        _mm_sfence();
    }
}
