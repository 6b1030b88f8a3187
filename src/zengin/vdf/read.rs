//! Reading an archive: header, catalog, and the layout of everything after the header (the
//! catalog, each file's stored bytes, the gaps), borrowed from the input.

use super::{
    zipped, Entry, Header, Piece, PieceKind, Vdf, ENTRY_SIZE, HEADER_SIZE, SIGNATURE_GOTHIC1,
    SIGNATURE_GOTHIC2, SIGNATURE_PREFIX, SIGNATURE_VDFS_TOOL, VOLUME_NORMAL, VOLUME_ZIPPED,
};
use crate::exact::{Cursor, DecodeError, Within};
use std::borrow::Cow;

impl<'a> Vdf<'a> {
    /// Parse an archive, borrowing every piece from `src`.
    pub fn parse(src: &'a [u8]) -> Result<Self, DecodeError> {
        let mut warnings = Vec::new();
        let header = read_header(src, &mut warnings)?;
        let (entries, catalog) = read_catalog(src, &header)?;
        let ranges = file_ranges(src, &header, &entries, catalog, &mut warnings)?;
        let layout = lay_out(src, &entries, ranges, &mut warnings);
        Ok(Vdf {
            header,
            entries,
            layout,
            warnings,
        })
    }
}

/// The header, checked: a VDF signature and a catalog offset inside the file (an unusual
/// signature or volume value is a warning).
fn read_header(src: &[u8], warnings: &mut Vec<String>) -> Result<Header, DecodeError> {
    let mut cur = Cursor::new(src, 0);
    let header = cur.read::<Header>().within("header")?;
    if !header.signature.starts_with(SIGNATURE_PREFIX) {
        return Err(DecodeError::invalid(
            256,
            format!(
                "not a VDF archive: signature {:?} does not start with PSVDSC_V2.00",
                crate::exact::text::decode_cp1252(&header.signature)
            ),
        ))
        .within("signature")
        .within("header");
    }
    if ![SIGNATURE_GOTHIC1, SIGNATURE_GOTHIC2, SIGNATURE_VDFS_TOOL].contains(&&header.signature) {
        warnings.push(format!(
            "unusual signature {:?}; the game may refuse the archive",
            crate::exact::text::decode_cp1252(&header.signature)
        ));
    }
    if header.volume != VOLUME_NORMAL && header.volume != VOLUME_ZIPPED {
        warnings.push(format!(
            "unknown volume value 0x{:x} (normal is 0x50, compressed 0xA0); read as uncompressed",
            header.volume
        ));
    }
    let cat = header.catalog_start();
    if cat < HEADER_SIZE as u64 {
        return Err(DecodeError::invalid(
            288,
            format!("catalog offset {cat} lies inside the 296-byte header"),
        ))
        .within("catalog_offset")
        .within("header");
    }
    if cat > src.len() as u64 {
        return Err(DecodeError::invalid(
            288,
            format!(
                "catalog offset {cat} is past the end of the archive ({} bytes)",
                src.len()
            ),
        ))
        .within("catalog_offset")
        .within("header");
    }
    Ok(header)
}

/// The catalog's entries, and the byte range the catalog occupies.
fn read_catalog<'a>(
    src: &'a [u8],
    header: &Header,
) -> Result<(Cow<'a, [Entry]>, Range), DecodeError> {
    let cat = header.catalog_start();
    let cur = Cursor::new(&src[cat as usize..], cat);
    let count = cur
        .check_count(header.entry_count.into(), ENTRY_SIZE)
        .map_err(|e| {
            DecodeError::invalid(
                272,
                format!(
                    "the catalog at {cat} cannot hold {} entries: {}",
                    header.entry_count, e.kind
                ),
            )
        })
        .within("entry_count")
        .within("header")?;
    // (the count is checked against the bytes left: the catalog lies whole in `src`)
    let entries = super::entries_in(&src[cat as usize..][..count * ENTRY_SIZE], count);
    let range = Range {
        start: cat,
        end: cat + (count * ENTRY_SIZE) as u64,
        entry: CATALOG,
        zipped: false,
    };
    Ok((entries, range))
}

/// A candidate piece: the catalog, or a file's stored bytes (24 bytes a member while the
/// archive is read).
struct Range {
    start: u64,
    end: u64,
    /// The file's catalog entry; [`CATALOG`] for the catalog.
    entry: u32,
    zipped: bool,
}

/// [`Range::entry`] of the catalog (an entry index is below the header's u32 count).
const CATALOG: u32 = u32::MAX;

impl Range {
    fn kind(&self) -> PieceKind {
        match self.entry {
            CATALOG => PieceKind::Catalog,
            entry => PieceKind::File {
                entry: entry as usize,
                zipped: self.zipped,
            },
        }
    }
}

/// The catalog's range and every file's stored range that lies off the catalog (the others are
/// unplaced, with a warning). A file whose data runs past the end of the archive is an error
/// (the archive was cut short, or the entry is damaged): every command refuses the archive
/// rather than quietly losing the member.
fn file_ranges(
    src: &[u8],
    header: &Header,
    entries: &[Entry],
    catalog: Range,
    warnings: &mut Vec<String>,
) -> Result<Vec<Range>, DecodeError> {
    let (cat, cat_end) = (catalog.start, catalog.end);
    // (room made once for the catalog and every file: grown by doubling, the vector held up
    // to three times its 24 bytes a member while it moved, and the allocator keeps that)
    let files = entries.iter().filter(|e| !e.is_dir()).count();
    let mut ranges = Vec::with_capacity(1 + files);
    ranges.push(catalog);
    let len = src.len() as u64;
    for (i, e) in entries.iter().enumerate() {
        if e.is_dir() {
            continue;
        }
        let start = u64::from(e.offset);
        let mut zipped = false;
        let mut end = start + u64::from(e.size);
        // An empty file has no stream (probing would find the next file's).
        if header.zipped() && start < len && e.size > 0 {
            if let Some(info) = zipped::probe(&src[start as usize..]) {
                zipped = true;
                end = start + info.stored_len;
            }
        }
        let hits_catalog = if start == end {
            start > cat && start < cat_end
        } else {
            start < cat_end && end > cat
        };
        if hits_catalog && end <= len {
            warnings.push(format!(
                "catalog[{i}] {}: data at {start}..{end} overlaps the catalog; kept as stored (unplaced)",
                e.display_name()
            ));
            continue;
        }
        if end > len {
            let what = if zipped { "compressed stream" } else { "data" };
            return Err(DecodeError::invalid(
                cat + (i * ENTRY_SIZE) as u64 + 64,
                format!(
                    "member {}: its {what} at {start}..{end} runs past the end of the archive ({len} bytes): the archive is cut short or the entry is damaged",
                    e.display_name()
                ),
            ))
            .within("offset")
            .within_index(i)
            .within("catalog");
        }
        ranges.push(Range {
            start,
            end,
            // (below the header's u32 count)
            entry: i as u32,
            zipped,
        });
    }
    Ok(ranges)
}

/// The layout: the ranges in file order (one that overlaps an earlier one is unplaced, with a
/// warning), with the bytes between and after them as gaps.
fn lay_out<'a>(
    src: &'a [u8],
    entries: &[Entry],
    mut ranges: Vec<Range>,
    warnings: &mut Vec<String>,
) -> Vec<Piece<'a>> {
    // The catalog first among equal starts, then catalog order (the keys are distinct: sorted
    // in place, without the buffer of half the ranges a stable sort takes).
    ranges.sort_unstable_by_key(|c| (c.start, c.entry.wrapping_add(1)));
    let len = src.len() as u64;
    // The exact count first (a piece per member: room for twice as many was 3.3 MB unused at
    // 69,000 members).
    let mut count = 0;
    let mut pos = HEADER_SIZE as u64;
    for c in &ranges {
        if c.start >= pos {
            count += 1 + usize::from(c.start > pos);
            pos = c.end;
        }
    }
    count += usize::from(pos < len);
    let mut layout = Vec::with_capacity(count);
    let mut pos = HEADER_SIZE as u64;
    for c in ranges {
        if c.start < pos {
            let PieceKind::File { entry, .. } = c.kind() else {
                continue;
            };
            warnings.push(format!(
                "catalog[{entry}] {}: data at {}..{} overlaps other data or the header; kept as stored (unplaced)",
                entries[entry].display_name(),
                c.start,
                c.end
            ));
            continue;
        }
        if c.start > pos {
            layout.push(Piece {
                kind: PieceKind::Gap,
                offset: pos,
                bytes: Cow::Borrowed(&src[pos as usize..c.start as usize]),
            });
        }
        let bytes = match c.kind() {
            PieceKind::Catalog => Cow::Borrowed(&[][..]),
            _ => Cow::Borrowed(&src[c.start as usize..c.end as usize]),
        };
        layout.push(Piece {
            kind: c.kind(),
            offset: c.start,
            bytes,
        });
        pos = c.end;
    }
    if pos < len {
        layout.push(Piece {
            kind: PieceKind::Gap,
            offset: pos,
            bytes: Cow::Borrowed(&src[pos as usize..]),
        });
    }
    layout
}
