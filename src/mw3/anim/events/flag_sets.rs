//! The flag sets and named values event payloads use.

use crate::mw3::anim::prim::{flags, named};

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
