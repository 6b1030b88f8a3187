//! The PUFFER_STATE payload (42, 580 bytes) and its texture and colour slots, one deku record
//! each (the largest event payload, kept apart from the other fixed payloads in `fixed.rs`).

use super::{ItemName, PufferFlags};
use crate::exact::deku_impls::{read_f32s, Name};
use crate::exact::F32;
use crate::mw3::anim::prim::{is_default, Slots, Vec2, Vec3, Z};
use crate::mw3::anim::ref_fields::{visit_refs, Node32, Puffer32};
use deku::ctx::Endian;
use deku::{DekuRead, DekuSize, DekuWrite};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A PUFFER_STATE texture slot.
///
/// YAML omits fields that hold their default (zero) value.
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Serialize,
    Deserialize,
    JsonSchema,
    DekuRead,
    DekuWrite,
    DekuSize,
)]
#[serde(default, deny_unknown_fields)]
#[deku(
    endian = "endian",
    ctx = "endian: Endian",
    ctx_default = "Endian::Little"
)]
pub struct PufferTexture {
    #[serde(skip_serializing_if = "is_default")]
    pub run_time: F32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: Z<32>,
}

const _: () = assert!(PufferTexture::SIZE_BITS == 36 * 8);

/// A PUFFER_STATE colour slot.
///
/// YAML omits fields that hold their default (zero) value.
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Serialize,
    Deserialize,
    JsonSchema,
    DekuRead,
    DekuWrite,
    DekuSize,
)]
#[serde(default, deny_unknown_fields)]
#[deku(
    endian = "endian",
    ctx = "endian: Endian",
    ctx_default = "Endian::Little"
)]
pub struct PufferColor {
    #[serde(skip_serializing_if = "is_default")]
    pub unk00: F32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub color: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub unk16: F32,
}

const _: () = assert!(PufferColor::SIZE_BITS == 20 * 8);

/// 42 PUFFER_STATE (MechWarrior 3 layout, 580 bytes).
///
/// YAML omits fields that hold their default (zero) value.
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Serialize,
    Deserialize,
    JsonSchema,
    DekuRead,
    DekuWrite,
    DekuSize,
)]
#[serde(default, deny_unknown_fields)]
#[deku(endian = "little")]
pub struct PufferState {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: ItemName,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"puffer\")")]
    pub puffer: Puffer32,
    #[serde(skip_serializing_if = "is_default")]
    pub flags: PufferFlags,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub active_state: u32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub translate: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub local_velocity: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub world_velocity: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub min_random_velocity: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub max_random_velocity: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub world_acceleration: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub interval_type: u32,
    #[serde(skip_serializing_if = "is_default")]
    pub interval_value: F32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub size_range: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub lifetime_range: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub start_age_range: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    pub deviation_distance: F32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub unk_range: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
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
    #[deku(ctx = "Name(\"textures\")")]
    pub textures: Slots<PufferTexture, 6>,
    #[serde(skip_serializing_if = "is_default")]
    pub color_count: u32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"colors\")")]
    pub colors: Slots<PufferColor, 6>,
    #[serde(skip_serializing_if = "is_default")]
    pub growth_count: u32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"growths\")")]
    pub growths: Slots<Vec2, 6>,
}

const _: () = assert!(PufferState::SIZE_BITS == 580 * 8);

// The reference fields of the payload.
visit_refs! {
    PufferState: puffer, node;
}
