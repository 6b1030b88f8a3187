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

/// One file inside a container: its handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// The container's own handle for it (for [`Archive::read`], [`Archive::stored`] and
    /// [`Archive::name`]).
    pub id: usize,
}

/// Every member of a container, as handles in order; a member's name is asked of the
/// container ([`Archive::name`]) when it is needed, so an archive of 69,000 members keeps 8
/// bytes a member here, not its paths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Members {
    list: Vec<Member>,
}

impl Members {
    /// Room for `n` members.
    pub fn with_capacity(n: usize) -> Self {
        Members {
            list: Vec::with_capacity(n),
        }
    }
    /// Add a member by its handle.
    pub fn push(&mut self, id: usize) {
        self.list.push(Member { id });
    }
    pub fn len(&self) -> usize {
        self.list.len()
    }
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    /// The members, in their order.
    pub fn as_slice(&self) -> &[Member] {
        &self.list
    }
    /// The handle of each member, in order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.list.iter().map(|m| m.id)
    }
    /// Ordered as a folder walk sorted by name lists them (component by component), by the
    /// names `archive` gives (held only while sorting).
    pub fn sort_by_path(&mut self, archive: &dyn Archive) {
        let mut named: Vec<(String, Member)> =
            self.list.iter().map(|&m| (archive.name(m.id), m)).collect();
        named.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
        self.list.clear();
        self.list.extend(named.into_iter().map(|(_, m)| m));
    }
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
    fn members(&self) -> Result<Members, DecodeError>;
    /// A member's contents (inflated when stored compressed; borrowed when stored raw). The
    /// error says why it cannot be read.
    fn read(&self, id: usize) -> Result<Cow<'_, [u8]>, String>;
    /// The bytes of the file that store member `id` (to release them after use).
    fn stored(&self, id: usize) -> &[u8];
    /// Member `id`'s path inside the container, `/`-separated (e.g. `ANIMS/S_RUN.MAN`).
    fn name(&self, id: usize) -> String;
}
