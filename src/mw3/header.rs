//! File header, anim list ("TOC", spec §3) and the info block (spec §4).

use super::prim::{is_default, record, Ctx, Field, Z};
use crate::exact::{Cursor, DecodeError, EncodeError, Hex32, Within, F32};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `16 06 17 08`.
pub const SIGNATURE: u32 = 0x0817_0616;
/// MechWarrior 3.
pub const VERSION: u32 = 39;
pub const HEADER_SIZE: usize = 12;
pub const INFO_SIZE: usize = 68;

record! {
    /// One anim list entry (84 bytes): the source file's path (its tail is leftover memory,
    /// kept) and a Unix timestamp.
    pub struct ListEntry (84) {
        pub name: Z<80>,
        pub timestamp: u32,
    }
}

/// Info fields with a fixed value in every known file; shown only when a file differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct InfoConstants {
    pub zero00: u32,
    pub zero04: u32,
    pub zero08: u16,
    pub msg_count: u32,
    pub msgs_ptr: Hex32,
    pub zero32: [u32; 7],
    pub one60: u32,
    pub zero64: u32,
}

impl Default for InfoConstants {
    fn default() -> Self {
        Self {
            zero00: 0,
            zero04: 0,
            zero08: 0,
            msg_count: 0,
            msgs_ptr: Hex32(0),
            zero32: [0; 7],
            one60: 1,
            zero64: 0,
        }
    }
}

/// The info block. `def_count` is derived from the number of anim defs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Info {
    pub defs_ptr: Hex32,
    pub world_ptr: Hex32,
    pub gravity: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub constants: InfoConstants,
}

impl Info {
    /// Read the block; also returns the stored def_count.
    pub fn read(c: &mut Cursor) -> Result<(Self, u16), DecodeError> {
        let mut k = InfoConstants {
            zero00: c.u32()?,
            zero04: c.u32()?,
            zero08: c.u16()?,
            ..Default::default()
        };
        let def_count = c.u16().within("def_count")?;
        let defs_ptr = Hex32::read(c)?;
        k.msg_count = c.u32()?;
        k.msgs_ptr = Hex32::read(c)?;
        let world_ptr = Hex32::read(c)?;
        let gravity = F32::read(c)?;
        k.zero32 = <[u32; 7]>::read(c)?;
        k.one60 = c.u32()?;
        k.zero64 = c.u32()?;
        Ok((
            Info {
                defs_ptr,
                world_ptr,
                gravity,
                constants: k,
            },
            def_count,
        ))
    }

    pub fn write(&self, out: &mut Vec<u8>, def_count: u16) -> Result<(), EncodeError> {
        let ctx = Ctx::default();
        let k = &self.constants;
        k.zero00.write(out, &ctx)?;
        k.zero04.write(out, &ctx)?;
        k.zero08.write(out, &ctx)?;
        def_count.write(out, &ctx)?;
        self.defs_ptr.write(out, &ctx)?;
        k.msg_count.write(out, &ctx)?;
        k.msgs_ptr.write(out, &ctx)?;
        self.world_ptr.write(out, &ctx)?;
        self.gravity.write(out, &ctx)?;
        k.zero32.write(out, &ctx)?;
        k.one60.write(out, &ctx)?;
        k.zero64.write(out, &ctx)
    }
}
