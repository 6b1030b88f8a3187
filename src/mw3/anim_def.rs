//! AnimDef (spec §5.1, 316 bytes) and the whole anim def block that follows it: the arrays,
//! the reset state and the sequences.
//!
//! Values the file duplicates are derived when writing: the array counts (and their all-zero
//! item 0), the embedded copy of the reset state, `cur_health` and the HAS_CALLBACKS bit. When
//! one of them was *not* consistent in the original file, the stored value is kept in the
//! def's `stored:` section and written back as it was.

use super::arrays::{
    ActivPrereq, AnimRef, DynamicSoundRef, LightRef, NodeRef, ObjectRef, PufferRef, StaticSoundRef,
};
use super::events::EventData;
use super::prim::{flags, is_default, named, Bytes, Ctx, Field, Vec2, Z};
use super::refs::{Names, OwnedNames};
use super::seq_def::{patch_u32, SeqDef, SEQ_DEF_SIZE};
use crate::exact::{Cursor, DecodeError, EncodeError, Hex32, Within, F32};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Size of the fixed part of an anim def.
pub const ANIM_DEF_SIZE: usize = 316;
/// Offset of the embedded reset state inside the anim def.
pub const EMBEDDED_RESET_OFFSET: usize = 200;

flags!(/// AnimDef flags.
    DefFlags: u32 {
    0x2 => "execution_by_range", 0x8 => "execution_by_zone", 0x10 => "has_callbacks",
    0x20 => "reset_time", 0x400 => "network_log_set", 0x800 => "network_log_on",
    0x1000 => "save_log_set", 0x2000 => "save_log_on", 0x10000 => "auto_reset_node_states",
    0x100000 => "proximity_damage",
});

/// The HAS_CALLBACKS bit.
pub const HAS_CALLBACKS: u32 = 0x10;

named!(/// How an anim def is activated.
    Activation: u8 {
    0 => "weapon_hit", 1 => "collide_hit", 2 => "weapon_or_collide_hit", 3 => "on_call",
    4 => "on_startup",
});

/// The runtime pointers an anim def stores (kept verbatim).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DefPtrs {
    pub anim: Hex32,
    pub anim_root: Hex32,
    pub seq_defs: Hex32,
    pub objects: Hex32,
    pub nodes: Hex32,
    pub lights: Hex32,
    pub puffers: Hex32,
    pub dynamic_sounds: Hex32,
    pub static_sounds: Hex32,
    #[serde(skip_serializing_if = "is_default")]
    pub effects: Hex32,
    pub activ_prereqs: Hex32,
    pub anim_refs: Hex32,
}

/// Fields with a fixed value in every known file; shown only when a file differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DefConstants {
    pub zero104: Bytes<44>,
    pub status: u8,
    pub execution_priority: u8,
    pub two155: u8,
    pub zero168: F32,
    pub zero180: [u32; 4],
    pub effect_count: u8,
    pub zero275: u8,
    pub zero312: u32,
}

impl Default for DefConstants {
    fn default() -> Self {
        Self {
            zero104: Bytes::default(),
            status: 0,
            execution_priority: 4,
            two155: 2,
            zero168: F32(0),
            zero180: [0; 4],
            effect_count: 0,
            zero275: 0,
            zero312: 0,
        }
    }
}

/// Duplicated values that were not consistent in the original file, kept as stored. Empty
/// (and absent from YAML) for consistent files; the writer derives everything not given here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Stored {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cur_health: Option<F32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_callbacks: Option<bool>,
    /// The embedded reset state record (AnimDef + 200) when it differs from the standalone one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedded_reset_state: Option<Bytes<64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_count: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_count: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light_count: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub puffer_count: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic_sound_count: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_sound_count: Option<u8>,
    /// Item 0 of an array when it is not all-zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_zero: Option<Bytes<96>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_zero: Option<Bytes<40>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light_zero: Option<Bytes<44>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub puffer_zero: Option<Bytes<44>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dynamic_sound_zero: Option<Bytes<44>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_sound_zero: Option<Bytes<36>>,
}

/// One anim def with everything that belongs to it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AnimDef {
    pub name: Z<32>,
    pub anim_name: Z<32>,
    pub anim_root_name: Z<32>,
    pub flags: DefFlags,
    pub activation: Activation,
    /// `[min, max]` for execution by range.
    pub execution_range: Vec2,
    pub reset_time: F32,
    /// max_health (cur_health is the same value).
    pub health: F32,
    pub activ_prereq_min_to_satisfy: u8,
    pub ptrs: DefPtrs,
    pub objects: Vec<ObjectRef>,
    pub nodes: Vec<NodeRef>,
    pub lights: Vec<LightRef>,
    pub puffers: Vec<PufferRef>,
    pub dynamic_sounds: Vec<DynamicSoundRef>,
    pub static_sounds: Vec<StaticSoundRef>,
    pub activ_prereqs: Vec<ActivPrereq>,
    pub anim_refs: Vec<AnimRef>,
    pub reset_state: SeqDef,
    pub sequences: Vec<SeqDef>,
    #[serde(skip_serializing_if = "is_default")]
    pub constants: DefConstants,
    #[serde(skip_serializing_if = "is_default")]
    pub stored: Stored,
}

/// The on-disk counts of the arrays with a zero item.
struct Counts {
    object: u8,
    node: u8,
    light: u8,
    puffer: u8,
    dynamic_sound: u8,
    static_sound: u8,
}

/// Read a zero-item array of `count` entries (0 = absent); returns the zero item's bytes when
/// they are not all zero, and the real items.
fn read_zero_array<T: Field, const N: usize>(
    c: &mut Cursor,
    count: u8,
) -> Result<(Option<Bytes<N>>, Vec<T>), DecodeError> {
    if count == 0 {
        return Ok((None, Vec::new()));
    }
    let n = c.check_count(count as u64, N)?;
    let zero = Bytes::<N>::read(c).within_index(0)?;
    let zero = (zero.0.iter().any(|&b| b != 0)).then_some(zero);
    let mut items = Vec::with_capacity(n - 1);
    for i in 1..n {
        items.push(T::read(c).within_index(i)?);
    }
    Ok((zero, items))
}

/// The names events refer to, from the arrays.
fn names_of<'a>(
    nodes: &'a [NodeRef],
    lights: &'a [LightRef],
    puffers: &'a [PufferRef],
    dynamic_sounds: &'a [DynamicSoundRef],
    static_sounds: &'a [StaticSoundRef],
    anim_refs: &'a [AnimRef],
) -> Names<'a> {
    Names {
        nodes: nodes.iter().map(|n| n.name.text()).collect(),
        lights: lights.iter().map(|n| n.name.text()).collect(),
        puffers: puffers.iter().map(|n| n.name.text()).collect(),
        dynamic_sounds: dynamic_sounds.iter().map(|n| n.name.text()).collect(),
        static_sounds: static_sounds.iter().map(|n| n.name.text()).collect(),
        anim_refs: anim_refs.iter().map(|n| n.name.text()).collect(),
    }
}

fn read_array<T: Field>(c: &mut Cursor, count: u8) -> Result<Vec<T>, DecodeError> {
    let n = c.check_count(count as u64, T::SIZE)?;
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        items.push(T::read(c).within_index(i)?);
    }
    Ok(items)
}

/// The count a zero-item array gets when it is derived.
fn derived_count(len: usize, ptr: Hex32, zero: bool) -> usize {
    if len == 0 && ptr.0 == 0 && !zero {
        0
    } else {
        len + 1
    }
}

fn keep_if_differs(stored: u8, derived: usize) -> Option<u8> {
    (stored as usize != derived).then_some(stored)
}

/// The count to write for a zero-item array, checked against its items.
fn write_count(
    label: &'static str,
    len: usize,
    ptr: Hex32,
    zero: bool,
    stored: Option<u8>,
) -> Result<u8, EncodeError> {
    let count = match stored {
        Some(c) => c as usize,
        None => derived_count(len, ptr, zero),
    };
    if count != 0 && count != len + 1 || count == 0 && (len != 0 || zero) {
        return Err(EncodeError::new(format!(
            "the stored count {count} disagrees with {len} items (+ the zero item); remove it to derive the count"
        )))
        .within(label)
        .within("stored");
    }
    u8::try_from(count)
        .map_err(|_| EncodeError::new(format!("{len} items: at most 254 fit in the u8 count")))
        .within(label)
}

fn write_zero_array<T: Field, const N: usize>(
    out: &mut Vec<u8>,
    count: u8,
    zero: &Option<Bytes<N>>,
    items: &[T],
) -> Result<(), EncodeError> {
    if count == 0 {
        return Ok(());
    }
    out.extend_from_slice(&zero.unwrap_or_default().0);
    for (i, it) in items.iter().enumerate() {
        it.write(out, &Ctx::default()).within_index(i + 1)?;
    }
    Ok(())
}

impl AnimDef {
    /// The names events refer to.
    pub fn names(&self) -> Names<'_> {
        names_of(
            &self.nodes,
            &self.lights,
            &self.puffers,
            &self.dynamic_sounds,
            &self.static_sounds,
            &self.anim_refs,
        )
    }

    /// The names (borrowed from the arrays) and the streams (mutable) at once.
    fn names_and_streams(
        &mut self,
    ) -> (
        Names<'_>,
        impl Iterator<Item = (Option<usize>, &mut SeqDef)>,
    ) {
        let AnimDef {
            nodes,
            lights,
            puffers,
            dynamic_sounds,
            static_sounds,
            anim_refs,
            reset_state,
            sequences,
            ..
        } = self;
        let names = names_of(
            nodes,
            lights,
            puffers,
            dynamic_sounds,
            static_sounds,
            anim_refs,
        );
        let streams = std::iter::once((None, reset_state))
            .chain(sequences.iter_mut().enumerate().map(|(i, s)| (Some(i), s)));
        (names, streams)
    }

    /// Whether any event in the reset state or a sequence is a CALLBACK.
    pub fn any_callback(&self) -> bool {
        std::iter::once(&self.reset_state)
            .chain(&self.sequences)
            .flat_map(|s| &s.events)
            .any(|e| matches!(e.data, EventData::Callback(_)))
    }

    /// All sequences with the reset state first, and their YAML path names.
    pub fn streams_mut(&mut self) -> impl Iterator<Item = (Option<usize>, &mut SeqDef)> {
        std::iter::once((None, &mut self.reset_state)).chain(
            self.sequences
                .iter_mut()
                .enumerate()
                .map(|(i, s)| (Some(i), s)),
        )
    }

    /// Read one anim def block.
    pub fn read(c: &mut Cursor) -> Result<Self, DecodeError> {
        let mut d = AnimDef {
            anim_name: Z::read(c).within("anim_name")?,
            name: Z::read(c).within("name")?,
            ..Default::default()
        };
        d.ptrs.anim = Hex32::read(c).within("anim_ptr")?;
        d.anim_root_name = Z::read(c).within("anim_root_name")?;
        d.ptrs.anim_root = Hex32::read(c).within("anim_root_ptr")?;
        d.constants.zero104 = Bytes::read(c)?;
        d.flags = DefFlags::read(c)?;
        d.constants.status = c.u8()?;
        d.activation = Activation::read(c)?;
        d.constants.execution_priority = c.u8()?;
        d.constants.two155 = c.u8()?;
        d.execution_range = <Vec2>::read(c)?;
        d.reset_time = F32::read(c)?;
        d.constants.zero168 = F32::read(c)?;
        d.health = F32::read(c)?;
        let cur_health = F32::read(c)?;
        d.constants.zero180 = <[u32; 4]>::read(c)?;
        d.ptrs.seq_defs = Hex32::read(c)?;
        let embedded = Bytes::<64>::read(c)?;
        let seq_def_count = c.u8()?;
        let counts = Counts {
            object: c.u8()?,
            node: c.u8()?,
            light: c.u8()?,
            puffer: c.u8()?,
            dynamic_sound: c.u8()?,
            static_sound: c.u8()?,
        };
        d.constants.effect_count = c.u8()?;
        let prereq_count = c.u8()?;
        d.activ_prereq_min_to_satisfy = c.u8()?;
        let anim_ref_count = c.u8()?;
        d.constants.zero275 = c.u8()?;
        let p = &mut d.ptrs;
        for ptr in [
            &mut p.objects,
            &mut p.nodes,
            &mut p.lights,
            &mut p.puffers,
            &mut p.dynamic_sounds,
            &mut p.static_sounds,
            &mut p.effects,
            &mut p.activ_prereqs,
            &mut p.anim_refs,
        ] {
            *ptr = Hex32::read(c)?;
        }
        d.constants.zero312 = c.u32()?;
        if d.constants.effect_count != 0 {
            return Err(c.invalid(format!(
                "effect_count is {} but MechWarrior 3 has no effects (the layout of effect refs is unknown here)",
                d.constants.effect_count
            )));
        }

        let s = &mut d.stored;
        (s.object_zero, d.objects) = read_zero_array(c, counts.object).within("objects")?;
        (s.node_zero, d.nodes) = read_zero_array(c, counts.node).within("nodes")?;
        (s.light_zero, d.lights) = read_zero_array(c, counts.light).within("lights")?;
        (s.puffer_zero, d.puffers) = read_zero_array(c, counts.puffer).within("puffers")?;
        (s.dynamic_sound_zero, d.dynamic_sounds) =
            read_zero_array(c, counts.dynamic_sound).within("dynamic_sounds")?;
        (s.static_sound_zero, d.static_sounds) =
            read_zero_array(c, counts.static_sound).within("static_sounds")?;
        d.activ_prereqs = read_array(c, prereq_count).within("activ_prereqs")?;
        d.anim_refs = read_array(c, anim_ref_count).within("anim_refs")?;

        let reset_raw = c
            .clone()
            .array::<SEQ_DEF_SIZE>()
            .unwrap_or([0; SEQ_DEF_SIZE]);
        let (reset_state, reset_size) = SeqDef::read_header(c).within("reset_state")?;
        d.reset_state = reset_state;
        d.reset_state.events = SeqDef::read_events(c, reset_size).within("reset_state")?;
        let n = c
            .check_count(seq_def_count as u64, SEQ_DEF_SIZE)
            .within("sequences")?;
        d.sequences = Vec::with_capacity(n);
        for i in 0..n {
            let s = SeqDef::read(c).within_index(i).within("sequences")?;
            d.sequences.push(s);
        }

        // Derived values: keep only what was not consistent.
        let s = &mut d.stored;
        s.object_count = keep_if_differs(
            counts.object,
            derived_count(d.objects.len(), d.ptrs.objects, s.object_zero.is_some()),
        );
        s.node_count = keep_if_differs(
            counts.node,
            derived_count(d.nodes.len(), d.ptrs.nodes, s.node_zero.is_some()),
        );
        s.light_count = keep_if_differs(
            counts.light,
            derived_count(d.lights.len(), d.ptrs.lights, s.light_zero.is_some()),
        );
        s.puffer_count = keep_if_differs(
            counts.puffer,
            derived_count(d.puffers.len(), d.ptrs.puffers, s.puffer_zero.is_some()),
        );
        s.dynamic_sound_count = keep_if_differs(
            counts.dynamic_sound,
            derived_count(
                d.dynamic_sounds.len(),
                d.ptrs.dynamic_sounds,
                s.dynamic_sound_zero.is_some(),
            ),
        );
        s.static_sound_count = keep_if_differs(
            counts.static_sound,
            derived_count(
                d.static_sounds.len(),
                d.ptrs.static_sounds,
                s.static_sound_zero.is_some(),
            ),
        );
        if cur_health != d.health {
            d.stored.cur_health = Some(cur_health);
        }
        let bit = d.flags.has(HAS_CALLBACKS);
        if bit != d.any_callback() {
            d.stored.has_callbacks = Some(bit);
        }
        // the standalone header re-encodes to exactly the bytes it was read from
        if reset_raw != embedded.0 {
            d.stored.embedded_reset_state = Some(embedded);
        }
        d.derive_name_copies();
        Ok(d)
    }

    /// Owned copies of the names events refer to.
    pub fn clone_names(&self) -> OwnedNames {
        OwnedNames {
            nodes: self.nodes.iter().map(|n| n.name.to_text()).collect(),
            lights: self.lights.iter().map(|n| n.name.to_text()).collect(),
            puffers: self.puffers.iter().map(|n| n.name.to_text()).collect(),
            dynamic_sounds: self
                .dynamic_sounds
                .iter()
                .map(|n| n.name.to_text())
                .collect(),
            static_sounds: self
                .static_sounds
                .iter()
                .map(|n| n.name.to_text())
                .collect(),
            anim_refs: self.anim_refs.iter().map(|n| n.name.to_text()).collect(),
        }
    }

    /// Derive the name copies some events store (after decoding).
    fn derive_name_copies(&mut self) {
        let (n, streams) = self.names_and_streams();
        for (_, s) in streams {
            for e in &mut s.events {
                e.derive_name_copy(&n);
            }
        }
    }

    /// Store in every reference the name its index resolves to (the YAML export shows these
    /// names without this; it is for code that reads the model).
    pub fn attach_names(&mut self) {
        let (n, streams) = self.names_and_streams();
        for (_, s) in streams {
            for e in &mut s.events {
                e.attach_names(&n);
            }
        }
    }

    /// After reading a document: make every reference's index follow its name.
    pub fn resolve_refs(&mut self) -> Result<(), EncodeError> {
        let (names, streams) = self.names_and_streams();
        for (seq, s) in streams {
            let r: Result<(), EncodeError> = (|| {
                for (i, e) in s.events.iter_mut().enumerate() {
                    e.data
                        .visit_refs(&mut |kind, r| names.resolve(kind, r))
                        .within(e.data.name())
                        .within_index(i)
                        .within("events")?;
                }
                Ok(())
            })();
            match seq {
                None => r.within("reset_state")?,
                Some(i) => r.within_index(i).within("sequences")?,
            }
        }
        Ok(())
    }

    /// Write the whole block. `marks` (when given) receives the start offset and path of each
    /// part, for [`super::Anim::field_at`].
    pub fn write(
        &self,
        out: &mut Vec<u8>,
        mut marks: Option<&mut Vec<(usize, String)>>,
    ) -> Result<(), EncodeError> {
        let mut mark = |out: &Vec<u8>, what: String| {
            if let Some(m) = marks.as_deref_mut() {
                m.push((out.len(), what));
            }
        };
        mark(out, String::new());
        let embedded_at = self.write_fixed(out)?;
        let counts = self.write_counts(out)?;
        self.write_arrays(out, &counts, &mut mark)?;
        self.write_states(out, embedded_at, &mut mark)
    }

    /// The fixed fields up to the sequence pointer, and the embedded reset state (its stream
    /// size is filled in once its events are written: returns where).
    fn write_fixed(&self, out: &mut Vec<u8>) -> Result<Option<usize>, EncodeError> {
        let ctx = Ctx::default();
        let s = &self.stored;
        self.anim_name.write(out, &ctx).within("anim_name")?;
        self.name.write(out, &ctx).within("name")?;
        self.ptrs.anim.write(out, &ctx)?;
        self.anim_root_name
            .write(out, &ctx)
            .within("anim_root_name")?;
        self.ptrs.anim_root.write(out, &ctx)?;
        self.constants.zero104.write(out, &ctx)?;
        let mut flags = self.flags.0 & !HAS_CALLBACKS;
        if s.has_callbacks.unwrap_or_else(|| self.any_callback()) {
            flags |= HAS_CALLBACKS;
        }
        flags.write(out, &ctx)?;
        self.constants.status.write(out, &ctx)?;
        self.activation.write(out, &ctx)?;
        self.constants.execution_priority.write(out, &ctx)?;
        self.constants.two155.write(out, &ctx)?;
        self.execution_range.write(out, &ctx)?;
        self.reset_time.write(out, &ctx)?;
        self.constants.zero168.write(out, &ctx)?;
        self.health.write(out, &ctx)?;
        s.cur_health.unwrap_or(self.health).write(out, &ctx)?;
        self.constants.zero180.write(out, &ctx)?;
        self.ptrs.seq_defs.write(out, &ctx)?;
        Ok(match &s.embedded_reset_state {
            Some(b) => {
                b.write(out, &ctx)?;
                None
            }
            None => {
                let at = out.len();
                self.reset_state
                    .write_header(out, 0)
                    .within("reset_state")?;
                Some(at)
            }
        })
    }

    /// The array counts and pointers; returns the counts written.
    fn write_counts(&self, out: &mut Vec<u8>) -> Result<Counts, EncodeError> {
        let ctx = Ctx::default();
        let s = &self.stored;
        let seq_count = u8::try_from(self.sequences.len())
            .map_err(|_| EncodeError::new("at most 255 sequences"))
            .within("sequences")?;
        let p = &self.ptrs;
        let object_count = write_count(
            "object_count",
            self.objects.len(),
            p.objects,
            s.object_zero.is_some(),
            s.object_count,
        )?;
        let node_count = write_count(
            "node_count",
            self.nodes.len(),
            p.nodes,
            s.node_zero.is_some(),
            s.node_count,
        )?;
        let light_count = write_count(
            "light_count",
            self.lights.len(),
            p.lights,
            s.light_zero.is_some(),
            s.light_count,
        )?;
        let puffer_count = write_count(
            "puffer_count",
            self.puffers.len(),
            p.puffers,
            s.puffer_zero.is_some(),
            s.puffer_count,
        )?;
        let dyn_count = write_count(
            "dynamic_sound_count",
            self.dynamic_sounds.len(),
            p.dynamic_sounds,
            s.dynamic_sound_zero.is_some(),
            s.dynamic_sound_count,
        )?;
        let static_count = write_count(
            "static_sound_count",
            self.static_sounds.len(),
            p.static_sounds,
            s.static_sound_zero.is_some(),
            s.static_sound_count,
        )?;
        let prereq_count = u8::try_from(self.activ_prereqs.len())
            .map_err(|_| EncodeError::new("at most 255 prerequisites"))
            .within("activ_prereqs")?;
        let anim_ref_count = u8::try_from(self.anim_refs.len())
            .map_err(|_| EncodeError::new("at most 255 anim refs"))
            .within("anim_refs")?;
        out.extend_from_slice(&[
            seq_count,
            object_count,
            node_count,
            light_count,
            puffer_count,
            dyn_count,
            static_count,
            self.constants.effect_count,
            prereq_count,
            self.activ_prereq_min_to_satisfy,
            anim_ref_count,
            self.constants.zero275,
        ]);
        for ptr in [
            p.objects,
            p.nodes,
            p.lights,
            p.puffers,
            p.dynamic_sounds,
            p.static_sounds,
            p.effects,
            p.activ_prereqs,
            p.anim_refs,
        ] {
            ptr.write(out, &ctx)?;
        }
        self.constants.zero312.write(out, &ctx)?;

        Ok(Counts {
            object: object_count,
            node: node_count,
            light: light_count,
            puffer: puffer_count,
            dynamic_sound: dyn_count,
            static_sound: static_count,
        })
    }

    /// The arrays, each with its zero item 0 where it has one.
    fn write_arrays(
        &self,
        out: &mut Vec<u8>,
        c: &Counts,
        mark: &mut dyn FnMut(&Vec<u8>, String),
    ) -> Result<(), EncodeError> {
        let ctx = Ctx::default();
        let s = &self.stored;
        let (object_count, node_count, light_count, puffer_count, dyn_count, static_count) = (
            c.object,
            c.node,
            c.light,
            c.puffer,
            c.dynamic_sound,
            c.static_sound,
        );
        mark(out, ".objects".into());
        write_zero_array(out, object_count, &s.object_zero, &self.objects).within("objects")?;
        mark(out, ".nodes".into());
        write_zero_array(out, node_count, &s.node_zero, &self.nodes).within("nodes")?;
        mark(out, ".lights".into());
        write_zero_array(out, light_count, &s.light_zero, &self.lights).within("lights")?;
        mark(out, ".puffers".into());
        write_zero_array(out, puffer_count, &s.puffer_zero, &self.puffers).within("puffers")?;
        mark(out, ".dynamic_sounds".into());
        write_zero_array(out, dyn_count, &s.dynamic_sound_zero, &self.dynamic_sounds)
            .within("dynamic_sounds")?;
        mark(out, ".static_sounds".into());
        write_zero_array(out, static_count, &s.static_sound_zero, &self.static_sounds)
            .within("static_sounds")?;
        mark(out, ".activ_prereqs".into());
        for (i, it) in self.activ_prereqs.iter().enumerate() {
            it.write(out, &ctx)
                .within_index(i)
                .within("activ_prereqs")?;
        }
        mark(out, ".anim_refs".into());
        for (i, it) in self.anim_refs.iter().enumerate() {
            it.write(out, &ctx).within_index(i).within("anim_refs")?;
        }
        Ok(())
    }

    /// The reset state (its size also patched into the embedded copy) and the sequences.
    fn write_states(
        &self,
        out: &mut Vec<u8>,
        embedded_at: Option<usize>,
        mark: &mut dyn FnMut(&Vec<u8>, String),
    ) -> Result<(), EncodeError> {
        let names = self.names();
        mark(out, ".reset_state".into());
        let reset_at = out.len();
        self.reset_state
            .write_header(out, 0)
            .within("reset_state")?;
        let reset_size = self
            .reset_state
            .write_events(out, &names)
            .within("reset_state")?;
        patch_u32(out, reset_at + SeqDef::SIZE_OFFSET, reset_size);
        if let Some(at) = embedded_at {
            patch_u32(out, at + SeqDef::SIZE_OFFSET, reset_size);
        }
        for (i, seq) in self.sequences.iter().enumerate() {
            mark(out, format!(".sequences[{i}]"));
            seq.write(out, &names).within_index(i).within("sequences")?;
        }
        Ok(())
    }
}
