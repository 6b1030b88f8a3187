//! `verify`'s binary → YAML → binary round trip of a MAN, computed without writing and reading
//! every sample's text, and why that proves the same as the ordinary round trip.
//!
//! The ordinary round trip is `encode(from_yaml(to_yaml(man)))`. Nearly all of a MAN document
//! is its sample lines, and nearly all of verify's time went into them (profiled on a 1,000-MAN
//! archive: rendering 27 %, float formatting 7 %, parsing 25 %). Here the document is split
//! into the two parts the exporter and the reader already keep apart:
//!
//! 1. **Structure**: everything but the `frames` blocks (format, version, every chunk's other
//!    fields, checksum, node indices, trailing bytes). It is rendered by the real exporter with
//!    each `frames` block written as the placeholder the fast reader puts in its place
//!    ([`yaml_fast::split`](crate::zengin::man::yaml_fast::split)) and read back by the real
//!    reader ([`from_yaml_blocks`]) with, for each block, the samples as raw codes (the
//!    `rotation_code`/`position_code` form, which the import writes back as they are): the
//!    real reader checks the frame and node counts, builds the model, and that is encoded.
//! 2. **Samples**: each sample line is a fixed frame of text (`{rotation: [`, `, `,
//!    `], position: [`, `]}`, or the `position_code` form with its comment) around seven value
//!    texts, and each value text is a function of one value only: rotation x, y and z of their
//!    16-bit code, w of its f32 bits, each position component of its code (under the header's
//!    `position_min`/`position_scale`, which also decide, per sample, whether the three codes
//!    are written raw). The fast reader cuts the line at that fixed text and reads each value
//!    from its own text alone (`parse_f32`, or an integer for a raw code), and the import packs
//!    each sample on its own (`quant::encode_rotation`, `quant::pack_position` with the
//!    header's range; `--requantize`, which couples samples, is not used by verify). So a
//!    sample comes back as its codes when each of its values does: **each distinct value is
//!    proved once** (and remembered) instead of once per sample:
//!    - a rotation code `c`: its text reads back as exactly (bit for bit) the value it was
//!      written from, and the import's packing of that value gives `c` again
//!      (`quant::exact_rotation_code`, which works component by component and then demands
//!      that the three codes unpack to exactly the four values read: true when x, y, z and w
//!      read back exactly);
//!    - a w: its text reads back as exactly its bits;
//!    - a position code: written as a value, its text reads back exactly and packs to the code
//!      (`quant::exact_position_code`, the exporter's own test for the value form); written
//!      raw, its decimal text reads back as the code.
//!
//!    A value text that could change how the line is cut (anything but digits, letters, `.`,
//!    `+`, `-`, `(`, `)`) is not proved.
//!
//! Together: the ordinary round trip's model equals the structure model of step 1 (same
//! structure, same counts, each sample's codes equal), so its bytes are the bytes computed
//! here, which `verify` compares with the input. That the exporter and the reader really are
//! compositional this way is what the tests below check on every sample and corpus animation
//! and on degenerate headers: every rendered sample line is the concatenation of the per-value
//! texts, the fast reader's blocks read back to the same codes, the structure document reads
//! as the full one does, and a corrupted rendering of one value is caught. Anything this module
//! cannot prove or decide (no samples, a samples chunk without nodes, a sample count that is
//! not whole frames, a value that does not come back, an error anywhere) returns `None`, and
//! `verify` takes the ordinary path; so does a difference, so mismatch reports are the ordinary
//! path's.

use crate::codec::{Codec, ImportOptions};
use crate::exact::float::{parse_f32, write_f32};
use crate::exact::F32;
use crate::zengin::man::yaml::{from_yaml_blocks, to_yaml_placeholders};
use crate::zengin::man::yaml_fast::FramesIn;
use crate::zengin::man::{governing_header, quant, Chunk, Man, Samples};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU8, Ordering};

/// How one value is written in the document (the exporter's spelling: [`write_f32`]).
type Render = fn(&mut String, F32);

/// What is known of a value: not yet looked at, proved, or not provable.
const UNKNOWN: u8 = 0;
const PROVED: u8 = 1;
const UNPROVED: u8 = 2;
/// (positions, with `PROVED`) written as a value; without it, written as the raw code.
const AS_VALUE: u8 = 4;

/// Proofs of rotation codes: their texts do not depend on the file, so they are kept for the
/// process.
type RotationProofs = [AtomicU8; 65536];
static ROTATION_PROOFS: RotationProofs = [const { AtomicU8::new(UNKNOWN) }; 65536];

/// The bytes `encode(from_yaml(to_yaml(man)))` gives, computed as the module docs say; `None`
/// when this way cannot decide.
pub(super) fn yaml_round_trip(man: &Man) -> Option<Vec<u8>> {
    MEMO.with(|memo| round_trip_with(man, write_f32, &ROTATION_PROOFS, &mut memo.borrow_mut()))
}

fn round_trip_with(
    man: &Man,
    render: Render,
    rot: &RotationProofs,
    memo: &mut Memo,
) -> Option<Vec<u8>> {
    let mut blocks = Vec::new();
    for (i, c) in man.chunks.iter().enumerate() {
        let Chunk::Samples(x) = c else { continue };
        let header = governing_header(&man.chunks, i, |c| match c {
            Chunk::Header(h) => Some(h),
            _ => None,
        });
        // (the exporter's range when there is no header)
        let (min, scale) = header.map_or((0.0, 0.0), |h| {
            (h.position_min.get(), h.position_scale.get())
        });
        blocks.push(block(x, min, scale, render, rot, memo)?);
    }
    if blocks.is_empty() {
        return None;
    }
    let structure = to_yaml_placeholders(man).ok()?;
    let back = from_yaml_blocks(&structure, blocks, &ImportOptions::default())?;
    let mut out = Vec::new();
    Codec::encode(&back, &mut out).ok()?;
    Some(out)
}

/// What the fast reader makes of one value's text; `None` for a text that could change how a
/// sample line is cut, or that does not read as a number.
fn read_value(text: &str) -> Option<F32> {
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'(' | b')');
    if text.is_empty() || !text.bytes().all(plain) {
        return None;
    }
    parse_f32(text)
}

/// Whether `v`'s text reads back as exactly `v`.
fn reads_back(render: Render, buf: &mut String, v: f32) -> bool {
    buf.clear();
    render(buf, F32::new(v));
    read_value(buf).is_some_and(|f| f.0 == v.to_bits())
}

fn prove_rotation(render: Render, buf: &mut String, c: u16) -> u8 {
    let mid = quant::ROT_MID as u16;
    let q = quant::unpack_rotation([c, mid, mid]);
    let ok = reads_back(render, buf, q[0]) && quant::exact_rotation_code(q) == Some([c, mid, mid]);
    if ok {
        PROVED
    } else {
        UNPROVED
    }
}

fn prove_position(render: Render, buf: &mut String, p: u16, min: f32, scale: f32) -> u8 {
    let v = quant::unpack_position(p, min, scale);
    if quant::exact_position_code(v, min, scale) == Some(p) {
        if reads_back(render, buf, v) {
            PROVED | AS_VALUE
        } else {
            UNPROVED
        }
    } else {
        buf.clear();
        use std::fmt::Write;
        let _ = write!(buf, "{p}");
        if buf.trim().parse::<u16>() == Ok(p) {
            PROVED
        } else {
            UNPROVED
        }
    }
}

/// Per-thread memory: w proofs by bits (direct-mapped: a miss only proves again; w's text
/// depends on nothing else), and position proofs of the current samples chunk (stamped with a
/// generation, so nothing needs clearing between animations).
struct Memo {
    w: Vec<(u32, u8)>,
    generation: u32,
    positions: Vec<(u32, u8)>,
}

impl Memo {
    fn new() -> Self {
        Memo {
            w: vec![(0, UNKNOWN); 4096],
            generation: 0,
            positions: vec![(0, UNKNOWN); 65536],
        }
    }
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::new());
}

/// The block of `x`'s samples as raw codes, when every sample is proved to come back from its
/// text as those codes (`None` otherwise).
fn block(
    x: &Samples,
    min: f32,
    scale: f32,
    render: Render,
    rot: &RotationProofs,
    memo: &mut Memo,
) -> Option<FramesIn> {
    let n = x.node_indices.len();
    if n == 0 || !x.codes.len().is_multiple_of(n) {
        return None;
    }
    {
        memo.generation = memo.generation.wrapping_add(1);
        if memo.generation == 0 {
            memo.positions.fill((0, UNKNOWN));
            memo.generation = 1;
        }
        let generation = memo.generation;
        let mut buf = String::with_capacity(32);
        for c in &x.codes {
            for &code in &c[..3] {
                let slot = &rot[code as usize];
                let mut e = slot.load(Ordering::Relaxed);
                if e == UNKNOWN {
                    e = prove_rotation(render, &mut buf, code);
                    slot.store(e, Ordering::Relaxed);
                }
                if e != PROVED {
                    return None;
                }
            }
            let w = quant::unpack_rotation([c[0], c[1], c[2]])[3];
            let bits = w.to_bits();
            let w_slot = &mut memo.w[((bits ^ (bits >> 12)) & 4095) as usize];
            if w_slot.0 != bits || w_slot.1 == UNKNOWN {
                *w_slot = (
                    bits,
                    if reads_back(render, &mut buf, w) {
                        PROVED
                    } else {
                        UNPROVED
                    },
                );
            }
            if w_slot.1 != PROVED {
                return None;
            }
            let mut as_value = 0;
            for &p in &c[3..] {
                let slot = &mut memo.positions[p as usize];
                if slot.0 != generation {
                    *slot = (generation, prove_position(render, &mut buf, p, min, scale));
                }
                if slot.1 & PROVED == 0 {
                    return None;
                }
                as_value += usize::from(slot.1 & AS_VALUE != 0);
            }
            // The exporter writes the three values when all three codes survive, else the
            // three codes; a code proved in one form says nothing of the other.
            if as_value != 0 && as_value != 3 {
                for &p in &c[3..] {
                    if memo.positions[p as usize].1 & AS_VALUE != 0 {
                        buf.clear();
                        use std::fmt::Write;
                        let _ = write!(buf, "{p}");
                        if buf.trim().parse::<u16>() != Ok(p) {
                            return None;
                        }
                    }
                }
            }
        }
        Some(FramesIn::from_codes(x.codes.len() / n, x.codes.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zengin::man::synth::{synthesize, Synth};
    use crate::zengin::man::{yaml, yaml_fast, Header};

    fn fresh_rotation_proofs() -> Box<RotationProofs> {
        Box::new([const { AtomicU8::new(UNKNOWN) }; 65536])
    }

    /// The round trip with fresh proofs (none remembered from other tests).
    fn fresh(man: &Man, render: Render) -> Option<Vec<u8>> {
        round_trip_with(man, render, &fresh_rotation_proofs(), &mut Memo::new())
    }

    fn header_mut(man: &mut Man) -> &mut Header {
        man.chunks
            .iter_mut()
            .find_map(|c| match c {
                Chunk::Header(h) => Some(h),
                _ => None,
            })
            .unwrap()
    }

    /// Animations to check: every sample MAN, the corpus MAN if present, synthesized ones above
    /// and below the table threshold, and degenerate position ranges (codes written raw).
    fn animations() -> Vec<(String, Man)> {
        let mut out = Vec::new();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(root.join("samples")).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "MAN") {
                let man = Man::decode(&std::fs::read(&path).unwrap()).unwrap();
                out.push((path.display().to_string(), man));
            }
        }
        if let Some(data) = crate::testing::corpus_file("zengin/G1_HUMANS-S_FISTRUN.MAN") {
            out.push(("corpus FISTRUN".into(), Man::decode(&data).unwrap()));
        }
        out.push(("synth 7x20".into(), synthesize(&Synth::new("A", 7, 20))));
        let big = synthesize(&Synth::new("B", 30, 200));
        for (min, scale) in [(0.0f32, 0.0f32), (1e30, 1e30), (-1.5, 0.001)] {
            let mut man = big.clone();
            let h = header_mut(&mut man);
            h.position_min = F32::new(min);
            h.position_scale = F32::new(scale);
            out.push((format!("synth 30x200 min {min} scale {scale}"), man));
        }
        out.push(("synth 30x200".into(), big));
        out
    }

    /// The sample line the exporter writes, composed from per-value texts as the module docs
    /// claim.
    fn composed_line(c: &[u16; 6], min: f32, scale: f32) -> String {
        let text = |v: f32| {
            let mut s = String::new();
            write_f32(&mut s, F32::new(v));
            s
        };
        let r = quant::unpack_rotation([c[0], c[1], c[2]]);
        let rot = r.map(text).join(", ");
        let p = [c[3], c[4], c[5]];
        let exact = p.iter().all(|&p| {
            quant::exact_position_code(quant::unpack_position(p, min, scale), min, scale) == Some(p)
        });
        if exact {
            let pos = p
                .map(|p| text(quant::unpack_position(p, min, scale)))
                .join(", ");
            format!("{{rotation: [{rot}], position: [{pos}]}}")
        } else {
            format!(
                "{{rotation: [{rot}], position_code: [{}, {}, {}]}}  # {}",
                p[0],
                p[1],
                p[2],
                super::super::yaml_render::RAW_POSITION_NOTE
            )
        }
    }

    fn range(man: &Man) -> (f32, f32) {
        man.header().map_or((0.0, 0.0), |h| {
            (h.position_min.get(), h.position_scale.get())
        })
    }

    /// The exporter is compositional: every sample line of the real document is the frame text
    /// around the per-value texts.
    #[test]
    #[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
    fn every_rendered_sample_line_is_its_values_texts() {
        for (name, man) in animations() {
            let text = yaml::to_yaml(&man).unwrap();
            let (min, scale) = range(&man);
            let codes = &man.samples().unwrap().codes;
            let lines: Vec<&str> = text
                .lines()
                .filter(|l| l.contains("{rotation: ["))
                .map(|l| &l[l.find('{').unwrap()..])
                .collect();
            assert_eq!(lines.len(), codes.len(), "{name}");
            for (line, c) in lines.iter().zip(codes) {
                assert_eq!(*line, composed_line(c, min, scale), "{name}");
            }
        }
    }

    /// The reader is compositional: the fast reader's blocks of the real document, read with
    /// the structure document, give the model the whole document gives, and so does the
    /// structure with the blocks of proved codes; the bytes are the ordinary round trip's.
    #[test]
    #[cfg_attr(missing = "corpus", ignore = "needs ../shared/corpus")]
    fn blocks_structure_and_bytes_equal_the_ordinary_round_trip() {
        for (name, man) in animations() {
            let text = yaml::to_yaml(&man).unwrap();
            let (_, fast_blocks) = yaml_fast::split(&text).unwrap();
            assert_eq!(fast_blocks.len(), 1, "{name}");
            let (min, scale) = range(&man);
            let rot = fresh_rotation_proofs();
            let x = man.samples().unwrap();
            let proved = block(x, min, scale, write_f32, &rot, &mut Memo::new()).unwrap();
            let ordinary = yaml::from_yaml(&text, &ImportOptions::default()).unwrap();
            let structure = to_yaml_placeholders(&man).unwrap();
            let opts = ImportOptions::default();
            let via_text = from_yaml_blocks(&structure, fast_blocks, &opts).unwrap();
            assert_eq!(via_text, ordinary, "{name}");
            let via_proofs = from_yaml_blocks(&structure, vec![proved], &opts).unwrap();
            assert_eq!(via_proofs, ordinary, "{name}");
            let mut expected = Vec::new();
            Codec::encode(&ordinary, &mut expected).unwrap();
            assert_eq!(yaml_round_trip(&man), Some(expected.clone()), "{name}");
            assert_eq!(fresh(&man, write_f32), Some(expected.clone()), "{name}");
            // Every animation here round-trips.
            let mut original = Vec::new();
            Codec::encode(&man, &mut original).unwrap();
            assert_eq!(expected, original, "{name}");
        }
    }

    /// A rendering that writes one rotation code, one w or one position as another value's
    /// text is not proved, so verify takes the ordinary path (which then reports the change).
    #[test]
    fn a_corrupted_value_rendering_is_caught() {
        let man = synthesize(&Synth::new("C", 30, 200));
        let mut original = Vec::new();
        Codec::encode(&man, &mut original).unwrap();
        assert_eq!(fresh(&man, write_f32), Some(original.clone()));
        let c = man.samples().unwrap().codes[150];
        let (min, scale) = range(&man);
        let r = quant::unpack_rotation([c[0], c[1], c[2]]);
        let p = quant::unpack_position(c[4], min, scale);
        // The victim value is written as another value's text.
        thread_local!(static VICTIM: std::cell::Cell<(u32, f32)> = const { std::cell::Cell::new((0, 0.0)) });
        fn corrupt(out: &mut String, v: F32) {
            let (bits, other) = VICTIM.with(|c| c.get());
            write_f32(out, if v.0 == bits { F32::new(other) } else { v });
        }
        let step = quant::ROT_SCALE * 3.0;
        for (what, victim, other) in [
            ("rotation x", r[0], r[0] + step),
            ("w", r[3], f32::from_bits(r[3].to_bits() - 1)),
            ("position y", p, p + scale * 7.0),
        ] {
            VICTIM.with(|c| c.set((victim.to_bits(), other)));
            assert_eq!(fresh(&man, corrupt), None, "{what}: corruption not caught");
        }
        // A text that would change how a line is cut is not proved either.
        fn comma(out: &mut String, v: F32) {
            write_f32(out, v);
            out.push(',');
        }
        assert_eq!(fresh(&man, comma), None);
    }
}
