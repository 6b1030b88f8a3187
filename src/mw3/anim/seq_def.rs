//! SeqDefInfo (spec §5.10): the reset state and the sequence definitions, each followed by
//! its event stream. The stream size is derived from the events.

use super::events::{read_stream, Event};
use super::prim::{is_default, named, Z};
use super::refs::Names;
use crate::exact::record::Record;
use crate::exact::{Cursor, DecodeError, EncodeError, Hex32, Within, F32};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

named!(/// A sequence state.
    SeqState: u8 { 0 => "initial", 3 => "on_call" });

/// The size of a SeqDefInfo record.
pub const SEQ_DEF_SIZE: usize = 64;

crate::record! {
    /// The 64-byte SeqDefInfo header as stored (the reset state's and every sequence's).
    struct SeqDefHeader: little {
        name: Z<32>,
        seq_state: SeqState,
        reset_state: SeqState,
        pad34: u16,
        loop_time: F32,
        event_time: F32,
        seq_time: F32,
        loop_count: u32,
        curr_event_ptr: Hex32,
        /// The events pointer (a stale runtime address).
        pointer: Hex32,
        /// The event stream's size in bytes.
        size: u32,
    }
}

const _: () = assert!(<SeqDefHeader as Record>::SIZE == SEQ_DEF_SIZE);

/// A sequence definition (or the reset state) with its events.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SeqDef {
    pub name: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    pub seq_state: SeqState,
    #[serde(skip_serializing_if = "is_default")]
    pub reset_state: SeqState,
    #[serde(skip_serializing_if = "is_default")]
    pub pad34: u16,
    #[serde(skip_serializing_if = "is_default")]
    pub loop_time: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub event_time: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub seq_time: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub loop_count: u32,
    #[serde(skip_serializing_if = "is_default")]
    pub curr_event_ptr: Hex32,
    /// The events pointer (a stale runtime address).
    pub pointer: Hex32,
    pub events: Vec<Event>,
}

impl SeqDef {
    /// Read the 64-byte header; returns the definition (no events yet) and the stream size.
    pub fn read_header(c: &mut Cursor) -> Result<(Self, u32), DecodeError> {
        let h: SeqDefHeader = c.read()?;
        Ok((
            SeqDef {
                name: h.name,
                seq_state: h.seq_state,
                reset_state: h.reset_state,
                pad34: h.pad34,
                loop_time: h.loop_time,
                event_time: h.event_time,
                seq_time: h.seq_time,
                loop_count: h.loop_count,
                curr_event_ptr: h.curr_event_ptr,
                pointer: h.pointer,
                events: Vec::new(),
            },
            h.size,
        ))
    }

    /// Read the header and the event stream that follows it.
    pub fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let (mut s, size) = Self::read_header(c)?;
        s.events = Self::read_events(c, size)?;
        Ok(s)
    }

    pub fn read_events(c: &mut Cursor, size: u32) -> Result<Vec<Event>, DecodeError> {
        let size_at = c.offset() - 4;
        let n = c
            .check_count(size as u64, 1)
            .map_err(|mut e| {
                e.offset = size_at;
                e
            })
            .within("size")?;
        let base = c.offset();
        let bytes = c.bytes(n)?;
        read_stream(bytes, base).within("events")
    }

    /// The 64-byte header for a stream of `size` bytes.
    pub fn write_header(&self, out: &mut Vec<u8>, size: u32) -> Result<(), EncodeError> {
        let h = SeqDefHeader {
            name: self.name.clone(),
            seq_state: self.seq_state,
            reset_state: self.reset_state,
            pad34: self.pad34,
            loop_time: self.loop_time,
            event_time: self.event_time,
            seq_time: self.seq_time,
            loop_count: self.loop_count,
            curr_event_ptr: self.curr_event_ptr,
            pointer: self.pointer,
            size,
        };
        crate::exact::Writer::put(out, &h)
    }

    /// The offset of the stream size inside the 64-byte header.
    pub const SIZE_OFFSET: usize = SEQ_DEF_SIZE - 4;

    /// Append the event stream to `out`; returns its size in bytes.
    pub fn write_events(&self, out: &mut Vec<u8>, names: &Names) -> Result<u32, EncodeError> {
        let start = out.len();
        for (i, e) in self.events.iter().enumerate() {
            e.write(out, names).within_index(i).within("events")?;
        }
        u32::try_from(out.len() - start)
            .map_err(|_| EncodeError::new("event stream larger than 4 GiB"))
    }

    /// Header followed by events (written in place; the size is filled in afterwards).
    pub fn write(&self, out: &mut Vec<u8>, names: &Names) -> Result<(), EncodeError> {
        let at = out.len();
        self.write_header(out, 0)?;
        let size = self.write_events(out, names)?;
        patch_u32(out, at + Self::SIZE_OFFSET, size);
        Ok(())
    }
}

/// Overwrite the u32 at `at` (a placeholder written earlier).
pub(crate) fn patch_u32(out: &mut [u8], at: usize, v: u32) {
    if let Some(b) = out.get_mut(at..at + 4) {
        b.copy_from_slice(&v.to_le_bytes());
    }
}
