//! Reading a large document on every core: the long block sequence under one top-level key is
//! cut at its entries, and the fast reader ([`super::fast`]) reads the pieces in parallel.
//!
//! The pieces are the sequence's own lines: each is a document holding a block sequence at
//! column 0 (an entry starts at a line `- ...` at column 0, the only lines at column 0 inside
//! such a sequence besides comments). The rest of the document is read with the key's value
//! written as `[]`. Every piece is read with the nesting it has in the whole document, and a
//! piece is accepted only when it is exactly a sequence of whole entries, so the value is the
//! one the whole document gives. If any piece is outside the fast reader's subset, the whole
//! document is read the usual way ([`super::read::from_str`]): values, errors and budgets are
//! then that path's.

use crate::exact::YamlError;
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Documents shorter than this are read in one piece (a thread pool costs more than it saves).
pub const SPLIT_MIN: usize = 1 << 20;

/// How far back from a piece's end the text handed on as done with it reaches (see
/// [`read_pieces`]): far more than a page-cache folio (2 MB) plus the pieces read ahead.
const DONE_BACK_BYTES: usize = 64 << 20;

/// Pieces shorter than this are not cut further.
const PIECE_MIN: usize = 256 << 10;

/// The usual length of a piece of a long document.
const PIECE_SIZE: usize = 256 << 10;

/// The text done with is handed on (see [`read_pieces`]) once this much more of it is, and
/// at the end: each hand-on may be a system call that walks the part's page table and stops
/// every other thread of the process to flush its address cache, and handing on each piece
/// took about 1 % of an 18 MB MW3 import's CPU time (the pages held meanwhile: at most this).
const HAND_BACK_EVERY: usize = 2 << 20;

/// A worker starts a piece only when fewer than this many pieces per worker are read ahead
/// of the first one not yet handed on (a worker slowed down, e.g. by other processes on its
/// core, would otherwise let the others run ahead, their results and pages held meanwhile).
const AHEAD_PER_WORKER: usize = 2;

/// Read `text` as `D`, reading the block sequence of `Item`s under the top-level `key` in
/// parallel pieces when the document is large; `items` gives `D`'s field that holds it.
pub fn from_str_split<D, Item>(
    text: &str,
    key: &str,
    items: fn(&mut D) -> &mut Vec<Item>,
) -> Result<D, YamlError>
where
    D: DeserializeOwned,
    Item: DeserializeOwned + Send,
{
    let mut parts = Vec::new();
    let read = read_pieces(
        &super::FileText::of_str(text),
        key,
        items,
        Some,
        |_: &[u8]| {},
        |_: &D, p, _: &[u8]| {
            parts.push(p);
            Some(())
        },
    );
    if let Some(mut d) = read {
        let all = items(&mut d);
        all.reserve_exact(parts.iter().map(Vec::len).sum());
        for mut p in parts {
            all.append(&mut p);
        }
        return Ok(d);
    }
    super::read::from_str(text)
}

/// Read a large document in pieces (see the module): `touched` gets, once the pieces are
/// cut and before they are read, the sequence's bytes (their pages may be given back: the
/// pieces read them again); `each` gets each piece's items on the thread that read them; `consume` gets, on the calling thread, the document before the
/// sequence (read as `D` with the key's value `[]`), each result of `each` in the sequence's
/// order, as soon as it and those before it are done (so the caller can write them out while
/// later pieces are read), and the part of the text done with (a caller may give its memory
/// back; empty until `HAND_BACK_EVERY` (2 MB) more bytes are done, and at the last piece): the
/// sequence from its start (at most `DONE_BACK_BYTES` back) to the end of that piece, since reading a piece maps a
/// whole page-cache folio (up to megabytes), pages of earlier pieces given back before
/// included. Returns the document without the sequence (`D`,
/// its `items` empty), or `None` (read the document the usual way) when the document is
/// small, the fast reader is off, the document is not in that shape, a piece is outside the
/// fast reader's subset, or `each` or `consume` gives `None` (then `consume` may have had
/// some pieces: the caller discards what it made of them).
///
/// A `text` not yet checked as UTF-8 is checked a piece at a time, each on the thread that
/// reads it (the file's pages touched once, not once to check and again to read): every
/// byte of the document is in the part before the sequence, its key line, a piece, or the
/// rest after it, and each is checked before it is read, so a document read this way is
/// valid text; one that is not gives `None` (the usual read then says why).
pub fn read_pieces<D, Item, R>(
    text: &super::FileText,
    key: &str,
    items: fn(&mut D) -> &mut Vec<Item>,
    each: impl Fn(Vec<Item>) -> Option<R> + Sync,
    touched: impl Fn(&[u8]),
    consume: impl FnMut(&D, R, &[u8]) -> Option<()>,
) -> Option<D>
where
    D: DeserializeOwned,
    Item: DeserializeOwned + Send,
    R: Send,
{
    // (the text as checked already, if it was: its pieces need no check of their own)
    let (bytes, checked) = match text.checked_whole() {
        true => {
            let t = super::strip_bom(text.str().ok()?);
            (t.as_bytes(), Some(t))
        }
        false => {
            let b = text.bytes();
            (b.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(b), None)
        }
    };
    let text = Source { bytes, checked };
    // (also on one thread, e.g. under `taskset -c 0`: the output is still written as the
    // document is read, instead of the whole model being built first: 128 MB → 67 MB peak
    // for an 18 MB MW3 document)
    let threads = rayon::current_num_threads();
    if text.bytes.len() < SPLIT_MIN || !super::read::fast_reader_on() {
        return None;
    }
    // (pieces of about PIECE_SIZE: each thread holds the items of one piece at a time)
    let pieces = (threads * 2).max(text.bytes.len() / PIECE_SIZE);
    read_in_pieces(
        text,
        key,
        items,
        each,
        touched,
        consume,
        pieces,
        HAND_BACK_EVERY,
    )
}

/// A document's bytes without a byte order mark, and the same as text when it was checked
/// whole already.
#[derive(Clone, Copy)]
struct Source<'a> {
    bytes: &'a [u8],
    checked: Option<&'a str>,
}

impl<'a> Source<'a> {
    /// The text of `range`, checked here unless the whole was (`None`: not UTF-8, or not on
    /// character boundaries).
    fn text(self, range: std::ops::Range<usize>) -> Option<&'a str> {
        match self.checked {
            Some(t) => t.get(range),
            // (simdutf8: SIMD steps, about a quarter of the standard check's instructions;
            // its refusal is the standard check's)
            None => simdutf8::basic::from_utf8(self.bytes.get(range)?).ok(),
        }
    }
}

#[cfg(test)]
impl<'a> From<&'a str> for Source<'a> {
    fn from(t: &'a str) -> Self {
        Source {
            bytes: t.as_bytes(),
            checked: Some(t),
        }
    }
}

/// [`read_pieces`] of a document in at most `pieces` pieces, the text done with handed on
/// every `hand_back_every` bytes.
#[allow(clippy::too_many_arguments)]
fn read_in_pieces<D, Item, R>(
    text: Source,
    key: &str,
    items: fn(&mut D) -> &mut Vec<Item>,
    each: impl Fn(Vec<Item>) -> Option<R> + Sync,
    touched: impl Fn(&[u8]),
    mut consume: impl FnMut(&D, R, &[u8]) -> Option<()>,
    pieces: usize,
    hand_back_every: usize,
) -> Option<D>
where
    D: DeserializeOwned,
    Item: DeserializeOwned + Send,
    R: Send,
{
    let bytes = text.bytes;
    let (key_line, body) = key_line(bytes, key)?;
    let rest_of = |after: &str| {
        let mut rest = String::with_capacity(key_line + key.len() + 5 + after.len());
        rest.push_str(text.text(0..key_line)?);
        rest.push_str(key);
        rest.push_str(": []\n");
        rest.push_str(after);
        let mut d: D = super::fast::from_str(&rest)?;
        // (a non-empty value: the rest named the key twice, a duplicate the usual read reports)
        items(&mut d).is_empty().then_some(d)
    };
    let before = rest_of("")?;
    let cuts = cuts(bytes, body, pieces, &touched);
    // (finding the cuts touched a page at each, and the system maps a whole page-cache folio
    // per touch, up to megabytes: the whole file, for a file just written)
    touched(bytes.get(body..)?);
    // (the last piece runs to the end of the text; the sequence's real end is where the fast
    // reader finds it, and the rest of the document follows from there)
    let mut ranges: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
    ranges.push((*cuts.last()?, bytes.len()));
    let last = ranges.len() - 1;
    let failed = AtomicBool::new(false);
    // (how many items the last piece read held: the next one's vector is made with room for
    // as many, pieces being of about one length, instead of growing (and moving) from empty;
    // a count of items really read, never one the text claims)
    let last_items = AtomicUsize::new(0);
    let read_one = |i: usize, (a, b): (usize, usize)| {
        if failed.load(Ordering::Relaxed) {
            return None;
        }
        let room = last_items.load(Ordering::Relaxed);
        // (the sequence stands inside the root mapping: one level deep)
        // (a piece starts at a `-` and ends before one, or at the end: ASCII, so on
        // character boundaries of a valid text)
        let (v, end) = super::fast::read_piece_vec::<Item>(text.text(a..b)?, 1, i != last, room)?;
        last_items.store(v.len(), Ordering::Relaxed);
        Some((each(v)?, a + end))
    };
    let mut seq_end = body;
    // (how many pieces were handed on and how many workers wait for that to grow, and their
    // wake-up: a wake-up only when one waits, a system call per piece saved otherwise)
    let handed = (
        std::sync::Mutex::new((0usize, 0usize)),
        std::sync::Condvar::new(),
    );
    let hand_on = |n: usize| {
        let waiting = match handed.0.lock() {
            Ok(mut h) => {
                h.0 = n;
                h.1 > 0
            }
            Err(_) => true,
        };
        if waiting {
            handed.1.notify_all();
        }
    };
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        let ranges = &ranges;
        let read_one = &read_one;
        // (the pieces are read on the pool while this thread hands the results on in order;
        // each worker takes the next piece in document order, so the results waiting for an
        // earlier one are at most one per worker: a split in halves would keep the second
        // half's results until the first half is done)
        let next_piece = AtomicUsize::new(0);
        let workers = rayon::current_num_threads().min(ranges.len()).max(1);
        let ahead = workers * AHEAD_PER_WORKER;
        let (handed, failed) = (&handed, &failed);
        scope.spawn(move || {
            (0..workers)
                .into_par_iter()
                .for_each_with(tx, |tx, _| loop {
                    let i = next_piece.fetch_add(1, Ordering::Relaxed);
                    let Some(&r) = ranges.get(i) else {
                        break;
                    };
                    // (wait until the pieces before are handed on far enough; the thread
                    // handing them on wakes the workers after each, and when it gives up)
                    let (lock, turn) = handed;
                    let far = |h: &mut (usize, usize)| {
                        i >= h.0 + ahead && !failed.load(Ordering::Relaxed)
                    };
                    if let Ok(mut g) = lock.lock() {
                        if far(&mut g) {
                            g.1 += 1;
                            if let Ok(mut g) = turn.wait_while(g, far) {
                                g.1 -= 1;
                            }
                        }
                    }
                    // (a closed channel: this thread gave up already)
                    if tx.send((i, read_one(i, r))).is_err() {
                        break;
                    }
                })
        });
        let mut waiting: Vec<Option<(R, usize)>> = (0..ranges.len()).map(|_| None).collect();
        let (mut next, mut handed_back) = (0, body);
        for (i, r) in rx {
            if failed.load(Ordering::Relaxed) {
                continue;
            }
            let Some(r) = r else {
                failed.store(true, Ordering::Relaxed);
                hand_on(next);
                continue;
            };
            waiting[i] = Some(r);
            while let Some((v, end)) = waiting.get_mut(next).and_then(Option::take) {
                seq_end = end;
                // (the sequence from its start up to this piece's end: a worker's first touch
                // of a page maps the whole page-cache folio around it, up to megabytes, pages
                // given back before included; a window of a few pieces behind this one let
                // such pages pile up, 18 of a just-written 18 MB document's megabytes by its
                // end. Pages given back already cost a walk over their empty entries, so the
                // part starts at most DONE_BACK_BYTES before the piece's end: a walk per piece
                // that does not grow with the document.)
                let piece = ranges.get(next).and_then(|&(_, b)| {
                    if b < handed_back + hand_back_every && next != last {
                        return None;
                    }
                    handed_back = b;
                    let from = body.max(b.saturating_sub(DONE_BACK_BYTES));
                    bytes.get(from..b)
                });
                next += 1;
                if consume(&before, v, piece.unwrap_or_default()).is_none() {
                    failed.store(true, Ordering::Relaxed);
                    break;
                }
                hand_on(next);
            }
            if failed.load(Ordering::Relaxed) {
                hand_on(next);
            }
        }
    });
    if failed.load(Ordering::Relaxed) {
        return None;
    }
    // (nothing but blank lines after the sequence: the document before it, as read at the
    // start, is the rest; read again, a long part before the sequence (a manifest's catalog)
    // was held twice at the end, beside everything the caller built)
    let after = text.text(seq_end..bytes.len())?;
    let d = match after.trim().is_empty() {
        true => before,
        false => rest_of(after)?,
    };
    super::read::count_fast_read();
    Some(d)
}

/// The offset of the line `key:` at column 0 (nothing else on it) and of the line after it.
pub(crate) fn key_line(b: &[u8], key: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    loop {
        let at = from + memchr::memmem::find(&b[from..], key.as_bytes())?;
        let after = at + key.len();
        let line_start = at == 0 || b[at - 1] == b'\n';
        if line_start && b.get(after) == Some(&b':') {
            return match (b.get(after + 1), b.get(after + 2)) {
                (Some(b'\n'), _) => Some((at, after + 2)),
                (Some(b'\r'), Some(b'\n')) => Some((at, after + 3)),
                _ => None,
            };
        }
        from = after;
    }
}

/// Where to cut the sequence that starts at `body`: `body` itself, then at most `pieces - 1`
/// entry starts (`- ` at column 0), evenly spread by length.
fn cuts(b: &[u8], body: usize, pieces: usize, touched: &dyn Fn(&[u8])) -> Vec<usize> {
    let len = b.len() - body;
    let pieces = pieces.min(len / PIECE_MIN).max(1);
    let mut cuts = vec![body];
    let finder = memchr::memmem::Finder::new(b"\n- ");
    for j in 1..pieces {
        let from = body + len * j / pieces;
        let Some(at) = finder.find(&b[from..]) else {
            break;
        };
        let cut = from + at + 1;
        if cut > *cuts.last().unwrap_or(&0) {
            cuts.push(cut);
        }
        // (the search mapped the folio around the cut, up to megabytes: all of it before the
        // cut goes back now, so the search never holds the whole text)
        touched(b.get(body..cut).unwrap_or_default());
    }
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Doc {
        format: String,
        #[serde(default)]
        list: Vec<Item>,
        #[serde(default)]
        after: Option<u32>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Item {
        name: String,
        value: u16,
        #[serde(default)]
        tags: Vec<String>,
    }

    fn doc(n: usize, tail: &str) -> String {
        let mut s = String::from("format: t\nlist:\n");
        for i in 0..n {
            if i % 3 == 0 {
                s += &format!("- name: n{i}\n  value: {}\n  tags: [a, b]\n", i % 60000);
            } else {
                s += &format!("- {{name: n{i}, value: {}}}\n# between\n", i % 60000);
            }
        }
        s + tail
    }

    fn split(text: &str, pieces: usize) -> Option<Doc> {
        split_of(text.into(), pieces)
    }

    fn split_of(text: Source, pieces: usize) -> Option<Doc> {
        let mut parts = Vec::new();
        let consume = |before: &Doc, p: Vec<Item>, _: &[u8]| {
            assert_eq!((before.format.as_str(), before.list.len()), ("t", 0));
            parts.push(p);
            Some(())
        };
        let mut d = read_in_pieces(
            text,
            "list",
            |d: &mut Doc| &mut d.list,
            Some,
            |_: &[u8]| {},
            consume,
            pieces,
            0,
        )?;
        d.list = parts.into_iter().flatten().collect();
        Some(d)
    }

    #[test]
    fn the_pieces_give_the_whole_documents_value() {
        for tail in [
            "",
            "\n\n",
            "# only a comment\n",
            "after: 7\n",
            "# end\n\nafter: 8\n",
        ] {
            let text = doc(60_000, tail);
            let whole: Doc = crate::yaml::from_str(&text).unwrap();
            assert_eq!(whole.list.len(), 60_000);
            assert_eq!(whole.list[59_999].name, "n59999");
            for pieces in [1, 2, 3, 8] {
                let cuts = cuts(text.as_bytes(), text.find("- ").unwrap(), pieces, &|_| {});
                assert_eq!(cuts.len(), pieces.min(text.len() / PIECE_MIN), "{pieces}");
                assert_eq!(
                    split(&text, pieces).as_ref(),
                    Some(&whole),
                    "{pieces} {tail:?}"
                );
            }
        }
    }

    #[test]
    fn the_text_handed_back_runs_from_the_sequences_start() {
        // (a touch maps a whole page-cache folio, pages given back before included: each part
        // handed back starts where the sequence starts, so none is left mapped behind)
        let text = doc(60_000, "after: 7\n");
        let body = text.find("- ").unwrap();
        let offset = |s: &[u8]| s.as_ptr() as usize - text.as_ptr() as usize;
        let touched = std::cell::RefCell::new(Vec::new());
        let cuts = cuts(text.as_bytes(), body, 8, &|s| {
            touched.borrow_mut().push((offset(s), s.len()))
        });
        let touched = touched.into_inner();
        assert_eq!(touched.len(), 7);
        for (&(at, len), &cut) in touched.iter().zip(&cuts[1..]) {
            assert_eq!((at, at + len), (body, cut));
        }
        let hand_back = |every: usize| {
            let mut handed = Vec::new();
            let d = read_in_pieces(
                text.as_str().into(),
                "list",
                |d: &mut Doc| &mut d.list,
                |v: Vec<Item>| Some(v.len()),
                |_: &[u8]| {},
                |_: &Doc, n: usize, part: &[u8]| {
                    let at = if part.is_empty() { 0 } else { offset(part) };
                    handed.push((at, part.len(), n));
                    Some(())
                },
                8,
                every,
            )
            .unwrap();
            assert_eq!(d.after, Some(7));
            assert_eq!(handed.len(), 8);
            assert_eq!(handed.iter().map(|h| h.2).sum::<usize>(), 60_000);
            // (the parts handed on: those not empty)
            let parts: Vec<(usize, usize)> = handed
                .iter()
                .filter(|h| h.1 > 0)
                .map(|&(at, len, _)| (at, at + len))
                .collect();
            assert!(parts.iter().all(|&(at, _)| at == body), "{handed:?}");
            parts.into_iter().map(|p| p.1).collect::<Vec<usize>>()
        };
        // every piece's end, or every one at least `every` bytes after the last one handed on
        let ends = hand_back(0);
        assert_eq!(ends[..7], cuts[1..]);
        assert_eq!(ends[7], text.len());
        let every = (cuts[3] - cuts[0]) - 1;
        let (mut want, mut from) = (Vec::new(), body);
        for &end in cuts[1..].iter().chain([&text.len()]) {
            if end >= from + every || end == text.len() {
                want.push(end);
                from = end;
            }
        }
        assert_eq!(want[0], cuts[3]);
        assert!(want.len() < 5, "{want:?}");
        assert_eq!(hand_back(every), want);
    }

    #[test]
    fn a_text_not_yet_checked_is_checked_a_piece_at_a_time() {
        // (the same value from bytes not yet checked as from the text; an invalid byte in
        // the part before the sequence, in any piece or after it gives no value (the whole
        // read then says why), and so does a document with one whose byte order mark is
        // then stripped)
        let text = doc(
            60_000,
            "after: 7
",
        );
        let whole = split(&text, 8).unwrap();
        let unchecked = |b: &[u8]| {
            split_of(
                Source {
                    bytes: b,
                    checked: None,
                },
                8,
            )
        };
        assert_eq!(unchecked(text.as_bytes()).as_ref(), Some(&whole));
        let cuts = cuts(text.as_bytes(), text.find("- ").unwrap(), 8, &|_| {});
        for at in [3, cuts[0] + 5, cuts[1] - 1, cuts[4] + 9, text.len() - 3] {
            let mut bad = text.clone().into_bytes();
            bad[at] = 0xFF;
            assert_eq!(unchecked(&bad), None, "{at}");
            bad[at] = 0xC3; // a character cut short
            assert_eq!(unchecked(&bad), None, "{at}");
        }
        // through `read_pieces`, a byte order mark and all
        let with_bom = format!("\u{feff}{text}");
        let release = |_: &[u8]| {};
        let t = crate::yaml::FileText::of_bytes(with_bom.as_bytes(), &release).unwrap();
        let mut n = 0;
        let d = read_pieces(
            &t,
            "list",
            |d: &mut Doc| &mut d.list,
            |v: Vec<Item>| Some(v.len()),
            |_: &[u8]| {},
            |_: &Doc, k: usize, _: &[u8]| {
                n += k;
                Some(())
            },
        );
        assert_eq!(d.map(|d| d.after), Some(Some(7)));
        assert_eq!(n, 60_000);
        assert!(!t.checked_whole(), "the whole was not checked first");
    }

    #[test]
    fn a_document_outside_the_shape_is_left_to_the_whole_read() {
        let text = doc(60_000, "");
        // an entry the fast reader does not read (an anchor), in the second half
        let odd = text.replacen("- name: n49998\n", "- name: &a n49998\n", 1);
        assert_ne!(odd, text);
        assert!(split(&odd, 4).is_none());
        // the key twice
        let twice = text.clone() + "list: []\n";
        assert!(split(&twice, 4).is_none());
        let e = from_str_split(&twice, "list", |d: &mut Doc| &mut d.list).unwrap_err();
        assert!(e.message.contains("duplicate"), "{e:?}");
        // an entry that does not fit `Item`: the whole read names it
        let bad = text.replacen("value: 29997\n", "value: 70000\n", 1);
        assert_ne!(bad, text);
        assert!(split(&bad, 4).is_none());
        let e = from_str_split(&bad, "list", |d: &mut Doc| &mut d.list).unwrap_err();
        assert!(e.message.starts_with("list[29997].value: "), "{e:?}");
        // an indented sequence or a key with a comment: not cut
        assert!(key_line(b"format: t\nlist: # c\n- a\n", "list").is_none());
        assert!(key_line(b"format: t\nmylist:\n- a\n", "list").is_none());
        assert_eq!(key_line(b"list:\r\n- a\n", "list"), Some((0, 7)));
        // nesting counts as in the whole document
        let deep = format!(
            "format: t\nlist:\n- name: a\n  value: 1\n  tags: {}a{}\n",
            "[".repeat(98),
            "]".repeat(98)
        );
        assert!(crate::yaml::fast::from_str::<serde::de::IgnoredAny>(&deep).is_none());
        let body = deep.find("- ").unwrap();
        assert!(
            crate::yaml::fast::read_piece::<serde::de::IgnoredAny>(&deep[body..], 1, true)
                .is_none()
        );
        assert!(
            crate::yaml::fast::read_piece::<serde::de::IgnoredAny>(&deep[body..], 0, true)
                .is_some()
        );
    }
}
