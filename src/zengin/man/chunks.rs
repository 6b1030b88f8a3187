//! The chunk records of a MAN, each read and written side by side (one table, both directions),
//! and the whole file as a list of chunks.

use super::{
    quant, Chunk, Event, EventType, Events, Header, Man, Marker, Samples, Source, ID_EVENTS,
    ID_HEADER, ID_MARKER, ID_SAMPLES, ID_SOURCE,
};
use crate::exact::{Blob, Cursor, DecodeError, EncodeError, Hex32, Text, Within, Writer, F32};
use crate::zengin::chunk::Unknown;
use crate::zengin::chunk::{self, RawChunk};
use crate::zengin::types::{put_line, read_line, BBox, ZDate};

crate::record! {
    /// The header's fixed-size run between `name` and `next` (the lines around it end at their
    /// NUL/newline, so they stay hand-read).
    #[derive(Debug, PartialEq)]
    pub(super) struct HeaderFixed: little plain {
        layer: u32,
        frame_count: u32,
        node_count: u32,
        fps: F32,
        fps_source: F32,
        position_min: F32,
        position_scale: F32,
        bbox: BBox,
    }

    /// One sample as stored: the rotation's x, y, z codes, then the position's. Declared for
    /// the record rule; the sample loops of `Samples::read` / `Samples::put` stay hand-written
    /// for speed (millions of samples per archive), tied to this by
    /// `sample_loops_match_the_deku_declaration`.
    #[cfg_attr(not(test), allow(dead_code))]
    #[derive(Debug, PartialEq, Eq)]
    pub(super) struct SampleRecord: little plain {
        rotation: [u16; 3],
        position: [u16; 3],
    }

    /// An event's fixed run before its lines: the type and the frame.
    #[derive(Debug, PartialEq)]
    pub(super) struct EventHead: little plain {
        r#type: u32,
        frame: i32,
    }

    /// An event's fixed run after its lines: four values and the probability, each an `f32`
    /// kept bit for bit.
    #[derive(Debug, PartialEq)]
    pub(super) struct EventTail: little plain {
        values: [F32; 4],
        probability: F32,
    }
}

impl Header {
    pub(super) fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let version = cur.u16().within("version")?;
        let name = read_line(cur).within("name")?;
        let f: HeaderFixed = cur.read()?;
        Ok(Header {
            version,
            name,
            layer: f.layer,
            frame_count: f.frame_count,
            node_count: f.node_count,
            fps: f.fps,
            fps_source: f.fps_source,
            position_min: f.position_min,
            position_scale: f.position_scale,
            bbox: f.bbox,
            next: read_line(cur).within("next")?,
            trailing: Blob::new(cur.rest()),
        })
    }
    pub(super) fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put_u16(self.version);
        put_line(out, &self.name).within("name")?;
        out.put(&HeaderFixed {
            layer: self.layer,
            frame_count: self.frame_count,
            node_count: self.node_count,
            fps: self.fps,
            fps_source: self.fps_source,
            position_min: self.position_min,
            position_scale: self.position_scale,
            bbox: self.bbox,
        })?;
        put_line(out, &self.next).within("next")?;
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
}

impl Source {
    pub(super) fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(Source {
            date: cur.read::<ZDate>().within("date")?,
            path: read_line(cur).within("path")?,
            script: read_line(cur).within("script")?,
            trailing: Blob::new(cur.rest()),
        })
    }
    pub(super) fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put(&self.date).within("date")?;
        put_line(out, &self.path).within("path")?;
        put_line(out, &self.script).within("script")?;
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
}

/// The smallest possible event: type, frame, five empty lines, five floats.
pub(super) const MIN_EVENT_SIZE: usize = 4 + 4 + 5 + 20;

impl Event {
    pub(super) fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let head: EventHead = cur.read()?;
        let tag = read_line(cur).within("tag")?;
        let mut content: [Text; 4] = Default::default();
        for (i, c) in content.iter_mut().enumerate() {
            *c = read_line(cur).within_index(i).within("content")?;
        }
        let tail: EventTail = cur.read()?;
        Ok(Event {
            kind: EventType::from_u32(head.r#type),
            frame: head.frame,
            tag,
            content,
            values: tail.values,
            probability: tail.probability,
        })
    }
    pub(super) fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let head = EventHead {
            r#type: self.kind.to_u32(),
            frame: self.frame,
        };
        out.put(&head)?;
        put_line(out, &self.tag).within("tag")?;
        for (i, c) in self.content.iter().enumerate() {
            put_line(out, c).within_index(i).within("content")?;
        }
        let tail = EventTail {
            values: self.values,
            probability: self.probability,
        };
        out.put(&tail)?;
        Ok(())
    }
}

impl Events {
    pub(super) fn read(cur: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Self::read_with(cur, true)
    }
    /// [`Events::read`]; without `keep`, each event is read (and checked) and dropped, and the
    /// list is left empty.
    fn read_with(cur: &mut Cursor<'_>, keep: bool) -> Result<Self, DecodeError> {
        let count = cur.u32().within("count")?;
        let count = cur
            .check_count(count.into(), MIN_EVENT_SIZE)
            .within("count")?;
        let mut events = Vec::with_capacity(if keep { count } else { 0 });
        for i in 0..count {
            let e = Event::read(cur).within_index(i).within("events")?;
            if keep {
                events.push(e);
            }
        }
        Ok(Events {
            events,
            trailing: Blob::new(cur.rest()),
        })
    }
    pub(super) fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let count =
            u32::try_from(self.events.len()).map_err(|_| EncodeError::new("too many events"))?;
        out.put_u32(count);
        for (i, e) in self.events.iter().enumerate() {
            e.put(out).within_index(i).within("events")?;
        }
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }
}

/// Frame and node counts of a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    pub frames: u32,
    pub nodes: u32,
}

impl Dims {
    pub fn of(h: &Header) -> Self {
        Dims {
            frames: h.frame_count,
            nodes: h.node_count,
        }
    }
    /// `frames * nodes`, or `None` on overflow.
    pub fn samples(self) -> Option<u64> {
        u64::from(self.frames).checked_mul(self.nodes.into())
    }
}

impl Samples {
    pub const SAMPLE_SIZE: usize = 12;

    pub(super) fn read(cur: &mut Cursor<'_>, dims: Dims) -> Result<Self, DecodeError> {
        let checksum = Hex32(cur.u32().within("checksum")?);
        let nodes = cur
            .check_count(dims.nodes.into(), 4)
            .map_err(|e| DecodeError {
                kind: crate::exact::DecodeErrorKind::Invalid(format!(
                    "header.node_count {} does not fit in this chunk: {}",
                    dims.nodes, e.kind
                )),
                ..e
            })
            .within("node_indices")?;
        let raw = cur.bytes(nodes * 4)?;
        let node_indices = raw
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let total = dims.samples().ok_or_else(|| {
            cur.invalid(format!(
                "frame_count {} × node_count {} overflows",
                dims.frames, dims.nodes
            ))
        });
        let total = total.and_then(|t| {
            cur.check_count(t, Self::SAMPLE_SIZE)
                .map_err(|e| DecodeError {
                    kind: crate::exact::DecodeErrorKind::Invalid(format!(
                        "header says {} frames × {} nodes, which does not fit in this chunk: {}",
                        dims.frames, dims.nodes, e.kind
                    )),
                    ..e
                })
        });
        let total = total.within("frames")?;
        let raw = cur.bytes(total * Self::SAMPLE_SIZE)?;
        // Hand-read for speed (the bulk of a MAN); the layout is `SampleRecord`'s.
        let codes = raw
            .chunks_exact(Self::SAMPLE_SIZE)
            .map(|b| {
                let u = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
                [u(0), u(2), u(4), u(6), u(8), u(10)]
            })
            .collect();
        Ok(Samples {
            checksum,
            node_indices,
            codes,
            trailing: Blob::new(cur.rest()),
        })
    }

    pub(super) fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put_u32(self.checksum.0);
        out.reserve(self.node_indices.len() * 4 + self.codes.len() * Self::SAMPLE_SIZE);
        for &n in &self.node_indices {
            out.put_u32(n);
        }
        // Hand-written for speed (the bulk of a MAN); the layout is `SampleRecord`'s.
        for c in &self.codes {
            for v in c {
                out.put_u16(*v);
            }
        }
        out.extend_from_slice(self.trailing.as_bytes());
        Ok(())
    }

    /// Number of frames (whole rows of `node_indices.len()` samples).
    pub fn frame_count(&self) -> usize {
        match self.node_indices.len() {
            0 => 0,
            n => self.codes.len() / n,
        }
    }

    /// The samples of one frame.
    pub fn frame(&self, f: usize) -> &[[u16; 6]] {
        let n = self.node_indices.len();
        &self.codes[f * n..(f + 1) * n]
    }
}

impl chunk::ChunkBody for Chunk {
    fn id(&self) -> u16 {
        match self {
            Chunk::Marker(_) => ID_MARKER,
            Chunk::Header(_) => ID_HEADER,
            Chunk::Source(_) => ID_SOURCE,
            Chunk::Events(_) => ID_EVENTS,
            Chunk::Samples(_) => ID_SAMPLES,
            Chunk::Unknown(u) => u.id.0,
        }
    }
    fn kind(&self) -> &'static str {
        match self {
            Chunk::Marker(_) => "marker",
            Chunk::Header(_) => "header",
            Chunk::Source(_) => "source",
            Chunk::Events(_) => "events",
            Chunk::Samples(_) => "samples",
            Chunk::Unknown(_) => "unknown",
        }
    }
    fn put_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            Chunk::Marker(m) => {
                out.extend_from_slice(m.trailing.as_bytes());
                Ok(())
            }
            Chunk::Header(h) => h.put(out).within("header"),
            Chunk::Source(s) => s.put(out).within("source"),
            Chunk::Events(e) => e.put(out).within("events"),
            Chunk::Samples(s) => s.put(out).within("samples"),
            Chunk::Unknown(u) => {
                out.extend_from_slice(u.data.as_bytes());
                Ok(())
            }
        }
    }
}

/// The header a samples chunk at `index` decodes with: the last one before it, else the first
/// one after it (chunks may come in any order; the engine dispatches by id).
pub fn governing_header<'a, T>(
    items: &'a [T],
    index: usize,
    header_of: impl Fn(&'a T) -> Option<&'a Header>,
) -> Option<&'a Header> {
    items[..index]
        .iter()
        .rev()
        .find_map(&header_of)
        .or_else(|| items[index..].iter().find_map(&header_of))
}

impl Man {
    pub fn header(&self) -> Option<&Header> {
        self.chunks.iter().find_map(|c| match c {
            Chunk::Header(h) => Some(h),
            _ => None,
        })
    }
    pub fn source(&self) -> Option<&Source> {
        self.chunks.iter().find_map(|c| match c {
            Chunk::Source(s) => Some(s),
            _ => None,
        })
    }
    pub fn samples(&self) -> Option<&Samples> {
        self.chunks.iter().find_map(|c| match c {
            Chunk::Samples(s) => Some(s),
            _ => None,
        })
    }
    pub fn events(&self) -> &[Event] {
        self.chunks
            .iter()
            .find_map(|c| match c {
                Chunk::Events(e) => Some(e.events.as_slice()),
                _ => None,
            })
            .unwrap_or(&[])
    }

    /// Decode every sample to (rotation, position) as the engine does.
    pub fn decode_samples(&self) -> Vec<(glam::Quat, glam::Vec3)> {
        let (Some(h), Some(s)) = (self.header(), self.samples()) else {
            return Vec::new();
        };
        let (min, scale) = (h.position_min.get(), h.position_scale.get());
        s.codes
            .iter()
            .map(|c| {
                let q = quant::engine_rotation([c[0], c[1], c[2]]);
                let p = glam::Vec3::new(
                    quant::unpack_position(c[3], min, scale),
                    quant::unpack_position(c[4], min, scale),
                    quant::unpack_position(c[5], min, scale),
                );
                (q, p)
            })
            .collect()
    }

    pub fn read(data: &[u8]) -> Result<Self, DecodeError> {
        Self::read_with(data, true)
    }

    /// [`Man::read`] with every events chunk's list left empty (its events read, so the same
    /// files are refused, and dropped): for what needs no events (the edit warnings of
    /// `import`), without the decoded list of a large file.
    pub(crate) fn read_without_events(data: &[u8]) -> Result<Self, DecodeError> {
        Self::read_with(data, false)
    }

    fn read_with(data: &[u8], keep_events: bool) -> Result<Self, DecodeError> {
        if data.is_empty() {
            return Err(DecodeError::invalid(0, "the file is empty"));
        }
        let chunks = chunk::read_chunks(data, |raw, i| {
            let rc = &raw[i];
            let mut cur = rc.cursor();
            Ok(match rc.id {
                ID_MARKER => Chunk::Marker(Marker {
                    trailing: Blob::new(rc.payload),
                }),
                ID_HEADER => Chunk::Header(Header::read(&mut cur).within("header")?),
                ID_SOURCE => Chunk::Source(Source::read(&mut cur).within("source")?),
                ID_EVENTS => {
                    let events = if keep_events {
                        Events::read(&mut cur)
                    } else {
                        Events::read_with(&mut cur, false)
                    };
                    Chunk::Events(events.within("events")?)
                }
                ID_SAMPLES => {
                    let is_header = |c: &RawChunk<'_>| c.id == ID_HEADER;
                    let hc = raw[..i]
                        .iter()
                        .rposition(is_header)
                        .or_else(|| raw[i..].iter().position(is_header).map(|k| k + i))
                        .map(|k| raw[k])
                        .ok_or_else(|| {
                            DecodeError::invalid(
                                rc.offset,
                                "the samples chunk (0xA090) needs the header chunk (0xA020) for its frame and node counts, and the file has none",
                            )
                        })
                        .within_index(i)
                        .within("chunks")?;
                    let header = Header::read(&mut hc.cursor()).within("header")?;
                    Chunk::Samples(Samples::read(&mut cur, Dims::of(&header)).within("samples")?)
                }
                _ => Chunk::Unknown(Unknown::of(rc)),
            })
        })?;
        Ok(Man { chunks })
    }

    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        chunk::put_chunks(out, &self.chunks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed run is read and written by its deku declaration: the known values of a real
    /// header land in their fields, and a header that ends inside the run names the field it
    /// ends in, at that field's offset.
    #[test]
    fn header_fixed_run_reads_writes_and_names_a_short_field() {
        let mut payload = Vec::new();
        payload.extend_from_slice(&12u16.to_le_bytes());
        payload.extend_from_slice(b"S_RUN\n");
        for v in [1u32, 40, 3, 25.0f32.to_bits(), 25.0f32.to_bits()] {
            payload.extend_from_slice(&v.to_le_bytes());
        }
        for v in [-1.5f32, 0.001, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0] {
            payload.extend_from_slice(&v.to_bits().to_le_bytes());
        }
        payload.extend_from_slice(b"S_NEXT\n");
        let h = Header::read(&mut Cursor::new(&payload, 0)).unwrap();
        assert_eq!((h.layer, h.frame_count, h.node_count), (1, 40, 3));
        assert_eq!(h.fps.get(), 25.0);
        assert_eq!(
            (h.position_min.get(), h.position_scale.get()),
            (-1.5, 0.001)
        );
        assert_eq!(h.bbox.min[0].get(), 1.0);
        assert_eq!(h.bbox.max[2].get(), 6.0);
        assert_eq!(h.next.as_bytes(), b"S_NEXT");
        let mut out = Vec::new();
        h.put(&mut out).unwrap();
        assert_eq!(out, payload);
        // Ends two bytes into `fps` (2 + 6 + 12 = 20 is where fps starts).
        let e = Header::read(&mut Cursor::new(&payload[..22], 0)).unwrap_err();
        assert_eq!(e.offset, 20, "{e}");
        assert_eq!(e.path.to_string(), "fps", "{e}");
    }

    /// The hand-written sample loops read and write what the deku declaration of a sample does.
    #[test]
    fn sample_loops_match_the_deku_declaration() {
        use crate::exact::record::same_as_deku;
        let mut payload = 0xEA80_9BF7u32.to_le_bytes().to_vec();
        payload.extend_from_slice(&7u32.to_le_bytes());
        let raw: Vec<u8> = (0u8..24).map(|i| i.wrapping_mul(53) ^ 0x5C).collect();
        payload.extend_from_slice(&raw);
        let dims = Dims {
            frames: 2,
            nodes: 1,
        };
        let s = Samples::read(&mut Cursor::new(&payload, 0), dims).unwrap();
        assert_eq!(s.node_indices, [7]);
        for (k, c) in s.codes.iter().enumerate() {
            let r: SampleRecord = Cursor::new(&raw[k * 12..], 0).read().unwrap();
            assert_eq!(
                (r.rotation, r.position),
                ([c[0], c[1], c[2]], [c[3], c[4], c[5]])
            );
            same_as_deku::<SampleRecord>(&raw[k * 12..]);
        }
        assert_eq!(s.codes[0][0], u16::from_le_bytes([raw[0], raw[1]]));
        let mut out = Vec::new();
        s.put(&mut out).unwrap();
        assert_eq!(out, payload);
    }

    /// An event's two fixed runs are read and written by their deku declarations (the float
    /// tail kept bit for bit, a NaN payload included), and an event that ends inside one names
    /// the field it ends in, at that field's offset.
    #[test]
    fn event_fixed_runs_read_write_and_name_a_short_field() {
        let mut payload = Vec::new();
        payload.extend_from_slice(&1u32.to_le_bytes()); // type 1: tag
        payload.extend_from_slice(&(-3i32).to_le_bytes());
        payload.extend_from_slice(b"DEF_HIT\nA\n\n\n\n");
        for bits in [
            0.5f32.to_bits(),
            0x7FA0_0001,
            2.0f32.to_bits(),
            0,
            0.25f32.to_bits(),
        ] {
            payload.extend_from_slice(&bits.to_le_bytes());
        }
        let e = Event::read(&mut Cursor::new(&payload, 0)).unwrap();
        assert_eq!((e.kind.to_u32(), e.frame), (1, -3));
        assert_eq!(e.tag.as_bytes(), b"DEF_HIT");
        assert_eq!(e.content[0].as_bytes(), b"A");
        assert_eq!(
            e.values.map(|v| v.0),
            [0.5f32.to_bits(), 0x7FA0_0001, 2.0f32.to_bits(), 0]
        );
        assert_eq!(e.probability.get(), 0.25);
        let mut out = Vec::new();
        e.put(&mut out).unwrap();
        assert_eq!(out, payload);
        // 8 + 13 (the five lines) = 21 is where values[0] starts; cut 1 byte into values[2]
        let err = Event::read(&mut Cursor::new(&payload[..30], 0)).unwrap_err();
        assert_eq!(
            (err.offset, err.path.to_string()),
            (29, "values[2]".into()),
            "{err}"
        );
        let err = Event::read(&mut Cursor::new(&payload[..6], 0)).unwrap_err();
        assert_eq!(
            (err.offset, err.path.to_string()),
            (4, "frame".into()),
            "{err}"
        );
    }

    /// The fixed runs' sizes and field tables follow from their declarations; their one-copy
    /// readers and writers agree with deku; their byte order is little-endian (the bytes
    /// below, written out by hand).
    #[test]
    fn run_declarations_sizes_tables_and_byte_order() {
        use crate::exact::record::{both_ways, same_as_deku};
        use crate::exact::Record;
        let bytes: Vec<u8> = (0u8..52).map(|i| i.wrapping_mul(29) ^ 0x3C).collect();
        same_as_deku::<HeaderFixed>(&bytes);
        same_as_deku::<EventHead>(&bytes);
        same_as_deku::<EventTail>(&bytes);
        assert_eq!(
            EventHead::FIELDS.iter().map(|f| f.name).collect::<Vec<_>>(),
            ["type", "frame"]
        );
        // the floats of EventTail in little-endian order
        both_ways(&[(
            EventTail {
                values: [F32(0x0403_0201), F32(0x0807_0605), F32(0), F32(0x3F80_0000)],
                probability: F32(0x8000_0000),
            },
            "01020304 05060708 00000000 0000803f 00000080",
        )]);
        // and those of HeaderFixed (fps at 12, bbox.max.z last)
        let mut le = vec![0u8; 52];
        le[12..16].copy_from_slice(&[0x00, 0x00, 0xC8, 0x41]); // 25.0
        le[48..52].copy_from_slice(&[0x01, 0x02, 0x03, 0x04]);
        let h: HeaderFixed = Cursor::new(&le, 0).read().unwrap();
        assert_eq!((h.fps.get(), h.bbox.max[2]), (25.0, F32(0x0403_0201)));
        assert_eq!(
            (HeaderFixed::SIZE, EventHead::SIZE, EventTail::SIZE),
            (52, 8, 20)
        );
    }
}
