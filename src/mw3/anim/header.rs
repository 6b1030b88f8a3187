//! File header, anim list ("TOC", spec §3) and the info block (spec §4).

use super::prim::{is_default, Z};
use crate::exact::record::Record;
use crate::exact::{Cursor, DecodeError, EncodeError, Hex32, F32};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `16 06 17 08`.
pub const SIGNATURE: u32 = 0x0817_0616;
/// MechWarrior 3.
pub const VERSION: u32 = 39;
pub const HEADER_SIZE: usize = 12;
pub const INFO_SIZE: usize = 68;

crate::record! {
    /// One anim list entry (84 bytes): the source file's path (its tail is leftover memory,
    /// kept) and a Unix timestamp.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ListEntry: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: Z<80>,
        #[serde(skip_serializing_if = "is_default")]
        pub timestamp: u32,
    }
}

const _: () = assert!(<ListEntry as Record>::SIZE == 84);

crate::record! {
    /// The file header as stored (spec §3): the anim list's `count` entries follow.
    pub struct FileHeader: little {
        pub signature: u32,
        pub version: u32,
        pub count: u32,
    }
}

const _: () = assert!(<FileHeader as Record>::SIZE == HEADER_SIZE);

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

crate::record! {
    /// The info block as stored (spec §4).
    struct InfoRecord: little {
        zero00: u32,
        zero04: u32,
        zero08: u16,
        def_count: u16,
        defs_ptr: Hex32,
        msg_count: u32,
        msgs_ptr: Hex32,
        world_ptr: Hex32,
        gravity: F32,
        zero32: [u32; 7],
        one60: u32,
        zero64: u32,
    }
}

const _: () = assert!(<InfoRecord as Record>::SIZE == INFO_SIZE);

impl Info {
    /// Read the block; also returns the stored def_count.
    pub fn read(c: &mut Cursor) -> Result<(Self, u16), DecodeError> {
        let r: InfoRecord = c.read()?;
        let constants = InfoConstants {
            zero00: r.zero00,
            zero04: r.zero04,
            zero08: r.zero08,
            msg_count: r.msg_count,
            msgs_ptr: r.msgs_ptr,
            zero32: r.zero32,
            one60: r.one60,
            zero64: r.zero64,
        };
        let info = Info {
            defs_ptr: r.defs_ptr,
            world_ptr: r.world_ptr,
            gravity: r.gravity,
            constants,
        };
        Ok((info, r.def_count))
    }

    pub fn write(&self, out: &mut Vec<u8>, def_count: u16) -> Result<(), EncodeError> {
        let k = &self.constants;
        let r = InfoRecord {
            zero00: k.zero00,
            zero04: k.zero04,
            zero08: k.zero08,
            def_count,
            defs_ptr: self.defs_ptr,
            msg_count: k.msg_count,
            msgs_ptr: k.msgs_ptr,
            world_ptr: self.world_ptr,
            gravity: self.gravity,
            zero32: k.zero32,
            one60: k.one60,
            zero64: k.zero64,
        };
        crate::exact::Writer::put(out, &r)
    }
}
