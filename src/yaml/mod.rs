//! YAML for people: a streaming emitter that writes block style with every short value on one
//! line (`{rotation: [...], position: [...]}`), and the parsing entry point with line/column
//! errors.
//!
//! serde-saphyr reads our documents (streaming, with budgets: [`read`]); writing needs flow
//! style for chosen values and the 50 MB/s the MAN export needs, so the writing side is here.

mod emit;
pub mod fast;
pub mod locate;
pub mod read;
pub mod split;

pub use read::{from_str, from_str_seed, options, MAX_DEPTH};

pub use emit::{append_to_string, to_string, to_string_with_capacity, write_str, EmitError};

use serde::{Serialize, Serializer};

pub use crate::exact::RAW_SCALAR;
/// Newtype-struct name of a comment: in a block mapping it becomes a `# text` line, in a
/// one-line value a trailing `  # text`. Other serialisers see a plain string.
pub const COMMENT: &str = "$animkit::comment";

/// Newtype-struct name of a pre-rendered one-line flow value (`{a: [1, 2]}`), written as it is.
/// The text may end in [`RAW_FLOW_COMMENT`] followed by a comment for the value. Used where a
/// format renders many small values itself (in parallel) for speed.
pub const RAW_FLOW: &str = "$animkit::raw_flow";
/// Separates a [`RAW_FLOW`] text from its comment.
pub const RAW_FLOW_COMMENT: char = '\0';

/// Newtype-struct name of pre-rendered block lines (each ending in `\n`, without indentation,
/// e.g. `- {rotation: [..]}\n`): the emitter indents and copies them. Always block style.
pub const RAW_BLOCK: &str = "$animkit::raw_block";

/// Pre-rendered block lines (see [`RAW_BLOCK`]).
pub struct RawBlock<'a>(pub &'a str);

impl Serialize for RawBlock<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(RAW_BLOCK, self.0)
    }
}

/// A pre-rendered flow value (see [`RAW_FLOW`]).
pub struct RawFlow<'a>(pub &'a str);

impl Serialize for RawFlow<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(RAW_FLOW, self.0)
    }
}

/// A YAML comment as a struct field (`#[serde(skip_deserializing)]` it on the reading side).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comment(pub String);

impl Comment {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for Comment {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(COMMENT, &self.0)
    }
}

/// `text` without a leading UTF-8 byte order mark (Notepad and PowerShell write one).
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// A YAML file's bytes as text: UTF-8 (a byte order mark is dropped later), or why not:
/// UTF-16 and UTF-32 files (by their byte order mark, or the zero bytes of ASCII text in
/// them) are named as such. A file whose lines end in CR alone (classic Mac OS) is read
/// with LF line ends, so its lines and columns are right.
pub fn decode_text(bytes: &[u8]) -> Result<std::borrow::Cow<'_, str>, String> {
    wide_text(bytes)?;
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
    if text.contains('\r') && !text.contains('\n') {
        return Ok(std::borrow::Cow::Owned(text.replace('\r', "\n")));
    }
    Ok(std::borrow::Cow::Borrowed(text))
}

/// [`decode_text`] (the same text or the same message) of a large file's pages, checked a
/// megabyte at a time with each checked part handed to `release` (a mapped file drops its
/// pages: they come back as the document is read, so the check does not hold the whole file
/// resident at once). The rare cases, an invalid byte or a file whose lines end in CR alone,
/// are left to [`decode_text`].
pub fn decode_text_releasing<'a>(
    bytes: &'a [u8],
    release: &dyn Fn(&[u8]),
) -> Result<std::borrow::Cow<'a, str>, String> {
    const PART: usize = 1 << 20;
    wide_text(bytes)?;
    let (mut at, mut cr, mut lf) = (0, false, false);
    while at < bytes.len() {
        let end = (at + PART).min(bytes.len());
        // (valid parts, the usual case, checked by simdutf8 (a dependency through
        // encoding_rs already): SIMD steps, about a quarter of the standard check's
        // instructions, on the thread that must finish it before the document is read; a
        // part it refuses is looked at by the standard check, which says where and why)
        if simdutf8::basic::from_utf8(&bytes[at..end]).is_ok() {
            let part = &bytes[at..end];
            lf = lf || memchr::memchr(b'\n', part).is_some();
            cr = cr || memchr::memchr(b'\r', part).is_some();
            release(part);
            at = end;
            continue;
        }
        let upto = match std::str::from_utf8(&bytes[at..end]) {
            Ok(_) => end,
            // (a character cut at the part's end: it starts the next part)
            Err(e) if e.error_len().is_none() && end < bytes.len() && e.valid_up_to() > 0 => {
                at + e.valid_up_to()
            }
            Err(_) => return decode_text(bytes),
        };
        let part = &bytes[at..upto];
        lf = lf || memchr::memchr(b'\n', part).is_some();
        cr = cr || memchr::memchr(b'\r', part).is_some();
        release(part);
        at = upto;
    }
    if cr && !lf {
        return decode_text(bytes);
    }
    // SAFETY: every byte of `bytes` was checked as UTF-8 above, part after part, each part
    // ending at a character boundary.
    Ok(std::borrow::Cow::Borrowed(unsafe {
        std::str::from_utf8_unchecked(bytes)
    }))
}

/// A YAML file's bytes on their way to being text. The usual path ([`FileText::str`]) is
/// [`decode_text_releasing`]'s: the whole file checked (its pages dropped part by part), the
/// text or the message cached. A reader that goes through the bytes anyway may instead check
/// each part as it reads it ([`FileText::bytes`], e.g. [`split::read_pieces`]), which touches
/// each page once instead of twice; it must check every byte it gives a meaning to, and on
/// any failure leave the document to [`FileText::str`] (its value, or its message).
pub struct FileText<'a> {
    bytes: &'a [u8],
    release: &'a dyn Fn(&[u8]),
    whole: std::cell::OnceCell<Result<std::borrow::Cow<'a, str>, String>>,
}

impl<'a> FileText<'a> {
    /// A file's bytes, not yet checked as UTF-8 (a UTF-16 or UTF-32 file is refused now, by
    /// its first bytes); `release` may drop pages of parts checked or read.
    pub fn of_bytes(bytes: &'a [u8], release: &'a dyn Fn(&[u8])) -> Result<FileText<'a>, String> {
        wide_text(bytes)?;
        Ok(FileText {
            bytes,
            release,
            whole: std::cell::OnceCell::new(),
        })
    }

    /// Text already checked.
    pub fn of_str(text: &'a str) -> FileText<'a> {
        FileText {
            bytes: text.as_bytes(),
            release: &|_| {},
            whole: std::cell::OnceCell::from(Ok(std::borrow::Cow::Borrowed(text))),
        }
    }

    /// The whole document as [`decode_text`] gives it (checked on the first call).
    pub fn str(&self) -> Result<&str, String> {
        match self
            .whole
            .get_or_init(|| decode_text_releasing(self.bytes, self.release))
        {
            Ok(t) => Ok(t),
            Err(e) => Err(e.clone()),
        }
    }

    /// The file's bytes, checked or not (see the type).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether [`FileText::str`] was asked for (the whole file checked, or refused).
    pub fn checked_whole(&self) -> bool {
        self.whole.get().is_some()
    }

    /// [`document_tag`] of the document, found without checking the whole file when its
    /// `format:` line is a UTF-8 line of the file as it is (the usual case); otherwise that
    /// of [`FileText::str`]'s text (its message first).
    pub fn tag(&self) -> Result<Option<&str>, String> {
        if !self.checked_whole() {
            let b = self
                .bytes
                .strip_prefix(b"\xEF\xBB\xBF")
                .unwrap_or(self.bytes);
            for line in b.split(|&c| c == b'\n') {
                if line.starts_with(b"format:") {
                    if let Ok(line) = std::str::from_utf8(line) {
                        return Ok(document_tag(line));
                    }
                    break;
                }
            }
        }
        Ok(document_tag(self.str()?))
    }
}

/// Why `bytes` is not UTF-8 text when they are UTF-16 or UTF-32 (by their byte order mark,
/// or the zero bytes of ASCII text in them).
fn wide_text(bytes: &[u8]) -> Result<(), String> {
    let wide = |name: &str| {
        Err(format!(
            "is {name} text; animkit reads YAML as UTF-8 (save it as UTF-8)"
        ))
    };
    if bytes.starts_with(&[0xFF, 0xFE, 0, 0]) || (bytes.len() >= 4 && bytes[1..4] == [0, 0, 0]) {
        return wide("UTF-32 (little-endian)");
    }
    if bytes.starts_with(&[0, 0, 0xFE, 0xFF]) || (bytes.len() >= 4 && bytes[..3] == [0, 0, 0]) {
        return wide("UTF-32 (big-endian)");
    }
    if bytes.starts_with(&[0xFF, 0xFE]) || (bytes.len() >= 2 && bytes[0] != 0 && bytes[1] == 0) {
        return wide("UTF-16 (little-endian)");
    }
    if bytes.starts_with(&[0xFE, 0xFF]) || (bytes.len() >= 2 && bytes[0] == 0 && bytes[1] != 0) {
        return wide("UTF-16 (big-endian)");
    }
    Ok(())
}

/// The value of the top-level `format:` key, found without parsing the whole document.
/// Animkit writes it first; a document whose keys another tool sorted (PyYAML's default dump
/// puts `format:` after `chunks:`) has it further down, as a top-level line all the same.
pub fn document_tag(text: &str) -> Option<&str> {
    for line in strip_bom(text).lines() {
        if let Some(rest) = line.strip_prefix("format:") {
            let v = rest.split(['#', '\r']).next().unwrap_or("").trim();
            return Some(v.trim_matches(|c| c == '"' || c == '\''));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's tag found without checking the whole file is the tag of its decoded text,
    /// or the whole file's message when it has none to find (a tag on a line that is not
    /// UTF-8, CR-only line ends, no tag at all).
    #[test]
    fn a_texts_tag_is_that_of_the_decoded_text() {
        let release = |_: &[u8]| {};
        // (the file, its tag or message, whether the whole file was checked to find it)
        type Case<'a> = (&'a [u8], Result<Option<&'a str>, &'a str>, bool);
        let cases: [Case; 7] = [
            (
                b"format: mw3.anim\nversion: 1\n",
                Ok(Some("mw3.anim")),
                false,
            ),
            (
                b"\xEF\xBB\xBFversion: 1\r\nformat: 'zengin.man'  # x\r\n",
                Ok(Some("zengin.man")),
                false,
            ),
            (b"a: \xFF\nformat: x\n", Ok(Some("x")), false),
            (
                b"a: 1\nformat: \xFF\n",
                Err("not UTF-8 text: invalid utf-8 sequence of 1 bytes from index 13"),
                true,
            ),
            (b"a: 1\rformat: y\r", Ok(Some("y")), true),
            (b"format: z\ra: 1\r", Ok(Some("z")), false),
            (b"a: 1\n", Ok(None), true),
        ];
        for (bytes, want, whole) in cases {
            let t = FileText::of_bytes(bytes, &release).unwrap();
            assert_eq!(t.tag(), want.map_err(String::from), "{bytes:?}");
            assert_eq!(t.checked_whole(), whole, "{bytes:?}");
            if let Ok(text) = decode_text(bytes) {
                assert_eq!(t.tag().unwrap(), document_tag(&text), "{bytes:?}");
            }
        }
    }

    #[test]
    fn decoding_a_large_text_in_parts_gives_decode_texts_text_or_message() {
        // (a two-, three- and four-byte character across every part boundary, CRLF, CR alone,
        // invalid bytes early and late, a cut character at the end, the wide encodings)
        let mb = 1 << 20;
        let line = "key: välue ✓ 𝄞 end\n";
        let mut base = String::new();
        while base.len() < 3 * mb + 100 {
            base.push_str(line);
        }
        let mut cases: Vec<Vec<u8>> = vec![
            base.clone().into_bytes(),
            base.replace('\n', "\r\n").into_bytes(),
            base.replace('\n', "\r").into_bytes(),
            b"a: 1\n".to_vec(),
        ];
        for shift in 0..4 {
            cases.push(format!("{}{base}", "x".repeat(shift)).into_bytes());
        }
        for at in [10, mb - 1, mb, 2 * mb + 1, base.len() - 1] {
            let mut bad = base.clone().into_bytes();
            bad[at] = 0xFF;
            cases.push(bad);
        }
        let mut cut = base.clone().into_bytes();
        cut.extend_from_slice(&"𝄞".as_bytes()[..2]);
        cases.push(cut);
        let mut utf16 = vec![0xFF, 0xFE];
        utf16.extend(base.encode_utf16().take(mb).flat_map(u16::to_le_bytes));
        cases.push(utf16);
        for (i, bytes) in cases.iter().enumerate() {
            let released = std::cell::Cell::new(0);
            let parts = decode_text_releasing(bytes, &|p| {
                assert!(p.len() <= mb);
                released.set(released.get() + p.len());
            });
            let whole = decode_text(bytes);
            assert_eq!(parts, whole, "case {i}");
            if let (Ok(t), Ok(std::borrow::Cow::Borrowed(_))) = (&parts, &whole) {
                // (every byte of a text read as stored was checked and released)
                assert_eq!(released.get(), bytes.len(), "case {i}");
                assert!(matches!(t, std::borrow::Cow::Borrowed(_)), "case {i}");
            }
        }
    }
}
