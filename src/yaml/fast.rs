//! A fast reader for the YAML subset animkit's own emitter writes, tried before serde-saphyr.
//!
//! It is a serde [`Deserializer`] working directly on the document's bytes: no event list, no
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

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
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
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        ctx: Ctx::Doc,
        pending: None,
        depth: 0,
        keys: Vec::new(),
        ignoring: false,
    };
    let v = seed.deserialize(&mut p).ok()?;
    p.end_line().ok()?;
    match p.next_line() {
        Ok(None) => Some(v),
        _ => None,
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
    /// Inside `deserialize_ignored_any` (untyped floats are accepted there, as serde-saphyr
    /// hands them to the visitor).
    ignoring: bool,
}

#[inline]
fn bail<T>() -> R<T> {
    Err(Bail)
}

/// Bytes a plain scalar cannot simply continue with: line breaks, `:`, `#`, flow indicators,
/// control characters and the first bytes of non-ASCII characters.
const PLAIN_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = c < 0x20
            || c >= 0x7f
            || matches!(c as u8, b':' | b'#' | b',' | b'[' | b']' | b'{' | b'}');
        c += 1;
    }
    t
};

/// Bytes a double-quoted scalar cannot simply continue with.
const DOUBLE_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = c < 0x20 || c >= 0x7f || c == b'"' as usize || c == b'\\' as usize;
        c += 1;
    }
    t
};

/// A byte that ends a plain scalar or key in flow context.
#[inline]
fn flow_indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

impl<'de> Parser<'de> {
    #[inline]
    fn at(&self, i: usize) -> u8 {
        self.s.get(i).copied().unwrap_or(0)
    }

    #[inline]
    fn skip_spaces(&mut self) {
        while self.at(self.pos) == b' ' {
            self.pos += 1;
        }
    }

    /// The byte at `i` ends a line (or the text).
    #[inline]
    fn eol(&self, i: usize) -> bool {
        i >= self.s.len() || matches!(self.s[i], b'\n' | b'\r')
    }

    /// Check the (non-ASCII or control) character at `i` is one YAML allows in a document
    /// and that can only mean itself; its length.
    #[cold]
    fn wide_char(&self, i: usize) -> R<usize> {
        let b = self.s[i];
        if b < 0x80 {
            return if b == b'\t' { Ok(1) } else { bail() };
        }
        let c = self
            .text
            .get(i..)
            .and_then(|t| t.chars().next())
            .ok_or(Bail)?;
        match c {
            '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}'
                if !matches!(c, '\u{FEFF}' | '\u{2028}' | '\u{2029}') =>
            {
                Ok(c.len_utf8())
            }
            _ => bail(),
        }
    }

    /// Skip a comment from its `#` to the end of the line (not the line break).
    fn skip_comment(&mut self) -> R<()> {
        while !self.eol(self.pos) {
            let b = self.s[self.pos];
            if (0x20..0x7f).contains(&b) {
                self.pos += 1;
            } else {
                self.pos += self.wide_char(self.pos)?;
            }
        }
        Ok(())
    }

    /// Consume a line break (`\n` or `\r\n`) or the end of the text.
    #[inline]
    fn line_break(&mut self) -> R<()> {
        match self.at(self.pos) {
            b'\n' => self.pos += 1,
            b'\r' if self.at(self.pos + 1) == b'\n' => self.pos += 2,
            _ if self.pos >= self.s.len() => {}
            _ => return bail(),
        }
        Ok(())
    }

    /// After a node on a line: only spaces and a comment may follow; move to the next line.
    fn end_line(&mut self) -> R<()> {
        if self.pos == 0 || self.s[self.pos - 1] == b'\n' {
            return Ok(());
        }
        self.skip_spaces();
        if self.at(self.pos) == b'#' {
            if self.s[self.pos - 1] != b' ' {
                return bail();
            }
            self.skip_comment()?;
        }
        self.line_break()
    }

    /// From a line start: skip blank and comment lines; the indentation of the next line with
    /// content (the cursor stays at its start), or `None` at the end of the text.
    fn next_line(&mut self) -> R<Option<usize>> {
        loop {
            let start = self.pos;
            let mut i = start;
            while self.at(i) == b' ' {
                i += 1;
            }
            if i >= self.s.len() {
                self.pos = i;
                return Ok(None);
            }
            match self.s[i] {
                b'\n' | b'\r' => {
                    self.pos = i;
                    self.line_break()?;
                }
                b'#' => {
                    self.pos = i;
                    self.skip_comment()?;
                    self.line_break()?;
                }
                b'\t' => return bail(),
                // directives and document markers
                b'%' if i == start => return bail(),
                b'-' | b'.'
                    if i == start
                        && self.s[i..].len() >= 3
                        && self.s[i + 1] == self.s[i]
                        && self.s[i + 2] == self.s[i]
                        && (self.eol(i + 3) || matches!(self.at(i + 3), b' ' | b'\t')) =>
                {
                    return bail()
                }
                _ => return Ok(Some(i - start)),
            }
        }
    }

    /// A `-` entry indicator at `i`.
    #[inline]
    fn is_dash(&self, i: usize) -> bool {
        self.at(i) == b'-' && (self.at(i + 1) == b' ' || self.eol(i + 1))
    }

    /// `:` at `i` ends a block mapping key.
    #[inline]
    fn key_colon(&self, i: usize) -> bool {
        self.at(i) == b':' && (self.at(i + 1) == b' ' || self.eol(i + 1))
    }

    /// The line from `i` starts with a block mapping key (`key:`).
    fn is_key_line(&self, i: usize) -> bool {
        match self.at(i) {
            q @ (b'"' | b'\'') => {
                let mut j = i + 1;
                while !self.eol(j) {
                    let b = self.s[j];
                    if b == b'\\' && q == b'"' {
                        j += 2;
                        continue;
                    }
                    if b == q {
                        if q == b'\'' && self.at(j + 1) == b'\'' {
                            j += 2;
                            continue;
                        }
                        return self.key_colon(j + 1);
                    }
                    j += 1;
                }
                false
            }
            b'{' | b'[' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' => false,
            _ => {
                let mut j = i;
                while !self.eol(j) {
                    match self.s[j] {
                        b':' if self.key_colon(j) => return true,
                        b'#' if j > i && self.s[j - 1] == b' ' => return false,
                        _ => j += 1,
                    }
                }
                false
            }
        }
    }

    /// The node at the cursor, given where it stands.
    fn node(&mut self) -> R<Node<'de>> {
        if let Some(n) = self.pending.take() {
            return Ok(n);
        }
        match self.ctx {
            Ctx::Doc => match self.next_line()? {
                Some(0) => self.block_node_here(0),
                _ => bail(),
            },
            Ctx::AfterKey(n) => {
                self.skip_spaces();
                if self.eol(self.pos) || self.at(self.pos) == b'#' {
                    self.end_line()?;
                    return match self.next_line()? {
                        Some(m) if m > n => {
                            self.pos += m;
                            self.block_node_here(m)
                        }
                        Some(m) if m == n && self.is_dash(self.pos + m) => {
                            self.pos += m;
                            Ok(Node::BlockSeq(n))
                        }
                        _ => Ok(Node::Empty),
                    };
                }
                if self.is_dash(self.pos) {
                    return bail();
                }
                self.inline_node(false)
            }
            Ctx::AfterDash(n) => {
                let dash_end = self.pos;
                self.skip_spaces();
                if self.eol(self.pos) || self.at(self.pos) == b'#' {
                    self.end_line()?;
                    return match self.next_line()? {
                        Some(m) if m > n => {
                            self.pos += m;
                            self.block_node_here(m)
                        }
                        _ => Ok(Node::Empty),
                    };
                }
                let col = n + 1 + (self.pos - dash_end);
                if self.is_dash(self.pos) {
                    Ok(Node::BlockSeq(col))
                } else if self.is_key_line(self.pos) {
                    Ok(Node::BlockMap(col))
                } else {
                    self.inline_node(false)
                }
            }
            Ctx::Flow => {
                self.skip_spaces();
                self.inline_node(true)
            }
        }
    }

    /// A block collection starting at the cursor (the first thing on its line).
    fn block_node_here(&mut self, indent: usize) -> R<Node<'de>> {
        if self.is_dash(self.pos) {
            Ok(Node::BlockSeq(indent))
        } else if self.is_key_line(self.pos) {
            Ok(Node::BlockMap(indent))
        } else {
            bail()
        }
    }

    /// A node on the current line: a flow collection or a scalar.
    fn inline_node(&mut self, flow: bool) -> R<Node<'de>> {
        match self.at(self.pos) {
            b'{' => {
                self.pos += 1;
                Ok(Node::FlowMap)
            }
            b'[' => {
                self.pos += 1;
                Ok(Node::FlowSeq)
            }
            b'"' => self.double_quoted().map(Node::Scalar),
            b'\'' => self.single_quoted().map(Node::Scalar),
            _ => self.plain(flow).map(Node::Scalar),
        }
    }

    /// A plain scalar from the cursor. In block context it ends at the line's end, a comment
    /// or `: `; in flow context also at `,`, `]`, `}`.
    fn plain(&mut self, flow: bool) -> R<Scalar<'de>> {
        let start = self.pos;
        let first = self.at(start);
        match first {
            b'&' | b'*' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' | b'#' | b',' | b'[' | b']'
            | b'{' | b'}' | b'"' | b'\'' | b' ' | b'\t' => return bail(),
            b'-' | b'?' | b':' => {
                let next = self.at(start + 1);
                if next == b' ' || self.eol(start + 1) || (flow && flow_indicator(next)) {
                    return bail();
                }
            }
            _ if self.eol(start) => return bail(),
            _ => {}
        }
        let s = self.s;
        let mut i = start;
        loop {
            // (the common bytes in a tight loop; the table marks the ones that need a look)
            while i < s.len() && !PLAIN_STOP[s[i] as usize] {
                i += 1;
            }
            let Some(&b) = s.get(i) else { break };
            match b {
                b'\n' | b'\r' => break,
                b':' => {
                    let next = self.at(i + 1);
                    if next == b' ' || self.eol(i + 1) || (flow && flow_indicator(next)) {
                        break;
                    }
                    i += 1;
                }
                b'#' if s[i - 1] == b' ' => break,
                b'#' => i += 1,
                b',' | b']' | b'}' if flow => break,
                b'[' | b'{' if flow => return bail(),
                b',' | b']' | b'}' | b'[' | b'{' => i += 1,
                _ => {
                    // (a tab is valid YAML inside a plain scalar, but trimming rules around
                    // it are not worth mirroring)
                    if b == b'\t' {
                        return bail();
                    }
                    i += self.wide_char(i)?;
                }
            }
        }
        let mut end = i;
        while end > start && self.s[end - 1] == b' ' {
            end -= 1;
        }
        self.pos = i;
        Ok(Scalar {
            raw: &self.text[start..end],
            style: Style::Plain,
            escaped: false,
        })
    }

    /// A double-quoted scalar on one line; the cursor is at the opening quote.
    fn double_quoted(&mut self) -> R<Scalar<'de>> {
        let start = self.pos + 1;
        let s = self.s;
        let mut i = start;
        let mut escaped = false;
        loop {
            while i < s.len() && !DOUBLE_STOP[s[i] as usize] {
                i += 1;
            }
            match self.at(i) {
                b'"' => break,
                // (every escape the reader decodes is `\` and one ASCII character or more)
                b'\\' if (0x20..0x7f).contains(&self.at(i + 1)) => {
                    escaped = true;
                    i += 2;
                }
                b'\\' => return bail(),
                _ if self.eol(i) => return bail(),
                _ => i += self.wide_char(i)?,
            }
        }
        self.pos = i + 1;
        Ok(Scalar {
            raw: &self.text[start..i],
            style: Style::Double,
            escaped,
        })
    }

    /// A single-quoted scalar on one line; the cursor is at the opening quote.
    fn single_quoted(&mut self) -> R<Scalar<'de>> {
        let start = self.pos + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            match self.at(i) {
                b'\'' if self.at(i + 1) == b'\'' => {
                    escaped = true;
                    i += 2;
                }
                b'\'' => break,
                0x20..=0x7e => i += 1,
                _ if self.eol(i) => return bail(),
                _ => i += self.wide_char(i)?,
            }
        }
        self.pos = i + 1;
        Ok(Scalar {
            raw: &self.text[start..i],
            style: Style::Single,
            escaped,
        })
    }

    /// A key of a block mapping at the cursor, up to and including its `:`.
    fn block_key(&mut self) -> R<Scalar<'de>> {
        let key = match self.at(self.pos) {
            b'"' => self.double_quoted()?,
            b'\'' => self.single_quoted()?,
            _ => self.plain(false)?,
        };
        if !self.key_colon(self.pos) {
            return bail();
        }
        self.pos += 1;
        Ok(key)
    }

    /// A key of a flow mapping at the cursor, up to and including its `: `.
    fn flow_key(&mut self) -> R<Scalar<'de>> {
        let key = match self.at(self.pos) {
            b'"' => self.double_quoted()?,
            b'\'' => self.single_quoted()?,
            _ => self.plain(true)?,
        };
        if self.at(self.pos) != b':' || self.at(self.pos + 1) != b' ' {
            return bail();
        }
        self.pos += 2;
        Ok(key)
    }

    /// Record `key` in the innermost open mapping (from `base`); a duplicate, a merge key,
    /// a null or number-like key, or one that needs decoding gives up.
    fn note_key(&mut self, key: &Scalar<'de>, base: usize) -> R<()> {
        if key.escaped || key.raw.len() > 1024 || key.raw == "<<" {
            return bail();
        }
        if key.style == Style::Plain {
            match key.raw.as_bytes().first() {
                None | Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'~' | b'<') => return bail(),
                _ => {}
            }
            if is_null(key.raw) || yaml11_bool(key.raw).is_some() {
                return bail();
            }
        }
        let print = fingerprint(key.raw);
        if self.keys[base..]
            .iter()
            .any(|&(p, k)| p == print && k == key.raw)
        {
            return bail();
        }
        self.keys.push((print, key.raw));
        Ok(())
    }

    fn enter(&mut self) -> R<usize> {
        self.depth += 1;
        if self.depth > FAST_DEPTH {
            return bail();
        }
        Ok(self.keys.len())
    }

    fn leave(&mut self, base: usize) {
        self.depth -= 1;
        self.keys.truncate(base);
    }

    fn visit_map<V: Visitor<'de>>(&mut self, node: Node<'de>, v: V) -> R<V::Value> {
        let base = self.enter()?;
        let value = match node {
            Node::BlockMap(indent) => {
                let mut m = BlockMap {
                    p: self,
                    indent,
                    base,
                    first: true,
                    done: false,
                };
                let value = v.visit_map(&mut m)?;
                if !m.done && m.next_key::<de::IgnoredAny>()?.is_some() {
                    return bail();
                }
                value
            }
            Node::FlowMap => {
                let mut m = FlowMap {
                    p: self,
                    base,
                    first: true,
                    done: false,
                };
                let value = v.visit_map(&mut m)?;
                if !m.done && m.next_key::<de::IgnoredAny>()?.is_some() {
                    return bail();
                }
                value
            }
            _ => return bail(),
        };
        self.leave(base);
        Ok(value)
    }

    fn visit_seq<V: Visitor<'de>>(&mut self, node: Node<'de>, v: V) -> R<V::Value> {
        let base = self.enter()?;
        let value = match node {
            Node::BlockSeq(indent) => {
                let mut s = BlockSeq {
                    p: self,
                    indent,
                    first: true,
                    done: false,
                };
                let value = v.visit_seq(&mut s)?;
                // (a tuple's visitor stops at its length: no element may follow, as
                // serde-saphyr checks)
                if !s.done && s.next_element::<de::IgnoredAny>()?.is_some() {
                    return bail();
                }
                value
            }
            Node::FlowSeq => {
                let mut s = FlowSeq {
                    p: self,
                    first: true,
                    done: false,
                };
                let value = v.visit_seq(&mut s)?;
                // (a tuple's visitor stops at its length: no element may follow, as
                // serde-saphyr checks)
                if !s.done && s.next_element::<de::IgnoredAny>()?.is_some() {
                    return bail();
                }
                value
            }
            _ => return bail(),
        };
        self.leave(base);
        Ok(value)
    }

    fn scalar(&mut self) -> R<Scalar<'de>> {
        match self.node()? {
            Node::Scalar(s) => Ok(s),
            _ => bail(),
        }
    }
}

/// A key's length and first bytes, to compare keys without a call.
#[inline]
fn fingerprint(k: &str) -> u64 {
    let b = k.as_bytes();
    let mut head = [0u8; 8];
    let n = b.len().min(7);
    head[..n].copy_from_slice(&b[..n]);
    head[7] = b.len() as u8;
    u64::from_le_bytes(head)
}

/// `null` as serde-saphyr reads a plain scalar.
#[inline]
fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// A YAML 1.1 boolean, as serde-saphyr reads it (any case).
#[inline]
fn yaml11_bool(s: &str) -> Option<bool> {
    let t = |w: &str| s.eq_ignore_ascii_case(w);
    match s.len() {
        1 => match s.as_bytes()[0] | 0x20 {
            b'y' => Some(true),
            b'n' => Some(false),
            _ => None,
        },
        2 if t("on") => Some(true),
        2 if t("no") => Some(false),
        3 if t("yes") => Some(true),
        3 if t("off") => Some(false),
        4 if t("true") => Some(true),
        5 if t("false") => Some(false),
        _ => None,
    }
}

/// An unsigned integer spelled in decimal without a leading zero, or `0x` hex.
fn parse_u64(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if let Some(h) = s.strip_prefix("0x") {
        if h.is_empty() || h.len() > 16 || !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        return u64::from_str_radix(h, 16).ok();
    }
    if b.is_empty() || (b[0] == b'0' && b.len() > 1) || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    s.parse().ok()
}

/// A signed decimal integer (`-` allowed, no leading zero), or unsigned as [`parse_u64`].
fn parse_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(d) => {
            let b = d.as_bytes();
            if b.is_empty() || (b[0] == b'0' && b.len() > 1) || !b.iter().all(u8::is_ascii_digit) {
                return None;
            }
            s.parse().ok()
        }
        None => i64::try_from(parse_u64(s)?).ok(),
    }
}

/// `-?digits(.digits)?([eE][+-]?digits)?`: the float spellings the fast reader resolves.
fn simple_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let s = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > s
    };
    if !digits(&mut i) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}

impl<'de> Scalar<'de> {
    /// The scalar's text, escapes decoded.
    fn value(&self) -> R<Cow<'de, str>> {
        if !self.escaped {
            return Ok(Cow::Borrowed(self.raw));
        }
        if self.style == Style::Single {
            return Ok(Cow::Owned(self.raw.replace("''", "'")));
        }
        let mut out = String::with_capacity(self.raw.len());
        let mut chars = self.raw.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let hex = |chars: &mut std::str::Chars, n: usize| -> R<char> {
                let mut v = 0u32;
                for _ in 0..n {
                    v = v * 16 + chars.next().and_then(|c| c.to_digit(16)).ok_or(Bail)?;
                }
                char::from_u32(v).ok_or(Bail)
            };
            out.push(match chars.next().ok_or(Bail)? {
                '"' => '"',
                '\\' => '\\',
                '0' => '\0',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                'x' => hex(&mut chars, 2)?,
                'u' => hex(&mut chars, 4)?,
                _ => return bail(),
            });
        }
        Ok(Cow::Owned(out))
    }

    #[inline]
    fn plain(&self) -> R<&'de str> {
        if self.style == Style::Plain {
            Ok(self.raw)
        } else {
            bail()
        }
    }

    fn visit_str<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        if self.style == Style::Plain && is_null(self.raw) {
            return bail();
        }
        match self.value()? {
            Cow::Borrowed(b) => v.visit_borrowed_str(b),
            Cow::Owned(s) => v.visit_string(s),
        }
    }

    /// As serde-saphyr's `deserialize_any` resolves a scalar (null, bool, integer, float,
    /// string), for the spellings it resolves exactly.
    fn visit_any<V: Visitor<'de>>(self, v: V, floats: bool) -> R<V::Value> {
        if self.style != Style::Plain {
            return match self.value()? {
                Cow::Borrowed(b) => v.visit_borrowed_str(b),
                Cow::Owned(s) => v.visit_string(s),
            };
        }
        let t = self.raw;
        if is_null(t) {
            return v.visit_unit();
        }
        if let Some(b) = yaml11_bool(t) {
            return v.visit_bool(b);
        }
        // (serde-saphyr's integer and float spellings start with a digit, a sign or a dot;
        // Rust's float parser also takes `inf`/`nan` words, which serde-saphyr then refuses
        // as non-finite and reads as strings, as here)
        match t.as_bytes()[0] {
            b'+' | b'.' => bail(),
            b'-' => match parse_i64(t) {
                Some(x) => v.visit_i64(x),
                None => self.visit_float(v, floats),
            },
            b'0'..=b'9' => match parse_u64(t) {
                Some(x) => v.visit_u64(x),
                None => self.visit_float(v, floats),
            },
            _ => v.visit_borrowed_str(t),
        }
    }

    fn visit_float<V: Visitor<'de>>(self, v: V, floats: bool) -> R<V::Value> {
        if !floats || !simple_float(self.raw) || parse_i64(self.raw).is_some() {
            return bail();
        }
        match self.raw.parse::<f64>() {
            Ok(x) if x.is_finite() => v.visit_f64(x),
            _ => bail(),
        }
    }
}

macro_rules! int_methods {
    ($($method:ident $visit:ident $t:ty, $parse:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            let s = self.scalar()?.plain()?;
            let x = $parse(s).and_then(|x| <$t>::try_from(x).ok()).ok_or(Bail)?;
            v.$visit(x)
        }
    )*};
}

macro_rules! float_methods {
    ($($method:ident $visit:ident $t:ty;)*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            let s = self.scalar()?.plain()?;
            if !simple_float(s) {
                return bail();
            }
            match s.parse::<$t>() {
                Ok(x) if x.is_finite() => v.$visit(x),
                _ => bail(),
            }
        }
    )*};
}

/// The scalar-only methods, shared by the node and key deserialisers (`self.scalar()` gives
/// the scalar or gives up).
macro_rules! scalar_methods {
    () => {
        int_methods! {
            deserialize_i8 visit_i8 i8, parse_i64;
            deserialize_i16 visit_i16 i16, parse_i64;
            deserialize_i32 visit_i32 i32, parse_i64;
            deserialize_i64 visit_i64 i64, parse_i64;
            deserialize_u8 visit_u8 u8, parse_u64;
            deserialize_u16 visit_u16 u16, parse_u64;
            deserialize_u32 visit_u32 u32, parse_u64;
            deserialize_u64 visit_u64 u64, parse_u64;
        }
        float_methods! {
            deserialize_f32 visit_f32 f32;
            deserialize_f64 visit_f64 f64;
        }
        fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            let s = self.scalar()?.plain()?;
            v.visit_bool(yaml11_bool(s).ok_or(Bail)?)
        }
        fn deserialize_str<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            self.scalar()?.visit_str(v)
        }
        fn deserialize_string<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            self.scalar()?.visit_str(v)
        }
        fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
            self.scalar()?.visit_str(v)
        }
        fn deserialize_char<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
            bail()
        }
        fn deserialize_bytes<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
            bail()
        }
        fn deserialize_byte_buf<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
            bail()
        }
        fn deserialize_unit_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> R<V::Value> {
            bail()
        }
        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> R<V::Value> {
            bail()
        }
    };
}

impl<'de> Deserializer<'de> for &mut Parser<'de> {
    type Error = Bail;

    scalar_methods!();

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.node()? {
            Node::Scalar(s) => s.visit_any(v, self.ignoring),
            Node::Empty => v.visit_unit(),
            n @ (Node::BlockMap(_) | Node::FlowMap) => self.visit_map(n, v),
            n => self.visit_seq(n, v),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        let was = std::mem::replace(&mut self.ignoring, true);
        let r = self.deserialize_any(v);
        self.ignoring = was;
        r
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.node()? {
            Node::Empty => v.visit_none(),
            Node::Scalar(s) if s.style == Style::Plain && is_null(s.raw) => v.visit_none(),
            n => {
                self.pending = Some(n);
                v.visit_some(self)
            }
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        match self.node()? {
            Node::Empty => v.visit_unit(),
            Node::Scalar(s) if s.style == Style::Plain && is_null(s.raw) => v.visit_unit(),
            _ => bail(),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> R<V::Value> {
        if name.starts_with("__yaml_") {
            return bail();
        }
        v.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        let n = self.node()?;
        self.visit_seq(n, v)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, v: V) -> R<V::Value> {
        self.deserialize_seq(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        v: V,
    ) -> R<V::Value> {
        self.deserialize_seq(v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        let n = self.node()?;
        self.visit_map(n, v)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> R<V::Value> {
        self.deserialize_map(v)
    }
}

/// A mapping key (a scalar).
struct KeyDe<'de>(Scalar<'de>);

impl<'de> KeyDe<'de> {
    #[inline]
    fn scalar(&self) -> R<Scalar<'de>> {
        Ok(self.0)
    }
}

impl<'de> Deserializer<'de> for KeyDe<'de> {
    type Error = Bail;

    scalar_methods!();

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        self.0.visit_any(v, false)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> R<V::Value> {
        v.visit_unit()
    }
    fn deserialize_option<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_unit<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _: &'static str, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_seq<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        _: V,
    ) -> R<V::Value> {
        bail()
    }
    fn deserialize_map<V: Visitor<'de>>(self, _: V) -> R<V::Value> {
        bail()
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> R<V::Value> {
        bail()
    }
}

struct BlockMap<'a, 'de> {
    p: &'a mut Parser<'de>,
    indent: usize,
    base: usize,
    first: bool,
    done: bool,
}

impl<'de> MapAccess<'de> for BlockMap<'_, 'de> {
    type Error = Bail;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> R<Option<K::Value>> {
        let p = &mut *self.p;
        if self.done {
            return bail();
        }
        if self.first {
            self.first = false;
        } else {
            p.end_line()?;
            match p.next_line()? {
                Some(m) if m == self.indent && !p.is_dash(p.pos + m) => p.pos += m,
                // (deeper: a continuation line or malformed; a `-` at the mapping's own
                // indentation after a complete value is malformed too)
                Some(m) if m >= self.indent => return bail(),
                _ => {
                    self.done = true;
                    return Ok(None);
                }
            }
        }
        let key = p.block_key()?;
        p.note_key(&key, self.base)?;
        seed.deserialize(KeyDe(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> R<V::Value> {
        self.p.ctx = Ctx::AfterKey(self.indent);
        seed.deserialize(&mut *self.p)
    }
}

struct FlowMap<'a, 'de> {
    p: &'a mut Parser<'de>,
    base: usize,
    first: bool,
    done: bool,
}

impl<'de> MapAccess<'de> for FlowMap<'_, 'de> {
    type Error = Bail;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> R<Option<K::Value>> {
        let p = &mut *self.p;
        if self.done {
            return bail();
        }
        p.skip_spaces();
        if self.first {
            self.first = false;
            if p.at(p.pos) == b'}' {
                p.pos += 1;
                self.done = true;
                return Ok(None);
            }
        } else {
            match p.at(p.pos) {
                b',' => {
                    p.pos += 1;
                    p.skip_spaces();
                }
                b'}' => {
                    p.pos += 1;
                    self.done = true;
                    return Ok(None);
                }
                _ => return bail(),
            }
        }
        let key = p.flow_key()?;
        p.note_key(&key, self.base)?;
        seed.deserialize(KeyDe(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> R<V::Value> {
        self.p.ctx = Ctx::Flow;
        let v = seed.deserialize(&mut *self.p)?;
        self.p.skip_spaces();
        Ok(v)
    }
}

struct BlockSeq<'a, 'de> {
    p: &'a mut Parser<'de>,
    indent: usize,
    first: bool,
    done: bool,
}

impl<'de> SeqAccess<'de> for BlockSeq<'_, 'de> {
    type Error = Bail;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> R<Option<T::Value>> {
        let p = &mut *self.p;
        if self.done {
            return bail();
        }
        if self.first {
            self.first = false;
        } else {
            p.end_line()?;
            match p.next_line()? {
                Some(m) if m == self.indent && p.is_dash(p.pos + m) => p.pos += m,
                Some(m) if m > self.indent => return bail(),
                _ => {
                    self.done = true;
                    return Ok(None);
                }
            }
        }
        p.pos += 1;
        p.ctx = Ctx::AfterDash(self.indent);
        seed.deserialize(&mut *p).map(Some)
    }
}

struct FlowSeq<'a, 'de> {
    p: &'a mut Parser<'de>,
    first: bool,
    done: bool,
}

impl<'de> SeqAccess<'de> for FlowSeq<'_, 'de> {
    type Error = Bail;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> R<Option<T::Value>> {
        let p = &mut *self.p;
        if self.done {
            return bail();
        }
        p.skip_spaces();
        if self.first {
            self.first = false;
            if p.at(p.pos) == b']' {
                p.pos += 1;
                self.done = true;
                return Ok(None);
            }
        } else {
            match p.at(p.pos) {
                b',' => {
                    p.pos += 1;
                    p.skip_spaces();
                    if p.at(p.pos) == b']' {
                        return bail();
                    }
                }
                b']' => {
                    p.pos += 1;
                    self.done = true;
                    return Ok(None);
                }
                _ => return bail(),
            }
        }
        p.ctx = Ctx::Flow;
        let v = seed.deserialize(&mut *p)?;
        p.skip_spaces();
        Ok(Some(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::read::slow_from_str;
    use serde::de::DeserializeOwned;
    use std::collections::BTreeMap;

    /// Whenever the fast reader reads `text` as `T`, serde-saphyr reads the same value.
    /// Returns whether the fast reader read it.
    fn agrees<T: DeserializeOwned + PartialEq + fmt::Debug>(text: &str) -> bool {
        match from_str::<T>(text) {
            Some(fast) => {
                let slow = slow_from_str::<T>(text)
                    .unwrap_or_else(|e| panic!("fast read {text:?} as {fast:?}, slow: {e}"));
                assert_eq!(fast, slow, "{text:?}");
                true
            }
            None => false,
        }
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct S {
        a: String,
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Typed {
        s: Option<String>,
        u: Option<u32>,
        i: Option<i16>,
        f: Option<f32>,
        b: Option<bool>,
        #[serde(default)]
        v: Vec<u8>,
    }

    const SPELLINGS: &[&str] = &[
        "a",
        "abc def",
        "0",
        "7",
        "-7",
        "007",
        "+7",
        "0x1f",
        "0X1F",
        "0o17",
        "0b101",
        "1_000",
        "1.5",
        "-1.5",
        "1e5",
        "1.0e+20",
        "-0.0",
        ".5",
        "5.",
        ".inf",
        "-.inf",
        ".nan",
        "nan",
        "inf",
        "Infinity",
        "1e999",
        "null",
        "Null",
        "NULL",
        "~",
        "true",
        "True",
        "TRUE",
        "yes",
        "no",
        "on",
        "Off",
        "y",
        "N",
        "tRuE",
        "\"\"",
        "''",
        "\"a\\tb\"",
        "\"\\x41\\u00e9\"",
        "'it''s'",
        "\"null\"",
        "'7'",
        "a:b",
        "a #b",
        "a#b",
        "-a",
        "?a",
        ":a",
        "..\\\\x",
        "\"..\\\\data\"",
        "9223372036854775808",
        "-9223372036854775809",
        "256",
        "65536",
        "-32769",
        "äöü",
        "a\u{85}b",
        "\u{feff}",
        "a\tb",
        "&x a",
        "*x",
        "!t a",
        "|",
        ">",
        "@a",
        "`a",
        "%a",
        "\"a\\/b\"",
        "\"a\\eb\"",
        "[a, b]",
        "{a: b}",
        "[]",
        "{}",
        "[a, ]",
        "",
    ];

    /// Every scalar spelling into every kind of target: the fast reader either gives up or
    /// reads exactly what serde-saphyr reads.
    #[test]
    fn scalars_read_as_serde_saphyr_reads_them_or_not_at_all() {
        let mut fast = 0;
        for sp in SPELLINGS {
            for key in ["s", "u", "i", "f", "b"] {
                for text in [
                    format!("{key}: {sp}\n"),
                    format!("x: 1\n{key}: {sp}  # c\n"),
                ] {
                    fast += usize::from(agrees::<Typed>(&text.replacen("x: 1\n", "", 1)));
                    fast += usize::from(agrees::<serde_json::Value>(&text));
                    fast += usize::from(agrees::<BTreeMap<String, serde::de::IgnoredAny>>(&text));
                }
            }
            for text in [
                format!("v: [{sp}]\n"),
                format!("v:\n- {sp}\n"),
                format!("s: {{a: {sp}}}\n"),
                format!("list:\n- a: {sp}\n  b: 1\n"),
            ] {
                fast += usize::from(agrees::<serde_json::Value>(&text));
            }
            fast += usize::from(agrees::<S>(&format!("a: {sp}\n")));
            fast += usize::from(agrees::<Vec<S>>(&format!("- a: {sp}\n- {{a: {sp}}}\n")));
        }
        // (most of them are in the subset)
        assert!(fast > 500, "{fast}");
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Doc {
        format: String,
        #[serde(default)]
        list: Vec<BTreeMap<String, serde_json::Value>>,
        #[serde(default)]
        nested: Option<serde_json::Value>,
    }

    /// Documents outside the subset: the fast reader gives up, and `read::from_str` still
    /// reads them (through serde-saphyr) with the same value.
    #[test]
    fn documents_outside_the_subset_fall_back_and_still_read() {
        for text in [
            "format: t\nlist:\n- &x {a: 1}\n- *x\n",
            "format: !!str t\n",
            "%YAML 1.2\n---\nformat: t\n",
            "---\nformat: t\n...\n",
            "format: t\nnested: |\n  two\n  lines\n",
            "format: >\n  folded\n",
            "format: \"two\n  lines\"\n",
            "format: plain\n  continued\n",
            "format: t\nlist:\n- {a: 1,\n   b: 2}\n",
            "format: t\nlist:\n- <<: {a: 1}\n  b: 2\n",
            "format: t\nnested: {a: 1, a: 2}\n",
            "format:\tt\n",
            "format: t\nnested: [a, ]\n",
            "format: t\nnested: \"\\e\"\n",
            "? format\n: t\n",
            "  format: t\n",
        ] {
            assert!(from_str::<Doc>(text).is_none(), "fast read {text:?}");
            let slow = slow_from_str::<Doc>(text);
            let through = crate::yaml::from_str::<Doc>(text);
            assert_eq!(format!("{slow:?}"), format!("{through:?}"), "{text:?}");
        }
        // (the alias document reads, with the alias replayed)
        let d: Doc = crate::yaml::from_str("format: t\nlist:\n- &x {a: 1}\n- *x\n").unwrap();
        assert_eq!(d.list.len(), 2);
        assert_eq!(d.list[0], d.list[1]);
    }

    /// The same document in every layout the subset allows reads the same, fast.
    #[test]
    fn layouts_of_the_subset_read_fast() {
        let expected = Doc {
            format: "t".into(),
            list: vec![BTreeMap::from([
                ("a".to_string(), serde_json::json!(1)),
                ("b".to_string(), serde_json::json!(["x", "y z"])),
            ])],
            nested: Some(serde_json::json!({"k": [[1, -2], {"q": "it's"}]})),
        };
        for text in [
            "format: t\nlist:\n- a: 1\n  b: [x, y z]\nnested: {k: [[1, -2], {q: \"it's\"}]}\n",
            "# head\nformat: t  # tag\n\nlist:\n  - a: 1\n    b:\n    - x\n    - 'y z'\n\
             nested:\n  k:\n  - - 1\n    - -2\n  - q: 'it''s'\n",
            "format: t\r\nlist:\r\n- {a: 1, b: [x, \"y z\"]}\r\nnested:\r\n  k: [[1, -2], {q: it's}]\r\n",
        ] {
            assert_eq!(from_str::<Doc>(text).as_ref(), Some(&expected), "{text:?}");
            assert!(agrees::<Doc>(text));
        }
    }

    /// Nesting past [`FAST_DEPTH`] is left to serde-saphyr (which refuses it past its own
    /// limit with line:col); a million levels cost the fast reader nothing.
    #[test]
    fn deep_nesting_is_left_to_serde_saphyr() {
        let deep = |n: usize| {
            let mut s = String::from("format: t\nnested: ");
            s.extend(std::iter::repeat_n('[', n));
            s.extend(std::iter::repeat_n(']', n));
            s
        };
        assert!(from_str::<Doc>(&deep(FAST_DEPTH - 1)).is_some());
        assert!(from_str::<Doc>(&deep(FAST_DEPTH)).is_none());
        let t = std::time::Instant::now();
        assert!(from_str::<Doc>(&deep(1_000_000)).is_none());
        let mut block = String::from("format: t\nnested:\n");
        block.extend(std::iter::repeat_n("- ", 1_000_000));
        block.push_str("x\n");
        assert!(from_str::<Doc>(&block).is_none());
        assert!(t.elapsed().as_secs() < 2, "{:?}", t.elapsed());
        let e = crate::yaml::from_str::<Doc>(&deep(1_000_000)).unwrap_err();
        assert_eq!(e.line, Some(2), "{e:?}");
    }

    /// A type error anywhere gives up, so serde-saphyr reports it with its path and place.
    #[test]
    fn errors_come_from_serde_saphyr() {
        let text = "format: t\nlist:\n- {a: 1}\n- [x]\n";
        assert!(from_str::<Doc>(text).is_none());
        let e = crate::yaml::from_str::<Doc>(text).unwrap_err();
        assert_eq!(e.line, Some(4), "{e:?}");
        assert!(e.message.starts_with("list[1]"), "{}", e.message);
    }
}
