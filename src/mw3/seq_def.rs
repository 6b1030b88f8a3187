//! SeqDefInfo (spec §5.10): the reset state and the sequence definitions, each followed by
//! its event stream. The stream size is derived from the events.

use super::events::{read_stream, Event};
use super::prim::{is_default, named, Ctx, Field, Z};
use super::refs::Names;
use crate::exact::{Cursor, DecodeError, EncodeError, Hex32, Within, F32};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

named!(/// A sequence state.
    SeqState: u8 { 0 => "initial", 3 => "on_call" });

/// The size of a SeqDefInfo record.
pub const SEQ_DEF_SIZE: usize = 64;

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
        let name = Z::read(c).within("name")?;
        let seq_state = SeqState::read(c).within("seq_state")?;
        let reset_state = SeqState::read(c).within("reset_state")?;
        let pad34 = c.u16().within("pad34")?;
        let loop_time = F32::read(c).within("loop_time")?;
        let event_time = F32::read(c).within("event_time")?;
        let seq_time = F32::read(c).within("seq_time")?;
        let loop_count = c.u32().within("loop_count")?;
        let curr_event_ptr = Hex32::read(c).within("curr_event_ptr")?;
        let pointer = Hex32::read(c).within("pointer")?;
        let size = c.u32().within("size")?;
        Ok((
            SeqDef {
                name,
                seq_state,
                reset_state,
                pad34,
                loop_time,
                event_time,
                seq_time,
                loop_count,
                curr_event_ptr,
                pointer,
                events: Vec::new(),
            },
            size,
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
        let ctx = Ctx::default();
        self.name.write(out, &ctx).within("name")?;
        self.seq_state.write(out, &ctx)?;
        self.reset_state.write(out, &ctx)?;
        self.pad34.write(out, &ctx)?;
        self.loop_time.write(out, &ctx)?;
        self.event_time.write(out, &ctx)?;
        self.seq_time.write(out, &ctx)?;
        self.loop_count.write(out, &ctx)?;
        self.curr_event_ptr.write(out, &ctx)?;
        self.pointer.write(out, &ctx)?;
        size.write(out, &ctx)
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
