//! Writing an archive: the pieces streamed in order, offsets taken from the positions written,
//! the header and catalog last.

use super::{Entry, Header, PieceKind, Vdf, ENTRY_SIZE, HEADER_SIZE};
use crate::exact::EncodeError;
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::{Seek, SeekFrom, Write};

impl Vdf<'_> {
    /// Write the archive (placed file offsets and the catalog offset follow the layout).
    pub fn write<W: Write + Seek>(&self, w: &mut W) -> Result<u64, EncodeError> {
        let mut header = self.header.clone();
        let mut entries = self.entries.clone();
        let kinds: Vec<PieceKind> = self.layout.iter().map(|p| p.kind).collect();
        // The pieces are borrowed bytes: nothing to produce, so no threads.
        write_archive_in_order(
            w,
            &mut header,
            &mut entries,
            &kinds,
            false,
            &|i| {
                Ok(Produced::bytes(
                    Cow::Borrowed(&self.layout[i].bytes[..]),
                    None,
                ))
            },
            &|| {},
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
            &mut self.entries,
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
        entries,
        kinds,
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
        entries,
        kinds,
        recompute_data_size,
        produce,
        on_piece,
        false,
    )
}

#[allow(clippy::too_many_arguments)]
fn write_pieces<'s, W: Write + Seek>(
    w: &mut W,
    header: &mut Header,
    entries: &mut [Entry],
    kinds: &[PieceKind],
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
        for (k, &kind) in kinds.iter().enumerate() {
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
    finish(w, header, entries, total, catalog_at, recompute_data_size)
}

fn io_err(e: std::io::Error) -> EncodeError {
    EncodeError::new(format!("write failed: {e}"))
}

fn too_big() -> EncodeError {
    EncodeError::new("the archive would be larger than 4 GiB")
}

/// The write position and what writing the pieces learns: where the catalog goes and each
/// file's offset (and new size).
struct PieceWriter<'e> {
    pos: u64,
    catalog_at: Option<u64>,
    entries: &'e mut [Entry],
}

impl PieceWriter<'_> {
    /// Write piece `k` (its produced contents; `None` for the catalog, zeros until the end).
    fn put<W: Write>(
        &mut self,
        w: &mut W,
        k: usize,
        kind: PieceKind,
        produced: Option<Produced<'_>>,
    ) -> Result<(), EncodeError> {
        let n = self.entries.len();
        match (kind, produced) {
            (PieceKind::Catalog, _) => {
                if self.catalog_at.is_some() {
                    return Err(EncodeError::new("the layout has two catalogs"));
                }
                self.catalog_at = Some(self.pos);
                let zeros = vec![0u8; n * ENTRY_SIZE];
                w.write_all(&zeros).map_err(io_err)?;
                self.pos += zeros.len() as u64;
            }
            (kind, Some(p)) => {
                let written = put_produced(w, p.bytes, p.file)?;
                if let PieceKind::File { entry, .. } = kind {
                    let e = self.entries.get_mut(entry).ok_or_else(|| {
                        EncodeError::new(format!(
                            "layout[{k}] names catalog entry {entry}, but the catalog has {n}"
                        ))
                    })?;
                    e.offset = u32::try_from(self.pos).map_err(|_| too_big())?;
                    if let Some(s) = p.size {
                        e.size = s;
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
    pieces: &mut PieceWriter<'_>,
    kinds: &[PieceKind],
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
            .map(|i| match kinds[i] {
                PieceKind::Catalog => Ok(None),
                _ => produce(i).map(Some),
            })
            .collect()
    };
    let mut write_window = |start: usize, end: usize, produced: Window<'s>| -> Result<(), E> {
        for (k, p) in (start..end).zip(produced) {
            pieces.put(w, k, kinds[k], p?)?;
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
    entries: &mut [Entry],
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
    header.put(&mut head);
    w.seek(SeekFrom::Start(0)).map_err(io_err)?;
    w.write_all(&head).map_err(io_err)?;
    let mut cat_bytes = Vec::with_capacity(n * ENTRY_SIZE);
    for e in entries.iter() {
        e.put(&mut cat_bytes);
    }
    w.seek(SeekFrom::Start(cat)).map_err(io_err)?;
    w.write_all(&cat_bytes).map_err(io_err)?;
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
