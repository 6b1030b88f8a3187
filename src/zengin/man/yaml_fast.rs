//! A fast reader for the `frames:` blocks of a `zengin.man` document, in exactly the shape the
//! exporter writes them (one `{rotation: [...], position: [...]}` per line).
//!
//! The general YAML reader (serde-saphyr) is far slower per sample, and the samples are nearly all of a MAN
//! document. This reader parses those lines directly and replaces each block by a one-line
//! placeholder plus blank lines (so line numbers elsewhere stay true); serde-saphyr then reads
//! the small rest. It is optimistic: any line it does not recognise makes it decline, and any
//! error on the fast path makes the caller redo the whole import the ordinary way, so results
//! and error messages are the same as without it (a test compares both paths). The sample
//! types both readers produce ([`FramesIn`], [`SampleIn`]) live here, below the document reader.

use crate::exact::float::parse_f32;
use crate::exact::F32;
use schemars::JsonSchema;
use serde::de::IgnoredAny;
use serde::Deserialize;

/// Every sample, frame-major, with the frame count, in the compact form the import needs: the
/// codes each sample becomes (rotations encoded as they are read), with position values kept
/// beside them until the header's range packs them. About 24 bytes a sample, against 12 in the
/// output (a list of [`SampleIn`] took 56 beside the codes; `roundtrip-tests/memory.rs`).
#[derive(Debug, Default)]
pub struct FramesIn {
    pub frames: usize,
    /// One per sample: rotation codes x, y, z (given, or encoded from the values), then
    /// position codes x, y, z (given; 0 where the position came as values, until packed).
    pub codes: Vec<[u16; 6]>,
    /// The position values of the samples whose bit is set in `valued`, in sample order.
    pub positions: Vec<[F32; 3]>,
    /// One bit per sample: its position came as values (its entry in `positions`).
    valued: Vec<u64>,
    /// The first sample whose rotation is refused: its index and why.
    pub rotation_error: Option<(usize, RotationError)>,
    /// The first sample without exactly one of `position` and `position_code`.
    pub position_error: Option<usize>,
}

/// Why a sample's rotation is refused.
#[derive(Debug, Clone, PartialEq)]
pub enum RotationError {
    /// Neither or both of `rotation` and `rotation_code`.
    NotExactlyOne,
    /// The values cannot be packed (the packer's message).
    Encode(String),
}

impl FramesIn {
    /// Room for `samples` samples (each list allocated once at its size).
    pub fn with_capacity(samples: usize) -> Self {
        FramesIn {
            codes: Vec::with_capacity(samples),
            positions: Vec::with_capacity(samples),
            valued: Vec::with_capacity(samples.div_ceil(64)),
            ..FramesIn::default()
        }
    }
    /// `frames` frames of samples given as codes.
    pub fn from_codes(frames: usize, codes: Vec<[u16; 6]>) -> Self {
        let valued = vec![0; codes.len().div_ceil(64)];
        FramesIn {
            frames,
            codes,
            valued,
            ..FramesIn::default()
        }
    }
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.codes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
    /// Whether sample `k`'s position came as values.
    #[inline]
    pub fn valued(&self, k: usize) -> bool {
        self.valued[k / 64] & (1 << (k % 64)) != 0
    }
    /// Add one sample; a refused rotation or position is remembered (the first of each) for
    /// the import to report in sample order.
    #[inline]
    pub fn push(&mut self, s: SampleIn) {
        let k = self.codes.len();
        let rot = match (s.rotation, s.rotation_code) {
            (Some(q), None) => match crate::zengin::man::quant::encode_rotation(q.map(F32::get)) {
                Ok(c) => c,
                Err(m) => {
                    self.rotation_error
                        .get_or_insert((k, RotationError::Encode(m)));
                    [0; 3]
                }
            },
            (None, Some(c)) => c,
            _ => {
                self.rotation_error
                    .get_or_insert((k, RotationError::NotExactlyOne));
                [0; 3]
            }
        };
        if k.is_multiple_of(64) {
            self.valued.push(0);
        }
        let pos = match (s.position, s.position_code) {
            (Some(p), None) => {
                self.positions.push(p);
                self.valued[k / 64] |= 1 << (k % 64);
                [0; 3]
            }
            (None, Some(c)) => c,
            _ => {
                self.position_error.get_or_insert(k);
                [0; 3]
            }
        };
        self.codes
            .push([rot[0], rot[1], rot[2], pos[0], pos[1], pos[2]]);
    }
}

/// One node in one frame: give `rotation` or `rotation_code`, and `position` or
/// `position_code`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SampleIn {
    /// Quaternion x, y, z, w.
    pub rotation: Option<[F32; 4]>,
    /// Raw packed rotation codes x, y, z (written back as they are).
    pub rotation_code: Option<[u16; 3]>,
    /// Position x, y, z.
    pub position: Option<[F32; 3]>,
    /// Raw packed position codes x, y, z (written back as they are).
    pub position_code: Option<[u16; 3]>,
    /// Ignored on import (a label some exports add).
    #[schemars(with = "Option<String>")]
    pub node: Option<IgnoredAny>,
}

/// The placeholder that stands for fast-parsed block `k`.
pub fn placeholder(k: usize) -> String {
    format!("__animkit_fast_frames_{k}__")
}

/// Index `k` of a placeholder.
pub fn placeholder_index(s: &str) -> Option<usize> {
    s.strip_prefix("__animkit_fast_frames_")?
        .strip_suffix("__")?
        .parse()
        .ok()
}

/// The document with every `frames:` block replaced, and the blocks' samples; `None` when a
/// block is not in the exporter's shape.
pub fn split(text: &str) -> Option<(String, Vec<FramesIn>)> {
    let (reduced, blocks) = split_parts(text)?;
    Some((reduced.build(text), blocks))
}

/// The reduced document of [`split`] before it is made: the pieces of the text it keeps and
/// the placeholders between them, so a caller can see its size first (it is made at its size,
/// and a caller for whom it would be large, because most of the text is not frames, can read
/// the whole text instead of copying it).
pub struct Reduced {
    parts: Vec<Part>,
    len: usize,
}

enum Part {
    /// Bytes of the text.
    Text(std::ops::Range<usize>),
    /// Block `k`'s placeholder at indent `ind`, then blank lines for its other `lines - 1`.
    Block { ind: usize, k: usize, lines: usize },
}

impl Reduced {
    /// The length of the reduced document in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the reduced document is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The reduced document (`text` is the one it was split from).
    pub fn build(&self, text: &str) -> String {
        let mut out = String::with_capacity(self.len);
        for p in &self.parts {
            match p {
                Part::Text(r) => out.push_str(&text[r.clone()]),
                Part::Block { ind, k, lines } => {
                    for _ in 0..ind + 2 {
                        out.push(' ');
                    }
                    out.push_str(&placeholder(*k));
                    out.push('\n');
                    for _ in 1..*lines {
                        out.push('\n');
                    }
                }
            }
        }
        debug_assert_eq!(out.len(), self.len);
        out
    }
    fn keep(&mut self, r: std::ops::Range<usize>) {
        self.len += r.len();
        if let Some(Part::Text(last)) = self.parts.last_mut() {
            if last.end == r.start {
                last.end = r.end;
                return;
            }
        }
        self.parts.push(Part::Text(r));
    }
}

/// [`split`] without making the reduced document.
pub fn split_parts(text: &str) -> Option<(Reduced, Vec<FramesIn>)> {
    let mut reduced = Reduced {
        parts: Vec::new(),
        len: 0,
    };
    let mut blocks = Vec::new();
    let base = text.as_ptr() as usize;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let at = line.as_ptr() as usize - base;
        reduced.keep(at..at + line.len());
        let body = trim_eol(line);
        let Some(indent) = body
            .strip_suffix("frames:")
            .filter(|i| i.bytes().all(|b| b == b' '))
        else {
            continue;
        };
        let ind = indent.len();
        // The block's sample lines counted first, so the lists are allocated once at their
        // size (growing them by doubling costs up to twice the memory on a large import).
        let mut frames = FramesIn::with_capacity(sample_lines(lines.clone(), ind));
        let mut block_lines = 0usize;
        // Every frame must hold the same number of samples (checked per frame here, against
        // the node count by the caller); otherwise the ordinary path reports the frame.
        let mut per_frame: Option<usize> = None;
        let mut frame_start = 0usize;
        let mut close_frame = |frames: &FramesIn, start: usize| -> Option<()> {
            if frames.frames == 0 {
                return Some(());
            }
            let n = frames.len() - start;
            match per_frame {
                None => per_frame = Some(n),
                Some(p) if p != n => return None,
                Some(_) => {}
            }
            Some(())
        };
        while let Some(next) = lines.peek() {
            // (Byte tests: a line they do not recognise, e.g. one indented with tabs, makes
            // the whole fast path decline below, which is always safe.)
            let l = trim_eol(next);
            let spaces = l.bytes().take_while(|&b| b == b' ').count();
            let body = &l[spaces..];
            if body.is_empty() || (spaces > ind && body.starts_with('#')) {
                break;
            }
            if spaces < ind || (spaces == ind && !l[ind..].starts_with("- ")) {
                break; // the block ended
            }
            let rest = &l[ind..];
            if let Some(first) = rest.strip_prefix("- - ") {
                close_frame(&frames, frame_start)?;
                frames.frames += 1;
                frame_start = frames.len();
                frames.push(sample(first)?);
            } else if rest == "- []" {
                close_frame(&frames, frame_start)?;
                frames.frames += 1;
                frame_start = frames.len();
            } else if let Some(more) = rest.strip_prefix("  - ") {
                if frames.frames == 0 {
                    return None;
                }
                frames.push(sample(more)?);
            } else {
                return None;
            }
            block_lines += 1;
            lines.next();
        }
        close_frame(&frames, frame_start)?;
        // A refused value is reported by the ordinary path, with its line.
        if frames.rotation_error.is_some() || frames.position_error.is_some() {
            return None;
        }
        if block_lines == 0 {
            continue;
        }
        // Room kept for values that came as codes instead is given back.
        if frames.positions.len() < frames.positions.capacity() / 2 {
            frames.positions.shrink_to_fit();
        }
        // The placeholder on the first line of the block, blank lines for the rest.
        reduced.len += ind + 2 + placeholder(blocks.len()).len() + block_lines;
        reduced.parts.push(Part::Block {
            ind,
            k: blocks.len(),
            lines: block_lines,
        });
        blocks.push(frames);
    }
    Some((reduced, blocks))
}

/// How many sample lines (`- - {…}` or `  - {…}` at indent `ind`) follow: an upper bound of
/// the samples the block holds (the block's reader checks each line).
fn sample_lines<'a>(lines: impl Iterator<Item = &'a str>, ind: usize) -> usize {
    lines
        .map(trim_eol)
        .take_while(|l| {
            l.len() > ind
                && l.as_bytes()[..ind].iter().all(|&b| b == b' ')
                && (l[ind..].starts_with("- ") || l[ind..].starts_with("  - "))
        })
        .filter(|l| !l[ind..].starts_with("- []"))
        .count()
}

/// One `{rotation: [...], position: [...]}` (or the `_code` forms), with an optional comment.
fn sample(text: &str) -> Option<SampleIn> {
    // A comment starts at the first "  #" (looked for by its rare '#').
    let comment = text
        .bytes()
        .enumerate()
        .filter(|&(_, b)| b == b'#')
        .map(|(i, _)| i)
        .find(|&i| i >= 2 && &text.as_bytes()[i - 2..i] == b"  ");
    let text = match comment {
        Some(i) => &text[..i - 2],
        None => text,
    };
    let mut inner = text.trim_end().strip_prefix('{')?.strip_suffix('}')?;
    // `node: NAME, ` (from `export --mdh`) is ignored on import: skip it. A name that itself
    // contains ", rotation" leaves a duplicate key behind, which declines below.
    if inner.starts_with("node: ") {
        let cut = inner.find(", rotation")?;
        inner = &inner[cut + 2..];
    }
    let mut s = SampleIn::default();
    let mut rest = inner;
    loop {
        let (key, after) = cut(rest, b':')?;
        let (values, after) = cut(after.strip_prefix(" [")?, b']')?;
        match key.trim_ascii() {
            "rotation" if s.rotation.is_none() => s.rotation = Some(floats::<4>(values)?),
            "position" if s.position.is_none() => s.position = Some(floats::<3>(values)?),
            "rotation_code" if s.rotation_code.is_none() => s.rotation_code = Some(codes(values)?),
            "position_code" if s.position_code.is_none() => s.position_code = Some(codes(values)?),
            _ => return None,
        }
        match after.strip_prefix(", ") {
            Some(r) => rest = r,
            None if after.trim_ascii().is_empty() => return Some(s),
            None => return None,
        }
    }
}

/// `line` without the line break(s) at its end.
#[inline]
fn trim_eol(line: &str) -> &str {
    let b = line.as_bytes();
    let mut end = b.len();
    while end > 0 && matches!(b[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    &line[..end]
}

/// `text` before the first `byte`, and after it. (A plain byte loop: the pieces are a few
/// characters long, too short for a vectorised search to pay off.)
#[inline]
fn cut(text: &str, byte: u8) -> Option<(&str, &str)> {
    let i = text.bytes().position(|b| b == byte)?;
    // An ASCII byte is always a character boundary.
    Some((&text[..i], &text[i + 1..]))
}

fn floats<const N: usize>(text: &str) -> Option<[F32; N]> {
    let mut out = [F32::default(); N];
    let mut rest = text;
    for (i, v) in out.iter_mut().enumerate() {
        let t = if i + 1 < N {
            let (t, r) = cut(rest, b',')?;
            rest = r;
            t
        } else if rest.bytes().any(|b| b == b',') {
            return None;
        } else {
            rest
        };
        let t = t.trim_ascii();
        // Quoted or tagged values take the ordinary path.
        if t.is_empty() || t.starts_with(['"', '\'', '!', '&', '*']) {
            return None;
        }
        *v = parse_f32(t)?;
    }
    Some(out)
}

fn codes(text: &str) -> Option<[u16; 3]> {
    let mut out = [0u16; 3];
    let mut parts = text.split(',');
    for v in out.iter_mut() {
        *v = parts.next()?.trim().parse().ok()?;
    }
    parts.next().is_none().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_in_the_exported_shape() {
        let s = sample(
            "{rotation: [0.0, -0.0, NaN(0x7fa00001), 1.0], position: [1e3, Inf(0x7f800000), 2.5]}",
        )
        .unwrap();
        assert_eq!(s.rotation.unwrap()[1], F32(0x8000_0000));
        assert_eq!(s.rotation.unwrap()[2], F32(0x7fa0_0001));
        assert_eq!(s.position.unwrap()[0].get(), 1000.0);
        let s = sample("{rotation: [0.0, 0.0, 0.0, 1.0], position_code: [1, 2, 65535]}  # why")
            .unwrap();
        assert_eq!(s.position_code, Some([1, 2, 65535]));
        // Anything else declines.
        assert!(sample("{rotation: [\"0.0\", 0.0, 0.0, 1.0], position: [1, 2, 3]}").is_none());
        assert!(sample("{rotation: [0.0, 0.0, 1.0], position: [1, 2, 3]}").is_none());
        assert!(
            sample("{node: BIP01 HEAD, rotation: [0.0, 0.0, 0.0, 1.0], position: [1, 2, 3]}")
                .is_some()
        );
        assert!(sample("{node: \"A, rotation: [0.0, 0.0, 0.0, 1.0]\", rotation: [0.0, 0.0, 0.0, 1.0], position: [1, 2, 3]}").is_none());
        assert!(sample("{rotation: [0.0, 0.0, 0.0, 1.0], node: X, position: [1, 2, 3]}").is_none());
        assert!(sample("{position_code: [1, 2, 70000]}").is_none());
        // The comment starts at the first "  #"; one space before '#' is no comment.
        let s = sample("{rotation: [0.0, 0.0, 0.0, 1.0], position: [1, 2, 3]}   # a  # b").unwrap();
        assert_eq!(s.position.unwrap()[2].get(), 3.0);
        assert!(sample("{rotation: [0.0, 0.0, 0.0, 1.0], position: [1, 2, 3]} # a").is_none());
        // Keys are whole words before ": ["; value lists hold exactly 4 or 3 numbers.
        assert!(sample("{rot:ation: [0.0, 0.0, 0.0, 1.0], position: [1, 2, 3]}").is_none());
        assert!(sample("{rotation: [0.0, 0.0, 0.0, 1.0, 2.0], position: [1, 2, 3]}").is_none());
        assert!(sample("{rotation: [0.0, 0.0, 0.0, 1.0], position: [1, 2]}").is_none());
        let s = sample("{ rotation: [ 0.5 ,\t-0.5, 0.0, 1.0 ], position: [1, 2, 3]}").unwrap();
        assert_eq!(s.rotation.unwrap()[1].get(), -0.5);
    }

    #[test]
    fn blocks_are_replaced_keeping_line_numbers() {
        let one = "{rotation: [0.0, 0.0, 0.0, 1.0], position: [1.0, 2.0, 3.0]}";
        let text = format!("a: 1\n    frames:\n    - - {one}\n    - - {one}\n    trailing: ab\n");
        let (reduced, blocks) = split(&text).unwrap();
        assert_eq!(
            reduced,
            "a: 1\n    frames:\n      __animkit_fast_frames_0__\n\n    trailing: ab\n"
        );
        assert_eq!((blocks[0].frames, blocks[0].len()), (2, 2));
        // Frames without nodes.
        let (_, blocks) = split("    frames:\n    - []\n    - []\n").unwrap();
        assert_eq!((blocks[0].frames, blocks[0].len()), (2, 0));
        // Frames of different sizes are left to the ordinary path.
        let uneven = format!("    frames:\n    - - {one}\n      - {one}\n    - - {one}\n");
        assert!(split(&uneven).is_none());
    }
}
