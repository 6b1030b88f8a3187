//! Event payloads with a fixed layout, one deku record each (fields in on-disk order; names,
//! references and slot arrays carry their field name as deku context for error paths).

use super::{
    CallAnimFlags, CallConnectorFlags, CameraFlags, ConnectorFlags, FogFlags, FogType, FromToFlags,
    ItemName, LightFlags, LightType, MotionFlags, RotateFlags, SoundNodeFlags,
};
use crate::exact::deku_impls::{read_f32s, read_items, write_items, Name};
use crate::exact::F32;
use crate::mw3::anim::prim::{is_default, Vec2, Vec3, Z};
use crate::mw3::anim::ref_fields::{
    visit_refs, AnimRef16, DynSound32, Light32, Node16, Node32, StaticSound16,
};
use deku::ctx::Endian;
use deku::{DekuRead, DekuSize, DekuWrite};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// 1 SOUND.
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
pub struct Sound {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"sound\")")]
    pub sound: StaticSound16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub pos: Vec3,
}

const _: () = assert!(Sound::SIZE_BITS == 16 * 8);

/// 2 SOUND_NODE.
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
pub struct SoundNode {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: ItemName,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"sound\")")]
    pub sound: DynSound32,
    #[serde(skip_serializing_if = "is_default")]
    pub flags: SoundNodeFlags,
    #[serde(skip_serializing_if = "is_default")]
    pub active_state: u32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub translate: Vec3,
}

const _: () = assert!(SoundNode::SIZE_BITS == 60 * 8);

/// 3 EFFECT (never resolves in MechWarrior 3: it has no effects).
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
pub struct Effect {
    #[serde(skip_serializing_if = "is_default")]
    pub effect_index: i16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub translation: Vec3,
}

const _: () = assert!(Effect::SIZE_BITS == 16 * 8);

/// 4 LIGHT_STATE (MechWarrior 3 layout).
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
pub struct LightState {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: ItemName,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"light\")")]
    pub light: Light32,
    #[serde(skip_serializing_if = "is_default")]
    pub flags: LightFlags,
    #[serde(skip_serializing_if = "is_default")]
    pub active_state: u32,
    #[serde(rename = "type")]
    #[serde(skip_serializing_if = "is_default")]
    pub light_type: LightType,
    #[serde(skip_serializing_if = "is_default")]
    pub directional: u32,
    #[serde(skip_serializing_if = "is_default")]
    pub saturated: u32,
    #[serde(skip_serializing_if = "is_default")]
    pub subdivide: u32,
    #[serde(rename = "static")]
    #[serde(skip_serializing_if = "is_default")]
    pub static_: u32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub translate: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub orientation: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub range: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    pub color: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub ambient: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub diffuse: F32,
}

const _: () = assert!(LightState::SIZE_BITS == 120 * 8);

/// 5 LIGHT_ANIMATION.
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
pub struct LightAnimation {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: ItemName,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"light\")")]
    pub light: Light32,
    #[serde(skip_serializing_if = "is_default")]
    pub range: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    pub range_alt: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    pub zero52: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    pub color: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub zero72: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub zero84: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub run_time: F32,
}

const _: () = assert!(LightAnimation::SIZE_BITS == 100 * 8);

/// 6 OBJECT_ACTIVE_STATE.
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
pub struct ObjectActiveState {
    #[serde(skip_serializing_if = "is_default")]
    pub state: u32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub pad: u16,
}

const _: () = assert!(ObjectActiveState::SIZE_BITS == 8 * 8);

/// 7 OBJECT_TRANSLATE_STATE.
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
pub struct ObjectTranslateState {
    #[serde(skip_serializing_if = "is_default")]
    pub relative: u32,
    #[serde(skip_serializing_if = "is_default")]
    pub translate: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"at_node\")")]
    pub at_node: Node16,
}

const _: () = assert!(ObjectTranslateState::SIZE_BITS == 20 * 8);

/// 8 OBJECT_SCALE_STATE.
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
pub struct ObjectScaleState {
    #[serde(skip_serializing_if = "is_default")]
    pub scale: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node32,
}

const _: () = assert!(ObjectScaleState::SIZE_BITS == 16 * 8);

/// 9 OBJECT_ROTATE_STATE.
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
pub struct ObjectRotateState {
    #[serde(skip_serializing_if = "is_default")]
    pub flags: RotateFlags,
    #[serde(skip_serializing_if = "is_default")]
    pub rotate: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"at_node\")")]
    pub at_node: Node16,
}

const _: () = assert!(ObjectRotateState::SIZE_BITS == 20 * 8);

/// One bounce slot of OBJECT_MOTION (default, water, lava).
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
pub struct Bounce {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"sequence\")")]
    pub sequence: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    pub sequence_index: crate::mw3::anim::prim::MinusOne16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"sound\")")]
    pub sound: StaticSound16,
    #[serde(skip_serializing_if = "is_default")]
    pub volume: F32,
}

const _: () = assert!(Bounce::SIZE_BITS == 40 * 8);

/// 10 OBJECT_MOTION (MechWarrior 3 / Pirate's Moon layout).
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
pub struct ObjectMotion {
    #[serde(skip_serializing_if = "is_default")]
    pub flags: MotionFlags,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub pad: u16,
    #[serde(skip_serializing_if = "is_default")]
    pub zero008: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub gravity: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub morph: F32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_range_xz: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_range_y: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_range_initial: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_range_delta: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_initial: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_delta: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_current: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_delta_grav: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub trans_rnd_xz: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub fwd_rot_initial: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub fwd_rot_delta: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub fwd_rot_current: F32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub xyz_rot_initial: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub xyz_rot_delta: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub xyz_rot_current: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub scale_initial: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub scale_delta: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub scale_current: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(
        reader = "read_items(deku::reader, Endian::Little, \"bounce\")",
        writer = "write_items(deku::writer, bounce, Endian::Little, \"bounce\")"
    )]
    pub bounce: [Bounce; 3],
    #[serde(skip_serializing_if = "is_default")]
    pub run_time: F32,
}

const _: () = assert!(ObjectMotion::SIZE_BITS == 320 * 8);

/// 11 OBJECT_MOTION_FROM_TO. Deltas are kept as stored.
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
pub struct ObjectMotionFromTo {
    #[serde(skip_serializing_if = "is_default")]
    pub flags: FromToFlags,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub morph_from: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub morph_to: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub morph_delta: F32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub translate_from: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub translate_to: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub translate_delta: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub rotate_from: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub rotate_to: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub rotate_delta: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub scale_from: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub scale_to: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(reader = "read_f32s(deku::reader)")]
    pub scale_delta: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub run_time: F32,
}

const _: () = assert!(ObjectMotionFromTo::SIZE_BITS == 132 * 8);

/// 13 OBJECT_OPACITY_STATE.
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
pub struct ObjectOpacityState {
    #[serde(skip_serializing_if = "is_default")]
    pub is_set: u16,
    #[serde(skip_serializing_if = "is_default")]
    pub active_state: u16,
    #[serde(skip_serializing_if = "is_default")]
    pub opacity: F32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub pad: u16,
}

const _: () = assert!(ObjectOpacityState::SIZE_BITS == 12 * 8);

/// 14 OBJECT_OPACITY_FROM_TO.
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
pub struct ObjectOpacityFromTo {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub state_from: i16,
    #[serde(skip_serializing_if = "is_default")]
    pub state_to: i16,
    #[serde(skip_serializing_if = "is_default")]
    pub opacity_from: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub opacity_to: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub opacity_delta: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub run_time: F32,
}

const _: () = assert!(ObjectOpacityFromTo::SIZE_BITS == 24 * 8);

/// 15 OBJECT_ADD_CHILD / 16 OBJECT_DELETE_CHILD.
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
pub struct ObjectChild {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"parent\")")]
    pub parent: Node16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"child\")")]
    pub child: Node16,
}

const _: () = assert!(ObjectChild::SIZE_BITS == 4 * 8);

/// 17 OBJECT_CYCLE_TEXTURE.
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
pub struct ObjectCycleTexture {
    #[serde(skip_serializing_if = "is_default")]
    pub flags: u32,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub reset: u16,
}

const _: () = assert!(ObjectCycleTexture::SIZE_BITS == 8 * 8);

/// 18 OBJECT_CONNECTOR.
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
pub struct ObjectConnector {
    #[serde(skip_serializing_if = "is_default")]
    pub flags: ConnectorFlags,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"from_node\")")]
    pub from_node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"to_node\")")]
    pub to_node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub pad: u16,
    #[serde(skip_serializing_if = "is_default")]
    pub from_pos: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub to_pos: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub from_t_start: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub from_t_end: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub from_t_delta: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub from_t: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub to_t_start: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub to_t_end: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub to_t_delta: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub to_t: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub run_time: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub max_length: F32,
}

const _: () = assert!(ObjectConnector::SIZE_BITS == 76 * 8);

/// 19 CALL_OBJECT_CONNECTOR.
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
pub struct CallObjectConnector {
    #[serde(skip_serializing_if = "is_default")]
    pub flags: CallConnectorFlags,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"anim_name\")")]
    pub anim_name: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    pub anim_index: i16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"save_index\")")]
    pub save_index: AnimRef16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"from_node\")")]
    pub from_node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"to_node\")")]
    pub to_node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub from_pos: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub to_pos: Vec3,
}

const _: () = assert!(CallObjectConnector::SIZE_BITS == 68 * 8);

/// 20 CAMERA_STATE.
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
pub struct CameraState {
    #[serde(skip_serializing_if = "is_default")]
    pub flags: CameraFlags,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub clip_near: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub clip_far: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub lod_multiplier: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub fov_h: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub fov_v: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub zoom_h: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub zoom_v: F32,
}

const _: () = assert!(CameraState::SIZE_BITS == 36 * 8);

/// 21 CAMERA_FROM_TO: each value is `[from, to, delta]`.
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
pub struct CameraFromTo {
    #[serde(skip_serializing_if = "is_default")]
    pub flags: CameraFlags,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub clip_near: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub clip_far: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub lod_multiplier: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub fov_h: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub fov_v: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub zoom_h: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub zoom_v: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub run_time: F32,
}

const _: () = assert!(CameraFromTo::SIZE_BITS == 96 * 8);

/// 22 CALL_SEQUENCE / 23 STOP_SEQUENCE.
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
pub struct SequenceRef {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    pub index: crate::mw3::anim::prim::MinusOne32,
}

const _: () = assert!(SequenceRef::SIZE_BITS == 36 * 8);

/// 24 CALL_ANIMATION.
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
pub struct CallAnimation {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"operand_node\")")]
    pub operand_node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub flags: CallAnimFlags,
    #[serde(skip_serializing_if = "is_default")]
    pub anim_index: i16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"wait_for_completion\")")]
    pub wait_for_completion: AnimRef16,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub pad: u16,
    #[serde(skip_serializing_if = "is_default")]
    pub position: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub translate: Vec3,
}

const _: () = assert!(CallAnimation::SIZE_BITS == 68 * 8);

/// 25 STOP_ANIMATION.
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
pub struct StopAnimation {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    pub anim_ref_index: i16,
    #[serde(skip_serializing_if = "is_default")]
    pub anim_def_index: i16,
}

const _: () = assert!(StopAnimation::SIZE_BITS == 36 * 8);

/// 26 RESET_ANIMATION / 27 INVALIDATE_ANIMATION.
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
pub struct AnimationRef {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    pub anim_def_index: i32,
}

const _: () = assert!(AnimationRef::SIZE_BITS == 36 * 8);

/// 28 FOG_STATE.
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
pub struct FogState {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"name\")")]
    pub name: Z<32>,
    #[serde(skip_serializing_if = "is_default")]
    pub flags: FogFlags,
    #[serde(rename = "type")]
    #[serde(skip_serializing_if = "is_default")]
    pub fog_type: FogType,
    #[serde(skip_serializing_if = "is_default")]
    pub color: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub altitude: Vec2,
    #[serde(skip_serializing_if = "is_default")]
    pub range: Vec2,
}

const _: () = assert!(FogState::SIZE_BITS == 68 * 8);

/// 32 ELSE / 34 ENDIF: no payload.
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
pub struct Empty {}

const _: () = assert!(Empty::SIZE_BITS == 0);

/// 35 CALLBACK.
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
pub struct Callback {
    #[serde(skip_serializing_if = "is_default")]
    pub value: u32,
}

const _: () = assert!(Callback::SIZE_BITS == 4 * 8);

/// 36 FBFX_COLOR_FROM_TO: each channel is `[from, to, delta]`.
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
pub struct FbfxColorFromTo {
    #[serde(skip_serializing_if = "is_default")]
    pub red: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub green: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub blue: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub alpha: Vec3,
    #[serde(skip_serializing_if = "is_default")]
    pub run_time: F32,
}

const _: () = assert!(FbfxColorFromTo::SIZE_BITS == 52 * 8);

/// 41 DETONATE_WEAPON.
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
pub struct DetonateWeapon {
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"weapon\")")]
    pub weapon: Z<10>,
    #[serde(skip_serializing_if = "is_default")]
    #[deku(ctx = "Name(\"node\")")]
    pub node: Node16,
    #[serde(skip_serializing_if = "is_default")]
    pub translation: Vec3,
}

const _: () = assert!(DetonateWeapon::SIZE_BITS == 24 * 8);

// The reference fields of each payload.
visit_refs! {
    Sound: sound, node;
    SoundNode: sound, node;
    Effect: node;
    LightState: light, node;
    LightAnimation: light;
    ObjectActiveState: node;
    ObjectTranslateState: node, at_node;
    ObjectScaleState: node;
    ObjectRotateState: node, at_node;
    Bounce: sound;
    ObjectMotion: node, bounce;
    ObjectMotionFromTo: node;
    ObjectOpacityState: node;
    ObjectOpacityFromTo: node;
    ObjectChild: parent, child;
    ObjectCycleTexture: node;
    ObjectConnector: node, from_node, to_node;
    CallObjectConnector: save_index, from_node, to_node;
    CameraState: node;
    CameraFromTo: node;
    CallAnimation: operand_node, wait_for_completion, node;
    DetonateWeapon: node;
    SequenceRef: ; StopAnimation: ; AnimationRef: ; FogState: ; Empty: ; Callback: ;
    FbfxColorFromTo: ;
}
