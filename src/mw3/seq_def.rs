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

    /// The encoded event stream.
    pub fn events_bytes(&self, names: &Names) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        for (i, e) in self.events.iter().enumerate() {
            e.write(&mut out, names).within_index(i).within("events")?;
        }
        Ok(out)
    }

    /// Header followed by events.
    pub fn write(&self, out: &mut Vec<u8>, names: &Names) -> Result<(), EncodeError> {
        let events = self.events_bytes(names)?;
        let size = u32::try_from(events.len())
            .map_err(|_| EncodeError::new("event stream larger than 4 GiB"))?;
        self.write_header(out, size)?;
        out.extend_from_slice(&events);
        Ok(())
    }
}
