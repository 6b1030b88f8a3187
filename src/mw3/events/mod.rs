//! Sequence events (spec §6): the 12-byte event header and every MechWarrior 3 payload layout,
//! including the variable-size SI script and the 580-byte puffer state.
//!
//! Every payload field is kept as stored (flags as named bits, indices as references, floats by
//! their bits, deltas as stored), so any event round-trips. The copy of a light's / puffer's /
//! dynamic sound's name that some events carry is derived from the referenced item when it
//! matches it (then YAML omits it), and kept as stored when it does not.

use super::prim::{flags, is_default, named, record, Bytes, Ctx, Field, Slots, Vec2, Vec3, Z};
use super::refs::{
    AnimRef16, DynSound32, Light32, Names, Node16, Node32, Puffer32, RefKind, RefVisitor,
    StaticSound16,
};
use crate::exact::{Cursor, DecodeError, EncodeError, Within, F32};
use schemars::JsonSchema;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

// ---------------------------------------------------------------------------------------------
// The copy of a referenced item's name

/// A name an event stores next to an index (LIGHT_STATE, LIGHT_ANIMATION, SOUND_NODE,
/// PUFFER_STATE). `None` = equal to the referenced item's name (regenerated when writing).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ItemName(pub Option<Z<32>>);

impl ItemName {
    pub fn is_derived(&self) -> bool {
        self.0.is_none()
    }
    /// Drop the stored copy when it is exactly the referenced item's name.
    fn derive(&mut self, item: Option<&[u8]>) {
        if let (Some(s), Some(t)) = (&self.0, item) {
            if s.is_clean() && s.text() == t {
                self.0 = None;
            }
        }
    }
}

impl Field for ItemName {
    const SIZE: usize = 32;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        Z::<32>::read(c).map(|s| ItemName(Some(s)))
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        match (&self.0, ctx.item_name) {
            (Some(s), _) => s.write(out, ctx),
            (None, Some(t)) => Z::<32>::from_parts(t, None)?.write(out, ctx),
            (None, None) => Err(EncodeError::new(
                "the name copy cannot be derived: the index does not resolve; give the name",
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Flags and enums

named!(/// Where an event's start time counts from.
    StartOffset: u8 { 1 => "animation", 2 => "sequence", 3 => "event" });

flags!(/// SOUND_NODE flags.
    SoundNodeFlags: u32 { 0x1 => "translate_abs", 0x2 => "at_node" });

flags!(/// LIGHT_STATE flags.
    LightFlags: u32 {
    0x1 => "translate_abs", 0x2 => "at_node", 0x4 => "orientation", 0x8 => "range",
    0x10 => "color", 0x20 => "ambient", 0x40 => "diffuse", 0x80 => "directional",
    0x100 => "saturated", 0x200 => "subdivide", 0x400 => "static",
});

named!(/// LIGHT_STATE light type.
    LightType: u32 { 0 => "directed", 1 => "point_source" });

flags!(/// OBJECT_ROTATE_STATE flags (none = absolute).
    RotateFlags: u32 { 0x1 => "relative", 0x2 => "at_node_xyz", 0x4 => "at_node_matrix" });

flags!(/// OBJECT_MOTION flags.
    MotionFlags: u32 {
    0x1 => "gravity", 0x2 => "impact_force", 0x4 => "translation",
    0x8 => "translation_range_min", 0x10 => "translation_range_max", 0x20 => "xyz_rotation",
    0x40 => "forward_rotation_distance", 0x80 => "forward_rotation_time", 0x100 => "scale",
    0x200 => "morph", 0x400 => "run_time", 0x800 => "bounce_sequence", 0x1000 => "bounce_sound",
    0x2000 => "gravity_complex", 0x4000 => "gravity_no_altitude",
});

flags!(/// OBJECT_MOTION_FROM_TO flags.
    FromToFlags: u32 { 0x1 => "translate", 0x2 => "rotate", 0x4 => "scale", 0x8 => "morph" });

flags!(/// SI script frame blocks.
    FrameFlags: u32 { 0x1 => "translate", 0x2 => "rotate", 0x4 => "scale" });

flags!(/// OBJECT_CONNECTOR flags.
    ConnectorFlags: u32 {
    0x1 => "from_node", 0x2 => "from_input_node", 0x8 => "from_pos", 0x10 => "from_input_pos",
    0x20 => "to_node", 0x40 => "to_input_node", 0x100 => "to_pos", 0x200 => "to_input_pos",
    0x400 => "from_t", 0x800 => "from_t_range", 0x1000 => "to_t", 0x2000 => "to_t_range",
    0x8000 => "max_length",
});

flags!(/// CALL_OBJECT_CONNECTOR flags.
    CallConnectorFlags: u32 {
    0x1 => "from_node", 0x2 => "from_node_pos", 0x4 => "from_input_node",
    0x8 => "from_input_node_pos", 0x10 => "from_pos", 0x20 => "from_input_pos",
    0x40 => "to_node", 0x80 => "to_node_pos", 0x100 => "to_input_node",
    0x200 => "to_input_node_pos", 0x400 => "to_pos", 0x800 => "to_input_pos",
});

flags!(/// CAMERA_STATE / CAMERA_FROM_TO flags.
    CameraFlags: u32 {
    0x1 => "clip_near", 0x2 => "clip_far", 0x4 => "lod_multiplier", 0x8 => "fov_h",
    0x10 => "fov_v", 0x20 => "zoom_h", 0x40 => "zoom_v",
});

flags!(/// CALL_ANIMATION flags.
    CallAnimFlags: u16 {
    0x1 => "at_node", 0x2 => "position", 0x4 => "translate", 0x8 => "with_node",
    0x10 => "wait_for_completion",
});

flags!(/// FOG_STATE flags.
    FogFlags: u32 { 0x1 => "fog_type", 0x2 => "color", 0x4 => "altitude", 0x8 => "density" });

named!(/// FOG_STATE type.
    FogType: u32 { 0 => "off", 1 => "linear", 2 => "exponential" });

flags!(/// LOOP flags.
    LoopFlags: u32 { 0x1 => "count", 0x2 => "run_time" });

named!(/// IF / ELSEIF condition.
    Condition: u32 {
    1 => "random_weight", 2 => "player_range", 4 => "animation_lod", 16 => "node_undercover",
    32 => "hw_render", 64 => "player_1st_person",
});

flags!(/// PUFFER_STATE flags.
    PufferFlags: u32 {
    0x1 => "translate_abs", 0x2 => "at_node", 0x4 => "active_state", 0x8 => "local_velocity",
    0x10 => "world_velocity", 0x20 => "min_random_velocity", 0x40 => "max_random_velocity",
    0x80 => "interval_type", 0x100 => "interval_value", 0x200 => "size_range",
    0x400 => "lifetime_range", 0x800 => "deviation_distance", 0x1000 => "fade_range",
    0x2000 => "growth_factors", 0x4000 => "textures", 0x8000 => "start_age_range",
    0x10000 => "world_acceleration", 0x20000 => "friction", 0x40000 => "colors",
    0x80000 => "unknown_range", 0x100000 => "wind_factor", 0x200000 => "number",
    0x400000 => "priority",
});

// ---------------------------------------------------------------------------------------------
// Fixed payloads

record! {
    /// 1 SOUND.
    pub struct Sound (16) {
        pub sound: StaticSound16,
        pub node: Node16,
        pub pos: Vec3,
    }
}

record! {
    /// 2 SOUND_NODE.
    pub struct SoundNode (60) {
        pub name: ItemName,
        pub sound: DynSound32,
        pub flags: SoundNodeFlags,
        pub active_state: u32,
        pub node: Node32,
        pub translate: Vec3,
    }
}

record! {
    /// 3 EFFECT (never resolves in MechWarrior 3: it has no effects).
    pub struct Effect (16) {
        pub effect_index: i16,
        pub node: Node16,
        pub translation: Vec3,
    }
}

record! {
    /// 4 LIGHT_STATE (MechWarrior 3 layout).
    pub struct LightState (120) {
        pub name: ItemName,
        pub light: Light32,
        pub flags: LightFlags,
        pub active_state: u32,
        #[serde(rename = "type")]
        pub light_type: LightType,
        pub directional: u32,
        pub saturated: u32,
        pub subdivide: u32,
        #[serde(rename = "static")]
        pub static_: u32,
        pub node: Node32,
        pub translate: Vec3,
        pub orientation: Vec3,
        pub range: Vec2,
        pub color: Vec3,
        pub ambient: F32,
        pub diffuse: F32,
    }
}

record! {
    /// 5 LIGHT_ANIMATION.
    pub struct LightAnimation (100) {
        pub name: ItemName,
        pub light: Light32,
        pub range: Vec2,
        pub range_alt: Vec2,
        pub zero52: Vec2,
        pub color: Vec3,
        pub zero72: Vec3,
        pub zero84: Vec3,
        pub run_time: F32,
    }
}

record! {
    /// 6 OBJECT_ACTIVE_STATE.
    pub struct ObjectActiveState (8) {
        pub state: u32,
        pub node: Node16,
        pub pad: u16,
    }
}

record! {
    /// 7 OBJECT_TRANSLATE_STATE.
    pub struct ObjectTranslateState (20) {
        pub relative: u32,
        pub translate: Vec3,
        pub node: Node16,
        pub at_node: Node16,
    }
}

record! {
    /// 8 OBJECT_SCALE_STATE.
    pub struct ObjectScaleState (16) {
        pub scale: Vec3,
        pub node: Node32,
    }
}

record! {
    /// 9 OBJECT_ROTATE_STATE.
    pub struct ObjectRotateState (20) {
        pub flags: RotateFlags,
        pub rotate: Vec3,
        pub node: Node16,
        pub at_node: Node16,
    }
}

record! {
    /// One bounce slot of OBJECT_MOTION (default, water, lava).
    pub struct Bounce (40) {
        pub sequence: Z<32>,
        pub sequence_index: super::prim::MinusOne16,
        pub sound: StaticSound16,
        pub volume: F32,
    }
}

record! {
    /// 10 OBJECT_MOTION (MechWarrior 3 / Pirate's Moon layout).
    pub struct ObjectMotion (320) {
        pub flags: MotionFlags,
        pub node: Node16,
        pub pad: u16,
        pub zero008: F32,
        pub gravity: F32,
        pub morph: F32,
        pub trans_range_xz: Vec2,
        pub trans_range_y: Vec2,
        pub trans_range_initial: Vec2,
        pub trans_range_delta: Vec2,
        pub trans_initial: Vec3,
        pub trans_delta: Vec3,
        pub trans_current: Vec3,
        pub trans_delta_grav: Vec3,
        pub trans_rnd_xz: Vec3,
        pub fwd_rot_initial: F32,
        pub fwd_rot_delta: F32,
        pub fwd_rot_current: F32,
        pub xyz_rot_initial: Vec3,
        pub xyz_rot_delta: Vec3,
        pub xyz_rot_current: Vec3,
        pub scale_initial: Vec3,
        pub scale_delta: Vec3,
        pub scale_current: Vec3,
        pub bounce: [Bounce; 3],
        pub run_time: F32,
    }
}

record! {
    /// 11 OBJECT_MOTION_FROM_TO. Deltas are kept as stored.
    pub struct ObjectMotionFromTo (132) {
        pub flags: FromToFlags,
        pub node: Node32,
        pub morph_from: F32,
        pub morph_to: F32,
        pub morph_delta: F32,
        pub translate_from: Vec3,
        pub translate_to: Vec3,
        pub translate_delta: Vec3,
        pub rotate_from: Vec3,
        pub rotate_to: Vec3,
        pub rotate_delta: Vec3,
        pub scale_from: Vec3,
        pub scale_to: Vec3,
        pub scale_delta: Vec3,
        pub run_time: F32,
    }
}

record! {
    /// 13 OBJECT_OPACITY_STATE.
    pub struct ObjectOpacityState (12) {
        pub is_set: u16,
        pub active_state: u16,
        pub opacity: F32,
        pub node: Node16,
        pub pad: u16,
    }
}

record! {
    /// 14 OBJECT_OPACITY_FROM_TO.
    pub struct ObjectOpacityFromTo (24) {
        pub node: Node32,
        pub state_from: i16,
        pub state_to: i16,
        pub opacity_from: F32,
        pub opacity_to: F32,
        pub opacity_delta: F32,
        pub run_time: F32,
    }
}

record! {
    /// 15 OBJECT_ADD_CHILD / 16 OBJECT_DELETE_CHILD.
    pub struct ObjectChild (4) {
        pub parent: Node16,
        pub child: Node16,
    }
}

record! {
    /// 17 OBJECT_CYCLE_TEXTURE.
    pub struct ObjectCycleTexture (8) {
        pub flags: u32,
        pub node: Node16,
        pub reset: u16,
    }
}

record! {
    /// 18 OBJECT_CONNECTOR.
    pub struct ObjectConnector (76) {
        pub flags: ConnectorFlags,
        pub node: Node16,
        pub from_node: Node16,
        pub to_node: Node16,
        pub pad: u16,
        pub from_pos: Vec3,
        pub to_pos: Vec3,
        pub from_t_start: F32,
        pub from_t_end: F32,
        pub from_t_delta: F32,
        pub from_t: F32,
        pub to_t_start: F32,
        pub to_t_end: F32,
        pub to_t_delta: F32,
        pub to_t: F32,
        pub run_time: F32,
        pub max_length: F32,
    }
}

record! {
    /// 19 CALL_OBJECT_CONNECTOR.
    pub struct CallObjectConnector (68) {
        pub flags: CallConnectorFlags,
        pub anim_name: Z<32>,
        pub anim_index: i16,
        pub save_index: AnimRef16,
        pub from_node: Node16,
        pub to_node: Node16,
        pub from_pos: Vec3,
        pub to_pos: Vec3,
    }
}

record! {
    /// 20 CAMERA_STATE.
    pub struct CameraState (36) {
        pub flags: CameraFlags,
        pub node: Node32,
        pub clip_near: F32,
        pub clip_far: F32,
        pub lod_multiplier: F32,
        pub fov_h: F32,
        pub fov_v: F32,
        pub zoom_h: F32,
        pub zoom_v: F32,
    }
}

record! {
    /// 21 CAMERA_FROM_TO: each value is `[from, to, delta]`.
    pub struct CameraFromTo (96) {
        pub flags: CameraFlags,
        pub node: Node32,
        pub clip_near: Vec3,
        pub clip_far: Vec3,
        pub lod_multiplier: Vec3,
        pub fov_h: Vec3,
        pub fov_v: Vec3,
        pub zoom_h: Vec3,
        pub zoom_v: Vec3,
        pub run_time: F32,
    }
}

record! {
    /// 22 CALL_SEQUENCE / 23 STOP_SEQUENCE.
    pub struct SequenceRef (36) {
        pub name: Z<32>,
        pub index: super::prim::MinusOne32,
    }
}

record! {
    /// 24 CALL_ANIMATION.
    pub struct CallAnimation (68) {
        pub name: Z<32>,
        pub operand_node: Node16,
        pub flags: CallAnimFlags,
        pub anim_index: i16,
        pub wait_for_completion: AnimRef16,
        pub node: Node16,
        pub pad: u16,
        pub position: Vec3,
        pub translate: Vec3,
    }
}

record! {
    /// 25 STOP_ANIMATION.
    pub struct StopAnimation (36) {
        pub name: Z<32>,
        pub anim_ref_index: i16,
        pub anim_def_index: i16,
    }
}

record! {
    /// 26 RESET_ANIMATION / 27 INVALIDATE_ANIMATION.
    pub struct AnimationRef (36) {
        pub name: Z<32>,
        pub anim_def_index: i32,
    }
}

record! {
    /// 28 FOG_STATE.
    pub struct FogState (68) {
        pub name: Z<32>,
        pub flags: FogFlags,
        #[serde(rename = "type")]
        pub fog_type: FogType,
        pub color: Vec3,
        pub altitude: Vec2,
        pub range: Vec2,
    }
}

record! {
    /// 32 ELSE / 34 ENDIF: no payload.
    pub struct Empty (0) {
    }
}

record! {
    /// 35 CALLBACK.
    pub struct Callback (4) {
        pub value: u32,
    }
}

record! {
    /// 36 FBFX_COLOR_FROM_TO: each channel is `[from, to, delta]`.
    pub struct FbfxColorFromTo (52) {
        pub red: Vec3,
        pub green: Vec3,
        pub blue: Vec3,
        pub alpha: Vec3,
        pub run_time: F32,
    }
}

record! {
    /// 41 DETONATE_WEAPON.
    pub struct DetonateWeapon (24) {
        pub weapon: Z<10>,
        pub node: Node16,
        pub translation: Vec3,
    }
}

record! {
    /// A PUFFER_STATE texture slot.
    pub struct PufferTexture (36) {
        pub run_time: F32,
        pub name: Z<32>,
    }
}

record! {
    /// A PUFFER_STATE colour slot.
    pub struct PufferColor (20) {
        pub unk00: F32,
        pub color: Vec3,
        pub unk16: F32,
    }
}

record! {
    /// 42 PUFFER_STATE (MechWarrior 3 layout, 580 bytes).
    pub struct PufferState (580) {
        pub name: ItemName,
        pub puffer: Puffer32,
        pub flags: PufferFlags,
        pub node: Node32,
        pub active_state: u32,
        pub translate: Vec3,
        pub local_velocity: Vec3,
        pub world_velocity: Vec3,
        pub min_random_velocity: Vec3,
        pub max_random_velocity: Vec3,
        pub world_acceleration: Vec3,
        pub interval_type: u32,
        pub interval_value: F32,
        pub size_range: Vec2,
        pub lifetime_range: Vec2,
        pub start_age_range: Vec2,
        pub deviation_distance: F32,
        pub unk_range: Vec2,
        pub fade_range: Vec2,
        pub friction: F32,
        pub wind_factor: F32,
        pub priority: F32,
        pub tex_has_run_time: u32,
        pub textures: Slots<PufferTexture, 6>,
        pub color_count: u32,
        pub colors: Slots<PufferColor, 6>,
        pub growth_count: u32,
        pub growths: Slots<Vec2, 6>,
    }
}

// ---------------------------------------------------------------------------------------------
// Payloads with a data-dependent layout

/// 30 LOOP: a count (flags = count) or a run time (any other flags; the 4 bytes as f32).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Loop {
    pub flags: LoopFlags,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i16>,
    #[serde(skip_serializing_if = "is_default")]
    pub pad: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_time: Option<F32>,
}

impl Loop {
    fn is_count(flags: LoopFlags) -> bool {
        flags.0 == 0x1
    }
}

impl Field for Loop {
    const SIZE: usize = 8;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let flags = LoopFlags::read(c).within("flags")?;
        if Self::is_count(flags) {
            Ok(Loop {
                flags,
                count: Some(c.i16().within("count")?),
                pad: c.u16().within("pad")?,
                run_time: None,
            })
        } else {
            Ok(Loop {
                flags,
                count: None,
                pad: 0,
                run_time: Some(F32::read(c).within("run_time")?),
            })
        }
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.flags.write(out, ctx)?;
        match (self.count, self.run_time) {
            (Some(n), None) => {
                n.write(out, ctx)?;
                self.pad.write(out, ctx)
            }
            (None, Some(t)) => t.write(out, ctx),
            _ => Err(EncodeError::new(
                "a loop has either `count` or `run_time`, exactly one",
            )),
        }
    }
}

/// 31 IF / 33 ELSEIF. `value` is a float for random_weight / player_range, an integer
/// otherwise.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct If {
    pub condition: Condition,
    pub node_index: u32,
    /// The raw 4 value bytes as a u32.
    pub value: u32,
}

impl If {
    fn value_is_float(c: Condition) -> bool {
        c.0 == 1 || c.0 == 2
    }
}

impl Field for If {
    const SIZE: usize = 12;
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        Ok(If {
            condition: Condition::read(c).within("condition")?,
            node_index: c.u32().within("node_index")?,
            value: c.u32().within("value")?,
        })
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.condition.write(out, ctx)?;
        self.node_index.write(out, ctx)?;
        self.value.write(out, ctx)
    }
}

impl Serialize for If {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("If", 3)?;
        st.serialize_field("condition", &self.condition)?;
        if self.node_index != 0 {
            st.serialize_field("node_index", &self.node_index)?;
        }
        if Self::value_is_float(self.condition) {
            st.serialize_field("value", &F32(self.value))?;
        } else {
            st.serialize_field("value", &self.value)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for If {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Raw {
            condition: Condition,
            #[serde(default)]
            node_index: u32,
            value: String,
        }
        let r = Raw::deserialize(d)?;
        let value = if Self::value_is_float(r.condition) {
            crate::exact::float::parse_f32(&r.value)
                .map(|f| f.0)
                .ok_or_else(|| de::Error::custom(format!("value {:?} is not a number", r.value)))?
        } else {
            crate::exact::blob::parse_u32(&r.value).ok_or_else(|| {
                de::Error::custom(format!("value {:?} is not a 32-bit integer", r.value))
            })?
        };
        Ok(If {
            condition: r.condition,
            node_index: r.node_index,
            value,
        })
    }
}

impl JsonSchema for If {
    fn schema_name() -> String {
        "If".into()
    }
    fn json_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        crate::exact::schema_from_json(serde_json::json!({
            "type": "object", "required": ["condition", "value"], "additionalProperties": false,
            "properties": {
                "condition": {"anyOf": [{"enum": Condition::NAMES.iter().map(|(_, n)| *n).collect::<Vec<_>>()}, {"type": "integer"}]},
                "node_index": {"type": "integer"},
                "value": {"description": "a float for random_weight and player_range, an integer otherwise", "type": ["number", "string"]}
            }
        }))
    }
}

record! {
    /// A translate or scale block of an SI script frame.
    pub struct SiVec (76) {
        pub base: Vec3,
        /// Leftover memory, kept.
        pub garbage: crate::exact::Hex32,
        pub delta: Vec3,
        pub spline_x: Bytes<16>,
        pub spline_y: Bytes<16>,
        pub spline_z: Bytes<16>,
    }
}

record! {
    /// The rotate block of an SI script frame.
    pub struct SiRotate (76) {
        pub base: [F32; 4],
        pub delta: Vec3,
        pub spline_x: Bytes<16>,
        pub spline_y: Bytes<16>,
        pub spline_z: Bytes<16>,
    }
}

/// One SI script frame; the flag bits for the three blocks follow from which are present.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SiFrame {
    pub start_time: F32,
    pub end_time: F32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translate: Option<SiVec>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotate: Option<SiRotate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<SiVec>,
    /// Flag bits other than the three blocks (kept).
    #[serde(skip_serializing_if = "is_default")]
    pub other_flags: FrameFlags,
}

/// 12 OBJECT_MOTION_SI_SCRIPT: the script is stored inline (24-byte header + frames).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SiScript {
    pub node: Node32,
    #[serde(skip_serializing_if = "is_default")]
    pub unk08: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub script_time: F32,
    #[serde(skip_serializing_if = "is_default")]
    pub script_pos: u32,
    #[serde(skip_serializing_if = "is_default")]
    pub frame_index: u32,
    pub frames: Vec<SiFrame>,
}

impl SiScript {
    fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let node = Node32::read(c).within("node")?;
        let count_at = c.offset();
        let frame_count = c.u32().within("frame_count")?;
        let unk08 = F32::read(c).within("unk08")?;
        let script_time = F32::read(c).within("script_time")?;
        let script_pos = c.u32().within("script_pos")?;
        let frame_index = c.u32().within("frame_index")?;
        let n = c
            .check_count(frame_count as u64, 12)
            .map_err(|mut e| {
                e.offset = count_at;
                e
            })
            .within("frame_count")?;
        let mut frames = Vec::with_capacity(n);
        for i in 0..n {
            frames.push(Self::read_frame(c).within_index(i).within("frames")?);
        }
        Ok(SiScript {
            node,
            unk08,
            script_time,
            script_pos,
            frame_index,
            frames,
        })
    }
    fn read_frame(c: &mut Cursor) -> Result<SiFrame, DecodeError> {
        let flags = FrameFlags::read(c).within("flags")?;
        let start_time = F32::read(c).within("start_time")?;
        let end_time = F32::read(c).within("end_time")?;
        let translate = if flags.has(1) {
            Some(SiVec::read(c).within("translate")?)
        } else {
            None
        };
        let rotate = if flags.has(2) {
            Some(SiRotate::read(c).within("rotate")?)
        } else {
            None
        };
        let scale = if flags.has(4) {
            Some(SiVec::read(c).within("scale")?)
        } else {
            None
        };
        Ok(SiFrame {
            start_time,
            end_time,
            translate,
            rotate,
            scale,
            other_flags: FrameFlags(flags.0 & !7),
        })
    }
    fn write(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.node.write(out, ctx).within("node")?;
        let n = u32::try_from(self.frames.len())
            .map_err(|_| EncodeError::new("too many frames"))
            .within("frames")?;
        n.write(out, ctx)?;
        self.unk08.write(out, ctx)?;
        self.script_time.write(out, ctx)?;
        self.script_pos.write(out, ctx)?;
        self.frame_index.write(out, ctx)?;
        for (i, f) in self.frames.iter().enumerate() {
            let r: Result<(), EncodeError> = (|| {
                if f.other_flags.0 & 7 != 0 {
                    return Err(EncodeError::new(
                        "other_flags may not hold translate/rotate/scale; give the block instead",
                    ));
                }
                let flags = f.other_flags.0
                    | u32::from(f.translate.is_some())
                    | (u32::from(f.rotate.is_some()) << 1)
                    | (u32::from(f.scale.is_some()) << 2);
                flags.write(out, ctx)?;
                f.start_time.write(out, ctx)?;
                f.end_time.write(out, ctx)?;
                if let Some(t) = &f.translate {
                    t.write(out, ctx)?;
                }
                if let Some(r) = &f.rotate {
                    r.write(out, ctx)?;
                }
                if let Some(s) = &f.scale {
                    s.write(out, ctx)?;
                }
                Ok(())
            })();
            r.within_index(i).within("frames")?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// The event enum

macro_rules! events {
    ($($code:literal => $var:ident($ty:ty) $name:literal),* $(,)?) => {
        /// An event's payload, by type.
        #[derive(Debug, Clone, PartialEq)]
        pub enum EventData {
            $($var($ty),)*
        }

        /// The names of the event types, by code.
        pub const EVENT_TYPES: &[(u8, &str)] = &[$(($code, $name)),*];

        impl EventData {
            /// The type code.
            pub fn code(&self) -> u8 {
                match self { $(EventData::$var(_) => $code,)* }
            }
            /// The YAML name of the type.
            pub fn name(&self) -> &'static str {
                match self { $(EventData::$var(_) => $name,)* }
            }
            fn read_payload(code: u8, c: &mut Cursor) -> Result<Option<Self>, DecodeError> {
                Ok(Some(match code {
                    $($code => EventData::$var(<$ty as Payload>::read_payload(c)?),)*
                    _ => return Ok(None),
                }))
            }
            /// The payload size a type requires (`None`: variable).
            pub fn fixed_size(code: u8) -> Option<Option<usize>> {
                match code {
                    $($code => Some(<$ty as Payload>::FIXED),)*
                    _ => None,
                }
            }
            fn write_payload(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
                match self { $(EventData::$var(p) => p.write_payload(out, ctx),)* }
            }
            pub fn visit_refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
                match self { $(EventData::$var(p) => p.refs(v),)* }
            }
            fn ser_entry<M: serde::ser::SerializeMap>(&self, m: &mut M) -> Result<(), M::Error> {
                match self { $(EventData::$var(p) => m.serialize_entry($name, p),)* }
            }
            fn de_entry<'de, A: de::MapAccess<'de>>(key: &str, m: &mut A) -> Result<Option<Self>, A::Error> {
                Ok(Some(match key {
                    $($name => EventData::$var(m.next_value()?),)*
                    _ => return Ok(None),
                }))
            }
            fn schema_properties(g: &mut schemars::gen::SchemaGenerator) -> Vec<(&'static str, schemars::schema::Schema)> {
                vec![$(($name, g.subschema_for::<$ty>()),)*]
            }
        }
    };
}

/// How an event payload type is read and written inside its event.
trait Payload: Sized {
    /// The payload size, or `None` for the variable-size SI script.
    const FIXED: Option<usize>;
    fn read_payload(c: &mut Cursor) -> Result<Self, DecodeError>;
    fn write_payload(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError>;
    fn refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError>;
}

impl<T: Field> Payload for T {
    const FIXED: Option<usize> = Some(T::SIZE);
    fn read_payload(c: &mut Cursor) -> Result<Self, DecodeError> {
        T::read(c)
    }
    fn write_payload(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.write(out, ctx)
    }
    fn refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        self.visit_refs(v)
    }
}

/// The SI script is the only variable-size payload.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct SiScriptPayload(pub SiScript);

impl Payload for SiScriptPayload {
    const FIXED: Option<usize> = None;
    fn read_payload(c: &mut Cursor) -> Result<Self, DecodeError> {
        SiScript::read(c).map(SiScriptPayload)
    }
    fn write_payload(&self, out: &mut Vec<u8>, ctx: &Ctx) -> Result<(), EncodeError> {
        self.0.write(out, ctx)
    }
    fn refs(&mut self, v: &mut RefVisitor) -> Result<(), EncodeError> {
        self.0.node.visit_refs(v).within("node")
    }
}

events! {
    1 => Sound(Sound) "sound",
    2 => SoundNode(SoundNode) "sound_node",
    3 => Effect(Effect) "effect",
    4 => LightState(Box<LightState>) "light_state",
    5 => LightAnimation(LightAnimation) "light_animation",
    6 => ObjectActiveState(ObjectActiveState) "object_active_state",
    7 => ObjectTranslateState(ObjectTranslateState) "object_translate_state",
    8 => ObjectScaleState(ObjectScaleState) "object_scale_state",
    9 => ObjectRotateState(ObjectRotateState) "object_rotate_state",
    10 => ObjectMotion(Box<ObjectMotion>) "object_motion",
    11 => ObjectMotionFromTo(Box<ObjectMotionFromTo>) "object_motion_from_to",
    12 => ObjectMotionSiScript(SiScriptPayload) "object_motion_si_script",
    13 => ObjectOpacityState(ObjectOpacityState) "object_opacity_state",
    14 => ObjectOpacityFromTo(ObjectOpacityFromTo) "object_opacity_from_to",
    15 => ObjectAddChild(ObjectChild) "object_add_child",
    16 => ObjectDeleteChild(ObjectChild) "object_delete_child",
    17 => ObjectCycleTexture(ObjectCycleTexture) "object_cycle_texture",
    18 => ObjectConnector(ObjectConnector) "object_connector",
    19 => CallObjectConnector(CallObjectConnector) "call_object_connector",
    20 => CameraState(CameraState) "camera_state",
    21 => CameraFromTo(CameraFromTo) "camera_from_to",
    22 => CallSequence(SequenceRef) "call_sequence",
    23 => StopSequence(SequenceRef) "stop_sequence",
    24 => CallAnimation(CallAnimation) "call_animation",
    25 => StopAnimation(StopAnimation) "stop_animation",
    26 => ResetAnimation(AnimationRef) "reset_animation",
    27 => InvalidateAnimation(AnimationRef) "invalidate_animation",
    28 => FogState(FogState) "fog_state",
    30 => Loop(Loop) "loop",
    31 => If(If) "if",
    32 => Else(Empty) "else",
    33 => Elseif(If) "elseif",
    34 => Endif(Empty) "endif",
    35 => Callback(Callback) "callback",
    36 => FbfxColorFromTo(FbfxColorFromTo) "fbfx_color_from_to",
    41 => DetonateWeapon(DetonateWeapon) "detonate_weapon",
    42 => PufferState(Box<PufferState>) "puffer_state",
}

impl EventData {
    /// The referenced item whose name this event keeps a copy of.
    fn item_ref(&self) -> Option<(RefKind, i32)> {
        match self {
            EventData::SoundNode(p) => Some((RefKind::DynamicSound, p.sound.index())),
            EventData::LightState(p) => Some((RefKind::Light, p.light.index())),
            EventData::LightAnimation(p) => Some((RefKind::Light, p.light.index())),
            EventData::PufferState(p) => Some((RefKind::Puffer, p.puffer.index())),
            _ => None,
        }
    }
    fn item_name_mut(&mut self) -> Option<&mut ItemName> {
        match self {
            EventData::SoundNode(p) => Some(&mut p.name),
            EventData::LightState(p) => Some(&mut p.name),
            EventData::LightAnimation(p) => Some(&mut p.name),
            EventData::PufferState(p) => Some(&mut p.name),
            _ => None,
        }
    }
}

/// The size of the event header.
pub const EVENT_HEADER_SIZE: usize = 12;

/// One event: header fields and payload. The event's size is derived from the payload.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub start_offset: StartOffset,
    pub pad: u16,
    pub start_time: F32,
    pub data: EventData,
}

impl Event {
    pub fn new(data: EventData) -> Self {
        Event {
            start_offset: StartOffset(1),
            pad: 0,
            start_time: F32(0),
            data,
        }
    }

    /// Read one event from an event stream (the cursor covers the rest of the stream).
    pub fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let at = c.offset();
        if c.remaining() < EVENT_HEADER_SIZE {
            return Err(DecodeError::invalid(
                at,
                format!(
                    "event header needs {EVENT_HEADER_SIZE} bytes but the stream has {} left",
                    c.remaining()
                ),
            ));
        }
        let code = c.u8().within("type")?;
        let start_offset = StartOffset::read(c).within("start_offset")?;
        let pad = c.u16().within("pad")?;
        let size_at = c.offset();
        let size = c.u32().within("size")?;
        let start_time = F32::read(c).within("start_time")?;
        let Some(fixed) = EventData::fixed_size(code) else {
            return Err(DecodeError::invalid(
                at,
                format!("unknown event type {code}"),
            ))
            .within("type");
        };
        let bad_size = |msg: String| Err(DecodeError::invalid(size_at, msg)).within("size");
        let Some(payload_len) = (size as usize).checked_sub(EVENT_HEADER_SIZE) else {
            return bad_size(format!(
                "event size {size} is smaller than its 12-byte header"
            ));
        };
        let name = || {
            EVENT_TYPES
                .iter()
                .find(|(c, _)| *c == code)
                .map_or("?", |(_, n)| *n)
        };
        if let Some(want) = fixed {
            if payload_len != want {
                return bad_size(format!(
                    "event size {size} disagrees with type {code} ({}), which is {} bytes",
                    name(),
                    want + EVENT_HEADER_SIZE
                ));
            }
        }
        if payload_len > c.remaining() {
            return bad_size(format!(
                "event size {size} runs past the end of its sequence ({} bytes left)",
                c.remaining() + EVENT_HEADER_SIZE
            ));
        }
        let base = c.offset();
        let bytes = c.bytes(payload_len)?;
        let mut pc = Cursor::new(bytes, base);
        let data = EventData::read_payload(code, &mut pc)
            .map_err(|mut e| {
                e.path.prefix(crate::exact::Segment::Field(name()));
                e
            })?
            .ok_or_else(|| DecodeError::invalid(at, format!("unknown event type {code}")))?;
        if !pc.is_empty() {
            return Err(DecodeError::invalid(
                pc.offset(),
                format!(
                    "the {} payload uses {} bytes but the event size says {payload_len}",
                    name(),
                    payload_len - pc.remaining()
                ),
            ))
            .within("size");
        }
        Ok(Event {
            start_offset,
            pad,
            start_time,
            data,
        })
    }

    pub fn write(&self, out: &mut Vec<u8>, names: &Names) -> Result<(), EncodeError> {
        let start = out.len();
        out.push(self.data.code());
        out.push(self.start_offset.0);
        out.extend_from_slice(&self.pad.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&self.start_time.0.to_le_bytes());
        let item = self
            .data
            .item_ref()
            .and_then(|(kind, index)| names.item(kind, index));
        let ctx = Ctx { item_name: item };
        self.data
            .write_payload(out, &ctx)
            .within(self.data.name())?;
        let size = u32::try_from(out.len() - start)
            .map_err(|_| EncodeError::new("event larger than 4 GiB"))?;
        out[start + 4..start + 8].copy_from_slice(&size.to_le_bytes());
        Ok(())
    }

    /// After decoding: drop the stored copy of the referenced item's name when it matches.
    pub fn derive_name_copy(&mut self, names: &Names) {
        let item = self
            .data
            .item_ref()
            .and_then(|(kind, index)| names.item(kind, index));
        if let Some(n) = self.data.item_name_mut() {
            n.derive(item);
        }
    }

    /// Store in every reference the name its index resolves to.
    pub fn attach_names(&mut self, names: &Names) {
        let _ = self.data.visit_refs(&mut |kind, r| {
            names.fill(kind, r);
            Ok(())
        });
    }
}

/// How many events a stream holds, from the size fields alone (an upper bound for a broken
/// stream; the reader reports the problem). Sizes the events vector exactly, since an event
/// in the model is often larger than on disk.
fn count_events(data: &[u8]) -> usize {
    let mut pos = 0usize;
    let mut n = 0usize;
    while let Some(size) = data.get(pos + 4..pos + 8) {
        n += 1;
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
        if size < EVENT_HEADER_SIZE {
            break;
        }
        pos = pos.saturating_add(size);
    }
    n
}

/// Read an event stream of exactly `data.len()` bytes starting at absolute `base`.
pub fn read_stream(data: &[u8], base: u64) -> Result<Vec<Event>, DecodeError> {
    let mut c = Cursor::new(data, base);
    let mut events = Vec::with_capacity(count_events(data));
    while !c.is_empty() {
        let i = events.len();
        events.push(Event::read(&mut c).within_index(i)?);
    }
    Ok(events)
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        // like mech3ax: no `start`/`time` for "at the start of the animation"
        if self.start_offset.0 != 1 {
            m.serialize_entry("start", &self.start_offset)?;
        }
        if self.start_time.0 != 0 {
            m.serialize_entry("time", &self.start_time)?;
        }
        if self.pad != 0 {
            m.serialize_entry("pad", &self.pad)?;
        }
        self.data.ser_entry(&mut m)?;
        m.end()
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> de::Visitor<'de> for V {
            type Value = Event;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an event: {start: ..., time: ..., <type>: {...}}")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Event, A::Error> {
                let mut start_offset = StartOffset(1);
                let mut start_time = F32(0);
                let mut pad = 0;
                let mut data = None;
                while let Some(k) = m.next_key::<String>()? {
                    match k.as_str() {
                        "start" => start_offset = m.next_value()?,
                        "time" => start_time = m.next_value()?,
                        "pad" => pad = m.next_value()?,
                        other => match EventData::de_entry(other, &mut m)? {
                            Some(_) if data.is_some() => {
                                return Err(de::Error::custom("an event has exactly one type"))
                            }
                            Some(x) => data = Some(x),
                            None => {
                                let known: Vec<&str> =
                                    EVENT_TYPES.iter().map(|(_, n)| *n).collect();
                                return Err(de::Error::custom(format!(
                                    "unknown event key `{other}` (start, time, pad, or a type: {})",
                                    known.join(", ")
                                )));
                            }
                        },
                    }
                }
                let data = data.ok_or_else(|| de::Error::custom("the event has no type key"))?;
                Ok(Event {
                    start_offset,
                    pad,
                    start_time,
                    data,
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl JsonSchema for Event {
    fn schema_name() -> String {
        "Event".into()
    }
    fn json_schema(g: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        use schemars::schema::{InstanceType, ObjectValidation, Schema, SchemaObject};
        let mut props = schemars::Map::new();
        props.insert("start".to_string(), g.subschema_for::<StartOffset>());
        props.insert("time".to_string(), g.subschema_for::<F32>());
        props.insert("pad".to_string(), g.subschema_for::<u16>());
        for (name, s) in EventData::schema_properties(g) {
            props.insert(name.to_string(), s);
        }
        let obj = SchemaObject {
            instance_type: Some(InstanceType::Object.into()),
            object: Some(Box::new(ObjectValidation {
                properties: props,
                additional_properties: Some(Box::new(Schema::Bool(false))),
                min_properties: Some(1),
                ..Default::default()
            })),
            metadata: Some(Box::new(schemars::schema::Metadata {
                description: Some(
                    "an event: its start (animation/sequence/event), time, and exactly one type key with the payload"
                        .into(),
                ),
                ..Default::default()
            })),
            ..Default::default()
        };
        Schema::Object(obj)
    }
}
