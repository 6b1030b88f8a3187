//! MDH + MANs → glTF: a node per MDH node (rest pose from the MDH), a skin whose joints are
//! those nodes, and one animation per MAN with a rotation and a translation channel for each
//! node it animates, one key per frame.

use super::coords::{position_to_gltf, rotation_to_gltf};
use super::skeleton::Skeleton;
use super::{glb, GltfError};
use crate::zengin::man::Man;
use crate::zengin::quant;
use base64::Engine as _;
use gltf_json as json;
use json::validation::{Checked, USize64};
use rayon::prelude::*;

/// `.glb` (binary) or `.gltf` (JSON with the buffer embedded as a data URI).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    Glb,
    Gltf,
}

/// What an export wrote.
#[derive(Debug, Clone, Default)]
pub struct ExportReport {
    pub nodes: usize,
    /// Meshes written (the character's).
    pub meshes: usize,
    pub animations: Vec<String>,
    pub warnings: Vec<String>,
}

/// One animation to export: a label for messages (its file name) and the MAN.
pub struct Animation<'a> {
    pub label: String,
    pub man: &'a Man,
}

fn accessor(
    view: usize,
    offset: usize,
    count: usize,
    type_: json::accessor::Type,
    min_max: Option<(f32, f32)>,
) -> json::Accessor {
    json::Accessor {
        buffer_view: Some(json::Index::new(view as u32)),
        byte_offset: Some(USize64(offset as u64)),
        count: USize64(count as u64),
        component_type: Checked::Valid(json::accessor::GenericComponentType(
            json::accessor::ComponentType::F32,
        )),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(type_),
        min: min_max.map(|(a, _)| serde_json::json!([a])),
        max: min_max.map(|(_, b)| serde_json::json!([b])),
        name: None,
        normalized: false,
        sparse: None,
    }
}

/// Where one MAN's data goes: checked before anything is built; nothing of its samples is
/// held (the streamed export plans every animation first and reads each again to write it).
/// Borrowed from the MAN it was made from, or from the [`Layout`] that keeps it compactly.
#[derive(Debug, Clone, PartialEq)]
struct Plan<'a> {
    name: std::borrow::Cow<'a, str>,
    frames: usize,
    fps: f32,
    /// The skeleton node of each column of the MAN's samples.
    nodes: &'a [u32],
}

fn plan<'m>(sk: &Skeleton, label: &str, man: &'m Man) -> Result<Option<Plan<'m>>, GltfError> {
    let err = |m: String| GltfError::new(format!("{label}: {m}"));
    let h = man
        .header()
        .ok_or_else(|| err("the MAN has no header chunk (0xA020)".into()))?;
    let Some(s) = man.samples() else {
        return Ok(None);
    };
    let frames = s.frame_count();
    if frames == 0 || s.node_indices.is_empty() {
        return Ok(None);
    }
    let fps = h.fps.get();
    if !(fps.is_finite() && fps > 0.0) {
        return Err(err(format!(
            "header.fps is {fps}: the frames cannot be placed in time (fix it with `animkit export`/`import` first)"
        )));
    }
    let (min, scale) = (h.position_min.get(), h.position_scale.get());
    if !(min.is_finite() && quant::unpack_position(65535, min, scale).is_finite()) {
        return Err(err(format!(
            "header.position_min {min} / position_scale {scale} do not decode to finite positions; fix them with `animkit export`/`import --requantize` first"
        )));
    }
    let mut seen = vec![usize::MAX; sk.len()];
    for (k, &idx) in s.node_indices.iter().enumerate() {
        let node = idx as usize;
        if node >= sk.len() {
            return Err(err(format!(
                "samples.node_indices[{k}] = {idx}: the MDH has only {} nodes",
                sk.len()
            )));
        }
        if seen[node] != usize::MAX {
            return Err(err(format!(
                "samples.node_indices[{k}] and [{}] both name node {idx} ({}); a glTF animation can drive a node once",
                seen[node], sk.names[node]
            )));
        }
        seen[node] = k;
    }
    Ok(Some(Plan {
        name: h.name.to_unicode(),
        frames,
        fps,
        nodes: &s.node_indices,
    }))
}

/// A [`Plan`] as a [`Layout`] keeps it: 24 bytes, its name in the layout's text and its
/// nodes one of the layout's node lists (a model's animations share a few).
#[derive(Debug, Clone, Copy)]
struct Kept {
    /// Where its name ends in [`Layout::names`] (it starts where the one before ends).
    name_end: usize,
    frames: u32,
    fps: f32,
    /// Its list in [`Layout::node_lists`].
    nodes: u32,
}

fn no_nodes() -> GltfError {
    GltfError::new("the MDH has no nodes")
}

/// The animations of an export, planned from their MANs before anything is written (their
/// names, frame counts, rates and nodes; none of their samples): with it
/// [`export_streamed`] writes the file's JSON first and then each animation's data as its
/// MAN is handed over again, one at a time. What it keeps per animation is small (a
/// [`Kept`] and the name's bytes): a whole game's model of 10,000s of animations fits in a
/// few hundred KB.
#[derive(Debug, Default)]
pub struct Layout {
    kept: Vec<Kept>,
    /// The animations' names, one after the other.
    names: String,
    /// The different node lists of the animations, and where each is in it.
    node_lists: Vec<Box<[u32]>>,
    list_of: std::collections::HashMap<Box<[u32]>, u32>,
    /// The labels of the MANs without frames or nodes (not exported).
    skipped: Vec<String>,
}

impl Layout {
    /// Plan the MAN `man` (`label` names it in messages): an error when it cannot be
    /// exported with the skeleton; `false` when it has no frames or no nodes (it is left out
    /// with a warning).
    pub fn add(&mut self, sk: &Skeleton, label: &str, man: &Man) -> Result<bool, GltfError> {
        if sk.is_empty() {
            return Err(no_nodes());
        }
        Ok(match plan(sk, label, man)? {
            Some(p) => {
                let frames = u32::try_from(p.frames).map_err(|_| {
                    GltfError::new(format!("{label}: {} frames are too many", p.frames))
                })?;
                let nodes = match self.list_of.get(p.nodes) {
                    Some(&i) => i,
                    None => {
                        let i = self.node_lists.len() as u32;
                        self.node_lists.push(p.nodes.into());
                        self.list_of.insert(p.nodes.into(), i);
                        i
                    }
                };
                self.names.push_str(&p.name);
                self.kept.push(Kept {
                    name_end: self.names.len(),
                    frames,
                    fps: p.fps,
                    nodes,
                });
                true
            }
            None => {
                self.skipped.push(label.to_string());
                false
            }
        })
    }

    /// The animations planned (the MANs with frames and nodes).
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Plan `i`.
    fn get(&self, i: usize) -> Option<Plan<'_>> {
        let k = self.kept.get(i)?;
        let start = match i {
            0 => 0,
            _ => self.kept[i - 1].name_end,
        };
        Some(Plan {
            name: std::borrow::Cow::Borrowed(&self.names[start..k.name_end]),
            frames: k.frames as usize,
            fps: k.fps,
            nodes: &self.node_lists[k.nodes as usize],
        })
    }

    /// Every plan, in order.
    fn plans(&self) -> impl Iterator<Item = Plan<'_>> + '_ {
        (0..self.kept.len()).filter_map(|i| self.get(i))
    }

    /// Whether the animations may be exported (a file of MANs all left out may not).
    fn check(&self, sk: &Skeleton) -> Result<(), GltfError> {
        if sk.is_empty() {
            return Err(no_nodes());
        }
        // A file of no animation would be refused by `gltf import` (the way back): not written.
        if self.kept.is_empty() && !self.skipped.is_empty() {
            return Err(GltfError::new(format!(
                "{}: no frames or no nodes: no animation to export, and a glTF file without \
                 animations would not go back in with `gltf import`; leave {} out (the skeleton, \
                 or a mesh with --mesh, exports without MANs)",
                self.skipped.join(", "),
                if self.skipped.len() == 1 {
                    "it"
                } else {
                    "them"
                },
            )));
        }
        Ok(())
    }

    /// The report's start: the warnings of the MANs left out, the animation names.
    fn report(&self, sk: &Skeleton) -> Result<ExportReport, GltfError> {
        let mut r = self.report_without_names(sk)?;
        r.animations = self.names();
        Ok(r)
    }

    /// The animations' names.
    fn names(&self) -> Vec<String> {
        self.plans().map(|p| p.name.into_owned()).collect()
    }

    /// [`Layout::report`] without the animation names.
    fn report_without_names(&self, sk: &Skeleton) -> Result<ExportReport, GltfError> {
        self.check(sk)?;
        Ok(ExportReport {
            nodes: sk.len(),
            meshes: 0,
            animations: Vec::new(),
            warnings: self
                .skipped
                .iter()
                .map(|l| format!("{l}: no frames or no nodes; not exported"))
                .collect(),
        })
    }

    /// The binary buffer's parts before the character's: the inverse bind matrices, every
    /// animation's key times, the outputs (node by node: rotations then translations).
    fn sizes(&self, sk: &Skeleton) -> Result<Sizes, GltfError> {
        let sizes = Sizes {
            ibm: sk.len() * 64,
            times: self.plans().map(|p| p.frames * 4).sum(),
            outputs: self.plans().map(|p| p.nodes.len() * p.frames * 28).sum(),
        };
        let total = sizes.total();
        if total > u32::MAX as usize - 64 {
            return Err(GltfError::new(format!(
                "the animations need {total} bytes of key data; a glTF buffer holds at most 4 GiB"
            )));
        }
        Ok(sizes)
    }

    /// How many accessors the animations take.
    fn accessors(&self) -> usize {
        self.plans().map(|p| 1 + 2 * p.nodes.len()).sum()
    }
}

#[derive(Debug, Clone, Copy)]
struct Sizes {
    ibm: usize,
    times: usize,
    outputs: usize,
}

impl Sizes {
    fn total(&self) -> usize {
        self.ibm + self.times + self.outputs
    }
}

/// Build the glTF file.
pub fn export(
    sk: &Skeleton,
    anims: &[Animation<'_>],
    container: Container,
) -> Result<(Vec<u8>, ExportReport), GltfError> {
    export_with(sk, anims, None, container)
}

/// Build the glTF file, with the character's meshes when given.
pub fn export_with(
    sk: &Skeleton,
    anims: &[Animation<'_>],
    character: Option<&super::mesh::Character<'_>>,
    container: Container,
) -> Result<(Vec<u8>, ExportReport), GltfError> {
    export_with_origin(sk, anims, character, container, None)
}

/// [`export_with`], recording where the model came from in `asset.extras` (see
/// [`super::origin`]). The file is built in memory: the whole `gltf_json` document and
/// binary buffer, then the file (the declared path; [`export_streamed`] writes the same
/// bytes holding none of them).
pub fn export_with_origin(
    sk: &Skeleton,
    anims: &[Animation<'_>],
    character: Option<&super::mesh::Character<'_>>,
    container: Container,
    origin: Option<&super::origin::Origin>,
) -> Result<(Vec<u8>, ExportReport), GltfError> {
    if sk.is_empty() {
        return Err(no_nodes());
    }
    let mut layout = Layout::default();
    let mut mans = Vec::new();
    for a in anims {
        if layout.add(sk, &a.label, a.man)? {
            mans.push(a.man);
        }
    }
    let mut report = layout.report(sk)?;
    let sizes = layout.sizes(sk)?;
    let mut root = base_root(sk, origin.and_then(|o| o.to_extras()));
    let mut bin = vec![0u8; sizes.total()];
    bin[..sizes.ibm].copy_from_slice(&ibm_bytes(sk));
    push_skin(&mut root, sk);
    if !layout.is_empty() {
        let (times_bin, out_bin) = bin[sizes.ibm..].split_at_mut(sizes.times);
        let plans: Vec<(Plan<'_>, &Man)> = layout.plans().zip(mans).collect();
        push_animations(&mut root, &plans, (sizes.ibm, times_bin, out_bin));
    }
    if let Some(ch) = character {
        report.warnings.extend(super::mesh::push_character(
            &mut root,
            sk,
            ch,
            (&mut bin, super::mesh::Base::default()),
        )?);
        report.meshes = root.meshes.len();
    }
    let mut out = Vec::new();
    serialize(root, bin, container, &mut out)?;
    Ok((out, report))
}

/// [`export_with_origin`] written into `w` by [`export_streamed`] (the same bytes; the
/// document and the binary buffer are not held); returns the file's size and the report. An
/// error of `w` is a [`GltfError`] naming it.
pub fn export_with_origin_to(
    sk: &Skeleton,
    anims: &[Animation<'_>],
    character: Option<&super::mesh::Character<'_>>,
    container: Container,
    origin: Option<&super::origin::Origin>,
    w: &mut dyn std::io::Write,
) -> Result<(usize, ExportReport), GltfError> {
    if sk.is_empty() {
        return Err(no_nodes());
    }
    let mut layout = Layout::default();
    for a in anims {
        layout.add(sk, &a.label, a.man)?;
    }
    let origin = origin.and_then(|o| o.to_extras());
    export_streamed(sk, &layout, character, container, origin, w, &mut |each| {
        for a in anims {
            each(&a.label, a.man)?;
        }
        Ok(())
    })
}

/// Hands each MAN of a [`Layout`] (with its label, in the order they were added) to the
/// function it is given; MANs that were left out (no frames or nodes) may be handed over too.
pub type Feed<'f> =
    dyn FnMut(&mut dyn FnMut(&str, &Man) -> Result<(), GltfError>) -> Result<(), GltfError> + 'f;

/// The glTF file of `layout`'s animations written into `w` as it is made: the JSON (for a
/// GLB it is serialized twice, once to count its bytes for the header, never held), then
/// the binary buffer, each animation's data as `feed` hands its MAN over again (decoded
/// values of one MAN at a time). The bytes are [`export_with_origin`]'s. A MAN handed over
/// that is not the one planned (changed in between) stops the export with an error; `w` then
/// holds a partial file (write through `fsio::write_streaming`). A `.gltf` embeds the buffer
/// in its JSON as base64: it is encoded as it is written, in the place of a stand-in found
/// when the JSON is serialized the first time (see [`splice_at`]). `origin` is the record of
/// [`super::origin`] as `asset.extras` holds it ([`super::origin::Origin::to_extras`] or
/// [`super::origin::OriginText`]).
pub fn export_streamed(
    sk: &Skeleton,
    layout: &Layout,
    character: Option<&super::mesh::Character<'_>>,
    container: Container,
    origin: Option<Box<serde_json::value::RawValue>>,
    w: &mut dyn std::io::Write,
    feed: &mut Feed<'_>,
) -> Result<(usize, ExportReport), GltfError> {
    // (the animations' names are added at the end: not held while the file is written)
    let mut report = layout.report_without_names(sk)?;
    let sizes = layout.sizes(sk)?;
    let mut root = base_root(sk, origin);
    push_skin(&mut root, sk);
    let views = (!layout.is_empty()).then(|| {
        (
            push_view(&mut root, sizes.ibm, sizes.times),
            push_view(&mut root, sizes.ibm + sizes.times, sizes.outputs),
        )
    });
    let mut mesh_bin = Vec::new();
    if let Some(ch) = character {
        let at = super::mesh::Base {
            accessors: layout.accessors(),
            bytes: sizes.total(),
        };
        report.warnings.extend(super::mesh::push_character(
            &mut root,
            sk,
            ch,
            (&mut mesh_bin, at),
        )?);
        report.meshes = root.meshes.len();
    }
    let bin_len = sizes.total() + mesh_bin.len();
    root.buffers.push(json::Buffer {
        byte_length: USize64(bin_len as u64),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    // The skin's accessor, the animations' (made as they are written), the character's.
    let mut own = std::mem::take(&mut root.accessors);
    let rest = own.split_off(1);
    let json_err =
        |e: serde_json::Error| GltfError::new(format!("cannot write the glTF JSON: {e}"));
    let write_err = |e: std::io::Error| GltfError::new(format!("cannot write the file: {e}"));
    let mut data = |w: &mut dyn std::io::Write| -> Result<(), GltfError> {
        w.write_all(&ibm_bytes(sk)).map_err(write_err)?;
        let mut chunk = Vec::new();
        for p in layout.plans() {
            times_into(&p, &mut chunk);
            if chunk.len() >= 1 << 16 {
                w.write_all(&chunk).map_err(write_err)?;
                chunk.clear();
            }
        }
        w.write_all(&chunk).map_err(write_err)?;
        write_outputs(sk, layout, w, feed)?;
        w.write_all(&mesh_bin).map_err(write_err)
    };
    // (the JSON: the root with the animations' accessors and animations made as serialized)
    fn whole_of<'a>(
        root: &'a json::Root,
        (skin, rest, layout, views): (
            &'a json::Accessor,
            &'a [json::Accessor],
            &'a Layout,
            Option<(usize, usize)>,
        ),
    ) -> Whole<'a> {
        Whole {
            accessors: Accessors {
                skin,
                layout,
                views,
                rest,
            },
            animations: Animations(layout),
            rest: root,
        }
    }
    let parts = (&own[0], &rest[..], layout, views);
    match container {
        Container::Glb => {
            let whole = whole_of(&root, parts);
            let mut count = Counted(0);
            serde_json::to_writer(&mut count, &whole).map_err(json_err)?;
            let glb = glb::Sizes {
                json: count.0,
                bin: bin_len,
            };
            w.write_all(&glb.head()).map_err(write_err)?;
            let mut written = Counted(0);
            serde_json::to_writer(Tee(&mut *w, &mut written), &whole).map_err(json_err)?;
            if written.0 != glb.json {
                return Err(GltfError::new(format!(
                    "the glTF JSON came out {} bytes long, counted {} (nothing of it changes between the two)",
                    written.0, glb.json
                )));
            }
            w.write_all(glb.json_pad()).map_err(write_err)?;
            w.write_all(&glb.bin_head()).map_err(write_err)?;
            let mut written = Counted(0);
            data(&mut Tee(&mut *w, &mut written))?;
            if written.0 != bin_len {
                return Err(GltfError::new(format!(
                    "the binary buffer came out {} bytes long, planned {bin_len}",
                    written.0
                )));
            }
            w.write_all(glb.bin_pad()).map_err(write_err)?;
            report.animations = layout.names();
            Ok((glb.total(), report))
        }
        Container::Gltf => {
            // The JSON with a stand-in for the data URI, then written with the buffer's
            // base64 in the stand-in's place, encoded as the data is made.
            let mut stand_in = format!("{DATA_URI}animkit-buffer");
            let at = loop {
                root.buffers[0].uri = Some(stand_in.clone());
                let mut find = Find::new(stand_in.as_bytes());
                pretty_into(&whole_of(&root, parts), &mut find).map_err(json_err)?;
                match find.found {
                    Found::One(at) => break at,
                    // (the text occurs elsewhere too, in a name: a longer stand-in)
                    Found::Many => stand_in.push('-'),
                    Found::None => {
                        return Err(GltfError::new(
                            "the buffer's data URI is not where it was put in the glTF JSON",
                        ))
                    }
                }
            };
            let mut written = Counted(0);
            let mut bin_written = Counted(0);
            let mut encoded = |w: &mut dyn std::io::Write| -> Result<(), GltfError> {
                w.write_all(DATA_URI.as_bytes()).map_err(write_err)?;
                let mut enc = base64::write::EncoderWriter::new(
                    w,
                    &base64::engine::general_purpose::STANDARD,
                );
                data(&mut Tee(&mut enc, &mut bin_written))?;
                enc.finish().map_err(write_err)?;
                Ok(())
            };
            let mut splice = Splice {
                w: Tee(&mut *w, &mut written),
                at,
                skip: stand_in.len(),
                pos: 0,
                data: Some(&mut encoded),
                error: None,
            };
            let serialized = pretty_into(&whole_of(&root, parts), &mut splice);
            if let Some(e) = splice.error.take() {
                return Err(e);
            }
            serialized.map_err(json_err)?;
            if splice.data.is_some() {
                return Err(GltfError::new(
                    "the glTF JSON came out shorter than counted (nothing of it changes between the two)",
                ));
            }
            drop(splice);
            if bin_written.0 != bin_len {
                return Err(GltfError::new(format!(
                    "the binary buffer came out {} bytes long, planned {bin_len}",
                    bin_written.0
                )));
            }
            report.animations = layout.names();
            Ok((written.0, report))
        }
    }
}

/// What a `.gltf`'s embedded buffer's URI starts with (its base64 follows).
const DATA_URI: &str = "data:application/octet-stream;base64,";

/// `value` serialized as pretty JSON into `w` through a buffer (the writer sees 64 KB at a
/// time).
fn pretty_into<T: serde::Serialize>(
    value: &T,
    w: &mut dyn std::io::Write,
) -> Result<(), serde_json::Error> {
    let mut b = std::io::BufWriter::with_capacity(1 << 16, w);
    serde_json::to_writer_pretty(&mut b, value)?;
    std::io::Write::flush(&mut b).map_err(serde_json::Error::io)
}

/// How often a text occurred in what was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    None,
    /// Once, at this offset.
    One(usize),
    Many,
}

/// A writer that only looks for `text` in what it is given (also across writes).
struct Find {
    finder: memchr::memmem::Finder<'static>,
    /// The last bytes given (fewer than the text), and the bytes given before them.
    tail: Vec<u8>,
    before: usize,
    scratch: Vec<u8>,
    found: Found,
}

impl Find {
    fn new(text: &[u8]) -> Find {
        Find {
            finder: memchr::memmem::Finder::new(text).into_owned(),
            tail: Vec::new(),
            before: 0,
            scratch: Vec::new(),
            found: Found::None,
        }
    }
}

impl std::io::Write for Find {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.tail);
        self.scratch.extend_from_slice(b);
        for at in self.finder.find_iter(&self.scratch) {
            self.found = match self.found {
                Found::None => Found::One(self.before + at),
                _ => Found::Many,
            };
        }
        let keep = (self.finder.needle().len() - 1).min(self.scratch.len());
        let cut = self.scratch.len() - keep;
        self.before += cut;
        self.tail.clear();
        self.tail.extend_from_slice(&self.scratch[cut..]);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The buffer's writer of a `.gltf` export (see [`Splice`]).
type WriteData<'d> = dyn FnMut(&mut dyn std::io::Write) -> Result<(), GltfError> + 'd;

/// Passes what it is given on to `w`, except the `skip` bytes at offset `at`: in their place,
/// what `data` writes. An error of `data` is kept in `error`.
struct Splice<'d, W> {
    w: W,
    at: usize,
    skip: usize,
    pos: usize,
    data: Option<&'d mut WriteData<'d>>,
    error: Option<GltfError>,
}

impl<W: std::io::Write> std::io::Write for Splice<'_, W> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let (start, end) = (self.pos, self.pos + b.len());
        let (at, after) = (self.at, self.at + self.skip);
        // before the stand-in, the data in its place, after it
        if start < at {
            self.w.write_all(&b[..end.min(at) - start])?;
        }
        if end > at {
            if let Some(data) = self.data.take() {
                if let Err(e) = data(&mut self.w) {
                    self.error = Some(e);
                    return Err(std::io::Error::other("the glTF buffer was not written"));
                }
            }
        }
        if end > after {
            self.w.write_all(&b[after.max(start) - start..])?;
        }
        self.pos = end;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.w.flush()
    }
}

/// Each planned animation's outputs, written as its MAN is handed over (one MAN's values
/// at a time, its nodes filled on all cores).
fn write_outputs(
    sk: &Skeleton,
    layout: &Layout,
    w: &mut dyn std::io::Write,
    feed: &mut Feed<'_>,
) -> Result<(), GltfError> {
    let mut next = 0;
    let mut block = Vec::new();
    feed(&mut |label, man| {
        let Some(p) = plan(sk, label, man)? else {
            return Ok(());
        };
        if layout.get(next).as_ref() != Some(&p) {
            return Err(GltfError::new(format!(
                "{label}: not the animation planned for this place in the file (did it change \
                 during the export?); the export stopped"
            )));
        }
        let node_len = p.frames * 28;
        block.clear();
        block.resize(p.nodes.len() * node_len, 0u8);
        block
            .par_chunks_mut(node_len)
            .enumerate()
            .for_each(|(k, b)| fill_node(&p, man, k, b));
        w.write_all(&block)
            .map_err(|e| GltfError::new(format!("cannot write the file: {e}")))?;
        next += 1;
        Ok(())
    })?;
    if next != layout.len() {
        return Err(GltfError::new(format!(
            "{} of the {} animations planned were handed over again (did the files change \
             during the export?); the export stopped",
            next,
            layout.len()
        )));
    }
    Ok(())
}

/// The document as [`json::Root`] serializes it, with the animations' accessors and the
/// animations made one animation at a time as they are serialized. The root's own fields
/// follow `animations` (the derive writes its fields in declaration order, `accessors` and
/// `animations` first, each left out when empty; a test compares the bytes).
#[derive(serde::Serialize)]
struct Whole<'a> {
    accessors: Accessors<'a>,
    #[serde(skip_serializing_if = "Animations::is_empty")]
    animations: Animations<'a>,
    #[serde(flatten)]
    rest: &'a json::Root,
}

/// The skin's accessor, each animation's (made when serialized), the rest.
struct Accessors<'a> {
    skin: &'a json::Accessor,
    layout: &'a Layout,
    /// The buffer views of the key times and of the outputs.
    views: Option<(usize, usize)>,
    rest: &'a [json::Accessor],
}

impl serde::Serialize for Accessors<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let anims = self.layout.accessors();
        let mut seq = s.serialize_seq(Some(1 + anims + self.rest.len()))?;
        seq.serialize_element(self.skin)?;
        if let Some(views) = self.views {
            let (mut t_at, mut o_at) = (0, 0);
            let mut one = Vec::new();
            for p in self.layout.plans() {
                one.clear();
                animation_accessors(&p, views, (t_at, o_at), &mut one);
                for a in &one {
                    seq.serialize_element(a)?;
                }
                t_at += p.frames * 4;
                o_at += p.nodes.len() * p.frames * 28;
            }
        }
        for a in self.rest {
            seq.serialize_element(a)?;
        }
        seq.end()
    }
}

/// Each animation (made when serialized).
struct Animations<'a>(&'a Layout);

impl Animations<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl serde::Serialize for Animations<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        let mut input = 1;
        for p in self.0.plans() {
            seq.serialize_element(&animation_json(&p, input))?;
            input += 1 + 2 * p.nodes.len();
        }
        seq.end()
    }
}

/// A writer that only counts.
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes into `0` and counts what it wrote in `1`.
struct Tee<'w, 'c>(&'w mut dyn std::io::Write, &'c mut Counted);

impl std::io::Write for Tee<'_, '_> {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(b)?;
        self.1 .0 += n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The document without accessors, animations and buffers: the asset, the MDH's nodes in
/// MDH order and the scene.
fn base_root(sk: &Skeleton, extras: Option<Box<serde_json::value::RawValue>>) -> json::Root {
    let mut root = json::Root {
        asset: json::Asset {
            generator: Some(format!("animkit {}", env!("CARGO_PKG_VERSION"))),
            version: "2.0".into(),
            extras,
            ..Default::default()
        },
        ..Default::default()
    };
    push_nodes(&mut root, sk);
    root
}

/// The MDH's nodes, in MDH order, and the scene; several roots get a common parent (a skin's
/// joints need one).
fn push_nodes(root: &mut json::Root, sk: &Skeleton) {
    for i in 0..sk.len() {
        let r = &sk.rest[i];
        let children = sk.children(i);
        root.nodes.push(json::Node {
            name: Some(sk.names[i].clone()),
            translation: (r.translation != [0.0; 3]).then_some(r.translation),
            rotation: (r.rotation != [0.0, 0.0, 0.0, 1.0])
                .then_some(json::scene::UnitQuaternion(r.rotation)),
            scale: (!r.has_unit_scale()).then_some(r.scale),
            children: (!children.is_empty()).then(|| {
                children
                    .into_iter()
                    .map(|c| json::Index::new(c as u32))
                    .collect()
            }),
            ..Default::default()
        });
    }
    let roots = sk.roots();
    let scene_roots: Vec<json::Index<json::Node>> = if roots.len() == 1 {
        vec![json::Index::new(roots[0] as u32)]
    } else {
        let top = root.nodes.len();
        root.nodes.push(json::Node {
            name: Some(sk.model.clone()),
            children: Some(roots.iter().map(|&r| json::Index::new(r as u32)).collect()),
            ..Default::default()
        });
        vec![json::Index::new(top as u32)]
    };
    root.scenes.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: None,
        nodes: scene_roots,
    });
    root.scene = Some(json::Index::new(0));
}

/// A buffer view of buffer 0; its index.
fn push_view(root: &mut json::Root, offset: usize, len: usize) -> usize {
    root.buffer_views.push(json::buffer::View {
        buffer: json::Index::new(0),
        byte_length: USize64(len as u64),
        byte_offset: Some(USize64(offset as u64)),
        byte_stride: None,
        name: None,
        target: None,
        extensions: None,
        extras: Default::default(),
    });
    root.buffer_views.len() - 1
}

/// The inverse bind matrices (the start of the buffer).
fn ibm_bytes(sk: &Skeleton) -> Vec<u8> {
    let mut ibm = Vec::with_capacity(sk.len() * 64);
    for i in 0..sk.len() {
        for v in sk.inverse_bind(i) {
            ibm.extend_from_slice(&v.to_le_bytes());
        }
    }
    ibm
}

/// The skin: its inverse bind matrices' view and accessor (the first of each) and the joints.
fn push_skin(root: &mut json::Root, sk: &Skeleton) {
    let roots = sk.roots();
    let ibm_view = push_view(root, 0, sk.len() * 64);
    root.accessors.push(accessor(
        ibm_view,
        0,
        sk.len(),
        json::accessor::Type::Mat4,
        None,
    ));
    root.skins.push(json::Skin {
        extensions: None,
        extras: Default::default(),
        inverse_bind_matrices: Some(json::Index::new(0)),
        joints: (0..sk.len()).map(|i| json::Index::new(i as u32)).collect(),
        name: Some(sk.model.clone()),
        skeleton: (roots.len() == 1).then(|| json::Index::new(roots[0] as u32)),
    });
}

/// An animation's key times (`frame / fps` seconds), appended to `out`.
fn times_into(p: &Plan<'_>, out: &mut Vec<u8>) {
    for f in 0..p.frames {
        let t = (f as f64 / p.fps as f64) as f32;
        out.extend_from_slice(&t.to_le_bytes());
    }
}

/// An animation's accessors: its key times (at `t_at` of view `times_view`) then each
/// node's rotations and translations (at `o_at` of view `out_view`, node after node).
fn animation_accessors(
    p: &Plan<'_>,
    (times_view, out_view): (usize, usize),
    (t_at, o_at): (usize, usize),
    out: &mut Vec<json::Accessor>,
) {
    let last = ((p.frames - 1) as f64 / p.fps as f64) as f32;
    out.push(accessor(
        times_view,
        t_at,
        p.frames,
        json::accessor::Type::Scalar,
        Some((0.0, last)),
    ));
    for c in 0..p.nodes.len() {
        let at = o_at + c * p.frames * 28;
        out.push(accessor(
            out_view,
            at,
            p.frames,
            json::accessor::Type::Vec4,
            None,
        ));
        out.push(accessor(
            out_view,
            at + p.frames * 16,
            p.frames,
            json::accessor::Type::Vec3,
            None,
        ));
    }
}

/// An animation whose key times are accessor `input` (its outputs the accessors after it):
/// a rotation and a translation channel per node.
fn animation_json(p: &Plan<'_>, input: usize) -> json::Animation {
    let mut channels = Vec::with_capacity(2 * p.nodes.len());
    let mut samplers = Vec::with_capacity(2 * p.nodes.len());
    for (c, &node) in p.nodes.iter().enumerate() {
        let rot_acc = input + 1 + 2 * c;
        for (path, acc) in [
            (json::animation::Property::Rotation, rot_acc),
            (json::animation::Property::Translation, rot_acc + 1),
        ] {
            channels.push(json::animation::Channel {
                sampler: json::Index::new(samplers.len() as u32),
                target: json::animation::Target {
                    extensions: None,
                    extras: Default::default(),
                    node: json::Index::new(node),
                    path: Checked::Valid(path),
                },
                extensions: None,
                extras: Default::default(),
            });
            samplers.push(json::animation::Sampler {
                extensions: None,
                extras: Default::default(),
                input: json::Index::new(input as u32),
                interpolation: Checked::Valid(json::animation::Interpolation::Linear),
                output: json::Index::new(acc as u32),
            });
        }
    }
    json::Animation {
        extensions: None,
        extras: Default::default(),
        channels,
        name: Some(p.name.to_string()),
        samplers,
    }
}

/// One glTF animation per plan: key times into `times_bin`, the outputs (filled on all cores)
/// into `out_bin`, which follow each other at buffer offset `start`.
fn push_animations(
    root: &mut json::Root,
    plans: &[(Plan<'_>, &Man)],
    (start, times_bin, out_bin): (usize, &mut [u8], &mut [u8]),
) {
    let times_view = push_view(root, start, times_bin.len());
    let out_view = push_view(root, start + times_bin.len(), out_bin.len());
    let mut t_at = 0;
    let mut o_at = 0;
    // Every node's output block, to be filled on all cores.
    let mut jobs: Vec<(&Plan<'_>, &Man, usize, &mut [u8])> = Vec::new();
    let mut rest_out: &mut [u8] = out_bin;
    let mut times = Vec::new();
    for (p, man) in plans {
        let man: &Man = man;
        let input = root.accessors.len();
        times.clear();
        times_into(p, &mut times);
        times_bin[t_at..t_at + times.len()].copy_from_slice(&times);
        animation_accessors(p, (times_view, out_view), (t_at, o_at), &mut root.accessors);
        t_at += p.frames * 4;
        for k in 0..p.nodes.len() {
            let (block, rest) = std::mem::take(&mut rest_out).split_at_mut(p.frames * 28);
            rest_out = rest;
            jobs.push((p, man, k, block));
        }
        o_at += p.nodes.len() * p.frames * 28;
        root.animations.push(animation_json(p, input));
    }
    jobs.into_par_iter()
        .for_each(|(p, man, k, block)| fill_node(p, man, k, block));
}

/// The file: GLB (JSON and binary chunk), or glTF JSON with the buffer as a data URI.
fn serialize(
    mut root: json::Root,
    bin: Vec<u8>,
    container: Container,
    w: &mut dyn std::io::Write,
) -> Result<usize, GltfError> {
    let write_err = |e: std::io::Error| GltfError::new(format!("cannot write the file: {e}"));
    root.buffers.push(json::Buffer {
        byte_length: USize64(bin.len() as u64),
        name: None,
        uri: None,
        extensions: None,
        extras: Default::default(),
    });
    let out = match container {
        Container::Glb => {
            let text = root
                .to_vec()
                .map_err(|e| GltfError::new(format!("cannot write the glTF JSON: {e}")))?;
            glb::write_to(w, &text, &bin).map_err(write_err)?
        }
        Container::Gltf => {
            let mut uri = String::with_capacity(bin.len() * 4 / 3 + 64);
            uri.push_str("data:application/octet-stream;base64,");
            base64::engine::general_purpose::STANDARD.encode_string(&bin, &mut uri);
            drop(bin);
            root.buffers[0].uri = Some(uri);
            let text = root
                .to_vec_pretty()
                .map_err(|e| GltfError::new(format!("cannot write the glTF JSON: {e}")))?;
            w.write_all(&text).map_err(write_err)?;
            text.len()
        }
    };
    Ok(out)
}

/// Decode column `k` of a MAN into its rotation (VEC4) and translation (VEC3) outputs.
fn fill_node(p: &Plan<'_>, man: &Man, k: usize, block: &mut [u8]) {
    let (Some(h), Some(s)) = (man.header(), man.samples()) else {
        return;
    };
    let (min, scale) = (h.position_min.get(), h.position_scale.get());
    let n = s.node_indices.len();
    let (rot, pos) = block.split_at_mut(p.frames * 16);
    for f in 0..p.frames {
        let c = &s.codes[f * n + k];
        let q = rotation_to_gltf(quant::engine_rotation([c[0], c[1], c[2]]).to_array());
        for (i, v) in q.iter().enumerate() {
            rot[f * 16 + i * 4..f * 16 + i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        let t = position_to_gltf([
            quant::unpack_position(c[3], min, scale),
            quant::unpack_position(c[4], min, scale),
            quant::unpack_position(c[5], min, scale),
        ]);
        for (i, v) in t.iter().enumerate() {
            pos[f * 12 + i * 4..f * 12 + i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Codec;
    use crate::zengin::gltf::mesh::{Bind, Character, Part};
    use crate::zengin::gltf::origin::{Origin, OriginAnimation};
    use crate::zengin::mdh::Mdh;

    fn sample(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("samples")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn origin_of(anims: &[Animation<'_>]) -> Origin {
        Origin {
            mdh: "MODEL.MDH".into(),
            source: Some("Anims.vdf".into()),
            animations: anims
                .iter()
                .map(|a| OriginAnimation {
                    name: a.man.header().unwrap().name.to_unicode().into_owned(),
                    man: a.label.clone(),
                    fps: a.man.header().unwrap().fps.get(),
                    crc32: Some(7),
                })
                .collect(),
        }
    }

    /// The streamed file against the one built in memory (the declared path), byte for byte,
    /// in both containers, with and without the origin record; the reports agree too.
    /// The animations of labelled MANs, borrowed.
    fn animations(mans: &[(String, Man)]) -> Vec<Animation<'_>> {
        mans.iter()
            .map(|(l, m)| Animation {
                label: l.clone(),
                man: m,
            })
            .collect()
    }

    fn same_both_ways(
        sk: &Skeleton,
        anims: &[Animation<'_>],
        character: Option<&Character<'_>>,
    ) -> usize {
        let origin = origin_of(anims);
        let mut glb_len = 0;
        for container in [Container::Glb, Container::Gltf] {
            for origin in [None, Some(&origin)] {
                let (whole, r1) =
                    export_with_origin(sk, anims, character, container, origin).expect("exports");
                let mut streamed = Vec::new();
                let (len, r2) =
                    export_with_origin_to(sk, anims, character, container, origin, &mut streamed)
                        .expect("exports streamed");
                assert_eq!(len, streamed.len(), "the size it reports");
                assert!(
                    whole == streamed,
                    "{container:?}: the streamed file differs from the declared one ({} / {} bytes, first difference at {:?})",
                    whole.len(),
                    streamed.len(),
                    whole.iter().zip(&streamed).position(|(a, b)| a != b)
                );
                assert_eq!(
                    (r1.nodes, r1.meshes, &r1.animations, &r1.warnings),
                    (r2.nodes, r2.meshes, &r2.animations, &r2.warnings)
                );
                if container == Container::Glb {
                    glb_len = whole.len();
                }
            }
        }
        glb_len
    }

    #[test]
    fn the_streamed_export_writes_the_declared_bytes_for_the_samples() {
        let mdh = Mdh::read(&sample("HUMAN.MDH")).unwrap();
        let sk = Skeleton::from_mdh(&mdh).unwrap();
        let mans: Vec<(String, Man)> = ["HUMAN-S_RUNL.MAN", "HUMAN-S_WALKL.MAN"]
            .iter()
            .map(|n| (n.to_string(), Man::read(&sample(n)).unwrap()))
            .collect();
        let anims = animations(&mans);
        let len = same_both_ways(&sk, &anims, None);
        assert!(len > 20_000, "GLB of {len} bytes");
        // the skeleton alone
        same_both_ways(&sk, &[], None);

        // The sample MANs that fit the sample MDH's three nodes (IDLE, UNKNOWN-CHUNK).
        let mdh = Mdh::read(&sample("SAMPLE.MDH")).unwrap();
        let sk = Skeleton::from_mdh(&mdh).unwrap();
        let mut mans = Vec::new();
        for n in [
            "WALK.MAN",
            "IDLE.MAN",
            "LARGE.MAN",
            "ONE-FRAME.MAN",
            "UNKNOWN-CHUNK.MAN",
        ] {
            let man = Man::read(&sample(n)).unwrap();
            if plan(&sk, n, &man).is_ok() {
                mans.push((n.to_string(), man));
            }
        }
        let fit: Vec<&str> = mans.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(fit, ["IDLE.MAN", "UNKNOWN-CHUNK.MAN"]);
        let anims = animations(&mans);
        same_both_ways(&sk, &anims, None);
    }

    /// The real boar: KEILER.MDH, its 73 MANs of the corpus and its body KEILER_BODY.MDM
    /// (a skinned mesh: the character's accessors come after the animations' in the streamed
    /// file as in the declared one).
    #[test]
    #[cfg_attr(missing = "corpus", ignore = "needs the corpus (../shared/corpus)")]
    fn the_streamed_export_writes_the_declared_bytes_for_a_real_model() {
        let Some(dir) = crate::testing::corpus_path("realworld") else {
            return;
        };
        let compiled = "PiotrDrozdz96+Gothic/Anims/_compiled";
        let read = |kind: &str, name: &str| {
            let p = dir.join(kind).join(compiled).join(name);
            std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        };
        let mdh = Mdh::read(&read("mdh", "KEILER.MDH")).unwrap();
        let mut sk = Skeleton::from_mdh(&mdh).unwrap();
        sk.model = "KEILER".into();
        let mut names: Vec<String> = std::fs::read_dir(dir.join("man").join(compiled))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("KEILER-") && n.ends_with(".MAN"))
            .collect();
        names.sort();
        assert_eq!(names.len(), 73, "the boar's MANs in the corpus");
        let mans: Vec<(String, Man)> = names
            .iter()
            .map(|n| (n.clone(), Man::read(&read("man", n)).unwrap()))
            .collect();
        let anims = animations(&mans);
        let body = crate::zengin::mdm::Mdm::decode(&read("mesh", "KEILER_BODY.MDM"))
            .unwrap()
            .mesh;
        let character = Character {
            parts: body
                .softskins
                .iter()
                .map(|s| Part {
                    name: "KEILER_BODY".into(),
                    mesh: &s.mesh,
                    bind: Bind::Skin(s),
                })
                .collect(),
            textures: Default::default(),
        };
        assert!(!character.parts.is_empty());
        let len = same_both_ways(&sk, &anims, None);
        assert!(len > 1_000_000, "GLB of {len} bytes");
        let with_body = same_both_ways(&sk, &anims, Some(&character));
        assert!(with_body > len, "the body adds to the file");
    }

    /// A `.gltf` whose record names the text the streamed export first stands in for the data
    /// URI (twice, and longer): it takes a longer stand-in and still writes the declared bytes.
    #[test]
    fn a_name_like_the_stand_in_does_not_move_the_buffer() {
        let mdh = Mdh::read(&sample("HUMAN.MDH")).unwrap();
        let sk = Skeleton::from_mdh(&mdh).unwrap();
        let mans = vec![(
            "HUMAN-S_RUNL.MAN".to_string(),
            Man::read(&sample("HUMAN-S_RUNL.MAN")).unwrap(),
        )];
        let anims = animations(&mans);
        let mut origin = origin_of(&anims);
        for tail in ["", "--"] {
            let mut a = origin.animations[0].clone();
            a.man = format!("{DATA_URI}animkit-buffer{tail}");
            origin.animations.push(a);
        }
        let (whole, _) =
            export_with_origin(&sk, &anims, None, Container::Gltf, Some(&origin)).unwrap();
        let mut streamed = Vec::new();
        export_with_origin_to(
            &sk,
            &anims,
            None,
            Container::Gltf,
            Some(&origin),
            &mut streamed,
        )
        .unwrap();
        assert!(whole == streamed, "the streamed .gltf differs");
        let text = String::from_utf8(whole).unwrap();
        assert_eq!(text.matches("animkit-buffer").count(), 2, "the names only");
        assert_eq!(
            text.matches(DATA_URI).count(),
            3,
            "the names and the buffer"
        );
    }

    /// The text looked for is found across writes, once or more.
    #[test]
    fn the_stand_in_is_found_across_writes() {
        use std::io::Write;
        let mut f = Find::new(b"abcab");
        for piece in [&b"xxab"[..], b"c", b"a", b"bzz"] {
            f.write_all(piece).unwrap();
        }
        assert_eq!(f.found, Found::One(2));
        f.write_all(b"abcab").unwrap();
        assert_eq!(f.found, Found::Many);
        let mut f = Find::new(b"abcab");
        f.write_all(b"abcaXbcab").unwrap();
        assert_eq!(f.found, Found::None);
    }

    /// A MAN handed over again that is not the one planned (or one missing) stops the
    /// streamed export with an error naming it.
    #[test]
    fn a_man_that_changed_between_the_passes_stops_the_export() {
        let mdh = Mdh::read(&sample("HUMAN.MDH")).unwrap();
        let sk = Skeleton::from_mdh(&mdh).unwrap();
        let run = Man::read(&sample("HUMAN-S_RUNL.MAN")).unwrap();
        let walk = Man::read(&sample("HUMAN-S_WALKL.MAN")).unwrap();
        let mut layout = Layout::default();
        assert!(layout.add(&sk, "RUN.MAN", &run).unwrap());
        assert!(layout.add(&sk, "WALK.MAN", &walk).unwrap());
        let e = export_streamed(
            &sk,
            &layout,
            None,
            Container::Glb,
            None,
            &mut Vec::new(),
            &mut |each| {
                each("RUN.MAN", &run)?;
                each("WALK.MAN", &run)
            },
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("WALK.MAN: not the animation planned"), "{e}");
        let e = export_streamed(
            &sk,
            &layout,
            None,
            Container::Glb,
            None,
            &mut Vec::new(),
            &mut |each| each("RUN.MAN", &run),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("1 of the 2 animations planned"), "{e}");
    }
}
