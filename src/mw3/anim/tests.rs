//! Corpus, cross-check, editing and error tests for `mw3.anim`. Per-record table tests live
//! next to the records (`arrays.rs`, `prim.rs`) and in `tests_events.rs`.

use super::events::EventData;
use super::*;
use crate::exact::{DecodeErrorKind, F32};
use serde_json::Value;

use crate::testing::corpus_path as corpus;

fn synthetic() -> Option<Vec<u8>> {
    corpus("mw3/synthetic.zbd").map(|p| std::fs::read(p).expect("readable corpus file"))
}

fn encode(a: &Anim) -> Vec<u8> {
    let mut out = Vec::new();
    a.write(&mut out, None).expect("encodes");
    out
}

fn yaml(a: &Anim) -> String {
    Codec::to_yaml(a, &ExportOptions::default()).expect("exports")
}

fn import(text: &str) -> Anim {
    match Anim::from_yaml(text, &ImportOptions::default()) {
        Ok(a) => a,
        Err(e) => panic!("import failed: {e}"),
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn synthetic_round_trips_through_model_and_yaml() {
    let Some(data) = synthetic() else { return };
    assert_eq!(data.len(), 4748);
    assert!(Anim::detect(&data));
    let a = Anim::read(&data).expect("decodes");
    assert_eq!(encode(&a), data, "binary → model → binary");
    let text = yaml(&a);
    assert!(text.starts_with("format: mw3.anim\nversion: 1\n"));
    let b = import(&text);
    assert_eq!(encode(&b), data, "binary → YAML → binary");
    assert_eq!(Codec::diff(&a, &b), Vec::<String>::new());
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn synthetic_layout_matches_the_spec_offsets() {
    let Some(data) = synthetic() else { return };
    let a = Anim::read(&data).unwrap();
    let mut marks = Vec::new();
    let mut out = Vec::new();
    a.write(&mut out, Some(&mut marks)).unwrap();
    let at = |p: &str| marks.iter().find(|(_, q)| q == p).map(|(o, _)| *o);
    // spec §7: list at 12, info @180, zero block @248, def 1 @628, objects @944, nodes @1136,
    // lights @1256, puffers @1344, dyn sounds @1432, static sounds @1520, prereqs @1592,
    // anim refs @1688, reset state @1832, sequence @1916.
    assert_eq!(at("anim_list[0]"), Some(12));
    assert_eq!(at("info"), Some(180));
    assert_eq!(at("zero_def"), Some(248));
    assert_eq!(at("anim_defs[0]"), Some(628));
    assert_eq!(at("anim_defs[0].objects"), Some(944));
    assert_eq!(at("anim_defs[0].nodes"), Some(1136));
    assert_eq!(at("anim_defs[0].lights"), Some(1256));
    assert_eq!(at("anim_defs[0].puffers"), Some(1344));
    assert_eq!(at("anim_defs[0].dynamic_sounds"), Some(1432));
    assert_eq!(at("anim_defs[0].static_sounds"), Some(1520));
    assert_eq!(at("anim_defs[0].activ_prereqs"), Some(1592));
    assert_eq!(at("anim_defs[0].anim_refs"), Some(1688));
    assert_eq!(at("anim_defs[0].reset_state"), Some(1832));
    assert_eq!(at("anim_defs[0].sequences[0]"), Some(1916));
    let d = &a.anim_defs[0];
    assert_eq!(d.sequences[0].events.len(), 36);
    assert_eq!(d.reset_state.events.len(), 1);
    assert_eq!(
        Codec::field_at(&a, 1916 + 64 + 3),
        "anim_defs[0].sequences[0].events[0] (sound)"
    );
    assert_eq!(Codec::field_at(&a, 1600), "anim_defs[0].activ_prereqs");
    // nothing inconsistent in the synthetic file
    assert_eq!(d.stored, anim_def::Stored::default());
    assert_eq!(a.zero_def, None);
    assert!(a.trailing.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Cross-check against mech3ax's own JSON reading of the synthetic file.

fn b64(s: &str) -> Vec<u8> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes().filter(|&c| c != b'=') {
        let v = A.iter().position(|&a| a == c).expect("base64 digit") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn f(v: &Value) -> f32 {
    v.as_f64().expect("number") as f32
}
fn xyz(v: &Value) -> [f32; 3] {
    [f(&v["x"]), f(&v["y"]), f(&v["z"])]
}
fn rgb(v: &Value) -> [f32; 3] {
    [f(&v["r"]), f(&v["g"]), f(&v["b"])]
}
fn get(v: [F32; 3]) -> [f32; 3] {
    v.map(|x| x.get())
}
fn s(v: &Value) -> &str {
    v.as_str().expect("string")
}
fn name_of(r: &refs::Ref) -> String {
    r.name.as_ref().map(|t| t.to_string()).unwrap_or_default()
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn synthetic_agrees_with_mech3ax_field_by_field() {
    let Some(data) = synthetic() else { return };
    let Some(dir) = corpus("mw3/synthetic.mech3ax") else {
        return;
    };
    let read = |n: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(n)).unwrap()).unwrap()
    };
    let meta = read("metadata.json");
    let j = read("testobj-blood.json");
    let si = read("si-script-000.zan.json");
    let mut a = Anim::read(&data).unwrap();
    a.attach_names();

    // metadata
    assert_eq!(f(&meta["gravity"]), a.info.gravity.get());
    assert_eq!(s(&meta["mission"]), "MwC1V12");
    assert_eq!(
        (a.info.defs_ptr.0, a.info.world_ptr.0),
        (0x03F5000C, 0x02B4000C)
    ); // A.1
    let list = meta["anim_list"].as_array().unwrap();
    assert_eq!(list.len(), a.anim_list.len());
    for (jl, e) in list.iter().zip(&a.anim_list) {
        assert_eq!(s(&jl["name"]), e.name.to_text().to_string());
        let tail = e.name.tail().map(<[u8]>::to_vec).unwrap_or_default();
        match jl.get("garbage") {
            Some(g) => assert_eq!(b64(s(g)), tail),
            None => assert!(tail.iter().all(|&b| b == 0)),
        }
    }
    // 1999-04-13T10:40:00Z and one second later
    assert_eq!(a.anim_list[0].timestamp, 924_000_000);
    assert_eq!(a.anim_list[1].timestamp, 924_000_001);
    assert_eq!(s(&list[0]["datetime"]), "1999-04-13T10:40:00.0Z");

    let d = &a.anim_defs[0];
    assert_eq!(s(&j["name"]), d.name.to_text().to_string());
    assert_eq!(s(&j["anim_name"]), d.anim_name.to_text().to_string());
    assert_eq!(
        s(&j["anim_root_name"]),
        d.anim_root_name.to_text().to_string()
    );
    // the anim-name hash points at the table entry "blood\0flt" + 23 NUL
    assert_eq!(j["ptrs"]["anim_hash"].as_u64(), Some(1_476_974_861));
    let mut raw = vec![0u8; 26];
    raw[..3].copy_from_slice(b"flt");
    assert_eq!(d.anim_name.tail().map(<[u8]>::to_vec), Some(raw));
    let fl = |bit: u32| d.flags.has(bit);
    assert_eq!(j["has_callbacks"].as_bool(), Some(fl(0x10)));
    assert_eq!(j["auto_reset_node_states"].as_bool(), Some(fl(0x10000)));
    assert_eq!(j["proximity_damage"].as_bool(), Some(fl(0x100000)));
    assert_eq!(s(&j["activation"]), "OnCall");
    assert_eq!(d.activation.name(), Some("on_call"));
    assert_eq!(
        f(&j["execution"]["ByRange"]["min"]),
        d.execution_range[0].get()
    );
    assert_eq!(
        f(&j["execution"]["ByRange"]["max"]),
        d.execution_range[1].get()
    );
    assert!(fl(0x2));
    assert_eq!(j["network_log"].as_bool(), Some(true));
    assert!(fl(0x400) && fl(0x800));
    assert!(j["save_log"].is_null() && !fl(0x1000));
    assert_eq!(f(&j["reset_time"]), d.reset_time.get());
    assert!(fl(0x20));
    assert_eq!(f(&j["health"]), d.health.get());
    assert_eq!(
        j["activ_prereq_min_to_satisfy"].as_u64(),
        Some(d.activ_prereq_min_to_satisfy as u64)
    );

    // pointers
    let p = &j["ptrs"];
    let ptr = |k: &str| p[k].as_u64().unwrap() as u32;
    assert_eq!(ptr("anim_ptr"), d.ptrs.anim.0);
    assert_eq!(ptr("anim_root_ptr"), d.ptrs.anim_root.0);
    assert_eq!(ptr("seq_defs_ptr"), d.ptrs.seq_defs.0);
    assert_eq!(ptr("objects_ptr"), d.ptrs.objects.0);
    assert_eq!(ptr("nodes_ptr"), d.ptrs.nodes.0);
    assert_eq!(ptr("lights_ptr"), d.ptrs.lights.0);
    assert_eq!(ptr("puffers_ptr"), d.ptrs.puffers.0);
    assert_eq!(ptr("dynamic_sounds_ptr"), d.ptrs.dynamic_sounds.0);
    assert_eq!(ptr("static_sounds_ptr"), d.ptrs.static_sounds.0);
    assert_eq!(ptr("activ_prereqs_ptr"), d.ptrs.activ_prereqs.0);
    assert_eq!(ptr("anim_refs_ptr"), d.ptrs.anim_refs.0);
    assert_eq!(ptr("effects_ptr"), d.ptrs.effects.0);

    // arrays
    let arr = |k: &str| j[k].as_array().unwrap().clone();
    let objs = arr("objects");
    assert_eq!(objs.len(), d.objects.len());
    for (jo, o) in objs.iter().zip(&d.objects) {
        assert_eq!(s(&jo["name"]), o.name.to_text().to_string());
        assert_eq!(jo["ptr"].as_u64(), Some(o.node_ptr.0 as u64));
        assert_eq!(jo["flags"].as_u64(), Some(o.flags.0 as u64));
        assert_eq!(jo["flags_merged"].as_u64(), Some(o.flags_merged.0 as u64));
        assert_eq!(b64(s(&jo["affine"])), o.affine.0.to_vec());
    }
    let nodes = arr("nodes");
    assert_eq!(nodes.len(), d.nodes.len());
    for (jn, n) in nodes.iter().zip(&d.nodes) {
        assert_eq!(s(&jn["name"]), n.name.to_text().to_string());
        assert_eq!(jn["ptr"].as_u64(), Some(n.ptr.0 as u64));
        assert!(n.name.is_clean(), "NODE fill recognised");
    }
    for (k, list) in [("lights", &d.lights), ("dynamic_sounds", &d.dynamic_sounds)] {
        let jl = arr(k);
        assert_eq!(jl.len(), list.len());
        for (x, l) in jl.iter().zip(list) {
            assert_eq!(s(&x["name"]), l.name.to_text().to_string());
            assert_eq!(x["ptr"].as_u64(), Some(l.ptr.0 as u64));
        }
    }
    let puffers = arr("puffers");
    for (x, pf) in puffers.iter().zip(&d.puffers) {
        assert_eq!(s(&x["name"]), pf.name.to_text().to_string());
        assert_eq!(x["flags"].as_u64(), Some((pf.flags.0 >> 24) as u64));
        assert_eq!(x["ptr"].as_u64(), Some(pf.ptr.0 as u64));
    }
    let ss = arr("static_sounds");
    for (x, st) in ss.iter().zip(&d.static_sounds) {
        assert_eq!(s(&x["name"]), st.name.to_text().to_string());
        let tail = st.name.tail().map(<[u8]>::to_vec).unwrap_or_default();
        assert_eq!(b64(s(&x["pad"])), tail);
    }
    let pre = arr("activ_prereqs");
    assert_eq!(pre.len(), d.activ_prereqs.len());
    let anim = &pre[0]["Animation"];
    assert_eq!(
        s(&anim["name"]),
        d.activ_prereqs[0].name.to_text().to_string()
    );
    assert_eq!(
        anim["required"].as_bool(),
        Some(d.activ_prereqs[0].optional == 0)
    );
    assert_eq!(d.activ_prereqs[0].kind.name(), Some("animation"));
    let obj = &pre[1]["Object"];
    assert_eq!(
        s(&obj["name"]),
        d.activ_prereqs[1].name.to_text().to_string()
    );
    assert_eq!(
        obj["required"].as_bool(),
        Some(d.activ_prereqs[1].optional == 0)
    );
    assert_eq!(
        obj["active"].as_bool(),
        Some(d.activ_prereqs[1].active == 1)
    );
    assert_eq!(obj["ptr"].as_u64(), Some(d.activ_prereqs[1].ptr.0 as u64));
    let refs_j = arr("anim_refs");
    let ca = &refs_j[0]["CallAnimation"];
    assert_eq!(s(&ca["name"]), d.anim_refs[0].name.to_text().to_string());
    assert_eq!(b64(s(&ca["name_pad"])), d.anim_refs[0].name.tail().unwrap());
    let co = &refs_j[1]["CallObjectConnector"];
    assert_eq!(s(&co["name"]), d.anim_refs[1].name.to_text().to_string());
    let pad = b64(s(&co["name_pad"]));
    assert!(pad.iter().all(|&b| b == 0) && d.anim_refs[1].name.tail().is_none());
    let local = d.anim_refs[1].local_name.as_ref().unwrap();
    assert_eq!(s(&co["local_name"]), local.to_text().to_string());
    assert_eq!(b64(s(&co["local_name_pad"])), local.tail().unwrap());

    // reset state and sequences
    assert_eq!(
        j["reset_state"]["pointer"].as_u64(),
        Some(d.reset_state.pointer.0 as u64)
    );
    check_events(&j["reset_state"]["events"], &d.reset_state.events, &si);
    let seqs = arr("sequences");
    assert_eq!(seqs.len(), d.sequences.len());
    for (js, sq) in seqs.iter().zip(&d.sequences) {
        assert_eq!(s(&js["name"]), sq.name.to_text().to_string());
        assert_eq!(s(&js["seq_state"]), "OnCall");
        assert_eq!(sq.seq_state.name(), Some("on_call"));
        assert_eq!(sq.reset_state.name(), Some("on_call"));
        assert_eq!(js["pointer"].as_u64(), Some(sq.pointer.0 as u64));
        check_events(&js["events"], &sq.events, &si);
    }
}

fn at_node(v: &Value, node: &refs::Ref, pos: [F32; 3]) {
    assert_eq!(s(&v["name"]), name_of(node));
    assert_eq!(xyz(&v["pos"]), get(pos));
}

fn check_events(j: &Value, events: &[events::Event], si: &Value) {
    let j = j.as_array().unwrap();
    assert_eq!(j.len(), events.len());
    for (je, e) in j.iter().zip(events) {
        match je["start"].as_object() {
            None => {
                assert_eq!(e.start_offset.0, 1);
                assert_eq!(e.start_time, F32(0));
            }
            Some(st) => {
                let off = s(&st["offset"]).to_ascii_lowercase();
                assert_eq!(Some(off.as_str()), e.start_offset.name());
                assert_eq!(f(&st["time"]), e.start_time.get());
            }
        }
        let (kind, v) = je["data"].as_object().unwrap().iter().next().unwrap();
        let snake: String = kind
            .chars()
            .enumerate()
            .flat_map(|(i, c)| {
                let lower = c.to_ascii_lowercase();
                if c.is_ascii_uppercase() && i > 0 {
                    vec!['_', lower]
                } else {
                    vec![lower]
                }
            })
            .collect();
        assert_eq!(snake, e.data.name(), "{kind}");
        match &e.data {
            EventData::Sound(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.sound.0));
                at_node(&v["at_node"], &p.node.0, p.pos);
            }
            EventData::SoundNode(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.sound.0));
                assert_eq!(v["active_state"].as_bool(), Some(p.active_state == 1));
                at_node(&v["translate"]["AtNode"], &p.node.0, p.translate);
                assert_eq!(p.flags.0, 2);
            }
            EventData::LightState(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.light.0));
                assert_eq!(s(&v["type_"]), "PointSource");
                assert_eq!(p.light_type.name(), Some("point_source"));
                at_node(&v["translate"]["AtNode"], &p.node.0, p.translate);
                assert_eq!(v["directional"].as_bool(), Some(p.directional == 1));
                assert_eq!(f(&v["range"]["min"]), p.range[0].get());
                assert_eq!(f(&v["range"]["max"]), p.range[1].get());
                assert_eq!(rgb(&v["color"]), get(p.color));
                assert_eq!(f(&v["ambient"]), p.ambient.get());
                assert_eq!(f(&v["diffuse"]), p.diffuse.get());
                assert!(p.name.is_derived());
            }
            EventData::LightAnimation(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.light.0));
                assert_eq!(f(&v["range"]["min"]), p.range[0].get());
                assert_eq!(f(&v["range"]["max"]), p.range[1].get());
                assert_eq!(rgb(&v["color"]), get(p.color));
                assert_eq!(f(&v["run_time"]), p.run_time.get());
                assert!(v["range_alt"].is_null() && p.range_alt == [F32(0); 2]);
            }
            EventData::ObjectActiveState(p) => {
                assert_eq!(s(&v["node"]), name_of(&p.node.0));
                assert_eq!(v["state"].as_bool(), Some(p.state == 1));
            }
            EventData::ObjectTranslateState(p) => {
                assert_eq!(s(&v["node"]), name_of(&p.node.0));
                assert_eq!(v["relative"].as_bool(), Some(p.relative == 1));
                assert_eq!(xyz(&v["state"]), get(p.translate));
                assert_eq!(s(&v["at_node"]), name_of(&p.at_node.0));
            }
            EventData::ObjectScaleState(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(xyz(&v["state"]), get(p.scale));
            }
            EventData::ObjectRotateState(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(xyz(&v["state"]), get(p.rotate));
                assert_eq!(s(&v["basis"]["AtNodeXYZ"]), name_of(&p.at_node.0));
                assert_eq!(p.flags.0, 2);
            }
            EventData::ObjectMotion(p) => {
                assert_eq!(s(&v["node"]), name_of(&p.node.0));
                assert_eq!(v["impact_force"].as_bool(), Some(p.flags.has(2)));
                assert_eq!(f(&v["gravity"]["value"]), p.gravity.get());
                let t = &v["translation"];
                assert_eq!(xyz(&t["initial"]), get(p.trans_initial));
                assert_eq!(xyz(&t["delta"]), get(p.trans_delta));
                assert_eq!(xyz(&t["rnd_xz"]), get(p.trans_rnd_xz));
                let fr = &v["forward_rotation"]["Time"];
                assert_eq!(f(&fr["initial"]), p.fwd_rot_initial.get());
                assert_eq!(f(&fr["delta"]), p.fwd_rot_delta.get());
                let bs = &v["bounce_sound"]["default"];
                assert_eq!(s(&bs["name"]), name_of(&p.bounce[0].sound.0));
                assert_eq!(f(&bs["volume"]), p.bounce[0].volume.get());
                assert_eq!(f(&v["run_time"]), p.run_time.get());
            }
            EventData::ObjectMotionFromTo(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(f(&v["run_time"]), p.run_time.get());
                assert_eq!(f(&v["morph"]["from"]), p.morph_from.get());
                assert_eq!(f(&v["morph"]["to"]), p.morph_to.get());
                assert_eq!(xyz(&v["translate"]["to"]), get(p.translate_to));
                // null delta in mech3ax = equals the recomputed delta (to - from) / run_time
                assert!(v["translate_delta"].is_null());
                assert_eq!(get(p.translate_delta), [1.0, 2.0, 3.0]);
            }
            EventData::ObjectMotionSiScript(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.0.node.0));
                let frames = si["frames"].as_array().unwrap();
                assert_eq!(frames.len(), p.0.frames.len());
                for (jf, fr) in frames.iter().zip(&p.0.frames) {
                    assert_eq!(f(&jf["start_time"]), fr.start_time.get());
                    assert_eq!(f(&jf["end_time"]), fr.end_time.get());
                    let t = fr.translate.as_ref().unwrap();
                    assert_eq!(xyz(&jf["translate"]["base"]), get(t.base));
                    assert_eq!(xyz(&jf["translate"]["delta"]), get(t.delta));
                    assert_eq!(
                        jf["translate"]["garbage"].as_u64(),
                        Some(t.garbage.0 as u64)
                    );
                    assert_eq!(b64(s(&jf["translate"]["spline_x"])), t.spline_x.0);
                    assert_eq!(b64(s(&jf["translate"]["spline_z"])), t.spline_z.0);
                    let r = fr.rotate.as_ref().unwrap();
                    let q = &jf["rotate"]["base"];
                    assert_eq!(
                        [f(&q["x"]), f(&q["y"]), f(&q["z"]), f(&q["w"])],
                        r.base.map(|x| x.get())
                    );
                    assert!(jf.get("scale").is_none() && fr.scale.is_none());
                }
            }
            EventData::ObjectOpacityState(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(v["state"].as_bool(), Some(p.is_set == 1));
                assert_eq!(f(&v["opacity"]), p.opacity.get());
            }
            EventData::ObjectOpacityFromTo(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(f(&v["opacity_from"]["opacity"]), p.opacity_from.get());
                assert!(v["opacity_from"]["state"].is_null() && p.state_from == -1);
                assert_eq!(f(&v["opacity_to"]["opacity"]), p.opacity_to.get());
                assert_eq!(v["opacity_to"]["state"].as_bool(), Some(p.state_to == 1));
                assert_eq!(f(&v["run_time"]), p.run_time.get());
            }
            EventData::ObjectAddChild(p) | EventData::ObjectDeleteChild(p) => {
                assert_eq!(s(&v["parent"]), name_of(&p.parent.0));
                assert_eq!(s(&v["child"]), name_of(&p.child.0));
            }
            EventData::ObjectCycleTexture(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(v["reset"].as_u64(), Some(p.reset as u64));
            }
            EventData::ObjectConnector(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(s(&v["from_node"]), name_of(&p.from_node.0));
                assert_eq!(s(&v["to_node"]), "INPUT_NODE");
                assert!(p.flags.has(0x40));
                assert_eq!(f(&v["from_t"]["Scalar"]), p.from_t_start.get());
                assert_eq!(f(&v["run_time"]), p.run_time.get());
                assert_eq!(f(&v["max_length"]), p.max_length.get());
            }
            EventData::CallObjectConnector(p) => {
                assert_eq!(s(&v["name"]), p.anim_name.to_text().to_string());
                assert_eq!(v["save_index"].as_i64(), Some(p.save_index.index() as i64));
                assert_eq!(v["from_node"]["pos"].as_bool(), Some(true));
                assert!(p.flags.has(0x8)); // from_input_node_pos
                assert_eq!(s(&v["to_node"]["name"]), name_of(&p.to_node.0));
                assert_eq!(xyz(&v["to_pos"]["Pos"]), get(p.to_pos));
            }
            EventData::CameraState(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(f(&v["clip_near"]), p.clip_near.get());
                assert_eq!(f(&v["clip_far"]), p.clip_far.get());
                assert!(v["fov_h"].is_null() && !p.flags.has(0x8));
            }
            EventData::CameraFromTo(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.node.0));
                assert_eq!(f(&v["zoom_h"]["from"]), p.zoom_h[0].get());
                assert_eq!(f(&v["zoom_h"]["to"]), p.zoom_h[1].get());
                assert_eq!(f(&v["run_time"]), p.run_time.get());
                // delta = (2 - 1) / 3 in f32
                assert_eq!(p.zoom_h[2].get(), (2.0f32 - 1.0) / 3.0);
            }
            EventData::CallSequence(p) | EventData::StopSequence(p) => {
                assert_eq!(s(&v["name"]), p.name.to_text().to_string());
                assert_eq!(p.index.0, -1);
            }
            EventData::CallAnimation(p) => {
                assert_eq!(s(&v["name"]), p.name.to_text().to_string());
                assert_eq!(s(&v["operand_node"]), name_of(&p.operand_node.0));
                assert_eq!(
                    v["wait_for_completion"].as_i64(),
                    Some(p.wait_for_completion.index() as i64)
                );
                let an = &v["parameters"]["AtNode"];
                assert_eq!(s(&an["node"]), name_of(&p.node.0));
                assert_eq!(xyz(&an["position"]), get(p.position));
            }
            EventData::StopAnimation(p) => assert_eq!(s(&v["name"]), p.name.to_text().to_string()),
            EventData::ResetAnimation(p) | EventData::InvalidateAnimation(p) => {
                assert_eq!(s(&v["name"]), p.name.to_text().to_string())
            }
            EventData::FogState(p) => {
                assert_eq!(rgb(&v["color"]), get(p.color));
                assert_eq!(f(&v["range"]["min"]), p.range[0].get());
                assert_eq!(f(&v["range"]["max"]), p.range[1].get());
                assert_eq!(p.name.text(), b"default_fog_name");
                assert!(v["type_"].is_null() && p.fog_type.name() == Some("linear"));
            }
            EventData::Loop(p) => {
                assert_eq!(v["Count"].as_i64(), p.count.map(|c| c as i64));
            }
            EventData::If(p) => {
                assert_eq!(p.condition.name(), Some("random_weight"));
                assert_eq!(f(&v["condition"]["RandomWeight"]), f32::from_bits(p.value));
            }
            EventData::Elseif(p) => {
                let nu = &v["condition"]["NodeUndercover"];
                assert_eq!(nu["node_index"].as_u64(), Some(p.node_index as u64));
                assert_eq!(nu["distance"].as_u64(), Some(p.value as u64));
            }
            EventData::Else(_) | EventData::Endif(_) => {}
            EventData::Callback(p) => assert_eq!(v["value"].as_u64(), Some(p.value as u64)),
            EventData::FbfxColorFromTo(p) => {
                let from = &v["from"];
                let to = &v["to"];
                for (k, ch) in [("r", p.red), ("g", p.green), ("b", p.blue), ("a", p.alpha)] {
                    assert_eq!(f(&from[k]), ch[0].get(), "{k}");
                    assert_eq!(f(&to[k]), ch[1].get(), "{k}");
                }
                assert_eq!(f(&v["run_time"]), p.run_time.get());
            }
            EventData::DetonateWeapon(p) => {
                assert_eq!(s(&v["weapon"]), p.weapon.to_text().to_string());
                at_node(&v["at_node"], &p.node.0, p.translation);
            }
            EventData::PufferState(p) => {
                assert_eq!(s(&v["name"]), name_of(&p.puffer.0));
                assert_eq!(v["active_state"].as_u64(), Some(p.active_state as u64));
                assert_eq!(s(&v["at_node"]), name_of(&p.node.0));
                assert_eq!(xyz(&v["local_velocity"]), get(p.local_velocity));
                assert_eq!(s(&v["interval"]["interval_type"]), "Distance");
                assert_eq!(p.interval_type, 1);
                assert_eq!(f(&v["interval"]["interval_value"]), p.interval_value.get());
                assert_eq!(f(&v["size_range"]["min"]), p.size_range[0].get());
                assert_eq!(f(&v["lifetime_range"]["max"]), p.lifetime_range[1].get());
                let tex = v["textures"].as_array().unwrap();
                for (k, t) in tex.iter().enumerate() {
                    assert_eq!(s(&t["name"]), p.textures.0[k].name.to_text().to_string());
                    assert_eq!(f(&t["run_time"]), p.textures.0[k].run_time.get());
                }
                assert!(p.textures.0[tex.len()..]
                    .iter()
                    .all(|t| t.name.text().is_empty()));
                let cols = v["colors"].as_array().unwrap();
                assert_eq!(cols.len() as u32, p.color_count);
                assert_eq!(rgb(&cols[0]["color"]), get(p.colors.0[0].color));
                assert_eq!(f(&cols[0]["unk16"]), p.colors.0[0].unk16.get());
                let gr = v["growth_factors"].as_array().unwrap();
                assert_eq!(gr.len() as u32, p.growth_count);
                for (k, g) in gr.iter().enumerate() {
                    assert_eq!(f(&g["min"]), p.growths.0[k][0].get());
                    assert_eq!(f(&g["max"]), p.growths.0[k][1].get());
                }
            }
            EventData::Effect(_) => panic!("no EFFECT events in the synthetic file"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Editing and derived values

fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} not in document");
    text.replacen(from, to, 1)
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn edits_are_re_encoded_and_untouched_bytes_stay() {
    let Some(data) = synthetic() else { return };
    let a = Anim::read(&data).unwrap();
    let text = yaml(&a);
    // a light's colour (LIGHT_STATE event at sequence offset 1916 + 64 + 28 + 72)
    let t2 = edit(&text, "color: [1.0, 0.5, 0.25]", "color: [0.75, 0.5, 0.25]");
    let out = encode(&import(&t2));
    assert_eq!(out.len(), data.len());
    let diff: Vec<usize> = (0..data.len()).filter(|&i| out[i] != data[i]).collect();
    let light_state = 1916 + 64 + (12 + 16) + (12 + 60);
    let color = light_state + 12 + 100;
    assert_eq!(diff, vec![color + 2]); // 1.0 = 0000803f → 0.75 = 0000403f
    assert_eq!(&out[color..color + 4], &0.75f32.to_le_bytes());

    // an event's start time
    let t3 = edit(&text, "start: event, time: 1.0", "start: event, time: 1.5");
    let b = import(&t3);
    let e = &b.anim_defs[0].sequences[0].events[21];
    assert_eq!(e.start_time.get(), 1.5);
    assert_eq!(Anim::read(&encode(&b)).unwrap(), b.clone_with_names());
}

impl Anim {
    /// The model as a fresh decode of its encoding would show it (names attached).
    fn clone_with_names(&self) -> Anim {
        Anim::read(&encode(self)).unwrap()
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn a_reference_edit_is_honoured_or_refused() {
    let Some(data) = synthetic() else { return };
    let a = Anim::read(&data).unwrap();
    let text = yaml(&a);
    let sound_node = |b: &Anim| {
        let EventData::Sound(p) = &b.anim_defs[0].sequences[0].events[0].data else {
            panic!("sound expected")
        };
        p.node.index()
    };
    let from = "node: {index: 1, name: node_a}, pos: [1.0, 2.0, 3.0]";
    let err = |to: &str| {
        Anim::from_yaml(&edit(&text, from, to), &ImportOptions::default())
            .unwrap_err()
            .to_string()
    };
    // the first `sound` event's node: node_a (1) → node_b_long_name_xyz (2), by name alone
    let b = import(&edit(
        &text,
        from,
        "node: {name: node_b_long_name_xyz}, pos: [1.0, 2.0, 3.0]",
    ));
    assert_eq!(sound_node(&b), 2);
    // by index alone
    assert_eq!(
        sound_node(&import(&edit(
            &text,
            from,
            "node: {index: 2}, pos: [1.0, 2.0, 3.0]"
        ))),
        2
    );
    // by both, agreeing
    let both = "node: {index: 2, name: node_b_long_name_xyz}, pos: [1.0, 2.0, 3.0]";
    assert_eq!(sound_node(&import(&edit(&text, from, both))), 2);
    // one edited, the other left as it was: refused with both values and the list's size
    let p = "anim_defs[0].sequences[0].events[0].sound.node";
    assert_eq!(
        err("node: {index: 2, name: node_a}, pos: [1.0, 2.0, 3.0]"),
        format!("{p}: index 2 (\"node_b_long_name_xyz\") and name \"node_a\" disagree (the list of nodes has 2 items): edit one and delete the other")
    );
    assert_eq!(
        err("node: {index: 1, name: node_b_long_name_xyz}, pos: [1.0, 2.0, 3.0]"),
        format!("{p}: index 1 (\"node_a\") and name \"node_b_long_name_xyz\" disagree (the list of nodes has 2 items): edit one and delete the other")
    );
    // an index past the list with a name: an error
    assert_eq!(
        err("node: {index: 9, name: node_a}, pos: [1.0, 2.0, 3.0]"),
        format!("{p}: node index 9 is past the list of nodes (2 items)")
    );
    // an index alone past the list: an error naming the path, the value and the list's size
    let hint = "(an original's index that resolves to nothing is written `raw_index`)";
    for to in [
        "node: 9, pos: [1.0, 2.0, 3.0]",
        "node: {index: 9}, pos: [1.0, 2.0, 3.0]",
    ] {
        assert_eq!(
            err(to),
            format!("{p}: node index 9 is past the list of nodes (2 items): give an index inside it or a name {hint}")
        );
    }
    assert_eq!(
        err("node: {index: -7}, pos: [1.0, 2.0, 3.0]"),
        format!("{p}: node index -7 does not resolve (the list of nodes has 2 items) {hint}")
    );
    // the kind's "none" value alone is fine
    assert_eq!(
        sound_node(&import(&edit(
            &text,
            from,
            "node: {index: 0}, pos: [1.0, 2.0, 3.0]"
        ))),
        0
    );
    // an original's unresolvable index has its own spelling: kept as given, exported the same
    // way, and `check` reports it
    let raw = "node: {raw_index: 9}, pos: [1.0, 2.0, 3.0]";
    let b = import(&edit(&text, from, raw));
    assert_eq!(sound_node(&b), 9);
    assert!(yaml(&b).contains(raw));
    assert!(crate::mw3::anim::check::check(&b)
        .iter()
        .any(|f| f.message == "node index 9 does not resolve"));
    // `raw_index` stands alone
    assert!(
        err("node: {raw_index: 9, name: node_a}, pos: [1.0, 2.0, 3.0]")
            .contains("`raw_index` (an original's index that resolves to nothing) stands alone")
    );
    // an unknown name is an error with its path
    assert_eq!(
        err("node: {name: nowhere}, pos: [1.0, 2.0, 3.0]"),
        format!("{p}: no node named \"nowhere\" in this anim def")
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn duplicate_names_round_trip_by_index() {
    let Some(data) = synthetic() else { return };
    let mut a = Anim::read(&data).unwrap();
    // make node 2 carry node 1's name: events pointing at 2 must stay at 2
    a.anim_defs[0].nodes[1].name = prim::NodeName::new("node_a");
    let bytes = encode(&a);
    let b = Anim::read(&bytes).unwrap();
    let c = import(&yaml(&b));
    assert_eq!(encode(&c), bytes);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn derived_values_follow_edits_when_consistent() {
    let Some(data) = synthetic() else { return };
    let a = Anim::read(&data).unwrap();
    let text = yaml(&a);
    // health: cur_health (def + 176) follows max_health (def + 172)
    let b = import(&edit(&text, "health: 10.0", "health: 12.5"));
    let out = encode(&b);
    assert_eq!(&out[628 + 172..628 + 176], &12.5f32.to_le_bytes());
    assert_eq!(&out[628 + 176..628 + 180], &12.5f32.to_le_bytes());
    // removing the only CALLBACK clears HAS_CALLBACKS; the stream size and the embedded reset
    // state copy follow
    let c = import(&edit(&text, "    - {callback: {value: 42}}\n", ""));
    let out = encode(&c);
    assert_eq!(out.len(), data.len() - 16);
    let flags = u32::from_le_bytes(out[628 + 148..628 + 152].try_into().unwrap());
    assert_eq!(flags & 0x10, 0);
    let seq_size = u32::from_le_bytes(out[1916 + 60..1916 + 64].try_into().unwrap());
    assert_eq!(seq_size, 2768 - 16);
    // adding an event to the reset state: both copies of its size follow
    let d = import(&edit(
        &text,
        "events: [{object_active_state: {node: {index: 1, name: node_a}}}]",
        "events: [{object_active_state: {node: {index: 1, name: node_a}}}, {callback: {value: 1}}]",
    ));
    let out = encode(&d);
    let embedded = u32::from_le_bytes(out[628 + 200 + 60..628 + 264].try_into().unwrap());
    let standalone = u32::from_le_bytes(out[1832 + 60..1832 + 64].try_into().unwrap());
    assert_eq!((embedded, standalone), (36, 36));
    // adding a node: the count (zero item included) follows; references given by name alone
    // (their indices deleted) follow the names (with the old indices they would disagree with
    // their names and be refused)
    let by_name = text
        .replace("{index: 1, name: node_a}", "{name: node_a}")
        .replace(
            "{index: 2, name: node_b_long_name_xyz}",
            "{name: node_b_long_name_xyz}",
        );
    let e = import(&edit(
        &by_name,
        "nodes: [{name: node_a, ptr: 0x05000000}",
        "nodes: [{name: node_new, ptr: 0x05000009}, {name: node_a, ptr: 0x05000000}",
    ));
    let out = encode(&e);
    assert_eq!(out[628 + 266], 4);
    let f = Anim::read(&out).unwrap();
    // references followed the names: node_a is now index 2
    let EventData::Sound(p) = &f.anim_defs[0].sequences[0].events[0].data else {
        panic!()
    };
    assert_eq!(p.node.index(), 2);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn inconsistent_duplicates_are_kept_as_stored() {
    let Some(mut data) = synthetic() else { return };
    // cur_health ≠ max_health, HAS_CALLBACKS cleared although a CALLBACK exists, node count
    // 0 with a non-zero pointer would lose the nodes, so instead: embedded reset pointer differs
    data[628 + 176..628 + 180].copy_from_slice(&11.0f32.to_le_bytes());
    data[628 + 148] &= !0x10;
    data[628 + 200 + 56] ^= 0xff;
    let a = Anim::read(&data).unwrap();
    let st = &a.anim_defs[0].stored;
    assert_eq!(st.cur_health, Some(F32::new(11.0)));
    assert_eq!(st.has_callbacks, Some(false));
    assert!(st.embedded_reset_state.is_some());
    assert_eq!(encode(&a), data);
    let text = yaml(&a);
    assert!(text.contains("stored:"));
    // an edit elsewhere keeps them
    let b = import(&edit(&text, "health: 10.0", "health: 12.5"));
    let out = encode(&b);
    assert_eq!(&out[628 + 176..628 + 180], &11.0f32.to_le_bytes());
    assert_eq!(out[628 + 148] & 0x10, 0);
    assert_eq!(out[628 + 200 + 56], data[628 + 200 + 56]);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn minus_zero_and_nan_survive_yaml() {
    let Some(mut data) = synthetic() else { return };
    // the first event's start_time → -0.0; gravity → a NaN with payload
    data[1916 + 64 + 8..1916 + 64 + 12].copy_from_slice(&0x8000_0000u32.to_le_bytes());
    data[180 + 28..180 + 32].copy_from_slice(&0x7fa0_0001u32.to_le_bytes());
    let a = Anim::read(&data).unwrap();
    let text = yaml(&a);
    assert!(text.contains("gravity: NaN(0x7fa00001)"));
    assert!(text.contains("time: -0.0"));
    assert_eq!(encode(&import(&text)), data);
}

// ---------------------------------------------------------------------------------------------
// Bad input

fn decode_err(data: &[u8]) -> crate::exact::DecodeError {
    match Anim::read(data) {
        Ok(_) => panic!("decoded"),
        Err(e) => e,
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn truncated_files_fail_with_offset_and_path() {
    let Some(data) = synthetic() else { return };
    let e = decode_err(&data[..1916 + 64 + 100]);
    assert_eq!(e.path.to_string(), "anim_defs[0].sequences[0].size");
    assert_eq!(e.offset, 1916 + 60);
    assert!(matches!(
        e.kind,
        DecodeErrorKind::CountTooLarge { count: 2768, .. }
    ));
    // cut inside the anim def: def_count already promises more than is left
    let e = decode_err(&data[..700]);
    assert_eq!(e.offset, 190);
    assert_eq!(e.path.to_string(), "info.def_count");
    // cut inside the anim list
    let e = decode_err(&data[..100]);
    assert_eq!(e.offset, 8);
    assert_eq!(e.path.to_string(), "anim_list");
    // every prefix fails cleanly
    for n in 0..data.len() {
        assert!(Anim::read(&data[..n]).is_err(), "prefix {n}");
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn event_size_disagreeing_with_type_is_an_error() {
    let Some(mut data) = synthetic() else { return };
    let ev7 = 1916 + 64 + 28 + 72 + 132 + 112 + 20 + 32; // events[6] (object_scale_state)
    assert_eq!(data[ev7], 8);
    data[ev7 + 4] = 32;
    let e = decode_err(&data);
    assert_eq!(
        e.path.to_string(),
        "anim_defs[0].sequences[0].events[6].size"
    );
    assert_eq!(e.offset, ev7 as u64 + 4);
    assert_eq!(
        e.kind.to_string(),
        "event size 32 disagrees with type 8 (object_scale_state), which is 28 bytes"
    );
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn unknown_event_types_are_errors() {
    let Some(mut data) = synthetic() else { return };
    let ev = 1916 + 64;
    for code in [0u8, 29, 37, 39, 43, 255] {
        data[ev] = code;
        let e = decode_err(&data);
        assert_eq!(
            e.path.to_string(),
            "anim_defs[0].sequences[0].events[0].type"
        );
        assert_eq!(e.offset, ev as u64);
        assert_eq!(e.kind.to_string(), format!("unknown event type {code}"));
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn counts_beyond_the_file_are_refused_before_allocation() {
    let Some(mut data) = synthetic() else { return };
    data[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = decode_err(&data);
    assert_eq!(e.path.to_string(), "anim_list");
    assert_eq!(e.offset, 8);
    assert!(matches!(e.kind, DecodeErrorKind::CountTooLarge { .. }));

    let Some(mut data) = synthetic() else { return };
    data[180 + 10..180 + 12].copy_from_slice(&u16::MAX.to_le_bytes());
    let e = decode_err(&data);
    assert_eq!(e.path.to_string(), "info.def_count");
    assert_eq!(e.offset, 190);

    let Some(mut data) = synthetic() else { return };
    data[628 + 266] = 250; // node_count
    let e = decode_err(&data);
    assert!(
        e.path.to_string().starts_with("anim_defs[0]."),
        "{}",
        e.path
    );

    // SI script frame count
    let Some(mut data) = synthetic() else { return };
    let si = 1916 + 64 + 28 + 72 + 132 + 112 + 20 + 32 + 28 + 32 + 332 + 144 + 12;
    assert_eq!(data[si - 12], 12);
    data[si + 4..si + 8].copy_from_slice(&0x4000_0000u32.to_le_bytes());
    let e = decode_err(&data);
    assert_eq!(
        e.path.to_string(),
        "anim_defs[0].sequences[0].events[10].object_motion_si_script.frame_count"
    );
    assert_eq!(e.offset, si as u64 + 4);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn strings_without_terminator_are_errors() {
    let Some(mut data) = synthetic() else { return };
    // the sequence name "seq1" → 32 × 'x'
    data[1916..1916 + 32].fill(b'x');
    let e = decode_err(&data);
    assert_eq!(e.path.to_string(), "anim_defs[0].sequences[0].name");
    assert_eq!(e.offset, 1916);
    assert_eq!(e.kind, DecodeErrorKind::Unterminated);
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn yaml_with_bad_values_names_the_path() {
    let Some(data) = synthetic() else { return };
    let text = yaml(&Anim::read(&data).unwrap());
    let long = "x".repeat(40);
    let bad = edit(&text, "name: seq1", &format!("name: {long}"));
    let err = Anim::from_yaml(&bad, &ImportOptions::default())
        .map(|a| encode_err(&a))
        .unwrap();
    assert!(
        err.starts_with("anim_defs[0].sequences[0].name: text"),
        "{err}"
    );
}

fn encode_err(a: &Anim) -> String {
    let mut out = Vec::new();
    a.write(&mut out, None).unwrap_err().to_string()
}

// ---------------------------------------------------------------------------------------------
// Generated files

#[test]
fn generated_files_round_trip() {
    for seed in 0..40 {
        let data = gen::file(seed, &gen::Shape::default()).unwrap();
        let a = Anim::read(&data).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(encode(&a), data, "seed {seed}: binary");
        assert_eq!(encode(&import(&yaml(&a))), data, "seed {seed}: YAML");
    }
}

#[test]
#[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
fn references_may_be_given_by_name_or_index_alone() {
    let Some(data) = synthetic() else { return };
    let text = yaml(&Anim::read(&data).unwrap());
    let t2 = edit(
        &text,
        "{object_add_child: {parent: {index: 1, name: node_a}, child: {index: 2, name: node_b_long_name_xyz}}}",
        "{object_add_child: {parent: node_b_long_name_xyz, child: 1}}",
    );
    let t2 = edit(
        &t2,
        "{detonate_weapon: {weapon: mortar, node: {index: -200, name: INPUT_NODE}",
        "{detonate_weapon: {weapon: mortar, node: INPUT_NODE",
    );
    let b = import(&t2);
    let ev = &b.anim_defs[0].sequences[0].events;
    let EventData::ObjectAddChild(p) = &ev[13].data else {
        panic!("object_add_child expected")
    };
    assert_eq!((p.parent.index(), p.child.index()), (2, 1));
    let EventData::DetonateWeapon(p) = &ev[34].data else {
        panic!("detonate_weapon expected")
    };
    assert_eq!(p.node.index(), -200);
    // only that event's bytes changed
    let out = encode(&b);
    let diff: Vec<usize> = (0..data.len()).filter(|&i| out[i] != data[i]).collect();
    assert_eq!(diff.len(), 2, "{diff:?}");
}

/// MW3's `import_to` does not decode the file the output replaces (a 10 MB anim.zbd is not
/// read again): it has no value findings and no edit warnings, so the default's would be
/// empty too; the bytes are the model's.
#[test]
fn mw3_import_to_finds_what_the_default_finds() {
    let data = gen::file(3, &gen::Shape::default()).expect("generates");
    let a = Anim::read(&data).expect("decodes");
    let mut b = a.clone();
    b.info.gravity = F32::new(-1.5);
    assert!(Codec::edit_warnings(&a, &b).is_empty());
    assert!(Codec::value_findings(&b).is_empty());
    let yaml = b.to_yaml(&ExportOptions::default()).unwrap();
    let mut out = Vec::new();
    let found = Anim::import_to(&yaml, &ImportOptions::default(), Some(&data), &mut out).unwrap();
    assert!(found.value_findings.is_empty() && found.edit_warnings.is_empty());
    let mut expected = Vec::new();
    b.encode(&mut expected).unwrap();
    assert_eq!(out, expected);
    assert_ne!(out, data, "the edit is in the bytes");
}

/// The output is reserved once at about its final size: within 10 % of the encoded length of
/// 300 generated anim defs (both kinds of values).
#[test]
fn size_hint_is_about_the_encoded_size() {
    for realistic in [true, false] {
        let shape = gen::Shape {
            defs: 300,
            max_items: 6,
            max_sequences: 3,
            max_events: 16,
            realistic,
        };
        let data = gen::file(11, &shape).expect("generates");
        let a = Anim::read(&data).expect("decodes");
        let hint = a.size_hint();
        assert!(
            hint.abs_diff(data.len()) * 10 <= data.len(),
            "hint {hint} for {} bytes",
            data.len()
        );
    }
}

/// The visitors that read keys, flags, names and hex without allocating keep the values and
/// messages of the `String`/`Vec<String>`/`Blob` readers they replace.
#[test]
fn allocation_free_readers_keep_their_values_and_messages() {
    use super::anim_def::{Activation, DefFlags};
    use super::prim::Bytes;
    use super::refs::Ref;
    fn json<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, String> {
        serde_json::from_str(s).map_err(|e| e.to_string())
    }
    // hex: 2N digits straight in; spaces and wrong lengths through Blob's rules and messages
    assert_eq!(json::<Bytes<2>>("\"0a11\"").map(|b| b.0), Ok([0x0a, 0x11]));
    assert_eq!(json::<Bytes<2>>("\"0A 11\"").map(|b| b.0), Ok([0x0a, 0x11]));
    let e = json::<Bytes<2>>("\"001122\"").unwrap_err();
    assert!(e.starts_with("expected 2 bytes of hex, got 3"), "{e}");
    let e = json::<Bytes<2>>("\"0g11\"").unwrap_err();
    assert!(e.starts_with("bad hex bytes: "), "{e}");
    let e = json::<Bytes<2>>("7").unwrap_err();
    assert!(e.contains("expected hex digits, two per byte"), "{e}");
    // flags
    assert_eq!(
        json::<DefFlags>("[\"has_callbacks\", \"0x1\"]").map(|f| f.0),
        Ok(0x11)
    );
    let e = json::<DefFlags>("[\"bogus\"]").unwrap_err();
    assert!(
        e.starts_with("unknown flag `bogus` (known: execution_by_range, execution_by_zone,"),
        "{e}"
    );
    let e = json::<DefFlags>("\"has_callbacks\"").unwrap_err();
    assert!(e.contains("expected a sequence"), "{e}");
    let e = json::<DefFlags>("[7]").unwrap_err();
    assert!(e.contains("expected a string"), "{e}");
    // named values
    assert_eq!(json::<Activation>("\"on_call\"").map(|a| a.0), Ok(3));
    assert_eq!(json::<Activation>("9").map(|a| a.0), Ok(9));
    let e = json::<Activation>("\"bogus\"").unwrap_err();
    assert!(
        e.contains("expected one of weapon_hit, collide_hit, weapon_or_collide_hit, on_call, on_startup or a number"),
        "{e}"
    );
    // keys of references and events
    let r = json::<Ref>("{\"index\": 2, \"name\": \"n\"}").expect("reads");
    assert_eq!(
        (r.index, r.name.map(|n| n.to_string())),
        (2, Some("n".into()))
    );
    let e = json::<Ref>("{\"index\": 1, \"nam\": \"x\"}").unwrap_err();
    assert!(
        e.starts_with("unknown field `nam`, expected one of `index`, `name`, `raw_index`"),
        "{e}"
    );
    let e = json::<super::events::Event>("{\"pad\": 1, \"bogus\": {}}").unwrap_err();
    assert!(
        e.starts_with("unknown event key `bogus` (start, time, pad, or a type: sound,"),
        "{e}"
    );
    // and the same through both YAML readers
    let text =
        "format: mw3.anim\nversion: 1\nanim_defs:\n- name: a\n  flags: [has_callbacks, bogus]\n";
    for fast in [true, false] {
        let (r, _) = crate::yaml::read::with_fast_reader(fast, || {
            Anim::from_yaml(text, &ImportOptions::default())
        });
        let e = r.expect_err("an unknown flag").to_string();
        assert!(
            e.contains("anim_defs[0].flags: unknown flag `bogus`"),
            "{e}"
        );
        assert!(e.contains("5:"), "{e}");
    }
}

/// `import`'s streamed path (a large document read, resolved and encoded piece by piece on
/// every core) gives the ordinary path's bytes, and for a broken document its very error.
#[test]
fn a_large_document_streams_to_the_same_bytes_and_the_same_errors() {
    let bytes = gen::file(5, &gen::Shape::realistic(400)).expect("generates");
    let yaml = Anim::read(&bytes)
        .unwrap()
        .to_yaml(&ExportOptions::default())
        .unwrap();
    assert!(yaml.len() > crate::yaml::split::SPLIT_MIN, "{}", yaml.len());
    let opts = ImportOptions::default();
    // (the streamed path needs two threads; the test pool may have one)
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let import = |text: &str| {
            let mut out = Vec::new();
            Anim::import_to(text, &opts, None, &mut out).map(|_| out)
        };
        let stream = |text: &str| {
            let mut streamed = Vec::new();
            Anim::stream_into(&crate::yaml::FileText::of_str(text), &mut streamed).map(|_| streamed)
        };
        assert_eq!(stream(&yaml).expect("the streamed path reads it"), bytes);
        assert_eq!(import(&yaml).unwrap(), bytes);
        // with a byte order mark and CRLF line ends too, as `import` hands a file over (its
        // bytes not yet checked as UTF-8: the pieces are checked as they are read)
        let crlf = format!("\u{feff}{}", yaml.replace('\n', "\r\n"));
        let release = |_: &[u8]| {};
        let file_import = |b: &[u8]| {
            let text = crate::yaml::FileText::of_bytes(b, &release).unwrap();
            let mut out = Vec::new();
            let r = crate::registry::formats()
                .by_tag("mw3.anim")
                .unwrap()
                .import_to(&text, &opts, None, &mut out);
            (
                r.map(|_| out).map_err(|e| e.to_string()),
                text.checked_whole(),
            )
        };
        assert_eq!(file_import(crlf.as_bytes()), (Ok(bytes.clone()), false));
        // a byte that is not UTF-8 in the middle: the whole file's message, where and why
        let mut bad = crlf.clone().into_bytes();
        let mid = bad.len() / 2;
        bad[mid] = 0xFF;
        let want = crate::yaml::decode_text(&bad).unwrap_err();
        assert!(want.starts_with("not UTF-8 text: "), "{want}");
        assert_eq!(file_import(&bad), (Err(want), true));

        let ordinary = |text: &str| -> Result<Vec<u8>, String> {
            let mut out = Vec::new();
            let a = Anim::from_yaml(text, &opts).map_err(|e| e.to_string())?;
            a.encode(&mut out).map_err(|e| e.to_string())?;
            Ok(out)
        };
        // a wrong value late in the document (a YAML error), a reference to a name no array
        // holds (an error of resolving), an unknown key
        let last = yaml.rfind("activation: ").unwrap();
        let wrong_value = format!("{}activation: sometimes{}", &yaml[..last], {
            let rest = &yaml[last..];
            &rest[rest.find('\n').unwrap()..]
        });
        let last = yaml.rfind(", name: ").unwrap();
        let wrong_name = format!(
            "{}, name: no_such_thing_{}",
            &yaml[..last],
            &yaml[last + 8..]
        );
        let unknown_key = yaml.replacen("\n  health: ", "\n  wealth: ", 1);
        for (what, text) in [
            ("value", &wrong_value),
            ("name", &wrong_name),
            ("key", &unknown_key),
        ] {
            assert_ne!(text, &yaml, "{what}");
            assert!(stream(text).is_none(), "{what}");
            let want = ordinary(text).expect_err(what);
            assert_eq!(import(text).map_err(|e| e.to_string()), Err(want), "{what}");
        }
    });
}

#[test]
fn the_streamed_export_writes_the_whole_documents_bytes() {
    let streamed = |a: &Anim| {
        let mut out = Vec::new();
        a.to_yaml_into(&ExportOptions::default(), &mut out)
            .expect("exports");
        String::from_utf8(out).expect("UTF-8")
    };
    let mut seen_streamed = 0;
    for (seed, defs) in [(1, 63), (2, 64), (3, 65), (4, 200), (5, 129)] {
        let shape = gen::Shape {
            defs,
            max_items: 4,
            max_sequences: 2,
            max_events: 8,
            realistic: seed % 2 == 0,
        };
        // (as a file holds it: what is exported is a decoded file)
        let mut a = Anim::read(&encode(&gen::anim(seed, &shape))).unwrap();
        if seed == 5 {
            // (a stored zero block and trailing bytes: keys after `anim_defs`)
            a.trailing = Blob(vec![1, 2, 3]);
            let mut z = zero_def_bytes();
            z[0] = 7;
            a.zero_def = Some(Bytes(z));
        }
        let whole = yaml(&a);
        assert_eq!(streamed(&a), whole, "seed {seed}");
        // straight from the file's bytes, the model never whole
        let bytes = encode(&a);
        let mut from_bytes = Vec::new();
        Anim::yaml_from_bytes(&bytes, &mut from_bytes).expect("exports");
        assert_eq!(String::from_utf8(from_bytes).unwrap(), whole, "seed {seed}");
        // a file that does not decode: the decoder's error, nothing written
        for cut in [
            bytes.len() - a.trailing.as_bytes().len() - 3,
            bytes.len() / 2,
        ] {
            let mut out = Vec::new();
            let Err(crate::codec::ExportError::Decode(e)) =
                Anim::yaml_from_bytes(&bytes[..cut], &mut out)
            else {
                panic!("seed {seed}: a file cut at {cut} exported");
            };
            assert_eq!(e.to_string(), decode_err(&bytes[..cut]).to_string());
            assert!(out.is_empty(), "seed {seed}");
        }
        if a.anim_defs.len() >= STREAM_DEFS {
            seen_streamed += 1;
            assert!(whole.contains("\nanim_defs:\n- "), "seed {seed}");
        }
        // a short sequence that fits on one line stays there
        a.anim_defs.truncate(1);
        assert_eq!(streamed(&a), yaml(&a), "seed {seed}, one def");
    }
    assert_eq!(seen_streamed, 4);
    if let Some(data) = synthetic() {
        let a = Anim::read(&data).unwrap();
        assert_eq!(streamed(&a), yaml(&a));
    }
}
