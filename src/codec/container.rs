//! Files that contain other files (a VDF archive today; a package's objects, any later
//! container). A container format declares [`Codec::CONTAINER`](super::Codec::CONTAINER): how
//! to open a file of it *borrowed* (a memory-mapped archive is never copied), list its members
//! and read one. The generic commands then work through members without knowing the format:
//! `verify` checks the container's own structure and then every member, `diff` shows what
//! changed inside changed members, `info` and `export` read the file through the map.

use super::Formats;
use crate::exact::{DecodeError, EncodeError};
use std::borrow::Cow;

/// Which round trip of `verify` failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Binary,
    Yaml,
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stage::Binary => "binary → model → binary",
            Stage::Yaml => "binary → YAML → binary",
        })
    }
}

/// Where a round trip wrote other bytes than it read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mismatch {
    pub stage: Stage,
    /// The first differing offset (or the shorter length).
    pub offset: u64,
    /// How many bytes the round trip wrote.
    pub written_len: u64,
}

/// One file inside a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its path inside the container, `/`-separated (e.g. `ANIMS/S_RUN.MAN`).
    pub name: String,
    /// The container's own handle for it (for [`Archive::read`] and [`Archive::stored`]).
    pub id: usize,
}

/// Which of the two files of a [`Container::diff`] did not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Old,
    New,
}

/// How a container format opens its files (one unit struct per format, named in
/// [`Codec::CONTAINER`](super::Codec::CONTAINER)).
pub trait Container: Send + Sync {
    /// Open the container in `data`, borrowing it (member bytes are read on demand).
    fn open<'a>(&self, data: &'a [u8]) -> Result<Box<dyn Archive + 'a>, DecodeError>;
    /// What changed from `old` to `new`, one line per change; inside a changed member of a
    /// format in `formats`, what changed there too (`MEMBER: change`). Empty when equal.
    fn diff(
        &self,
        old: &[u8],
        new: &[u8],
        formats: Formats,
    ) -> Result<Vec<String>, (Which, DecodeError)>;
    /// Documents the container's tools write beside its members (an unpacked folder's
    /// manifest): (tag, description, schema), for `animkit schema` and `schemas/`.
    fn documents(&self) -> Vec<(&'static str, &'static str, schemars::schema::RootSchema)> {
        Vec::new()
    }
}

/// An opened container, borrowing its file's bytes: a [`Document`](super::Document) (its
/// summary, YAML document, own validation rules), and its members.
pub trait Archive: super::Document {
    /// The container's own round trips (binary → model → binary, binary → YAML → binary), its
    /// output compared with the input as it is written, never held in memory; `release` gets
    /// every compared part of the input (to drop it from memory). The first mismatch, if any.
    fn verify_structure(
        &self,
        release: &(dyn Fn(&[u8]) + Sync),
    ) -> Result<Option<Mismatch>, EncodeError>;
    /// Every member, in the order of the file (an error when the container's index is broken).
    fn members(&self) -> Result<Vec<Member>, DecodeError>;
    /// A member's contents (inflated when stored compressed; borrowed when stored raw). The
    /// error says why it cannot be read.
    fn read(&self, id: usize) -> Result<Cow<'_, [u8]>, String>;
    /// The bytes of the file that store member `id` (to release them after use).
    fn stored(&self, id: usize) -> &[u8];
}
