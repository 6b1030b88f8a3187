//! The PUFFER_STATE payload (42, 580 bytes) and its texture and colour slots, one deku record
//! each (the largest event payload, kept apart from the other fixed payloads in `fixed.rs`).

use super::{ItemName, PufferFlags};

use crate::exact::record::Record;
use crate::exact::F32;
use crate::mw3::anim::prim::{is_default, Slots, Vec2, Vec3, Z};
use crate::mw3::anim::ref_fields::{visit_refs, Node32, Puffer32};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

crate::record! {
    /// A PUFFER_STATE texture slot.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct PufferTexture: little {
        #[serde(skip_serializing_if = "is_default")]
        pub run_time: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub name: Z<32>,
    }
}

const _: () = assert!(<PufferTexture as Record>::SIZE == 36);

crate::record! {
    /// A PUFFER_STATE colour slot.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct PufferColor: little {
        #[serde(skip_serializing_if = "is_default")]
        pub unk00: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub color: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub unk16: F32,
    }
}

const _: () = assert!(<PufferColor as Record>::SIZE == 20);

crate::record! {
    /// 42 PUFFER_STATE (MechWarrior 3 layout, 580 bytes).
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct PufferState: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: ItemName,
        #[serde(skip_serializing_if = "is_default")]
        pub puffer: Puffer32,
        #[serde(skip_serializing_if = "is_default")]
        pub flags: PufferFlags,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node32,
        #[serde(skip_serializing_if = "is_default")]
        pub active_state: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub translate: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub local_velocity: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub world_velocity: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub min_random_velocity: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub max_random_velocity: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub world_acceleration: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub interval_type: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub interval_value: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub size_range: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub lifetime_range: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub start_age_range: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub deviation_distance: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub unk_range: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub fade_range: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub friction: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub wind_factor: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub priority: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub tex_has_run_time: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub textures: Slots<PufferTexture, 6>,
        #[serde(skip_serializing_if = "is_default")]
        pub color_count: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub colors: Slots<PufferColor, 6>,
        #[serde(skip_serializing_if = "is_default")]
        pub growth_count: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub growths: Slots<Vec2, 6>,
    }
}

const _: () = assert!(<PufferState as Record>::SIZE == 580);

// The reference fields of the payload.
visit_refs! {
    PufferState: puffer, node;
}
