//! Every MSB chunk read and written side by side, and the whole file: event lists folded into
//! their animation exactly when the engine would have written them so.

use super::fields::{Fields, Quick};
use super::runs::{AniFrames, BlendTimes};
use super::{
    put_args, Ani, AniAlias, AniBlend, AniComb, AniDisable, AniEvents, AniMaxFps, AniSync, Bool32,
    Entry, Event, Hex16, Marker, MeshAndTree, ModelTag, Msb, Name, NotStored, Root, Source,
    Unknown, EVENT_KINDS, ID_ANI, ID_ANI_ALIAS, ID_ANI_BLEND, ID_ANI_COMB, ID_ANI_DISABLE,
    ID_ANI_ENUM, ID_ANI_ENUM_END, ID_ANI_EVENTS, ID_ANI_EVENTS_END, ID_ANI_MAX_FPS, ID_ANI_SYNC,
    ID_END, ID_EVENT_CAM_TREMOR, ID_EVENT_SFX, ID_MESH_AND_TREE, ID_MODEL, ID_MODEL_END,
    ID_MODEL_TAG, ID_REGISTER_MESH, ID_ROOT, ID_SOURCE,
};
use crate::exact::{Blob, DecodeError, EncodeError, FieldPath, Within, Writer, F32};
use crate::zengin::chunk::{self, put_chunk};
use crate::zengin::types::put_short_line as put_line;

fn blend(blend_in: F32, blend_out: F32) -> BlendTimes {
    BlendTimes {
        blend_in,
        blend_out,
    }
}

impl Entry {
    pub fn id(&self) -> u16 {
        match self {
            Entry::Root(_) => ID_ROOT,
            Entry::Source(_) => ID_SOURCE,
            Entry::Model(_) => ID_MODEL,
            Entry::MeshAndTree(_) => ID_MESH_AND_TREE,
            Entry::RegisterMesh(_) => ID_REGISTER_MESH,
            Entry::AniEnum(_) => ID_ANI_ENUM,
            Entry::AniMaxFps(_) => ID_ANI_MAX_FPS,
            Entry::Ani(_) => ID_ANI,
            Entry::AniAlias(_) => ID_ANI_ALIAS,
            Entry::AniBlend(_) => ID_ANI_BLEND,
            Entry::AniSync(_) => ID_ANI_SYNC,
            Entry::AniComb(_) => ID_ANI_COMB,
            Entry::AniDisable(_) => ID_ANI_DISABLE,
            Entry::ModelTag(_) => ID_MODEL_TAG,
            Entry::AniEvents(_) => ID_ANI_EVENTS,
            Entry::Event(e) => e.id(),
            Entry::AniEventsEnd(_) => ID_ANI_EVENTS_END,
            Entry::AniEnumEnd(_) => ID_ANI_ENUM_END,
            Entry::ModelEnd(_) => ID_MODEL_END,
            Entry::End(_) => ID_END,
            Entry::Unknown(u) => u.id.0,
        }
    }

    /// The YAML key (script keyword) of this entry.
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::Root(_) => "root",
            Entry::Source(_) => "source",
            Entry::Model(_) => "model",
            Entry::MeshAndTree(_) => "meshAndTree",
            Entry::RegisterMesh(_) => "registerMesh",
            Entry::AniEnum(_) => "aniEnum",
            Entry::AniMaxFps(_) => "aniMaxFps",
            Entry::Ani(_) => "ani",
            Entry::AniAlias(_) => "aniAlias",
            Entry::AniBlend(_) => "aniBlend",
            Entry::AniSync(_) => "aniSync",
            Entry::AniComb(_) => "aniComb",
            Entry::AniDisable(_) => "aniDisable",
            Entry::ModelTag(_) => "modelTag",
            Entry::AniEvents(_) => "aniEvents",
            Entry::Event(e) => e.kind(),
            Entry::AniEventsEnd(_) => "aniEventsEnd",
            Entry::AniEnumEnd(_) => "aniEnumEnd",
            Entry::ModelEnd(_) => "modelEnd",
            Entry::End(_) => "end",
            Entry::Unknown(_) => "unknown",
        }
    }

    /// The folded event list of an animation entry.
    pub fn events(&self) -> Option<&Vec<Event>> {
        match self {
            Entry::Ani(a) => a.events.as_ref(),
            Entry::AniAlias(a) => a.events.as_ref(),
            Entry::AniBlend(a) => a.events.as_ref(),
            Entry::AniSync(a) => a.events.as_ref(),
            Entry::AniComb(a) => a.events.as_ref(),
            Entry::AniDisable(a) => a.events.as_ref(),
            _ => None,
        }
    }

    pub(super) fn events_slot(&mut self) -> Option<&mut Option<Vec<Event>>> {
        match self {
            Entry::Ani(a) => Some(&mut a.events),
            Entry::AniAlias(a) => Some(&mut a.events),
            Entry::AniBlend(a) => Some(&mut a.events),
            Entry::AniSync(a) => Some(&mut a.events),
            Entry::AniComb(a) => Some(&mut a.events),
            Entry::AniDisable(a) => Some(&mut a.events),
            _ => None,
        }
    }

    /// Decode one chunk (no folding). Inlined into [`Msb::read`] so the entry is built where it
    /// is pushed rather than copied there (an entry is 200 bytes).
    /// The chunk layouts, once, for both field sources ([`Fields`]).
    #[inline(always)]
    pub(super) fn read_from<'a, F: Fields<'a>>(
        id: u16,
        payload: &[u8],
        f: &mut F,
    ) -> Result<Self, F::Err> {
        let marker = |f: &mut F| Marker { trailing: f.rest() };
        Ok(match id {
            ID_ROOT => Entry::Root(Root {
                version: f.u32("version")?,
                directory: f.line("directory")?,
                trailing: f.rest(),
            }),
            ID_SOURCE => Entry::Source(Source {
                date: f.date()?,
                path: f.line("path")?,
                trailing: f.rest(),
            }),
            ID_MODEL => Entry::Model(marker(f)),
            ID_MESH_AND_TREE => Entry::MeshAndTree(MeshAndTree {
                dont_use_mesh: Bool32(f.u32("dont_use_mesh")?),
                mesh: f.line("mesh")?,
                trailing: f.rest(),
            }),
            ID_REGISTER_MESH => Entry::RegisterMesh(Name {
                name: f.line("name")?,
                trailing: f.rest(),
            }),
            ID_ANI_ENUM => Entry::AniEnum(marker(f)),
            ID_ANI_MAX_FPS => Entry::AniMaxFps(AniMaxFps {
                fps: f.f32("fps")?,
                trailing: f.rest(),
            }),
            ID_ANI => {
                let name = f.line("name")?;
                let layer = f.i32("layer")?;
                let next = f.line("next")?;
                let b: BlendTimes = f.record()?;
                let flags = f.line("flags")?;
                let asc = f.line("asc")?;
                let direction = f.line("direction")?;
                let r: AniFrames = f.record()?;
                Entry::Ani(Ani {
                    name,
                    layer,
                    next,
                    blend_in: b.blend_in,
                    blend_out: b.blend_out,
                    flags,
                    asc,
                    direction,
                    first_frame: r.first_frame,
                    last_frame: r.last_frame,
                    fps: r.fps,
                    speed: r.speed,
                    collision_volume_scale: r.collision_volume_scale,
                    trailing: f.rest(),
                    events: None,
                })
            }
            ID_ANI_ALIAS => {
                let name = f.line("name")?;
                let layer = f.i32("layer")?;
                let next = f.line("next")?;
                let b: BlendTimes = f.record()?;
                Entry::AniAlias(AniAlias {
                    name,
                    layer,
                    next,
                    blend_in: b.blend_in,
                    blend_out: b.blend_out,
                    flags: f.line("flags")?,
                    alias_of: f.line("alias_of")?,
                    direction: f.line("direction")?,
                    trailing: f.rest(),
                    events: None,
                })
            }
            ID_ANI_BLEND => {
                let name = f.line("name")?;
                let next = f.line("next")?;
                let b: BlendTimes = f.record()?;
                Entry::AniBlend(AniBlend {
                    name,
                    layer: NotStored,
                    next,
                    blend_in: b.blend_in,
                    blend_out: b.blend_out,
                    trailing: f.rest(),
                    events: None,
                })
            }
            ID_ANI_SYNC => Entry::AniSync(AniSync {
                name: f.line("name")?,
                next: f.line("next")?,
                trailing: f.rest(),
                events: None,
            }),
            ID_ANI_COMB => {
                let name = f.line("name")?;
                let layer = f.i32("layer")?;
                let next = f.line("next")?;
                let b: BlendTimes = f.record()?;
                Entry::AniComb(AniComb {
                    name,
                    layer,
                    next,
                    blend_in: b.blend_in,
                    blend_out: b.blend_out,
                    flags: f.line("flags")?,
                    prefix: f.line("prefix")?,
                    count: f.i32("count")?,
                    trailing: f.rest(),
                    events: None,
                })
            }
            ID_ANI_DISABLE => Entry::AniDisable(AniDisable {
                name: f.line("name")?,
                trailing: f.rest(),
                events: None,
            }),
            ID_MODEL_TAG => Entry::ModelTag(ModelTag {
                tag: f.line("tag")?,
                args: f.args()?,
                trailing: f.rest(),
            }),
            ID_ANI_EVENTS => Entry::AniEvents(AniEvents {
                count: f.u32("count")?,
                trailing: f.rest(),
            }),
            ID_ANI_EVENTS_END => Entry::AniEventsEnd(marker(f)),
            ID_ANI_ENUM_END => Entry::AniEnumEnd(marker(f)),
            ID_MODEL_END => Entry::ModelEnd(marker(f)),
            ID_END => Entry::End(marker(f)),
            id => match Event::read_one(id, f)? {
                Some(e) => Entry::Event(e),
                None => {
                    f.rest();
                    Entry::Unknown(Unknown {
                        id: Hex16(id),
                        data: Blob::new(payload),
                    })
                }
            },
        })
    }

    /// Write this entry's own chunk payload (not the folded events).
    pub(super) fn put_payload(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let trailing = match self {
            Entry::Root(r) => {
                out.put_u32(r.version);
                put_line(out, &r.directory).within("directory")?;
                &r.trailing
            }
            Entry::Source(s) => {
                out.put_plain(&s.date);
                put_line(out, &s.path).within("path")?;
                &s.trailing
            }
            Entry::Model(m)
            | Entry::AniEnum(m)
            | Entry::AniEventsEnd(m)
            | Entry::AniEnumEnd(m)
            | Entry::ModelEnd(m)
            | Entry::End(m) => &m.trailing,
            Entry::MeshAndTree(m) => {
                out.put_u32(m.dont_use_mesh.0);
                put_line(out, &m.mesh).within("mesh")?;
                &m.trailing
            }
            Entry::RegisterMesh(n) => {
                put_line(out, &n.name).within("name")?;
                &n.trailing
            }
            Entry::AniMaxFps(a) => {
                out.put_u32(a.fps.0);
                &a.trailing
            }
            Entry::Ani(a) => {
                put_line(out, &a.name).within("name")?;
                out.put_i32(a.layer);
                put_line(out, &a.next).within("next")?;
                out.put_plain(&blend(a.blend_in, a.blend_out));
                put_line(out, &a.flags).within("flags")?;
                put_line(out, &a.asc).within("asc")?;
                put_line(out, &a.direction).within("direction")?;
                let frames = AniFrames {
                    first_frame: a.first_frame,
                    last_frame: a.last_frame,
                    fps: a.fps,
                    speed: a.speed,
                    collision_volume_scale: a.collision_volume_scale,
                };
                out.put_plain(&frames);
                &a.trailing
            }
            Entry::AniAlias(a) => {
                put_line(out, &a.name).within("name")?;
                out.put_i32(a.layer);
                put_line(out, &a.next).within("next")?;
                out.put_plain(&blend(a.blend_in, a.blend_out));
                put_line(out, &a.flags).within("flags")?;
                put_line(out, &a.alias_of).within("alias_of")?;
                put_line(out, &a.direction).within("direction")?;
                &a.trailing
            }
            Entry::AniBlend(a) => {
                put_line(out, &a.name).within("name")?;
                put_line(out, &a.next).within("next")?;
                out.put_plain(&blend(a.blend_in, a.blend_out));
                &a.trailing
            }
            Entry::AniSync(a) => {
                put_line(out, &a.name).within("name")?;
                put_line(out, &a.next).within("next")?;
                &a.trailing
            }
            Entry::AniComb(a) => {
                put_line(out, &a.name).within("name")?;
                out.put_i32(a.layer);
                put_line(out, &a.next).within("next")?;
                out.put_plain(&blend(a.blend_in, a.blend_out));
                put_line(out, &a.flags).within("flags")?;
                put_line(out, &a.prefix).within("prefix")?;
                out.put_i32(a.count);
                &a.trailing
            }
            Entry::AniDisable(a) => {
                put_line(out, &a.name).within("name")?;
                &a.trailing
            }
            Entry::ModelTag(t) => {
                put_line(out, &t.tag).within("tag")?;
                put_args(out, &t.args)?;
                &t.trailing
            }
            Entry::AniEvents(e) => {
                out.put_u32(e.count);
                &e.trailing
            }
            Entry::Event(e) => return e.put(out),
            Entry::Unknown(u) => &u.data,
        };
        out.extend_from_slice(trailing.as_bytes());
        Ok(())
    }

    /// Write this entry's chunk and, for an animation with events, the event list chunks.
    pub(super) fn put(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        put_chunk(out, self.id(), |o| self.put_payload(o))?;
        if let Some(events) = self.events() {
            let count = u32::try_from(events.len())
                .map_err(|_| EncodeError::new("too many events"))
                .within("events")?;
            put_chunk(out, ID_ANI_EVENTS, |o| {
                o.put_u32(count);
                Ok(())
            })?;
            for (k, e) in events.iter().enumerate() {
                put_chunk(out, e.id(), |o| e.put(o))
                    .within_index(k)
                    .within("events")?;
            }
            put_chunk(out, ID_ANI_EVENTS_END, |_| Ok(()))?;
        }
        Ok(())
    }
}

impl Msb {
    pub fn read(data: &[u8]) -> Result<Self, DecodeError> {
        // A first pass over the chunk headers only: a damaged container is reported before any
        // payload, and the entry list is sized once. Event chunks usually fold into their
        // animation, so only the others count.
        let mut others = 0;
        for c in chunk::Chunks::new(data) {
            if !(ID_ANI_EVENTS..=ID_ANI_EVENTS_END).contains(&c?.id) {
                others += 1;
            }
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(others + 1);
        let mut chunks = chunk::Chunks::new(data);
        while let Some(c) = chunks.next() {
            let c = c?;
            let i = chunks.index() - 1;
            let entry = match Entry::read_from(c.id, c.payload, &mut Quick::new(data, &c)) {
                Ok(e) => e,
                // Again through the cursor, for the error's offset and field.
                Err(()) => match Entry::read_from(c.id, c.payload, &mut c.cursor()) {
                    Ok(e) => e,
                    Err(e) => return Err(chunk_error(e, i, c.id)),
                },
            };
            // Fold an engine-shaped event list into the animation before it.
            if let Entry::AniEvents(ev) = &entry {
                if ev.trailing.is_empty() {
                    if let Some(slot) = entries.last_mut().and_then(Entry::events_slot) {
                        if slot.is_none() {
                            if let Some(list) =
                                read_folded(data, &mut chunks, i, ev.count as usize)?
                            {
                                *slot = Some(list);
                                continue;
                            }
                        }
                    }
                }
            }
            entries.push(entry);
        }
        Ok(Msb { entries })
    }

    pub fn write(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        for (i, e) in self.entries.iter().enumerate() {
            e.put(out)
                .within(e.kind())
                .within_index(i)
                .within("entries")?;
        }
        Ok(())
    }

    /// The encoded size of entry `i` (its chunk and any folded events).
    pub(super) fn entry_ranges(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::with_capacity(self.entries.len());
        let mut buf = Vec::new();
        let mut at = 0;
        for e in &self.entries {
            buf.clear();
            let _ = e.put(&mut buf);
            out.push((at, at + buf.len()));
            at += buf.len();
        }
        out
    }

    pub fn field_at(&self, offset: u64) -> String {
        let offset = offset as usize;
        for (i, (start, end)) in self.entry_ranges().into_iter().enumerate() {
            if offset >= end {
                continue;
            }
            let e = &self.entries[i];
            let p = FieldPath::new().field("entries").index(i);
            let mut own = Vec::new();
            let _ = e.put_payload(&mut own);
            let own_end = start + chunk::HEADER_SIZE + own.len();
            if offset < start + chunk::HEADER_SIZE {
                return format!("{p}.{} (chunk header)", e.kind());
            }
            if offset < own_end {
                return format!("{p}.{}", e.kind());
            }
            // inside the folded event list
            let mut at = own_end + chunk::HEADER_SIZE + 4;
            if offset < at {
                return format!("{p}.{}.events (ANIEVENTS count)", e.kind());
            }
            for (k, ev) in e.events().into_iter().flatten().enumerate() {
                let mut b = Vec::new();
                let _ = ev.put(&mut b);
                at += chunk::HEADER_SIZE + b.len();
                if offset < at {
                    return format!("{p}.{}.events[{k}].{}", e.kind(), ev.kind());
                }
            }
            return format!("{p}.{}.events (ANIEVENTS_END)", e.kind());
        }
        format!("<past the end, offset {offset}>")
    }

    /// Counts of entries by kind (folded events counted by kind too).
    pub fn census(&self) -> Vec<(&'static str, usize)> {
        let mut out: Vec<(&'static str, usize)> = Vec::new();
        let mut bump = |k: &'static str| match out.iter_mut().find(|(n, _)| *n == k) {
            Some((_, c)) => *c += 1,
            None => out.push((k, 1)),
        };
        for e in &self.entries {
            bump(e.kind());
            for ev in e.events().into_iter().flatten() {
                bump(ev.kind());
            }
        }
        out
    }
}

/// The event list that follows the ANIEVENTS chunk `i` (just read, with count `n` and no
/// trailing bytes), read and checked in one pass: `Some` (and `chunks` moved past its
/// ANIEVENTS_END) when it is exactly what the engine writes (a bare 4-byte count `n`, then `n`
/// event chunks, then an empty ANIEVENTS_END); `None` (and `chunks` untouched) otherwise.
fn read_folded(
    data: &[u8],
    chunks: &mut chunk::Chunks<'_>,
    i: usize,
    n: usize,
) -> Result<Option<Vec<Event>>, DecodeError> {
    let mut look = chunks.clone();
    // `n` comes from the file: at most one event per chunk header left.
    let mut list = Vec::with_capacity(n.min(look.remaining() / chunk::HEADER_SIZE));
    for k in i + 1..=i + n {
        let Some(Ok(e)) = look.next() else {
            return Ok(None);
        };
        if !(ID_EVENT_SFX..=ID_EVENT_CAM_TREMOR).contains(&e.id) {
            return Ok(None);
        }
        let known = match Event::read_into(e.id, &mut Quick::new(data, &e), &mut list) {
            Ok(known) => known,
            // Again through the cursor, for the error's offset and field.
            Err(()) => Event::read_into(e.id, &mut e.cursor(), &mut list)
                .map_err(|err| chunk_error(err, k, e.id))?,
        };
        if !known {
            return Ok(None);
        }
    }
    match look.next() {
        Some(Ok(end)) if end.id == ID_ANI_EVENTS_END && end.payload.is_empty() => {
            *chunks = look;
            Ok(Some(list))
        }
        _ => Ok(None),
    }
}

/// `chunks[i].<kind>.…` on an error from chunk `i`.
#[cold]
pub(super) fn chunk_error(mut e: DecodeError, i: usize, id: u16) -> DecodeError {
    use crate::exact::Segment;
    e.path.prefix(Segment::Field(chunk_kind_name(id)));
    e.path.prefix(Segment::Index(i));
    e.path.prefix(Segment::Field("chunks"));
    e
}

/// The field name used in error paths for chunk `id`.
pub(super) fn chunk_kind_name(id: u16) -> &'static str {
    match id {
        ID_ROOT => "root",
        ID_SOURCE => "source",
        ID_MODEL => "model",
        ID_MESH_AND_TREE => "meshAndTree",
        ID_REGISTER_MESH => "registerMesh",
        ID_ANI_ENUM => "aniEnum",
        ID_ANI_MAX_FPS => "aniMaxFps",
        ID_ANI => "ani",
        ID_ANI_ALIAS => "aniAlias",
        ID_ANI_BLEND => "aniBlend",
        ID_ANI_SYNC => "aniSync",
        ID_ANI_COMB => "aniComb",
        ID_ANI_DISABLE => "aniDisable",
        ID_MODEL_TAG => "modelTag",
        ID_ANI_EVENTS => "aniEvents",
        ID_EVENT_SFX..=ID_EVENT_CAM_TREMOR => EVENT_KINDS[(id - ID_EVENT_SFX) as usize],
        _ => "chunk",
    }
}
