//! A fast reader for the YAML subset animkit's own emitter writes, tried before serde-saphyr.
//!
//! It is a serde [`Deserializer`](serde::Deserializer) working directly on the document's bytes: no event list, no
//! tree, strings borrowed from the text where no escape needs decoding. It reads block
//! mappings and sequences (indentless sequences too), one-line flow mappings and sequences,
//! plain scalars, one-line single- and double-quoted scalars (the escapes the emitter writes),
//! and comments. The moment it meets anything else (anchors, aliases, tags, block or
//! multi-line scalars, directives, tabs, a scalar whose meaning it does not resolve exactly as
//! serde-saphyr would, a duplicate key, nesting deeper than [`FAST_DEPTH`]) or the target type
//! refuses a value, it gives up ([`Bail`]) and [`super::read::from_str`] reads the whole document
//! again through serde-saphyr, so values, error messages (line:col and field path) and budgets
//! are exactly that reader's. A document this reader accepts is one serde-saphyr accepts with
//! the same value: the scalar rules below mirror serde-saphyr 2.2's with default options
//! (`deserialize_str`, `deserialize_any`, integers, floats, null), and the tests compare both
//! readers on every sample, corpus file and generated document.

mod deser;
mod scalar;
mod scan;
#[cfg(test)]
mod tests;

use serde::de::{self, DeserializeSeed};
use std::fmt;

/// The deepest nesting the fast reader follows (below [`super::MAX_DEPTH`], so every
/// document it reads passes serde-saphyr's depth budget too; deeper ones go to that reader,
/// which reports its limit).
pub const FAST_DEPTH: usize = 100;

/// The fast reader gave up: read the document with serde-saphyr.
#[derive(Debug)]
pub struct Bail;

impl fmt::Display for Bail {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("outside the fast reader's subset")
    }
}

impl std::error::Error for Bail {}

impl de::Error for Bail {
    #[cold]
    fn custom<T: fmt::Display>(_: T) -> Self {
        Bail
    }
}

type R<T> = Result<T, Bail>;

/// Read `text` (without a byte order mark) as `T`, or `None` when it is outside the subset
/// or `T` refuses it.
pub fn from_str<'de, T: de::Deserialize<'de>>(text: &'de str) -> Option<T> {
    from_str_seed(text, std::marker::PhantomData::<T>)
}

/// [`from_str`] with a seed.
pub fn from_str_seed<'de, S: DeserializeSeed<'de>>(text: &'de str, seed: S) -> Option<S::Value> {
    let mut p = Parser::new(text, 0);
    let v = seed.deserialize(&mut p).ok()?;
    p.rest(true).map(|_| v)
}

/// Read `text`, a piece of a larger document that is a root block sequence there nested
/// `depth` collections deep (so the depth limit counts as in the whole document), as `T`.
/// With `to_end` the piece must hold the sequence and nothing else; without, the sequence may
/// be followed by more of the document, whose offset is returned (the start of the first
/// line after the sequence that is not blank or a comment, or the text's length).
pub fn read_piece<'de, T: de::Deserialize<'de>>(
    text: &'de str,
    depth: usize,
    to_end: bool,
) -> Option<(T, usize)> {
    read_piece_seed(text, depth, to_end, std::marker::PhantomData::<T>)
}

/// [`read_piece`] of a sequence of `T`s into a vector made with room for `capacity` of them
/// (the count of a piece read before: the vector of large items is not moved while it
/// grows; the same items as `Vec<T>`'s own visitor gives, pushed in order).
pub fn read_piece_vec<'de, T: de::Deserialize<'de>>(
    text: &'de str,
    depth: usize,
    to_end: bool,
    capacity: usize,
) -> Option<(Vec<T>, usize)> {
    read_piece_seed(
        text,
        depth,
        to_end,
        VecWithCapacity(capacity, std::marker::PhantomData),
    )
}

fn read_piece_seed<'de, S: DeserializeSeed<'de>>(
    text: &'de str,
    depth: usize,
    to_end: bool,
    seed: S,
) -> Option<(S::Value, usize)> {
    let mut p = Parser::new(text, depth);
    // (the root must be a block sequence at column 0: the pieces are cut at its entries)
    if !p.is_dash(0) {
        return None;
    }
    let v = seed.deserialize(&mut p).ok()?;
    p.rest(to_end).map(|end| (v, end))
}

/// A `Vec<T>` read as serde's own visitor reads it, into a vector made with a given room.
struct VecWithCapacity<T>(usize, std::marker::PhantomData<T>);

impl<'de, T: de::Deserialize<'de>> DeserializeSeed<'de> for VecWithCapacity<T> {
    type Value = Vec<T>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: de::Deserialize<'de>> de::Visitor<'de> for VecWithCapacity<T> {
    type Value = Vec<T>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut v = Vec::with_capacity(self.0);
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(v)
    }
}

/// Where the next node starts.
#[derive(Clone, Copy)]
enum Ctx {
    /// The document's root.
    Doc,
    /// Right after the `:` of a block mapping key at this indentation.
    AfterKey(usize),
    /// Right after the `-` of a block sequence entry at this column.
    AfterDash(usize),
    /// Inside a flow collection (the node starts after spaces).
    Flow,
}

#[derive(Clone, Copy, PartialEq)]
enum Style {
    Plain,
    Single,
    Double,
}

#[derive(Clone, Copy)]
struct Scalar<'de> {
    /// The text between the quotes (or the plain text).
    raw: &'de str,
    style: Style,
    /// A double-quoted text with `\`, or a single-quoted one with `''`.
    escaped: bool,
}

enum Node<'de> {
    /// A block mapping whose keys stand at this indentation; the cursor is at its first key.
    BlockMap(usize),
    /// A block sequence whose dashes stand at this column; the cursor is at its first dash.
    BlockSeq(usize),
    /// The cursor is after the `{`.
    FlowMap,
    /// The cursor is after the `[`.
    FlowSeq,
    Scalar(Scalar<'de>),
    /// No value (`key:` with nothing after it): a null.
    Empty,
}

struct Parser<'de> {
    s: &'de [u8],
    text: &'de str,
    pos: usize,
    ctx: Ctx,
    /// A node already classified (by `deserialize_option`), for the next request.
    pending: Option<Node<'de>>,
    depth: usize,
    /// The keys of the open mappings (innermost last), to refuse duplicates as serde-saphyr
    /// does.
    keys: Vec<(u64, &'de str)>,
    /// A struct's key not yet checked for duplicates and its mapping's first entry in `keys`
    /// ([`Parser::struct_key`]), until its value is read.
    unchecked: Option<(&'de str, usize)>,
    /// Inside `deserialize_ignored_any` (untyped floats are accepted there, as serde-saphyr
    /// hands them to the visitor).
    ignoring: bool,
}

impl<'de> Parser<'de> {
    /// A reader at the start of `text`, a document's root standing `depth` collections deep.
    fn new(text: &'de str, depth: usize) -> Self {
        Parser {
            s: text.as_bytes(),
            text,
            pos: 0,
            ctx: Ctx::Doc,
            pending: None,
            depth,
            keys: Vec::new(),
            unchecked: None,
            ignoring: false,
        }
    }

    /// After the root node: where the rest of the text starts (its length when only blank
    /// and comment lines follow); with `to_end`, `None` unless that is the end. Without, a
    /// line at column 0 may follow (the document goes on after the piece read).
    fn rest(&mut self, to_end: bool) -> Option<usize> {
        self.end_line().ok()?;
        match self.next_line() {
            Ok(None) => Some(self.s.len()),
            Ok(Some(0)) if !to_end => Some(self.pos),
            _ => None,
        }
    }
}

#[inline]
fn bail<T>() -> R<T> {
    Err(Bail)
}
