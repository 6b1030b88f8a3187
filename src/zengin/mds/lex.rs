//! The MDS tokenizer. Lossless: every input byte belongs to exactly one token (whitespace, line
//! breaks and comments are tokens too), so printing the tokens in order gives the file back byte
//! for byte. (A parsed file keeps its tokens without the whitespace runs, which are the gaps
//! between the kept tokens.) Never loops without consuming input, so it cannot hang (unlike ZenKit on a comment in
//! an unterminated last line).

use crate::zengin::script::EVENT_KEYWORDS;
use crate::zengin::types::find_newline;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Spaces, tabs, `\r`, `\v`, `\f`.
    Space,
    /// One `\n`.
    Newline,
    /// `// …` or a lone `/ …`, up to (not including) the line break.
    Comment,
    /// Letters, digits, `_`, `-`, `.`, starting with a letter, `*`, `_` or `.`.
    Word,
    /// `"…"`; see [`Token::str_value`].
    Str,
    /// Digits with an optional leading `-` and `.`s.
    Number,
    LParen,
    RParen,
    LBrace,
    RBrace,
    Colon,
    Semicolon,
    /// A byte that starts no token.
    Other,
}

/// A token: its kind and byte range in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub start: u32,
    pub end: u32,
}

impl Token {
    pub fn text<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        &src[self.start as usize..self.end as usize]
    }
    /// The value of a string token: without its quotes (an unterminated string has only the
    /// opening one).
    pub fn str_value<'a>(&self, src: &'a [u8]) -> &'a [u8] {
        let t = self.text(src);
        let t = t.strip_prefix(b"\"").unwrap_or(t);
        t.strip_suffix(b"\"").unwrap_or(t)
    }
    /// Whether a string token lacks its closing quote.
    pub fn unterminated(&self, src: &[u8]) -> bool {
        let t = self.text(src);
        t.len() < 2 || !t.ends_with(b"\"")
    }
    pub fn is_trivia(&self) -> bool {
        matches!(self.kind, Kind::Space | Kind::Newline | Kind::Comment)
    }
}

/// Line and column (both from 1; columns count bytes) of byte `offset`.
pub fn line_col(src: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let col = offset
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line, col)
}

/// Byte classes, one table look-up per byte in the tokenizer's loops (the `matches!` chains
/// cost several compares per byte; the tokenizer is the largest part of MDS parsing).
const SPACE: u8 = 1;
const WORD_START: u8 = 2;
const WORD_CHAR: u8 = 4;
const DIGIT_DOT: u8 = 8;

const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut k = 0;
        if matches!(c, b' ' | b'\t' | b'\r' | 0x0B | 0x0C) {
            k |= SPACE;
        }
        if c.is_ascii_alphabetic() || matches!(c, b'*' | b'_' | b'.') {
            k |= WORD_START;
        }
        if c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.') {
            k |= WORD_CHAR;
        }
        if c.is_ascii_digit() || c == b'.' {
            k |= DIGIT_DOT;
        }
        t[b] = k;
        b += 1;
    }
    t
};

#[inline(always)]
fn is(b: u8, class: u8) -> bool {
    CLASS[b as usize] & class != 0
}
fn is_word_start(b: u8) -> bool {
    is(b, WORD_START)
}

/// The end of the run of bytes of `class` in `src` from `i`.
#[inline(always)]
fn run(src: &[u8], mut i: usize, class: u8) -> usize {
    while let Some(&b) = src.get(i) {
        if !is(b, class) {
            break;
        }
        i += 1;
    }
    i
}

/// Split `src` into tokens covering every byte.
pub fn tokenize(src: &[u8]) -> Vec<Token> {
    tokenize_with(src, true)
}

/// [`tokenize`], leaving out [`Kind::Space`] tokens when `spaces` is false (the whitespace is
/// then the gaps between tokens; printing them with the gaps still gives every byte back).
pub fn tokenize_with(src: &[u8], spaces: bool) -> Vec<Token> {
    if spaces {
        lex::<true>(src).tokens
    } else {
        lex::<false>(src).tokens
    }
}

/// The tokens without [`Kind::Space`] runs, and what the parser needs to know about `/` (found
/// in the same pass, so the parser does not scan the tokens and strings again).
pub struct Lexed {
    pub tokens: Vec<Token>,
    /// Lines (from 0, ascending, a line may repeat) where `//` follows code or lies in a string:
    /// the engine skips them entirely.
    pub slash_lines: Vec<u32>,
    /// Comments that start with a single `/`: offset, line and column (both from 1).
    pub single_slash: Vec<(usize, usize, usize)>,
}

/// [`tokenize_with`]`(src, false)` and the `/` facts of [`Lexed`].
pub fn tokenize_for_parse(src: &[u8]) -> Lexed {
    lex::<false>(src)
}

fn has_double_slash(t: &[u8]) -> bool {
    t.windows(2).any(|w| w == b"//")
}

/// The whitespace run at `i` (if any): its end, with a [`Kind::Space`] token when `SPACES`.
/// speed: called right after a line break or a token, where indentation and the gaps between
/// arguments lie, so a whitespace run costs no turn of the tokenizer's dispatch.
#[inline(always)]
fn skip_space<const SPACES: bool>(src: &[u8], i: usize, out: &mut Vec<Token>) -> usize {
    match src.get(i) {
        Some(&b) if is(b, SPACE) => {
            let end = run(src, i + 1, SPACE);
            if SPACES {
                out.push(Token {
                    kind: Kind::Space,
                    start: i as u32,
                    end: end as u32,
                });
            }
            end
        }
        _ => i,
    }
}

fn lex<const SPACES: bool>(src: &[u8]) -> Lexed {
    let mut out = Vec::with_capacity(src.len() / if SPACES { 3 } else { 5 });
    let mut slash_lines = Vec::new();
    let mut single_slash = Vec::new();
    // The line (from 0) and whether a significant token came before on it.
    let mut line = 0u32;
    let mut line_start = 0usize;
    let mut code = false;
    let mut i = 0usize;
    let n = src.len();
    while i < n {
        let start = i;
        let b = src[i];
        let kind = match b {
            b'\n' => {
                i += 1;
                line += 1;
                line_start = i;
                code = false;
                out.push(Token {
                    kind: Kind::Newline,
                    start: start as u32,
                    end: i as u32,
                });
                i = skip_space::<SPACES>(src, i, &mut out);
                continue;
            }
            b' ' | b'\t' | b'\r' | 0x0B | 0x0C => {
                i = run(src, i + 1, SPACE);
                if SPACES {
                    out.push(Token {
                        kind: Kind::Space,
                        start: start as u32,
                        end: i as u32,
                    });
                }
                continue;
            }
            b'/' => {
                i += find_newline(&src[i..]).unwrap_or(n - i);
                let text = &src[start..i];
                let double = text.starts_with(b"//");
                if !double {
                    single_slash.push((start, line as usize + 1, start - line_start + 1));
                }
                if code && (double || has_double_slash(text)) {
                    slash_lines.push(line);
                }
                out.push(Token {
                    kind: Kind::Comment,
                    start: start as u32,
                    end: i as u32,
                });
                continue;
            }
            b'"' => {
                i += 1;
                let mut slash = false;
                loop {
                    i = string_stop(src, i);
                    if i < n && src[i] == b'/' {
                        slash = true;
                        i += 1;
                    } else {
                        break;
                    }
                }
                if i < n && src[i] == b'"' {
                    i += 1;
                } else {
                    // Unterminated: a `)` ending the line (before trailing whitespace / `\r`)
                    // closes the statement, it is not part of the value.
                    let mut j = i;
                    while j > start + 1 && matches!(src[j - 1], b' ' | b'\t' | b'\r') {
                        j -= 1;
                    }
                    if j > start + 1 && src[j - 1] == b')' {
                        j -= 1;
                    }
                    // Do not keep a `\r` of a CRLF line in the value.
                    while j > start + 1 && src[j - 1] == b'\r' {
                        j -= 1;
                    }
                    i = j;
                }
                if slash && has_double_slash(&src[start..i]) {
                    slash_lines.push(line);
                }
                Kind::Str
            }
            b'(' => {
                i += 1;
                Kind::LParen
            }
            b')' => {
                i += 1;
                Kind::RParen
            }
            b'{' => {
                i += 1;
                Kind::LBrace
            }
            b'}' => {
                i += 1;
                Kind::RBrace
            }
            b':' => {
                i += 1;
                Kind::Colon
            }
            b';' => {
                i += 1;
                Kind::Semicolon
            }
            b if is_word_start(b) => {
                i = run(src, i + 1, WORD_CHAR);
                Kind::Word
            }
            b if b.is_ascii_digit() || b == b'-' => {
                i = run(src, i + 1, DIGIT_DOT);
                Kind::Number
            }
            _ => {
                i += 1;
                Kind::Other
            }
        };
        code = true;
        out.push(Token {
            kind,
            start: start as u32,
            end: i as u32,
        });
        i = skip_space::<SPACES>(src, i, &mut out);
    }
    Lexed {
        tokens: out,
        slash_lines,
        single_slash,
    }
}

/// The first `"`, `\n` or `/` in `src` from `i` (or `src.len()`), eight bytes a step: strings
/// are nearly half of a model script's bytes.
#[inline(always)]
fn string_stop(src: &[u8], mut i: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // A set high bit marks a zero byte of `x`; the lowest mark is exact (false marks lie only
    // above a true one), so the lowest mark of the three is the first stop byte.
    #[inline(always)]
    fn zeros(x: u64) -> u64 {
        x.wrapping_sub(LO) & !x & HI
    }
    while let Some(c) = src.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w);
        let m = zeros(x ^ (LO * b'"' as u64))
            | zeros(x ^ (LO * b'\n' as u64))
            | zeros(x ^ (LO * b'/' as u64));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = src.get(i) {
        if matches!(c, b'"' | b'\n' | b'/') {
            break;
        }
        i += 1;
    }
    i
}

/// The number of `\n` in `b`, eight bytes at a time (exact: a byte is counted only when it is
/// `\n`).
pub fn count_newlines(b: &[u8]) -> usize {
    const LO7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const HI: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = 0x0101_0101_0101_0101 * b'\n' as u64;
    let mut chunks = b.chunks_exact(8);
    let mut count = 0usize;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w) ^ NL;
        // high bit set in every byte of x that is not zero
        let nonzero = ((x & LO7).wrapping_add(LO7)) | x;
        count += (!nonzero & HI).count_ones() as usize;
    }
    count + chunks.remainder().iter().filter(|&&c| c == b'\n').count()
}

/// Exact powers of ten in f64.
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// `[sign] digits [. digits]` with at least one digit before the point and at most 15 in all,
/// as f64, the same value as `str::parse::<f64>`: the digits make an integer below 2^53 and the
/// power of ten is exact, so one division rounds correctly (the usual fast path of decimal
/// parsing; the general parser was 5 % of parsing a 930 KB script). `None` otherwise.
pub fn small_decimal(text: &[u8]) -> Option<f64> {
    let (neg, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let mut m: u64 = 0;
    let mut count = 0usize;
    let mut frac: Option<usize> = None;
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                m = m * 10 + u64::from(b - b'0');
                count += 1;
                if let Some(f) = frac.as_mut() {
                    *f += 1;
                }
            }
            b'.' if frac.is_none() && count > 0 => frac = Some(0),
            _ => return None,
        }
        if count > 15 {
            return None;
        }
    }
    if count == 0 {
        return None;
    }
    let v = m as f64 / POW10[frac.unwrap_or(0)];
    Some(if neg { -v } else { v })
}

/// `atof` then `float`: the longest prefix that is a decimal number, read as f64 and rounded
/// to f32. `None` when there is no digit.
pub fn engine_float(text: &[u8]) -> Option<f32> {
    let mut end = 0;
    let mut seen_digit = false;
    let mut seen_dot = false;
    for (i, &b) in text.iter().enumerate() {
        match b {
            b'-' | b'+' if i == 0 => {}
            b'0'..=b'9' => seen_digit = true,
            b'.' if !seen_dot => seen_dot = true,
            _ => break,
        }
        end = i + 1;
    }
    if !seen_digit {
        return None;
    }
    if let Some(v) = small_decimal(&text[..end]) {
        return Some(v as f32);
    }
    let s = std::str::from_utf8(&text[..end]).ok()?;
    let s = s.strip_suffix('.').unwrap_or(s);
    s.parse::<f64>().ok().map(|v| v as f32)
}

/// `atoi`: leading sign and digits (saturating).
pub fn engine_int(text: &[u8]) -> Option<i32> {
    let (neg, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let n = digits.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    let mut v: i64 = 0;
    for &b in &digits[..n] {
        v = (v * 10 + i64::from(b - b'0')).min(i64::from(i32::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    Some(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
}

/// Bit 5 of every byte: set, it makes an ASCII letter lower case (and changes no other letter
/// into one).
const CASE: u64 = 0x2020_2020_2020_2020;

/// The first and the last eight bytes of `w` (8 to 16 bytes long) as numbers.
const fn ends(w: &[u8]) -> (u64, u64) {
    let n = w.len();
    let (mut head, mut tail) = (0u64, 0u64);
    let mut i = 0;
    while i < 8 {
        head |= (w[i] as u64) << (8 * i);
        tail |= (w[n - 8 + i] as u64) << (8 * i);
        i += 1;
    }
    (head, tail)
}

/// Per event keyword: its length and its first and last eight bytes in lower case.
const EVENT_ENDS: [(usize, u64, u64); EVENT_KEYWORDS.len()] = {
    let mut t = [(0, 0, 0); EVENT_KEYWORDS.len()];
    let mut k = 0;
    while k < t.len() {
        let w = EVENT_KEYWORDS[k].as_bytes();
        // letters only (so setting bit 5 is a case-insensitive compare), 8 to 16 bytes
        assert!(w.len() >= 8 && w.len() <= 16);
        let mut i = 0;
        while i < w.len() {
            assert!(w[i].is_ascii_alphabetic());
            i += 1;
        }
        let (head, tail) = ends(w);
        t[k] = (w.len(), head | CASE, tail | CASE);
        k += 1;
    }
    t
};

/// The position of `text` (an event keyword without its `*`, any case) in [`EVENT_KEYWORDS`].
/// speed: two eight-byte compares per keyword (the keywords are letters only, so setting bit 5
/// of every byte compares them ignoring case) instead of a compare per byte, once per event line.
pub fn event_position(text: &[u8]) -> Option<usize> {
    if !(8..=16).contains(&text.len()) {
        return None;
    }
    let (head, tail) = ends(text);
    let (head, tail) = (head | CASE, tail | CASE);
    EVENT_ENDS
        .iter()
        .position(|&(n, h, t)| n == text.len() && h == head && t == tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_positions_agree_with_a_search_of_the_list() {
        let linear = |t: &[u8]| {
            EVENT_KEYWORDS
                .iter()
                .position(|k| t.eq_ignore_ascii_case(k.as_bytes()))
        };
        let mut words: Vec<Vec<u8>> = Vec::new();
        for k in EVENT_KEYWORDS {
            words.push(k.as_bytes().to_vec());
            words.push(k.to_ascii_uppercase().into_bytes());
            words.push(k.to_ascii_lowercase().into_bytes());
            // one letter changed, one cut off, one added
            let mut w = k.as_bytes().to_vec();
            let last = w.len() - 1;
            w[last] ^= 0x01;
            words.push(w.clone());
            words.push(k.as_bytes()[..last].to_vec());
            w[last] ^= 0x01;
            w.push(b'x');
            words.push(w);
        }
        for w in [
            &b""[..],
            b"e",
            b"eventSFXGrne",
            b"eventPFXStoq",
            b"eventSetMesi",
            b"eventTah",
            b"eventTag\x00",
            b"eventT\x01g",
            b"eventSFX_",
            b"eventSFX\x7f",
            b"EVENTCAMTREMOR12",
        ] {
            words.push(w.to_vec());
        }
        let mut found = 0;
        for w in &words {
            assert_eq!(
                event_position(w),
                linear(w),
                "{}",
                String::from_utf8_lossy(w)
            );
            found += usize::from(linear(w).is_some());
        }
        assert_eq!(found, 3 * EVENT_KEYWORDS.len());
        assert_eq!(event_position(b"EVENTcamTREMOR"), Some(9));
    }

    fn kinds(src: &str) -> Vec<(Kind, String)> {
        tokenize(src.as_bytes())
            .iter()
            .map(|t| {
                (
                    t.kind,
                    String::from_utf8_lossy(t.text(src.as_bytes())).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn tokens_cover_every_byte() {
        let src = "Model(\"a\") {\r\n\t// c\r\n\tani(\"x\" 1 M. .F -3 4.2 FPS:25;)\n}";
        let toks = tokenize(src.as_bytes());
        let mut joined = Vec::new();
        for t in &toks {
            joined.extend_from_slice(t.text(src.as_bytes()));
        }
        assert_eq!(joined, src.as_bytes());
        let k = kinds("ani(\"x\" 1 M. .F -3 4.2 FPS:25)");
        use Kind::*;
        let expect: Vec<(Kind, &str)> = vec![
            (Word, "ani"),
            (LParen, "("),
            (Str, "\"x\""),
            (Space, " "),
            (Number, "1"),
            (Space, " "),
            (Word, "M."),
            (Space, " "),
            (Word, ".F"),
            (Space, " "),
            (Number, "-3"),
            (Space, " "),
            (Number, "4.2"),
            (Space, " "),
            (Word, "FPS"),
            (Colon, ":"),
            (Number, "25"),
            (RParen, ")"),
        ];
        assert_eq!(
            k,
            expect
                .into_iter()
                .map(|(a, b)| (a, b.to_string()))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn unterminated_strings_stop_at_the_line_end_and_leave_a_closing_paren() {
        let src = b"registerMesh(\"X.asc)\r\nnext";
        let toks = tokenize(src);
        assert_eq!(toks[2].kind, Kind::Str);
        assert_eq!(toks[2].str_value(src), b"X.asc");
        assert!(toks[2].unterminated(src));
        assert_eq!(toks[3].kind, Kind::RParen);
        assert_eq!(toks[4].kind, Kind::Space); // "\r"
        let src = b"\"abc)\"";
        assert_eq!(tokenize(src)[0].str_value(src), b"abc)");
    }

    #[test]
    fn comment_on_an_unterminated_last_line_ends() {
        // ZenKit loops forever here.
        let src = b"Model(\"m\") {\n// last";
        let toks = tokenize(src);
        assert_eq!(toks.last().unwrap().kind, Kind::Comment);
        assert_eq!(line_col(src, src.len() - 1), (2, 7));
    }

    #[test]
    fn one_pass_slash_facts_and_word_scans_agree_with_plain_ones() {
        let src = b"Model(\"m\") {\n/ one\n  ani(\"a//b\" 1) // c\n\tx(\"p/q\") / y//z\n\"u//v\n// own line\n}";
        let l = tokenize_for_parse(src);
        assert_eq!(l.tokens, tokenize_with(src, false));
        // line 0: no `//`; 1: single slash, no code; 2: `//` in a string and after code;
        // 3: `//` inside a single-slash comment after code; 4: unterminated string with `//`
        assert_eq!(l.slash_lines, vec![2, 2, 3, 4]);
        assert_eq!(l.single_slash, vec![(13, 2, 1), (50, 4, 11)]);
        assert_eq!(line_col(src, 50), (4, 11));
        for (text, stop) in [
            (&b"abcdefghijklmnopq\"r"[..], 17),
            (b"abcdefg/", 7),
            (b"abcdefgh\nij", 8),
            (b"abc", 3),
            (b"\x80\x81\x82\xffabcdefghijklm\"", 17),
        ] {
            assert_eq!(string_stop(text, 0), stop, "{text:?}");
        }
        let data: Vec<u8> = (0..=255u8).cycle().take(700).collect();
        for start in 0..30 {
            let s = &data[start..];
            let plain = s.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(count_newlines(s), plain);
            let stop = s.iter().position(|b| b"\"\n/".contains(b));
            assert_eq!(string_stop(s, 0), stop.unwrap_or(s.len()));
        }
    }

    #[test]
    fn small_decimals_read_as_the_general_parser_reads_them() {
        for t in [
            "0",
            "-0",
            "+7",
            "0.1",
            "1.",
            "25",
            "-3.75",
            "123456789.012345",
            "0.3333333",
            "999999999999999",
            "1500",
            "0.00000000000001",
        ] {
            let general = t.strip_suffix('.').unwrap_or(t).parse::<f64>().unwrap();
            let fast = small_decimal(t.as_bytes()).unwrap();
            assert_eq!(fast.to_bits(), general.to_bits(), "{t}");
            let f = crate::zengin::mds::parse::engine_float(t.as_bytes()).unwrap();
            assert_eq!(f.to_bits(), (general as f32).to_bits(), "{t}");
        }
        // beyond the fast path: the general parser
        assert_eq!(small_decimal(b"1234567890123456"), None); // 16 digits
        assert_eq!(small_decimal(b".5"), None);
        assert_eq!(small_decimal(b"2.5e3"), None);
        assert_eq!(crate::zengin::mds::parse::engine_float(b"2.5e3"), Some(2.5));
        assert_eq!(crate::zengin::mds::parse::engine_float(b"0.1.2"), Some(0.1));
        assert_eq!(
            crate::zengin::mds::parse::engine_float(b"1234567890123456.5"),
            Some(1234567890123456.5f64 as f32)
        );
    }
}
