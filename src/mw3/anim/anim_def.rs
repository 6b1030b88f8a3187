//! AnimDef (spec §5.1, 316 bytes) and the whole anim def block that follows it: the arrays,
//! the reset state and the sequences.
//!
//! Values the file duplicates are derived when writing: the array counts (and their all-zero
//! item 0), the embedded copy of the reset state, `cur_health` and the HAS_CALLBACKS bit. When
//! one of them was *not* consistent in the original file, the stored value is kept in the
//! def's `stored:` section and written back as it was.

use super::arrays::{
    ActivPrereq, AnimRef, DynamicSoundRef, Item, LightRef, NodeRef, ObjectRef, PufferRef,
    StaticSoundRef,
};
use super::events::EventData;
use super::prim::{flags, is_default, named, Bytes, Vec2, Z};
use super::refs::{Names, OwnedNames};
use super::seq_def::{patch_u32, SeqDef, SEQ_DEF_SIZE};
use crate::exact::record::Record;
use crate::exact::{Cursor, DecodeError, EncodeError, Hex32, Within, Writer, F32};
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

/// One counted array of an anim def as the fixed part describes it: its name, count,
/// pointer and (for the first six) the all-zero item 0 the model leaves out. The writer, the
/// reader's derived counts and `check` all take the arrays from [`AnimDef::counted_arrays`].
#[derive(Debug, Clone, Copy)]
pub struct CountedArray {
    /// The field of the anim def (`objects`, ...).
    pub name: &'static str,
    /// The field a stored count goes in (`object_count`, ...; empty without a zero item).
    pub count_field: &'static str,
    /// Items in the model (without the zero item).
    pub len: usize,
    pub ptr: Hex32,
    /// `Some(not_all_zero)` for an array with a zero item 0: whether the stored item 0 is
    /// kept because it is not all zero. `None`: no zero item.
    pub zero_item: Option<bool>,
    /// A count kept as stored because it disagreed with the items.
    pub stored_count: Option<u8>,
}

impl CountedArray {
    /// The count the file holds: the stored one, else the derived one (with a zero item:
    /// items + 1, or 0 for an empty array without pointer or kept item 0).
    pub fn count(&self) -> usize {
        match (self.stored_count, self.zero_item) {
            (Some(c), _) => c as usize,
            (None, Some(zero)) => derived_count(self.len, self.ptr, zero),
            (None, None) => self.len,
        }
    }
    /// The count checked against the items, as a u8 for the file.
    fn write_count(&self) -> Result<u8, EncodeError> {
        let (len, count) = (self.len, self.count());
        let limit = |what: &'static str, field| {
            u8::try_from(count)
                .map_err(|_| {
                    EncodeError::new(format!("{len} items: at most {what} fit in the u8 count"))
                })
                .within(field)
        };
        let Some(zero) = self.zero_item else {
            return limit("255", self.name);
        };
        if count != 0 && count != len + 1 || count == 0 && (len != 0 || zero) {
            return Err(EncodeError::new(format!(
                "the stored count {count} disagrees with {len} items (+ the zero item); remove it to derive the count"
            )))
            .within(self.count_field)
            .within("stored");
        }
        limit("254", self.count_field)
    }
}

/// Read a zero-item array of `count` entries (0 = absent); returns the zero item's bytes when
/// they are not all zero, and the real items.
fn read_zero_array<T: Item, const N: usize>(
    c: &mut Cursor,
    count: u8,
) -> Result<(Option<Bytes<N>>, Vec<T>), DecodeError> {
    if count == 0 {
        return Ok((None, Vec::new()));
    }
    let n = c.check_count(count as u64, N)?;
    let zero = Bytes::<N>(c.array().within_index(0)?);
    let zero = (zero.0.iter().any(|&b| b != 0)).then_some(zero);
    let mut items = Vec::with_capacity(n - 1);
    for i in 1..n {
        items.push(T::read_item(c).within_index(i)?);
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

fn read_array<T: Item>(c: &mut Cursor, count: u8) -> Result<Vec<T>, DecodeError> {
    let n = c.check_count(count as u64, T::SIZE)?;
    let mut items = Vec::with_capacity(n);
    for i in 0..n {
        items.push(T::read_item(c).within_index(i)?);
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

fn write_zero_array<T: Item, const N: usize>(
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
        it.put_item(out).within_index(i + 1)?;
    }
    Ok(())
}

crate::record! {
    /// The fixed part of an anim def as stored (spec §5.1).
    struct AnimDefRecord: little {
        anim_name: Z<32>,
        name: Z<32>,
        anim_ptr: Hex32,
        anim_root_name: Z<32>,
        anim_root_ptr: Hex32,
        zero104: Bytes<44>,
        flags: DefFlags,
        status: u8,
        activation: Activation,
        execution_priority: u8,
        two155: u8,
        execution_range: Vec2,
        reset_time: F32,
        zero168: F32,
        max_health: F32,
        cur_health: F32,
        zero180: [u32; 4],
        seq_defs_ptr: Hex32,
        /// A copy of the reset state's 64-byte header.
        embedded_reset_state: Bytes<64>,
        seq_def_count: u8,
        /// objects, nodes, lights, puffers, dynamic sounds, static sounds.
        zero_item_counts: [u8; 6],
        effect_count: u8,
        activ_prereq_count: u8,
        activ_prereq_min_to_satisfy: u8,
        anim_ref_count: u8,
        zero275: u8,
        /// objects, nodes, lights, puffers, dynamic sounds, static sounds.
        zero_item_ptrs: [Hex32; 6],
        effects_ptr: Hex32,
        activ_prereqs_ptr: Hex32,
        anim_refs_ptr: Hex32,
        zero312: u32,
    }
}

const _: () = assert!(<AnimDefRecord as Record>::SIZE == ANIM_DEF_SIZE);
const _: () = assert!(EMBEDDED_RESET_OFFSET == 200);

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

    /// The counted arrays in file order (their counts and pointers are stored in this order).
    pub fn counted_arrays(&self) -> [CountedArray; 8] {
        let (p, s) = (&self.ptrs, &self.stored);
        let zero = |name, count_field, len, ptr, kept: bool, stored_count| CountedArray {
            name,
            count_field,
            len,
            ptr,
            zero_item: Some(kept),
            stored_count,
        };
        let plain = |name, len, ptr| CountedArray {
            name,
            count_field: "",
            len,
            ptr,
            zero_item: None,
            stored_count: None,
        };
        [
            zero(
                "objects",
                "object_count",
                self.objects.len(),
                p.objects,
                s.object_zero.is_some(),
                s.object_count,
            ),
            zero(
                "nodes",
                "node_count",
                self.nodes.len(),
                p.nodes,
                s.node_zero.is_some(),
                s.node_count,
            ),
            zero(
                "lights",
                "light_count",
                self.lights.len(),
                p.lights,
                s.light_zero.is_some(),
                s.light_count,
            ),
            zero(
                "puffers",
                "puffer_count",
                self.puffers.len(),
                p.puffers,
                s.puffer_zero.is_some(),
                s.puffer_count,
            ),
            zero(
                "dynamic_sounds",
                "dynamic_sound_count",
                self.dynamic_sounds.len(),
                p.dynamic_sounds,
                s.dynamic_sound_zero.is_some(),
                s.dynamic_sound_count,
            ),
            zero(
                "static_sounds",
                "static_sound_count",
                self.static_sounds.len(),
                p.static_sounds,
                s.static_sound_zero.is_some(),
                s.static_sound_count,
            ),
            plain("activ_prereqs", self.activ_prereqs.len(), p.activ_prereqs),
            plain("anim_refs", self.anim_refs.len(), p.anim_refs),
        ]
    }

    /// The stored counts of the six zero-item arrays, in [`AnimDef::counted_arrays`] order.
    fn stored_counts_mut(&mut self) -> [&mut Option<u8>; 6] {
        let s = &mut self.stored;
        [
            &mut s.object_count,
            &mut s.node_count,
            &mut s.light_count,
            &mut s.puffer_count,
            &mut s.dynamic_sound_count,
            &mut s.static_sound_count,
        ]
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
        let r: AnimDefRecord = c.read()?;
        let mut d = AnimDef {
            name: r.name,
            anim_name: r.anim_name,
            anim_root_name: r.anim_root_name,
            flags: r.flags,
            activation: r.activation,
            execution_range: r.execution_range,
            reset_time: r.reset_time,
            health: r.max_health,
            activ_prereq_min_to_satisfy: r.activ_prereq_min_to_satisfy,
            ..Default::default()
        };
        let [objects, nodes, lights, puffers, dynamic_sounds, static_sounds] = r.zero_item_ptrs;
        d.ptrs = DefPtrs {
            anim: r.anim_ptr,
            anim_root: r.anim_root_ptr,
            seq_defs: r.seq_defs_ptr,
            objects,
            nodes,
            lights,
            puffers,
            dynamic_sounds,
            static_sounds,
            effects: r.effects_ptr,
            activ_prereqs: r.activ_prereqs_ptr,
            anim_refs: r.anim_refs_ptr,
        };
        d.constants = DefConstants {
            zero104: r.zero104,
            status: r.status,
            execution_priority: r.execution_priority,
            two155: r.two155,
            zero168: r.zero168,
            zero180: r.zero180,
            effect_count: r.effect_count,
            zero275: r.zero275,
            zero312: r.zero312,
        };
        let (cur_health, embedded, counts) =
            (r.cur_health, r.embedded_reset_state, r.zero_item_counts);
        let (seq_def_count, prereq_count, anim_ref_count) =
            (r.seq_def_count, r.activ_prereq_count, r.anim_ref_count);
        if d.constants.effect_count != 0 {
            return Err(c.invalid(format!(
                "effect_count is {} but MechWarrior 3 has no effects (the layout of effect refs is unknown here)",
                d.constants.effect_count
            )));
        }

        let s = &mut d.stored;
        let [objects, nodes, lights, puffers, dynamic_sounds, static_sounds] = counts;
        (s.object_zero, d.objects) = read_zero_array(c, objects).within("objects")?;
        (s.node_zero, d.nodes) = read_zero_array(c, nodes).within("nodes")?;
        (s.light_zero, d.lights) = read_zero_array(c, lights).within("lights")?;
        (s.puffer_zero, d.puffers) = read_zero_array(c, puffers).within("puffers")?;
        (s.dynamic_sound_zero, d.dynamic_sounds) =
            read_zero_array(c, dynamic_sounds).within("dynamic_sounds")?;
        (s.static_sound_zero, d.static_sounds) =
            read_zero_array(c, static_sounds).within("static_sounds")?;
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
        let derived = d.counted_arrays().map(|a| a.count());
        for ((stored, on_disk), derived) in
            d.stored_counts_mut().into_iter().zip(counts).zip(derived)
        {
            *stored = keep_if_differs(on_disk, derived);
        }
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
    /// part, for `Codec::field_at` of [`super::Anim`].
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
        let start = out.len();
        let (record, counts) = self.record()?;
        out.put(&record)?;
        // the embedded reset state's stream size is filled in once its events are written
        let embedded_at =
            (self.stored.embedded_reset_state.is_none()).then_some(start + EMBEDDED_RESET_OFFSET);
        self.write_arrays(out, &counts, &mut mark)?;
        self.write_states(out, embedded_at, &mut mark)
    }

    /// About the encoded size (exact without SI scripts or stored extras); only a hint.
    pub fn size_hint(&self) -> usize {
        use super::arrays::*;
        fn items<T: Item>(n: usize) -> usize {
            n.saturating_mul(T::SIZE)
        }
        let stream: usize = std::iter::once(&self.reset_state)
            .chain(&self.sequences)
            .flat_map(|s| &s.events)
            .map(|e| {
                let payload = match &e.data {
                    super::events::EventData::ObjectMotionSiScript(s) => s.0.encoded_size(),
                    d => super::events::EventData::fixed_size(d.code())
                        .flatten()
                        .unwrap_or(64),
                };
                super::events::EVENT_HEADER_SIZE + payload
            })
            .sum();
        ANIM_DEF_SIZE
            + SEQ_DEF_SIZE * (1 + self.sequences.len())
            + items::<ObjectRef>(self.objects.len() + 1)
            + items::<NodeRef>(self.nodes.len() + 1)
            + items::<LightRef>(self.lights.len() + 1)
            + items::<PufferRef>(self.puffers.len() + 1)
            + items::<DynamicSoundRef>(self.dynamic_sounds.len() + 1)
            + items::<StaticSoundRef>(self.static_sounds.len() + 1)
            + items::<ActivPrereq>(self.activ_prereqs.len())
            + items::<AnimRef>(self.anim_refs.len())
            + stream
    }

    /// The fixed part to write (the derived values derived), and the counts of the zero-item
    /// arrays.
    fn record(&self) -> Result<(AnimDefRecord, [u8; 6]), EncodeError> {
        let (s, p, k) = (&self.stored, &self.ptrs, &self.constants);
        let mut flags = self.flags.0 & !HAS_CALLBACKS;
        if s.has_callbacks.unwrap_or_else(|| self.any_callback()) {
            flags |= HAS_CALLBACKS;
        }
        let embedded_reset_state = match s.embedded_reset_state {
            Some(b) => b,
            None => {
                let mut b = Vec::with_capacity(SEQ_DEF_SIZE);
                self.reset_state
                    .write_header(&mut b, 0)
                    .within("reset_state")?;
                Bytes(
                    b.try_into()
                        .map_err(|_| EncodeError::new("reset state header size"))?,
                )
            }
        };
        let seq_def_count = u8::try_from(self.sequences.len())
            .map_err(|_| EncodeError::new("at most 255 sequences"))
            .within("sequences")?;
        let arrays = self.counted_arrays();
        let mut counts = [0u8; 8];
        for (n, a) in counts.iter_mut().zip(&arrays) {
            *n = a.write_count()?;
        }
        let [objects, nodes, lights, puffers, dyn_sounds, static_sounds, prereqs, anim_refs] =
            counts;
        let zero_item_counts = [objects, nodes, lights, puffers, dyn_sounds, static_sounds];
        let record = AnimDefRecord {
            anim_name: self.anim_name.clone(),
            name: self.name.clone(),
            anim_ptr: p.anim,
            anim_root_name: self.anim_root_name.clone(),
            anim_root_ptr: p.anim_root,
            zero104: k.zero104,
            flags: DefFlags(flags),
            status: k.status,
            activation: self.activation,
            execution_priority: k.execution_priority,
            two155: k.two155,
            execution_range: self.execution_range,
            reset_time: self.reset_time,
            zero168: k.zero168,
            max_health: self.health,
            cur_health: s.cur_health.unwrap_or(self.health),
            zero180: k.zero180,
            seq_defs_ptr: p.seq_defs,
            embedded_reset_state,
            seq_def_count,
            zero_item_counts,
            effect_count: k.effect_count,
            activ_prereq_count: prereqs,
            activ_prereq_min_to_satisfy: self.activ_prereq_min_to_satisfy,
            anim_ref_count: anim_refs,
            zero275: k.zero275,
            zero_item_ptrs: [
                p.objects,
                p.nodes,
                p.lights,
                p.puffers,
                p.dynamic_sounds,
                p.static_sounds,
            ],
            effects_ptr: p.effects,
            activ_prereqs_ptr: p.activ_prereqs,
            anim_refs_ptr: p.anim_refs,
            zero312: k.zero312,
        };
        Ok((record, zero_item_counts))
    }

    /// The arrays, each with its zero item 0 where it has one.
    fn write_arrays(
        &self,
        out: &mut Vec<u8>,
        counts: &[u8; 6],
        mark: &mut dyn FnMut(&Vec<u8>, String),
    ) -> Result<(), EncodeError> {
        let s = &self.stored;
        let [object_count, node_count, light_count, puffer_count, dyn_count, static_count] =
            *counts;
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
            it.put_item(out).within_index(i).within("activ_prereqs")?;
        }
        mark(out, ".anim_refs".into());
        for (i, it) in self.anim_refs.iter().enumerate() {
            it.put_item(out).within_index(i).within("anim_refs")?;
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
