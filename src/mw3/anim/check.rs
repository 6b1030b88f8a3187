//! `animkit check`: the validation rules of spec §9 as findings. Structural (S) and derived
//! (D) rules are errors; rules that are only "observed in shipped files" (O) are warnings,
//! since an edited file may legitimately break them (but mech3ax will refuse such a file).

use super::anim_def::AnimDef;
use super::events::{Event, EventData, ItemName};
use super::prim::is_default;
use super::refs::{Names, RefKind};
use super::seq_def::SeqDef;
use super::{zero_def_bytes, Anim};
use crate::codec::{Finding, Severity};
use crate::exact::F32;

struct Out(Vec<Finding>);

impl Out {
    fn err(&mut self, path: impl Into<String>, msg: impl Into<String>) {
        self.0.push(Finding {
            severity: Severity::Error,
            path: path.into(),
            message: msg.into(),
        });
    }
    fn warn(&mut self, path: impl Into<String>, msg: impl Into<String>) {
        self.0.push(Finding {
            severity: Severity::Warning,
            path: path.into(),
            message: msg.into(),
        });
    }
}

/// Gravity in every shipped file: -9.8.
const GRAVITY: u32 = 0xC11C_CCCD;
/// -1.0
const MINUS_ONE: u32 = 0xBF80_0000;

pub fn check(a: &Anim) -> Vec<Finding> {
    let mut o = Out(Vec::new());
    if !a.trailing.is_empty() {
        o.err(
            "trailing",
            format!(
                "{} bytes after the last anim def (the file must end there)",
                a.trailing.len()
            ),
        );
    }
    if let Some(z) = &a.zero_def {
        if z.0 != zero_def_bytes() {
            o.err(
                "zero_def",
                "block 0 must be 380 zero bytes except byte 153 = 3",
            );
        }
    }
    let i = &a.info;
    if !is_default(&i.constants) {
        o.warn(
            "info.constants",
            "zero fields not zero, or one60 not 1, or messages present",
        );
    }
    if i.defs_ptr.0 == 0 {
        o.warn("info.defs_ptr", "is 0 (never in shipped files)");
    }
    if i.world_ptr.0 == 0 {
        o.warn("info.world_ptr", "is 0 (never in shipped files)");
    }
    if i.gravity.0 != GRAVITY {
        o.warn(
            "info.gravity",
            format!("is {}, shipped files have -9.8", i.gravity),
        );
    }
    for (k, e) in a.anim_list.iter().enumerate() {
        if !e.name.text().is_ascii() {
            o.warn(format!("anim_list[{k}].name"), "is not ASCII");
        }
    }
    for (k, d) in a.anim_defs.iter().enumerate() {
        check_def(&mut o, &format!("anim_defs[{k}]"), d);
    }
    o.0
}

fn check_def(o: &mut Out, p: &str, d: &AnimDef) {
    check_arrays(o, p, d);
    check_states(o, p, d);
    check_flags(o, p, d);
    check_constants(o, p, d);
    let names = d.names();
    check_names(o, p, d, &names);
    check_items(o, p, d);
    for (k, e) in d.reset_state.events.iter().enumerate() {
        check_event(o, &format!("{p}.reset_state.events[{k}]"), e, &names);
    }
    for (sk, sq) in d.sequences.iter().enumerate() {
        for (k, e) in sq.events.iter().enumerate() {
            check_event(o, &format!("{p}.sequences[{sk}].events[{k}]"), e, &names);
        }
    }
}

/// S: the arrays' counts and pointers, the zero item 0, effects, sequences.
fn check_arrays(o: &mut Out, p: &str, d: &AnimDef) {
    for a in d.counted_arrays() {
        let (name, ptr, count) = (a.name, a.ptr.0, a.count());
        if (count > 0) != (ptr != 0) {
            let what = match a.zero_item {
                Some(_) => format!("count {count}"),
                None => format!("{count} items"),
            };
            o.err(
                format!("{p}.ptrs.{name}"),
                format!("pointer {ptr:#x} with {what}: count > 0 ⇔ pointer ≠ 0"),
            );
        }
        if a.zero_item == Some(true) {
            o.err(format!("{p}.{name}"), "item 0 is not all zero");
        }
    }
    if d.ptrs.effects.0 != 0 {
        o.err(format!("{p}.ptrs.effects"), "must be 0 (no effects in MW)");
    }
    if d.sequences.is_empty() {
        o.err(format!("{p}.sequences"), "every anim def needs a sequence");
    }
    if d.ptrs.seq_defs.0 == 0 {
        o.err(format!("{p}.ptrs.seq_defs"), "must not be 0");
    }
}

/// S: the reset state and every sequence's states, pointers and events.
fn check_states(o: &mut Out, p: &str, d: &AnimDef) {
    let s = &d.stored;
    if s.embedded_reset_state.is_some() {
        o.err(
            format!("{p}.stored.embedded_reset_state"),
            "the embedded reset state (AnimDef + 200) differs from the standalone one",
        );
    }
    let r = &d.reset_state;
    let rp = format!("{p}.reset_state");
    if r.name.text() != b"RESET_SEQUENCE" || !r.name.is_clean() {
        o.err(format!("{rp}.name"), "must be RESET_SEQUENCE");
    }
    if r.seq_state.0 != 0 || r.reset_state.0 != 0 {
        o.err(&rp, "states must be initial (0)");
    }
    check_seq_zeros(o, &rp, r);
    if r.events.is_empty() != (r.pointer.0 == 0) {
        o.err(
            format!("{rp}.pointer"),
            "size 0 ⇔ pointer 0 (an empty reset state has pointer 0)",
        );
    }
    for (k, sq) in d.sequences.iter().enumerate() {
        let sp = format!("{p}.sequences[{k}]");
        for (what, st) in [("seq_state", sq.seq_state), ("reset_state", sq.reset_state)] {
            if st.0 != 0 && st.0 != 3 {
                o.err(
                    format!("{sp}.{what}"),
                    format!("{} is not initial (0) or on_call (3)", st.0),
                );
            }
        }
        if sq.pointer.0 == 0 {
            o.err(format!("{sp}.pointer"), "must not be 0");
        }
        if sq.events.is_empty() {
            o.err(format!("{sp}.events"), "a sequence needs events");
        }
        check_seq_zeros(o, &sp, sq);
        clean_name(o, &format!("{sp}.name"), sq.name.text(), sq.name.is_clean());
    }
}

/// D: flags and the values they duplicate.
fn check_flags(o: &mut Out, p: &str, d: &AnimDef) {
    let s = &d.stored;
    let f = d.flags;
    let unknown = f.0 & !super::anim_def::DefFlags::KNOWN;
    if unknown != 0 {
        o.err(
            format!("{p}.flags"),
            format!("unknown bits {unknown:#x} (0x80000 is Pirate's Moon's LOCAL_NODES_ONLY)"),
        );
    }
    let callbacks = d.any_callback();
    let bit = s.has_callbacks.unwrap_or(callbacks);
    if callbacks && !bit {
        o.err(
            format!("{p}.flags"),
            "a CALLBACK event exists but HAS_CALLBACKS is clear",
        );
    } else if !callbacks && bit {
        o.warn(
            format!("{p}.flags"),
            "HAS_CALLBACKS set without a CALLBACK event",
        );
    }
    if f.has(0x800) && !f.has(0x400) {
        o.err(
            format!("{p}.flags"),
            "network_log_on without network_log_set",
        );
    }
    if f.has(0x2000) && !f.has(0x1000) {
        o.err(format!("{p}.flags"), "save_log_on without save_log_set");
    }
    if f.has(0x2) && f.has(0x8) {
        o.err(
            format!("{p}.flags"),
            "execution_by_range together with execution_by_zone",
        );
    }
    if !f.has(0x20) && d.reset_time.0 != MINUS_ONE {
        o.err(
            format!("{p}.reset_time"),
            format!(
                "is {} but the reset_time flag is clear (must be -1.0)",
                d.reset_time
            ),
        );
    }
    let [min, max] = d.execution_range;
    if !f.has(0x2) && (min.0 != 0 || max.0 != 0) {
        o.err(
            format!("{p}.execution_range"),
            "must be [0.0, 0.0] without execution_by_range",
        );
    }
    if f.has(0x2) && !(min.get() >= 0.0 && max.get() >= min.get()) {
        o.warn(format!("{p}.execution_range"), "expected 0 ≤ min ≤ max");
    }
    if let Some(c) = s.cur_health {
        o.err(
            format!("{p}.stored.cur_health"),
            format!("cur_health {c} differs from max_health {}", d.health),
        );
    }
    if !d.activation.is_known() {
        o.err(
            format!("{p}.activation"),
            format!("{} is not an activation (0..=4)", d.activation.0),
        );
    }
    let same = d.name.text() == d.anim_root_name.text();
    if same != (d.ptrs.anim.0 == d.ptrs.anim_root.0) {
        o.err(
            format!("{p}.ptrs.anim_root"),
            "anim_root must equal anim exactly when name == anim_root_name",
        );
    }
    if d.ptrs.anim.0 == 0 {
        o.err(format!("{p}.ptrs.anim"), "must not be 0");
    }
}

/// O: constants, health and prerequisite counts.
fn check_constants(o: &mut Out, p: &str, d: &AnimDef) {
    let k = &d.constants;
    if !is_default(k) {
        o.warn(
            format!("{p}.constants"),
            "status 0, execution_priority 4, byte 155 = 2 and zero fields expected",
        );
    }
    if k.effect_count != 0 {
        o.err(format!("{p}.constants.effect_count"), "must be 0 in MW");
    }
    if d.health.get() < 0.0 || d.health.get().is_nan() {
        o.warn(format!("{p}.health"), "expected ≥ 0");
    }
    if d.activ_prereq_min_to_satisfy > 2
        || d.activ_prereqs.is_empty() && d.activ_prereq_min_to_satisfy != 0
    {
        o.warn(
            format!("{p}.activ_prereq_min_to_satisfy"),
            "expected 0 without prerequisites, else 0..=2",
        );
    }
}

/// Names: clean, ASCII, unique within each array.
fn check_names(o: &mut Out, p: &str, d: &AnimDef, names: &Names<'_>) {
    clean_name(o, &format!("{p}.name"), d.name.text(), d.name.is_clean());
    for (what, name) in [
        ("anim_name", &d.anim_name),
        ("anim_root_name", &d.anim_root_name),
    ] {
        if !name.text().is_ascii() {
            o.warn(format!("{p}.{what}"), "is not ASCII");
        }
    }
    check_unique(
        o,
        &format!("{p}.objects"),
        d.objects.iter().map(|x| x.name.text()),
    );
    check_unique(o, &format!("{p}.nodes"), names.nodes.iter().copied());
    check_unique(o, &format!("{p}.lights"), names.lights.iter().copied());
    check_unique(o, &format!("{p}.puffers"), names.puffers.iter().copied());
    check_unique(
        o,
        &format!("{p}.dynamic_sounds"),
        names.dynamic_sounds.iter().copied(),
    );
    check_unique(
        o,
        &format!("{p}.static_sounds"),
        names.static_sounds.iter().copied(),
    );
}

/// Each array's items: pointers, flags, prerequisites, anim refs.
fn check_items(o: &mut Out, p: &str, d: &AnimDef) {
    for (k, x) in d.nodes.iter().enumerate() {
        if x.ptr.0 == 0 || x.zero32 != 0 {
            o.warn(format!("{p}.nodes[{k}]"), "expected ptr ≠ 0 and zero32 = 0");
        }
    }
    for (list, what) in [(&d.lights, "lights"), (&d.dynamic_sounds, "dynamic_sounds")] {
        for (k, x) in list.iter().enumerate() {
            if x.ptr.0 == 0 || x.flags != 0 || x.in_world != 0 {
                o.warn(
                    format!("{p}.{what}[{k}]"),
                    "expected ptr ≠ 0, flags = 0 and in_world = 0",
                );
            }
        }
    }
    for (k, x) in d.puffers.iter().enumerate() {
        if x.flags.0 & 0x00FF_FFFF != 0 {
            o.err(format!("{p}.puffers[{k}].flags"), "low 24 bits must be 0");
        }
        if x.ptr.0 == 0 || x.in_world != 0 {
            o.warn(
                format!("{p}.puffers[{k}]"),
                "expected ptr ≠ 0 and in_world = 0",
            );
        }
        clean_name(
            o,
            &format!("{p}.puffers[{k}].name"),
            x.name.text(),
            x.name.is_clean(),
        );
    }
    for (k, x) in d.activ_prereqs.iter().enumerate() {
        let pp = format!("{p}.activ_prereqs[{k}]");
        if !x.kind.is_known() {
            o.err(&pp, format!("unknown prerequisite type {}", x.kind.0));
            continue;
        }
        if x.optional > 1 {
            o.err(format!("{pp}.optional"), "must be 0 or 1");
        }
        match x.kind.0 {
            1 if x.active != 0 || x.ptr.0 != 0 => {
                o.warn(&pp, "an animation prerequisite has zeros after its name")
            }
            2 if x.active > 1 || x.ptr.0 == 0 => o.warn(&pp, "expected active 0/1 and ptr ≠ 0"),
            3 if x.active != 0 || x.ptr.0 == 0 => o.warn(&pp, "expected active 0 and ptr ≠ 0"),
            _ => {}
        }
        clean_name(o, &format!("{pp}.name"), x.name.text(), x.name.is_clean());
    }
    for (k, x) in d.anim_refs.iter().enumerate() {
        if !x.kind.is_known() {
            o.err(
                format!("{p}.anim_refs[{k}].type"),
                format!("unknown anim ref type {}", x.kind.0),
            );
        }
        if x.ptr.0 != 0 {
            o.warn(format!("{p}.anim_refs[{k}].ptr"), "expected 0");
        }
    }
}

fn check_seq_zeros(o: &mut Out, p: &str, s: &SeqDef) {
    if s.pad34 != 0
        || s.loop_time.0 != 0
        || s.event_time.0 != 0
        || s.seq_time.0 != 0
        || s.loop_count != 0
        || s.curr_event_ptr.0 != 0
    {
        o.err(
            p,
            "pad, loop/event/seq times, loop count and current event pointer must be 0",
        );
    }
}

fn clean_name(o: &mut Out, p: &str, t: &[u8], clean: bool) {
    if !t.is_ascii() {
        o.warn(p, "is not ASCII");
    }
    if !clean {
        o.warn(p, "bytes after the terminator are not zero");
    }
}

fn check_unique<'a>(o: &mut Out, p: &str, names: impl Iterator<Item = &'a [u8]>) {
    let mut seen = std::collections::HashSet::new();
    for (k, n) in names.enumerate() {
        if !seen.insert(n) {
            o.warn(
                format!("{p}[{k}].name"),
                format!(
                    "duplicate name {:?} (references by name pick the first)",
                    crate::exact::text::decode_cp1252(n)
                ),
            );
        }
    }
}

fn in01(v: F32) -> bool {
    (0.0..=1.0).contains(&v.get())
}

fn check_event(o: &mut Out, p: &str, e: &Event, names: &Names) {
    if !e.start_offset.is_known() {
        o.err(
            format!("{p}.start"),
            format!("start offset {} is not 1, 2 or 3", e.start_offset.0),
        );
    }
    if e.pad != 0 {
        o.err(format!("{p}.pad"), "must be 0");
    }
    let kind = e.data.name();
    let ep = format!("{p}.{kind}");
    // every index resolves
    let mut data = e.data.clone();
    let _ = data.visit_refs(&mut |k, r| {
        let i = r.index;
        // the same rule as the export's `raw_index` spelling (refs.rs)
        let ok = k.is_none_value(i) || names.name_of(k, i).is_some();
        if !ok {
            o.err(&ep, format!("{} index {i} does not resolve", k.label()));
        }
        Ok(())
    });
    check_payload(o, &ep, &e.data, names);
}

/// A name copy an event stores must be the referenced item's name.
fn name_copy(o: &mut Out, ep: &str, names: &Names, n: &ItemName, k: RefKind, i: i32) {
    if let Some(s) = &n.0 {
        if names.item(k, i) != Some(s.text()) {
            o.err(
                format!("{ep}.name"),
                format!(
                    "{:?} differs from the referenced {}'s name",
                    crate::exact::text::decode_cp1252(s.text()),
                    k.label()
                ),
            );
        }
    }
}

/// The rules of each payload type (`ep`: the payload's path).
fn check_payload(o: &mut Out, ep: &str, data: &EventData, names: &Names) {
    match data {
        EventData::Effect(_) => o.err(ep, "EFFECT cannot resolve in MW (there are no effects)"),
        EventData::SoundNode(x) => {
            name_copy(
                o,
                ep,
                names,
                &x.name,
                RefKind::DynamicSound,
                x.sound.index(),
            );
            if x.flags.0 & !3 != 0 || x.flags.0 == 3 {
                o.err(
                    format!("{ep}.flags"),
                    "unknown bits, or translate_abs together with at_node",
                );
            }
        }
        EventData::LightState(x) => {
            name_copy(o, ep, names, &x.name, RefKind::Light, x.light.index());
            if x.flags.0 & !super::events::LightFlags::KNOWN != 0 {
                o.err(format!("{ep}.flags"), "unknown bits");
            }
            if x.active_state == 0 && x.flags.0 != 0 {
                o.err(
                    format!("{ep}.flags"),
                    "must be empty when active_state is 0",
                );
            }
            if x.flags.has(0x10) && !x.color.iter().all(|&c| in01(c)) {
                o.warn(format!("{ep}.color"), "expected each in [0, 1]");
            }
        }
        EventData::LightAnimation(x) => {
            name_copy(o, ep, names, &x.name, RefKind::Light, x.light.index());
            if x.run_time.get() <= 0.0 {
                o.warn(format!("{ep}.run_time"), "expected > 0");
            }
            if !x.color.iter().all(|c| (-5.0..=5.0).contains(&c.get())) {
                o.warn(format!("{ep}.color"), "expected each in [-5, 5]");
            }
        }
        EventData::PufferState(x) => {
            name_copy(o, ep, names, &x.name, RefKind::Puffer, x.puffer.index());
            if x.flags.0 & !super::events::PufferFlags::KNOWN != 0 {
                o.err(format!("{ep}.flags"), "unknown bits");
            }
            if !x.flags.has(0x4) && x.flags.0 != 0 {
                o.err(
                    format!("{ep}.flags"),
                    "an inactive puffer state has no flags",
                );
            }
            if x.flags.has(0x200000) {
                o.warn(
                    format!("{ep}.flags"),
                    "NUMBER has no field in MW (mech3ax drops it)",
                );
            }
            if x.active_state > 10 {
                o.warn(format!("{ep}.active_state"), "expected 0..=10");
            }
            if x.color_count > 5 || x.growth_count > 5 {
                o.warn(ep, "expected at most 5 colours and growth factors");
            }
        }
        EventData::ObjectMotion(x) => {
            if x.flags.0 & !super::events::MotionFlags::KNOWN != 0 {
                o.err(format!("{ep}.flags"), "unknown bits");
            }
            if x.flags.has(0x40) && x.flags.has(0x80) {
                o.err(
                    format!("{ep}.flags"),
                    "forward_rotation_distance together with forward_rotation_time",
                );
            }
            if x.flags.has(0x400) && x.run_time.get() <= 0.0 {
                o.warn(format!("{ep}.run_time"), "expected > 0");
            }
        }
        EventData::ObjectConnector(x) if x.flags.0 & !super::events::ConnectorFlags::KNOWN != 0 => {
            o.err(format!("{ep}.flags"), "unknown bits (0x4, 0x80, 0x4000)");
        }
        EventData::Loop(x) if x.flags.0 != 1 && x.flags.0 != 2 => {
            o.err(format!("{ep}.flags"), "exactly one of count and run_time");
        }
        EventData::If(x) | EventData::Elseif(x) if !x.condition.is_known() => {
            o.err(
                format!("{ep}.condition"),
                format!("unknown condition {}", x.condition.0),
            );
        }
        EventData::ObjectCycleTexture(x) if x.reset > 5 || x.flags != 1 => {
            o.warn(ep, "expected flags 1 and reset 0..=5");
        }
        EventData::CallSequence(x) | EventData::StopSequence(x) if x.index.0 != -1 => {
            o.warn(format!("{ep}.index"), "expected -1");
        }
        EventData::FogState(x) if x.name.text() != b"default_fog_name" => {
            o.warn(format!("{ep}.name"), "expected default_fog_name");
        }
        EventData::ObjectMotionFromTo(x) if x.run_time.get() <= 0.0 => {
            o.warn(format!("{ep}.run_time"), "expected > 0")
        }
        EventData::ObjectOpacityFromTo(x) if x.run_time.get() <= 0.0 => {
            o.warn(format!("{ep}.run_time"), "expected > 0")
        }
        EventData::CameraFromTo(x) if x.run_time.get() <= 0.0 => {
            o.warn(format!("{ep}.run_time"), "expected > 0")
        }
        EventData::FbfxColorFromTo(x) if x.run_time.get() <= 0.0 => {
            o.warn(format!("{ep}.run_time"), "expected > 0")
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
    fn synthetic_file_passes_and_broken_rules_are_found() {
        let Some(mut data) = crate::testing::corpus_file("mw3/synthetic.zbd") else {
            return;
        };
        let a = Anim::read(&data).unwrap();
        assert_eq!(check(&a), Vec::new());
        // break: HAS_CALLBACKS cleared (D), gravity changed (O), the first event's node → 9,
        // unknown def flag bit 0x80000, cur_health ≠ max_health
        data[628 + 148] &= !0x10;
        data[628 + 150] |= 0x08;
        data[180 + 28..180 + 32].copy_from_slice(&1.0f32.to_le_bytes());
        data[1916 + 64 + 12 + 2] = 9;
        data[628 + 176..628 + 180].copy_from_slice(&3.0f32.to_le_bytes());
        let f = check(&Anim::read(&data).unwrap());
        let lines: Vec<String> = f.iter().map(|x| x.to_string()).collect();
        assert_eq!(
            lines,
            vec![
                "warning: info.gravity: is 1.0, shipped files have -9.8",
                "error: anim_defs[0].flags: unknown bits 0x80000 (0x80000 is Pirate's Moon's LOCAL_NODES_ONLY)",
                "error: anim_defs[0].flags: a CALLBACK event exists but HAS_CALLBACKS is clear",
                "error: anim_defs[0].stored.cur_health: cur_health 3.0 differs from max_health 10.0",
                "error: anim_defs[0].sequences[0].events[0].sound: node index 9 does not resolve",
            ]
        );
    }
}
