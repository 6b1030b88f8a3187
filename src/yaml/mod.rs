//! YAML for people: a streaming emitter that writes block style with every short value on one
//! line (`{rotation: [...], position: [...]}`), and the parsing entry point with line/column
//! errors.
//!
//! serde-saphyr reads our documents (streaming, with budgets: [`read`]); writing needs flow
//! style for chosen values and the 50 MB/s the MAN export needs, so the writing side is here.

mod emit;
pub mod fast;
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

/// The value of the top-level `format:` key, found without parsing the whole document.
/// Animkit writes it first; a document whose keys another tool sorted (PyYAML's default dump
/// puts `format:` after `chunks:`) has it further down, as a top-level line all the same.
pub fn document_tag(text: &str) -> Option<&str> {
    for line in strip_bom(text).lines() {
        if let Some(rest) = line.strip_prefix("format:") {
            let v = rest.split('#').next().unwrap_or("").trim();
            return Some(v.trim_matches(|c| c == '"' || c == '\''));
        }
    }
    None
}
