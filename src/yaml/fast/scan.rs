//! The fast reader's scanner: lines, indentation, comments, keys and the three scalar styles.

use super::scalar::fingerprint;
use super::{bail, Bail, Ctx, Node, Parser, Scalar, Style, FAST_DEPTH, R};

/// Bytes a plain scalar cannot simply continue with: line breaks, `:`, `#`, flow indicators,
/// control characters and the first bytes of non-ASCII characters.
pub(super) const PLAIN_STOP: [bool; 256] = {
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

/// The first byte at or after `i` that [`PLAIN_STOP`] marks (or `s.len()`). Hand-written
/// 16-byte steps (SSE2) because this scan is the fast reader's hottest loop (hex digits,
/// names, numbers); `plain_run_matches_the_table` ties it to the table.
#[inline]
pub(super) fn plain_run(s: &[u8], i: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    let i = plain_run_sse2(s, i);
    plain_run_bytes(s, i)
}

#[inline]
fn plain_run_bytes(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && !PLAIN_STOP[s[i] as usize] {
        i += 1;
    }
    i
}

/// The 16-byte steps of [`plain_run`]: the first stop byte of the first 16-byte block that
/// holds one, else the start of the last, shorter block (for the byte loop).
/// (No `#[target_feature]`: SSE2 is enabled for the whole build, checked by the `cfg`, so
/// the intrinsics need no `unsafe` and the function inlines into the scanner; with the
/// attribute it could not, a call per plain scalar.)
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn plain_run_sse2(s: &[u8], mut i: usize) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    while let Some(chunk) = s.get(i..i + 16) {
        // SAFETY: SSE2 is enabled for the whole build (checked by the `cfg` above; every
        // x86-64 has it), which is all these intrinsics require; `chunk` is 16 readable
        // bytes, and `loadu` needs no alignment.
        let mask = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            // (signed: below 0x20 is the control bytes and every byte from 0x80)
            let low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
            // (`[` and `{`, `]` and `}` differ only in bit 0x20)
            let lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
            let brackets = _mm_or_si128(
                _mm_cmpeq_epi8(lower, _mm_set1_epi8(b'{' as i8)),
                _mm_cmpeq_epi8(lower, _mm_set1_epi8(b'}' as i8)),
            );
            let punct = any_of4(v, [b':', b'#', b',', 0x7f]);
            let stop = _mm_or_si128(_mm_or_si128(low, brackets), punct);
            _mm_movemask_epi8(stop) as u32
        };
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    i
}

/// The end of the run of spaces from `i` (or `s.len()`): a line's indentation. In 16-byte
/// steps (SSE2) where 16 bytes follow: byte-wise, the indentation of the 18 MB MW3 document's
/// lines took 18 M of its reader's instructions (callgrind). `space_run_matches_bytes` ties
/// it to the byte loop.
#[inline(always)]
pub(super) fn space_run(s: &[u8], mut i: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    while let Some(chunk) = s.get(i..i + 16) {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is enabled for the whole build (checked by the `cfg` above; every
        // x86-64 has it), which is all these intrinsics require; `chunk` is 16 readable
        // bytes, and `loadu` needs no alignment.
        let mask = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8))) as u32
        };
        // (the mask has 16 bits: its complement's lowest set bit is at most bit 16)
        let n = (!mask).trailing_zeros() as usize;
        i += n;
        if n < 16 {
            return i;
        }
    }
    space_run_bytes(s, i)
}

#[inline]
pub(super) fn space_run_bytes(s: &[u8], mut i: usize) -> usize {
    while s.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// The bytes of a short word (names, keys, numbers, `0x…` values): letters, digits, `_`, `.`,
/// `+`, `-`. None is a [`PLAIN_STOP`] byte or a space.
pub(super) const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        t[c] =
            matches!(c as u8, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.' | b'+' | b'-');
        c += 1;
    }
    t
};

/// How many [`WORD`] bytes [`Parser::plain`] reads one at a time before the 16-byte scan
/// takes over (a long hex value would cost more byte-wise than in 16-byte steps).
const WORD_RUN: usize = 24;

/// The end of the run of [`WORD`] bytes from `start`, looked at up to [`WORD_RUN`] bytes
/// (or 16 where the 16-byte step applies): the short-word step of [`Parser::plain`].
#[inline(always)]
pub(super) fn word_run(s: &[u8], start: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    if let Some(chunk) = s.get(start..start + 16) {
        return start + word_run_sse2(chunk);
    }
    let limit = s.len().min(start + WORD_RUN);
    let mut i = start;
    while i < limit && WORD[s[i] as usize] {
        i += 1;
    }
    i
}

/// The bytes of `v` equal to one of `four` (all bits set), the others zero.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn any_of4(v: std::arch::x86_64::__m128i, four: [u8; 4]) -> std::arch::x86_64::__m128i {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_or_si128, _mm_set1_epi8};
    // SAFETY: SSE2 is enabled for the whole build (the `cfg` above), all these need.
    unsafe {
        let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
        _mm_or_si128(
            _mm_or_si128(eq(four[0]), eq(four[1])),
            _mm_or_si128(eq(four[2]), eq(four[3])),
        )
    }
}

/// How many of the 16 bytes of `chunk` from its start are [`WORD`] bytes, in one 16-byte
/// step (SSE2): a key of six bytes took ~40 instructions byte-wise.
/// `word_run_matches_the_table` ties it to the table.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(super) fn word_run_sse2(chunk: &[u8]) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    if chunk.len() < 16 {
        return 0;
    }
    // SAFETY: SSE2 is enabled for the whole build (checked by the `cfg` above; every x86-64
    // has it), which is all these intrinsics require; `chunk` holds 16 readable bytes
    // (checked above), and `loadu` needs no alignment.
    let mask = unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
        // (a range test as a signed compare: the range moved to start at -128)
        let below = |x: __m128i, lo: u8, n: u8| {
            let moved = _mm_add_epi8(x, _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
            _mm_cmplt_epi8(moved, _mm_set1_epi8((0x80u8.wrapping_add(n)) as i8))
        };
        // (bit 0x20 set: `A`–`Z` become `a`–`z`; no other byte becomes a letter)
        let letters = below(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', 26);
        let digits = below(v, b'0', 10);
        let marks = any_of4(v, [b'_', b'.', b'+', b'-']);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letters, digits), marks)) as u32
    };
    (!mask).trailing_zeros().min(16) as usize
}

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

/// Whether a plain key is, in any case, `null` or a YAML 1.1 boolean (`true`, `false`,
/// `yes`, `no`, `on`, `off`, `y`, `n`), which a plain key does not mean as text: its bytes
/// with bit 0x20 set (lower case for letters) against each word of its length. (Bails on
/// `nULL` too, which serde-saphyr reads as text, and on a few non-letter spellings: giving
/// up is always allowed.)
#[inline(always)]
pub(super) fn special_key(k: &[u8]) -> bool {
    let low = |w: &[u8]| k.iter().zip(w).all(|(&a, &b)| a | 0x20 == b);
    match k.len() {
        1 => matches!(k[0] | 0x20, b'y' | b'n'),
        2 => low(b"on") || low(b"no"),
        3 => low(b"yes") || low(b"off"),
        4 => low(b"null") || low(b"true"),
        5 => low(b"false"),
        _ => false,
    }
}

/// How many keys of a mapping [`Parser::note_key`] compares directly before its fingerprint
/// filter takes over.
const FEW_KEYS: usize = 6;

/// The bit of a mapping's 64-bit filter for a key's fingerprint (only a key whose bit is set
/// already is compared with the mapping's keys).
#[inline]
fn print_bit(print: u64) -> u64 {
    1u64 << (print.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58)
}

/// A byte that ends a plain scalar or key in flow context.
#[inline]
pub(super) fn flow_indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

impl<'de> Parser<'de> {
    #[inline]
    pub(super) fn at(&self, i: usize) -> u8 {
        self.s.get(i).copied().unwrap_or(0)
    }

    /// The text from `start` to `end` (scanned bytes: both are character boundaries). Through
    /// `split_at_checked`, whose checks inline: `&text[start..end]` was a call per scalar.
    #[inline]
    fn slice(&self, start: usize, end: usize) -> R<&'de str> {
        let text: &'de str = self.text;
        if start > end || end > text.len() {
            return bail();
        }
        debug_assert!(text.is_char_boundary(start) && text.is_char_boundary(end));
        // SAFETY: in bounds (checked above), and both are character boundaries: the scanner
        // moves over ASCII bytes or whole characters (`wide_char`) only, so every offset it
        // stops at is one. Unchecked because the two boundary checks were a tenth of the
        // plain-scalar scan, the fast reader's hottest function.
        Ok(unsafe { text.get_unchecked(start..end) })
    }

    #[inline]
    pub(super) fn skip_spaces(&mut self) {
        while self.at(self.pos) == b' ' {
            self.pos += 1;
        }
    }

    /// The byte at `i` ends a line (or the text).
    #[inline]
    pub(super) fn eol(&self, i: usize) -> bool {
        i >= self.s.len() || matches!(self.s[i], b'\n' | b'\r')
    }

    /// Check the (non-ASCII or control) character at `i` is one YAML allows in a document
    /// and that can only mean itself; its length.
    #[cold]
    pub(super) fn wide_char(&self, i: usize) -> R<usize> {
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
    pub(super) fn skip_comment(&mut self) -> R<()> {
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
    pub(super) fn line_break(&mut self) -> R<()> {
        match self.at(self.pos) {
            b'\n' => self.pos += 1,
            b'\r' if self.at(self.pos + 1) == b'\n' => self.pos += 2,
            _ if self.pos >= self.s.len() => {}
            _ => return bail(),
        }
        Ok(())
    }

    /// After a node on a line: only spaces and a comment may follow; move to the next line.
    pub(super) fn end_line(&mut self) -> R<()> {
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
    pub(super) fn next_line(&mut self) -> R<Option<usize>> {
        loop {
            let start = self.pos;
            let i = space_run(self.s, start);
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
    pub(super) fn is_dash(&self, i: usize) -> bool {
        self.at(i) == b'-' && (self.at(i + 1) == b' ' || self.eol(i + 1))
    }

    /// `:` at `i` ends a block mapping key.
    #[inline]
    pub(super) fn key_colon(&self, i: usize) -> bool {
        self.at(i) == b':' && (self.at(i + 1) == b' ' || self.eol(i + 1))
    }

    /// The line from `i` starts with a block mapping key (`key:`).
    pub(super) fn is_key_line(&self, i: usize) -> bool {
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
    pub(super) fn node(&mut self) -> R<Node<'de>> {
        // (a struct's key is checked for duplicates only when its value is ignored, which
        // asks before this: any other value clears it)
        self.unchecked = None;
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
    pub(super) fn block_node_here(&mut self, indent: usize) -> R<Node<'de>> {
        if self.is_dash(self.pos) {
            Ok(Node::BlockSeq(indent))
        } else if self.is_key_line(self.pos) {
            Ok(Node::BlockMap(indent))
        } else {
            bail()
        }
    }

    /// A node on the current line: a flow collection or a scalar. (Inlined into its one
    /// caller, [`node`](Self::node): a call per value saved.)
    #[inline(always)]
    pub(super) fn inline_node(&mut self, flow: bool) -> R<Node<'de>> {
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
    /// or `: `; in flow context also at `,`, `]`, `}`. (Inlined into its three callers, each
    /// with its `flow` known: it runs for every key and most values.)
    #[inline(always)]
    pub(super) fn plain(&mut self, flow: bool) -> R<Scalar<'de>> {
        self.plain_from(flow, true)
    }

    /// [`plain`](Self::plain); `word_run: false` skips the short-word step (for the test that
    /// ties that step to the general scan).
    #[inline(always)]
    pub(super) fn plain_from(&mut self, flow: bool, word_run: bool) -> R<Scalar<'de>> {
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
        if word_run {
            // (most keys and values are a short word ended by the scalar's end: `name: `,
            // `index`, `1.0,`, `node_a}`. Read byte-wise, such a scalar is done without the
            // 16-byte scan's set-up and the checks after it: the plain scans of the 18 MB MW3
            // document 13 M instructions fewer byte-wise, 41 M with the word run in one
            // 16-byte step (callgrind). Word bytes are no stop bytes, so
            // the general scan goes on from `i` where this step stops anywhere else; test
            // `the_word_step_ends_plain_scalars_as_the_general_scan`.)
            i = self::word_run(s, start);
            let ended = match s.get(i) {
                None | Some(b'\n' | b'\r') => true,
                Some(b':') => {
                    let next = self.at(i + 1);
                    next == b' ' || self.eol(i + 1) || (flow && flow_indicator(next))
                }
                Some(b',' | b']' | b'}') => flow,
                _ => false,
            };
            if ended && i > start {
                self.pos = i;
                return Ok(Scalar {
                    raw: self.slice(start, i)?,
                    style: Style::Plain,
                    escaped: false,
                });
            }
        }
        loop {
            // (the common bytes in a tight loop; the table marks the ones that need a look)
            i = plain_run(s, i);
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
        // (a scalar does not start with a space, so `start` stops this)
        if s.get(end.wrapping_sub(1)) == Some(&b' ') {
            while s.get(end.wrapping_sub(1)) == Some(&b' ') {
                end -= 1;
            }
        }
        self.pos = i;
        Ok(Scalar {
            raw: self.slice(start, end)?,
            style: Style::Plain,
            escaped: false,
        })
    }

    /// A double-quoted scalar on one line; the cursor is at the opening quote.
    pub(super) fn double_quoted(&mut self) -> R<Scalar<'de>> {
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
            raw: self.slice(start, i)?,
            style: Style::Double,
            escaped,
        })
    }

    /// A single-quoted scalar on one line; the cursor is at the opening quote.
    pub(super) fn single_quoted(&mut self) -> R<Scalar<'de>> {
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
            raw: self.slice(start, i)?,
            style: Style::Single,
            escaped,
        })
    }

    /// A key of a block mapping at the cursor, up to and including its `:`.
    pub(super) fn block_key(&mut self) -> R<Scalar<'de>> {
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
    pub(super) fn flow_key(&mut self) -> R<Scalar<'de>> {
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

    /// Record `key` in the innermost open mapping (from `base`; `seen` is that mapping's
    /// filter of the fingerprints it holds); a duplicate, a merge key, a null or number-like
    /// key, or one that needs decoding gives up.
    pub(super) fn note_key(&mut self, key: &Scalar<'de>, base: usize, seen: &mut u64) -> R<()> {
        self.plain_key(key)?;
        let held = self.keys.len().saturating_sub(base);
        if held < FEW_KEYS {
            // (a mapping's first keys are compared with each other directly, the print and
            // filter left out: most mappings hold two or three keys, e.g. a reference's
            // `index` and `name`, which differ in length)
            if self.keys[base..].iter().any(|&(_, k)| k == key.raw) {
                return bail();
            }
            self.keys.push((0, key.raw));
            return Ok(());
        }
        if held == FEW_KEYS {
            // (from here the filter: the prints of the keys compared directly so far)
            for j in base..self.keys.len() {
                let print = self.key_print(self.keys[j].1);
                self.keys[j].0 = print;
                *seen |= print_bit(print);
            }
        }
        let print = self.key_print(key.raw);
        let bit = print_bit(print);
        if *seen & bit != 0
            && self.keys[base..]
                .iter()
                .any(|&(p, k)| p == print && k == key.raw)
        {
            return bail();
        }
        *seen |= bit;
        self.keys.push((print, key.raw));
        Ok(())
    }

    /// A key of a struct (`deserialize_struct`, the mapping's keys from `base`): checked as
    /// [`note_key`](Self::note_key) checks it, but for duplicates only when its value is
    /// ignored ([`check_unknown_key`](Self::check_unknown_key)). A struct's visitor refuses a
    /// second value of a field it reads (serde-derive's `duplicate_field`; the crate's own
    /// visitors called through `deserialize_struct` do the same), so only the keys it does
    /// not know, whose values it skips through `deserialize_ignored_any`, need the reader's
    /// check (a known key never equals an unknown one).
    #[inline]
    pub(super) fn struct_key(&mut self, key: &Scalar<'de>, base: usize) -> R<()> {
        self.plain_key(key)?;
        self.unchecked = Some((key.raw, base));
        Ok(())
    }

    /// The key (from [`struct_key`](Self::struct_key)) whose value is being ignored: refuse
    /// it if another ignored key of its mapping (from `base`) has its text.
    #[cold]
    pub(super) fn check_unknown_key(&mut self, key: &'de str, base: usize) -> R<()> {
        let print = self.key_print(key);
        if self.keys.len() < base
            || self.keys[base..]
                .iter()
                .any(|&(p, k)| p == print && k == key)
        {
            return bail();
        }
        self.keys.push((print, key));
        Ok(())
    }

    /// A key the reader resolves as serde-saphyr does: not one that needs decoding, a merge
    /// key, a null, boolean or number-like plain key, or a very long one. (Inlined into its
    /// three callers: a call per key saved.)
    #[inline(always)]
    fn plain_key(&self, key: &Scalar<'de>) -> R<()> {
        if key.escaped || key.raw.len() > 1024 {
            return bail();
        }
        if key.style == Style::Plain {
            match key.raw.as_bytes().first() {
                None | Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'~' | b'<') => return bail(),
                // (`null` and the YAML 1.1 booleans)
                _ if special_key(key.raw.as_bytes()) => return bail(),
                _ => {}
            }
        } else if key.raw == "<<" {
            // (a quoted `<<` is no merge key in YAML, but serde-saphyr's handling of it is
            // not worth mirroring)
            return bail();
        }
        Ok(())
    }

    /// [`fingerprint`] of a key that lies in the text, from one 8-byte load where the text
    /// has 8 bytes from the key on (always but at its very end).
    #[inline]
    pub(super) fn key_print(&self, key: &str) -> u64 {
        let len = key.len();
        let at = (key.as_ptr() as usize).wrapping_sub(self.s.as_ptr() as usize);
        match at.checked_add(8).and_then(|end| self.s.get(at..end)) {
            Some(head) if at + len <= self.s.len() => {
                let head = u64::from_le_bytes(head.try_into().unwrap_or_default());
                let mask = if len >= 7 {
                    0x00ff_ffff_ffff_ffff
                } else {
                    (1u64 << (8 * len)) - 1
                };
                (head & mask) | (len as u64 & 0xff) << 56
            }
            _ => fingerprint(key),
        }
    }

    pub(super) fn enter(&mut self) -> R<usize> {
        self.depth += 1;
        if self.depth > FAST_DEPTH {
            return bail();
        }
        Ok(self.keys.len())
    }

    pub(super) fn leave(&mut self, base: usize) {
        self.depth -= 1;
        self.keys.truncate(base);
    }
}
