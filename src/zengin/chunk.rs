//! The binary chunked container (`zCFileBIN`): a flat list of `u16 id, u32 length, payload`.

use crate::exact::{
    Blob, Cursor, DecodeError, EncodeError, FieldPath, Hex32, Record, Segment, Within, Writer,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub const HEADER_SIZE: usize = 6;

crate::record! {
    /// The header of every chunk: the one declaration of its layout. [`put_chunk`] patches
    /// `length` in place; a test ties that to this record.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct ChunkHeader: little plain {
        pub id: u16,
        pub length: u32,
    }
}

const _: () = assert!(<ChunkHeader as Record>::SIZE == HEADER_SIZE);

/// One chunk as found in the file.
#[derive(Debug, Clone, Copy)]
pub struct RawChunk<'a> {
    pub id: u16,
    /// Absolute offset of the chunk header.
    pub offset: u64,
    pub payload: &'a [u8],
}

impl<'a> RawChunk<'a> {
    /// A cursor over the payload that reports absolute file offsets.
    pub fn cursor(&self) -> Cursor<'a> {
        Cursor::new(self.payload, self.offset + HEADER_SIZE as u64)
    }
}

/// The chunks of a file in file order, one at a time (no list is built); cloning it gives a
/// look-ahead. After an error it yields nothing more.
#[derive(Debug, Clone)]
pub struct Chunks<'a> {
    data: &'a [u8],
    pos: usize,
    index: usize,
    /// Header offset of the last chunk read (for the report of a damaged chunk after it).
    last: Option<usize>,
}

impl<'a> Chunks<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Chunks {
            data,
            pos: 0,
            index: 0,
            last: None,
        }
    }

    /// Index of the next chunk.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Bytes not yet walked.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// The error for a damaged chunk at `self.pos`, reported through a cursor so that offsets
    /// and messages are the same as for every other field; stops the iteration.
    #[cold]
    fn damaged(&mut self) -> DecodeError {
        let mut cur = Cursor::new(self.data, 0);
        let index = self.index;
        let at = |mut e: DecodeError, field: &'static str| {
            for seg in [
                Segment::Field(field),
                Segment::Index(index),
                Segment::Field("chunks"),
            ] {
                e.path.prefix(seg);
            }
            e
        };
        if cur.bytes(self.pos).is_err() {
            return at(cur.invalid("chunk position past the end"), "header");
        }
        // The damage may be the previous chunk's: a string lengthened without fixing its length
        // leaves the next "header" inside the string's tail. Name that chunk and the cause.
        if let Some(prev) = self.last {
            if let Some(fix) = overrun_at(self.data, prev, self.pos) {
                self.pos = self.data.len();
                let mut cur = Cursor::new(self.data, 0);
                let _ = cur.bytes(prev + 2);
                let mut e = cur.invalid(format!(
                    "chunk 0x{:04X} at byte offset {prev}: its fields take {} bytes but its \
                     length says {}: a string edited without fixing the length? (`animkit \
                     repair` writes the file with lengths that agree)",
                    fix.id, fix.new_length, fix.old_length
                ));
                e.path = FieldPath::new()
                    .field("chunks")
                    .index(index - 1)
                    .field("length");
                return e;
            }
        }
        self.pos = self.data.len();
        let header = match cur.read::<ChunkHeader>() {
            Ok(h) => h,
            Err(e) => return at(e, "header"),
        };
        at(
            cur.invalid(format!(
                "chunk 0x{:04X} claims {} payload bytes but only {} are left in the file",
                header.id,
                header.length,
                cur.remaining()
            )),
            "length",
        )
    }
}

impl<'a> Iterator for Chunks<'a> {
    type Item = Result<RawChunk<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let pos = self.pos;
        if pos >= self.data.len() {
            return None;
        }
        // The header's one-copy reader: this runs once per chunk.
        if let Some(h) = self
            .data
            .get(pos..pos + HEADER_SIZE)
            .and_then(ChunkHeader::load)
        {
            let (id, length) = (h.id, h.length as usize);
            let start = pos + HEADER_SIZE;
            if let Some(payload) = start
                .checked_add(length)
                .and_then(|end| self.data.get(start..end))
            {
                self.pos = start + length;
                self.index += 1;
                self.last = Some(pos);
                return Some(Ok(RawChunk {
                    id,
                    offset: pos as u64,
                    payload,
                }));
            }
        }
        Some(Err(self.damaged()))
    }
}

/// A chunk whose length field is less than what its fields take (see [`overrun_at`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LengthFix {
    /// Offset of the chunk's header.
    pub offset: usize,
    pub id: u16,
    pub old_length: u32,
    pub new_length: u32,
}

/// How far past its stated end an edited chunk's content may run (a name lengthened by hand).
const MAX_OVERRUN: usize = 256;

/// At most this many chunks of one file are taken to overrun their lengths.
const MAX_FIXES: u32 = 3;

/// The end of the chunk whose header is at `pos`, when its header and payload fit in `data`.
fn chunk_end(data: &[u8], pos: usize) -> Option<usize> {
    let h = data.get(pos..pos + HEADER_SIZE)?;
    let length = u32::from_le_bytes([h[2], h[3], h[4], h[5]]) as usize;
    let end = (pos + HEADER_SIZE).checked_add(length)?;
    (end <= data.len()).then_some(end)
}

/// The length fixes (at most `budget`) that make the chunks from `pos` walk to exactly the
/// end of `data`; `last` is the header offset of the chunk before `pos`.
fn plan_from(
    data: &[u8],
    mut pos: usize,
    mut last: Option<usize>,
    budget: u32,
) -> Option<Vec<LengthFix>> {
    loop {
        if pos == data.len() {
            return Some(Vec::new());
        }
        match chunk_end(data, pos) {
            Some(end) => {
                last = Some(pos);
                pos = end;
            }
            None => {
                let prev = last?;
                if budget == 0 {
                    return None;
                }
                return overrun_plan(data, prev, pos, budget);
            }
        }
    }
}

/// The chunk at `prev` runs past its stated end `bad`: the smallest overrun from which the
/// rest walks (with at most `budget - 1` more fixes). The chunks a hand edit lengthens end with
/// a string (ZenGin strings end with a line feed), so overruns ending after a `\n` are tried
/// first.
fn overrun_plan(data: &[u8], prev: usize, bad: usize, budget: u32) -> Option<Vec<LengthFix>> {
    let h = data.get(prev..prev + HEADER_SIZE)?;
    let id = u16::from_le_bytes([h[0], h[1]]);
    let old_length = u32::from_le_bytes([h[2], h[3], h[4], h[5]]);
    // (a chunk header must follow: a chunk that swallows the rest of the file is no fix)
    let max = MAX_OVERRUN.min(data.len().saturating_sub(bad + HEADER_SIZE));
    for after_newline in [true, false] {
        for k in 1..=max {
            if (data[bad + k - 1] == b'\n') != after_newline {
                continue;
            }
            if let Some(rest) = plan_from(data, bad + k, None, budget - 1) {
                let fix = LengthFix {
                    offset: prev,
                    id,
                    old_length,
                    new_length: old_length.checked_add(k as u32)?,
                };
                return Some([vec![fix], rest].concat());
            }
        }
    }
    None
}

/// The first fix when the chunk at `prev` (whose stated end is `bad`, where no chunk header
/// fits) runs further: see [`length_fixes`].
pub fn overrun_at(data: &[u8], prev: usize, bad: usize) -> Option<LengthFix> {
    overrun_plan(data, prev, bad, MAX_FIXES).and_then(|p| p.first().copied())
}

/// The chunks whose length fields are shorter than their content (names lengthened by hand
/// without fixing the length), in file order: each the smallest overrun (after a string's
/// line feed first) from which the rest walks to the end of the file. Empty when every chunk
/// walks; `None` when the file is damaged some other way.
pub fn length_fixes(data: &[u8]) -> Option<Vec<LengthFix>> {
    plan_from(data, 0, None, MAX_FIXES)
}

/// `data` with the [`length_fixes`] applied (the same bytes, the length fields patched).
pub fn apply_length_fixes(data: &[u8], fixes: &[LengthFix]) -> Vec<u8> {
    let mut out = data.to_vec();
    for f in fixes {
        out[f.offset + 2..f.offset + 6].copy_from_slice(&f.new_length.to_le_bytes());
    }
    out
}

/// [`Codec::repair`](crate::codec::Codec::repair) for a chunked file: the length fields
/// made to agree with the content ([`length_fixes`]); `None` when nothing needs it or the
/// damage is of another kind.
pub fn repair_lengths(data: &[u8]) -> Option<crate::codec::Repaired> {
    let fixes = length_fixes(data)?;
    if fixes.is_empty() {
        return None;
    }
    let changes = fixes
        .iter()
        .map(|f| {
            format!(
                "chunk 0x{:04X} at byte offset {}: length {} → {} (its fields take {} bytes)",
                f.id, f.offset, f.old_length, f.new_length, f.new_length
            )
        })
        .collect();
    Some(crate::codec::Repaired {
        bytes: apply_length_fixes(data, &fixes),
        changes,
    })
}

/// Split a file into its chunks, in file order. Fails on a truncated header or a length that
/// runs past the end of the data.
pub fn walk(data: &[u8]) -> Result<Vec<RawChunk<'_>>, DecodeError> {
    Chunks::new(data).collect()
}

/// Decode every chunk of `data` in file order with `read`, which gets all raw chunks and the
/// index of the one to decode (a chunk may need another, as MAN samples need the header).
pub fn read_chunks<'a, C>(
    data: &'a [u8],
    mut read: impl FnMut(&[RawChunk<'a>], usize) -> Result<C, DecodeError>,
) -> Result<Vec<C>, DecodeError> {
    let raw = walk(data)?;
    (0..raw.len()).map(|i| read(&raw, i)).collect()
}

/// Write one chunk: the header, then whatever `body` appends; the length is patched after.
pub fn put_chunk(
    out: &mut Vec<u8>,
    id: u16,
    body: impl FnOnce(&mut Vec<u8>) -> Result<(), EncodeError>,
) -> Result<(), EncodeError> {
    let start = out.len();
    out.put(&ChunkHeader { id, length: 0 })?;
    body(out)?;
    let len = out.len() - start - HEADER_SIZE;
    let len = u32::try_from(len)
        .map_err(|_| EncodeError::new(format!("chunk 0x{id:04X} is larger than 4 GiB")))?;
    out[start + 2..start + 6].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// A decoded chunk of a chunked file: its id, its kind's name and how to write its payload.
pub trait ChunkBody {
    fn id(&self) -> u16;
    fn kind(&self) -> &'static str;
    fn put_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError>;
}

/// `A000 marker, A020 header, ...`: the chunks of a file for `info`.
pub fn summary<C: ChunkBody>(chunks: &[C]) -> String {
    chunks
        .iter()
        .map(|c| format!("{:04X} {}", c.id(), c.kind()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Write `chunks` in order, each with its header; an error names `chunks[i]`.
pub fn put_chunks<C: ChunkBody>(out: &mut Vec<u8>, chunks: &[C]) -> Result<(), EncodeError> {
    for (i, c) in chunks.iter().enumerate() {
        put_chunk(out, c.id(), |o| c.put_payload(o))
            .within_index(i)
            .within("chunks")?;
    }
    Ok(())
}

/// A chunk animkit does not interpret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unknown {
    pub id: Hex16,
    pub data: Blob,
}

impl Unknown {
    /// A chunk kept as it is.
    pub fn of(raw: &RawChunk<'_>) -> Unknown {
        Unknown {
            id: Hex16(raw.id),
            data: Blob::new(raw.payload),
        }
    }
}

/// A chunk id shown as `0xA0FF`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hex16(pub u16);

impl Serialize for Hex16 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(crate::yaml::RAW_SCALAR, &format!("0x{:04X}", self.0))
    }
}

impl<'de> Deserialize<'de> for Hex16 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Hex32::deserialize(d)?;
        u16::try_from(v.0)
            .map(Hex16)
            .map_err(|_| serde::de::Error::custom(format!("chunk id {v} is larger than 0xFFFF")))
    }
}

impl JsonSchema for Hex16 {
    fn schema_name() -> String {
        "ChunkId".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "description": "16-bit chunk id, 0x-prefixed hex or decimal",
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": 65535},
                {"type": "string", "pattern": "^0[xX][0-9a-fA-F]{1,4}$"}
            ]
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_table_both_ways() {
        let table: [(ChunkHeader, [u8; 6]); 2] = [
            (
                ChunkHeader {
                    id: 0xA000,
                    length: 0,
                },
                [0x00, 0xA0, 0, 0, 0, 0],
            ),
            (
                ChunkHeader {
                    id: 0xA090,
                    length: 6104,
                },
                [0x90, 0xA0, 0xD8, 0x17, 0, 0],
            ),
        ];
        let table = table.map(|(v, b)| (v, hex::encode(b)));
        let table: Vec<_> = table.iter().map(|(v, b)| (*v, b.as_str())).collect();
        crate::exact::record::both_ways(&table);
    }

    #[test]
    fn walk_reports_lengths_past_the_end() {
        let data = [0x00, 0xA0, 0, 0, 0, 0, 0x20, 0xA0, 9, 0, 0, 0, 1, 2];
        let err = walk(&data).unwrap_err();
        assert_eq!(err.offset, 12);
        assert_eq!(err.path.to_string(), "chunks[1].length");
        let err = walk(&data[..9]).unwrap_err();
        assert_eq!(err.offset, 8);
        assert_eq!(err.path.to_string(), "chunks[1].header.length");
        // one at a time: the good chunk, the error, then nothing more
        let mut it = Chunks::new(&data);
        let first = it.next().unwrap().unwrap();
        assert_eq!(
            (first.id, first.offset, first.payload.len()),
            (0xA000, 0, 0)
        );
        assert_eq!(it.index(), 1);
        assert_eq!(it.next().unwrap().unwrap_err().offset, 12);
        assert!(it.next().is_none());
    }

    /// The hand-read header of [`Chunks::next`] and the length [`put_chunk`] patches are the
    /// declared [`ChunkHeader`]: same id and length from the same bytes, same bytes written.
    #[test]
    fn hand_read_and_patched_headers_are_the_declaration() {
        let ids = [0x0000, 0x00FF, 0xA0FF, 0xF5A3, 0xFFFF];
        let lengths = [0u32, 1, 0x1234, 0x00FF_00FF, 0x0102_0304];
        for id in ids {
            for length in lengths {
                let mut bytes = Vec::new();
                bytes.put(&ChunkHeader { id, length }).unwrap();
                let declared: ChunkHeader = Cursor::new(&bytes, 0).read().unwrap();
                assert_eq!(declared, ChunkHeader { id, length });
                // the hand-read header (the payload present in full)
                bytes.resize(HEADER_SIZE + length.min(0x1234) as usize, 0xAB);
                if length <= 0x1234 {
                    let c = Chunks::new(&bytes).next().unwrap().unwrap();
                    assert_eq!((c.id, c.payload.len() as u32), (id, length));
                }
                // the patched header
                let mut out = Vec::new();
                let n = length.min(0x1234) as usize;
                put_chunk(&mut out, id, |o| {
                    o.resize(o.len() + n, 0xAB);
                    Ok(())
                })
                .unwrap();
                let mut want = Vec::new();
                want.put(&ChunkHeader {
                    id,
                    length: n as u32,
                })
                .unwrap();
                assert_eq!(out[..HEADER_SIZE], want[..]);
            }
        }
    }

    #[test]
    fn put_chunk_patches_the_length() {
        let mut out = Vec::new();
        put_chunk(&mut out, 0x1234, |o| {
            o.extend_from_slice(b"abc");
            Ok(())
        })
        .unwrap();
        assert_eq!(out, [0x34, 0x12, 3, 0, 0, 0, b'a', b'b', b'c']);
    }
}

// One type for both formats (MDH and MSB).
/// Where a compiled file came from (MDH 0xD110: the skeleton's ASC; MSB 0xF100: the MDS): the
/// source file's time and path as the engine stored them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// File time of the source file; uninitialised memory in many real files, kept as stored.
    pub date: crate::zengin::types::ZDate,
    pub path: crate::zengin::stext::ShortText,
    #[serde(default, skip_serializing_if = "Blob::is_empty")]
    pub trailing: Blob,
}

impl Source {
    pub fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(Source {
            date: cur.read().within("date")?,
            path: crate::zengin::types::read_short_line(cur).within("path")?,
            trailing: Blob::new(cur.rest()),
        })
    }
    pub fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put(&self.date).within("date")?;
        crate::zengin::types::put_short_line(out, &self.path).within("path")?;
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
}
