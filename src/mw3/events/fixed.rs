//! Event payloads with a fixed layout, one declared record each.

use super::{
    CallAnimFlags, CallConnectorFlags, CameraFlags, ConnectorFlags, FogFlags, FogType, FromToFlags,
    ItemName, LightFlags, LightType, MotionFlags, PufferFlags, RotateFlags, SoundNodeFlags,
};
use crate::exact::F32;
use crate::mw3::prim::{record, Slots, Vec2, Vec3, Z};
use crate::mw3::ref_fields::{
    AnimRef16, DynSound32, Light32, Node16, Node32, Puffer32, StaticSound16,
};

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
        pub sequence_index: crate::mw3::prim::MinusOne16,
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
        pub index: crate::mw3::prim::MinusOne32,
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
