//! Event payloads with a fixed layout, one deku record each (fields in on-disk order; names,
//! references and slot arrays carry their field name as deku context for error paths).

use super::{
    CallAnimFlags, CallConnectorFlags, CameraFlags, ConnectorFlags, FogFlags, FogType, FromToFlags,
    ItemName, LightFlags, LightType, MotionFlags, RotateFlags, SoundNodeFlags,
};

use crate::exact::record::Record;
use crate::exact::F32;
use crate::mw3::anim::prim::{is_default, Vec2, Vec3, Z};
use crate::mw3::anim::ref_fields::{
    visit_refs, AnimRef16, DynSound32, Light32, Node16, Node32, StaticSound16,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

crate::record! {
    /// 1 SOUND.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Sound: little {
        #[serde(skip_serializing_if = "is_default")]
        pub sound: StaticSound16,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub pos: Vec3,
    }
}

const _: () = assert!(<Sound as Record>::SIZE == 16);

crate::record! {
    /// 2 SOUND_NODE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct SoundNode: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: ItemName,
        #[serde(skip_serializing_if = "is_default")]
        pub sound: DynSound32,
        #[serde(skip_serializing_if = "is_default")]
        pub flags: SoundNodeFlags,
        #[serde(skip_serializing_if = "is_default")]
        pub active_state: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node32,
        #[serde(skip_serializing_if = "is_default")]
        pub translate: Vec3,
    }
}

const _: () = assert!(<SoundNode as Record>::SIZE == 60);

crate::record! {
    /// 3 EFFECT (never resolves in MechWarrior 3: it has no effects).
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Effect: little {
        #[serde(skip_serializing_if = "is_default")]
        pub effect_index: i16,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub translation: Vec3,
    }
}

const _: () = assert!(<Effect as Record>::SIZE == 16);

crate::record! {
    /// 4 LIGHT_STATE (MechWarrior 3 layout).
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct LightState: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: ItemName,
        #[serde(skip_serializing_if = "is_default")]
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
}

const _: () = assert!(<LightState as Record>::SIZE == 120);

crate::record! {
    /// 5 LIGHT_ANIMATION.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct LightAnimation: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: ItemName,
        #[serde(skip_serializing_if = "is_default")]
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
}

const _: () = assert!(<LightAnimation as Record>::SIZE == 100);

crate::record! {
    /// 6 OBJECT_ACTIVE_STATE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectActiveState: little {
        #[serde(skip_serializing_if = "is_default")]
        pub state: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub pad: u16,
    }
}

const _: () = assert!(<ObjectActiveState as Record>::SIZE == 8);

crate::record! {
    /// 7 OBJECT_TRANSLATE_STATE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectTranslateState: little {
        #[serde(skip_serializing_if = "is_default")]
        pub relative: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub translate: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub at_node: Node16,
    }
}

const _: () = assert!(<ObjectTranslateState as Record>::SIZE == 20);

crate::record! {
    /// 8 OBJECT_SCALE_STATE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectScaleState: little {
        #[serde(skip_serializing_if = "is_default")]
        pub scale: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node32,
    }
}

const _: () = assert!(<ObjectScaleState as Record>::SIZE == 16);

crate::record! {
    /// 9 OBJECT_ROTATE_STATE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectRotateState: little {
        #[serde(skip_serializing_if = "is_default")]
        pub flags: RotateFlags,
        #[serde(skip_serializing_if = "is_default")]
        pub rotate: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub at_node: Node16,
    }
}

const _: () = assert!(<ObjectRotateState as Record>::SIZE == 20);

crate::record! {
    /// One bounce slot of OBJECT_MOTION (default, water, lava).
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Bounce: little {
        #[serde(skip_serializing_if = "is_default")]
        pub sequence: Z<32>,
        #[serde(skip_serializing_if = "is_default")]
        pub sequence_index: crate::mw3::anim::prim::MinusOne16,
        #[serde(skip_serializing_if = "is_default")]
        pub sound: StaticSound16,
        #[serde(skip_serializing_if = "is_default")]
        pub volume: F32,
    }
}

const _: () = assert!(<Bounce as Record>::SIZE == 40);

crate::record! {
    /// 10 OBJECT_MOTION (MechWarrior 3 / Pirate's Moon layout).
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectMotion: little {
        #[serde(skip_serializing_if = "is_default")]
        pub flags: MotionFlags,
        #[serde(skip_serializing_if = "is_default")]
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
        pub trans_range_xz: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub trans_range_y: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub trans_range_initial: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub trans_range_delta: Vec2,
        #[serde(skip_serializing_if = "is_default")]
        pub trans_initial: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub trans_delta: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub trans_current: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub trans_delta_grav: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub trans_rnd_xz: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub fwd_rot_initial: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub fwd_rot_delta: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub fwd_rot_current: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub xyz_rot_initial: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub xyz_rot_delta: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub xyz_rot_current: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub scale_initial: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub scale_delta: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub scale_current: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub bounce: [Bounce; 3],
        #[serde(skip_serializing_if = "is_default")]
        pub run_time: F32,
    }
}

const _: () = assert!(<ObjectMotion as Record>::SIZE == 320);

crate::record! {
    /// 11 OBJECT_MOTION_FROM_TO. Deltas are kept as stored.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectMotionFromTo: little {
        #[serde(skip_serializing_if = "is_default")]
        pub flags: FromToFlags,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node32,
        #[serde(skip_serializing_if = "is_default")]
        pub morph_from: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub morph_to: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub morph_delta: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub translate_from: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub translate_to: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub translate_delta: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub rotate_from: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub rotate_to: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub rotate_delta: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub scale_from: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub scale_to: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub scale_delta: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub run_time: F32,
    }
}

const _: () = assert!(<ObjectMotionFromTo as Record>::SIZE == 132);

crate::record! {
    /// 13 OBJECT_OPACITY_STATE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectOpacityState: little {
        #[serde(skip_serializing_if = "is_default")]
        pub is_set: u16,
        #[serde(skip_serializing_if = "is_default")]
        pub active_state: u16,
        #[serde(skip_serializing_if = "is_default")]
        pub opacity: F32,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub pad: u16,
    }
}

const _: () = assert!(<ObjectOpacityState as Record>::SIZE == 12);

crate::record! {
    /// 14 OBJECT_OPACITY_FROM_TO.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectOpacityFromTo: little {
        #[serde(skip_serializing_if = "is_default")]
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
}

const _: () = assert!(<ObjectOpacityFromTo as Record>::SIZE == 24);

crate::record! {
    /// 15 OBJECT_ADD_CHILD / 16 OBJECT_DELETE_CHILD.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectChild: little {
        #[serde(skip_serializing_if = "is_default")]
        pub parent: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub child: Node16,
    }
}

const _: () = assert!(<ObjectChild as Record>::SIZE == 4);

crate::record! {
    /// 17 OBJECT_CYCLE_TEXTURE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectCycleTexture: little {
        #[serde(skip_serializing_if = "is_default")]
        pub flags: u32,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub reset: u16,
    }
}

const _: () = assert!(<ObjectCycleTexture as Record>::SIZE == 8);

crate::record! {
    /// 18 OBJECT_CONNECTOR.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct ObjectConnector: little {
        #[serde(skip_serializing_if = "is_default")]
        pub flags: ConnectorFlags,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub from_node: Node16,
        #[serde(skip_serializing_if = "is_default")]
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
}

const _: () = assert!(<ObjectConnector as Record>::SIZE == 76);

crate::record! {
    /// 19 CALL_OBJECT_CONNECTOR.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct CallObjectConnector: little {
        #[serde(skip_serializing_if = "is_default")]
        pub flags: CallConnectorFlags,
        #[serde(skip_serializing_if = "is_default")]
        pub anim_name: Z<32>,
        #[serde(skip_serializing_if = "is_default")]
        pub anim_index: i16,
        #[serde(skip_serializing_if = "is_default")]
        pub save_index: AnimRef16,
        #[serde(skip_serializing_if = "is_default")]
        pub from_node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub to_node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub from_pos: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub to_pos: Vec3,
    }
}

const _: () = assert!(<CallObjectConnector as Record>::SIZE == 68);

crate::record! {
    /// 20 CAMERA_STATE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct CameraState: little {
        #[serde(skip_serializing_if = "is_default")]
        pub flags: CameraFlags,
        #[serde(skip_serializing_if = "is_default")]
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
}

const _: () = assert!(<CameraState as Record>::SIZE == 36);

crate::record! {
    /// 21 CAMERA_FROM_TO: each value is `[from, to, delta]`.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct CameraFromTo: little {
        #[serde(skip_serializing_if = "is_default")]
        pub flags: CameraFlags,
        #[serde(skip_serializing_if = "is_default")]
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
}

const _: () = assert!(<CameraFromTo as Record>::SIZE == 96);

crate::record! {
    /// 22 CALL_SEQUENCE / 23 STOP_SEQUENCE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct SequenceRef: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: Z<32>,
        #[serde(skip_serializing_if = "is_default")]
        pub index: crate::mw3::anim::prim::MinusOne32,
    }
}

const _: () = assert!(<SequenceRef as Record>::SIZE == 36);

crate::record! {
    /// 24 CALL_ANIMATION.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct CallAnimation: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: Z<32>,
        #[serde(skip_serializing_if = "is_default")]
        pub operand_node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub flags: CallAnimFlags,
        #[serde(skip_serializing_if = "is_default")]
        pub anim_index: i16,
        #[serde(skip_serializing_if = "is_default")]
        pub wait_for_completion: AnimRef16,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub pad: u16,
        #[serde(skip_serializing_if = "is_default")]
        pub position: Vec3,
        #[serde(skip_serializing_if = "is_default")]
        pub translate: Vec3,
    }
}

const _: () = assert!(<CallAnimation as Record>::SIZE == 68);

crate::record! {
    /// 25 STOP_ANIMATION.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct StopAnimation: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: Z<32>,
        #[serde(skip_serializing_if = "is_default")]
        pub anim_ref_index: i16,
        #[serde(skip_serializing_if = "is_default")]
        pub anim_def_index: i16,
    }
}

const _: () = assert!(<StopAnimation as Record>::SIZE == 36);

crate::record! {
    /// 26 RESET_ANIMATION / 27 INVALIDATE_ANIMATION.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct AnimationRef: little {
        #[serde(skip_serializing_if = "is_default")]
        pub name: Z<32>,
        #[serde(skip_serializing_if = "is_default")]
        pub anim_def_index: i32,
    }
}

const _: () = assert!(<AnimationRef as Record>::SIZE == 36);

crate::record! {
    /// 28 FOG_STATE.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct FogState: little {
        #[serde(skip_serializing_if = "is_default")]
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
}

const _: () = assert!(<FogState as Record>::SIZE == 68);

crate::record! {
    /// 32 ELSE / 34 ENDIF: no payload.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Empty: little plain {}
}

const _: () = assert!(<Empty as Record>::SIZE == 0);

crate::record! {
    /// 35 CALLBACK.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct Callback: little {
        #[serde(skip_serializing_if = "is_default")]
        pub value: u32,
    }
}

const _: () = assert!(<Callback as Record>::SIZE == 4);

crate::record! {
    /// 36 FBFX_COLOR_FROM_TO: each channel is `[from, to, delta]`.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct FbfxColorFromTo: little {
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
}

const _: () = assert!(<FbfxColorFromTo as Record>::SIZE == 52);

crate::record! {
    /// 41 DETONATE_WEAPON.
    ///
    /// YAML omits fields that hold their default (zero) value.
    #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(default, deny_unknown_fields)]
    pub struct DetonateWeapon: little {
        #[serde(skip_serializing_if = "is_default")]
        pub weapon: Z<10>,
        #[serde(skip_serializing_if = "is_default")]
        pub node: Node16,
        #[serde(skip_serializing_if = "is_default")]
        pub translation: Vec3,
    }
}

const _: () = assert!(<DetonateWeapon as Record>::SIZE == 24);

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
