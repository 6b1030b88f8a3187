//! The `frames:` blocks of the `zengin.man` YAML export, rendered straight into the document
//! text: one `- {rotation: [...], position: [...]}` line per sample.
//!
//! Every float of a sample comes from a 16-bit code (rotation x, y, z and position x, y, z) or
//! from a code triple (rotation w), and real animations repeat codes a lot (a bone's offset
//! rarely moves), so each text is formatted once and then copied: from a per-code table built
//! for the file (positions of large files), the process-wide rotation table (once a process
//! has rendered enough samples), or a small per-call memo (everything else).

use crate::exact::F32;
use crate::zengin::man::quant;

/// The comment on a sample whose position codes are kept raw.
pub(crate) const RAW_POSITION_NOTE: &str = "position_code: these codes do not survive decoding with this header's position_min/position_scale, so they are kept raw";

/// Texts of the values one 16-bit code component takes (one string, a span per code: all
/// 65536 codes, or only those an animation uses), and whether each code survives decode →
/// encode (positions only).
pub(super) struct CodeTable {
    text: String,
    spans: Vec<(u32, u32)>,
    exact: Vec<bool>,
}

impl CodeTable {
    /// The table of `codes` (in increasing order, no repeats); other codes have empty texts.
    fn build(
        codes: &[u16],
        decode: impl Fn(u16) -> f32 + Sync,
        exact: impl Fn(u16, f32) -> bool + Sync,
    ) -> Self {
        use rayon::prelude::*;
        type Part = (String, Vec<(u16, u32, u32, bool)>);
        let parts: Vec<Part> = codes
            .par_chunks(4096)
            .map(|codes| {
                let mut text = String::with_capacity(codes.len() * 12);
                let mut spans = Vec::with_capacity(codes.len());
                for &c in codes {
                    let v = decode(c);
                    let start = text.len();
                    push_f32(&mut text, v);
                    spans.push((c, start as u32, text.len() as u32, exact(c, v)));
                }
                (text, spans)
            })
            .collect();
        let mut table = CodeTable {
            text: String::with_capacity(parts.iter().map(|p| p.0.len()).sum()),
            spans: vec![(0, 0); 65536],
            exact: vec![false; 65536],
        };
        for (text, spans) in parts {
            let base = table.text.len() as u32;
            table.text.push_str(&text);
            for (c, a, b, ok) in spans {
                table.spans[c as usize] = (a + base, b + base);
                table.exact[c as usize] = ok;
            }
        }
        table
    }
    #[inline]
    fn get(&self, code: u16) -> &str {
        let (a, b) = self.spans[code as usize];
        &self.text[a as usize..b as usize]
    }
}

/// The texts of every rotation x, y, z code (they do not depend on the file), built once per
/// process when first needed.
pub(super) fn rotation_table() -> &'static CodeTable {
    static TABLE: std::sync::OnceLock<CodeTable> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let all: Vec<u16> = (0..=u16::MAX).collect();
        CodeTable::build(
            &all,
            |c| (c as f32 - quant::ROT_MID) * quant::ROT_SCALE,
            |_, _| true,
        )
    })
}

/// Below this many samples, the per-call memo is cheaper than a position table: the table
/// costs ≈ 280 µs to set up (65,536 entries), so it pays only when most of a large file's
/// codes would miss the memo.
const TABLE_THRESHOLD: usize = 4096;

/// Once a process has rendered this many samples, the rotation table (65536 texts) pays off.
const ROTATION_TABLE_AFTER: usize = 40_000;

/// From this many samples on, frames are rendered on all cores.
const PARALLEL_RENDER_AFTER: usize = 8192;

/// Append the exporter's text of `v` ([`crate::exact::float::write_f32`]'s spelling).
#[inline]
pub(super) fn push_f32(out: &mut String, v: f32) {
    if v.is_finite() {
        let mut buf = ryu::Buffer::new();
        let text = buf.format_finite(v);
        // Only exponent forms need push_finite's YAML 1.1 fix; this byte test is several
        // times cheaper than its char search, and most values have no exponent.
        if text.bytes().all(|b| b != b'e') {
            out.push_str(text);
        } else {
            crate::exact::float::push_finite(out, text);
        }
    } else {
        crate::exact::float::write_f32(out, F32::new(v));
    }
}

/// Texts of recently formatted values by key (rotation or position code, or a rotation code
/// triple for w), with one flag each (a position code survives decode → encode). Direct-mapped:
/// a key whose slot is taken replaces the old entry, so a lookup is one compare.
struct Memo {
    /// Key + 1 of each slot (0: empty).
    keys: Vec<u64>,
    /// Start of the slot's text in `text` (bits 9..), its length (bits 1..8) and its flag (bit 0).
    spans: Vec<u32>,
    shift: u32,
    text: String,
}

impl Memo {
    /// Past this much text, the memo starts again (a span's start has 23 bits).
    const MAX_TEXT: usize = 1 << 22;

    /// A memo of 2^`bits` slots.
    fn new(bits: u32) -> Self {
        Memo {
            keys: vec![0; 1 << bits],
            spans: vec![0; 1 << bits],
            shift: 64 - bits,
            text: String::with_capacity(16 << bits),
        }
    }
    /// A memo sized for `values` lookups (at least 2^6 and at most 2^12 slots).
    fn for_values(values: usize) -> Self {
        let bits = values.max(1).next_power_of_two().trailing_zeros();
        Memo::new(bits.clamp(6, 12))
    }
    /// Empty the memo when its text has grown past [`Memo::MAX_TEXT`] (only between samples:
    /// spans handed out stay valid until then).
    fn trim(&mut self) {
        if self.text.len() > Self::MAX_TEXT {
            self.text.clear();
            self.keys.fill(0);
        }
    }
    /// The span of `key`'s text (start, end) and its flag, formatting it with `make` (which
    /// returns the flag) when the memo does not hold it.
    #[inline]
    fn entry(&mut self, key: u64, make: impl FnOnce(&mut String) -> bool) -> (usize, usize, bool) {
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize;
        if self.keys[slot] == key + 1 {
            let span = self.spans[slot];
            let start = (span >> 9) as usize;
            return (start, start + ((span >> 1) & 0xFF) as usize, span & 1 == 1);
        }
        let start = self.text.len();
        let flag = make(&mut self.text);
        let len = self.text.len() - start;
        // (every f32 text is far shorter than 255 bytes)
        if len <= 0xFF {
            self.keys[slot] = key + 1;
            self.spans[slot] = (start as u32) << 9 | (len as u32) << 1 | flag as u32;
        }
        (start, start + len, flag)
    }
    /// Append the text of `key` (see [`Memo::entry`]).
    #[inline]
    fn push(&mut self, out: &mut String, key: u64, make: impl FnOnce(&mut String) -> bool) {
        let (a, b, _) = self.entry(key, make);
        out.push_str(&self.text[a..b]);
    }
}

/// The per-thread part of rendering: memos of rotation components, position components and
/// rotation w values.
pub(super) struct Memos {
    rot: Memo,
    pos: Memo,
    w: Memo,
}

impl Memos {
    fn trim(&mut self) {
        self.rot.trim();
        self.pos.trim();
        self.w.trim();
    }
    /// Memos sized for `samples` samples.
    pub(super) fn for_samples(samples: usize) -> Self {
        Memos {
            rot: Memo::for_values(samples * 3),
            pos: Memo::for_values(samples * 3),
            w: Memo::for_values(samples),
        }
    }
}

/// Renders samples as flow mappings; the shared, read-only part (tables), see [`Memos`] for the
/// per-thread part.
pub(super) struct SampleRenderer {
    min: f32,
    scale: f32,
    rot: Option<&'static CodeTable>,
    pos: Option<CodeTable>,
}

impl SampleRenderer {
    pub(super) fn new(min: f32, scale: f32, codes: &[[u16; 6]]) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static RENDERED: AtomicUsize = AtomicUsize::new(0);
        let seen = RENDERED.fetch_add(codes.len(), Ordering::Relaxed) + codes.len();
        let rot = (seen >= ROTATION_TABLE_AFTER).then(rotation_table);
        let pos = (codes.len() >= TABLE_THRESHOLD).then(|| {
            let mut used = vec![false; 65536];
            for c in codes {
                used[c[3] as usize] = true;
                used[c[4] as usize] = true;
                used[c[5] as usize] = true;
            }
            let used: Vec<u16> = (0..=u16::MAX).filter(|&c| used[c as usize]).collect();
            CodeTable::build(
                &used,
                |c| quant::unpack_position(c, min, scale),
                |c, v| quant::exact_position_code(v, min, scale) == Some(c),
            )
        });
        SampleRenderer {
            min,
            scale,
            rot,
            pos,
        }
    }

    /// The renderer without tables (every value through the memos).
    #[cfg(test)]
    pub(super) fn untabled(min: f32, scale: f32) -> Self {
        SampleRenderer {
            min,
            scale,
            rot: None,
            pos: None,
        }
    }

    /// This renderer with the process-wide rotation table.
    #[cfg(test)]
    pub(super) fn with_rotation_table(self) -> Self {
        SampleRenderer {
            rot: Some(rotation_table()),
            ..self
        }
    }

    #[cfg(test)]
    pub(super) fn has_position_table(&self) -> bool {
        self.pos.is_some()
    }

    /// Append one sample as a flow mapping; `node` is the sample's `node: NAME, ` text (with
    /// `export --mdh`). Rotations never need their raw codes (every code survives unpack →
    /// pack, proved exhaustively in `quant`); positions do when the header's min/scale are
    /// degenerate, and then carry a comment saying why.
    pub(super) fn render(&self, memos: &mut Memos, out: &mut String, c: &[u16; 6], node: &str) {
        memos.trim();
        if node.is_empty() {
            out.push_str("{rotation: [");
        } else {
            out.push('{');
            out.push_str(node);
            out.push_str("rotation: [");
        }
        for &code in &c[..3] {
            match self.rot {
                Some(rot) => out.push_str(rot.get(code)),
                None => {
                    memos.rot.push(out, u64::from(code), |t| {
                        push_f32(t, (code as f32 - quant::ROT_MID) * quant::ROT_SCALE);
                        true
                    });
                }
            }
            out.push_str(", ");
        }
        let triple = u64::from(c[0]) << 32 | u64::from(c[1]) << 16 | u64::from(c[2]);
        memos.w.push(out, triple, |t| {
            push_f32(t, quant::unpack_rotation([c[0], c[1], c[2]])[3]);
            true
        });
        let pos_code = [c[3], c[4], c[5]];
        // Each position's text and whether it survives decode → encode, in one lookup.
        let (min, scale) = (self.min, self.scale);
        let texts = pos_code.map(|p| match &self.pos {
            Some(pos) => {
                let (a, b) = pos.spans[p as usize];
                (a as usize, b as usize, pos.exact[p as usize])
            }
            None => memos.pos.entry(u64::from(p), |t| {
                let v = quant::unpack_position(p, min, scale);
                push_f32(t, v);
                quant::exact_position_code(v, min, scale) == Some(p)
            }),
        });
        if texts[0].2 && texts[1].2 && texts[2].2 {
            let text = self.pos.as_ref().map_or(&memos.pos.text, |pos| &pos.text);
            out.push_str("], position: [");
            out.push_str(&text[texts[0].0..texts[0].1]);
            out.push_str(", ");
            out.push_str(&text[texts[1].0..texts[1].1]);
            out.push_str(", ");
            out.push_str(&text[texts[2].0..texts[2].1]);
            out.push_str("]}");
        } else {
            use std::fmt::Write;
            let _ = write!(
                out,
                "], position_code: [{}, {}, {}]}}  # {RAW_POSITION_NOTE}",
                pos_code[0], pos_code[1], pos_code[2]
            );
        }
    }
}

/// Append the `frames:` block of `codes` (`nodes` samples a frame, at least one) as block
/// lines indented by `indent`: `- - {...}` starts a frame, `  - {...}` continues it. `names`
/// are the samples' `node: NAME, ` texts, one per node (or none).
pub(super) fn render_frames(
    out: &mut String,
    codes: &[[u16; 6]],
    nodes: usize,
    (min, scale): (f32, f32),
    names: Option<&[String]>,
    indent: usize,
) {
    let renderer = SampleRenderer::new(min, scale, codes);
    let render = frame_renderer(&renderer, names, indent);
    out.reserve(codes.len() * (indent + 120 + names.map_or(0, |_| 24)));
    if codes.len() < PARALLEL_RENDER_AFTER {
        // A small animation is rendered on this thread: handing its few frames to the pool
        // costs more than rendering them.
        let mut memos = Memos::for_samples(codes.len());
        for frame in codes.chunks_exact(nodes) {
            render(&mut memos, out, frame);
        }
        return;
    }
    for f in &render_in_parallel(codes, nodes, indent, &render) {
        out.push_str(f);
    }
}

/// The lines of one frame (see [`render_frames`]), appended to a text.
fn frame_renderer<'a>(
    renderer: &'a SampleRenderer,
    names: Option<&'a [String]>,
    indent: usize,
) -> impl Fn(&mut Memos, &mut String, &[[u16; 6]]) + Sync + 'a {
    let first = format!("{:indent$}- - ", "");
    let next = format!("{:indent$}  - ", "");
    let node = move |k: usize| names.and_then(|n| n.get(k)).map_or("", String::as_str);
    move |memos: &mut Memos, out: &mut String, frame: &[[u16; 6]]| {
        for (k, c) in frame.iter().enumerate() {
            out.push_str(if k == 0 { &first } else { &next });
            renderer.render(memos, out, c, node(k));
            out.push('\n');
        }
    }
}

/// The frames of `codes` rendered on all cores, a frame per task, each worker with its own
/// memos; the texts in frame order.
fn render_in_parallel(
    codes: &[[u16; 6]],
    nodes: usize,
    indent: usize,
    render: &(impl Fn(&mut Memos, &mut String, &[[u16; 6]]) + Sync),
) -> Vec<String> {
    use rayon::prelude::*;
    codes
        .par_chunks_exact(nodes)
        .map_init(
            || Memos::for_samples(nodes * 64),
            |memos, frame| {
                let mut text = String::with_capacity(frame.len() * (indent + 125));
                render(memos, &mut text, frame);
                text
            },
        )
        .collect()
}

/// How many samples [`render_frames_streamed`] renders before it writes them (whole frames,
/// at least one): about 4 MB of text.
const STREAM_BATCH_SAMPLES: usize = 32_768;

/// [`render_frames`] handed to `write` a batch of frames at a time (the same text): the
/// memory it takes is one batch, whatever the number of frames.
pub(super) fn render_frames_streamed(
    write: &mut dyn FnMut(&str) -> std::io::Result<()>,
    codes: &[[u16; 6]],
    nodes: usize,
    range: (f32, f32),
    names: Option<&[String]>,
    indent: usize,
) -> std::io::Result<()> {
    if codes.len() < PARALLEL_RENDER_AFTER {
        let mut text = String::new();
        render_frames(&mut text, codes, nodes, range, names, indent);
        return write(&text);
    }
    let renderer = SampleRenderer::new(range.0, range.1, codes);
    let render = frame_renderer(&renderer, names, indent);
    let batch = (STREAM_BATCH_SAMPLES / nodes).max(1) * nodes;
    for part in codes.chunks(batch) {
        for f in &render_in_parallel(part, nodes, indent, &render) {
            write(f)?;
        }
    }
    Ok(())
}
