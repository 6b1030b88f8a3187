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

pub use emit::{to_string, to_string_with_capacity, write_str, EmitError};

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
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 text: {e}"))?;
    if text.contains('\r') && !text.contains('\n') {
        return Ok(std::borrow::Cow::Owned(text.replace('\r', "\n")));
    }
    Ok(std::borrow::Cow::Borrowed(text))
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
