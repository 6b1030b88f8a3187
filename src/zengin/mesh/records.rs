//! The mesh files' chunk ids and the fixed records that both their views (`model`) and their
//! YAML form (`doc`) read and write.

use crate::exact::F32;
use crate::zengin::types::Vec3;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// Model mesh chunks
pub const MDM_HEADER: u16 = 0xD000;
pub const MDM_SOURCE: u16 = 0xD010;
pub const MDM_NODES: u16 = 0xD020;
pub const MDM_SOFTSKINS: u16 = 0xD030;
pub const MDM_END: u16 = 0xD040;
// Soft-skin mesh chunks
pub const SKIN_HEADER: u16 = 0xE100;
pub const SKIN_END: u16 = 0xE110;
// The multi-resolution mesh and the chunk after it (soft skin: weights; morph mesh: morph
// positions; alone: end)
pub const MRM_MESH: u16 = 0xB100;
pub const MRM_AFTER: u16 = 0xB1FF;
// Morph mesh chunks
pub const MMB_START: u16 = 0xE000;
pub const MMB_SOURCES: u16 = 0xE010;
pub const MMB_HEADER: u16 = 0xE020;
pub const MMB_ANIMATIONS: u16 = 0xE030;
// Model hierarchy chunks (the first part of an MDL)
pub const MDH_HIERARCHY: u16 = 0xD100;
pub const MDH_SOURCE: u16 = 0xD110;
pub const MDH_END: u16 = 0xD120;

/// A name for each known chunk id, for `info` and the YAML.
pub fn chunk_kind(id: u16) -> &'static str {
    match id {
        MDM_HEADER => "model mesh header",
        MDM_SOURCE => "model mesh source",
        MDM_NODES => "attachment node names",
        MDM_SOFTSKINS => "soft-skin list",
        MDM_END => "model mesh end",
        SKIN_HEADER => "soft-skin header",
        SKIN_END => "soft-skin end",
        MRM_MESH => "multi-resolution mesh",
        MRM_AFTER => "mesh end / weights / morph positions",
        MMB_START => "morph mesh start",
        MMB_SOURCES => "morph mesh sources",
        MMB_HEADER => "morph mesh header",
        MMB_ANIMATIONS => "morph animations",
        MDH_HIERARCHY => "hierarchy",
        MDH_SOURCE => "hierarchy source",
        MDH_END => "hierarchy end",
        _ => "unknown",
    }
}

crate::record! {
    /// One influence of a bone on a soft-skin vertex: the vertex position in that bone's space.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct Weight: little plain {
        pub weight: F32,
        pub position: Vec3,
        /// Index of the bone in the model hierarchy (the MDH's node list).
        pub node: u8,
    }
}
pub const WEIGHT_SIZE: usize = 17;

crate::record! {
    /// A morph animation's head (the fixed fields after its name line).
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct MorphAnimationHead: little plain {
        pub blend_in: F32,
        pub blend_out: F32,
        pub duration: F32,
        pub layer: i32,
        pub speed: F32,
        pub flags: u8,
        pub vertex_count: u32,
        pub frame_count: u32,
    }
}
pub const MORPH_ANIMATION_HEAD_SIZE: usize = 29;
