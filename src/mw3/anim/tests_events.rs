//! Table tests for every event type: one (YAML value, bytes) pair per type, checked in both
//! directions (bytes → event equals the YAML value; the YAML value → bytes equals the bytes).
//! The bytes are built field by field from the layouts in spec §6.4.

use super::events::{read_stream, Event, EVENT_HEADER_SIZE};
use super::refs::Names;

/// Little-endian byte builder.
#[derive(Default)]
struct B(Vec<u8>);

impl B {
    fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    fn u16(mut self, v: u16) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i16(mut self, v: i16) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i32(mut self, v: i32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn f(mut self, v: f32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn fs(self, v: &[f32]) -> Self {
        v.iter().fold(self, |b, &x| b.f(x))
    }
    /// A zero-padded string in an `n`-byte buffer.
    fn s(mut self, v: &str, n: usize) -> Self {
        let mut buf = vec![0u8; n];
        buf[..v.len()].copy_from_slice(v.as_bytes());
        self.0.extend_from_slice(&buf);
        self
    }
    fn zeros(mut self, n: usize) -> Self {
        self.0.extend(std::iter::repeat_n(0, n));
        self
    }
    fn raw(mut self, v: &[u8]) -> Self {
        self.0.extend_from_slice(v);
        self
    }
}

/// An event: header (type, start offset 2 = sequence, time 0.5) + payload.
fn ev(code: u8, payload: B) -> Vec<u8> {
    let p = payload.0;
    B::default()
        .u8(code)
        .u8(2)
        .u16(0)
        .u32(12 + p.len() as u32)
        .f(0.5)
        .raw(&p)
        .0
}

fn table() -> Vec<(&'static str, Vec<u8>)> {
    let mut spline = Vec::new();
    for i in 0..48u8 {
        spline.push(i);
    }
    vec![
        (
            "sound: {sound: 1, node: 2, pos: [1.0, 2.0, 3.0]}",
            ev(1, B::default().i16(1).i16(2).fs(&[1.0, 2.0, 3.0])),
        ),
        (
            "sound_node: {name: dsnd1, sound: 1, flags: [at_node], active_state: 1, node: 2, translate: [0.5, 0.0, -1.0]}",
            ev(2, B::default().s("dsnd1", 32).i32(1).u32(2).u32(1).i32(2).fs(&[0.5, 0.0, -1.0])),
        ),
        (
            "effect: {effect_index: 1, node: -200, translation: [0.0, 1.0, 0.0]}",
            ev(3, B::default().i16(1).i16(-200).fs(&[0.0, 1.0, 0.0])),
        ),
        (
            "light_state: {name: light1, light: 1, flags: [at_node, range, color, ambient, diffuse, directional], active_state: 1, type: point_source, directional: 1, saturated: 0, subdivide: 0, static: 0, node: -200, translate: [1.0, 1.0, 1.0], orientation: [0.0, 0.0, 0.0], range: [1.0, 10.0], color: [1.0, 0.5, 0.25], ambient: 0.2, diffuse: 0.8}",
            ev(4, B::default().s("light1", 32).i32(1).u32(0xFA).u32(1).u32(1).u32(1).u32(0).u32(0).u32(0).i32(-200)
                .fs(&[1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 10.0, 1.0, 0.5, 0.25, 0.2, 0.8])),
        ),
        (
            "light_animation: {name: light1, light: 1, range: [1.0, 5.0], range_alt: [0.0, 0.0], color: [1.0, -1.0, 0.5], run_time: 2.0}",
            ev(5, B::default().s("light1", 32).i32(1).fs(&[1.0, 5.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0, 0.5]).zeros(24).f(2.0)),
        ),
        (
            "object_active_state: {state: 1, node: -100}",
            ev(6, B::default().u32(1).i16(-100).u16(0)),
        ),
        (
            "object_translate_state: {relative: 0, translate: [1.0, 2.0, 3.0], node: 1, at_node: -200}",
            ev(7, B::default().u32(0).fs(&[1.0, 2.0, 3.0]).i16(1).i16(-200)),
        ),
        (
            "object_scale_state: {scale: [1.0, 1.0, 1.0], node: 2}",
            ev(8, B::default().fs(&[1.0, 1.0, 1.0]).i32(2)),
        ),
        (
            "object_rotate_state: {flags: [at_node_xyz], rotate: [0.1, 0.2, 0.3], node: 1, at_node: 2}",
            ev(9, B::default().u32(2).fs(&[0.1, 0.2, 0.3]).i16(1).i16(2)),
        ),
        (
            "object_motion: {flags: [gravity, impact_force, translation, forward_rotation_time, run_time, bounce_sound], node: 1, gravity: -9.8, morph: 0.0, trans_range_xz: [0.0, 0.0], trans_range_y: [0.0, 0.0], trans_range_initial: [0.0, 0.0], trans_range_delta: [0.0, 0.0], trans_initial: [1.0, 2.0, 3.0], trans_delta: [4.0, 5.0, 6.0], trans_rnd_xz: [7.0, 8.0, 9.0], fwd_rot_initial: 0.5, fwd_rot_delta: 0.25, xyz_rot_initial: [0.0, 0.0, 0.0], xyz_rot_delta: [0.0, 0.0, 0.0], scale_initial: [0.0, 0.0, 0.0], scale_delta: [0.0, 0.0, 0.0], bounce: [{sequence: land, sound: 1, volume: 3.0}, {sequence: '', sound: 0, volume: 0.0}, {sequence: '', sound: 0, volume: 0.0}], run_time: 4.0}",
            ev(10, B::default().u32(0x1487).i16(1).u16(0).f(0.0).f(-9.8).f(0.0).zeros(32)
                .fs(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).zeros(24).fs(&[7.0, 8.0, 9.0, 0.5, 0.25]).zeros(4)
                .zeros(36 * 2)
                .s("land", 32).i16(-1).i16(1).f(3.0)
                .zeros(32).i16(-1).i16(0).f(0.0)
                .zeros(32).i16(-1).i16(0).f(0.0)
                .f(4.0)),
        ),
        (
            "object_motion_from_to: {flags: [translate, morph], node: 1, morph_from: 0.0, morph_to: 1.0, morph_delta: 0.5, translate_from: [0.0, 0.0, 0.0], translate_to: [2.0, 4.0, 6.0], translate_delta: [1.0, 2.0, 3.0], rotate_from: [0.0, 0.0, 0.0], rotate_to: [0.0, 0.0, 0.0], rotate_delta: [0.0, 0.0, 0.0], scale_from: [0.0, 0.0, 0.0], scale_to: [0.0, 0.0, 0.0], scale_delta: [0.0, 0.0, 0.0], run_time: 2.0}",
            ev(11, B::default().u32(9).i32(1).fs(&[0.0, 1.0, 0.5, 0.0, 0.0, 0.0, 2.0, 4.0, 6.0, 1.0, 2.0, 3.0]).zeros(72).f(2.0)),
        ),
        (
            "object_motion_si_script: {node: 2, frames: [{start_time: 0.0, end_time: 1.0, translate: {base: [1.0, 2.0, 3.0], garbage: 0xdeadbeef, delta: [0.1, 0.2, 0.3], spline_x: 000102030405060708090a0b0c0d0e0f, spline_y: 101112131415161718191a1b1c1d1e1f, spline_z: 202122232425262728292a2b2c2d2e2f}}, {start_time: 1.0, end_time: 2.0, rotate: {base: [0.0, 0.0, 0.0, 1.0], delta: [0.0, 0.0, 0.0], spline_x: '00000000000000000000000000000000', spline_y: '00000000000000000000000000000000', spline_z: '00000000000000000000000000000000'}, scale: {base: [1.0, 1.0, 1.0], garbage: 0x00000000, delta: [0.0, 0.0, 0.0], spline_x: '00000000000000000000000000000000', spline_y: '00000000000000000000000000000000', spline_z: '00000000000000000000000000000000'}}]}",
            ev(12, B::default().i32(2).u32(2).zeros(16)
                .u32(1).f(0.0).f(1.0).fs(&[1.0, 2.0, 3.0]).u32(0xdeadbeef).fs(&[0.1, 0.2, 0.3]).raw(&spline)
                .u32(6).f(1.0).f(2.0).fs(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]).zeros(48)
                .fs(&[1.0, 1.0, 1.0]).u32(0).zeros(12).zeros(48)),
        ),
        (
            "object_opacity_state: {is_set: 1, active_state: 1, opacity: 0.5, node: 1}",
            ev(13, B::default().u16(1).u16(1).f(0.5).i16(1).u16(0)),
        ),
        (
            "object_opacity_from_to: {node: 1, state_from: -1, state_to: 1, opacity_from: 0.0, opacity_to: 1.0, opacity_delta: 2.0, run_time: 0.5}",
            ev(14, B::default().i32(1).i16(-1).i16(1).fs(&[0.0, 1.0, 2.0, 0.5])),
        ),
        ("object_add_child: {parent: 1, child: 2}", ev(15, B::default().i16(1).i16(2))),
        ("object_delete_child: {parent: 2, child: 1}", ev(16, B::default().i16(2).i16(1))),
        (
            "object_cycle_texture: {flags: 1, node: 2, reset: 3}",
            ev(17, B::default().u32(1).i16(2).u16(3)),
        ),
        (
            "object_connector: {flags: [from_node, to_input_node, from_t, max_length], node: 1, from_node: 2, to_node: 0, from_pos: [0.0, 0.0, 0.0], to_pos: [0.0, 0.0, 0.0], from_t_start: 0.3, from_t_end: 0.3, from_t_delta: 0.0, to_t_start: 1.0, to_t_end: 1.0, to_t_delta: 0.0, run_time: 1.5, max_length: 20.0}",
            ev(18, B::default().u32(0x8441).i16(1).i16(2).i16(0).u16(0).zeros(24)
                .fs(&[0.3, 0.3, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.5, 20.0])),
        ),
        (
            "call_object_connector: {flags: [from_input_node_pos, to_node, to_pos], anim_name: connector_anim, save_index: 1, from_node: 0, to_node: 2, from_pos: [0.0, 0.0, 0.0], to_pos: [1.0, 2.0, 3.0]}",
            ev(19, B::default().u32(0x448).s("connector_anim", 32).i16(0).i16(1).i16(0).i16(2).zeros(12).fs(&[1.0, 2.0, 3.0])),
        ),
        (
            "camera_state: {flags: [clip_near, clip_far], node: 1, clip_near: 0.1, clip_far: 1000.0, lod_multiplier: 0.0, fov_h: 0.0, fov_v: 0.0, zoom_h: 0.0, zoom_v: 0.0}",
            ev(20, B::default().u32(3).i32(1).fs(&[0.1, 1000.0]).zeros(20)),
        ),
        (
            "camera_from_to: {flags: [zoom_h], node: 1, clip_near: [0.0, 0.0, 0.0], clip_far: [0.0, 0.0, 0.0], lod_multiplier: [0.0, 0.0, 0.0], fov_h: [0.0, 0.0, 0.0], fov_v: [0.0, 0.0, 0.0], zoom_h: [1.0, 2.0, 0.33333334], zoom_v: [0.0, 0.0, 0.0], run_time: 3.0}",
            ev(21, B::default().u32(0x20).i32(1).zeros(60).fs(&[1.0, 2.0, 1.0 / 3.0]).zeros(12).f(3.0)),
        ),
        ("call_sequence: {name: seq1}", ev(22, B::default().s("seq1", 32).i32(-1))),
        ("stop_sequence: {name: seq2, index: 7}", ev(23, B::default().s("seq2", 32).i32(7))),
        (
            "call_animation: {name: other_anim, operand_node: 2, flags: [at_node, position, wait_for_completion], wait_for_completion: 0, node: 1, position: [1.0, 1.0, 1.0], translate: [0.0, 0.0, 0.0]}",
            ev(24, B::default().s("other_anim", 32).i16(2).u16(0x13).i16(0).i16(0).i16(1).u16(0).fs(&[1.0, 1.0, 1.0]).zeros(12)),
        ),
        ("stop_animation: {name: other_anim}", ev(25, B::default().s("other_anim", 32).i16(0).i16(0))),
        ("reset_animation: {name: other_anim}", ev(26, B::default().s("other_anim", 32).i32(0))),
        ("invalidate_animation: {name: x, anim_def_index: 3}", ev(27, B::default().s("x", 32).i32(3))),
        (
            "fog_state: {name: default_fog_name, flags: [color, density], type: linear, color: [0.5, 0.5, 0.5], altitude: [0.0, 0.0], range: [10.0, 100.0]}",
            ev(28, B::default().s("default_fog_name", 32).u32(0xA).u32(1).fs(&[0.5, 0.5, 0.5, 0.0, 0.0, 10.0, 100.0])),
        ),
        ("loop: {flags: [count], count: 5}", ev(30, B::default().u32(1).i16(5).u16(0))),
        ("loop: {flags: [run_time], run_time: 2.5}", ev(30, B::default().u32(2).f(2.5))),
        ("if: {condition: random_weight, value: 0.5}", ev(31, B::default().u32(1).u32(0).f(0.5))),
        ("if: {condition: hw_render, value: 1}", ev(31, B::default().u32(32).u32(0).u32(1))),
        ("else: {}", ev(32, B::default())),
        (
            "elseif: {condition: node_undercover, node_index: 3, value: 7}",
            ev(33, B::default().u32(16).u32(3).u32(7)),
        ),
        ("endif: {}", ev(34, B::default())),
        ("callback: {value: 42}", ev(35, B::default().u32(42))),
        (
            "fbfx_color_from_to: {red: [0.0, 1.0, 0.5], green: [0.5, 0.5, 0.0], blue: [1.0, 0.0, -0.5], alpha: [0.0, 0.5, 0.25], run_time: 2.0}",
            ev(36, B::default().fs(&[0.0, 1.0, 0.5, 0.5, 0.5, 0.0, 1.0, 0.0, -0.5, 0.0, 0.5, 0.25, 2.0])),
        ),
        (
            "detonate_weapon: {weapon: mortar, node: -200, translation: [0.0, 1.0, 0.0]}",
            ev(41, B::default().s("mortar", 10).i16(-200).fs(&[0.0, 1.0, 0.0])),
        ),
        (
            "puffer_state: {name: puff1, puffer: 1, flags: [at_node, active_state, local_velocity, interval_type, interval_value, size_range, lifetime_range, growth_factors, textures, colors], node: 1, active_state: 1, translate: [0.0, 0.0, 0.0], local_velocity: [0.0, 1.0, 0.0], world_velocity: [0.0, 0.0, 0.0], min_random_velocity: [0.0, 0.0, 0.0], max_random_velocity: [0.0, 0.0, 0.0], world_acceleration: [0.0, 0.0, 0.0], interval_type: 1, interval_value: 0.5, size_range: [0.5, 1.0], lifetime_range: [1.0, 2.0], start_age_range: [0.0, 0.0], deviation_distance: 0.0, unk_range: [0.0, 0.0], fade_range: [0.0, 0.0], friction: 0.0, wind_factor: 0.0, priority: 0.0, tex_has_run_time: 1, textures: [{run_time: 0.5, name: smoke1}, {run_time: 0.7, name: smoke2}], color_count: 1, colors: [{unk00: 0.0, color: [1.0, 0.5, 0.25], unk16: 1.0}], growth_count: 2, growths: [[1.0, 2.0], [3.0, 4.0]]}",
            ev(42, B::default().s("puff1", 32).i32(1).u32(0x4678E).i32(1).u32(1)
                .zeros(12).fs(&[0.0, 1.0, 0.0]).zeros(48)
                .u32(1).f(0.5).fs(&[0.5, 1.0, 1.0, 2.0]).zeros(8 + 4 + 8 + 8 + 12)
                .u32(1).f(0.5).s("smoke1", 32).f(0.7).s("smoke2", 32).zeros(36 * 4)
                .u32(1).fs(&[0.0, 1.0, 0.5, 0.25, 1.0]).zeros(100)
                .u32(2).fs(&[1.0, 2.0, 3.0, 4.0]).zeros(32)),
        ),
    ]
}

#[test]
fn every_event_type_both_ways() {
    let names = Names::default();
    let mut seen = std::collections::BTreeSet::new();
    for (yaml_payload, bytes) in table() {
        let text = format!("{{start: sequence, time: 0.5, {yaml_payload}}}");
        let value: Event = match crate::yaml::from_str(&text) {
            Ok(v) => v,
            Err(e) => panic!("{yaml_payload}: {e}"),
        };
        // bytes → value
        let decoded = match read_stream(&bytes, 0) {
            Ok(v) => v,
            Err(e) => panic!("{yaml_payload}: {e}"),
        };
        assert_eq!(decoded, vec![value.clone()], "{yaml_payload}");
        // value → bytes
        let mut out = Vec::new();
        value.write(&mut out, &names).unwrap();
        assert_eq!(out, bytes, "{yaml_payload}");
        seen.insert(bytes[0]);
    }
    let all: std::collections::BTreeSet<u8> =
        super::events::EVENT_TYPES.iter().map(|(c, _)| *c).collect();
    assert_eq!(seen, all, "every event type has a table row");
}

#[test]
fn derived_name_copies_come_from_the_referenced_item() {
    // LIGHT_STATE without `name`: the writer copies lights[0]'s name.
    let names = Names {
        lights: vec![&b"light1"[..]],
        ..Default::default()
    };
    let (_, bytes) = table().swap_remove(3);
    let yaml = "{start: sequence, time: 0.5, light_state: {light: 1, flags: [at_node, range, color, ambient, diffuse, directional], active_state: 1, type: point_source, directional: 1, saturated: 0, subdivide: 0, static: 0, node: -200, translate: [1.0, 1.0, 1.0], orientation: [0.0, 0.0, 0.0], range: [1.0, 10.0], color: [1.0, 0.5, 0.25], ambient: 0.2, diffuse: 0.8}}";
    let e: Event = crate::yaml::from_str(yaml).unwrap();
    let mut out = Vec::new();
    e.write(&mut out, &names).unwrap();
    assert_eq!(out, bytes);
    // without a resolvable light the copy cannot be made
    let err = e.write(&mut Vec::new(), &Names::default()).unwrap_err();
    assert_eq!(err.path.to_string(), "light_state.name");
}

#[test]
fn si_script_size_must_match_its_frames() {
    let (_, mut bytes) = table().swap_remove(11);
    assert_eq!(bytes[0], 12);
    // claim 3 frames: the third runs past the payload
    bytes[16..20].copy_from_slice(&3u32.to_le_bytes());
    let e = read_stream(&bytes, 100).unwrap_err();
    assert_eq!(
        e.path.to_string(),
        "[0].object_motion_si_script.frames[2].flags"
    );
    // claim 1 frame: bytes left over
    bytes[16..20].copy_from_slice(&1u32.to_le_bytes());
    let e = read_stream(&bytes, 100).unwrap_err();
    assert_eq!(e.path.to_string(), "[0].size");
    assert_eq!(
        e.kind.to_string(),
        "the object_motion_si_script payload uses 112 bytes but the event size says 276"
    );
}

#[test]
fn errors_inside_nested_records_name_the_item() {
    // OBJECT_MOTION: bounce[1].sequence (payload offset 196 + 40) without a terminator
    let (_, mut bytes) = table()
        .into_iter()
        .find(|(_, b)| b[0] == 10)
        .expect("object_motion row");
    let at = EVENT_HEADER_SIZE + 196 + 40;
    bytes[at..at + 32].fill(b'x');
    let e = read_stream(&bytes, 1000).unwrap_err();
    assert_eq!(e.path.to_string(), "[0].object_motion.bounce[1].sequence");
    assert_eq!(e.offset, 1000 + at as u64);
    assert_eq!(e.kind, crate::exact::DecodeErrorKind::Unterminated);
    // an index that does not fit its i16 is refused with the field's name
    let ev: Event =
        crate::yaml::from_str("{object_add_child: {parent: {index: 40000}, child: {index: 1}}}")
            .unwrap();
    let err = ev.write(&mut Vec::new(), &Names::default()).unwrap_err();
    assert_eq!(err.path.to_string(), "object_add_child.parent");
    assert_eq!(err.message, "index 40000 does not fit in i16");
    // a puffer texture name too long for its slot names the slot
    let ev: Event = crate::yaml::from_str(&format!(
        "{{puffer_state: {{name: p, puffer: 1, textures: [{{name: a}}, {{name: {}}}]}}}}",
        "n".repeat(40)
    ))
    .unwrap();
    let err = ev.write(&mut Vec::new(), &Names::default()).unwrap_err();
    assert_eq!(err.path.to_string(), "puffer_state.textures[1].name");
}

#[test]
fn a_loop_keeps_its_pad_only_with_a_count() {
    // a count loop writes its pad; a run_time loop has none, and one given is refused
    let ev: Event = crate::yaml::from_str("{loop: {flags: [count], count: 3, pad: 7}}").unwrap();
    let mut out = Vec::new();
    ev.write(&mut out, &Names::default()).unwrap();
    assert_eq!(out[EVENT_HEADER_SIZE..], [1, 0, 0, 0, 3, 0, 7, 0]);
    let ev: Event =
        crate::yaml::from_str("{loop: {flags: [run_time], run_time: 1.5, pad: 7}}").unwrap();
    let err = ev.write(&mut Vec::new(), &Names::default()).unwrap_err();
    assert_eq!(err.path.to_string(), "loop");
    assert!(err.message.contains("`pad`"), "{err}");
}
