//! A generator of random but decodable `anim.zbd` files, for property tests, the fuzz target's
//! seed corpus and benchmarks. Deterministic for a given seed.
//!
//! Payloads and array items are made from random bytes (with a bias towards zero, so strings
//! end and flags are sparse) and read back with the real readers, so every field, garbage tail
//! and float bit pattern the readers accept can come up.

use super::anim_def::{Activation, AnimDef, DefConstants, DefFlags, DefPtrs, Stored};
use super::arrays::Item;
use super::arrays::{ActivPrereq, AnimRef};
use super::events::{
    Event, EventData, SiFrame, SiRotate, SiScript, SiScriptPayload, SiVec, StartOffset, EVENT_TYPES,
};
use super::header::{Info, InfoConstants, ListEntry};
use super::prim::{Bytes, Z};
use super::ref_fields::Node32;
use super::seq_def::{SeqDef, SeqState};
use super::Anim;
use crate::exact::{Blob, Cursor, Hex32, Text, F32};

/// A small xorshift random source (no dependency, reproducible). In `realistic` mode the
/// random bytes are whole words of typical values (0, small floats, small integers) and
/// string tails are rare, like shipped files; otherwise any bit pattern comes up.
pub struct Rng(u64, bool);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, false)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// A byte that is zero half of the time.
    fn byte(&mut self) -> u8 {
        if self.chance(50) {
            0
        } else {
            self.next_u64() as u8
        }
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        if !self.1 {
            return (0..n).map(|_| self.byte()).collect();
        }
        const WORDS: [u32; 12] = [
            0,
            0,
            0,
            0,
            0x3f80_0000,
            0x3f00_0000,
            0x4000_0000,
            0x42c8_0000,
            0xc11c_cccd,
            1,
            3,
            0x0002_0001,
        ];
        let mut out = Vec::with_capacity(n + 4);
        while out.len() < n {
            let w = WORDS[self.below(WORDS.len() as u64) as usize];
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.truncate(n);
        out
    }
    fn u32(&mut self) -> u32 {
        match self.below(4) {
            0 => 0,
            1 => self.below(8) as u32,
            _ => self.next_u64() as u32,
        }
    }
    fn f32(&mut self) -> F32 {
        if self.1 {
            return F32::new(self.below(9) as f32 * 0.5);
        }
        match self.below(8) {
            0 => F32(0),
            1 => F32(0x8000_0000),
            2 => F32(self.next_u64() as u32),
            _ => F32::new((self.below(2000) as f32 - 1000.0) / 8.0),
        }
    }
    fn name(&mut self, max: usize) -> Text {
        let len = self.below(max.min(20) as u64) as usize;
        Text(
            (0..len)
                .map(|_| b"abcdefghijklmnopqrstuvwxyz_0123456789"[self.below(37) as usize])
                .collect(),
        )
    }
    fn str<const N: usize, const NODE: bool>(&mut self) -> super::prim::Str<N, NODE> {
        let text = self.name(N - 1);
        let tail = self
            .chance(if self.1 { 3 } else { 30 })
            .then(|| Blob(self.bytes(N - text.len() - 1)));
        // the text is shorter than the buffer, so this always fits
        super::prim::Str::from_parts(text.as_bytes(), tail.as_ref().map(Blob::as_bytes))
            .unwrap_or_default()
    }
    /// A value read from random bytes (retried until the reader accepts them).
    pub fn record<T: Item>(&mut self) -> T {
        self.record_with(|_| {})
    }
    fn record_with<T: Item>(&mut self, fix: impl Fn(&mut [u8])) -> T {
        loop {
            let mut b = self.bytes(T::SIZE);
            fix(&mut b);
            if let Ok(v) = T::read_item(&mut Cursor::new(&b, 0)) {
                return v;
            }
        }
    }
}

/// Sizes of the generated content.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub defs: usize,
    /// Maximum items per array.
    pub max_items: usize,
    pub max_sequences: usize,
    pub max_events: usize,
    /// Typical values instead of arbitrary bit patterns (see [`Rng`]).
    pub realistic: bool,
}

impl Shape {
    /// A file of `defs` anim defs with realistic values and every kind of array, sequence and
    /// event (400 give a YAML document of over a megabyte, read in pieces).
    pub fn realistic(defs: usize) -> Shape {
        Shape {
            defs,
            max_items: 6,
            max_sequences: 3,
            max_events: 16,
            realistic: true,
        }
    }
}

impl Default for Shape {
    fn default() -> Self {
        Shape {
            defs: 3,
            max_items: 4,
            max_sequences: 3,
            max_events: 12,
            realistic: false,
        }
    }
}

fn si_script(r: &mut Rng) -> SiScript {
    let frames = (0..r.below(4))
        .map(|_| SiFrame {
            start_time: r.f32(),
            end_time: r.f32(),
            translate: r.chance(60).then(|| r.record::<SiVec>()),
            rotate: r.chance(60).then(|| r.record::<SiRotate>()),
            scale: r.chance(40).then(|| r.record::<SiVec>()),
            other_flags: Default::default(),
        })
        .collect();
    SiScript {
        node: Node32::new(r.below(4) as i32),
        frames,
        ..Default::default()
    }
}

fn event(r: &mut Rng) -> Event {
    let (code, _) = EVENT_TYPES[r.below(EVENT_TYPES.len() as u64) as usize];
    let data = if code == 12 {
        EventData::ObjectMotionSiScript(SiScriptPayload(si_script(r)))
    } else {
        let size = EventData::fixed_size(code).flatten().unwrap_or(0);
        loop {
            let mut bytes = vec![code, 1, 0, 0];
            bytes.extend_from_slice(&((size + 12) as u32).to_le_bytes());
            bytes.extend_from_slice(&[0; 4]);
            bytes.extend(r.bytes(size));
            if let Ok(e) = Event::read(&mut Cursor::new(&bytes, 0)) {
                break e.data;
            }
        }
    };
    Event {
        start_offset: StartOffset(if r.chance(90) {
            1 + r.below(3) as u8
        } else {
            r.byte()
        }),
        pad: if r.chance(95) { 0 } else { r.next_u64() as u16 },
        start_time: r.f32(),
        data,
    }
}

fn seq(r: &mut Rng, shape: &Shape, name: &str) -> SeqDef {
    SeqDef {
        name: if r.chance(80) { Z::new(name) } else { r.str() },
        seq_state: SeqState(if r.chance(90) { 3 } else { 0 }),
        reset_state: SeqState(if r.chance(90) { 3 } else { 0 }),
        pointer: Hex32(r.u32()),
        loop_time: if r.chance(90) { F32(0) } else { r.f32() },
        events: (0..r.below(shape.max_events as u64 + 1))
            .map(|_| event(r))
            .collect(),
        ..Default::default()
    }
}

fn items<T: Item>(r: &mut Rng, max: usize) -> Vec<T> {
    (0..r.below(max as u64 + 1)).map(|_| r.record()).collect()
}

fn opt_bytes<const N: usize>(r: &mut Rng) -> Option<Bytes<N>> {
    r.chance(5).then(|| {
        let mut b = [0u8; N];
        b[0] = 1;
        Bytes(b)
    })
}

fn anim_def(r: &mut Rng, shape: &Shape) -> AnimDef {
    let m = shape.max_items;
    let prereqs = (0..r.below(m as u64 + 1))
        .map(|_| {
            let kind = if r.chance(95) {
                1 + r.below(3)
            } else {
                r.below(50)
            } as u8;
            r.record_with::<ActivPrereq>(|b| {
                b[4..8].copy_from_slice(&(kind as u32).to_le_bytes());
            })
        })
        .collect();
    let anim_refs = (0..r.below(m as u64 + 1))
        .map(|_| {
            let kind = if r.chance(95) {
                r.below(2)
            } else {
                r.below(50)
            } as u32;
            r.record_with::<AnimRef>(|b| b[64..68].copy_from_slice(&kind.to_le_bytes()))
        })
        .collect();
    let mut ptrs = DefPtrs {
        anim: Hex32(r.u32()),
        anim_root: Hex32(r.u32()),
        seq_defs: Hex32(r.u32()),
        ..Default::default()
    };
    for p in [
        &mut ptrs.objects,
        &mut ptrs.nodes,
        &mut ptrs.lights,
        &mut ptrs.puffers,
        &mut ptrs.dynamic_sounds,
        &mut ptrs.static_sounds,
        &mut ptrs.activ_prereqs,
        &mut ptrs.anim_refs,
    ] {
        *p = Hex32(r.u32());
    }
    let mut d = AnimDef {
        name: r.str(),
        anim_name: r.str(),
        anim_root_name: r.str(),
        flags: DefFlags(r.u32() & !0x10),
        activation: Activation(r.below(6) as u8),
        execution_range: [r.f32(), r.f32()],
        reset_time: r.f32(),
        health: r.f32(),
        activ_prereq_min_to_satisfy: r.below(3) as u8,
        ptrs,
        objects: items(r, m),
        nodes: items(r, m),
        lights: items(r, m),
        puffers: items(r, m),
        dynamic_sounds: items(r, m),
        static_sounds: items(r, m),
        activ_prereqs: prereqs,
        anim_refs,
        reset_state: SeqDef::default(),
        sequences: Vec::new(),
        constants: if r.chance(95) {
            DefConstants::default()
        } else {
            DefConstants {
                status: r.byte(),
                zero312: r.u32(),
                ..Default::default()
            }
        },
        stored: Stored {
            cur_health: r.chance(5).then(|| r.f32()),
            has_callbacks: r.chance(5).then(|| r.chance(50)),
            embedded_reset_state: opt_bytes(r),
            object_zero: opt_bytes(r),
            node_zero: opt_bytes(r),
            light_zero: opt_bytes(r),
            puffer_zero: opt_bytes(r),
            dynamic_sound_zero: opt_bytes(r),
            static_sound_zero: opt_bytes(r),
            ..Default::default()
        },
    };
    let mut reset = seq(r, shape, "RESET_SEQUENCE");
    if r.chance(30) {
        reset.events.clear();
    }
    d.reset_state = reset;
    d.sequences = (0..1 + r.below(shape.max_sequences as u64))
        .map(|i| seq(r, shape, &format!("seq{i}")))
        .collect();
    d
}

/// A random file model.
pub fn anim(seed: u64, shape: &Shape) -> Anim {
    let mut r = Rng::new(seed);
    r.1 = shape.realistic;
    Anim {
        anim_list: (0..r.below(4)).map(|_| r.record::<ListEntry>()).collect(),
        info: Info {
            defs_ptr: Hex32(r.u32()),
            world_ptr: Hex32(r.u32()),
            gravity: F32::new(-9.8),
            constants: if r.chance(90) {
                InfoConstants::default()
            } else {
                InfoConstants {
                    zero04: r.u32(),
                    ..Default::default()
                }
            },
        },
        zero_def: None,
        anim_defs: (0..shape.defs).map(|_| anim_def(&mut r, shape)).collect(),
        trailing: Blob(if r.chance(10) { r.bytes(5) } else { Vec::new() }),
    }
}

/// A random file's bytes.
pub fn file(seed: u64, shape: &Shape) -> Result<Vec<u8>, crate::exact::EncodeError> {
    let mut out = Vec::new();
    anim(seed, shape).write(&mut out, None)?;
    Ok(out)
}
